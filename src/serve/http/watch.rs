//! What anyone may see without a token, for watchers and the web page: the tournament
//! (`GET /api/tournament`), the list of games (`GET /api/games`), a game as a watcher sees it
//! (`GET /api/games/ID` without a token: secrets hidden until it is over), a finished game's
//! replay (`GET /api/games/ID/replay`), and who a token belongs to (`GET /api/me`).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use super::super::games::{Played, Summary};
use super::{Api, ApiError};

/// `GET /api/tournament`'s answer.
#[derive(Debug, Serialize)]
pub struct Tournament {
    /// The game: `othello`, ...
    pub kind: String,
    /// The time a move may take, without the network grace.
    pub move_ms: u64,
    pub grace_ms: u64,
    /// The remote entrants and whether each has a waiting connection.
    pub entrants: Vec<EntrantState>,
    /// The tournament has started.
    pub started: bool,
    /// No more games for anyone.
    pub closed: bool,
    /// Anyone may register a name (`--open`).
    pub open: bool,
    /// Finished games have replays (`GET /api/games/ID/replay`).
    pub replays: bool,
}

#[derive(Debug, Serialize)]
pub struct EntrantState {
    pub name: String,
    /// It has a waiting connection (or join): a game may start on it.
    pub connected: bool,
    /// Games it is playing now.
    pub playing: usize,
}

/// `GET /api/tournament`.
pub async fn tournament(State(api): State<Arc<Api>>) -> Json<Tournament> {
    let hub = &api.hub;
    let (started, closed, slots) = hub.status();
    let entrants = (hub.names().into_iter().zip(slots))
        .map(|(name, (connected, playing))| EntrantState {
            name,
            connected,
            playing,
        })
        .collect();
    Json(Tournament {
        kind: hub.game.to_string(),
        move_ms: hub.move_time.as_millis() as u64,
        grace_ms: hub.grace.as_millis() as u64,
        entrants,
        started,
        closed,
        open: api.registry.is_some() && !started,
        replays: api.replays.is_some(),
    })
}

/// `GET /api/games`: every game of the tournament so far (after a resume, those of earlier runs
/// too, without their moves), friendly games included, oldest first.
pub async fn list(State(api): State<Arc<Api>>) -> Json<Vec<Summary>> {
    Json(api.hub.games.list())
}

/// A game as a watcher sees it.
#[derive(Debug, Serialize)]
struct Watched {
    game: u64,
    kind: String,
    players: [String; 2],
    opening: Vec<Played>,
    moves: Vec<Played>,
    result: Option<super::super::games::Final>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    trimmed: bool,
}

/// `GET /api/games/ID` without a token.
pub fn game(api: &Api, game: u64) -> Result<Response, ApiError> {
    let info = api.hub.games.get(game).ok_or(ApiError::NoGame)?;
    let info = info.seen_by(None);
    let watched = Watched {
        game,
        kind: api.hub.game.to_string(),
        players: info.players,
        opening: info.opening,
        moves: info.moves,
        result: info.result,
        trimmed: info.trimmed,
    };
    Ok(Json(watched).into_response())
}

/// `GET /api/games/ID/replay`: the replay file of a game that is over (JSON lines).
pub async fn replay(
    State(api): State<Arc<Api>>,
    id: Result<Path<u64>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    let game = super::play::game_id(id)?;
    if api.hub.games.is_over(game) == Some(false) {
        let why = "the game is not over: its replay comes when it is".to_string();
        return Err(ApiError::Conflict(why));
    }
    let dir = api.replays.as_ref().ok_or(ApiError::NoGame)?;
    let text = tokio::fs::read(dir.join(format!("{game}.jsonl")))
        .await
        .map_err(|_| ApiError::NoGame)?;
    let kind = "application/x-ndjson; charset=utf-8";
    Ok(([(header::CONTENT_TYPE, kind)], text).into_response())
}

/// `GET /api/me`: the name of the entrant whose token is sent, and the games it is playing
/// over HTTP (as `POST /api/join` gave them), so that a page reloaded mid-game takes its game
/// back.
pub async fn me(State(api): State<Arc<Api>>, headers: HeaderMap) -> Result<Response, ApiError> {
    let entrant = api.entrant(&headers)?;
    let name = api.hub.name(entrant);
    let games = api.playing(entrant);
    Ok(Json(serde_json::json!({ "name": name, "games": games })).into_response())
}
