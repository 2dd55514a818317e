//! Playing over HTTP: a join waits for a game like a waiting TCP connection; the game's link
//! is then held by a [`Session`] that keeps the pending request for `GET /api/games/ID` and
//! passes `POST /api/games/ID/move` on as the reply line.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::player::remote::{Event, LinkEnd, Out, MAX_REPLY};

use super::super::games::{GameInfo, Played};
use super::super::hub::{Assignment, Hub};
use super::{Api, ApiError};

/// What a join answers: the entrant's game.
#[derive(Debug, Clone, Serialize)]
pub struct Joined {
    pub game: u64,
    /// `first` or `second`.
    pub seat: String,
    pub opponent: String,
    pub kind: String,
    /// The time a move may take, without the network grace.
    pub move_ms: u64,
}

impl Joined {
    /// Reads `GAME <id> <game> <opponent> <first|second> <move-ms> [<index>]`.
    fn parse(header: &str) -> Option<Joined> {
        let words: Vec<&str> = header.split_whitespace().collect();
        match words.as_slice() {
            ["GAME", id, kind, opponent, seat, ms, ..] => Some(Joined {
                game: id.parse().ok()?,
                seat: seat.to_string(),
                opponent: opponent.to_string(),
                kind: kind.to_string(),
                move_ms: ms.parse().ok()?,
            }),
            _ => None,
        }
    }
}

#[derive(Default)]
struct Turn {
    /// The request waiting for the entrant's move, without its end of line.
    request: Option<String>,
    asked: Option<Instant>,
    /// The game no longer listens to this session.
    over: bool,
}

/// One entrant's seat of a game played over HTTP.
pub struct Session {
    joined: Joined,
    replies: mpsc::Sender<Event>,
    turn: Mutex<Turn>,
    /// A move may take this long from its request, network grace included.
    limit: Duration,
    /// The entrant has been shown the game's result.
    pub(super) told: AtomicBool,
    /// A join has answered with this game.
    claimed: AtomicBool,
}

impl Session {
    fn lock(&self) -> MutexGuard<'_, Turn> {
        self.turn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The game no longer listens to this session.
    pub(super) fn is_over(&self) -> bool {
        self.lock().over
    }

    /// What the join of this game answered.
    pub(super) fn joined(&self) -> &Joined {
        &self.joined
    }

    /// Marks the game as answered by a join; `false` if one had answered with it already.
    pub(super) fn claim(&self) -> bool {
        !self.claimed.swap(true, Ordering::SeqCst)
    }
}

/// Keeps the session's pending request from the game's lines until the game drops its link.
async fn carry(session: Arc<Session>, mut out: mpsc::Receiver<Out>) {
    while let Some(line) = out.recv().await {
        if let Out::Ask(line) = line {
            let mut turn = session.lock();
            turn.request = Some(line.trim_end().to_string());
            turn.asked = Some(Instant::now());
        }
    }
    let mut turn = session.lock();
    turn.over = true;
    turn.request = None;
}

/// Leaves the hub's queue of waiting connections if the join is given up (the client went
/// away, or the wait is over).
struct Waiting<'a> {
    hub: &'a Hub,
    entrant: usize,
    id: u64,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.hub.leave(self.entrant, self.id);
    }
}

/// `POST /api/join`: the entrant's next game (`200`), none yet (`204`: join again), or none
/// any more (`410`). A game given to an earlier join that could not answer with it (its
/// header came after that join had answered `204`) is answered first, so that no game
/// runs with no client knowing of it.
pub async fn join(State(api): State<Arc<Api>>, headers: HeaderMap) -> Result<Response, ApiError> {
    let entrant = api.entrant(&headers)?;
    Ok(match next_game(&api, entrant).await? {
        Some(joined) => Json(joined).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}

/// What a join does, whatever the route: `entrant`'s next game, `None` if none came within
/// the join's wait, [`ApiError::Gone`] if none will.
pub(super) async fn next_game(api: &Arc<Api>, entrant: usize) -> Result<Option<Joined>, ApiError> {
    let mut adopted = api.adopted.subscribe();
    if let Some(joined) = api.unclaimed(entrant) {
        return Ok(Some(joined));
    }
    let deadline = Instant::now() + api.join_wait;
    let (id, mut assigned) = api.hub.hello(entrant).map_err(ApiError::TooMany)?;
    let waiting = Waiting {
        hub: &api.hub,
        entrant,
        id,
    };
    let assignment = loop {
        tokio::select! {
            assignment = &mut assigned => break assignment.ok(),
            _ = adopted.changed() => {
                let Some(joined) = api.unclaimed(entrant) else { continue };
                drop(waiting);
                // A game given meanwhile waits, adopted, for the next join.
                if let Ok(Assignment::Game(end)) = assigned.try_recv() {
                    tokio::spawn(adopt(Arc::clone(api), entrant, end));
                }
                return Ok(Some(joined));
            }
            () = tokio::time::sleep_until(deadline) => {
                drop(waiting);
                // A game given between the timeout and leaving the queue is still ours.
                break assigned.try_recv().ok();
            }
        }
    };
    match assignment {
        None => Ok(None),
        Some(Assignment::End) => Err(ApiError::Gone),
        Some(Assignment::Game(end)) => {
            let mut told = tokio::spawn(adopt(Arc::clone(api), entrant, end));
            // The game's header comes with its first request to this seat: for the second
            // seat, after the first seat's move. Until then the join waits as it would for
            // a game; past its time the game stays adopted, for the next join.
            let until = deadline.max(Instant::now() + Duration::from_secs(5));
            match tokio::time::timeout_at(until, &mut told).await {
                Ok(Ok(Some(session))) if session.claim() => Ok(Some(session.joined.clone())),
                _ => Ok(None),
            }
        }
    }
}

/// Takes a game's link: waits for its `GAME` line (as long as the game keeps the link) and
/// keeps a session for it; `None` if the game dropped the link first.
async fn adopt(api: Arc<Api>, entrant: usize, mut end: LinkEnd) -> Option<Arc<Session>> {
    let joined = match end.out.recv().await {
        Some(Out::Tell(line)) => Joined::parse(&line),
        _ => None,
    }?;
    let session = Arc::new(Session {
        joined: joined.clone(),
        replies: end.events,
        turn: Mutex::new(Turn::default()),
        limit: api.hub.move_time + api.hub.grace,
        told: AtomicBool::new(false),
        claimed: AtomicBool::new(false),
    });
    api.sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert((joined.game, entrant), Arc::clone(&session));
    tokio::spawn(carry(Arc::clone(&session), end.out));
    api.adopted.send_modify(|n| *n += 1);
    Some(session)
}

/// The entrants of `game` who play it over HTTP, each with whether the game awaits its move
/// now (a request is pending): what `check_game` says of their turn, so that it never says
/// "your turn" when `play_game` would refuse the move (the game just ended, or its request
/// has not come yet).
pub(super) fn awaited(api: &Api, game: u64) -> Vec<(String, bool)> {
    let sessions = api.sessions.lock().unwrap_or_else(|e| e.into_inner());
    let seats: Vec<(usize, bool)> = (sessions.iter())
        .filter(|((g, _), _)| *g == game)
        .map(|(&(_, entrant), s)| (entrant, s.lock().request.is_some()))
        .collect();
    drop(sessions);
    (seats.into_iter())
        .map(|(entrant, pending)| (api.hub.name(entrant), pending))
        .collect()
}

/// A game's state as its entrant sees it.
#[derive(Debug, Serialize)]
struct GameState {
    game: u64,
    kind: String,
    players: [String; 2],
    /// The asker's seat: `first` or `second`.
    seat: &'static str,
    /// `you`, `opponent`, or `over`.
    turn: &'static str,
    /// The request line the entrant answers, when it is its turn.
    request: Option<String>,
    /// Milliseconds left for the move, when it is the entrant's turn.
    deadline_ms: Option<u64>,
    opening: Vec<Played>,
    moves: Vec<Played>,
    result: Option<super::super::games::Final>,
    /// The moves of this long-finished game are no longer kept (see its replay).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    trimmed: bool,
}

/// The game `game` of `entrant`: 404 if it is unknown, 403 if it is someone else's.
fn find(
    api: &Api,
    entrant: usize,
    game: u64,
) -> Result<(GameInfo, Option<Arc<Session>>), ApiError> {
    let sessions = api.sessions.lock().unwrap_or_else(|e| e.into_inner());
    let session = sessions.get(&(game, entrant)).cloned();
    let others = sessions.keys().any(|&(g, _)| g == game);
    drop(sessions);
    let name = &api.hub.name(entrant);
    match api.hub.games.get(game) {
        Some(info) if info.players.contains(name) => Ok((info, session)),
        Some(_) => Err(ApiError::Forbidden),
        None if others && session.is_none() => Err(ApiError::Forbidden),
        // Joined, but the referee has not announced the game yet.
        None => match &session {
            Some(s) => {
                let mut players = [name.clone(), s.joined.opponent.clone()];
                if s.joined.seat == "second" {
                    players.swap(0, 1);
                }
                Ok((GameInfo::new(game, players), session))
            }
            None => Err(ApiError::NoGame),
        },
    }
}

fn state_of(api: &Api, entrant: usize, game: u64) -> Result<GameState, ApiError> {
    let (info, session) = find(api, entrant, game)?;
    let name = &api.hub.name(entrant);
    let seat = if info.players[0] == *name {
        "first"
    } else {
        "second"
    };
    let info = info.seen_by(Some(seat));
    let mut state = GameState {
        game,
        kind: api.hub.game.to_string(),
        players: info.players,
        seat,
        turn: if info.result.is_some() {
            "over"
        } else {
            "opponent"
        },
        request: None,
        deadline_ms: None,
        opening: info.opening,
        moves: info.moves,
        result: info.result,
        trimmed: info.trimmed,
    };
    if let Some(session) = session {
        if state.result.is_some() {
            session.told.store(true, Ordering::Relaxed);
        }
        let turn = session.lock();
        if let (Some(request), Some(asked)) = (&turn.request, turn.asked) {
            let left = (asked + session.limit).saturating_duration_since(Instant::now());
            state.turn = "you";
            state.request = Some(request.clone());
            state.deadline_ms = Some(left.as_millis() as u64);
        } else if turn.over {
            state.turn = "over";
        }
    }
    Ok(state)
}

pub(super) fn game_id(
    id: Result<Path<u64>, axum::extract::rejection::PathRejection>,
) -> Result<u64, ApiError> {
    id.map(|Path(id)| id).map_err(|_| ApiError::NoGame)
}

/// `GET /api/games/ID`: as its entrant sees it with a token, as a watcher without.
pub async fn state(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    id: Result<Path<u64>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    if !headers.contains_key(axum::http::header::AUTHORIZATION) {
        return super::watch::game(&api, game_id(id)?);
    }
    let entrant = api.entrant(&headers)?;
    let game = game_id(id)?;
    Ok(Json(state_of(&api, entrant, game)?).into_response())
}

/// `POST /api/games/ID/move`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
}

/// `POST /api/games/ID/move`: the reply line to the pending request.
pub async fn play(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    id: Result<Path<u64>, axum::extract::rejection::PathRejection>,
    body: Result<Json<MoveBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let entrant = api.entrant(&headers)?;
    let game = game_id(id)?;
    find(&api, entrant, game)?;
    let Json(body) = body?;
    send_move(&api, entrant, game, &body.mv)?;
    // Give the referee a moment, so that the answer usually shows the move.
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(Json(state_of(&api, entrant, game)?).into_response())
}

/// Passes `mv` on as `entrant`'s reply to the pending request of its game `game`, whatever
/// the route; or why not.
pub(super) fn send_move(api: &Api, entrant: usize, game: u64, mv: &str) -> Result<(), ApiError> {
    let (_, session) = find(api, entrant, game)?;
    if mv.len() > MAX_REPLY || mv.contains(['\n', '\r']) {
        let why = format!("a move is one line of at most {MAX_REPLY} bytes");
        return Err(ApiError::Bad(StatusCode::BAD_REQUEST, why));
    }
    let Some(session) = session else {
        let why = "this game is not played over HTTP".to_string();
        return Err(ApiError::Conflict(why));
    };
    {
        let mut turn = session.lock();
        if turn.request.is_none() {
            let why = if turn.over {
                "the game is over"
            } else {
                "it is not your turn"
            };
            return Err(ApiError::Conflict(why.to_string()));
        }
        if session
            .replies
            .try_send(Event::Line(mv.trim().to_string()))
            .is_err()
        {
            return Err(ApiError::Conflict("the game is over".to_string()));
        }
        turn.request = None;
        turn.asked = None;
    }
    Ok(())
}
