//! End-to-end Morra tournaments through the real binary, with real fixture bots.

mod common;

use std::path::Path;

use common::*;

fn fixture(name: &str) -> String {
    fixtures("morra").join(name).display().to_string()
}

fn out_arg(dir: &Path) -> String {
    dir.display().to_string()
}

#[test]
fn argv_bots_get_six_arguments_with_empty_histories_in_round_one() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    arena_ok(&[
        "run",
        "morra",
        &fixture("record-args"),
        &fixture("constant"),
        &fixture("echo-lines"),
        &fixture("echo-stdin"),
        // One copy per bot: the logs below are each bot's, of all its games.
        "--instances",
        "1",
        "--morra-rounds",
        "3",
        "--seed",
        "42",
        "--keep-work",
        "--out",
        &out_arg(&out),
    ]);
    let log = std::fs::read_to_string(out.join("work/record-args/args.log")).unwrap();
    let calls: Vec<&str> = log.lines().collect();
    // Three games of three rounds.
    assert_eq!(calls.len(), 9, "{log}");
    assert_eq!(calls[0], "6 [] [] [0] [] [] [0]");
    assert_eq!(calls[3], "6 [] [] [0] [] [] [0]");
    assert_eq!(calls[6], "6 [] [] [0] [] [] [0]");
    // record-args always plays `1 2`; `constant` plays `0 0` and `echo-lines` plays `1 2`:
    // nobody ever guesses right, so the scores stay 0.
    let third: Vec<&str> = [calls[2], calls[5], calls[8]].to_vec();
    assert!(third.contains(&"6 [11] [22] [0] [00] [00] [0]"), "{log}");
    assert!(third.contains(&"6 [11] [22] [0] [11] [22] [0]"), "{log}");

    // The `lines` bot gets the same fields on one line, `-` for empty ones.
    let requests = std::fs::read_to_string(out.join("work/echo-lines/requests.log")).unwrap();
    let lines: Vec<&str> = requests.lines().collect();
    assert_eq!(lines[0], "- - 0 - - 0");
    assert!(
        lines.contains(&"11 22 0 00 00 0") && lines.contains(&"11 22 0 11 22 0"),
        "{requests}"
    );
    // The `stdin` bot gets the same line, and no arguments, in a new process each move.
    let requests = std::fs::read_to_string(out.join("work/echo-stdin/requests.log")).unwrap();
    let lines: Vec<&str> = requests.lines().collect();
    assert_eq!(lines.len(), 9, "{requests}");
    assert_eq!(lines[0], "0 - - 0 - - 0");
    assert!(lines.contains(&"0 11 22 0 00 00 0"), "{requests}");

    // Each game gets its own seed, the same for both players, and every round of a game the same.
    let seeds = std::fs::read_to_string(out.join("work/record-args/seeds.log")).unwrap();
    let seeds: Vec<&str> = seeds.lines().collect();
    assert_eq!(seeds.len(), 9);
    assert!(
        seeds[..3].iter().all(|s| *s == seeds[0]) && seeds[3..6].iter().all(|s| *s == seeds[3])
    );
    assert_ne!(seeds[0], seeds[3]);
    assert!(seeds[0].parse::<u64>().is_ok());
}

#[test]
fn the_same_seed_gives_the_same_per_game_seeds() {
    let tmp = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for name in ["one", "two"] {
        let out = tmp.path().join(name);
        arena_ok(&[
            "run",
            "morra",
            &fixture("record-args"),
            &fixture("constant"),
            "--morra-rounds",
            "1",
            "--seed",
            "7",
            "--keep-work",
            "--out",
            &out_arg(&out),
        ]);
        runs.push(std::fs::read_to_string(out.join("work/record-args/seeds.log")).unwrap());
    }
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn misbehaving_bots_lose_with_the_right_reason_and_the_tournament_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bots = ["constant", "sleeper", "six", "lone", "exit1"].map(fixture);
    let mut args = vec!["run", "morra"];
    args.extend(bots.iter().map(String::as_str));
    let out_s = out_arg(&out);
    args.extend([
        "--morra-rounds",
        "5",
        "--move-time",
        "300ms",
        "--jobs",
        "2",
        "--out",
        &out_s,
    ]);
    let result = arena_ok(&args);

    let rows = games(&out);
    assert_eq!(rows.len(), 10, "every pairing was played");
    for (bot, reason) in [
        ("sleeper", "timeout"),
        ("six", "illegal"),
        ("lone", "illegal"),
        ("exit1", "crash"),
    ] {
        let row = game_between(&rows, "constant", bot);
        assert_eq!(row["reason"], reason, "{row:?}");
        assert_eq!(culprit(row), Some(bot), "{row:?}");
        assert_eq!(result_for(row, "constant"), "win", "{row:?}");
        assert_eq!(row["plies"], "0", "the first round was forfeited: {row:?}");
    }
    // Two failures in the same round: a draw, both to blame.
    let row = game_between(&rows, "six", "lone");
    assert_eq!(
        (row["result"].as_str(), row["culprit"].as_str()),
        ("draw", "both")
    );

    // The standings count each bot's failures, and the winner is clear.
    let standings = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    assert!(
        standings
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("1,constant,4,4,0,0,8,"),
        "{standings}"
    );
    // When both fail in the same round, the game's one `reason` is the more severe failure
    // (crash, then timeout, then illegal) and counts for both: sleeper's game against exit1
    // counts as a crash.
    let failures = |bot: &str| -> Vec<String> {
        let line = standings
            .lines()
            .find(|l| l.split(',').nth(1) == Some(bot))
            .unwrap();
        line.split(',').skip(9).take(3).map(String::from).collect()
    };
    assert_eq!(failures("sleeper"), ["3", "0", "1"], "{standings}");
    assert_eq!(failures("exit1"), ["0", "0", "4"], "{standings}");
    assert_eq!(failures("six"), ["1", "2", "1"], "{standings}");

    // Each failure is explained in the culprit's log, with its own stderr.
    let log = bot_logs(&out, "exit1");
    assert!(log.contains("exit1: giving up"), "{log}");
    assert!(
        log.contains("against `constant`: crash: exited with status 1"),
        "{log}"
    );
    let log = std::fs::read_to_string(out.join("logs/six.log")).unwrap();
    assert!(
        log.contains("illegal: choice `6` is not an integer from 0 to 5 (reply `6 0`)"),
        "{log}"
    );
    let log = std::fs::read_to_string(out.join("logs/sleeper.log")).unwrap();
    assert!(log.contains("timeout: no reply in time"), "{log}");

    // Data on stdout: the standings table.
    let stdout = String::from_utf8(result.stdout).unwrap();
    assert!(stdout.starts_with("| rank | bot"), "{stdout}");
}

#[test]
fn no_process_of_a_finished_game_is_left_running() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra", &fixture("forker"), &fixture("forker-lines")])
        .args([
            &fixture("sleeper"),
            "--morra-rounds",
            "4",
            "--move-time",
            "300ms",
        ])
        // One copy per bot, so that each bot's children.pid lists all its games' children.
        .args([
            "--instances",
            "1",
            "--keep-work",
            "--quiet",
            "--out",
            &out_arg(&out),
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let arena_pid = run.id();
    assert!(run.wait_with_output().unwrap().status.success());
    let mut pids = Vec::new();
    for bot in ["forker", "forker-lines"] {
        let text =
            std::fs::read_to_string(out.join("work").join(bot).join("children.pid")).unwrap();
        pids.extend(text.lines().map(|l| l.trim().parse::<u32>().unwrap()));
    }
    // forker starts a child every round it plays (4 + 1 rounds: it beats sleeper at once);
    // forker-lines starts one per game.
    assert_eq!(pids.len(), 5 + 2, "{pids:?}");
    let doctor = arena(&["doctor"]);
    if String::from_utf8_lossy(&doctor.stdout).contains("yes process isolation") {
        // Each game has its own PID namespace: the recorded pids are the namespaces' own
        // (issue 11). Look for the bots' processes by their working directory instead.
        let left = run_processes(arena_pid, &out.join("work"));
        assert!(left.is_empty(), "still running: {left:?}");
    } else {
        let survivors: Vec<u32> = pids.into_iter().filter(|&p| alive(p)).collect();
        assert!(survivors.is_empty(), "still running: {survivors:?}");
    }
}

#[test]
fn no_two_games_share_a_working_directory_even_with_many_jobs() {
    // `exclusive` says so when another game runs in its directory. With one instance a bot
    // plays one game at a time; with several, each game has its own copy (issue 13).
    for instances in ["1", "4"] {
        let tmp = tempfile::tempdir().unwrap();
        let mut args = vec!["run".to_string(), "morra".to_string()];
        // Five copies of the same bot under different names.
        for i in 0..5 {
            let dir = tmp.path().join(format!("excl{i}"));
            std::fs::create_dir(&dir).unwrap();
            for f in ["bot.toml", "bot.sh"] {
                std::fs::copy(fixtures("morra").join("exclusive").join(f), dir.join(f)).unwrap();
            }
            args.push(dir.display().to_string());
        }
        let out = tmp.path().join("out");
        args.extend(
            [
                "--morra-rounds",
                "20",
                "--jobs",
                "4",
                "--instances",
                instances,
                "--rounds",
                "2",
                "--out",
            ]
            .map(String::from),
        );
        args.push(out_arg(&out));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        arena_ok(&args);
        let rows = games(&out);
        assert_eq!(rows.len(), 20);
        assert!(
            rows.iter()
                .all(|r| r["reason"] == "normal" && r["result"] == "draw"),
            "--instances {instances}: {rows:?}"
        );
    }
}

#[test]
fn a_chatty_bot_never_stalls_and_its_log_is_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    arena_ok(&[
        "run",
        "morra",
        &fixture("chatty"),
        &fixture("constant"),
        "--morra-rounds",
        "5",
        "--log-limit",
        "50000",
        "--out",
        &out_arg(&out),
    ]);
    let rows = games(&out);
    assert_eq!(rows[0]["reason"], "normal");
    let log = bot_logs(&out, "chatty");
    let (output, note) = log.split_once("\n[arena] log truncated").unwrap();
    assert_eq!(output.matches('e').count(), 50000);
    assert!(!note.contains("ee"), "nothing after the cap: {note}");
    assert!(log.contains("log truncated at 50000 bytes"));
}

#[test]
fn bots_that_cannot_run_are_left_out_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let result = arena_ok(&[
        "run",
        "morra",
        &fixture("constant"),
        &fixture("broken-build"),
        &fixture("no-interpreter"),
        &fixture("six"),
        "--morra-rounds",
        "2",
        "--out",
        &out_arg(&out),
    ]);
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("warning: bot `broken-build` is left out: build failed: exit status: 3"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: bot `no-interpreter` is left out: `no-such-interpreter-for-arena` is not found on PATH"),
        "{stderr}"
    );
    assert_eq!(games(&out).len(), 1);
    let log = std::fs::read_to_string(out.join("logs/broken-build.log")).unwrap();
    assert!(
        log.contains("compiling"),
        "the build's output is kept: {log}"
    );
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(info["excluded"].as_array().unwrap().len(), 2);
    assert_eq!(info["bots"].as_array().unwrap().len(), 2);
}

#[test]
fn standings_regenerate_byte_for_byte_from_the_games_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    arena_ok(&[
        "run",
        "morra",
        &fixture("record-args"),
        &fixture("constant"),
        &fixture("six"),
        &fixture("echo-lines"),
        "--morra-rounds",
        "4",
        "--rounds",
        "2",
        "--out",
        &out_arg(&out),
    ]);
    let again = tmp.path().join("again");
    let csv = out.join("games.csv");
    let result = arena_ok(&[
        "standings",
        &csv.display().to_string(),
        "--out",
        &out_arg(&again),
    ]);
    assert_same_tables(&out, &again);
    let stdout = String::from_utf8(result.stdout).unwrap();
    assert!(stdout.contains(&std::fs::read_to_string(out.join("standings.md")).unwrap()));

    // Two runs' CSVs merge: every count doubles.
    let merged = tmp.path().join("merged");
    arena_ok(&[
        "standings",
        &csv.display().to_string(),
        &csv.display().to_string(),
        "--out",
        &out_arg(&merged),
    ]);
    let one = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    let two = std::fs::read_to_string(merged.join("standings.csv")).unwrap();
    let games = |text: &str| -> u32 {
        text.lines()
            .skip(1)
            .map(|l| l.split(',').nth(2).unwrap().parse::<u32>().unwrap())
            .sum()
    };
    assert_eq!(games(&two), 2 * games(&one));
}

#[test]
fn a_malformed_bot_manifest_leaves_the_bot_out_with_the_file_named() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("badbot");
    std::fs::create_dir(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "command = \"perl bot.pl\"\nprotocol = \"telepathy\"\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let result = arena(&[
        "run",
        "morra",
        &fixture("constant"),
        &bot.display().to_string(),
        "--out",
        &out_arg(&out),
    ]);
    // The bad bot is left out; with one bot left there is no tournament.
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.starts_with("warning: bot `badbot` is left out: `"),
        "{stderr}"
    );
    assert!(
        stderr.contains("badbot/bot.toml`: line 2, column 12: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: fewer than two bots can play: 1 can, 1 bot left out"),
        "{stderr}"
    );
    assert!(stderr.contains("telepathy"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !out.exists(),
        "nothing is written for a tournament that cannot start"
    );
}

#[test]
fn a_malformed_games_csv_stops_with_the_file_and_line_named() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("games.csv");
    std::fs::write(
        &csv,
        "run,round,game_id,game,bot_a,bot_b,score_a,score_b,result,reason,culprit,plies,duration_ms\n\
         r,1,1,morra,x,y,10,2,a,normal,,1000,5\n\
         r,1,2,morra,x,y,10,2,a,normal,,1000\n",
    )
    .unwrap();
    let result = arena(&["standings", &csv.display().to_string()]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("games.csv`: line 3: 12 fields where the header has 13"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn the_bundled_bots_play_a_clean_tournament() {
    require_perl();
    require_python3();
    require_java();
    // All the bundled bots, with short games: the Java adapter, Python `lines` bots and Perl
    // `argv` bots must all play every round legally.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bots = bundled("morra").display().to_string();
    let mut args = vec!["run".to_string(), "morra".to_string()];
    for entry in std::fs::read_dir(&bots).unwrap() {
        args.push(entry.unwrap().path().display().to_string());
    }
    let bot_count = args.len() - 2;
    assert!(bot_count >= 5);
    args.extend(["--morra-rounds", "30", "--out"].map(String::from));
    args.push(out_arg(&out));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);
    let rows = games(&out);
    assert_eq!(rows.len(), bot_count * (bot_count - 1) / 2);
    for row in &rows {
        assert_eq!(row["reason"], "normal", "{row:?}");
        assert_eq!(row["plies"], "30", "{row:?}");
    }
}

#[test]
fn bots_run_when_the_output_directory_is_private() {
    // A home directory of mode 0700, say: bots under their own uid cannot enter it, so their
    // private copies must live elsewhere while they play.
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let private = tmp.path().join("home");
    std::fs::create_dir(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let out = private.join("out");
    arena_ok(&[
        "run",
        "morra",
        &fixture("constant"),
        &fixture("echo-lines"),
        "--morra-rounds",
        "3",
        "--keep-work",
        "--out",
        &out_arg(&out),
    ]);
    let rows = games(&out);
    assert_eq!(rows[0]["reason"], "normal", "{rows:?}");
    assert!(
        out.join("work/echo-lines/requests.log").exists(),
        "kept copies are moved to the output"
    );
}
