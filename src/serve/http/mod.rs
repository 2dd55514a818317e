//! The HTTP front door, on the same port as the line protocol: the TCP listener hands it
//! every connection that starts with an HTTP method. A JSON API for clients that poll
//! (`POST /api/join`, `GET /api/games/ID`, `POST /api/games/ID/move`), a stream of
//! server-sent events (`GET /api/events`), what watchers may see ([`watch`]) and the web
//! page ([`page`]); and the Gomoku game server's routes ([`classic`]). Tokens come in
//! `Authorization: Bearer` headers (the Gomoku routes' in their `password` field, as their
//! clients send them), and are never logged.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde_json::json;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use super::gate::{Pass, Refused, Stage};
use super::hub::Hub;
use super::registry::Registry;

mod classic;
mod events;
mod page;
mod play;
mod register;
mod rooms;
mod watch;

pub use play::Session;

/// The largest request body.
pub const MAX_BODY: usize = 64 * 1024;

/// How long a request may take to be answered (a join waits less than this).
pub const REQUEST_TIME: Duration = Duration::from_secs(40);

/// How long `POST /api/join` waits for a game before `204 No Content`.
pub const JOIN_WAIT: Duration = Duration::from_secs(25);

/// The most HTTP connections open at once; more are closed at once.
pub const MAX_CONNECTIONS: usize = 1024;

/// The HTTP methods that tell an HTTP connection from a line-protocol one.
const METHODS: [&[u8]; 9] = [
    b"GET ",
    b"POST ",
    b"HEAD ",
    b"PUT ",
    b"DELETE ",
    b"OPTIONS ",
    b"PATCH ",
    b"CONNECT ",
    b"TRACE ",
];

/// Whether a connection's first bytes are HTTP: `Some(true)` if they start with a method,
/// `Some(false)` if they cannot, `None` if too few have come to tell.
pub fn is_http(first: &[u8]) -> Option<bool> {
    if METHODS.iter().any(|m| first.starts_with(m)) {
        return Some(true);
    }
    if METHODS.iter().any(|m| m.starts_with(first)) {
        return None;
    }
    Some(false)
}

/// What the HTTP handlers share: the hub, and the games played over HTTP.
pub struct Api {
    pub hub: Arc<Hub>,
    /// Games played over HTTP, by game and entrant.
    sessions: Mutex<HashMap<(u64, usize), Arc<Session>>>,
    /// Counts the games taken into `sessions`: a waiting join looks for one of its entrant's
    /// that no join has answered with.
    adopted: tokio::sync::watch::Sender<u64>,
    join_wait: Duration,
    /// Where the replays are written (`<OUT>/replays`), unless `--no-replays`.
    replays: Option<PathBuf>,
    /// Open registration (`--open`).
    registry: Option<Registry>,
    /// `true` once the server closes: connections finish their request and close, event
    /// streams end.
    down: tokio::sync::watch::Sender<bool>,
    /// One permit per open HTTP connection, at most [`MAX_CONNECTIONS`].
    connections: Arc<Semaphore>,
    /// The local bots, and a gauntlet's references and rule (set once the bots are known).
    field: std::sync::OnceLock<Field>,
}

/// The tournament's local bots as the page lists them from the start.
#[derive(Debug, Clone, Default)]
pub struct Field {
    /// Every local bot, a gauntlet's references first.
    pub locals: Vec<String>,
    /// A gauntlet's grading: references, rule and move time (`candidates` are filled in as
    /// the page asks, from the entrants and local bots that are not references).
    pub gauntlet: Option<crate::standings::grades::Gauntlet>,
}

impl Api {
    /// The API of `hub`; a join waits `join_wait` for a game.
    pub fn new(hub: Arc<Hub>, join_wait: Duration) -> Arc<Api> {
        Api::with(hub, join_wait, None, None)
    }

    /// The API of `hub`, serving finished games' replays from `replays`, registering new
    /// entrants in `registry`.
    pub fn with(
        hub: Arc<Hub>,
        join_wait: Duration,
        replays: Option<PathBuf>,
        registry: Option<Registry>,
    ) -> Arc<Api> {
        Arc::new(Api {
            hub,
            sessions: Mutex::new(HashMap::new()),
            adopted: tokio::sync::watch::channel(0).0,
            join_wait,
            replays,
            registry,
            down: tokio::sync::watch::channel(false).0,
            connections: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            field: std::sync::OnceLock::new(),
        })
    }

    /// Tells the page the tournament's local bots and, for a gauntlet, its references.
    pub fn set_field(&self, field: Field) {
        let _ = self.field.set(field);
    }

    /// Waits, at most `within`, until every entrant who played over HTTP has been shown its
    /// last game's result, and every entrant that came has been told `END` (so that it may
    /// ask for its last game's result first): the server may then stop.
    pub async fn settle(&self, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        let untold = || {
            let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            let told = |s: &Arc<Session>| s.told.load(std::sync::atomic::Ordering::Relaxed);
            sessions.values().any(|s| !told(s))
        };
        while (untold() || self.hub.awaiting_end()) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Closes the HTTP side: every connection finishes the request it is answering (event
    /// streams end) and closes; waits for that, at most `within`.
    pub async fn shut(&self, within: Duration) {
        self.down.send_replace(true);
        let deadline = tokio::time::Instant::now() + within;
        while self.connections.available_permits() < MAX_CONNECTIONS
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The games `entrant` is playing over HTTP (joined, not over), as their joins said.
    fn playing(&self, entrant: usize) -> Vec<play::Joined> {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let mut games: Vec<play::Joined> = (sessions.iter())
            .filter(|((g, e), s)| *e == entrant && !s.is_over() && !self.decided(*g))
            .map(|(_, s)| s.joined().clone())
            .collect();
        games.sort_by_key(|j| j.game);
        games
    }

    /// Whether game `game` has its result (its link may not be dropped yet).
    fn decided(&self, game: u64) -> bool {
        self.hub.games.is_over(game) == Some(true)
    }

    /// A game of `entrant` under way that no join has answered with, claimed now.
    fn unclaimed(&self, entrant: usize) -> Option<play::Joined> {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let mut open: Vec<&Arc<Session>> = (sessions.iter())
            .filter(|((g, e), s)| *e == entrant && !s.is_over() && !self.decided(*g))
            .map(|(_, s)| s)
            .collect();
        open.sort_by_key(|s| s.joined().game);
        let session = open.into_iter().find(|s| s.claim())?;
        Some(session.joined().clone())
    }

    /// The entrant whose token is in the `Authorization: Bearer TOKEN` header.
    fn entrant(&self, headers: &HeaderMap) -> Result<usize, ApiError> {
        let value = headers
            .get(header::AUTHORIZATION)
            .ok_or(ApiError::Unauthorized)?;
        let token = (value.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or(ApiError::Unauthorized)?;
        self.hub.find(token.trim()).ok_or(ApiError::Unauthorized)
    }
}

/// The routes, with their limits.
pub fn router(api: Arc<Api>) -> Router {
    Router::new()
        .route("/", get(page::index))
        .route("/assets/live.js", get(page::live_js))
        .route("/assets/common.js", get(page::common_js))
        .route("/assets/play.js", get(page::play_js))
        .route("/favicon.ico", get(page::favicon))
        .route("/assets/viewer.js", get(page::viewer_js))
        .route("/assets/style.css", get(page::style_css))
        .route("/api/tournament", get(watch::tournament))
        .route("/api/me", get(watch::me))
        .route("/api/register", post(register::register))
        .route("/api/join", post(play::join))
        .route("/api/rooms", get(rooms::list).post(rooms::create))
        .route("/api/rooms/{id}/join", post(rooms::join))
        .route("/api/rooms/{id}", axum::routing::delete(rooms::cancel))
        .route("/api/games", get(watch::list))
        .route("/api/games/{id}", get(play::state))
        .route("/api/games/{id}/move", post(play::play))
        .route("/api/games/{id}/replay", get(watch::replay))
        .route("/api/events", get(events::stream))
        .route("/api/standings", get(events::standings))
        .fallback(|| async { ApiError::NoRoute })
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIME,
        ))
        // The Gomoku server's routes, whose join waits longer.
        .merge(classic::routes())
        .with_state(api)
        .layer(axum::middleware::map_response(json_errors))
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
}

/// Gives every error without a JSON body (the limits', an unknown method's) one:
/// `{"error": ...}` with its text, or the status's reason.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let json = (response.headers().get(header::CONTENT_TYPE))
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let mut text = String::from_utf8_lossy(&text).trim().to_string();
    if text.is_empty() {
        text = status.canonical_reason().unwrap_or("error").to_lowercase();
    }
    let mut out = (status, Json(json!({ "error": text }))).into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().insert(name, value.clone());
        }
    }
    out
}

/// The HTTP side of the listener: the router, the cap on connections and the signal that
/// closes them.
#[derive(Clone)]
pub struct Front {
    router: Router,
    connections: Arc<Semaphore>,
    down: tokio::sync::watch::Receiver<bool>,
}

impl Front {
    pub fn new(api: Arc<Api>) -> Front {
        Front {
            connections: Arc::clone(&api.connections),
            down: api.down.subscribe(),
            router: router(api),
        }
    }

    /// Serves one accepted connection (nothing of it read yet) until it closes; `handshake`:
    /// its place among the connections waiting for their first request, given back when the
    /// first request's headers have come (or the connection closes).
    pub async fn serve(&self, stream: TcpStream, handshake: Pass) {
        let Ok(_permit) = Arc::clone(&self.connections).try_acquire_owned() else {
            return turn_away(stream, Refused::Full).await;
        };
        let peer =
            (stream.peer_addr().map(|a| a.ip())).unwrap_or(std::net::Ipv4Addr::UNSPECIFIED.into());
        let handshake = Arc::new(Mutex::new(Some(handshake)));
        let router = (self.router.clone()).layer(Extension(register::Peer(peer)));
        // A layer before the routes: the first request's headers are in, so the handshake
        // is over.
        let service = tower::ServiceBuilder::new()
            .map_request(move |request: axum::extract::Request<Incoming>| {
                drop(handshake.lock().unwrap_or_else(|e| e.into_inner()).take());
                request
            })
            .service(router);
        let service = TowerToHyperService::new(service);
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(Stage::Http.time())
            .max_buf_size(64 * 1024)
            .serve_connection(TokioIo::new(stream), service);
        tokio::pin!(conn);
        let mut down = self.down.clone();
        tokio::select! {
            _ = conn.as_mut() => {}
            () = closing(&mut down) => {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
        }
    }
}

/// Answers `503 Service Unavailable` (why, in JSON, and `Retry-After`) to an HTTP connection
/// turned away, and closes it.
pub async fn turn_away(stream: TcpStream, refused: Refused) {
    use tokio::io::AsyncWriteExt;
    // What already came is read, so that closing does not reset the connection before the
    // answer is read.
    let mut sink = [0u8; 4096];
    while matches!(stream.try_read(&mut sink), Ok(n) if n > 0) {}
    let body = json!({ "error": refused.to_string() }).to_string();
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = stream;
    let write = async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), write).await;
}

/// Resolves when the server closes (the watch's guard is not held across an await).
pub(super) async fn closing(down: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = down.wait_for(|d| *d).await;
}

/// What went wrong with a request: a status and `{"error": "..."}`.
#[derive(Debug)]
pub enum ApiError {
    /// No `Authorization: Bearer TOKEN`, or not an entrant's token.
    Unauthorized,
    /// Another entrant's game.
    Forbidden,
    /// No such game (yet).
    NoGame,
    NoRoute,
    /// Not the entrant's turn, or the game is over.
    Conflict(String),
    /// No more games for the entrant.
    Gone,
    /// Too many waiting joins.
    TooMany(String),
    /// A malformed or refused request: the status (400, 403, 413, 415, 429, 500...) and why.
    Bad(StatusCode, String),
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let status = match rejection.status() {
            StatusCode::PAYLOAD_TOO_LARGE => StatusCode::PAYLOAD_TOO_LARGE,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::Bad(status, rejection.body_text())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            ApiError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "missing or wrong token: send `Authorization: Bearer TOKEN`".to_string(),
            ),
            ApiError::Forbidden => (
                StatusCode::FORBIDDEN,
                "this game is not one of yours".to_string(),
            ),
            ApiError::NoGame => (StatusCode::NOT_FOUND, "no such game".to_string()),
            ApiError::NoRoute => (StatusCode::NOT_FOUND, "no such route".to_string()),
            ApiError::Conflict(why) => (StatusCode::CONFLICT, why),
            ApiError::Gone => (
                StatusCode::GONE,
                "no more games for this entrant".to_string(),
            ),
            ApiError::TooMany(why) => (StatusCode::TOO_MANY_REQUESTS, why),
            ApiError::Bad(status, why) => (status, why),
        };
        let mut response = (status, Json(json!({ "error": message }))).into_response();
        if status == StatusCode::UNAUTHORIZED {
            let bearer = header::HeaderValue::from_static("Bearer");
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, bearer);
        }
        response
    }
}

#[cfg(test)]
mod tests;
