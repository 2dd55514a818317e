//! Whether arena's cost per game stays flat as the field grows: the same number of Morra games
//! in a gauntlet of 100 and of 1,000 tiny native bots, with and without the sandbox, and the
//! controller's peak threads and file descriptors meanwhile.
//!
//! Run with `cargo bench --bench many_bots`. Prints per configuration the wall time per game,
//! the mean game time from `games.csv`, the peak `Threads` of `/proc/<pid>/status` and the peak
//! count of `/proc/<pid>/fd`, then the ratios 1000/100 (target: flat, at most ~1.1). By
//! default each candidate plays one game in both fields (100 games: the whole gauntlet of 100
//! bots, a tenth of the gauntlet of 1,000), so both compare games of bots playing their first
//! game; the wall time also holds the preparation of every bot of the field, which grows with
//! it, the game times of `games.csv` do not. `GAMES` and `ROUNDS` (Morra rounds, default 5) in
//! the environment change the size; `ARENA` runs another arena binary (an older build, for a
//! before/after).
//!
//! Measured here (500 games): before, sandboxed 18.2 -> 61.1 ms/game (ratio 3.35), peak 1004
//! threads and 6027 fds with 1000 bots; after, 15.6 -> 20.0 ms/game (1.29), 3 threads, 35 fds.
//!
//! Its second part is the cost of one more game of a round-robin shard (`--jobs 1`), where a
//! 1,000-bot field meets a jail with no idle holder in almost every game: 12.1 -> 18.9 ms
//! (1.56) before holders were started ahead of their games; 13.7 -> 19.7 ms (1.43) and
//! 17.7 -> 19.7 ms (1.11) after, on a noisy machine; 17.9 -> 20.4 ms (1.14) with holders
//! cloned by the jail factory, the shards of 250 and 750 games. The 1,000-bot shards also
//! paid for their ratings, dense in the ~400 and ~780 bots that had played (0.2 and 0.8 s
//! at the end of the run): 1.19-1.46 over four runs; with the sparse ratings 0.95, 0.98,
//! 1.21 and 1.12 (16.8-18.7 ms against 15.0-18.1 ms).

#[path = "common/mod.rs"]
mod common;

use common::{compile, env_number, watch_peaks, Peaks, ARGV_MORRA_BOT};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Compiles the tiny bot and copies it to `count` bot files plus a reference bot.
fn build_bots(dir: &Path, count: usize) -> (PathBuf, Vec<PathBuf>) {
    std::fs::create_dir_all(dir).unwrap();
    let exe = compile(dir, "tiny", ARGV_MORRA_BOT);
    let field = dir.join("field");
    std::fs::create_dir_all(&field).unwrap();
    let reference = dir.join("reference");
    std::fs::copy(&exe, &reference).unwrap();
    let bots = (0..count)
        .map(|i| {
            let bot = field.join(format!("bot{i:04}"));
            std::fs::copy(&exe, &bot).unwrap();
            bot
        })
        .collect();
    (reference, bots)
}

struct Run {
    wall: Duration,
    games: usize,
    /// Mean `duration_ms` of the games.
    game_ms: f64,
    threads: u64,
    fds: u64,
}

/// A gauntlet of `bots` against `reference`, with `extra` arguments.
fn arena(reference: &Path, bots: &[PathBuf], rounds: u32, out: &Path, extra: &[&str]) -> Run {
    let _ = std::fs::remove_dir_all(out);
    let started = Instant::now();
    // `ARENA` names another binary to measure, e.g. an older build for a before/after.
    let program = std::env::var_os("ARENA").unwrap_or(env!("CARGO_BIN_EXE_arena").into());
    let mut child = Command::new(program)
        .args(["run", "morra"])
        .args(bots)
        .arg("--gauntlet")
        .arg(reference)
        .args(["--jobs", "2", "--quiet", "--seed", "1", "--no-replays"])
        .args(["--morra-rounds", &rounds.to_string(), "--out"])
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let sampler = watch_peaks(child.id(), Arc::clone(&done));
    let status = child.wait().unwrap();
    let wall = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let Peaks { threads, fds, .. } = sampler.join().unwrap();
    assert!(status.success());
    let mut reader = csv::Reader::from_path(out.join("games.csv")).unwrap();
    let column = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "duration_ms")
        .unwrap();
    let durations: Vec<f64> = reader
        .records()
        .map(|r| r.unwrap()[column].parse().unwrap())
        .collect();
    Run {
        wall,
        games: durations.len(),
        game_ms: durations.iter().sum::<f64>() / durations.len() as f64,
        threads,
        fds,
    }
}

/// The cost of one more game in a shard of about `games` games of a round robin, `--jobs 1`:
/// the wall time of a shard of about 1.5 × `games` games less that of one of about half as
/// many, over the games added (preparing the field costs the same in both, so it cancels). In
/// a field of 100 each bot plays about ten of the shard's games; in a field of 1,000 about
/// one, so every game meets bots whose jail has not been used yet.
///
/// Preparing 1,000 bots takes seconds and varies by up to a second from run to run (on ext4,
/// making an inode slows down while many were deleted in the last minutes, as the runs before
/// did). Taking the difference over `games` games, with the smaller shard first in one
/// repetition and second in the next, keeps that out of the cost of a game.
fn marginal_game_ms(dir: &Path, size: usize, games: usize, rounds: u32, reps: usize) -> f64 {
    let field = dir.join(format!("rr{size}"));
    let (_, bots) = build_bots(&field, size);
    let out = dir.join("rr-out");
    let total = size * (size - 1) / 2;
    let shard_of = |n: usize| format!("1/{}", (total / n.max(1)).max(1));
    let run = |shard: &str| {
        let _ = std::fs::remove_dir_all(&out);
        let program = std::env::var_os("ARENA").unwrap_or(env!("CARGO_BIN_EXE_arena").into());
        let started = Instant::now();
        let status = Command::new(&program)
            .args(["run", "morra"])
            .args(&bots)
            .args(["--jobs", "1", "--quiet", "--seed", "1", "--no-replays"])
            .args([
                "--morra-rounds",
                &rounds.to_string(),
                "--shard",
                shard,
                "--out",
            ])
            .arg(&out)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let played = csv::Reader::from_path(out.join("games.csv"))
            .unwrap()
            .records()
            .count();
        (started.elapsed().as_secs_f64() * 1e3, played)
    };
    let mut marginals = Vec::new();
    for rep in 0..reps {
        let (small, big) = (shard_of(games / 2), shard_of(games * 3 / 2));
        let ((small_ms, small), (big_ms, big)) = if rep % 2 == 0 {
            (run(&small), run(&big))
        } else {
            let big = run(&big);
            (run(&small), big)
        };
        marginals.push((big_ms - small_ms) / (big - small).max(1) as f64);
    }
    common::median(marginals)
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (such as `cargo test --benches`) only
    // checks that this builds and runs, with a tiny field.
    let benching = std::env::args().any(|a| a == "--bench");
    let games = env_number("GAMES", if benching { 100 } else { 10 });
    let rounds = env_number("ROUNDS", 5);
    let sizes: [usize; 2] = if benching { [100, 1000] } else { [5, 10] };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    println!("morra gauntlet, {games} games of {rounds} rounds, tiny native argv bots, --jobs 2:");
    println!("  (wall: preparation of the whole field included; games.csv: the games alone)");
    for (label, extra) in [
        ("--no-sandbox", &["--no-sandbox"][..]),
        ("sandboxed", &[][..]),
    ] {
        let mut per_game = Vec::new();
        for size in sizes {
            let field = dir.path().join(format!("n{size}"));
            let (reference, bots) = build_bots(&field, size);
            // The same number of games whatever the field: games per pairing, or a shard.
            let games_arg = (games as usize / size).max(1).to_string();
            let shards = (size / games as usize).max(1);
            let shard = format!("1/{shards}");
            let mut args = vec!["--games", &games_arg];
            if shards > 1 {
                args.extend(["--shard", &shard]);
            }
            args.extend(extra);
            let run = arena(&reference, &bots, rounds, &out, &args);
            let wall_per_game = run.wall.as_secs_f64() * 1e3 / run.games as f64;
            println!(
                "  {label:<13} {size:>5} bots: {:4} games, {:7.2} ms/game wall, {:6.2} ms/game in games.csv, peak {:5} threads, {:5} fds",
                run.games, wall_per_game, run.game_ms, run.threads, run.fds
            );
            per_game.push((wall_per_game, run.game_ms));
        }
        println!(
            "  {label:<13} ratio {}/{}: {:.2} wall, {:.2} in games (target <= 1.1)",
            sizes[1],
            sizes[0],
            per_game[1].0 / per_game[0].0,
            per_game[1].1 / per_game[0].1
        );
    }

    // The issue 17 figure: one more game of a round-robin shard, 1,000 bots against 100.
    let rr_games = env_number("RR_GAMES", if benching { 500 } else { 6 });
    let reps = env_number("REPS", if benching { 4 } else { 1 });
    println!(
        "morra round-robin shard of ~{rr_games} games of {rounds} rounds, tiny native argv bots, sandboxed, --jobs 1:"
    );
    let costs: Vec<f64> = sizes
        .iter()
        .map(|&size| {
            let ms = marginal_game_ms(dir.path(), size, rr_games, rounds, reps);
            println!("  {size:>5} bots: one more game {ms:6.2} ms (median of {reps})");
            ms
        })
        .collect();
    println!(
        "  ratio {}/{}: {:.2} (target <= 1.25)",
        sizes[1],
        sizes[0],
        costs[1] / costs[0]
    );
}
