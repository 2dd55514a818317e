//! Engines through `arena serve` + `arena connect` see what they see in a local run (issue 17,
//! point 7): a recording engine (GTP, NBoard, Gomocup) plays the same seeded games with
//! `--opening-plies` once under `arena run` and once as a remote entrant, and receives the
//! same commands (opening plies, passes, both sides' moves) both times; GRhino, which keeps
//! its own board, loses no game by an illegal move through `arena connect`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::*;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// Writes `<root>/recorder/bot.toml`: the recording engine for `protocol`, logging into
/// `<root>/log`. The bot's directory.
fn recorder(root: &Path, protocol: &str) -> PathBuf {
    let script = fixtures("engines").join("recorder.py");
    let (bot, log) = (root.join("recorder"), root.join("log"));
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::create_dir_all(&log).unwrap();
    let toml = format!(
        "command = \"/usr/bin/python3 {} {protocol} {}\"\nprotocol = \"{protocol}\"\n",
        script.display(),
        log.display()
    );
    std::fs::write(bot.join("bot.toml"), toml).unwrap();
    bot
}

/// Each game's commands, by the game's seed, without the lines that tell the time left (they
/// follow the clock).
fn logs(root: &Path) -> BTreeMap<String, Vec<String>> {
    let mut logs = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("log")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = (text.lines())
            .filter(|l| !l.starts_with("INFO time_left"))
            .map(str::to_string)
            .collect();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // `0.log`: the engine's check before the first game (seed 0), in local runs only.
        if name != "0.log" {
            logs.insert(name, lines);
        }
    }
    logs
}

fn connect(port: u16, name: &str, bot: &Path, seed: &str) -> Child {
    Command::new(ARENA)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["connect", &format!("127.0.0.1:{port}"), "--name", name])
        .args([
            "--token",
            &format!("token-{name}"),
            path(bot),
            "--no-sandbox",
        ])
        .args(["--seed", seed])
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// `arena serve GAME LOCAL` with `entrant` connected through `arena connect`, until the end:
/// the rows of `games.csv`.
fn served(
    game: &str,
    local: &Path,
    entrant: (&str, &Path),
    dir: &Path,
    extra: &[&str],
) -> Vec<Row> {
    let file = entrants(dir, &[entrant.0]);
    let out = dir.join("out");
    let mut args = vec!["serve", game, path(local), "--listen", "127.0.0.1:0"];
    args.extend(["--entrants", path(&file), "--out", path(&out)]);
    args.extend(["--jobs", "1", "--no-sandbox", "--quiet"]);
    args.extend(extra);
    let seed = extra[extra.iter().position(|a| *a == "--seed").unwrap() + 1];
    let (mut server, port) = spawn_server(&args, false);
    let mut client = connect(port, entrant.0, entrant.1, seed);
    assert!(wait_within(&mut server, Duration::from_secs(300)).success());
    assert!(wait_within(&mut client, Duration::from_secs(30)).success());
    games(&out)
}

/// `arena run GAME LOCAL BOT`: the rows of `games.csv`.
fn local(game: &str, local: &Path, bot: &Path, dir: &Path, extra: &[&str]) -> Vec<Row> {
    let out = dir.join("out");
    let mut args = vec!["run", game, path(local), path(bot), "--out", path(&out)];
    args.extend(["--jobs", "1", "--no-sandbox", "--quiet"]);
    args.extend(extra);
    arena_ok(&args);
    games(&out)
}

fn assert_all_normal(rows: &[Row], games: usize, how: &str) {
    assert_eq!(rows.len(), games, "{how}: {rows:?}");
    for row in rows {
        assert_eq!(row["reason"], "normal", "{how}: {row:?}");
    }
}

/// Plays the recorder at `game` against `opponent` locally and through the server with the
/// same seed and opening; asserts both give the engine the same commands and every game ends
/// by the rules. The logs of the local run.
fn same_commands(game: &str, protocol: &str, opponent: &Path, extra: &[&str]) -> Vec<Vec<String>> {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let (here, there) = (tmp.path().join("local"), tmp.path().join("served"));
    let games: usize = extra[extra.iter().position(|a| *a == "--games").unwrap() + 1]
        .parse()
        .unwrap();
    let bot = recorder(&here, protocol);
    assert_all_normal(&local(game, opponent, &bot, &here, extra), games, "local");
    let bot = recorder(&there, protocol);
    let rows = served(game, opponent, ("recorder", &bot), &there, extra);
    assert_all_normal(&rows, games, "served");
    let (here, there) = (logs(&here), logs(&there));
    assert_eq!(here.len(), games, "one log per game: {:?}", here.keys());
    assert_eq!(
        here.keys().collect::<Vec<_>>(),
        there.keys().collect::<Vec<_>>()
    );
    for (seed, commands) in &here {
        assert_eq!(commands, &there[seed], "the commands of game {seed}");
    }
    here.into_values().collect()
}

/// The colours of the moves an Othello engine was told of or asked for, in order (GTP).
fn gtp_colours(commands: &[String]) -> Vec<char> {
    (commands.iter())
        .filter_map(|c| {
            let words: Vec<&str> = c.split_whitespace().collect();
            match words.as_slice() {
                ["play", colour, _] | ["genmove", colour] => colour.chars().next(),
                _ => None,
            }
        })
        .collect()
}

/// Whether the engine of a GTP game passed (its opponent then moved twice in a row), and
/// whether its opponent did.
fn gtp_passes(commands: &[String]) -> (bool, bool) {
    let own = (commands.iter())
        .find_map(|c| c.strip_prefix("genmove "))
        .and_then(|c| c.chars().next())
        .unwrap();
    let colours = gtp_colours(commands);
    let twice = |c: char| colours.windows(2).any(|w| w == [c, c]);
    let theirs = if own == 'b' { 'w' } else { 'b' };
    (twice(theirs), twice(own))
}

const OTHELLO: &[&str] = &[
    "--opening-plies",
    "6",
    "--seed",
    "1",
    "--games",
    "12",
    "--move-time",
    "5s",
];

#[test]
fn a_gtp_engine_gets_the_same_commands_through_connect_with_openings_and_passes_issue_17() {
    let random = bundled("othello").join("random");
    let logs = same_commands("othello", "gtp", &random, OTHELLO);
    for commands in &logs {
        // The opening's six plies come before the engine's first move, whatever its colour.
        let first = commands
            .iter()
            .position(|c| c.starts_with("genmove"))
            .unwrap();
        let told = (commands[..first].iter())
            .filter(|c| c.starts_with("play "))
            .count();
        assert!(told == 6 || told == 7, "{commands:?}");
    }
    let passes: Vec<(bool, bool)> = logs.iter().map(|c| gtp_passes(c)).collect();
    assert!(
        passes.iter().any(|p| p.0),
        "no game where the engine passed"
    );
    assert!(
        passes.iter().any(|p| p.1),
        "no game where its opponent passed"
    );
}

#[test]
fn an_nboard_engine_gets_the_same_commands_through_connect_with_openings_and_passes_issue_17() {
    let random = bundled("othello").join("random");
    let logs = same_commands("othello", "nboard", &random, OTHELLO);
    let passed = (logs.iter().flatten()).any(|c| c.starts_with("set game") && c.contains("[PA]"));
    assert!(passed, "no game with a pass");
}

#[test]
fn a_gomocup_engine_gets_the_same_commands_through_connect_with_openings_issue_17() {
    let random = bundled("gomoku").join("random-near");
    let extra = [
        "--opening-plies",
        "5",
        "--seed",
        "4",
        "--games",
        "4",
        "--move-time",
        "5s",
    ];
    let logs = same_commands("gomoku", "gomocup", &random, &extra);
    for commands in &logs {
        // The opening's stones are on the first board the engine is given.
        let board = commands.iter().position(|c| c == "BOARD").unwrap();
        let stones = commands[board + 1..]
            .iter()
            .take_while(|c| *c != "DONE")
            .count();
        assert!(stones == 5 || stones == 6, "{commands:?}");
    }
}

#[test]
fn grhino_loses_no_game_by_an_illegal_move_through_connect_issue_17() {
    require_gtp_rhino();
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let grhino = fixtures("engines").join("grhino");
    let random = bundled("othello").join("random");
    let extra = [
        "--opening-plies",
        "6",
        "--seed",
        "3",
        "--games",
        "4",
        "--move-time",
        "5s",
    ];
    let rows = served("othello", &random, ("grhino", &grhino), tmp.path(), &extra);
    assert_all_normal(&rows, 4, "served");
}
