//! What `arena serve` and `arena connect` say on their terminals (issue 18): the server the
//! page's address, how to start, who connected, "all N entrants connected: starting", each
//! game's start and result on a line, and who left; `arena connect` each game's result and a
//! summary at the end, agreeing with `games.csv`.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::*;

/// Waits for a line of `lines` that satisfies `wanted`, keeping every line read in `seen`.
fn line_where(
    lines: &mpsc::Receiver<String>,
    seen: &mut Vec<String>,
    wanted: impl Fn(&str) -> bool,
) -> String {
    if let Some(l) = seen.iter().find(|l| wanted(l)) {
        return l.clone();
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => {
                seen.push(line.clone());
                if wanted(&line) {
                    return line;
                }
            }
            Err(_) => panic!("no such line; the server said:\n{}", seen.join("\n")),
        }
    }
}

#[test]
fn the_terminals_of_serve_and_connect_say_what_happens_issue_18() {
    let dir = tempfile::tempdir().unwrap();
    let file = entrants(dir.path(), &["ann", "bob"]);
    let out = dir.path().join("out");
    let greedy = bundled("othello").join("greedy");
    let mut server = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args([
            "serve",
            "othello",
            "--entrants",
            path(&file),
            "--out",
            path(&out),
        ])
        .args(["--gauntlet", path(&greedy), "--listen", "127.0.0.1:0"])
        .args(["--games", "1", "--seed", "3", "--move-time", "5s"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = mpsc::channel();
    let stderr = server.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let listening = line_where(&lines, &mut seen, |l| l.starts_with("listening on "));
    let port: u16 = listening.rsplit(':').next().unwrap().parse().unwrap();
    let page = format!("the page: http://127.0.0.1:{port}/");
    line_where(&lines, &mut seen, |l| l == page);
    line_where(&lines, &mut seen, |l| l.starts_with("type `start`"));

    let random = bundled("othello").join("random");
    let entrants: Vec<_> = ["ann", "bob"]
        .map(|name| {
            Command::new(env!("CARGO_BIN_EXE_arena"))
                .args(["connect", &format!("127.0.0.1:{port}"), "--name", name])
                .args(["--token", &format!("token-{name}"), path(&random)])
                .arg("--no-sandbox")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .into();
    for name in ["ann", "bob"] {
        line_where(&lines, &mut seen, |l| l == format!("{name} connected"));
    }
    line_where(&lines, &mut seen, |l| {
        l == "all 2 entrants connected: starting"
    });
    let said: Vec<String> = entrants
        .into_iter()
        .map(|c| {
            let output = c.wait_with_output().unwrap();
            assert!(output.status.success());
            String::from_utf8(output.stderr).unwrap()
        })
        .collect();
    for name in ["ann", "bob"] {
        line_where(&lines, &mut seen, |l| l == format!("{name} left"));
    }
    assert!(wait_within(&mut server, Duration::from_secs(60)).success());

    // Each game: its start and its result, one line each, as games.csv has it; each entrant
    // says its game's result from its side and a summary.
    let rows = games(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let id = &row["game_id"];
        let (a, b) = (&row["bot_a"], &row["bot_b"]);
        let start = format!("game {id} started: {a} (first) vs {b}");
        line_where(&lines, &mut seen, |l| l == start);
        let winner = match row["result"].as_str() {
            "a" => format!("{a} won"),
            "b" => format!("{b} won"),
            _ => "a draw".to_string(),
        };
        let (sa, sb) = (&row["score_a"], &row["score_b"]);
        let over = format!("game {id} over: {a} {sa}, {b} {sb}: {winner}");
        line_where(&lines, &mut seen, |l| l.starts_with(&over));
        let name = if a == "greedy" { b } else { a };
        let stderr = &said[if name == "ann" { 0 } else { 1 }];
        let (word, points) = match result_for(row, name) {
            "win" => ("won", "2 points"),
            "loss" => ("lost", "0 points"),
            _ => ("drawn", "1 point"),
        };
        let (mine, theirs) = if a == name { (sa, sb) } else { (sb, sa) };
        let line = format!("game {id} against `greedy`: {word} {mine}–{theirs}");
        assert!(
            stderr.lines().any(|l| l.starts_with(&line)),
            "{line}:\n{stderr}"
        );
        let counts = match word {
            "won" => "1 won, 0 drawn, 0 lost",
            "lost" => "0 won, 0 drawn, 1 lost",
            _ => "0 won, 1 drawn, 0 lost",
        };
        let summary = format!("played 1 game: {counts} ({points})");
        assert!(stderr.lines().any(|l| l == summary), "{summary}:\n{stderr}");
    }
}
