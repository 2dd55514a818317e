//! `arena serve`'s HTTP front door over loopback (issue 12): an HTTP client joins, polls and
//! plays Othello through the JSON API while a TCP client plays its games in the same
//! tournament, an event stream follows it, and hostile requests and random bytes on both
//! protocols get errors or closed connections while a fair client finishes and `games.csv`
//! holds only the games that were played.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// Starts `arena serve othello --gauntlet greedy` for `names`, with the port it listens on.
fn server(out: &Path, file: &Path) -> (Child, u16) {
    server_with(out, file, &[])
}

/// [`server`], with more options.
fn server_with(out: &Path, file: &Path, more: &[&str]) -> (Child, u16) {
    let greedy = bundled("othello").join("greedy");
    let (greedy, file, out) = (path(&greedy), path(file), path(out));
    let args = [
        "serve",
        "othello",
        "--gauntlet",
        greedy,
        "--entrants",
        file,
        "--out",
        out,
    ];
    let rest = ["--listen", "127.0.0.1:0", "--seed", "5", "--jobs", "2"];
    spawn_server(
        &[&args[..], &rest, &["--no-sandbox", "--quiet"], more].concat(),
        false,
    )
}

/// The bundled `random` Othello bot as a process: a request line in, a reply line out.
struct Brain {
    process: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl Brain {
    fn start(seed: u64) -> Brain {
        let mut process = Command::new("/usr/bin/python3")
            .arg("bot.py")
            .current_dir(bundled("othello").join("random"))
            .env("ARENA_SEED", seed.to_string())
            .env("ARENA_GAME", "othello")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let to = process.stdin.take().unwrap();
        let from = BufReader::new(process.stdout.take().unwrap());
        Brain { process, to, from }
    }

    fn reply(&mut self, request: &str) -> String {
        writeln!(self.to, "{request}").unwrap();
        let mut reply = String::new();
        self.from.read_line(&mut reply).unwrap();
        reply.trim().to_string()
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Plays over HTTP until the tournament has no more games for `name`: the games played.
/// `spy`: another entrant, who may not see these games.
fn http_client(port: u16, name: &str, spy: &str) -> Vec<u64> {
    http_player(port, name, Some(spy), None)
}

/// [`http_client`]; after its first game it waits for `gate` before it joins again.
fn http_player(
    port: u16,
    name: &str,
    spy: Option<&str>,
    gate: Option<std::sync::mpsc::Receiver<()>>,
) -> Vec<u64> {
    let token = format!("token-{name}");
    let mut played = Vec::new();
    loop {
        if played.len() == 1 {
            if let Some(gate) = &gate {
                gate.recv().unwrap();
            }
        }
        let (status, joined) = http(port, "POST", "/api/join", Some(&token), "");
        match status {
            204 => continue,
            // Gone, or the server is done and gone before it could say so.
            410 | 0 => return played,
            200 => {}
            _ => panic!("join: {status} {joined}"),
        }
        let id = joined["game"].as_u64().unwrap();
        assert_eq!(joined["kind"], "othello");
        assert!(joined["move_ms"].as_u64().unwrap() > 0);
        let mut brain = Brain::start(id);
        let path = format!("/api/games/{id}");
        if let Some(spy) = spy {
            assert_eq!(joined["opponent"], "greedy");
            let (status, _) = http(port, "GET", &path, Some(&format!("token-{spy}")), "");
            assert_eq!(status, 403, "another entrant's game");
            let (status, _) = http(port, "GET", &path, Some("token-nobody"), "");
            assert_eq!(status, 401);
        }
        loop {
            let (status, state) = http(port, "GET", &path, Some(&token), "");
            assert_eq!(status, 200, "{state}");
            match state["turn"].as_str().unwrap() {
                "over" => break,
                "you" => {
                    let mv = brain.reply(state["request"].as_str().unwrap());
                    let body = serde_json::json!({ "move": mv }).to_string();
                    let (status, after) =
                        http(port, "POST", &format!("{path}/move"), Some(&token), &body);
                    assert_eq!(status, 200, "{after}");
                }
                _ => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        played.push(id);
    }
}

/// Plays over TCP with the `random` bot, one connection per game: the games played.
fn tcp_client(port: u16, name: &str) -> Vec<u64> {
    let mut played = Vec::new();
    loop {
        let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) else {
            return played;
        };
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut w = stream.try_clone().unwrap();
        let mut r = BufReader::new(stream);
        let mut line = || {
            let mut l = String::new();
            let _ = r.read_line(&mut l);
            l.trim_end().to_string()
        };
        let _ = writeln!(w, "HELLO {name} token-{name}");
        let ok = line();
        if ok.is_empty() {
            return played;
        }
        assert!(ok.starts_with("OK "), "{ok}");
        let header = line();
        if header == "END" || header.is_empty() {
            return played;
        }
        let id: u64 = header.split(' ').nth(1).unwrap().parse().unwrap();
        let mut brain = Brain::start(id);
        loop {
            let request = line();
            if request.is_empty() {
                break;
            }
            let _ = writeln!(w, "{}", brain.reply(&request));
        }
        played.push(id);
    }
}

/// The event names of a server-sent event stream, read until the server goes.
fn event_names(port: u16) -> std::thread::JoinHandle<Vec<String>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(90)))
        .unwrap();
    let request = "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n";
    stream.write_all(request.as_bytes()).unwrap();
    std::thread::spawn(move || {
        let lines = BufReader::new(stream).lines();
        lines
            .map_while(Result::ok)
            .filter_map(|l| l.strip_prefix("event: ").map(str::to_string))
            .collect()
    })
}

#[test]
fn an_http_client_and_a_tcp_client_play_a_tournament_against_a_local_bot_issue_12() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let file = entrants(tmp.path(), &["web", "sock"]);
    let out = tmp.path().join("out");
    let (mut server, port) = server(&out, &file);
    let events = event_names(port);
    let web = std::thread::spawn(move || http_client(port, "web", "sock"));
    let sock = std::thread::spawn(move || tcp_client(port, "sock"));
    let (web, sock) = (web.join().unwrap(), sock.join().unwrap());
    assert!(wait_within(&mut server, Duration::from_secs(120)).success());
    assert_eq!((web.len(), sock.len()), (2, 2), "{web:?} {sock:?}");
    let rows = games(&out);
    assert_eq!(rows.len(), 4);
    for id in web {
        let row = rows
            .iter()
            .find(|r| r["game_id"] == id.to_string())
            .unwrap();
        assert!(row["bot_a"] == "web" || row["bot_b"] == "web", "{row:?}");
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
    assert!(rows.iter().all(|r| r["reason"] == "normal"), "{rows:?}");
    let events = events.join().unwrap();
    for name in ["started", "game_started", "move", "game_over", "standings"] {
        assert!(
            events.iter().any(|e| e == name),
            "no `{name}` in {events:?}"
        );
    }
}

#[test]
fn friendly_games_against_a_local_bot_and_between_entrants_stay_out_of_the_tournament_issue_12() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let file = entrants(tmp.path(), &["web", "amy"]);
    let out = tmp.path().join("out");
    // The tournament starts when both are connected.
    let more = ["--start-when", "2", "--network-grace", "20s"];
    let (mut server, port) = server_with(&out, &file, &more);
    let web_token = Some("token-web");
    let post = |path: &str, token: Option<&str>, body: &str| http(port, "POST", path, token, body);

    // Friendly games may be asked for once the bots are ready, before the start.
    let deadline = Instant::now() + Duration::from_secs(20);
    while http(port, "GET", "/api/rooms", None, "").1["open"] != true {
        assert!(Instant::now() < deadline, "the rooms never opened");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (_, rooms) = http(port, "GET", "/api/rooms", None, "");
    assert_eq!(rooms["bots"], serde_json::json!(["greedy"]));

    // web plays greedy, second, before the start; its player waits after that game.
    let vs_bot_body = r#"{"bot":"greedy","seat":"second"}"#;
    let (status, vs_bot) = post("/api/rooms", web_token, vs_bot_body);
    assert_eq!(status, 201, "{vs_bot}");
    let first = vs_bot["game"].as_u64().unwrap();
    assert!(first > 1_000_000_000);
    let (go, gate) = std::sync::mpsc::channel();
    let web = std::thread::spawn(move || http_player(port, "web", None, Some(gate)));
    let path = format!("/api/games/{first}");
    while http(port, "GET", &path, None, "").1["result"].is_null() {
        assert!(
            Instant::now() < deadline + Duration::from_secs(40),
            "no friendly game"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (_, info) = http(port, "GET", "/api/tournament", None, "");
    assert_eq!(info["started"], false, "{info}");

    // Then web hosts a room.
    let (status, body) = post("/api/rooms", web_token, r#"{"bot":"nobody"}"#);
    assert_eq!(status, 404, "{body}");
    let (status, body) = post("/api/rooms", None, "");
    assert_eq!(status, 401, "{body}");
    let (status, hosted) = post("/api/rooms", web_token, "");
    assert_eq!(status, 201, "{hosted}");
    let room = hosted["room"].as_u64().unwrap();
    let (status, second) = post("/api/rooms", web_token, "{}");
    assert_eq!(status, 201, "{second}");
    let (status, body) = post("/api/rooms", web_token, "");
    assert_eq!(status, 429, "two friendly games at most: {body}");
    let second = format!("/api/rooms/{}", second["room"]);
    assert_eq!(http(port, "DELETE", &second, web_token, "").0, 204);
    let join = format!("/api/rooms/{room}/join");
    let (status, body) = post(&join, web_token, "");
    assert_eq!(status, 409, "one's own room: {body}");
    let (_, rooms) = http(port, "GET", "/api/rooms", None, "");
    assert_eq!(
        rooms["rooms"],
        serde_json::json!([{ "room": room, "host": "web" }])
    );
    go.send(()).unwrap();

    // amy comes and joins the room.
    let amy = std::thread::spawn(move || http_player(port, "amy", None, None));
    let (status, vs_amy) = post(&join, Some("token-amy"), "");
    assert_eq!(status, 200, "{vs_amy}");
    let (status, _) = http(port, "DELETE", &format!("/api/rooms/{room}"), web_token, "");
    assert_eq!(status, 404, "the room was taken");

    let (web, amy) = (web.join().unwrap(), amy.join().unwrap());
    assert_eq!(web[0], first, "the friendly game came first: {web:?}");
    assert!(wait_within(&mut server, Duration::from_secs(120)).success());
    let friendly = [&vs_bot["game"], &vs_amy["game"]].map(|g| g.as_u64().unwrap());
    assert_eq!(
        web.len(),
        4,
        "two games of the tournament, two friendly: {web:?}"
    );
    assert_eq!(amy.len(), 3, "{amy:?}");
    assert!(friendly.iter().all(|g| web.contains(g)) && amy.contains(&friendly[1]));

    // The tournament's files have its four games only; friendly.csv the other two.
    let rows = games(&out);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r["reason"] == "normal"), "{rows:?}");
    let standings = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    for played in [",web,2,", ",amy,2,", ",greedy,4,"] {
        assert!(standings.contains(played), "{played} in {standings}");
    }
    let text = std::fs::read_to_string(out.join("friendly.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let vs_bot_row = format!("{},othello,greedy,web,", friendly[0]);
    let vs_amy_row = format!("{},othello,web,amy,", friendly[1]);
    assert!(text.contains(&vs_bot_row), "{text}");
    assert!(text.contains(&vs_amy_row), "{text}");
    for id in friendly {
        assert!(out.join(format!("replays/{id}.jsonl")).exists());
    }
}

/// A small seeded generator (xorshift).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// A hostile request: random bytes, or HTTP with random paths, tokens and bodies.
fn hostile(rng: &mut Random) -> Vec<u8> {
    let n = rng.below(300) as usize;
    let garbage = rng.bytes(n);
    let tokens = [
        "",
        "Authorization: Bearer nope\r\n",
        "Authorization: Basic x\r\n",
    ];
    let token = tokens[rng.below(3) as usize];
    let paths = [
        "/api/join",
        "/api/games/1",
        "/api/games/99/move",
        "/api/games/x",
        "/",
        "/api/events/../join",
        "/api/register",
        "/api/games",
        "/api/games/1/replay",
        "/api/games/0/replay/../../x",
        "/api/tournament",
        "/api/me",
        "/assets/live.js",
        "/api/rooms",
        "/api/rooms/1/join",
    ];
    let path = paths[rng.below(paths.len() as u64) as usize];
    let body = String::from_utf8_lossy(&garbage).to_string();
    match rng.below(6) {
        0 => garbage,
        1 => [b"HELLO ".as_slice(), &garbage].concat(),
        2 => [b"GET ".as_slice(), &garbage].concat(),
        3 => format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\n{token}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
        4 => format!("POST {path} HTTP/1.1\r\nHost: x\r\n{token}Content-Length: 5\r\n\r\n{body}")
            .into_bytes(),
        _ => format!("GET {path} HTTP/1.1\r\n{}\r\n\r\n", body.replace('\n', " ")).into_bytes(),
    }
}

#[test]
fn hostile_clients_on_both_protocols_leave_a_fair_client_playing_and_games_csv_true_issue_12() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let file = entrants(tmp.path(), &["fair", "mallory"]);
    let out = tmp.path().join("out");
    let (mut server, port) = server(&out, &file);
    // A slow client that never finishes its headers is cut off.
    let slow = std::thread::spawn(move || {
        let started = Instant::now();
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(b"GET /api/events HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        let mut back = Vec::new();
        let _ = s.read_to_end(&mut back);
        started.elapsed()
    });
    // The errors, each as the API says it.
    let cases: [(&str, &str, Option<&str>, &str, u16); 12] = [
        ("POST", "/api/join", None, "", 401),
        ("POST", "/api/join", Some("token-nobody"), "", 401),
        ("GET", "/api/games/424242", Some("token-mallory"), "", 404),
        (
            "POST",
            "/api/games/424242/move",
            Some("token-mallory"),
            "{\"move\":\"d3\"}",
            404,
        ),
        ("GET", "/api/nothing", None, "", 404),
        (
            "POST",
            "/api/games/1/move",
            Some("token-mallory"),
            "{\"move\":",
            400,
        ),
        (
            "POST",
            "/api/games/1/move",
            Some("token-mallory"),
            "[1, 2]",
            400,
        ),
        ("POST", "/api/games/1/move", None, "{\"move\":\"d3\"}", 401),
        (
            "POST",
            "/api/rooms",
            Some("token-mallory"),
            "{\"bot\":",
            400,
        ),
        (
            "POST",
            "/api/rooms",
            Some("token-mallory"),
            "{\"bot\":\"greedy\",\"seat\":\"left\"}",
            400,
        ),
        ("DELETE", "/api/rooms/77", Some("token-mallory"), "", 404),
        ("POST", "/api/rooms/x/join", Some("token-mallory"), "", 404),
    ];
    for (method, path, token, body, want) in cases {
        let (status, answer) = http(port, method, path, token, body);
        // Game 1 may not have started yet (404) or be someone else's (403).
        let ok =
            status == want || (path.starts_with("/api/games/1/") && [403, 404].contains(&status));
        assert!(ok, "{method} {path}: {status} {answer}");
        assert!(answer["error"].is_string(), "{method} {path}: {answer}");
    }
    // A method split over two packets: the peek at the first bytes loses none of them.
    let mut split = TcpStream::connect(("127.0.0.1", port)).unwrap();
    split
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    split.write_all(b"PO").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let rest = "ST /api/join HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    split.write_all(rest.as_bytes()).unwrap();
    let mut back = String::new();
    let _ = split.read_to_string(&mut back);
    assert!(back.starts_with("HTTP/1.1 401 "), "{back}");
    let big = format!("{{\"move\":\"{}\"}}", "x".repeat(100_000));
    let (status, _) = http(
        port,
        "POST",
        "/api/games/1/move",
        Some("token-mallory"),
        &big,
    );
    assert_eq!(status, 413);
    // Before the entrants come (the server waits for them): random bytes and requests.
    let mut rng = Random(0x5eed_1234_abcd_0001);
    for i in 0..300 {
        let bytes = hostile(&mut rng);
        let end = rng.below(2) == 0;
        let back = raw(port, &bytes, end, Duration::from_millis(100));
        assert!(
            back.is_some(),
            "the server is gone after {i} hostile connections"
        );
    }
    let cut = slow.join().unwrap();
    eprintln!("slowloris cut after {cut:?}");
    assert!(
        cut < Duration::from_secs(20),
        "a slowloris client stayed {cut:?}"
    );
    assert!(server.try_wait().unwrap().is_none(), "the server is gone");
    let fair = std::thread::spawn(move || http_client(port, "fair", "mallory"));
    let tcp_fair = std::thread::spawn(move || tcp_client(port, "mallory"));
    let (fair, mallory) = (fair.join().unwrap(), tcp_fair.join().unwrap());
    assert!(wait_within(&mut server, Duration::from_secs(120)).success());
    assert_eq!((fair.len(), mallory.len()), (2, 2));
    let rows = games(&out);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(rows.iter().all(|r| r["reason"] == "normal"), "{rows:?}");
}
