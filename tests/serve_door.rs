//! No one client can hold `arena serve` (issue 17): a flood of idle and half-finished
//! connections from one address leaves the page, the API and other addresses' entrants
//! alone, and that address gets its places back after the time-outs; flooding one door (the
//! line protocol or HTTP) from many addresses leaves the other open; a remote bot that reads
//! its request, drops and reconnects loses its game within the move's time; `arena connect`
//! waits and tries again, stops naming its bot when the bot cannot start, and takes a server
//! that closes after its games as the end.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::*;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// A TCP connection to the server on `127.0.0.1:port` from the loopback address `source`
/// (all of `127.0.0.0/8` is loopback on Linux); `None` if refused.
fn dial_from(source: [u8; 4], port: u16) -> Option<TcpStream> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let rt = RUNTIME.get_or_init(|| {
        (tokio::runtime::Builder::new_current_thread().enable_io())
            .build()
            .unwrap()
    });
    let stream = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::from((source, 0))).unwrap();
        socket
            .connect(SocketAddr::from(([127, 0, 0, 1], port)))
            .await
    });
    let stream = stream.ok()?.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    Some(stream)
}

/// Opens `count` connections from `source`, each sending `bytes` and then nothing.
fn flood(source: [u8; 4], port: u16, count: usize, bytes: &[u8]) -> Vec<TcpStream> {
    (0..count)
        .map(|_| {
            let mut s = dial_from(source, port).expect("the server is listening");
            s.write_all(bytes).unwrap();
            s
        })
        .collect()
}

/// The first line that comes on `s` within `within` (empty if none, or at its end).
fn first_line(s: &TcpStream, within: Duration) -> String {
    s.set_read_timeout(Some(within)).unwrap();
    let mut line = String::new();
    let _ = BufReader::new(s).read_line(&mut line);
    line.trim_end().to_string()
}

/// `GET path` from `source`: the status (0 when no HTTP answer came).
fn get_from(source: [u8; 4], port: u16, path: &str) -> u16 {
    let Some(mut s) = dial_from(source, port) else {
        return 0;
    };
    let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let _ = s.write_all(request.as_bytes());
    let mut back = Vec::new();
    let _ = s.read_to_end(&mut back);
    let text = String::from_utf8_lossy(&back);
    let status = text.strip_prefix("HTTP/1.1 ").and_then(|t| t.get(..3));
    status.and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// `HELLO` from `source`: the connection (read through a buffer) and the server's answer.
fn hello_from(source: [u8; 4], port: u16, name: &str) -> (BufReader<TcpStream>, String) {
    let mut s = dial_from(source, port).expect("the server is listening");
    let _ = s.write_all(format!("HELLO {name} token-{name}\n").as_bytes());
    let mut reader = BufReader::new(s);
    let mut answer = String::new();
    let _ = reader.read_line(&mut answer);
    (reader, answer.trim_end().to_string())
}

/// A Morra entrant from `source`: one connection per game, `1 1` to every request, until
/// `END`; the games it played.
fn entrant(source: [u8; 4], port: u16, name: &str) -> usize {
    let mut games = 0;
    loop {
        let (mut reader, ok) = hello_from(source, port, name);
        assert!(ok.starts_with(&format!("OK {name} morra")), "{ok}");
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line.trim_end() == "END" {
            return games;
        }
        assert!(line.starts_with("GAME "), "{line}");
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            reader.get_mut().write_all(b"1 1\n").unwrap();
        }
        games += 1;
    }
}

fn serve_morra(dir: &Path, names: &[&str], extra: &[&str]) -> (std::process::Child, u16) {
    let file = entrants(dir, names);
    let out = dir.join("out");
    let constant = fixtures("morra").join("constant");
    let mut args = vec![
        "serve",
        "morra",
        "--gauntlet",
        path(&constant),
        "--morra-rounds",
        "5",
        "--listen",
        "127.0.0.1:0",
        "--entrants",
        path(&file),
        "--out",
        path(&out),
        "--no-sandbox",
        "--quiet",
    ];
    args.extend(extra);
    spawn_server(&args, false)
}

const FLOODER: [u8; 4] = [127, 0, 0, 1];
const VISITOR: [u8; 4] = [127, 0, 0, 2];

#[test]
fn a_flood_from_one_address_locks_out_neither_the_page_nor_other_entrants_and_expires_issue_17() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut server, port) = serve_morra(tmp.path(), &["real"], &["--stay"]);

    // One address fills each door: half a `HELLO`, half an HTTP request, and silence.
    let lines = flood(FLOODER, port, 300, b"HELLO real");
    let http = flood(FLOODER, port, 300, b"GET / HTTP/1.1\r\nHost: x\r\n");
    let silent = flood(FLOODER, port, 300, b"");
    // Past its share, that address is turned away at once, each door in its own words.
    let said = first_line(&lines[299], Duration::from_secs(5));
    assert!(
        said.starts_with("ERROR the server is busy: too many connections from your address"),
        "{said}"
    );
    let said = first_line(&http[299], Duration::from_secs(5));
    assert!(said.starts_with("HTTP/1.1 503"), "{said}");
    let said = first_line(&silent[299], Duration::from_secs(5));
    assert!(said.starts_with("ERROR the server is busy"), "{said}");

    // Meanwhile another address sees the page and the API, and its entrant plays its game.
    assert_eq!(get_from(VISITOR, port, "/"), 200);
    assert_eq!(get_from(VISITOR, port, "/api/tournament"), 200);
    let player = std::thread::spawn(move || entrant(VISITOR, port, "real"));
    assert_eq!(player.join().unwrap(), 1);
    // (The entrant may hear `END` a moment before the game is written.)
    let written = Instant::now() + Duration::from_secs(20);
    let games_csv = tmp.path().join("out/games.csv");
    while !std::fs::read_to_string(&games_csv).is_ok_and(|t| t.lines().count() == 2) {
        assert!(Instant::now() < written, "the game was not written");
        std::thread::sleep(Duration::from_millis(100));
    }
    let rows = games(&tmp.path().join("out"));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["reason"], "normal", "{rows:?}");

    // The flooding address gets its places back once its connections time out (the first
    // bytes' within a few seconds, the `HELLO` line's and the headers' within 10 s)...
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let (_, said) = hello_from(FLOODER, port, "real");
        let page = get_from(FLOODER, port, "/");
        if said.starts_with("OK real morra") && page == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "still refused: {said}, {page}");
        std::thread::sleep(Duration::from_millis(500));
    }
    drop((lines, http, silent));
    // ... and silence is cut short: not the 10 s a `HELLO` line may take.
    let started = Instant::now();
    let quiet = dial_from(FLOODER, port).unwrap();
    let said = first_line(&quiet, Duration::from_secs(20));
    let took = started.elapsed();
    assert_eq!(said, "ERROR no `HELLO <name> <token>` line in time");
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(8),
        "{took:?}"
    );

    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn flooding_one_door_from_many_addresses_leaves_the_other_open_issue_17() {
    let tmp = tempfile::tempdir().unwrap();
    // (`absent` never comes: the tournament does not start.)
    let (mut server, port) = serve_morra(tmp.path(), &["real", "absent"], &[]);
    // Ten addresses, each with as many half-sent requests as it may hold: more than the
    // HTTP door's places in all.
    let many = |first: u8, bytes: &[u8]| -> Vec<TcpStream> {
        (first..first + 10)
            .flat_map(|a| flood([127, 0, 0, a], port, 40, bytes))
            .collect()
    };
    let http = many(10, b"GET / HTTP/1.1\r\nHost: x\r\n");
    // (The server may still be taking the flood in.)
    let full = Instant::now() + Duration::from_secs(5);
    while get_from(VISITOR, port, "/api/tournament") != 503 {
        assert!(
            Instant::now() < full,
            "the flood did not fill the HTTP door"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (_, said) = hello_from(VISITOR, port, "real");
    assert!(said.starts_with("OK real morra"), "{said}");
    drop(http);
    let deadline = Instant::now() + Duration::from_secs(20);
    while get_from(VISITOR, port, "/api/tournament") != 200 {
        assert!(Instant::now() < deadline, "the HTTP door stayed full");
        std::thread::sleep(Duration::from_millis(200));
    }

    // The line protocol's door, full: the page and the API still answer.
    let lines = many(20, b"HELLO real");
    let full = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, said) = hello_from(VISITOR, port, "real");
        if said.starts_with("ERROR the server is busy: try again later") {
            break;
        }
        assert!(
            Instant::now() < full,
            "the flood did not fill the line door: {said}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(get_from(VISITOR, port, "/"), 200);
    assert_eq!(get_from(VISITOR, port, "/api/tournament"), 200);
    drop(lines);

    let _ = server.kill();
    let _ = server.wait();
}

/// A client that reads its request, drops the connection and connects again (after
/// `pause`), until `END` or the server is gone; how many requests it read.
fn dropper(port: u16, name: &'static str, pause: Duration) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut requests = 0;
        let started = Instant::now();
        // The old server never ends such a game: give up with the test.
        while started.elapsed() < Duration::from_secs(120) {
            let Some(s) = dial_from(FLOODER, port) else {
                break;
            };
            let mut s = s;
            let _ = s.write_all(format!("HELLO {name} token-{name}\n").as_bytes());
            let mut reader = BufReader::new(s);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            if !line.starts_with("OK ") {
                break;
            }
            line.clear();
            let _ = reader.read_line(&mut line);
            if !line.starts_with("GAME ") {
                break;
            }
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) > 0 {
                requests += 1;
            }
            drop(reader);
            std::thread::sleep(pause);
        }
        requests
    })
}

#[test]
fn a_remote_bot_that_drops_and_reconnects_loses_its_game_within_the_move_time_issue_17() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut server, port) = serve_morra(
        tmp.path(),
        &["hasty", "lingering"],
        &["--move-time", "1s", "--network-grace", "1s", "--jobs", "2"],
    );
    // One comes back at once (it runs out of reconnections), the other after a while (its
    // move's clock runs out first: 2 s, where 10 reconnections take 4 s).
    let hasty = dropper(port, "hasty", Duration::ZERO);
    let lingering = dropper(port, "lingering", Duration::from_millis(400));
    let status = wait_within(&mut server, Duration::from_secs(60));
    assert!(status.success(), "{status}");
    assert!(hasty.join().unwrap() > 5);
    assert!(lingering.join().unwrap() > 2);

    let rows = games(&tmp.path().join("out"));
    assert_eq!(rows.len(), 2, "{rows:?}");
    for (name, reason) in [("hasty", "crash"), ("lingering", "timeout")] {
        let row = game_between(&rows, name, "constant");
        assert_eq!(culprit(row), Some(name), "{row:?}");
        assert_eq!(row["reason"], reason, "{row:?}");
        // Move time and grace (2 s), with a generous margin for a busy machine.
        let ms: u64 = row["duration_ms"].parse().unwrap();
        assert!(ms < 6000, "{row:?}");
    }
    let hasty = game_between(&rows, "hasty", "constant");
    assert!(hasty["detail"].contains("more than 10 times"), "{hasty:?}");
}

fn connect(port: u16, name: &str, bot: &Path) -> std::process::Child {
    Command::new(ARENA)
        .args(["connect", &format!("127.0.0.1:{port}"), "--name", name])
        .args(["--token", &format!("token-{name}")])
        .arg(bot)
        .arg("--no-sandbox")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn stderr_of(child: &mut std::process::Child) -> String {
    let mut text = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    text
}

#[test]
fn arena_connect_stops_naming_its_bot_when_the_bot_cannot_start_issue_17() {
    require_perl();
    let tmp = tempfile::tempdir().unwrap();
    // Its command's script is missing: perl exits at once, at every start.
    let bot = tmp.path().join("scriptless");
    std::fs::create_dir(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "command = \"perl missing.pl\"\nprotocol = \"lines\"\n",
    )
    .unwrap();
    let (mut server, port) = serve_morra(tmp.path(), &["broken"], &[]);
    let mut client = connect(port, "broken", &bot);
    let status = wait_within(&mut client, Duration::from_secs(60));
    let said = stderr_of(&mut client);
    assert!(!status.success(), "{said}");
    assert!(
        said.contains("error: bot `scriptless` cannot start: "),
        "{said}"
    );
    // The server loses that game for it and ends.
    assert!(wait_within(&mut server, Duration::from_secs(60)).success());
    let rows = games(&tmp.path().join("out"));
    assert_eq!(culprit(&rows[0]), Some("broken"), "{rows:?}");
}

#[test]
fn arena_connect_waits_for_a_late_server_issue_17() {
    let tmp = tempfile::tempdir().unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut client = connect(port, "early", &fixtures("morra").join("echo-lines"));
    std::thread::sleep(Duration::from_millis(1500));
    let file = entrants(tmp.path(), &["early"]);
    let out = tmp.path().join("out");
    let constant = fixtures("morra").join("constant");
    let listen = format!("127.0.0.1:{port}");
    let (mut server, _) = spawn_server(
        &[
            "serve",
            "morra",
            "--gauntlet",
            path(&constant),
            "--morra-rounds",
            "5",
            "--listen",
            &listen,
            "--entrants",
            path(&file),
            "--out",
            path(&out),
            "--no-sandbox",
            "--quiet",
        ],
        false,
    );
    let status = wait_within(&mut client, Duration::from_secs(60));
    let said = stderr_of(&mut client);
    assert!(status.success(), "{said}");
    assert!(said.contains("trying again"), "{said}");
    assert!(said.contains("played 1 game"), "{said}");
    assert!(wait_within(&mut server, Duration::from_secs(30)).success());
    assert_eq!(games(&out)[0]["reason"], "normal");
}

#[test]
fn arena_connect_takes_a_server_that_closes_after_its_games_as_the_end_issue_17() {
    // A server that plays one game (and tells its result to `arena connect`'s `GET`), then,
    // ending, closes the next connection after `OK` without a word, then is gone.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let mut replies = Vec::new();
        let mut i = 0;
        for stream in listener.incoming() {
            let stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut writer = stream;
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.starts_with("GET /api/games/1 ") {
                let body = r#"{"players":["solo","other"],"result":{"winner":"first","reason":"normal","scores":[1,0]}}"#;
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                writer.write_all(answer.as_bytes()).unwrap();
                continue;
            }
            assert_eq!(line, "HELLO solo token-solo moves\n");
            i += 1;
            writer.write_all(b"OK solo morra\n").unwrap();
            if i == 2 {
                break;
            }
            writer
                .write_all(b"GAME 1 morra other first 1000\n1 - -\n")
                .unwrap();
            line.clear();
            reader.read_line(&mut line).unwrap();
            replies.push(line.trim_end().to_string());
        }
        replies
    });
    let mut client = connect(port, "solo", &fixtures("morra").join("echo-lines"));
    let status = wait_within(&mut client, Duration::from_secs(60));
    let said = stderr_of(&mut client);
    assert!(status.success(), "{said}");
    assert!(said.contains("game 1 against `other`: won 1–0"), "{said}");
    assert!(said.contains("played 1 game: 1 won"), "{said}");
    assert_eq!(server.join().unwrap(), ["1 2"]);
}
