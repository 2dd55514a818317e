//! End-to-end `--time-margin` (issue 20): a reply a little after the move time counts and is
//! marked late in the replay, one after the margin too is a timeout, and bots are told the
//! move time without the margin.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// Writes an executable `lines` Gomoku bot `name` in `dir` that sleeps `sleep_ms` before each
/// reply and plays the first free point of `points`; its stderr says `ARENA_MOVE_TIME_MS`.
fn bot(dir: &Path, name: &str, sleep_ms: u64, points: &str) -> PathBuf {
    let script = format!(
        r#"#!/usr/bin/python3
import os, sys, time
sys.stderr.write("move time %s\n" % os.environ.get("ARENA_MOVE_TIME_MS"))
sys.stderr.flush()
POINTS = "{points}".split()
def index(p):
    return (int(p[1:]) - 1) * 15 + ord(p[0]) - ord("a")
for line in sys.stdin:
    board, side = line.split()
    time.sleep({sleep_ms} / 1000)
    print(next(p for p in POINTS if board[index(p)] == "."), flush=True)
"#
    );
    let file = dir.join(name);
    std::fs::write(&file, script).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    file
}

/// A slow bot (500 ms a move, on row 1, never five) against a quick one that makes five on
/// row 15, both colours, with a 300 ms move time and `margin`: the output directory.
fn slow_against_quick(dir: &Path, margin: &str) -> PathBuf {
    require_python3();
    let slow = bot(dir, "slow", 500, "a1 c1 e1 g1 i1 k1 m1 o1");
    let quick = bot(dir, "quick", 0, "a15 b15 c15 d15 e15 f15 g15");
    let out = dir.join("out");
    let (slow, quick, out_text) = (path(&slow), path(&quick), out.display().to_string());
    let args = [
        "run",
        "gomoku",
        slow,
        quick,
        "--games",
        "2",
        "--move-time",
        "300ms",
        "--time-margin",
        margin,
        "--quiet",
        "--out",
        &out_text,
    ];
    arena_ok(&args);
    out
}

/// Each replay's exchanges of `bot`, after its first (which has `--startup-time` too).
fn exchanges_after_first(out: &Path, bot: &str) -> Vec<serde_json::Value> {
    let mut found = Vec::new();
    for lines in replays(out) {
        let seat = if lines[0]["bot_a"] == bot { "a" } else { "b" };
        let mine = lines[1..].iter().filter(|l| l["seat"] == seat);
        found.extend(mine.skip(1).cloned());
    }
    found
}

#[test]
fn a_reply_within_the_margin_counts_and_is_marked_late_issue_20() {
    let tmp = tempfile::tempdir().unwrap();
    let out = slow_against_quick(tmp.path(), "600ms");
    for row in games(&out) {
        assert_eq!(row["reason"], "normal", "{row:?}");
        assert_eq!(result_for(&row, "quick"), "win", "{row:?}");
    }
    let late = exchanges_after_first(&out, "slow");
    assert!(late.len() >= 6, "{late:?}");
    for exchange in &late {
        assert!(exchange["reply"].is_string(), "{exchange}");
        // 500 ms asleep against a 300 ms limit: at least 200 ms late, and within the margin.
        let ms = exchange["late_ms"].as_u64().unwrap_or(0);
        assert!((190..=600).contains(&ms), "{exchange}");
    }
    for exchange in exchanges_after_first(&out, "quick") {
        assert!(exchange.get("late_ms").is_none(), "{exchange}");
    }
    // Told the move time without the margin.
    assert!(bot_logs(&out, "slow").contains("move time 300\n"));
}

#[test]
fn a_reply_after_the_margin_is_a_timeout_issue_20() {
    let tmp = tempfile::tempdir().unwrap();
    let out = slow_against_quick(tmp.path(), "100ms");
    for row in games(&out) {
        assert_eq!(row["reason"], "timeout", "{row:?}");
        assert_eq!(culprit(&row), Some("slow"), "{row:?}");
        // Its first move had the start-up time on top, its second did not.
        assert_eq!(row["plies"], if row["bot_a"] == "slow" { "2" } else { "3" });
    }
}
