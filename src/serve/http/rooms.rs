//! Friendly games over HTTP: `GET /api/rooms` (the local bots one may play and the open
//! rooms), `POST /api/rooms` (play a bot, or open a room), `POST /api/rooms/ID/join` and
//! `DELETE /api/rooms/ID`. The game itself then comes to the entrant's next `POST /api/join`
//! (or TCP connection), like any game of the tournament.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use super::super::rooms::{RoomError, RoomsView};
use super::{Api, ApiError};
use crate::game::Seat;

/// `POST /api/rooms`'s body: a local bot to play now, or nothing to open a room.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomBody {
    /// The local bot to play.
    bot: Option<String>,
    /// The entrant's seat against the bot: `first` (the default) or `second`.
    seat: Option<String>,
}

impl From<RoomError> for ApiError {
    fn from(e: RoomError) -> Self {
        let why = e.to_string();
        match e {
            RoomError::Closed(_) | RoomError::OwnRoom => ApiError::Conflict(why),
            RoomError::UnknownBot(_) | RoomError::UnknownRoom(_) => {
                ApiError::Bad(StatusCode::NOT_FOUND, why)
            }
            RoomError::TooMany => ApiError::TooMany(why),
        }
    }
}

/// `GET /api/rooms`.
pub async fn list(State(api): State<Arc<Api>>) -> Json<RoomsView> {
    Json(api.hub.rooms_view())
}

/// `POST /api/rooms`: `201 {"game", "opponent", "seat"}` for a game against a local bot,
/// `201 {"room"}` for a room opened.
pub async fn create(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let entrant = api.entrant(&headers)?;
    // An empty body opens a room.
    let body: RoomBody = if body.trim_ascii().is_empty() {
        RoomBody::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| {
            let why = format!("the body is not a room request: {e}");
            ApiError::Bad(StatusCode::BAD_REQUEST, why)
        })?
    };
    let Some(bot) = body.bot else {
        if body.seat.is_some() {
            let why = "`seat` is chosen only against a bot: the host of a room plays first";
            return Err(ApiError::Bad(StatusCode::BAD_REQUEST, why.into()));
        }
        let room = api.hub.host(entrant)?;
        return Ok((StatusCode::CREATED, Json(json!({ "room": room }))).into_response());
    };
    let seat = match body.seat.as_deref() {
        None | Some("first") => Seat::A,
        Some("second") => Seat::B,
        Some(other) => {
            let why = format!("`seat` is `first` or `second`, not `{other}`");
            return Err(ApiError::Bad(StatusCode::BAD_REQUEST, why));
        }
    };
    let game = api.hub.play_bot(entrant, &bot, seat)?;
    let seat = if seat == Seat::A { "first" } else { "second" };
    let body = json!({ "game": game, "opponent": bot, "seat": seat });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

fn room_id(id: Result<Path<u64>, PathRejection>) -> Result<u64, ApiError> {
    id.map(|Path(id)| id)
        .map_err(|_| ApiError::Bad(StatusCode::NOT_FOUND, "no such room".into()))
}

/// `POST /api/rooms/ID/join`: `{"game"}`, the game between the room's host and the entrant.
pub async fn join(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Response, ApiError> {
    let entrant = api.entrant(&headers)?;
    let game = api.hub.join_room(entrant, room_id(id)?)?;
    Ok(Json(json!({ "game": game })).into_response())
}

/// `DELETE /api/rooms/ID`: the host closes its room (`204`).
pub async fn cancel(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Response, ApiError> {
    let entrant = api.entrant(&headers)?;
    api.hub.cancel_room(entrant, room_id(id)?)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
