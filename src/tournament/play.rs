//! Plays a plan's games with the runner: the bots' lineup and seats, a progress bar, and a
//! stop on Ctrl-C, SIGTERM or SIGHUP; each game goes to `games.csv` as it ends.

use std::sync::Arc;

use anyhow::Result;

use crate::bot::prepare::PreparedBot;
use crate::bot::workspace::Workspace;
use crate::results::games::{GameRecord, GamesWriter};
use crate::schedule::Pairing;
use crate::standings::sprt::Sprt;
use crate::standings::swiss::SwissTable;

use super::file::TournamentFile;
use super::lineup::Lineup;
use super::lock::Stops;
use super::progress::{describe, progress_bar};
use super::remote::{Mixed, Remotes};
use super::runner::{self, Settings};
use super::Interrupted;
use super::{late, plan, sprt, swiss};

/// What a run played: its games, and the state of its format's rule when it has one.
pub struct Played {
    pub records: Vec<GameRecord>,
    /// An SPRT match's test after its last game.
    pub sprt: Option<Sprt>,
    /// A Swiss tournament's standings, the earlier games included.
    pub swiss: Option<SwissTable>,
}

/// Plays `games` (seats indexing `bots`, then the remote entrants) of the tournament `info`,
/// appending each to `writer`, and closes the workspace; returns the games played. The rules
/// of the format are consulted as games end: an SPRT may stop the match, Swiss rounds are
/// paired from the results so far, and late entrants of `arena serve` add games. Stopped by a
/// signal, it returns [`Interrupted`], counting the `counted` games recorded before and
/// `total` in the schedule.
#[allow(clippy::too_many_arguments)]
pub async fn play<R: Remotes>(
    info: &TournamentFile,
    workspace: Workspace,
    bots: Vec<Arc<PreparedBot>>,
    games: Vec<Pairing>,
    counted: &[GameRecord],
    total: usize,
    writer: &mut GamesWriter,
    remotes: Arc<R>,
) -> Result<Played> {
    let config = &info.config;
    let out = config.out().to_path_buf();
    let references = &info.gauntlet;
    let remote_names = remotes.names();
    let names: Vec<&str> = (bots.iter().map(|b| b.spec.name.as_str()))
        .chain(remote_names.iter().map(String::as_str))
        .collect();
    let rounds = swiss::Rounds::new(config, &names, counted);
    let total = total + rounds.as_ref().map_or(0, swiss::Rounds::total);
    let mut test = config.format.sprt.map(|b| {
        let schedule = plan::field_schedule(config, &names, references);
        sprt::Match::new(b, sprt::bots(&names, references), &schedule, &out)
    });
    let games = sprt::resumed(test.as_mut(), counted, games)?;
    let late = late::open(config, bots.len(), &names, references, &games, counted);
    let limits = config.move_limits();
    let settings = Arc::new(Settings {
        run_id: info.run.clone(),
        game: config.game,
        rules: config.rules,
        seed: config.seed(),
        opening_plies: config.tournament.opening_plies,
        book: config.book()?.map(Arc::new),
        clock: config.time.time_control,
        jobs: config.jobs(),
        replays: config.replays().then(|| out.join("replays")),
        move_time: limits.move_time,
    });
    let instances = workspace.instances(bots.len());
    let lineup = Lineup::new(
        bots,
        instances,
        config.instances(),
        config.player_settings(),
    );
    let seats = Arc::new(Mixed::new(lineup, Arc::clone(&remotes), config.jobs()));
    // Friendly games may be asked for from now; the schedule's games wait for the start.
    let locals: Vec<String> = (seats.lineup.bots.iter())
        .map(|b| b.spec.name.clone())
        .collect();
    let progress = progress_bar(games.len() as u64, !config.output.quiet);
    let plan = runner::Plan {
        start: remotes.start(seats.first_remote(), &games),
        friendly: remotes.friendly(&locals),
        late: late.and_then(|(door, rx)| remotes.late(door).then_some(rx)),
        schedule: games,
        enough: test.as_mut().map(|t| t.rule(progress.clone())),
        more: rounds.as_ref().map(|r| r.rule(progress.clone())),
    };
    // One listener for the whole run: it keeps a signal that arrives between two polls.
    let mut stops = Stops::listen()?;
    let mut stopped_by = 0;
    let played = runner::play_schedule(
        &settings,
        &seats,
        seats.len(),
        plan,
        async {
            stopped_by = stops.next().await;
        },
        &mut |record| {
            writer.append(record)?;
            progress.inc(1);
            progress.set_message(describe(record));
            Ok(())
        },
    )
    .await;
    progress.finish_and_clear();
    remotes.close();
    if played.as_ref().is_ok_and(|p| p.interrupted) {
        tokio::spawn(async move {
            // A second signal exits at once, even while the workspace is cleaned up.
            let signal = stops.next().await;
            std::process::exit(128 + signal);
        });
    }
    let bots = Arc::into_inner(seats).map_or_else(Vec::new, |s| s.lineup.bots);
    let closed = workspace.close(bots);
    let played = played?;
    closed?;
    sprt::finished(test.as_ref(), config.output.quiet)?;
    if played.interrupted {
        return Err(Interrupted {
            played: counted.len() + played.records.len(),
            total,
            out,
            signal: stopped_by,
        }
        .into());
    }
    let swiss = rounds.as_ref().map(|r| {
        let all: Vec<GameRecord> = counted.iter().chain(&played.records).cloned().collect();
        r.table(&all)
    });
    Ok(Played {
        records: played.records,
        sprt: test.as_ref().map(sprt::Match::state),
        swiss,
    })
}
