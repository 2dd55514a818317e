//! Writes every output of a tournament for its current field: standings, cross-table,
//! ratings, LOS, grades and report from the games that count, and the tables on stdout.

use anyhow::{Context, Result};

use crate::export;
use crate::results::games::{GameRecord, GameTable};

use super::file::TournamentFile;

/// Writes the outputs of `info`'s tournament from `records`, the games that count.
pub fn outputs(info: &TournamentFile, records: &[GameRecord]) -> Result<()> {
    let config = &info.config;
    let out = config.out();
    let references = &info.gauntlet;
    let (title, description) = info.describe();
    let gauntlet = (!references.is_empty()).then(|| {
        // A gauntlet's candidates: the bots that played that are not references, and those
        // that never ran.
        let mut candidates: Vec<String> = info
            .bots
            .iter()
            .map(|b| b.name.clone())
            .chain(info.excluded.iter().map(|e| e.name.clone()))
            .filter(|n| !references.contains(n))
            .collect();
        candidates.sort();
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
        },
    )?;
    crate::stdout::print(format_args!(
        "{}\n{}",
        export::markdown::standings(&written.standings),
        export::markdown::crosstable(&written.standings)
    ))
    .context("cannot write the standings to stdout")?;
    if let Some(grades) = &written.grades {
        crate::stdout::print(format_args!("\n{}", export::terminal::grades(grades)))
            .context("cannot write the grades to stdout")?;
    }
    Ok(())
}
