//! The Numer0n terminal dialog of `arena serve numeron --terminal ADDR` (issue 21), driven
//! through sockets as people at `nc` would: a HOST and a GUEST play each other, another
//! person plays the tournament's bot (AI), bad names, rooms, secrets and calls are re-asked,
//! the games go to `friendly.csv` with replays, and a flood of idle connections from one
//! address does not keep anyone else from playing.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::*;

/// Starts the server; its main port and its terminal port.
fn server(out: &Path, entrants: &Path) -> (Child, u16, u16) {
    let bot = bundled("numeron").join("minimizer");
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["serve", "numeron", path(&bot), "--entrants", path(entrants)])
        .args(["--out", path(out), "--listen", "127.0.0.1:0"])
        .args(["--terminal", "127.0.0.1:0", "--seed", "3"])
        .args(["--no-sandbox", "--quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut main, mut terminal) = (None, None);
    for line in lines.by_ref() {
        let line = line.unwrap();
        let port = |addr: &str| addr.rsplit(':').next().unwrap().parse::<u16>().unwrap();
        if let Some(addr) = line.strip_prefix("listening on ") {
            main = Some(port(addr));
        }
        if let Some(addr) = line.strip_prefix("terminal on ") {
            terminal = Some(port(addr));
        }
        if main.is_some() && terminal.is_some() {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    (child, main.unwrap(), terminal.expect("`terminal on ADDR`"))
}

/// A person at `nc`.
struct Person {
    name: &'static str,
    r: BufReader<TcpStream>,
    w: TcpStream,
    seen: Vec<String>,
}

impl Person {
    fn at(port: u16, name: &'static str) -> Person {
        let w = TcpStream::connect(("127.0.0.1", port)).unwrap();
        w.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Person {
            name,
            r: BufReader::new(w.try_clone().unwrap()),
            w,
            seen: Vec::new(),
        }
    }

    /// Reads lines up to one that starts with `start`: that line.
    fn until(&mut self, start: &str) -> String {
        loop {
            let mut line = String::new();
            let n = self.r.read_line(&mut line).unwrap_or(0);
            assert!(
                n > 0,
                "{}: closed before `{start}`: {:#?}",
                self.name,
                self.seen
            );
            let line = line.trim_end().to_string();
            self.seen.push(line.clone());
            if line.starts_with(start) {
                return line;
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.w, "{line}").unwrap();
    }

    /// Answers `prompt` with `line`.
    fn answer(&mut self, prompt: &str, line: &str) {
        self.until(prompt);
        self.type_line(line);
    }

    fn saw(&self, line: &str) -> bool {
        self.seen.iter().any(|l| l == line)
    }
}

/// A connection from `source` (another loopback address), blocking.
fn connect_from(source: [u8; 4], port: u16) -> TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stream = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind((source, 0).into()).unwrap();
        socket.connect(([127, 0, 0, 1], port).into()).await.unwrap()
    });
    let stream = stream.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
}

#[test]
fn people_at_the_terminal_play_each_other_and_the_bot_through_the_rooms_issue_21() {
    require_python3();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // The tournament's one entrant never comes: friendly games are played meanwhile.
    let file = entrants(dir.path(), &["zed"]);
    let (mut child, main, port) = server(&out, &file);
    // The Gomoku server's routes say what this server plays.
    let (status, answer) = http(main, "GET", "/check_game/1", None, "");
    assert_eq!((status, &answer["is_success"]), (200, &false.into()));
    assert!(
        answer["error"].as_str().unwrap().contains("`numeron`"),
        "{answer}"
    );

    // A hostile address holds every place it may with idle connections; more are refused.
    let flood: Vec<(TcpStream, String)> = (0..40)
        .map(|_| {
            let mut s = connect_from([127, 0, 0, 2], port);
            let mut first = String::new();
            let _ = BufReader::new(&mut s).read_line(&mut first);
            (s, first)
        })
        .collect();
    let greeted = flood
        .iter()
        .filter(|(_, l)| l.trim() == "# Welcome to Numer0n");
    assert_eq!(greeted.count(), 32, "{flood:?}");
    let refused = (flood.iter()).filter(|(_, l)| l.starts_with("ERROR the server is busy"));
    assert_eq!(refused.count(), 8);

    let mut ann = Person::at(port, "ann");
    assert_eq!(ann.until("#"), "# Welcome to Numer0n");
    ann.answer("INPUT YOUR NAME", "zed");
    ann.until("# the name `zed` is taken");
    ann.answer("INPUT YOUR NAME", "ann");
    ann.answer("INPUT YOUR TYPE (HOST or GUEST or AI)", "HOST");
    let room = ann.until("ROOM ");
    let room = room.strip_prefix("ROOM ").unwrap().to_string();

    let mut bob = Person::at(port, "bob");
    bob.answer("INPUT YOUR NAME", "bob");
    bob.answer("INPUT YOUR TYPE (HOST or GUEST or AI)", "PLAY");
    bob.until("# type HOST, GUEST or AI");
    bob.answer("INPUT YOUR TYPE (HOST or GUEST or AI)", "guest");
    bob.answer("INPUT ROOM NUMBER", "abc");
    bob.until("# `abc` is not a room number");
    bob.answer("INPUT YOUR TYPE (HOST or GUEST or AI)", "GUEST");
    bob.answer("INPUT ROOM NUMBER", "999");
    bob.until("# no open room 999");
    bob.answer("INPUT YOUR TYPE (HOST or GUEST or AI)", "GUEST");
    let prompt = bob.until("INPUT ROOM NUMBER");
    assert!(prompt.contains(&format!("{room} by ann")), "{prompt}");
    bob.type_line(&room);

    // Secrets: a bad one is re-asked.
    ann.answer("INPUT YOUR SECRET (3 different digits)", "112");
    ann.until("# bad secret");
    ann.answer("INPUT YOUR SECRET (3 different digits)", "123");
    bob.answer("INPUT YOUR SECRET (3 different digits)", "456");
    // Calls: a bad one is re-asked; each is answered; the opponent's are shown.
    ann.answer("INPUT YOUR CALL", "12a");
    ann.until("# bad call");
    ann.answer("INPUT YOUR CALL", "465");
    assert_eq!(ann.until("[465]"), "[465] eat: 1 bite: 2");
    bob.answer("INPUT YOUR CALL", "321");
    assert_eq!(bob.until("[321]"), "[321] eat: 1 bite: 2");
    ann.until("opponent: [321] eat: 1 bite: 2");
    ann.answer("INPUT YOUR CALL", "456");
    bob.until("opponent: [456] eat: 3 bite: 0");
    bob.answer("INPUT YOUR CALL", "789");
    ann.until("opponent: [789] eat: 0 bite: 0");
    assert_eq!(ann.until("you "), "you win");
    assert_eq!(bob.until("you "), "you lose");
    assert!(
        ann.saw("# your game against bob: you call first"),
        "{:?}",
        ann.seen
    );

    // Against the bot: a name in use is refused; the person calls until the game ends.
    let mut cat = Person::at(port, "cat");
    cat.answer("INPUT YOUR NAME", "ann");
    cat.until("# the name `ann` is in use");
    cat.answer("INPUT YOUR NAME", "cat");
    cat.answer("INPUT YOUR TYPE (HOST or GUEST or AI)", "AI");
    cat.until("# AI: minimizer");
    cat.answer("INPUT YOUR SECRET (3 different digits)", "135");
    let mut calls = (0..1000)
        .map(|n| format!("{n:03}"))
        .filter(|c| c.as_bytes()[0] != c.as_bytes()[1] && c.as_bytes()[1] != c.as_bytes()[2])
        .filter(|c| c.as_bytes()[0] != c.as_bytes()[2]);
    let verdict = loop {
        let line = cat.until("");
        if line == "INPUT YOUR CALL" {
            cat.type_line(&calls.next().unwrap());
        } else if line.starts_with("you ") || line.starts_with("draw") {
            break line;
        }
    };
    assert!(verdict == "you lose" || verdict == "you win", "{verdict}");
    assert!(
        cat.seen.iter().any(|l| l.starts_with("opponent: [")),
        "{:?}",
        cat.seen
    );
    // Back to the choice of a game.
    cat.until("INPUT YOUR TYPE");

    // Both friendly games are recorded, with the names given, and have replays.
    let text = std::fs::read_to_string(out.join("friendly.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2, "{text}");
    let header = reader.headers().unwrap().clone();
    let field = |row: &csv::StringRecord, name: &str| {
        row[header.iter().position(|h| h == name).unwrap()].to_string()
    };
    assert_eq!(
        (field(&rows[0], "bot_a"), field(&rows[0], "bot_b")),
        ("ann".into(), "bob".into())
    );
    assert_eq!(field(&rows[0], "result"), "a");
    assert_eq!(field(&rows[1], "bot_a"), "cat");
    assert_eq!(field(&rows[1], "bot_b"), "minimizer");
    for row in &rows {
        let id = field(row, "game_id");
        assert!(out.join(format!("replays/{id}.jsonl")).exists(), "{id}");
    }
    assert!(!out.join("games.csv").exists() || games(&out).is_empty());

    // The idle flood is still held, and still refused more.
    let mut more = connect_from([127, 0, 0, 2], port);
    let mut answer = String::new();
    let _ = more.read_to_string(&mut answer);
    assert!(answer.starts_with("ERROR the server is busy"), "{answer}");
    drop(flood);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_terminal_dialog_is_only_numeron_s_issue_21() {
    let dir = tempfile::tempdir().unwrap();
    let file = entrants(dir.path(), &["zed"]);
    let out = dir.path().join("out");
    let bot = bundled("gomoku").join("random-near");
    let output = arena(&[
        "serve",
        "gomoku",
        path(&bot),
        "--entrants",
        path(&file),
        "--out",
        path(&out),
        "--listen",
        "127.0.0.1:0",
        "--terminal",
        "127.0.0.1:0",
        "--no-sandbox",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`--terminal` is for `arena serve numeron`"),
        "{stderr}"
    );
}
