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
    /// The local bots, a gauntlet's references first.
    pub bots: Vec<String>,
    /// A gauntlet's references (empty for a round robin): only games between a reference
    /// and a candidate are played.
    pub references: Vec<String>,
    /// A gauntlet's grades so far, as `grades.csv` will have them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grades: Option<Vec<GradeState>>,
}

/// A candidate's grade so far.
#[derive(Debug, Serialize)]
pub struct GradeState {
    pub candidate: String,
    /// `pass` or `fail`, on the games played so far (`-` before the candidate's first game).
    pub grade: &'static str,
    pub points: u32,
    /// The points there were to take in the games played so far.
    pub available: u32,
    /// Why it fails, empty for a pass.
    pub reason: String,
}

/// The grades of a gauntlet on the games played so far: every candidate (entrants and local
/// bots that are not references).
fn grades(api: &Api, names: &[String]) -> Option<Vec<GradeState>> {
    let field = api.field.get()?;
    let mut gauntlet = field.gauntlet.clone()?;
    let mut candidates: Vec<String> = (field.locals.iter().chain(names))
        .filter(|n| !gauntlet.references.contains(n))
        .cloned()
        .collect();
    candidates.sort();
    candidates.dedup();
    gauntlet.candidates = candidates;
    let records = api.hub.games.records();
    let table = crate::results::games::GameTable::from_records(&records);
    let grades = crate::standings::grades::compute(&table, &gauntlet);
    let closed = api.hub.status().1;
    let rows = grades.rows.into_iter().map(|g| {
        // Before its first game a candidate is not failing yet (at the end it is).
        let waiting = g.games() == 0 && !closed;
        GradeState {
            grade: if waiting { "-" } else { g.word() },
            points: g.points(),
            available: g.available(),
            reason: if waiting {
                "no game played yet".to_string()
            } else {
                g.reason()
            },
            candidate: g.candidate,
        }
    });
    Some(rows.collect())
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
    let names = hub.names();
    let field = api.field.get().cloned().unwrap_or_default();
    let references = (field.gauntlet.as_ref()).map_or_else(Vec::new, |g| g.references.clone());
    let grades = grades(&api, &names);
    let entrants = (names.into_iter().zip(slots))
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
        open: (api.registry.as_ref()).is_some_and(|r| r.is_open(hub)),
        replays: api.replays.is_some(),
        bots: field.locals,
        references,
        grades,
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
