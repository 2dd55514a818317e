//! A tournament survives its controller being killed: finished games stay on disk and
//! `arena resume` completes the tournament with the same result as an uninterrupted run.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

fn det_bots() -> Vec<String> {
    ["det-a", "det-b", "det-c", "det-d", "echo-lines"]
        .iter()
        .map(|b| fixtures("morra").join(b).display().to_string())
        .collect()
}

fn start(out: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .args(det_bots())
        .args([
            "--morra-rounds",
            "150",
            "--seed",
            "9",
            "--jobs",
            "2",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `games.csv` holds at least `games` finished games.
fn wait_for_games(out: &Path, games: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let rows = std::fs::read_to_string(out.join("games.csv"))
            .map(|t| t.lines().count().saturating_sub(1))
            .unwrap_or(0);
        if rows >= games {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no {games} games in `{}` after a minute", out.display());
}

fn uninterrupted(tmp: &Path) -> PathBuf {
    let out = tmp.join("whole");
    let status = start(&out, &[]).wait().unwrap();
    assert!(status.success());
    out
}

#[test]
fn a_killed_tournament_resumes_to_the_same_standings() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = uninterrupted(tmp.path());

    let out = tmp.path().join("killed");
    let mut child = start(&out, &[]);
    wait_for_games(&out, 2);
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let before = games(&out).len();
    assert!(
        before < 10,
        "the run was killed before its end ({before} games)"
    );

    let resumed = arena_ok(&["resume", &out.display().to_string(), "--quiet"]);
    let stderr = String::from_utf8(resumed.stderr).unwrap();
    assert!(
        stderr.contains(&format!("{before} games already played")),
        "{stderr}"
    );
    let rows = games(&out);
    assert_eq!(rows.len(), 10);
    let mut ids: Vec<u64> = rows.iter().map(|r| r["game_id"].parse().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, (1..=10).collect::<Vec<_>>(), "every game exactly once");
    assert_same_tables(&whole, &out);
}

#[test]
fn ctrl_c_stops_cleanly_and_says_how_to_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = uninterrupted(tmp.path());

    let out = tmp.path().join("stopped");
    let child = start(&out, &[]);
    wait_for_games(&out, 1);
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let result = child.wait_with_output().unwrap();
    assert_eq!(result.status.code(), Some(130));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(stderr.contains("continue with `arena resume"), "{stderr}");
    // Every line of the CSV is whole.
    let text = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(text.ends_with('\n'));
    let before = games(&out).len();
    assert!(before < 10);

    arena_ok(&["resume", &out.display().to_string(), "--quiet"]);
    assert_same_tables(&whole, &out);
}

#[test]
fn resume_refuses_a_bot_that_changed() {
    let tmp = tempfile::tempdir().unwrap();
    // A copy of the bots, so one can be changed.
    let bots = tmp.path().join("bots");
    std::fs::create_dir(&bots).unwrap();
    for b in ["det-a", "det-b"] {
        std::fs::copy(fixtures("morra").join(b), bots.join(b)).unwrap();
    }
    let out = tmp.path().join("out");
    arena_ok(&[
        "run",
        "morra",
        &bots.join("det-a").display().to_string(),
        &bots.join("det-b").display().to_string(),
        "--morra-rounds",
        "3",
        "--quiet",
        "--out",
        &out.display().to_string(),
    ]);
    std::fs::write(bots.join("det-b"), "#!/bin/sh\necho 5 5\n").unwrap();
    let result = arena(&["resume", &out.display().to_string()]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("bot `det-b` changed since the tournament started: `det-b` differs"),
        "{stderr}"
    );

    let result = arena(&["resume", &tmp.path().join("nowhere").display().to_string()]);
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(stderr.contains("tournament.json`: is `"), "{stderr}");
}

/// Every output a run writes, read back; games.csv without its timing column.
fn outputs(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for name in [
        "standings.csv",
        "standings.md",
        "crosstable.csv",
        "crosstable.md",
        "los.csv",
        "grades.csv",
        "grades.md",
        "report.html",
    ] {
        let mut bytes = std::fs::read(out.join(name)).unwrap();
        if name == "report.html" {
            // The replays embedded in the report hold think times, which a resume measures anew.
            let text = String::from_utf8(bytes).unwrap();
            let lines: Vec<&str> = text
                .lines()
                .filter(|l| !l.starts_with("window.ARENA_REPLAYS = "))
                .collect();
            bytes = lines.join("\n").into_bytes();
        }
        files.push((name.to_string(), bytes));
    }
    let mut rows: Vec<String> = std::fs::read_to_string(out.join("games.csv"))
        .unwrap()
        .lines()
        .map(|l| {
            // Without `duration_ms`, the column before the last (`detail`).
            let (head, detail) = l.rsplit_once(',').unwrap();
            format!("{},{detail}", head.rsplit_once(',').unwrap().0)
        })
        .collect();
    rows.sort();
    files.push(("games.csv".into(), rows.join("\n").into_bytes()));
    files
}

#[test]
fn a_run_with_every_option_set_resumes_to_the_same_outputs_issue_10() {
    let tmp = tempfile::tempdir().unwrap();
    let morra = fixtures("morra");
    let out = tmp.path().join("all");
    let out_text = out.display().to_string();
    let bot = |b: &str| morra.join(b).display().to_string();
    arena_ok(&[
        "run",
        "morra",
        &bot("det-b"),
        &bot("det-c"),
        &bot("det-d"),
        &bot("echo-lines"),
        "--gauntlet",
        &bot("det-a"),
        "--pass",
        "min-score:40",
        "--rounds",
        "2",
        "--games",
        "2",
        "--shard",
        "1/2",
        "--seed",
        "77",
        "--jobs",
        "2",
        "--move-time",
        "2s",
        "--startup-time",
        "3s",
        "--build-time",
        "1min",
        "--memory",
        "256MiB",
        "--max-procs",
        "32",
        "--max-output",
        "8MiB",
        "--log-limit",
        "64KiB",
        "--pause-opponent",
        "off",
        "--anchor",
        "det-a",
        "--morra-rounds",
        "40",
        "--keep-work",
        "--quiet",
        "--out",
        &out_text,
    ]);
    let whole = outputs(&out);
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    let config = &info["config"];
    assert_eq!(info["format"], 2);
    assert_eq!(config["tournament"]["shard"], "1/2");
    assert_eq!(config["tournament"]["pass"], "min-score:40");
    assert_eq!(config["time"]["move_time"], "2s");
    assert_eq!(config["limits"]["log_limit"], 65536);
    assert_eq!(config["sandbox"]["pause_opponent"], false);
    assert_eq!(config["output"]["keep_work"], true);
    assert_eq!(config["rules"]["morra_rounds"], 40);

    // Keep the first three games, as if the run had been killed, and resume.
    let text = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let kept: Vec<&str> = text.lines().take(4).collect();
    std::fs::write(out.join("games.csv"), kept.join("\n") + "\n").unwrap();
    for file in ["standings.csv", "report.html", "grades.md"] {
        std::fs::remove_file(out.join(file)).unwrap();
    }
    arena_ok(&["resume", &out_text, "--quiet"]);
    assert_eq!(outputs(&out), whole);
    assert!(out.join("work").is_dir(), "--keep-work survives the resume");
}

#[test]
fn sigterm_and_sighup_stop_like_ctrl_c_and_a_busy_directory_is_refused_issue_11() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = uninterrupted(tmp.path());
    for (signal, code, name) in [
        (rustix::process::Signal::TERM, 143, "SIGTERM"),
        (rustix::process::Signal::HUP, 129, "SIGHUP"),
    ] {
        let out = tmp.path().join(name);
        let child = start(&out, &[]);
        wait_for_games(&out, 1);
        // While it runs, nothing else may write its directory.
        let second = arena(&["resume", &out.display().to_string(), "--quiet"]);
        assert_eq!(second.status.code(), Some(1));
        let stderr = String::from_utf8(second.stderr).unwrap();
        assert!(
            stderr.contains("is being written by another arena run (pid"),
            "{stderr}"
        );
        rustix::process::kill_process(rustix::process::Pid::from_child(&child), signal).unwrap();
        let result = child.wait_with_output().unwrap();
        assert_eq!(result.status.code(), Some(code), "{name}");
        let stderr = String::from_utf8(result.stderr).unwrap();
        assert!(stderr.contains(&format!("stopped by {name}")), "{stderr}");
        assert!(stderr.contains("continue with `arena resume"), "{stderr}");
        arena_ok(&["resume", &out.display().to_string(), "--quiet"]);
        assert_same_tables(&whole, &out);
    }
}

#[test]
fn a_result_that_cannot_be_written_stops_the_run_and_resume_finishes_it_issue_11() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = uninterrupted(tmp.path());
    // A full disk for the replay of game 3.
    let out = tmp.path().join("replay");
    std::fs::create_dir_all(out.join("replays")).unwrap();
    std::os::unix::fs::symlink("/dev/full", out.join("replays/3.jsonl")).unwrap();
    let result = start(&out, &[]).wait_with_output().unwrap();
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(stderr.contains("replays/3.jsonl`"), "{stderr}");
    assert!(stderr.contains("continue with `arena resume`"), "{stderr}");
    assert!(games(&out).len() < 10, "the run stopped");
    std::fs::remove_file(out.join("replays/3.jsonl")).unwrap();
    arena_ok(&["resume", &out.display().to_string(), "--quiet"]);
    assert_same_tables(&whole, &out);

    // A full disk for the log of a bot that writes to stderr.
    let out = tmp.path().join("log");
    std::fs::create_dir_all(out.join("logs")).unwrap();
    std::os::unix::fs::symlink("/dev/full", out.join("logs/exit1.log")).unwrap();
    let fixture = |b: &str| fixtures("morra").join(b).display().to_string();
    let run = |command: &str| {
        let mut args = vec![command.to_string()];
        if command == "run" {
            args.extend(["morra", "--morra-rounds", "5", "--quiet", "--out"].map(String::from));
            args.push(out.display().to_string());
            args.extend(["det-a", "exit1", "det-b"].map(fixture));
        } else {
            args.extend([out.display().to_string(), "--quiet".to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        arena(&args)
    };
    let result = run("run");
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(stderr.contains("logs/exit1.log`"), "{stderr}");
    assert!(games(&out).len() < 3, "the run stopped");
    std::fs::remove_file(out.join("logs/exit1.log")).unwrap();
    assert!(run("resume").status.success());
    assert_eq!(games(&out).len(), 3);
}

#[test]
fn a_tournament_json_of_the_first_layout_still_resumes_issue_10() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("old");
    let out_text = out.display().to_string();
    let bot = |b: &str| fixtures("morra").join(b).display().to_string();
    arena_ok(&[
        "run",
        "morra",
        &bot("det-a"),
        &bot("det-b"),
        &bot("det-c"),
        "--morra-rounds",
        "30",
        "--seed",
        "5",
        "--quiet",
        "--out",
        &out_text,
    ]);
    let whole = outputs_of(&out);
    // Rewrite `tournament.json` as the first layout wrote it (no `format`, flat settings).
    let new: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    let c = &new["config"];
    let ms = |d: &serde_json::Value| {
        humantime::parse_duration(d.as_str().unwrap())
            .unwrap()
            .as_millis() as u64
    };
    let old = serde_json::json!({
        "arena_version": "0.1.0",
        "run": new["run"],
        "started_at": new["started_at"],
        "game": c["game"],
        "config": c["rules"],
        "rounds": c["tournament"]["rounds"],
        "games_per_pairing": c["tournament"]["games"],
        "seed": c["tournament"]["seed"],
        "opening_plies": 0,
        "replays": true,
        "jobs": 2,
        "move_time_ms": ms(&c["time"]["move_time"]),
        "startup_time_ms": ms(&c["time"]["startup_time"]),
        "build_time_ms": ms(&c["time"]["build_time"]),
        "log_limit": c["limits"]["log_limit"],
        "keep_work": false,
        "memory": c["limits"]["memory"],
        "max_procs": c["limits"]["max_procs"],
        "max_output": c["limits"]["max_output"],
        "allow_network": false,
        "pause_opponent": false,
        "no_sandbox": false,
        "anchor": null,
        "bots": new["bots"],
        "excluded": [],
    });
    std::fs::write(
        out.join("tournament.json"),
        serde_json::to_string_pretty(&old).unwrap(),
    )
    .unwrap();
    let text = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let kept: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(out.join("games.csv"), kept.join("\n") + "\n").unwrap();
    std::fs::remove_file(out.join("standings.csv")).unwrap();
    arena_ok(&["resume", &out_text, "--quiet"]);
    assert_eq!(outputs_of(&out), whole);
}

/// The tables a run writes, and its games without their timing.
fn outputs_of(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = [
        "standings.csv",
        "standings.md",
        "crosstable.csv",
        "crosstable.md",
        "los.csv",
    ]
    .iter()
    .map(|f| (f.to_string(), std::fs::read(out.join(f)).unwrap()))
    .collect();
    let rows: std::collections::BTreeSet<u64> = games(out)
        .iter()
        .map(|r| r["game_id"].parse().unwrap())
        .collect();
    files.push(("game ids".into(), format!("{rows:?}").into_bytes()));
    files
}
