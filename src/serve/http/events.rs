//! `GET /api/events`: the hub's events as server-sent events, for clients and pages that
//! would rather not poll; `GET /api/standings`: the standings so far.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use futures_util::stream::{self, Stream};
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::super::games::Tally;
use super::super::hub::{Hub, HubEvent};
use super::Api;

/// An event's SSE name and JSON data.
pub fn describe(hub: &Hub, event: &HubEvent) -> (&'static str, Value) {
    let name = |e: usize| hub.name(e);
    match event {
        HubEvent::Waiting { entrant } => ("connected", json!({ "entrant": name(*entrant) })),
        HubEvent::Registered { entrant } => ("registered", json!({ "entrant": name(*entrant) })),
        HubEvent::Started => ("started", json!({})),
        HubEvent::GameOver { entrant } => ("entrant_done", json!({ "entrant": name(*entrant) })),
        HubEvent::GameStarted { game } => {
            let players = hub.games.get(*game).map(|g| g.players);
            ("game_started", json!({ "game": game, "players": players }))
        }
        HubEvent::Moved { game, played } => {
            let mv = if played.secret {
                None
            } else {
                played.mv.as_deref()
            };
            let data = json!({ "game": game, "seat": played.seat, "move": mv,
                "fault": played.fault, "note": played.note, "ms": played.ms,
                "secret": played.secret, "hidden": played.secret });
            ("move", data)
        }
        HubEvent::Finished { game } => {
            let result = hub.games.get(*game).and_then(|g| g.result);
            ("game_over", json!({ "game": game, "result": result }))
        }
        HubEvent::Standings => ("standings", json!({ "standings": hub.games.standings() })),
        HubEvent::Rooms => ("rooms", json!(hub.rooms_view())),
        HubEvent::Closed => ("closed", json!({})),
    }
}

/// `GET /api/events`: every event from now on; `lagged` when a slow reader missed some.
pub async fn stream(
    State(api): State<Arc<Api>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let events = api.hub.subscribe();
    let down = api.down.subscribe();
    let stream = stream::unfold(
        (events, api, down),
        |(mut events, api, mut down)| async move {
            let next = tokio::select! {
                next = events.recv() => next,
                // The server closes: the stream ends, and with it the response.
                () = super::closing(&mut down) => return None,
            };
            let event = match next {
                Ok(e) => {
                    let (name, data) = describe(&api.hub, &e);
                    Event::default().event(name).data(data.to_string())
                }
                Err(RecvError::Lagged(n)) => Event::default()
                    .event("lagged")
                    .data(json!({ "missed": n }).to_string()),
                Err(RecvError::Closed) => return None,
            };
            Some((Ok(event), (events, api, down)))
        },
    );
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// `GET /api/standings`: every player's games, wins, draws, losses and points so far.
pub async fn standings(State(api): State<Arc<Api>>) -> Json<Vec<Tally>> {
    Json(api.hub.games.standings())
}
