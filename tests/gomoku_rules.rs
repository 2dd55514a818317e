//! End-to-end `--gomoku-rule` (issue 20): a renju forbidden move loses as illegal with its
//! reason, bots see `ARENA_GOMOKU_RULE`, Gomocup engines are told `INFO rule`, and the replay
//! and `tournament.json` record the rule.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// Writes an executable `lines` bot `name` in `dir`: as black it plays the free points of
/// `plan` in order, then (and always as white) the first free point of a1, c1, e1, ... then
/// any. Its first stderr line says the `ARENA_GOMOKU_RULE` it was given.
fn planned_bot(dir: &Path, name: &str, plan: &[&str]) -> PathBuf {
    let plan: Vec<String> = plan.iter().map(|p| format!("{p:?}")).collect();
    let script = format!(
        r#"#!/usr/bin/python3
import os, sys
sys.stderr.write("rule=%s\n" % os.environ.get("ARENA_GOMOKU_RULE", "unset"))
sys.stderr.flush()
PLAN = [{}]
def index(p):
    return (int(p[1:]) - 1) * 15 + ord(p[0]) - ord("a")
SPARSE = [c + r for r in map(str, range(1, 16)) for c in "acegikmo"]
ANY = [c + r for r in map(str, range(1, 16)) for c in "abcdefghijklmno"]
for line in sys.stdin:
    board, side = line.split()
    order = (PLAN if side == "X" else []) + SPARSE + ANY
    print(next(p for p in order if board[index(p)] == "."), flush=True)
"#,
        plan.join(", ")
    );
    let file = dir.join(name);
    std::fs::write(&file, script).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    file
}

/// `arena run gomoku BOTS --games 2 EXTRA` into `<dir>/out`; the output directory.
fn run(dir: &Path, bots: &[PathBuf], extra: &[&str]) -> PathBuf {
    let out = dir.join("out");
    let mut args = vec!["run".to_string(), "gomoku".to_string()];
    args.extend(bots.iter().map(|b| b.display().to_string()));
    args.extend(["--games", "2", "--quiet", "--out"].map(String::from));
    args.push(out.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);
    out
}

/// The replay of the game where `bot` moved first.
fn replay_as_black(out: &Path, bot: &str) -> Vec<serde_json::Value> {
    (replays(out).into_iter())
        .find(|lines| lines[0]["bot_a"] == bot)
        .unwrap_or_else(|| panic!("no game with `{bot}` first"))
}

#[test]
fn a_renju_forbidden_move_loses_as_illegal_with_its_reason_issue_20() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    // f8 g8, h6 h7, then h8: two threes at once.
    let fork = planned_bot(tmp.path(), "fork", &["f8", "g8", "h6", "h7", "h8"]);
    let quiet = planned_bot(tmp.path(), "quiet", &[]);
    let bots = [fork, quiet];

    let out = run(
        &tmp.path().join("renju"),
        &bots,
        &["--gomoku-rule", "renju"],
    );
    let rows = games(&out);
    let row = rows.iter().find(|r| r["bot_a"] == "fork").unwrap();
    assert_eq!(row["reason"], "illegal", "{row:?}");
    assert_eq!(culprit(row), Some("fork"), "{row:?}");
    assert_eq!(result_for(row, "quiet"), "win", "{row:?}");
    assert!(
        row["detail"].contains("forbidden double-three at h8 (reply `h8`)"),
        "{row:?}"
    );
    let replay = replay_as_black(&out, "fork");
    assert_eq!(replay[0]["gomoku_rule"], "renju", "{:?}", replay[0]);
    let fault = replay.iter().find_map(|l| l["fault"].as_str()).unwrap();
    assert!(fault.contains("forbidden double-three at h8"), "{fault}");
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(info["config"]["rules"]["gomoku_rule"], "renju", "{info}");
    for bot in ["fork", "quiet"] {
        assert!(bot_logs(&out, bot).contains("rule=renju"), "{bot}");
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("gomoku rule</th><td>renju"),
        "the report says the rule"
    );

    // The same bots under freestyle: h8 is a move like any other.
    let out = run(&tmp.path().join("freestyle"), &bots, &[]);
    let rows = games(&out);
    let row = rows.iter().find(|r| r["bot_a"] == "fork").unwrap();
    assert!(!row["detail"].contains("forbidden"), "{row:?}");
    assert_ne!(row["reason"], "illegal", "{row:?}");
    assert!(bot_logs(&out, "fork").contains("rule=freestyle"));
    assert_eq!(replay_as_black(&out, "fork")[0]["gomoku_rule"], "freestyle");
}

#[test]
fn standard_gomoku_plays_on_past_an_overline_issue_20() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    // c8 d8 e8 g8 h8 then f8: six in a row, then i8 j8 k8 l8... no five of exactly five
    // until m8 n8 o8 are used up: black's row stays an overline, white's sparse row 1 fills.
    let six = planned_bot(
        tmp.path(),
        "six",
        &["c8", "d8", "e8", "g8", "h8", "f8", "a8"],
    );
    let quiet = planned_bot(tmp.path(), "quiet", &[]);
    let out = run(tmp.path(), &[six, quiet], &["--gomoku-rule", "standard"]);
    let replay = replay_as_black(&out, "six");
    let moves: Vec<&str> = replay[1..]
        .iter()
        .filter(|l| l["seat"] == "a")
        .filter_map(|l| l["reply"].as_str())
        .collect();
    assert!(
        moves.len() > 6,
        "the game went on after the overline: {moves:?}"
    );
    assert_eq!(replay[0]["gomoku_rule"], "standard");
}

/// A Gomocup engine that notes every command it is given on stderr and plays the first free
/// point it knows of.
const NOTING_ENGINE: &str = r#"#!/usr/bin/python3
import sys
taken = set()
def move():
    for y in range(15):
        for x in range(0, 15, 2):
            if (x, y) not in taken:
                taken.add((x, y))
                return "%d,%d" % (x, y)
for line in sys.stdin:
    line = line.strip()
    sys.stderr.write("got: %s\n" % line)
    sys.stderr.flush()
    word = line.split(" ")[0]
    if word == "START":
        print("OK", flush=True)
    elif word == "TURN":
        x, y = line.split(" ")[1].split(",")
        taken.add((int(x), int(y)))
        print(move(), flush=True)
    elif word == "BEGIN":
        print(move(), flush=True)
    elif word == "BOARD":
        board = True
    elif word == "DONE":
        print(move(), flush=True)
    elif "," in word:
        x, y = word.split(",")[:2]
        taken.add((int(x), int(y)))
    elif word == "END":
        break
"#;

#[test]
fn a_gomocup_engine_is_told_the_rule_and_the_limit_without_the_margin_issue_20() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("noting");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("engine.py"), NOTING_ENGINE).unwrap();
    let toml = "command = \"/usr/bin/python3 engine.py\"\nprotocol = \"gomocup\"\n";
    std::fs::write(dir.join("bot.toml"), toml).unwrap();
    let quiet = planned_bot(tmp.path(), "quiet", &[]);
    for (rule, value) in [("renju", 4), ("standard", 1), ("freestyle", 0)] {
        let extra = [
            "--gomoku-rule",
            rule,
            "--move-time",
            "700ms",
            "--time-margin",
            "2s",
        ];
        let out = run(
            &tmp.path().join(rule),
            &[dir.clone(), quiet.clone()],
            &extra,
        );
        let log = bot_logs(&out, "noting");
        assert!(
            log.contains(&format!("got: INFO rule {value}\n")),
            "{rule}: {log}"
        );
        assert!(log.contains("got: INFO timeout_turn 700\n"), "{log}");
        assert!(!log.contains("INFO rule 0") || value == 0, "{log}");
    }
}

#[test]
fn a_served_game_is_judged_by_the_servers_rule_issue_20() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let fork = planned_bot(tmp.path(), "fork", &["f8", "g8", "h6", "h7", "h8"]);
    let quiet = planned_bot(tmp.path(), "quiet", &[]);
    let file = entrants(tmp.path(), &["fork"]);
    let out = tmp.path().join("out");
    let (mut server, port) = spawn_server(
        &[
            "serve",
            "gomoku",
            path(&quiet),
            "--listen",
            "127.0.0.1:0",
            "--entrants",
            path(&file),
            "--out",
            path(&out),
            "--games",
            "2",
            "--move-time",
            "5s",
            "--gomoku-rule",
            "renju",
            "--no-sandbox",
            "--quiet",
        ],
        false,
    );
    let mut client = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["connect", &format!("127.0.0.1:{port}"), "--name", "fork"])
        .args(["--token", "token-fork", path(&fork), "--no-sandbox"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let timeout = std::time::Duration::from_secs(120);
    assert!(wait_within(&mut server, timeout).success());
    assert!(wait_within(&mut client, timeout).success());
    let rows = games(&out);
    let row = rows.iter().find(|r| r["bot_a"] == "fork").unwrap();
    assert_eq!(row["reason"], "illegal", "{row:?}");
    assert!(
        row["detail"].contains("forbidden double-three at h8"),
        "{row:?}"
    );
    assert_eq!(replay_as_black(&out, "fork")[0]["gomoku_rule"], "renju");
}
