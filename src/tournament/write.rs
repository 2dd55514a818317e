//! Writes every output of a tournament for its current field: standings, cross-table,
//! ratings, LOS, grades and report from the games that count, and the tables on stdout.

use anyhow::{Context, Result};

use crate::export;
use crate::results::games::{GameRecord, GameTable};

use super::file::TournamentFile;
use super::play::Played;
use super::swiss;

/// Writes the outputs of `info`'s tournament from `records`, the games that count, with its
/// format's tables (`played`'s SPRT and Swiss standings) when it has them.
pub fn outputs(info: &TournamentFile, records: &[GameRecord], played: &Played) -> Result<()> {
    let config = &info.config;
    let out = config.out();
    let references = &info.gauntlet;
    let (title, description) = info.describe();
    let gauntlet = (!references.is_empty()).then(|| {
        // A gauntlet's candidates: the bots that played that are not references (those who
        // joined `arena serve` late included), and those that never ran.
        let mut candidates: Vec<String> = info
            .bots
            .iter()
            .map(|b| b.name.clone())
            .chain(info.excluded.iter().map(|e| e.name.clone()))
            .chain(
                records
                    .iter()
                    .flat_map(|r| [r.bot_a.clone(), r.bot_b.clone()]),
            )
            .filter(|n| !references.contains(n))
            .collect();
        candidates.sort();
        candidates.dedup();
        crate::standings::grades::Gauntlet {
            references: references.clone(),
            candidates,
            never_ran: info.left_out(),
            rule: config.tournament.pass,
            move_time: Some(config.move_limits().move_time),
            versions: info.versions(),
        }
    });
    let written = export::write_all(
        out,
        &GameTable::from_records(records),
        &export::ReportOptions {
            anchor: config.output.anchor.clone(),
            title,
            config: description,
            replays: config
                .replays()
                .then(|| export::html::ReplayDir::beside(out.join("replays")))
                .into_iter()
                .collect(),
            logs: true,
            gauntlet,
            left_out: info.left_out(),
            sprt: played.sprt.clone(),
            swiss: played.swiss.clone(),
        },
    )?;
    crate::stdout::print(format_args!(
        "{}\n{}",
        export::markdown::standings(&written.standings),
        export::markdown::crosstable(&written.standings)
    ))
    .context("cannot write the standings to stdout")?;
    if let Some(table) = &played.swiss {
        let table = swiss::write(out, table)?;
        crate::stdout::print(format_args!("\n{table}")).context("cannot write to stdout")?;
    }
    if let Some(grades) = &written.grades {
        crate::stdout::print(format_args!("\n{}", export::terminal::grades(grades)))
            .context("cannot write the grades to stdout")?;
    }
    Ok(())
}
