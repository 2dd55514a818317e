//! What `arena standings` costs on a large `games.csv`: (a) the floor, Python's `csv` module
//! merely reading the file, against (b) `arena standings FILE --out DIR`, which reads it and
//! writes the standings, cross-table, ratings, LOS and report.
//!
//! Run with `cargo bench --bench standings`. Cargo builds the binary with the bench profile
//! (the release settings) and hands its path to the bench as `CARGO_BIN_EXE_arena`, so no
//! separate `cargo build --release` is needed. The bench writes a synthetic CSV of `ROWS`
//! games (default 1,000,000; 40 bots, results drawn from a fixed seed), runs (a) and (b)
//! `SAMPLES` times each (default 5), interleaved, and prints the median wall time and peak
//! RSS of each (from `wait4`), the ratio b/a, and whether the goals hold: at most 1 s and
//! at most 100 MB peak RSS for (b) at 1,000,000 rows. `ARENA=/path/to/arena` measures
//! another build of arena instead (such as an older one, for a before and after).
//!
//! Then (c): `arena standings` of a gauntlet of 1,000 candidates (`CANDIDATES`), ten Othello
//! games each against one reference, some candidates unbeaten: a sparse field whose ratings
//! once took a dense `O(bots³)` factorization in every Newton step (1.76 s here; 0.47 s
//! with the sparse one, the rest mostly the million-cell LOS and cross-tables). Goal: at
//! most 1 s.

#[path = "common/mod.rs"]
mod common;

use common::{env_number, median};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Goals for (b) at a million rows.
const GOAL_SECONDS: f64 = 1.0;
const GOAL_MB: f64 = 100.0;
/// Goal for (c) at 1,000 candidates.
const GOAL_GAUNTLET_SECONDS: f64 = 1.0;
const BOTS: usize = 40;

/// A splitmix64 stream: the same seed gives the same file.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A new `games.csv` at `path`, its header written.
fn create_csv(path: &Path) -> BufWriter<std::fs::File> {
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(
        out,
        "run,round,game_id,game,bot_a,bot_b,score_a,score_b,result,reason,culprit,plies,duration_ms"
    )
    .unwrap();
    out
}

/// Writes `rows` Othello games between 40 bots (some names need CSV quoting), bots of
/// graded strength, with draws and the odd timeout or crash.
fn generate(path: &Path, rows: u64) {
    let mut names: Vec<String> = (0..BOTS).map(|i| format!("bot{i:02}")).collect();
    names[3] = "\"Quinn, and Valor\"".into();
    names[5] = "pipe|bot".into();
    let mut rng = Stream(20_261_123);
    let mut out = create_csv(path);
    for id in 1..=rows {
        let a = rng.below(BOTS as u64) as usize;
        let b = (a + 1 + rng.below(BOTS as u64 - 1) as usize) % BOTS;
        // The stronger bot (higher index) wins more often.
        let roll = rng.below(100) as i64 + (a as i64 - b as i64);
        let result = match roll {
            ..45 => "b",
            45..55 => "draw",
            _ => "a",
        };
        let (reason, culprit) = match (rng.below(100), result) {
            (0, "a") => ("timeout", "b"),
            (0, "b") => ("crash", "a"),
            _ => ("normal", ""),
        };
        // Discs that agree with the result (a forfeit keeps whatever the board had).
        let more = 33 + rng.below(32) as i64;
        let (score_a, score_b) = match (reason, result) {
            ("normal", "a") => (more, 64 - more),
            ("normal", "b") => (64 - more, more),
            ("normal", _) => (32, 32),
            _ => (rng.below(65) as i64, rng.below(65) as i64),
        };
        writeln!(
            out,
            "r1,{},{id},othello,{},{},{score_a},{score_b},{result},{reason},{culprit},{},{}",
            id / 1000 + 1,
            names[a],
            names[b],
            rng.below(61),
            rng.below(200)
        )
        .unwrap();
    }
    out.flush().unwrap();
}

/// Writes a gauntlet of `candidates` against `ref`, ten Othello games each, five per seat:
/// candidate `i` scores about `i / candidates` of its games, so the first ones lose every game
/// and the last win every one.
fn generate_gauntlet(path: &Path, candidates: u64) {
    let mut rng = Stream(20_261_126);
    let mut out = create_csv(path);
    let mut id = 0;
    for c in 0..candidates {
        let name = format!("cand{c:04}");
        for g in 0..10 {
            id += 1;
            let wins = rng.below(candidates) < c;
            let (a, b, result) = match (g % 2 == 0, wins) {
                (true, true) => (name.as_str(), "ref", "a"),
                (true, false) => (name.as_str(), "ref", "b"),
                (false, true) => ("ref", name.as_str(), "b"),
                (false, false) => ("ref", name.as_str(), "a"),
            };
            let (score_a, score_b) = if result == "a" { (40, 24) } else { (24, 40) };
            writeln!(
                out,
                "r1,1,{id},othello,{a},{b},{score_a},{score_b},{result},normal,,60,5"
            )
            .unwrap();
        }
    }
    out.flush().unwrap();
}

/// Runs `command` to its end: wall time and the peak RSS of that process, in MB.
// The child is reaped by `wait4`, which also gives its own resource usage.
#[allow(clippy::zombie_processes)]
fn measure(command: &mut Command) -> (Duration, f64) {
    let started = Instant::now();
    let child = command
        .stdout(Stdio::null())
        .spawn()
        .expect("cannot start the command");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is plain data that `wait4` fills in; `pid` is our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = started.elapsed();
    assert_eq!(waited, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{command:?} failed"
    );
    // `ru_maxrss` is in kilobytes on Linux.
    (elapsed, usage.ru_maxrss as f64 / 1024.0)
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (such as `cargo test --benches`) only
    // checks that this builds and runs, on a small file.
    let benching = std::env::args().any(|a| a == "--bench");
    let rows = env_number("ROWS", if benching { 1_000_000 } else { 10_000 });
    let samples = env_number("SAMPLES", if benching { 5 } else { 1 });
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("games.csv");
    let out = dir.path().join("out");
    generate(&csv, rows);

    let arena = std::env::var("ARENA").unwrap_or_else(|_| env!("CARGO_BIN_EXE_arena").into());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..samples {
        a.push(measure(
            Command::new("/usr/bin/python3")
                .args([
                    "-c",
                    "import csv,sys; n=sum(1 for _ in csv.reader(open(sys.argv[1])))",
                ])
                .arg(&csv),
        ));
        let _ = std::fs::remove_dir_all(&out);
        b.push(measure(
            Command::new(&arena)
                .arg("standings")
                .arg(&csv)
                .arg("--out")
                .arg(&out),
        ));
    }
    let standings = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    assert_eq!(standings.lines().count(), BOTS + 1, "{standings}");

    let seconds = |v: &[(Duration, f64)]| median(v.iter().map(|m| m.0.as_secs_f64()).collect());
    let mb = |v: &[(Duration, f64)]| median(v.iter().map(|m| m.1).collect());
    let (a_s, a_mb, b_s, b_mb) = (seconds(&a), mb(&a), seconds(&b), mb(&b));
    println!("games.csv of {rows} rows ({BOTS} bots), median of {samples}; arena is {arena}:");
    println!(
        "  {:<40}{a_s:7.3} s {a_mb:7.1} MB peak RSS",
        "(a) floor: python3 csv.reader"
    );
    println!(
        "  {:<40}{b_s:7.3} s {b_mb:7.1} MB peak RSS",
        "(b) arena standings FILE --out DIR"
    );
    println!("  ratio b/a: {:.2}", b_s / a_s);
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    if rows == 1_000_000 {
        println!(
            "  goal b <= {GOAL_SECONDS} s: {}; goal b <= {GOAL_MB} MB: {}",
            verdict(b_s <= GOAL_SECONDS),
            verdict(b_mb <= GOAL_MB)
        );
    } else {
        println!("  (the goals are for 1000000 rows)");
    }

    let candidates = env_number("CANDIDATES", if benching { 1000 } else { 50 });
    let gauntlet = dir.path().join("gauntlet.csv");
    generate_gauntlet(&gauntlet, candidates);
    let c: Vec<(Duration, f64)> = (0..samples)
        .map(|_| {
            let _ = std::fs::remove_dir_all(&out);
            measure(
                Command::new(&arena)
                    .arg("standings")
                    .arg(&gauntlet)
                    .arg("--out")
                    .arg(&out),
            )
        })
        .collect();
    let standings = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    assert_eq!(
        standings.lines().count() as u64,
        candidates + 2,
        "{standings}"
    );
    let (c_s, c_mb) = (seconds(&c), mb(&c));
    println!("gauntlet of {candidates} candidates, 10 games each, median of {samples}:");
    println!(
        "  {:<40}{c_s:7.3} s {c_mb:7.1} MB peak RSS",
        "(c) arena standings FILE --out DIR"
    );
    if candidates == 1000 {
        println!(
            "  goal c <= {GOAL_GAUNTLET_SECONDS} s: {}",
            verdict(c_s <= GOAL_GAUNTLET_SECONDS)
        );
    } else {
        println!("  (the goal is for 1000 candidates)");
    }
}
