//! End-to-end Othello, Numer0n and Gomoku tournaments through the real binary: the sample
//! bots, misbehaving fixture bots, openings, replays and regenerated standings.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn path(p: PathBuf) -> String {
    p.display().to_string()
}

/// Runs `arena run <game>` with `bots` and extra arguments into `out`.
fn run(game: &str, bots: &[PathBuf], extra: &[&str], out: &Path) -> std::process::Output {
    let mut args = vec!["run".to_string(), game.to_string()];
    args.extend(bots.iter().map(|b| path(b.clone())));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--out".to_string(), path(out.to_path_buf())]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args)
}

/// Every fixture and bundled bot of a game plays; each misbehaving one loses every game
/// against the sound bot, as culprit, for the right reason, and the tournament completes.
fn misbehaving_bots_lose(game: &str, sound: PathBuf, expected: &[(&str, PathBuf, &str)]) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut bots = vec![sound.clone()];
    bots.extend(expected.iter().map(|(_, p, _)| p.clone()));
    run(
        game,
        &bots,
        &[
            "--games",
            "2",
            "--move-time",
            "400ms",
            "--startup-time",
            "600ms",
        ],
        &out,
    );
    let rows = games(&out);
    let n = bots.len();
    assert_eq!(rows.len(), n * (n - 1), "every pairing played twice");
    let sound_name = sound.file_name().unwrap().to_str().unwrap();
    for (name, _, reason) in expected {
        let against: Vec<&Row> = rows
            .iter()
            .filter(|r| {
                (r["bot_a"] == *name && r["bot_b"] == sound_name)
                    || (r["bot_b"] == *name && r["bot_a"] == sound_name)
            })
            .collect();
        assert_eq!(against.len(), 2, "{name}");
        assert_ne!(
            against[0]["bot_a"], against[1]["bot_a"],
            "{name} played both colours"
        );
        for row in against {
            assert_eq!(row["reason"], *reason, "{name}: {row:?}");
            assert_eq!(culprit(row), Some(*name), "{name}: {row:?}");
            assert_eq!(result_for(row, sound_name), "win", "{name}: {row:?}");
        }
    }
    // The loss reasons are in the replays too.
    let replays = std::fs::read_dir(out.join("replays")).unwrap().count();
    assert_eq!(replays, rows.len());
}

#[test]
fn othello_misbehaving_bots_lose_with_the_right_reason() {
    require_python3(); // the bundled Othello bots
    let f = |n: &str| fixtures("othello").join(n);
    let a = |n: &str| fixtures("any").join(n);
    misbehaving_bots_lose(
        "othello",
        bundled("othello").join("random"),
        &[
            ("occupied", f("occupied"), "illegal"),
            ("offboard", f("offboard"), "illegal"),
            ("garbage", a("garbage"), "illegal"),
            ("empty", a("empty"), "illegal"),
            ("silent", a("silent"), "crash"),
            ("hang", a("hang"), "timeout"),
        ],
    );
}

#[test]
fn gomoku_misbehaving_bots_lose_with_the_right_reason() {
    require_python3(); // the bundled Gomoku bots
    let f = |n: &str| fixtures("gomoku").join(n);
    let a = |n: &str| fixtures("any").join(n);
    misbehaving_bots_lose(
        "gomoku",
        bundled("gomoku").join("random-near"),
        &[
            ("occupied", f("occupied"), "illegal"),
            ("offboard", f("offboard"), "illegal"),
            ("garbage", a("garbage"), "illegal"),
            ("silent", a("silent"), "crash"),
            ("hang", a("hang"), "timeout"),
        ],
    );
}

#[test]
fn numeron_misbehaving_bots_lose_with_the_right_reason() {
    let f = |n: &str| fixtures("numeron").join(n);
    let a = |n: &str| fixtures("any").join(n);
    misbehaving_bots_lose(
        "numeron",
        fixtures("numeron").join("fixed"),
        &[
            ("repeated", f("repeated"), "illegal"),
            ("bad-secret", f("bad-secret"), "illegal"),
            ("garbage", a("garbage"), "illegal"),
            ("silent", a("silent"), "crash"),
            ("hang", a("hang"), "timeout"),
        ],
    );
}

/// The bundled bots of a game play a clean tournament, and `arena standings` regenerates its
/// tables byte for byte.
fn sample_bots_play_cleanly(game: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    require_python3(); // every bundled Othello, Gomoku and Numer0n bot
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bots: Vec<PathBuf> = std::fs::read_dir(bundled(game))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    run(game, &bots, extra, &out);
    let rows = games(&out);
    assert!(!rows.is_empty());
    for row in &rows {
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
    let again = tmp.path().join("again");
    arena_ok(&[
        "standings",
        &path(out.join("games.csv")),
        "--out",
        &path(again.clone()),
    ]);
    assert_same_tables(&out, &again);
    (tmp, out)
}

#[test]
fn othello_sample_bots_with_openings() {
    let (_tmp, out) =
        sample_bots_play_cleanly("othello", &["--opening-plies", "4", "--seed", "11"]);
    let rows = games(&out);
    assert_eq!(rows.len(), 6, "3 bots, 2 games per pairing");
    // Colour-swapped games start from the same 4-ply opening.
    let first_line = |id: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(out.join(format!("replays/{id}.jsonl"))).unwrap();
        serde_json::from_str(text.lines().next().unwrap()).unwrap()
    };
    let (one, two, three) = (first_line("1"), first_line("2"), first_line("3"));
    assert_eq!(one["opening"].as_array().unwrap().len(), 4);
    assert_eq!(one["opening"], two["opening"]);
    assert_ne!(one["opening"], three["opening"]);
    assert_eq!(
        (one["bot_a"].clone(), one["bot_b"].clone()),
        (two["bot_b"].clone(), two["bot_a"].clone())
    );
    // The first request shows the opening played: 4 + 4 discs, black to move.
    let text = std::fs::read_to_string(out.join("replays/1.jsonl")).unwrap();
    let exchange: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let board = exchange["request"][0].as_str().unwrap();
    assert_eq!(board.chars().filter(|&c| c != '.').count(), 8, "{board}");
    assert_eq!(exchange["request"][1], "X");
    // The cross-table splits results moving first and second.
    let cross = std::fs::read_to_string(out.join("crosstable.md")).unwrap();
    assert!(
        cross.contains("as first") && cross.contains("as second"),
        "{cross}"
    );
    // The alpha-beta bot beats random and greedy.
    let standings = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    assert!(
        standings
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("1,alphabeta,"),
        "{standings}"
    );
}

#[test]
fn gomoku_sample_bots() {
    let (_tmp, out) = sample_bots_play_cleanly("gomoku", &["--games", "4", "--opening-plies", "2"]);
    let standings = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    assert!(
        standings
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("1,pattern,4,"),
        "{standings}"
    );
}

#[test]
fn numeron_sample_bots_with_four_digits() {
    let (_tmp, out) = sample_bots_play_cleanly("numeron", &["--digits", "4", "--games", "4"]);
    let text = std::fs::read_to_string(out.join("replays/1.jsonl")).unwrap();
    let secret: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert_eq!(secret["request"], serde_json::json!(["secret", "4"]));
    assert_eq!(secret["reply"].as_str().unwrap().len(), 4);
}

#[test]
fn opening_plies_are_refused_for_games_without_a_board() {
    let out = arena(&["run", "numeron", "--opening-plies", "3"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("`--opening-plies` applies to othello and gomoku, not `numeron`"),
        "{stderr}"
    );
}

#[test]
fn no_replays_writes_none() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bots = [
        fixtures("numeron").join("fixed"),
        fixtures("numeron").join("repeated"),
    ];
    run("numeron", &bots, &["--games", "2", "--no-replays"], &out);
    assert_eq!(games(&out).len(), 2);
    assert!(!out.join("replays").exists());
}

/// The ticks a pondering bot counted while playing one game against a slow bot.
fn ponder_ticks(pause: &str) -> Vec<u64> {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bots = [
        fixtures("gomoku").join("ponder"),
        fixtures("gomoku").join("slow"),
    ];
    run(
        "gomoku",
        &bots,
        &["--games", "1", "--pause-opponent", pause, "--keep-work"],
        &out,
    );
    let rows = games(&out);
    assert_eq!(culprit(&rows[0]), Some("slow"), "{rows:?}");
    std::fs::read_to_string(out.join("work/ponder/counts"))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

#[test]
fn a_waiting_bot_is_paused_while_its_opponent_thinks() {
    // Six moves of the slow bot take 1.2 s: a running ticker counts about 100 ticks in that
    // time, a frozen one next to none (it runs only while the ponderer itself moves).
    let paused = ponder_ticks("on");
    let running = ponder_ticks("off");
    let (p, r) = (*paused.last().unwrap(), *running.last().unwrap());
    assert!(p < 25, "ticks while paused: {paused:?}");
    assert!(r > 50, "ticks while running: {running:?}");
}
