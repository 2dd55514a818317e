//! Game clocks (`--time-control BASE+INC`, issue 20): a bot whose every move fits the move
//! time still loses on time when its clock runs out, and an engine is told its clock falling
//! by its thinking and gaining the increment.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

/// The lines of game `id`'s replay, parsed.
fn replay(out: &Path, id: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join(format!("replays/{id}.jsonl"))).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_bot_whose_moves_fit_the_move_time_loses_when_its_clock_runs_out_issue_20() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let eater = fixtures("othello").join("clock-eater");
    let greedy = bundled("othello").join("greedy");
    // 0.4 s a move against 2 s + 0.1 s: the clock runs out around the 7th move.
    arena_ok(&[
        "run",
        "othello",
        path(&eater),
        path(&greedy),
        "--time-control",
        "2s+100ms",
        "--move-time",
        "1s",
        "--games",
        "2",
        "--quiet",
        "--out",
        path(&out),
    ]);
    let rows = games(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row["reason"], "timeout", "{row:?}");
        assert_eq!(result_for(row, "clock-eater"), "loss", "{row:?}");
        assert!(
            row["detail"].contains("clock ran out: 0 ms left of 2 s + 0.1 s"),
            "{row:?}"
        );
        let lines = replay(&out, &row["game_id"]);
        let seat = if row["bot_a"] == "clock-eater" {
            "a"
        } else {
            "b"
        };
        let moves: Vec<&Value> = (lines[1..].iter()).filter(|l| l["seat"] == seat).collect();
        assert!(moves.len() >= 4, "lost mid-game: {lines:?}");
        // Every move before the last was within the move time, and the clock fell.
        let (last, played) = moves.split_last().unwrap();
        let mut before = 2000;
        for m in played {
            assert!(m["ms"].as_u64().unwrap() < 1000, "{m}");
            let left = m["clock_ms"].as_u64().unwrap();
            assert!(left < before, "{m}");
            before = left;
        }
        assert_eq!(last["clock_ms"], 0, "{last}");
        assert!(last["ms"].as_u64().unwrap() < 1000, "{last}");
    }
    // The bot was told its clock (`ARENA_TIME_LEFT_MS`), falling move after move.
    let log = bot_logs(&out, "clock-eater");
    let told: Vec<u64> = (log.lines())
        .filter_map(|l| l.strip_prefix("ARENA_TIME_LEFT_MS="))
        .map(|v| v.trim().parse().unwrap())
        .collect();
    assert!(told.len() >= 8, "{log}");
    assert_eq!(told[0], 2000, "{told:?}");
    assert!(told[1] < told[0] && told[2] < told[1], "{told:?}");

    // The time control is recorded, and kept by `resume`.
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(info["config"]["time"]["time_control"], "2s+100ms", "{info}");
}

#[test]
fn an_engine_is_told_its_clock_falling_and_gaining_the_increment_issue_20() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let (bot, log) = (tmp.path().join("recorder"), tmp.path().join("log"));
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::create_dir_all(&log).unwrap();
    let script = fixtures("engines").join("recorder.py");
    let toml = format!(
        "command = \"/usr/bin/python3 {} gomocup {}\"\nprotocol = \"gomocup\"\n",
        script.display(),
        log.display()
    );
    std::fs::write(bot.join("bot.toml"), toml).unwrap();
    let out = tmp.path().join("out");
    let opponent = bundled("gomoku").join("random-near");
    arena_ok(&[
        "run",
        "gomoku",
        path(&bot),
        path(&opponent),
        "--time-control",
        "20s+250ms",
        "--games",
        "2",
        "--seed",
        "3",
        "--no-sandbox",
        "--jobs",
        "1",
        "--quiet",
        "--out",
        path(&out),
    ]);
    let rows = games(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row["reason"], "normal", "{row:?}");
        let lines = replay(&out, &row["game_id"]);
        let seed = lines[0]["seed"].as_u64().unwrap();
        let text = std::fs::read_to_string(log.join(format!("{seed}.log"))).unwrap();
        assert!(text.contains("INFO timeout_match 20000"), "{text}");
        let told: Vec<u64> = (text.lines())
            .filter_map(|l| l.strip_prefix("INFO time_left "))
            .map(|v| v.trim().parse().unwrap())
            .collect();
        let seat = if row["bot_a"] == "recorder" { "a" } else { "b" };
        let moves: Vec<&Value> = (lines[1..].iter()).filter(|l| l["seat"] == seat).collect();
        assert!(moves.len() >= 5, "{lines:?}");
        assert_eq!(told.len(), moves.len(), "one time_left a move: {text}");
        assert_eq!(told[0], 20_000, "{told:?}");
        for (k, m) in moves.iter().enumerate() {
            let after = m["clock_ms"].as_u64().unwrap();
            // The clock lost what the move took (a millisecond of rounding either way) and
            // gained the increment...
            let expected = told[k] as i64 - m["ms"].as_i64().unwrap() + 250;
            if k == 0 {
                // The first move's time includes the engine's start and handshake, which are
                // not charged to its clock.
                assert!(after as i64 > expected, "{m} told {told:?}");
                assert!(after <= told[0] + 250, "{m} told {told:?}");
            } else {
                let off = (after as i64 - expected).abs();
                assert!(off <= 1, "move {k}: {m} told {told:?}");
            }
            // ...and the engine is told that at its next move.
            if let Some(next) = told.get(k + 1) {
                assert_eq!(*next, after, "move {k}: {told:?}");
            }
        }
        // It fell by the thinking and grew by the increment: neither constant nor a reset.
        assert!(told.windows(2).all(|w| w[1] <= w[0] + 250), "{told:?}");
        assert!(told.windows(2).any(|w| w[1] > w[0]), "{told:?}");
    }
}

#[test]
fn help_documents_books_and_clocks_and_a_bad_control_is_refused_issue_20() {
    let help = String::from_utf8(arena_ok(&["run", "--help"]).stdout).unwrap();
    for flag in [
        "--openings <FILE>",
        "--openings-order",
        "--time-control <BASE+INC>",
    ] {
        assert!(help.contains(flag), "{flag} in:\n{help}");
    }
    assert!(help.contains("60s+0.5s"), "{help}");
    let run = arena(&["run", "othello", "a", "b", "--time-control", "60x+1s"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("`60x` is not a time"), "{stderr}");
}
