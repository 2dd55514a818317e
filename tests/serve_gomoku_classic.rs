//! The Gomoku game server's routes on `arena serve gomoku` (issue 21): clients written the
//! way a course's students write them (join, poll `check_game` until `ready`, play on
//! `current_turn`, stop on `winner`) play whole games against each other and against a local
//! bot, one of them registered by its first join (`--open`), and bad requests get
//! `is_success: false`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

const SIZE: usize = 15;

/// A `GET` of `path` on the server: the JSON answer (with status 200, as the clients read).
fn get(port: u16, path: &str) -> Value {
    let (status, body) = http(port, "GET", path, None, "");
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

/// A password as the course's clients send it: a hex string (their RSA-encoded password).
fn password(name: &str) -> String {
    name.bytes()
        .map(|b| format!("{:02x}", b ^ 0x5a))
        .collect::<String>()
        + "9f3c"
}

/// Where a client would play on `board` (the moves run together, two letters each): the
/// empty point that makes its longest row, nearest the centre first.
fn choose(board: &str, mine: usize) -> String {
    let mut grid = [[None::<usize>; SIZE]; SIZE];
    for (i, mv) in board.as_bytes().chunks(2).enumerate() {
        grid[usize::from(mv[0] - b'a')][usize::from(mv[1] - b'a')] = Some(i % 2);
    }
    let run = |r: usize, c: usize, dr: isize, dc: isize| {
        let mut n = 0;
        for sign in [1, -1] {
            for k in 1..5 {
                let (rr, cc) = (r as isize + sign * k * dr, c as isize + sign * k * dc);
                let inside = (0..SIZE as isize).contains(&rr) && (0..SIZE as isize).contains(&cc);
                if !inside || grid[rr as usize][cc as usize] != Some(mine) {
                    break;
                }
                n += 1;
            }
        }
        n
    };
    let mut best = (0, usize::MAX, String::new());
    let empty = (0..SIZE * SIZE).map(|i| (i / SIZE, i % SIZE));
    for (r, c) in empty.filter(|&(r, c)| grid[r][c].is_none()) {
        let score = [(0, 1), (1, 0), (1, 1), (1, -1)]
            .iter()
            .map(|&(dr, dc)| run(r, c, dr, dc))
            .max()
            .unwrap();
        let distance = r.abs_diff(7) + c.abs_diff(7);
        if best.2.is_empty() || score > best.0 || (score == best.0 && distance < best.1) {
            let coord = format!("{}{}", (b'a' + r as u8) as char, (b'a' + c as u8) as char);
            best = (score, distance, coord);
        }
    }
    best.2
}

/// A course client: joins, polls `check_game` until it is ready, plays on its turn, stops on
/// a winner, and joins again until the server has no more games for it. The games it
/// played, each with its winner.
fn course_client(port: u16, user: &str, poll: Duration) -> Vec<(u64, String)> {
    let pass = password(user);
    let mut played = Vec::new();
    loop {
        let joined = get(
            port,
            &format!("/join_game/?user={user}&password={pass}&data_type=json"),
        );
        if joined["is_success"] != true {
            let error = joined["error"].as_str().unwrap();
            assert!(error.contains("no more games"), "{user}: {joined}");
            return played;
        }
        let game = joined["game_id"].as_u64().unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        let winner = loop {
            assert!(
                Instant::now() < deadline,
                "{user}: game {game} takes too long"
            );
            let state = get(port, &format!("/check_game/{game}"));
            assert_eq!(state["is_success"], true, "{state}");
            if state["winner"] != "None" {
                // The five stones of the winner, among the board's moves.
                let (board, five) = (
                    state["board"].as_str().unwrap(),
                    state["win_step"].as_str().unwrap(),
                );
                assert!(five.len() >= 10, "{state}");
                let moves: Vec<&[u8]> = board.as_bytes().chunks(2).collect();
                let last = moves.len() - 1;
                for stone in five.as_bytes().chunks(2) {
                    let at = moves.iter().position(|m| *m == stone).unwrap();
                    assert_eq!(at % 2, last % 2, "{state}");
                }
                assert_eq!(state["current_turn"], "None");
                break state["winner"].as_str().unwrap().to_string();
            }
            if state["ready"] == "True" && state["current_turn"] == user {
                let mine = if state["creator"] == user { 0 } else { 1 };
                let stone = if mine == 0 { "x" } else { "o" };
                assert_eq!(state["current_stone"], stone);
                assert!(state["left_time"].as_u64().unwrap() > 0, "{state}");
                let board = state["board"].as_str().unwrap();
                assert_eq!(board.len(), 2 * state["step"].as_u64().unwrap() as usize);
                let coord = choose(board, mine);
                let path = format!(
                    "/play_game/{game}?user={user}&password={pass}&data_type=json&coord={coord}"
                );
                let answer = get(port, &path);
                // `check_game` said it was this user's turn: the move is taken (not "the game
                // is over" just after the opponent's winning move, nor "not your turn").
                assert_eq!(answer["is_success"], true, "{user}: {answer} after {state}");
            }
            std::thread::sleep(poll);
        };
        played.push((game, winner));
    }
}

fn server(out: &Path, entrants: &Path) -> (std::process::Child, u16) {
    let bot = bundled("gomoku").join("random-near");
    let args = [
        "serve",
        "gomoku",
        path(&bot),
        "--entrants",
        path(entrants),
        "--open",
        "--start-when",
        "2",
        "--out",
        path(out),
        "--listen",
        "127.0.0.1:0",
        "--move-time",
        "10s",
        "--seed",
        "3",
        "--jobs",
        "3",
        "--no-sandbox",
        "--quiet",
    ];
    spawn_server(&args, false)
}

#[test]
fn course_clients_play_whole_gomoku_games_against_each_other_and_a_local_bot_issue_21() {
    require_python3();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // `ann` is listed; `bob` registers by its first join.
    let file = dir.path().join("entrants.toml");
    std::fs::write(
        &file,
        arena::serve::entrants::table("ann", &password("ann")),
    )
    .unwrap();
    let (mut child, port) = server(&out, &file);

    // Wrong or missing credentials, and bad games, are answered `is_success: false`.
    let wrong = get(port, "/join_game/?user=ann&password=00&data_type=json");
    assert_eq!(wrong["is_success"], false);
    assert!(
        wrong["error"].as_str().unwrap().contains("wrong password"),
        "{wrong}"
    );
    let missing = get(port, "/join_game/?user=ann");
    assert_eq!(missing["is_success"], false, "{missing}");
    for bad in ["/check_game/77", "/check_game/x", "/check_game/99999999999"] {
        let answer = get(port, bad);
        assert_eq!(answer["is_success"], false, "{bad}: {answer}");
        assert!(!answer["error"].as_str().unwrap().is_empty());
    }
    let move_nowhere = get(
        port,
        &format!(
            "/play_game/1?user=ann&password={}&coord=zz",
            password("ann")
        ),
    );
    assert_eq!(move_nowhere["is_success"], false, "{move_nowhere}");

    // Faster than the course's clients poll, so that a client also looks between a move and
    // the next request, and between the winning move and the result's record.
    let poll = Duration::from_millis(5);
    let ann = std::thread::spawn(move || course_client(port, "ann", poll));
    let bob = std::thread::spawn(move || course_client(port, "bob", poll));
    let (ann, bob) = (ann.join().unwrap(), bob.join().unwrap());
    let status = wait_within(&mut child, Duration::from_secs(60));
    assert!(status.success(), "{status:?}");

    // Each played the bot twice and the other twice (colours swapped).
    assert_eq!(ann.len(), 4, "{ann:?}");
    assert_eq!(bob.len(), 4, "{bob:?}");
    let rows = games(&out);
    assert_eq!(rows.len(), 6, "{rows:?}");
    for (game, winner) in ann.iter().chain(&bob) {
        let row = (rows.iter())
            .find(|r| r["game_id"] == game.to_string())
            .unwrap_or_else(|| panic!("game {game} is not in games.csv"));
        let by_csv = match row["result"].as_str() {
            "a" => &row["bot_a"],
            "b" => &row["bot_b"],
            _ => "draw",
        };
        assert_eq!(winner, by_csv, "game {game}: {row:?}");
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
    let between = game_between(&rows, "ann", "bob");
    assert_eq!(between["reason"], "normal");
    // The first join registered bob with the hash of its password, as sent.
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(&arena::serve::entrants::table("bob", &password("bob"))));
    assert!(!text.contains(&password("bob")));
}
