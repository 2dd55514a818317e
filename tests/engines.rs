//! Real engines through their own protocols, unchanged: GRhino (Debian's `gtp-rhino`) over
//! GTP, and strict fixture engines for Gomocup and NBoard, in full round robins against the
//! sample bots.

mod common;

use std::path::PathBuf;

use common::*;

/// Plays a round robin and checks every game ended by the rules (all moves legal).
fn clean_round_robin(game: &str, bots: &[String], extra: &[&str]) -> Vec<Row> {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut args = vec!["run".to_string(), game.to_string()];
    args.extend(bots.iter().cloned());
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend([
        "--quiet".to_string(),
        "--out".to_string(),
        out.display().to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);
    let rows = games(&out);
    let n = bots.len();
    assert!(rows.len() >= n * (n - 1) / 2, "{rows:?}");
    for row in &rows {
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
    for file in ["standings.csv", "crosstable.md", "report.html"] {
        assert!(out.join(file).exists(), "{file}");
    }
    rows
}

fn path(p: PathBuf) -> String {
    p.display().to_string()
}

#[test]
fn grhino_plays_othello_over_gtp() {
    require_gtp_rhino();
    require_python3(); // the bundled Othello bots
    let bots = [
        path(fixtures("engines").join("grhino")),
        path(bundled("othello").join("random")),
        path(bundled("othello").join("greedy")),
    ];
    // With openings, GTP replays the opening plies with their colours.
    let rows = clean_round_robin(
        "othello",
        &bots,
        &["--opening-plies", "3", "--move-time", "5s"],
    );
    let grhino: Vec<&Row> = rows
        .iter()
        .filter(|r| r["bot_a"] == "grhino" || r["bot_b"] == "grhino")
        .collect();
    assert_eq!(grhino.len(), 4);
}

#[test]
fn an_inline_engine_needs_no_directory() {
    require_gtp_rhino();
    require_python3(); // the bundled Othello bots
    let bots = [
        format!("gtp:{GTP_RHINO}"),
        path(bundled("othello").join("greedy")),
    ];
    let rows = clean_round_robin("othello", &bots, &["--games", "2"]);
    assert!(rows.iter().any(|r| r["bot_a"] == "gtp-rhino"), "{rows:?}");
}

/// A strict fixture engine's log: the errors and notes it wrote about arena's side of the
/// protocol.
fn complaints(out_log: &str) -> Vec<String> {
    out_log
        .lines()
        .filter(|l| !l.starts_with("[arena]"))
        .map(String::from)
        .collect()
}

/// Plays a round robin with `engine` and returns the engine's log.
fn engine_round_robin(game: &str, engine: &str, samples: &[&str], extra: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut args = vec![
        "run".to_string(),
        game.to_string(),
        path(fixtures("engines").join(engine)),
    ];
    args.extend(samples.iter().map(|b| path(bundled(game).join(b))));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend([
        "--quiet".to_string(),
        "--out".to_string(),
        out.display().to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);
    for row in games(&out) {
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
    std::fs::read_to_string(out.join("logs").join(format!("{engine}.log"))).unwrap()
}

#[test]
fn a_gomocup_engine_plays_gomoku() {
    require_python3(); // the fixture engine and the bundled Gomoku bots
                       // From the empty board (BEGIN, TURN) and from openings (BOARD ... DONE).
    for extra in [
        &["--games", "2"][..],
        &["--games", "2", "--opening-plies", "3"][..],
    ] {
        let log = engine_round_robin("gomoku", "gomocup", &["random-near", "pattern"], extra);
        assert_eq!(complaints(&log), Vec::<String>::new(), "{extra:?}");
    }
}

#[test]
fn an_nboard_engine_plays_othello() {
    require_python3(); // the fixture engine and the bundled Othello bots
    for extra in [
        &["--games", "2"][..],
        &["--games", "2", "--opening-plies", "4"][..],
    ] {
        let log = engine_round_robin("othello", "nboard", &["random", "greedy"], extra);
        assert_eq!(complaints(&log), Vec::<String>::new(), "{extra:?}");
    }
}
