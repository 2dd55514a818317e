//! `arena serve` over loopback (issue 12): remote entrants (`arena connect` and tiny clients
//! written here) play local bots with the results of the same tournament under `arena run`;
//! hostile clients lose their own games or are refused while the others finish; a served
//! tournament killed with SIGKILL is completed by `arena resume`.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// Starts `arena <args>` and returns it with the port it listens on.
fn server(args: &[&str]) -> (Child, u16) {
    spawn_server(args, false)
}

fn connect_bot(port: u16, name: &str, bot: &str, seed: &str) -> Child {
    Command::new(ARENA)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["connect", &format!("127.0.0.1:{port}"), "--name", name])
        .args(["--token", &format!("token-{name}"), bot, "--no-sandbox"])
        .args(["--seed", seed])
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// A raw TCP client.
struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    fn open(port: u16) -> Client {
        Client::try_open(port).expect("the server is listening")
    }

    fn try_open(port: u16) -> Option<Client> {
        let stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Some(Client {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        })
    }

    /// `HELLO` and the answer, or `None` if the server is gone (refused, or closed at once).
    fn try_hello(port: u16, name: &str, token: &str) -> Option<(Client, String)> {
        let mut c = Client::try_open(port)?;
        c.send(&format!("HELLO {name} {token}\n"));
        let ok = c.line();
        (!ok.is_empty()).then_some((c, ok))
    }

    fn hello(port: u16, name: &str, token: &str) -> (Client, String) {
        let mut c = Client::open(port);
        c.send(&format!("HELLO {name} {token}\n"));
        let line = c.line();
        (c, line)
    }

    fn send(&mut self, text: &str) {
        let _ = self.writer.write_all(text.as_bytes());
    }

    /// The next line, empty at the end of the connection.
    fn line(&mut self) -> String {
        let mut line = String::new();
        let _ = self.reader.read_line(&mut line);
        line.trim_end().to_string()
    }
}

/// A tiny client that plays the bundled `random` Othello bot's process over the wire: one
/// connection per game until `END`.
fn piped_client(port: u16, name: &str, seed: u64) -> std::thread::JoinHandle<usize> {
    let name = name.to_string();
    std::thread::spawn(move || {
        let mut games = 0;
        loop {
            // A server done with its tournament may be gone before it can say `END`.
            let Some((mut c, ok)) = Client::try_hello(port, &name, &format!("token-{name}")) else {
                return games;
            };
            assert!(ok.starts_with("OK "), "{ok}");
            let first = c.line();
            if first == "END" {
                return games;
            }
            pipe_game(&mut c, &seed_of(&first, &name, seed), None);
            games += 1;
        }
    })
}

/// The `ARENA_SEED` a local run gives `name` in the game of the `GAME` line `header`, in a
/// tournament of seed `seed`: made of the names in seat order and the game's index.
fn seed_of(header: &str, name: &str, seed: u64) -> String {
    let words: Vec<&str> = header.split(' ').collect();
    let (game, opponent, seat) = (words[2], words[3], words[4]);
    let index = words[6].parse().unwrap();
    let names = if seat == "first" {
        [name, opponent]
    } else {
        [opponent, name]
    };
    arena::schedule::game_seed(seed, game, names, index).to_string()
}

/// Plays the rest of a game on `c` with the `random` bot, its `ARENA_SEED` `seed` (`pending`:
/// a request already read).
fn pipe_game(c: &mut Client, seed: &str, mut pending: Option<String>) {
    let bot = bundled("othello").join("random");
    let mut process = Command::new("/usr/bin/python3")
        .arg("bot.py")
        .current_dir(&bot)
        .env("ARENA_SEED", seed)
        .env("ARENA_GAME", "othello")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_bot = process.stdin.take().unwrap();
    let mut from_bot = BufReader::new(process.stdout.take().unwrap());
    loop {
        let request = pending.take().unwrap_or_else(|| c.line());
        if request.is_empty() {
            break;
        }
        writeln!(to_bot, "{request}").unwrap();
        let mut reply = String::new();
        from_bot.read_line(&mut reply).unwrap();
        c.send(&reply);
    }
    drop(to_bot);
    let _ = process.kill();
    let _ = process.wait();
}

#[test]
fn a_dropped_connection_replaced_within_the_grace_gets_the_game_back_issue_12() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let file = entrants(tmp.path(), &["phoenix"]);
    let out = tmp.path().join("out");
    let greedy = bundled("othello").join("greedy");
    let (mut server, port) = server(&[
        "serve",
        "othello",
        "--gauntlet",
        greedy.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--entrants",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "4",
        "--jobs",
        "1",
        "--network-grace",
        "3s",
        "--no-sandbox",
        "--quiet",
    ]);
    let mut played = 0;
    loop {
        let (mut c, ok) = Client::hello(port, "phoenix", "token-phoenix");
        // A server done with its tournament may be gone before it can say `END`.
        if ok.is_empty() && played == 2 {
            break;
        }
        assert!(ok.starts_with("OK "), "{ok}");
        let header = c.line();
        if header == "END" {
            break;
        }
        let request = c.line();
        drop(c);
        // Back within the grace: the same game, from its header and the pending request.
        let (mut c, ok) = Client::hello(port, "phoenix", "token-phoenix");
        assert!(ok.starts_with("OK "), "{ok}");
        assert_eq!(c.line(), header);
        assert_eq!(c.line(), request);
        pipe_game(&mut c, &seed_of(&header, "phoenix", 4), Some(request));
        played += 1;
    }
    assert_eq!(played, 2);
    assert!(wait_within(&mut server, Duration::from_secs(60)).success());
    let rows = games(&out);
    assert!(rows.iter().all(|r| r["reason"] == "normal"), "{rows:?}");
}

fn rows_without_timing(out: &Path) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = games(out)
        .into_iter()
        .map(|r| {
            [
                "game_id", "bot_a", "bot_b", "score_a", "score_b", "result", "reason",
            ]
            .iter()
            .map(|k| r[*k].clone())
            .collect()
        })
        .collect();
    rows.sort();
    rows
}

/// A copy of the bundled `random` Othello bot named `name`.
fn random_named(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::create_dir_all(&to).unwrap();
    for file in ["bot.toml", "bot.py"] {
        std::fs::copy(bundled("othello").join("random").join(file), to.join(file)).unwrap();
    }
    to
}

#[test]
fn remote_entrants_play_local_bots_with_the_results_of_a_local_run_issue_12() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let started = Instant::now();
    // Bots whose moves depend only on the position and `ARENA_SEED` (not on time).
    let file = entrants(tmp.path(), &["greedy", "rand2"]);
    let served = tmp.path().join("served");
    let random = bundled("othello").join("random");
    let greedy = bundled("othello").join("greedy");
    let (mut server, port) = server(&[
        "serve",
        "othello",
        random.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--entrants",
        file.to_str().unwrap(),
        "--out",
        served.to_str().unwrap(),
        "--seed",
        "7",
        "--jobs",
        "3",
        "--move-time",
        "5s",
        "--no-sandbox",
        "--quiet",
    ]);
    let mut connected = connect_bot(port, "greedy", greedy.to_str().unwrap(), "7");
    let piped = piped_client(port, "rand2", 7);
    assert!(wait_within(&mut server, Duration::from_secs(120)).success());
    assert!(wait_within(&mut connected, Duration::from_secs(30)).success());
    assert_eq!(piped.join().unwrap(), 4);

    let local = tmp.path().join("local");
    let rand2 = random_named(tmp.path(), "rand2");
    arena_ok(&[
        "run",
        "othello",
        random.to_str().unwrap(),
        greedy.to_str().unwrap(),
        rand2.to_str().unwrap(),
        "--out",
        local.to_str().unwrap(),
        "--seed",
        "7",
        "--jobs",
        "2",
        "--no-sandbox",
        "--quiet",
    ]);
    assert_eq!(rows_without_timing(&served), rows_without_timing(&local));
    assert_same_tables(&served, &local);
    let info = std::fs::read_to_string(served.join("tournament.json")).unwrap();
    assert!(info.contains("\"remote\": true"), "{info}");
    assert!(!info.contains("token-"), "a token reached tournament.json");
    eprintln!("served and local tournaments in {:?}", started.elapsed());
}

#[test]
fn hostile_clients_lose_their_own_games_or_are_refused_issue_12() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let names = ["dropper", "staller", "flooder", "early", "fair"];
    let file = entrants(tmp.path(), &names);
    let out = tmp.path().join("out");
    let greedy = bundled("othello").join("greedy");
    let (mut server, port) = server(&[
        "serve",
        "othello",
        "--gauntlet",
        greedy.to_str().unwrap(),
        "--games",
        "1",
        "--listen",
        "127.0.0.1:0",
        "--entrants",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "3",
        "--jobs",
        "5",
        "--move-time",
        "1s",
        "--network-grace",
        "500ms",
        "--no-sandbox",
        "--quiet",
    ]);

    // Lies and garbage are refused with a reason; none of them counts as connected.
    let (_, said) = Client::hello(port, "fair", "wrong-token");
    assert_eq!(said, "ERROR unknown name or wrong token");
    let (_, said) = Client::hello(port, "mallory", "token-mallory");
    assert_eq!(said, "ERROR unknown name or wrong token");
    let mut garbage = Client::open(port);
    garbage.send("\u{1b}\u{0}\u{7f}garbage\n");
    assert_eq!(garbage.line(), "ERROR expected `HELLO <name> <token>`");
    let mut long = Client::open(port);
    long.send(&"H".repeat(5000));
    assert_eq!(long.line(), "ERROR line too long");
    // Idle connections past the cap are turned away at once, and memory stays bounded.
    let mut idle: Vec<Client> = (0..300).map(|_| Client::open(port)).collect();
    let mut refused = 0;
    // All of them stay open while the last ones are read: a closed one frees its place.
    for c in idle.iter_mut().skip(250) {
        c.writer
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        if c.line().starts_with("ERROR the server is busy") {
            refused += 1;
        }
    }
    assert!(refused > 0, "no idle connection past the cap was refused");
    drop(idle);
    // A slowloris that never finishes its HELLO does not block anyone.
    let mut slow = Client::open(port);
    slow.send("HEL");
    std::thread::sleep(Duration::from_millis(200));

    let play = |name: &'static str, act: fn(&mut Client, &str)| {
        std::thread::spawn(move || {
            let (mut c, ok) = Client::hello(port, name, &format!("token-{name}"));
            assert!(ok.starts_with(&format!("OK {name} othello")), "{ok}");
            let game = c.line();
            assert!(game.starts_with("GAME "), "{game}");
            act(&mut c, &game);
        })
    };
    let clients = [
        play("dropper", |c, _| {
            drop(c.writer.shutdown(std::net::Shutdown::Both))
        }),
        play("staller", |c, _| {
            let _ = c.line();
            std::thread::sleep(Duration::from_secs(3));
        }),
        play("flooder", |c, _| {
            let _ = c.line();
            c.send(&"x".repeat(70 * 1024));
            c.send("\n");
        }),
        play("early", |c, _| {
            c.send("zz\n");
            std::thread::sleep(Duration::from_millis(500));
        }),
    ];
    let fair = piped_client(port, "fair", 3);
    assert!(wait_within(&mut server, Duration::from_secs(120)).success());
    for c in clients {
        c.join().unwrap();
    }
    assert_eq!(fair.join().unwrap(), 1);
    drop(slow);

    let rows = games(&out);
    assert_eq!(rows.len(), 5, "{rows:?}");
    let lost = |name: &str, reason: &str| {
        let row = game_between(&rows, name, "greedy");
        assert_eq!(culprit(row), Some(name), "{row:?}");
        assert_eq!(row["reason"], reason, "{row:?}");
    };
    lost("dropper", "crash");
    lost("staller", "timeout");
    lost("flooder", "illegal");
    lost("early", "illegal");
    let fair = game_between(&rows, "fair", "greedy");
    assert_eq!(fair["reason"], "normal", "{fair:?}");
}

#[test]
fn a_served_tournament_killed_with_sigkill_is_completed_by_resume_issue_12() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let file = entrants(tmp.path(), &["alphabeta", "random"]);
    let out = tmp.path().join("out");
    let greedy = bundled("othello").join("greedy");
    let alphabeta = bundled("othello").join("alphabeta");
    let args = [
        "serve",
        "othello",
        greedy.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--entrants",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "5",
        "--jobs",
        "1",
        "--move-time",
        "5s",
        "--no-sandbox",
        "--quiet",
    ];
    let (mut killed, port) = server(&args);
    let mut a = connect_bot(port, "alphabeta", alphabeta.to_str().unwrap(), "5");
    let b = piped_client(port, "random", 5);
    let deadline = Instant::now() + Duration::from_secs(60);
    while games_so_far(&out) < 2 {
        assert!(Instant::now() < deadline, "no two games in a minute");
        std::thread::sleep(Duration::from_millis(20));
    }
    killed.kill().unwrap();
    killed.wait().unwrap();
    let _ = wait_within(&mut a, Duration::from_secs(30));
    let _ = b.join();
    let before = games_so_far(&out);
    assert!(before < 6, "the tournament ended before the kill");

    let (mut resumed, port) = server(&["resume", out.to_str().unwrap(), "--quiet"]);
    // The live tables start from the games played before the kill.
    let (status, standings) = http(port, "GET", "/api/standings", None, "");
    assert_eq!(status, 200);
    let counted: u64 = (standings.as_array().unwrap().iter())
        .map(|t| t["games"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 2 * before as u64, "{standings}");
    let mut a = connect_bot(port, "alphabeta", alphabeta.to_str().unwrap(), "5");
    let b = piped_client(port, "random", 5);
    assert!(wait_within(&mut resumed, Duration::from_secs(120)).success());
    assert!(wait_within(&mut a, Duration::from_secs(30)).success());
    b.join().unwrap();
    let rows = games(&out);
    let mut ids: Vec<&str> = rows.iter().map(|r| r["game_id"].as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["1", "2", "3", "4", "5", "6"]);
    assert!(out.join("standings.md").exists());
}

fn games_so_far(out: &Path) -> usize {
    let mut text = String::new();
    if let Ok(mut f) = std::fs::File::open(out.join("games.csv")) {
        let _ = f.read_to_string(&mut text);
    }
    text.lines().count().saturating_sub(1)
}
