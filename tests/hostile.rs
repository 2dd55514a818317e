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

/// Every file under `dir` (not following links), with its content.
fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => found.extend(files_under(&path)),
            Ok(t) if t.is_file() => found.push((path.clone(), std::fs::read(&path).unwrap())),
            _ => {}
        }
    }
    found
}

#[test]
fn a_directory_swapped_for_a_link_never_brings_an_outside_file_into_the_copy_issue_17() {
    use arena::bot::copy::{copy_submission, mirror, CopyRules};
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;

    // What no copy may hold: a file outside the bot's directory, readable by its owner only
    // (root on CI; as `nobody`, nobody's own file, which the copy must still refuse, since a
    // link may lead only inside the bot's directory).
    let tmp = tempfile::tempdir().unwrap();
    let secret = b"TOP-SECRET-17-do-not-copy";
    let vault = tmp.path().join("vault");
    std::fs::create_dir(&vault).unwrap();
    std::fs::write(vault.join("key"), secret).unwrap();
    std::fs::set_permissions(vault.join("key"), PermissionsExt::from_mode(0o600)).unwrap();
    // The submitter's folder, and beside it (also theirs) a link to the vault that a racer
    // swaps with the folder's `sub` directory, atomically, as fast as it can.
    let bot = tmp.path().join("bot");
    std::fs::create_dir_all(bot.join("sub")).unwrap();
    std::fs::write(bot.join("run"), "#!/bin/sh\necho 1\n").unwrap();
    std::fs::write(bot.join("sub/key"), "harmless").unwrap();
    let spare = tmp.path().join("spare");
    std::fs::create_dir(&spare).unwrap();
    std::os::unix::fs::symlink(&vault, spare.join("sub")).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let racer = {
        let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
        let (a, b) = (bot.join("sub"), spare.join("sub"));
        std::thread::spawn(move || {
            let cwd = rustix::fs::CWD;
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(cwd, &a, cwd, &b, rustix::fs::RenameFlags::EXCHANGE)
                    .unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    let sum_of_secret = {
        use sha2::Digest;
        format!("{:x}", sha2::Sha256::digest(secret))
    };
    let mut leaks = Vec::new();
    let mut whole = 0;
    for i in 0..400 {
        // A submission's copy, the checksums `resume` compares, and a mirror (an instance or
        // `--keep-work` copied from a directory the bot can change while it runs).
        let to = tmp.path().join(format!("copy-{i}"));
        std::fs::create_dir(&to).unwrap();
        if copy_submission(&bot, &to, &CopyRules::default()).is_ok() {
            whole += 1;
        }
        let mirrored = tmp.path().join(format!("mirror-{i}"));
        let _ = mirror(&bot, &mirrored);
        for (path, content) in files_under(&to).into_iter().chain(files_under(&mirrored)) {
            if content == secret {
                leaks.push(path);
            }
        }
        if let Ok(sums) = arena::bot::checksums(&bot, &[]) {
            if sums.values().any(|s| *s == sum_of_secret) {
                leaks.push(bot.join("(checksums)"));
            }
        }
        std::fs::remove_dir_all(&to).unwrap();
        let _ = std::fs::remove_dir_all(&mirrored);
    }
    stop.store(true, Ordering::Relaxed);
    racer.join().unwrap();
    let swaps = swaps.load(Ordering::Relaxed);
    println!("400 copies, {whole} whole, during {swaps} swaps");
    assert!(swaps > 400, "the racer hardly ran: {swaps} swaps");
    assert!(
        leaks.is_empty(),
        "the vault's file reached {} copies: {:?}",
        leaks.len(),
        &leaks[..leaks.len().min(5)]
    );
}

/// The ticks a bot's helper, in a session of its own, counted between the bot's moves (from
/// its reply to its next request: while the opponent thinks), in one game of Gomoku against
/// a bot that takes 200 ms a move; and how many of those waits there were.
fn session_helper_ticks(pause: &str) -> (u64, u64) {
    require_perl();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let gomoku = fixtures("gomoku");
    let (ponder, slow) = (gomoku.join("ponder-session"), gomoku.join("slow"));
    arena_ok(&[
        "run",
        "gomoku",
        path(&ponder),
        path(&slow),
        "--games",
        "1",
        "--pause-opponent",
        pause,
        "--keep-work",
        "--quiet",
        "--out",
        path(&out),
    ]);
    let rows = games(&out);
    assert_eq!(culprit(&rows[0]), Some("slow"), "{rows:?}");
    let counts = std::fs::read_to_string(out.join("work/ponder-session/counts")).unwrap();
    let counts: Vec<(&str, u64)> = counts
        .lines()
        .map(|l| {
            let (what, n) = l.split_once(' ').unwrap();
            (what, n.trim().parse().unwrap())
        })
        .collect();
    // Each wait runs from an `end` (the reply) to the next `start` (the next request).
    let waits: Vec<u64> = counts
        .windows(2)
        .filter(|w| w[0].0 == "end" && w[1].0 == "start")
        .map(|w| w[1].1 - w[0].1)
        .collect();
    println!("--pause-opponent {pause}: ticks during each wait {waits:?}");
    (waits.iter().sum(), waits.len() as u64)
}

#[test]
fn a_paused_bots_helper_in_its_own_session_is_paused_too_issue_17() {
    // The slow bot thinks 200 ms a move: the helper, spinning, ticks about 20 times in each
    // wait unless it is stopped with its bot. Stopped, it runs only from the bot's reply to
    // the freeze (once the opponent has thought 1 ms): 0 to 2 ticks a wait.
    let (paused, waits) = session_helper_ticks("on");
    let (running, _) = session_helper_ticks("off");
    assert!(waits >= 3, "the bot waited {waits} times");
    assert!(
        running > 5 * waits,
        "{running} ticks in {waits} running waits"
    );
    assert!(
        paused * 4 < running,
        "{paused} ticks in {waits} paused waits, against {running} running"
    );
}

#[test]
fn helpers_that_hold_more_than_the_memory_limit_together_lose_the_game_issue_17() {
    // Without a cgroup (as `nobody` here) each process alone is under `--memory`: only the
    // sampler of all the bot's processes together stops them.
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let helpers = fixtures("hostile").join("memory-helpers");
    let constant = fixtures("morra").join("constant");
    arena_ok(&[
        "run",
        "morra",
        path(&constant),
        path(&helpers),
        "--morra-rounds",
        "200",
        "--move-time",
        "2s",
        "--memory",
        "512MiB",
        "--quiet",
        "--out",
        path(&out),
    ]);
    let rows = games(&out);
    let row = game_between(&rows, "memory-helpers", "constant");
    println!("{}", row["detail"]);
    assert_eq!(culprit(row), Some("memory-helpers"), "{row:?}");
    assert_eq!(row["reason"], "crash", "{row:?}");
    assert!(row["detail"].contains("memory limit"), "{row:?}");
    // Quickly: the helpers hold their memory within a second or so; 200 rounds take 10 s.
    let rounds: u32 = row["plies"].parse().unwrap();
    assert!(rounds < 100, "{rounds} rounds were played before the fault");
}
