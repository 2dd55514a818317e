//! How much arena adds to the cost of starting bots: a Morra game between two tiny native
//! `argv` bots, played (a) by the bare minimum of process work, (b) by `arena run --jobs 1
//! --no-sandbox` and (c) by `arena run --jobs 1` with every protection of the sandbox.
//!
//! Run with `cargo bench --bench spawn_overhead`. Prints the medians, the ratio b/a (the
//! controller's own overhead, target at most 1.1), the sandbox's cost per process start
//! ((c - b) / starts, target under 1 ms) and c/a (goal at most 1.25, issue 17). From a game's
//! eighth move, (c) starts the bots' processes through each game's spawner
//! (`src/sandbox/spawner.rs`), which the two bots' spawners do at once on two cores: (c) can
//! beat (b). `ROUNDS` and `SAMPLES` in the environment change the size.

#[path = "common/mod.rs"]
mod common;

use common::{compile, env_number, median, ARGV_MORRA_BOT};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Compiles the tiny bot into two bot files.
fn build_bots(dir: &Path) -> [PathBuf; 2] {
    let exe = compile(dir, "tiny", ARGV_MORRA_BOT);
    let bots = [dir.join("tiny-a"), dir.join("tiny-b")];
    for bot in &bots {
        std::fs::copy(&exe, bot).unwrap();
    }
    bots
}

/// The floor: per round, start both bots at once with the round's six arguments, read their
/// output, wait for both. Histories grow as in a real game.
fn floor(bots: &[PathBuf; 2], rounds: u32) -> Duration {
    let started = Instant::now();
    let (mut choices, mut guesses) = (
        [String::new(), String::new()],
        [String::new(), String::new()],
    );
    let scores = [0u32, 0];
    for _ in 0..rounds {
        let mut children: Vec<_> = (0..2)
            .map(|i| {
                let o = 1 - i;
                Command::new(&bots[i])
                    .args([
                        &choices[i],
                        &guesses[i],
                        &scores[i].to_string(),
                        &choices[o],
                        &guesses[o],
                        &scores[o].to_string(),
                    ])
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for (i, child) in children.iter_mut().enumerate() {
            let mut out = String::new();
            child
                .stdout
                .take()
                .unwrap()
                .read_to_string(&mut out)
                .unwrap();
            assert!(child.wait().unwrap().success());
            let mut it = out.split_whitespace();
            choices[i].push_str(it.next().unwrap());
            guesses[i].push_str(it.next().unwrap());
        }
    }
    started.elapsed()
}

/// arena playing the same game with `--jobs 1`, and any `extra` arguments.
fn arena(bots: &[PathBuf; 2], rounds: u32, out: &Path, extra: &[&str]) -> Duration {
    let _ = std::fs::remove_dir_all(out);
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .args(bots)
        .args([
            "--jobs",
            "1",
            "--quiet",
            "--seed",
            "1",
            "--morra-rounds",
            &rounds.to_string(),
            "--out",
        ])
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    let elapsed = started.elapsed();
    assert!(status.success());
    let games = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(
        games.lines().nth(1).unwrap().contains(",normal,"),
        "{games}"
    );
    elapsed
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (such as `cargo test --benches`) only
    // checks that this builds and runs, with a tiny game.
    let benching = std::env::args().any(|a| a == "--bench");
    let rounds = env_number("ROUNDS", if benching { 1000 } else { 5 });
    let samples = env_number("SAMPLES", if benching { 7 } else { 1 });
    let dir = tempfile::tempdir().unwrap();
    let bots = build_bots(dir.path());
    let out = dir.path().join("out");
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    // Interleaved, so a change in machine load hits all alike.
    for _ in 0..samples {
        a.push(floor(&bots, rounds));
        b.push(arena(&bots, rounds, &out, &["--no-sandbox"]));
        c.push(arena(&bots, rounds, &out, &[]));
    }
    let (a, b, c) = (median(a), median(b), median(c));
    let per_round = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(rounds);
    println!("morra game of {rounds} rounds, two tiny native argv bots, median of {samples}:");
    println!(
        "  {:<38}{:8.1} ms  {:6.1} µs/round",
        "(a) floor (spawn both, read, wait):",
        a.as_secs_f64() * 1e3,
        per_round(a)
    );
    let line = |label: &str, d: Duration| {
        println!(
            "  {label:<38}{:8.1} ms  {:6.1} µs/round",
            d.as_secs_f64() * 1e3,
            per_round(d)
        )
    };
    line("(b) arena run --jobs 1 --no-sandbox:", b);
    line("(c) arena run --jobs 1 (sandboxed):", c);
    let ratio = |x: Duration, y: Duration| x.as_secs_f64() / y.as_secs_f64();
    println!(
        "  controller overhead b/a: {:.3} (target <= 1.1)",
        ratio(b, a)
    );
    let starts = 2.0 * f64::from(rounds);
    println!(
        "  sandbox cost per process start (c-b)/{starts}: {:.3} ms (target < 1)",
        (c.as_secs_f64() - b.as_secs_f64()) * 1e3 / starts
    );
    println!("  sandboxed c/a: {:.3} (goal <= 1.25)", ratio(c, a));
}
