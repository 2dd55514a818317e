//! Plays a plan's games with the runner: the bots' lineup and seats, a progress bar, and a
//! stop on Ctrl-C, SIGTERM or SIGHUP; each game goes to `games.csv` as it ends.

use std::io::IsTerminal;
use std::sync::Arc;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bot::prepare::PreparedBot;
use crate::bot::workspace::Workspace;
use crate::results::games::{GameRecord, GameResult, GamesWriter, Reason};
use crate::schedule::Pairing;

use super::file::TournamentFile;
use super::lineup::Lineup;
use super::lock::Stops;
use super::remote::{Mixed, Remotes};
use super::runner::{self, Settings};
use super::Interrupted;

/// Plays `games` (seats indexing `bots`, then the remote entrants) of the tournament `info`,
/// appending each to `writer`, and closes the workspace; returns the games played. Stopped by
/// a signal, it returns [`Interrupted`], counting `counted` games recorded before and `total`
/// in the schedule.
#[allow(clippy::too_many_arguments)]
pub async fn play<R: Remotes>(
    info: &TournamentFile,
    workspace: Workspace,
    bots: Vec<Arc<PreparedBot>>,
    games: Vec<Pairing>,
    counted: usize,
    total: usize,
    writer: &mut GamesWriter,
    remotes: Arc<R>,
) -> Result<Vec<GameRecord>> {
    let config = &info.config;
    let out = config.out().to_path_buf();
    let limits = config.move_limits();
    let settings = Arc::new(Settings {
        run_id: info.run.clone(),
        game: config.game,
        rules: config.rules,
        seed: config.seed(),
        opening_plies: config.tournament.opening_plies,
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
        schedule: games,
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
    if played.interrupted {
        return Err(Interrupted {
            played: counted + played.records.len(),
            total,
            out,
            signal: stopped_by,
        }
        .into());
    }
    Ok(played.records)
}

fn progress_bar(games: u64, wanted: bool) -> ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(games), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games, ETA {eta}  {wide_msg}")
            .expect("the template is valid"),
    );
    bar
}

/// A one-line summary of a game for the progress bar.
fn describe(r: &GameRecord) -> String {
    let verdict = match r.result {
        GameResult::A => format!("{} won", r.bot_a),
        GameResult::B => format!("{} won", r.bot_b),
        GameResult::Draw => "draw".to_string(),
    };
    let reason = match r.reason {
        Reason::Normal => "",
        Reason::Timeout => ", timeout",
        Reason::Illegal => ", illegal",
        Reason::Crash => ", crash",
    };
    format!(
        "latest: {} {}-{} {} ({verdict}{reason})",
        r.bot_a, r.score_a, r.score_b, r.bot_b
    )
}
