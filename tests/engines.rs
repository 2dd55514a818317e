//! Real engines through their own protocols, unchanged: GRhino (Debian's `gtp-rhino`) over
//! GTP, and strict fixture engines for Gomocup and NBoard, in full round robins against the
//! sample bots.

mod common;

use std::path::PathBuf;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use common::*;

/// Tests that time engines closely run alone ([`alone`]); the others together ([`shared`]).
static TIMING: RwLock<()> = RwLock::new(());

/// For a test that measures think times: no other test of this file runs meanwhile.
fn alone() -> RwLockWriteGuard<'static, ()> {
    TIMING.write().unwrap_or_else(|e| e.into_inner())
}

/// For a test that does not measure think times: it runs beside the others.
fn shared() -> RwLockReadGuard<'static, ()> {
    TIMING.read().unwrap_or_else(|e| e.into_inner())
}

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
    let _timing = shared();
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
    let _timing = shared();
    require_gtp_rhino();
    require_python3(); // the bundled Othello bots
    let bots = [
        format!("gtp:{GTP_RHINO}"),
        path(bundled("othello").join("greedy")),
    ];
    let rows = clean_round_robin("othello", &bots, &["--games", "2"]);
    assert!(rows.iter().any(|r| r["bot_a"] == "gtp-rhino"), "{rows:?}");
}

#[test]
fn two_levels_of_one_inline_engine_play_each_other_by_name_issue_18() {
    let _timing = shared();
    require_gtp_rhino();
    let bots = [
        format!("gtp:rhino-1={GTP_RHINO} --level 1"),
        format!("gtp:rhino-2={GTP_RHINO} --level 2"),
    ];
    let rows = clean_round_robin("othello", &bots, &["--games", "2", "--move-time", "5s"]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in &rows {
        let mut pair = [row["bot_a"].as_str(), row["bot_b"].as_str()];
        pair.sort();
        assert_eq!(pair, ["rhino-1", "rhino-2"], "{row:?}");
    }
}

#[test]
fn an_option_the_engine_refuses_leaves_it_out_before_the_first_game_issue_18() {
    let _timing = shared();
    require_gtp_rhino();
    require_python3(); // the bundled Othello bots
    let tmp = tempfile::tempdir().unwrap();
    // GRhino takes its level on the command line (`--level 3`), not as a GTP command.
    let rhino = tmp.path().join("rhino-level");
    std::fs::create_dir(&rhino).unwrap();
    std::fs::write(
        rhino.join("bot.toml"),
        format!("command = \"{GTP_RHINO}\"\nprotocol = \"gtp\"\noptions = {{ level = 3 }}\n"),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let result = arena(&[
        "run",
        "othello",
        &path(rhino),
        &path(bundled("othello").join("random")),
        &path(bundled("othello").join("greedy")),
        "--games",
        "2",
        "--quiet",
        "--out",
        &out.display().to_string(),
    ]);
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(result.status.success(), "{stderr}");
    let warning = stderr
        .lines()
        .find(|l| l.starts_with("warning: bot `rhino-level` is left out: "))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        warning.contains("the engine answered `? unknown command` to `level 3` (from `options` in `bot.toml`); the commands it accepts (`list_commands`): protocol_version, name, "),
        "{warning}"
    );
    assert!(warning.contains(", genmove, "), "{warning}");
    // Not one game was lost to it: the others played theirs.
    let rows = games(&out);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows
        .iter()
        .all(|r| r["bot_a"] != "rhino-level" && r["bot_b"] != "rhino-level"));
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(info["excluded"][0]["name"], "rhino-level", "{info}");
    let log = std::fs::read_to_string(out.join("logs/rhino-level.log")).unwrap();
    assert!(log.contains("left out: the engine answered"), "{log}");
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
    bot_logs(&out, engine)
}

#[test]
fn a_gomocup_engine_plays_gomoku() {
    let _timing = shared();
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
    let _timing = shared();
    require_python3(); // the fixture engine and the bundled Othello bots
    for extra in [
        &["--games", "2"][..],
        &["--games", "2", "--opening-plies", "4"][..],
    ] {
        let log = engine_round_robin("othello", "nboard", &["random", "greedy"], extra);
        assert_eq!(complaints(&log), Vec::<String>::new(), "{extra:?}");
    }
}

/// Every think time of `bot` in a run's replays, and whether each reply was accepted (no
/// failure); without the first move of each game if `skip_first` (its time holds the
/// engine's start-up).
fn think_times(out: &std::path::Path, bot: &str, skip_first: bool) -> Vec<(u64, bool)> {
    let mut times = Vec::new();
    for lines in replays(out) {
        let seat = if lines[0]["bot_a"] == bot {
            "a"
        } else if lines[0]["bot_b"] == bot {
            "b"
        } else {
            continue;
        };
        for (i, line) in lines[1..].iter().filter(|l| l["seat"] == seat).enumerate() {
            if i > 0 || !skip_first {
                let ms = line["ms"].as_u64().unwrap();
                times.push((ms, line.get("failure").is_none()));
            }
        }
    }
    times
}

/// Runs `arena run GAME BOTS... EXTRA...` into a fresh directory.
fn run_into(game: &str, bots: &[String], extra: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut args = vec!["run", game];
    args.extend(bots.iter().map(String::as_str));
    args.extend(extra);
    let out_text = out.display().to_string();
    args.extend(["--quiet", "--out", &out_text]);
    arena_ok(&args);
    tmp
}

/// A bot directory in `dir` whose `command` points at the search fixture engine where it
/// is (with its data file beside it), with `options`.
fn search_engine_bot(dir: &std::path::Path, name: &str, options: &str) -> String {
    let engine = fixtures("engines").join("gomocup-search").join("engine.py");
    let bot = dir.join(name);
    std::fs::create_dir_all(&bot).unwrap();
    let toml = format!(
        "command = \"{}\"\nprotocol = \"gomocup\"\noptions = {{ {options} }}\n",
        engine.display()
    );
    std::fs::write(bot.join("bot.toml"), toml).unwrap();
    path(bot)
}

#[test]
fn grhino_at_its_default_level_wins_on_the_clock() {
    let _timing = shared();
    require_gtp_rhino();
    require_python3(); // the bundled Othello bots
    let mut bots = vec![path(fixtures("engines").join("grhino"))];
    for sample in ["random", "greedy", "alphabeta"] {
        bots.push(path(bundled("othello").join(sample)));
    }
    let tmp = run_into("othello", &bots, &["--games", "2", "--move-time", "1s"]);
    let out = tmp.path().join("out");
    let rows = games(&out);
    let grhino: Vec<&Row> = rows
        .iter()
        .filter(|r| r["bot_a"] == "grhino" || r["bot_b"] == "grhino")
        .collect();
    assert_eq!(grhino.len(), 6);
    // It beats the two weak bots every time. Against alphabeta, whose search goes as deep
    // as the machine's speed allows in 0.1 s, either may win: only the clock is checked.
    let won = |r: &&&Row| {
        (r["bot_a"] == "grhino" && r["result"] == "a")
            || (r["bot_b"] == "grhino" && r["result"] == "b")
    };
    let weak: Vec<&&Row> = (grhino.iter())
        .filter(|r| r["bot_a"] != "alphabeta" && r["bot_b"] != "alphabeta")
        .collect();
    assert_eq!(weak.len(), 4);
    assert!(weak.iter().all(won), "{grhino:?}");
    for row in &grhino {
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
    let times = think_times(&out, "grhino", false);
    assert!(times.iter().all(|&(ms, ok)| ok && ms < 1000), "{times:?}");
    // It was told the clock, and took it (no `?` noted in its log).
    let log = bot_logs(&out, "grhino");
    assert!(!log.contains("answered `?"), "{log}");
}

#[test]
fn a_gomocup_engine_searches_on_the_clock() {
    let _timing = alone();
    require_python3(); // the fixture engine and the bundled Gomoku bots
    let bots = [
        path(fixtures("engines").join("gomocup-search")),
        path(bundled("gomoku").join("random-near")),
    ];
    let extra = ["--games", "2", "--move-time", "400ms", "--memory", "256MiB"];
    let tmp = run_into("gomoku", &bots, &extra);
    let out = tmp.path().join("out");
    for row in games(&out) {
        assert_eq!(row["reason"], "normal", "{row:?}");
        let winner = if row["result"] == "a" {
            "bot_a"
        } else {
            "bot_b"
        };
        assert_eq!(row[winner], "gomocup-search", "{row:?}");
    }
    // Most of its time (the engine plans 70% of it, less 30 ms), never over it.
    let times = think_times(&out, "gomocup-search", false);
    let mut ms: Vec<u64> = times.iter().map(|&(ms, _)| ms).collect();
    ms.sort();
    assert!(ms.len() >= 6 && ms[ms.len() - 1] < 400, "{ms:?}");
    assert!(ms[ms.len() / 2] >= 200, "it did not use its time: {ms:?}");
    let log = bot_logs(&out, "gomocup-search");
    // Nothing it must be told was missing (its complaints go to stderr, the log).
    assert_eq!(complaints(&log), Vec::<String>::new());
    // Its MESSAGE and DEBUG lines are in the log; it was told the time and 80% of the memory.
    assert!(log.contains("[arena] engine: MESSAGE depth"), "{log}");
    let memory = (256u64 << 20) / 100 * 80;
    assert!(log.contains("timeout_turn 400 time_left "), "{log}");
    assert!(log.contains(&format!("max_memory {memory}")), "{log}");
}

#[test]
fn gomocup_errors_are_logged_never_played() {
    let _timing = shared();
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    // A directory bot whose command points at the engine beside its data file.
    let bots = [
        search_engine_bot(tmp.path(), "chatty", "chatter = 1"),
        path(bundled("gomoku").join("random-near")),
    ];
    let run = run_into("gomoku", &bots, &["--games", "2", "--move-time", "300ms"]);
    let out = run.path().join("out");
    for row in games(&out) {
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
    let log = bot_logs(&out, "chatty");
    assert!(
        log.contains("[arena] engine: ERROR pretend trouble"),
        "{log}"
    );
    assert!(log.contains("[arena] engine: UNKNOWN pretend"), "{log}");
}

#[test]
fn an_inline_engine_reads_the_files_beside_it() {
    let _timing = shared();
    require_python3();
    let engine = fixtures("engines").join("gomocup-search").join("engine.py");
    let bots = [
        format!("gomocup:{}", engine.display()),
        path(bundled("gomoku").join("random-near")),
    ];
    let tmp = run_into("gomoku", &bots, &["--games", "2", "--move-time", "300ms"]);
    for row in games(&tmp.path().join("out")) {
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
}

#[test]
fn an_engine_start_up_is_timed_apart_from_its_first_move() {
    let _timing = shared();
    require_python3();
    // A copy of the search engine that takes two seconds to start, far more than the move
    // time: fine within --engine-startup.
    let dir = tempfile::tempdir().unwrap();
    let slow = dir.path().join("slow");
    std::fs::create_dir_all(&slow).unwrap();
    for file in ["engine.py", "weights.txt"] {
        let from = fixtures("engines").join("gomocup-search").join(file);
        std::fs::copy(from, slow.join(file)).unwrap();
    }
    let toml = "command = \"/bin/sh -c 'sleep 2; exec ./engine.py'\"\nprotocol = \"gomocup\"\n";
    std::fs::write(slow.join("bot.toml"), toml).unwrap();
    let slow = path(slow);
    let bots = [slow, path(bundled("gomoku").join("random-near"))];
    let tmp = run_into("gomoku", &bots, &["--games", "1", "--move-time", "300ms"]);
    for row in games(&tmp.path().join("out")) {
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
    // With less start-up time than it needs, its first move is a timeout, and the log says why.
    let extra = [
        "--games",
        "1",
        "--move-time",
        "300ms",
        "--engine-startup",
        "1s",
    ];
    let tmp = run_into("gomoku", &bots, &extra);
    let out = tmp.path().join("out");
    let rows = games(&out);
    assert_eq!(rows[0]["reason"], "timeout", "{rows:?}");
    let log = std::fs::read_to_string(out.join("logs/slow.log")).unwrap();
    assert!(
        log.contains("no handshake within --engine-startup 1s"),
        "{log}"
    );
}

/// How far over the limit a reply can be recorded and still count: the deadline is checked
/// where the reply is read (a 1 ms timer); the recorded think time also holds arena's own
/// work around the request. README states the tolerance this test checks.
const TOLERANCE_MS: u64 = 25;

#[test]
fn replies_just_before_the_deadline_are_recorded_within_the_tolerance() {
    let _timing = alone();
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    // Two engines answering 8 ms before a 100 ms limit: a long game of close calls.
    let bots = [
        search_engine_bot(tmp.path(), "late-a", "late = 8"),
        search_engine_bot(tmp.path(), "late-b", "late = 8"),
    ];
    let run = run_into("gomoku", &bots, &["--games", "1", "--move-time", "100ms"]);
    let out = run.path().join("out");
    let mut times = think_times(&out, "late-a", true);
    times.extend(think_times(&out, "late-b", true));
    assert!(times.len() >= 10, "{times:?}");
    let accepted: Vec<u64> = times.iter().filter(|t| t.1).map(|t| t.0).collect();
    let within = accepted
        .iter()
        .filter(|&&ms| ms <= 100 + TOLERANCE_MS)
        .count();
    // Arena itself may be late to look on a loaded machine (a reply already waiting is then
    // still accepted): 95% within the tolerance, not all.
    assert!(within * 100 >= accepted.len() * 95, "{times:?}");
    assert!(
        accepted.iter().all(|&ms| ms >= 92),
        "answered early: {times:?}"
    );
    for &(ms, ok) in &times {
        // A timeout is never declared before the limit.
        assert!(ok || ms >= 100, "timed out after {ms} ms: {times:?}");
    }
}
