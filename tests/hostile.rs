//! Hostile bots against the sandbox: each plays a normal bot, loses with the right reason,
//! sees nothing it should not, and leaves no process behind; the tournament goes on.
//!
//! All of them play one tournament, so that afterwards no process of any bot may be left.
//! A protection this machine cannot give (see `arena doctor`) skips the checks that need it,
//! with a printed reason; on CI (root) every check runs.

mod common;

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

use common::*;

/// The reply `bot` gave in its game against `opponent`, from the replay.
fn reply(out: &Path, rows: &[Row], bot: &str, opponent: &str) -> String {
    let row = game_between(rows, bot, opponent);
    let seat = if row["bot_a"] == bot { "a" } else { "b" };
    let text =
        std::fs::read_to_string(out.join(format!("replays/{}.jsonl", row["game_id"]))).unwrap();
    text.lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["seat"] == seat)
        .and_then(|e| e["reply"].as_str().map(str::to_string))
        .unwrap_or_default()
}

fn pids(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[test]
fn hostile_bots_lose_see_nothing_and_leave_nothing_behind() {
    let have = doctor_verdicts();
    let active = |name: &str| have.get(name).is_some_and(|p| p.0);
    let needs = |bot: &str, name: &str| {
        let ok = active(name);
        if !ok {
            println!(
                "skipping the `{name}` checks of `{bot}`: {}",
                have.get(name).map_or("unknown", |p| p.1.as_str())
            );
        }
        ok
    };

    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let hostile = fixtures("hostile");
    let bots = [
        "memory-hog",
        "fork-bomb",
        "daemon",
        "snoop",
        "list-results",
        "tcp-connect",
        "kill-parent",
        "stderr-flood",
        "long-line",
        "close-stdout",
        "ignore-term",
    ];
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arena"));
    cmd.args(["run", "morra"])
        .arg(fixtures("morra").join("constant"))
        .args(bots.iter().map(|b| hostile.join(b)))
        .args([
            "--morra-rounds",
            "2",
            "--move-time",
            "1s",
            "--startup-time",
            "500ms",
        ])
        .args([
            "--memory",
            "64MiB",
            "--max-procs",
            "20",
            "--max-output",
            "10MiB",
        ])
        .args(["--jobs", "2", "--keep-work", "--quiet", "--out"])
        .arg(&out)
        // Bots get none of arena's environment but what `--pass-env` names.
        .args(["--pass-env", "SNOOP_FILE", "--pass-env", "RESULTS_DIR"])
        .args(["--pass-env", "ARENA_TEST_PORT"])
        .env("SNOOP_FILE", fixtures("morra").join("constant"))
        .env("RESULTS_DIR", &out)
        .env("ARENA_TEST_PORT", port.to_string());
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let arena_pid = child.id();
    let result = child.wait_with_output().unwrap();
    assert!(
        result.status.success(),
        "arena itself must survive its bots:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );

    let rows = games(&out);
    let n = bots.len() + 1;
    assert_eq!(
        rows.len(),
        n * (n - 1) / 2,
        "the tournament went on to the end"
    );
    let log =
        |bot: &str| std::fs::read_to_string(out.join("logs").join(format!("{bot}.log"))).unwrap();
    let work = out.join("work");

    // Every hostile bot loses to the normal bot, as the culprit, for the expected reason.
    let expected = [
        ("memory-hog", "crash"),
        ("fork-bomb", "illegal"),
        ("daemon", "illegal"),
        ("snoop", "illegal"),
        ("list-results", "illegal"),
        ("tcp-connect", "illegal"),
        ("kill-parent", "illegal"),
        ("stderr-flood", "crash"),
        ("long-line", "illegal"),
        ("close-stdout", "crash"),
        ("ignore-term", "timeout"),
    ];
    for (bot, reason) in expected {
        let row = game_between(&rows, bot, "constant");
        assert_eq!(row["reason"], reason, "{bot}: {row:?}");
        assert_eq!(culprit(row), Some(bot), "{bot}: {row:?}");
        assert_eq!(result_for(row, "constant"), "win", "{bot}: {row:?}");
    }

    if needs("memory-hog", "memory limit") && !have["memory limit"].1.contains("RLIMIT_AS") {
        assert!(
            log("memory-hog").contains("crash: memory limit: more than 64 MiB"),
            "{}",
            log("memory-hog")
        );
    }
    assert!(
        log("stderr-flood").contains("crash: output limit: more than 10 MiB on stderr in one game")
    );
    assert!(log("long-line").contains("illegal: more than 65536 bytes of output"));
    assert!(log("close-stdout").contains("crash: "));
    if needs("fork-bomb", "process limit") {
        let forks = pids(&work.join("fork-bomb/forks.txt"));
        assert!(
            !forks.is_empty() && forks.iter().all(|&n| n < 20),
            "forks per move: {forks:?}"
        );
    }
    if needs("snoop", "file-system isolation") {
        let saw = reply(&out, &rows, "snoop", "constant");
        assert_eq!(
            saw, "9 9 sibling:[] source:[] proc:[]",
            "snoop saw something"
        );
    }
    if needs("list-results", "file-system isolation") {
        assert_eq!(
            reply(&out, &rows, "list-results", "constant"),
            "9 9 results:[]"
        );
    }
    if needs("tcp-connect", "network off") {
        assert_eq!(
            reply(&out, &rows, "tcp-connect", "constant"),
            "9 9 connect:[failed]"
        );
        assert!(
            listener.accept().is_err(),
            "a bot reached the test's listener"
        );
    }
    if needs("kill-parent", "signals") {
        // In a PID namespace of its own the bot cannot even name arena.
        let expected = if active("process isolation") {
            "9 9 parent:[invisible]"
        } else {
            "9 9 stop:[1] kill:[1]"
        };
        assert_eq!(reply(&out, &rows, "kill-parent", "constant"), expected);
    }

    // Nothing any bot started is still running: the recorded daemons and sessions, and (when
    // the sandbox leaves no survivors) any process at all of this run's bots, found by their
    // working directory or environment: other tournaments may run at the same time.
    let mut recorded = pids(&work.join("daemon/daemon.pid"));
    recorded.extend(pids(&work.join("close-stdout/pids.txt")));
    recorded.extend(pids(&work.join("ignore-term/pids.txt")));
    if needs("daemon", "no survivors") {
        assert!(!pids(&work.join("daemon/daemon.pid")).is_empty());
        // In PID namespaces the recorded pids are the namespaces' own, which mean other
        // processes here: the search by working directory below covers those bots.
        if active("process isolation") {
            recorded.clear();
        }
        let survivors: Vec<u32> = recorded.iter().copied().filter(|&p| alive(p)).collect();
        assert!(survivors.is_empty(), "still running: {survivors:?}");
    }
    if needs("all bots", "no survivors") {
        assert_eq!(
            run_processes(arena_pid, &work),
            Vec::<u32>::new(),
            "processes of this run's bots remain"
        );
    }
}

#[test]
fn the_survivor_check_sees_a_survivor_of_its_own_run_only() {
    // A stand-in for a surviving bot of the run of (dead) pid 4000000000: a process whose
    // working directory is in that run's work directory.
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp
        .path()
        .join("arena-work-4000000000-0badf00d")
        .join("bot");
    std::fs::create_dir_all(&bot).unwrap();
    let mut sleeper = Command::new("sleep")
        .arg("30")
        .current_dir(&bot)
        .spawn()
        .unwrap();
    let pid = sleeper.id();
    let mine = run_processes(4000000000, Path::new(""));
    let others = run_processes(4000000001, Path::new("/nonexistent/out/work"));
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    assert_eq!(mine, vec![pid], "the survivor is found");
    assert!(!others.contains(&pid), "another run's process is not");
}
