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
