//! The Gomoku game server's routes, for the clients a course's students already wrote:
//! `GET /join_game/?user=U&password=P&data_type=json` (the entrant's next game),
//! `GET /check_game/N` (anyone: the game's state) and
//! `GET /play_game/N?user=U&password=P&data_type=json&coord=RC` (a move). The same entrants,
//! hub and referee as `POST /api/join`: only the shape of the questions and answers differs.
//!
//! The password is the entrant's token as sent, never decoded (the course's clients send an
//! RSA-encoded hex string): its SHA-256 is compared with the `--entrants` file's, and with
//! `--open` the first join of an unknown user, before the start, registers it with that hash.
//! Every answer is JSON with `is_success`, and `error` when it is `false`, with status 200
//! (the clients read the body, not the status). A point is two letters `a`–`o`, row then
//! column (`hh` is the centre, `h8` to bots: row `a` is row 1).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::time::Instant;
use tower_http::timeout::TimeoutLayer;

use super::super::games::GameInfo;
use super::super::registry::Refused;
use super::register::Peer;
use super::{play, Api, ApiError};
use crate::game::gomoku::{Point, SIZE};
use crate::game::GameKind;

/// How long `/join_game/` waits for the entrant's next game before it answers
/// `is_success: false` (join again): the course's clients join once and wait.
pub const CLASSIC_JOIN_WAIT: Duration = Duration::from_secs(600);

/// The routes, with a time limit that lets a join wait for its game.
pub fn routes() -> Router<Arc<Api>> {
    Router::new()
        .route("/join_game", get(join_game))
        .route("/join_game/", get(join_game))
        .route("/check_game/{id}", get(check_game))
        .route("/check_game/{id}/", get(check_game))
        .route("/play_game/{id}", get(play_game))
        .route("/play_game/{id}/", get(play_game))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            CLASSIC_JOIN_WAIT + Duration::from_secs(30),
        ))
}

/// The query fields the routes read (others, such as `data_type`, are ignored).
#[derive(Debug, Default, Deserialize)]
pub struct Fields {
    user: Option<String>,
    password: Option<String>,
    coord: Option<String>,
}

/// `{"is_success": true, ...}`.
fn success(mut fields: Map<String, Value>) -> Response {
    fields.insert("is_success".into(), Value::Bool(true));
    fields.insert("error".into(), Value::String(String::new()));
    Json(Value::Object(fields)).into_response()
}

/// `{"is_success": false, "error": why}`.
fn failure(why: impl Into<String>) -> Response {
    Json(json!({ "is_success": false, "error": why.into() })).into_response()
}

/// What an API error says, for a classic client.
fn says(e: ApiError) -> String {
    match e {
        ApiError::Gone => "no more games for you: the tournament is over".into(),
        ApiError::NoGame => "no such game".into(),
        ApiError::Forbidden => "this game is not one of yours".into(),
        ApiError::Conflict(why) | ApiError::TooMany(why) | ApiError::Bad(_, why) => why,
        ApiError::Unauthorized | ApiError::NoRoute => "unknown user or wrong password".into(),
    }
}

/// The Gomoku routes serve only Gomoku.
fn gomoku(api: &Api) -> Result<(), String> {
    if api.hub.game == GameKind::Gomoku {
        return Ok(());
    }
    Err(format!(
        "these routes are the Gomoku server's: this server plays `{}` (see `/api/join`)",
        api.hub.game
    ))
}

/// The entrant `user` whose token is `password`; with `--open`, an unknown `user` is
/// registered with it (before the start).
fn login(api: &Api, peer: std::net::IpAddr, fields: &Fields) -> Result<usize, String> {
    let (Some(user), Some(password)) = (&fields.user, &fields.password) else {
        return Err("`user` and `password` are required".into());
    };
    if let Some(entrant) = api.hub.check(user, password) {
        return Ok(entrant);
    }
    if api.hub.names().iter().any(|n| n == user) {
        return Err(format!("wrong password for `{user}`"));
    }
    let Some(registry) = &api.registry else {
        return Err(format!("unknown user `{user}`"));
    };
    match registry.register_token(&api.hub, peer, user, password) {
        Ok(()) => {}
        Err(Refused::TooSoon(wait)) => {
            let secs = wait.as_secs().max(1);
            return Err(format!("too many registrations: try again in {secs} s"));
        }
        Err(Refused::Name(why) | Refused::Conflict(why)) => return Err(why),
        Err(Refused::Failed(why)) => {
            eprintln!("error: {why}");
            return Err("the server cannot record the entrant".into());
        }
    }
    eprintln!("{user} registered (first join)");
    api.hub
        .check(user, password)
        .ok_or_else(|| "the server cannot record the entrant".into())
}

/// The query's fields, on a Gomoku server.
fn query(api: &Api, fields: Result<Query<Fields>, QueryRejection>) -> Result<Fields, String> {
    gomoku(api)?;
    fields
        .map(|Query(f)| f)
        .map_err(|e| format!("bad query: {}", e.body_text()))
}

/// `GET /join_game/`: `{"game_id": N}` once the entrant's next game has come.
pub async fn join_game(
    State(api): State<Arc<Api>>,
    Extension(Peer(peer)): Extension<Peer>,
    fields: Result<Query<Fields>, QueryRejection>,
) -> Response {
    let fields = match query(&api, fields) {
        Ok(fields) => fields,
        Err(why) => return failure(why),
    };
    let entrant = match login(&api, peer, &fields) {
        Ok(entrant) => entrant,
        Err(why) => return failure(why),
    };
    let deadline = Instant::now() + CLASSIC_JOIN_WAIT;
    loop {
        match play::next_game(&api, entrant).await {
            Ok(Some(joined)) => {
                let mut answer = Map::new();
                answer.insert("game_id".into(), joined.game.into());
                return success(answer);
            }
            Ok(None) if Instant::now() < deadline => {}
            Ok(None) => return failure("no game for you yet: join again"),
            Err(e) => return failure(says(e)),
        }
    }
}

/// `GET /check_game/N`: the game as anyone may see it (Gomoku has no secrets).
pub async fn check_game(
    State(api): State<Arc<Api>>,
    id: Result<Path<u64>, PathRejection>,
) -> Response {
    if let Err(why) = gomoku(&api) {
        return failure(why);
    }
    let Ok(Path(game)) = id else {
        return failure("no such game: a game is a number");
    };
    let limit = api.hub.move_time + api.hub.grace;
    // Read before the game: a request pending then is still pending when the game is read
    // (only its reply changes the board), and none pending means not yet or no more.
    let awaited = play::awaited(&api, game);
    match api
        .hub
        .games
        .with(game, |info| checked(info, &awaited, limit))
    {
        Some(fields) => success(fields),
        None => failure(format!("no game {game}")),
    }
}

/// `GET /play_game/N?...&coord=RC`: the entrant's move in its game `N`.
pub async fn play_game(
    State(api): State<Arc<Api>>,
    Extension(Peer(peer)): Extension<Peer>,
    id: Result<Path<u64>, PathRejection>,
    fields: Result<Query<Fields>, QueryRejection>,
) -> Response {
    let fields = match query(&api, fields) {
        Ok(fields) => fields,
        Err(why) => return failure(why),
    };
    let Ok(Path(game)) = id else {
        return failure("no such game: a game is a number");
    };
    let entrant = match login(&api, peer, &fields) {
        Ok(entrant) => entrant,
        Err(why) => return failure(why),
    };
    let coord = fields.coord.unwrap_or_default();
    let Some(mv) = point(&coord) else {
        return failure(format!(
            "`coord` is two letters `a`-`o`, row then column (like `hh`), not `{coord}`"
        ));
    };
    match play::send_move(&api, entrant, game, &mv.to_string()) {
        Ok(()) => {
            let mut answer = Map::new();
            answer.insert("game_id".into(), game.into());
            answer.insert("coord".into(), coord.to_ascii_lowercase().into());
            success(answer)
        }
        Err(e) => failure(says(e)),
    }
}

/// A point as the clients write it: row letter, then column letter.
fn letters(point: Point) -> [char; 2] {
    let letter = |i: usize| char::from(b'a' + i as u8);
    [letter(point.y()), letter(point.x())]
}

/// The point of two letters `RC`.
fn point(coord: &str) -> Option<Point> {
    let coord = coord.trim().to_ascii_lowercase();
    let &[row, column] = coord.as_bytes() else {
        return None;
    };
    let index = |b: u8| b.checked_sub(b'a').map(usize::from);
    Point::new(index(column)?, index(row)?)
}

/// The fields of `/check_game/N` from a game's state (under the games' lock: one pass over
/// its moves, nothing copied but the answer). `awaited`: the players who play over HTTP,
/// each with whether its move is awaited ([`play::awaited`]).
fn checked(info: &GameInfo, awaited: &[(String, bool)], limit: Duration) -> Map<String, Value> {
    let mut grid = [None::<bool>; SIZE * SIZE];
    let mut board = String::with_capacity(2 * (info.opening.len() + info.moves.len()));
    let mut last = None;
    for played in info.opening.iter().chain(&info.moves) {
        let Some(p) = played.mv.as_deref().and_then(|m| m.parse::<Point>().ok()) else {
            continue;
        };
        grid[p.index()] = Some(played.seat == "first");
        board.extend(letters(p));
        last = Some(p);
    }
    let step = board.len() / 2;
    let players = &info.players;
    let (winner, to_move) = match &info.result {
        Some(result) => match result.winner {
            "first" => (players[0].as_str(), None),
            "second" => (players[1].as_str(), None),
            _ => ("draw", None),
        },
        // Black (the first seat) moves on even steps: Gomoku never passes.
        None => ("None", Some(step % 2)),
    };
    // A player over HTTP has the turn only once the game asks it for its move: between the
    // last move and its request, or between the winning move and the result's record (the
    // game no longer listens to its players), it is nobody's turn yet.
    let to_move = to_move.filter(|&seat| {
        (awaited.iter())
            .find(|(name, _)| *name == players[seat])
            .is_none_or(|&(_, pending)| pending)
    });
    let stone = |seat: usize| if seat == 0 { "x" } else { "o" };
    let left = limit.saturating_sub(info.moved_at.elapsed()).as_secs();
    let won = (info.result.as_ref())
        .filter(|r| r.reason == crate::results::games::Reason::Normal && r.winner != "draw");
    let win_step: String = match (won, last) {
        (Some(_), Some(last)) => five(&grid, last).into_iter().flat_map(letters).collect(),
        _ => String::new(),
    };
    let mut fields = Map::new();
    let mut put = |key: &str, value: Value| {
        fields.insert(key.to_string(), value);
    };
    put("step", step.into());
    put("creator", players[0].clone().into());
    put("creator_name", players[0].clone().into());
    put("creator_stone", "x".into());
    put("opponent", players[1].clone().into());
    put("opponent_name", players[1].clone().into());
    put("opponent_stone", "o".into());
    put("ready", "True".into());
    put(
        "current_turn",
        to_move.map_or("None", |s| players[s].as_str()).into(),
    );
    put("current_stone", to_move.map_or("None", stone).into());
    put("left_time", to_move.map_or(0, |_| left).into());
    put("winner", winner.into());
    put("board", board.into());
    let last_step: String = last.map(letters).into_iter().flatten().collect();
    put("last_step", last_step.into());
    put("win_step", win_step.into());
    fields
}

/// The row of five or more through `last` (the winning stone) in `grid`, if there is one.
fn five(grid: &[Option<bool>; SIZE * SIZE], last: Point) -> Vec<Point> {
    let colour = grid[last.index()];
    let at = |x: isize, y: isize| {
        let p = Point::new(usize::try_from(x).ok()?, usize::try_from(y).ok()?)?;
        (grid[p.index()] == colour).then_some(p)
    };
    for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
        let (x, y) = (last.x() as isize, last.y() as isize);
        let back = (1..).map_while(|i| at(x - dx * i, y - dy * i)).count() as isize;
        let row: Vec<Point> = (-back..)
            .map_while(|i| at(x + dx * i, y + dy * i))
            .collect();
        if row.len() >= 5 {
            return row;
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_is_row_then_column_and_row_a_is_row_1() {
        let h8: Point = "h8".parse().unwrap();
        assert_eq!(letters(h8), ['h', 'h']);
        let c1: Point = "c1".parse().unwrap();
        assert_eq!(letters(c1), ['a', 'c']);
        assert_eq!(point("ac"), Some(c1));
        assert_eq!(point("HH"), Some(h8));
        assert_eq!(point("pa"), None);
        assert_eq!(point("h8"), None);
        assert_eq!(point("hhh"), None);
    }

    #[test]
    fn the_winning_row_is_found_through_the_last_stone() {
        let mut grid = [None; SIZE * SIZE];
        let stones: Vec<Point> = (3..8).map(|x| Point::new(x, x).unwrap()).collect();
        for p in &stones {
            grid[p.index()] = Some(true);
        }
        grid[Point::new(0, 0).unwrap().index()] = Some(false);
        assert_eq!(five(&grid, stones[2]), stones);
        assert!(five(&grid, Point::new(0, 0).unwrap()).is_empty());
    }
}
