//! `arena play`: a person against a bot, driven here through piped stdin.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::*;

/// Runs `arena play` with `args`, typing `input`; returns what it printed.
fn play(args: &[&str], input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "arena play failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn gomoku_five_in_a_row_beats_the_bot() {
    // The slow fixture plays the first empty point of row 1 each move.
    let bot = fixtures("gomoku").join("slow");
    let out = play(
        &["gomoku", bot.to_str().unwrap(), "--first"],
        "h8\nh8\np3\nh9\nh10\nh11\nh12\n",
    );
    assert!(out.contains("you are ● black (first)"), "{out}");
    assert!(
        out.contains("That is not a legal move: `h8` is occupied. Try again."),
        "{out}"
    );
    assert!(
        out.contains("That is not a legal move: `p3` is off the board. Try again."),
        "{out}"
    );
    assert!(out.contains("The bot plays a1 ("), "{out}");
    assert!(
        out.contains("  a b c d e f g h i j k l m n o"),
        "coordinates: {out}"
    );
    assert!(out.contains('●') && out.contains('○'), "{out}");
    assert!(out.trim_end().ends_with("You win!"), "{out}");
}

#[test]
fn othello_input_is_checked_and_quit_stops() {
    require_python3(); // the bundled Othello bots
    let bot = bundled("othello").join("greedy");
    let out = play(&["othello", bot.to_str().unwrap()], "d4\nf5\nquit\n");
    assert!(out.contains("5 · · · ● ○ ∘ · · 5"), "{out}");
    assert!(out.contains("`d4` is occupied"), "{out}");
    assert!(out.contains("The bot plays "), "{out}");
    assert!(out.contains("You stopped the game."), "{out}");
}

#[test]
fn numeron_keeps_the_bots_secret_until_the_end() {
    // The fixture's secret is 012; it calls 345 first.
    let bot = fixtures("numeron").join("fixed");
    let out = play(&["numeron", bot.to_str().unwrap()], "112\n987\n012\n");
    assert!(out.contains("`112` repeats a digit"), "{out}");
    assert!(
        out.contains("A's secret 987, B's secret ???"),
        "hidden while playing: {out}"
    );
    assert!(out.contains("012  3 EAT 0 BITE"), "{out}");
    // Issue 13: the bot's secret is never printed as one of its moves.
    assert!(!out.contains("The bot plays 012"), "{out}");
    let before_end = &out[..out.find("B's secret 012").expect("shown at the end")];
    assert!(!before_end.contains("bot plays 012"), "{out}");
    assert!(out.trim_end().ends_with("You win!"), "{out}");
}

#[test]
fn morra_shows_the_running_score() {
    let bot = fixtures("morra").join("constant");
    let out = play(
        &["morra", bot.to_str().unwrap(), "--morra-rounds", "2"],
        "7 0\n5 0\n5 0\n",
    );
    assert!(
        out.contains("choice `7` is not an integer from 0 to 5"),
        "{out}"
    );
    assert!(out.contains("score: A 5  B 0"), "{out}");
    assert!(
        out.contains("last round: A showed 5 and guessed 0; B showed 0 and guessed 0"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("You win!"), "{out}");
}

#[test]
fn the_bot_losing_by_a_failure_is_explained() {
    let bot = fixtures("othello").join("offboard");
    let out = play(&["othello", bot.to_str().unwrap(), "--second"], "");
    assert!(out.contains("you are ○ white (second)"), "{out}");
    assert!(
        out.contains("`offboard` loses: illegal: ") && out.contains("(reply `i9`)"),
        "{out}"
    );
}

#[test]
fn an_engine_that_refuses_its_options_is_refused_before_the_first_move_issue_18() {
    require_gtp_rhino();
    let tmp = tempfile::tempdir().unwrap();
    let rhino = tmp.path().join("rhino");
    std::fs::create_dir(&rhino).unwrap();
    std::fs::write(
        rhino.join("bot.toml"),
        format!("command = \"{GTP_RHINO}\"\nprotocol = \"gtp\"\noptions = {{ level = 3 }}\n"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["play", "othello", rhino.to_str().unwrap(), "--second"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "error: bot `rhino` cannot play: the engine answered `? unknown command` to `level 3`"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("(`list_commands`): protocol_version"),
        "{stderr}"
    );
    // No game was started: no board was drawn.
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
