//! What arena adds to a turn-based game of `lines` bots: Numer0n games between two tiny
//! native bots that play legal moves, against a raw pipe ping-pong of the same number of lines
//! between two tiny native processes that the bench starts and feeds itself.
//!
//! Run with `cargo bench --bench turn_overhead`. Side by side in one run, interleaved: (a) the
//! floor (ping-pong), (b) `arena run numeron` with the default sandbox, `--pause-opponent` on
//! and replays, (c) the same with `--pause-opponent off`, (d) the same with `--no-replays`.
//! Prints medians and the ratios against (a) (target for b/a: at most 2). Two ratios per
//! variant: the whole run (arena's start-up, bot preparation and report included) and the
//! cost of one more game, from runs of `GAMES` and `3 × GAMES` games: (T(3G) − T(G)) / 2G,
//! which is what a game costs in a long tournament. `GAMES` and `SAMPLES` in the environment
//! change the size.
//!
//! Measured here (2 shared cores), whole run: before the fixes b/a 2.48, c/a 1.79, d/a 2.42;
//! after (freeze file kept open, typed replays, per-game cage and log) b/a 2.31, c/a 1.99,
//! d/a 2.16. The figures after the lazy pause are in the README's Performance section.

#[path = "common/mod.rs"]
mod common;

use common::{compile, env_number, median};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A `lines` Numer0n bot: hides 987, calls the distinct-digit codes in order from 012, so
/// with the default 50 calls each neither side solves and every game has 102 exchanges.
const BOT_SOURCE: &str = r#"
#include <stdio.h>
#include <string.h>
static char line[1 << 16];
int main(void) {
    int next = 12;
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "secret", 6) == 0) { fputs("987\n", stdout); continue; }
        for (;;) {
            int a = next / 100, b = next / 10 % 10, c = next % 10;
            next++;
            if (a != b && b != c && a != c) { printf("%d%d%d\n", a, b, c); break; }
        }
    }
    return 0;
}
"#;

/// The floor's partner: answers every line with a fixed line.
const ECHO_SOURCE: &str = r#"
#include <stdio.h>
static char line[1 << 16];
int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(line, sizeof line, stdin)) fputs("012\n", stdout);
    return 0;
}
"#;

/// Exchanges in one game of the tiny bots: two secrets and 50 calls each.
const EXCHANGES: usize = 102;

/// The floor: per game, start two echoers, send them the game's request lines alternately
/// (the histories grow as in a real game), read each reply, then close and wait.
fn floor(echo: &Path, games: u32) -> Duration {
    let started = Instant::now();
    for _ in 0..games {
        let mut children: Vec<_> = (0..2)
            .map(|_| {
                Command::new(echo)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut io: Vec<_> = children
            .iter_mut()
            .map(|c| {
                (
                    c.stdin.take().unwrap(),
                    BufReader::new(c.stdout.take().unwrap()),
                )
            })
            .collect();
        let mut history = [String::new(), String::new()];
        let mut reply = String::new();
        for i in 0..EXCHANGES {
            let seat = i % 2;
            let request = if i < 2 {
                "secret 3\n".to_string()
            } else {
                format!(
                    "call {} {}\n",
                    dash(&history[seat]),
                    dash(&history[1 - seat])
                )
            };
            let (stdin, stdout) = &mut io[seat];
            stdin.write_all(request.as_bytes()).unwrap();
            reply.clear();
            stdout.read_line(&mut reply).unwrap();
            if i >= 2 {
                if !history[seat].is_empty() {
                    history[seat].push(',');
                }
                history[seat].push_str(reply.trim());
                history[seat].push_str(":0:1");
            }
        }
        drop(io);
        for mut child in children {
            assert!(child.wait().unwrap().success());
        }
    }
    started.elapsed()
}

fn dash(s: &str) -> &str {
    if s.is_empty() {
        "-"
    } else {
        s
    }
}

/// arena playing `games` games between the two bots with `--jobs 1`, and `extra` arguments.
fn arena(bots: &[PathBuf; 2], games: u32, out: &Path, extra: &[&str]) -> Duration {
    let _ = std::fs::remove_dir_all(out);
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "numeron"])
        .args(bots)
        .args(["--jobs", "1", "--quiet", "--seed", "1", "--games"])
        .arg(games.to_string())
        .arg("--out")
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    let elapsed = started.elapsed();
    assert!(status.success());
    let table = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), games as usize, "{table}");
    for row in rows {
        assert!(row.contains(",draw,normal,"), "{table}");
    }
    elapsed
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (such as `cargo test --benches`) only
    // checks that this builds and runs, with one small sample.
    let benching = std::env::args().any(|a| a == "--bench");
    let games = env_number("GAMES", if benching { 20 } else { 2 });
    let samples = env_number("SAMPLES", if benching { 7 } else { 1 });
    let dir = tempfile::tempdir().unwrap();
    let bot = compile(dir.path(), "caller", BOT_SOURCE);
    let echo = compile(dir.path(), "echo", ECHO_SOURCE);
    let bots = [dir.path().join("caller-a"), dir.path().join("caller-b")];
    for b in &bots {
        std::fs::copy(&bot, b).unwrap();
    }
    let out = dir.path().join("out");
    let variants: [(&str, &[&str]); 3] = [
        ("(b) arena, sandbox + pause + replays:", &[]),
        (
            "(c) arena, --pause-opponent off:",
            &["--pause-opponent", "off"],
        ),
        ("(d) arena, --no-replays:", &["--no-replays"]),
    ];
    let mut floors = Vec::new();
    let mut runs: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    let mut long_runs: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    // Interleaved, so a change in machine load hits all alike.
    for _ in 0..samples {
        floors.push(floor(&echo, games));
        for ((times, long), (_, extra)) in runs.iter_mut().zip(&mut long_runs).zip(&variants) {
            times.push(arena(&bots, games, &out, extra));
            long.push(arena(&bots, 3 * games, &out, extra));
        }
    }
    let a = median(floors);
    let lines = f64::from(games) * EXCHANGES as f64;
    let per_line = |d: Duration| d.as_secs_f64() * 1e6 / lines;
    println!(
        "numeron: {games} games of {EXCHANGES} exchanges, two tiny native `lines` bots, median of {samples}:"
    );
    println!(
        "  {:<40}{:8.1} ms  {:6.1} µs/exchange",
        "(a) floor (raw pipe ping-pong):",
        a.as_secs_f64() * 1e3,
        per_line(a)
    );
    for ((times, long), (label, _)) in runs.into_iter().zip(long_runs).zip(&variants) {
        let d = median(times);
        // The cost of `games` more games, without arena's fixed start-up and reports.
        let more = median(long).saturating_sub(d) / 2;
        println!(
            "  {label:<40}{:8.1} ms  {:6.1} µs/exchange  ratio {:.2}  per game: ratio {:.2}",
            d.as_secs_f64() * 1e3,
            per_line(d),
            d.as_secs_f64() / a.as_secs_f64(),
            more.as_secs_f64() / a.as_secs_f64()
        );
    }
    println!("  target: (b)/(a) at most 2 per game");
}
