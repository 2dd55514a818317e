//! The router in-process (`tower::ServiceExt::oneshot`), against a hub with two entrants.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

use super::*;
use crate::game::{GameKind, Seat};
use crate::player::remote::{Door, Event, Out};
use crate::serve::entrants::{table, Entrants};
use crate::serve::hub::Start;
use crate::tournament::runner::Watch;

fn api(join_wait: Duration) -> Arc<Api> {
    api_of(GameKind::Othello, join_wait)
}

fn api_of(kind: GameKind, join_wait: Duration) -> Arc<Api> {
    let text = format!("{}{}", table("x", "tx"), table("y", "ty"));
    let start = Start { when: 1, at: None };
    let entrants = Entrants::parse(&text).unwrap();
    let hub = Hub::new(
        kind,
        entrants,
        Duration::from_secs(1),
        Duration::from_millis(500),
        start,
        crate::serve::rooms::Rooms::default(),
    );
    Api::new(hub, join_wait)
}

async fn call(
    api: &Arc<Api>,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: &str,
) -> (StatusCode, serde_json::Value) {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if !body.is_empty() {
        request = request.header("content-type", "application/json");
    }
    let request = request.body(Body::from(body.to_string())).unwrap();
    let response = router(Arc::clone(api)).oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    let json = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
    (status, json)
}

#[tokio::test]
async fn tokens_are_checked_and_unknown_things_are_404() {
    let api = api(Duration::from_millis(50));
    let (status, body) = call(&api, "POST", "/api/join", None, "").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body["error"].as_str().unwrap().contains("Bearer"));
    let (status, _) = call(&api, "POST", "/api/join", Some("nope"), "").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = call(&api, "GET", "/api/games/3", Some("tx"), "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = call(&api, "GET", "/api/games/abc", Some("tx"), "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = call(&api, "GET", "/nothing", None, "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A game of others.
    let names = ["y", "bot"];
    let opening = &[];
    api.hub.watch(3, Watch::Started { names, opening });
    let (status, _) = call(&api, "GET", "/api/games/3", Some("tx"), "").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = call(&api, "GET", "/api/games/3", Some("ty"), "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["seat"], "first");
    assert_eq!(body["turn"], "opponent");
    // No game yet: join again; the end: 410.
    let (status, _) = call(&api, "POST", "/api/join", Some("tx"), "").await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(api.hub.connected(), 0, "a join given up is not connected");
    api.hub.close();
    let (status, _) = call(&api, "POST", "/api/join", Some("tx"), "").await;
    assert_eq!(status, StatusCode::GONE);
}

#[tokio::test]
async fn a_game_whose_first_line_comes_after_its_join_gave_up_goes_to_the_next_join_issue_17() {
    let api = api(Duration::from_millis(100));
    let hub = Arc::clone(&api.hub);
    let (gave_up, given_up) = tokio::sync::oneshot::channel::<()>();
    let game = tokio::spawn(async move {
        hub.begin(vec![1, 0]).await;
        let door = hub.door(7, 0, None);
        let link = door.connect(false).await.unwrap();
        // The second seat's first line comes with its first request, after the first seat's
        // move: here, after the join that got the game has given up waiting for it.
        given_up.await.unwrap();
        let header = "GAME 7 othello bot second 1000\n".to_string();
        link.out.send(Out::Tell(header)).await.unwrap();
        (door, link)
    });
    let (status, body) = call(&api, "POST", "/api/join", Some("tx"), "").await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    gave_up.send(()).unwrap();
    let (door, _link) = game.await.unwrap();
    // The next join (a page joins again at once) answers with the game.
    let mut joined = serde_json::Value::Null;
    for _ in 0..50 {
        let (status, body) = call(&api, "POST", "/api/join", Some("tx"), "").await;
        assert!(status.is_success(), "{status} {body}");
        if status == StatusCode::OK {
            joined = body;
            break;
        }
    }
    assert_eq!(joined["game"], 7, "{joined}");
    assert_eq!(joined["seat"], "second");
    door.done();
}

#[tokio::test]
async fn a_joined_game_is_played_move_by_move() {
    let api = api(Duration::from_secs(5));
    let hub = Arc::clone(&api.hub);
    let game = tokio::spawn(async move {
        hub.begin(vec![1, 0]).await;
        let door = hub.door(7, 0, None);
        let mut link = door.connect(false).await.unwrap();
        let header = "GAME 7 othello bot first 1000\n".to_string();
        link.out.send(Out::Tell(header)).await.unwrap();
        hub.watch(
            7,
            Watch::Started {
                names: ["x", "bot"],
                opening: &[],
            },
        );
        link.out.send(Out::Ask("a -\n".into())).await.unwrap();
        let reply = link.events.recv().await;
        let mv = Watch::Move {
            seat: Seat::A,
            request: &[],
            reply: Ok("d3"),
            note: None,
            think: Duration::from_millis(5),
        };
        hub.watch(7, mv);
        door.done();
        reply
    });
    let (status, body) = call(&api, "POST", "/api/join", Some("tx"), "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["game"], 7);
    assert_eq!(body["seat"], "first");
    assert_eq!(body["opponent"], "bot");
    assert_eq!(body["move_ms"], 1000);
    // A page reloaded now learns its game back from `GET /api/me`.
    let (_, me) = call(&api, "GET", "/api/me", Some("tx"), "").await;
    assert_eq!(me["games"][0]["game"], 7, "{me}");
    let (_, other) = call(&api, "GET", "/api/me", Some("ty"), "").await;
    assert_eq!(other["games"], serde_json::json!([]));
    // Wait for the request.
    let mut state = serde_json::Value::Null;
    for _ in 0..100 {
        state = call(&api, "GET", "/api/games/7", Some("tx"), "").await.1;
        if state["turn"] == "you" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(state["request"], "a -", "{state}");
    assert!(state["deadline_ms"].as_u64().unwrap() <= 1500);
    let (status, _) = call(&api, "GET", "/api/games/7", Some("ty"), "").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = call(&api, "POST", "/api/games/7/move", Some("tx"), "{\"move\":").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let long = format!("{{\"move\":\"{}\"}}", "a".repeat(70_000));
    let (status, body) = call(&api, "POST", "/api/games/7/move", Some("tx"), &long).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(body["error"].is_string(), "{body}");
    let (status, body) = call(&api, "DELETE", "/api/games/7", Some("tx"), "").await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(body["error"].is_string(), "{body}");
    let (status, _) = call(
        &api,
        "POST",
        "/api/games/7/move",
        Some("tx"),
        "{\"move\":\"a\\nb\"}",
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = call(
        &api,
        "POST",
        "/api/games/7/move",
        Some("tx"),
        "{\"move\":\"d3\"}",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(game.await.unwrap(), Some(Event::Line("d3".into())));
    let (status, body) = call(
        &api,
        "POST",
        "/api/games/7/move",
        Some("tx"),
        "{\"move\":\"c4\"}",
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let state = call(&api, "GET", "/api/games/7", Some("tx"), "").await.1;
    assert_eq!(state["moves"][0]["move"], "d3");
}

#[test]
fn http_is_told_from_the_line_protocol_by_its_first_bytes() {
    assert_eq!(is_http(b"GET /"), Some(true));
    assert_eq!(is_http(b"POST "), Some(true));
    assert_eq!(is_http(b"PO"), None);
    assert_eq!(is_http(b""), None);
    assert_eq!(is_http(b"HELLO x y"), Some(false));
    assert_eq!(is_http(b"GETX"), Some(false));
}

/// One move of `seat` in game 1 of a Numer0n hub.
fn moved(api: &Api, seat: Seat, request: &[&str], reply: &str, note: Option<&str>) {
    let request: Vec<String> = request.iter().map(|f| f.to_string()).collect();
    let mv = Watch::Move {
        seat,
        request: &request,
        reply: Ok(reply),
        note,
        think: Duration::from_millis(3),
    };
    api.hub.watch(1, mv);
}

#[tokio::test]
async fn numeron_secrets_are_hidden_from_watchers_and_the_opponent_until_the_game_is_over() {
    let api = api_of(GameKind::Numeron, Duration::from_secs(1));
    let mut events = api.hub.subscribe();
    let opening = &[];
    api.hub.watch(
        1,
        Watch::Started {
            names: ["x", "y"],
            opening,
        },
    );
    moved(&api, Seat::A, &["secret", "3"], "123", None);
    moved(&api, Seat::B, &["secret", "3"], "456", None);
    moved(
        &api,
        Seat::A,
        &["call", "-", "-"],
        "456",
        Some("3 EAT 0 BITE"),
    );
    let (status, watcher) = call(&api, "GET", "/api/games/1", None, "").await;
    assert_eq!(status, StatusCode::OK);
    let (_, x) = call(&api, "GET", "/api/games/1", Some("tx"), "").await;
    let (_, list) = call(&api, "GET", "/api/games", None, "").await;
    assert_eq!(list[0]["moves"], 3);
    assert_eq!(watcher["moves"][0]["hidden"], true);
    assert!(watcher["moves"][0]["move"].is_null() && watcher["moves"][1]["move"].is_null());
    assert_eq!(watcher["moves"][2]["move"], "456", "a call is public");
    assert_eq!(watcher["moves"][2]["note"], "3 EAT 0 BITE");
    // x sees its own secret, not y's.
    assert_eq!(x["moves"][0]["move"], "123");
    assert!(x["moves"][1]["move"].is_null());
    assert_eq!(x["moves"][1]["hidden"], true);
    // The event stream never carries a secret.
    let mut shown = Vec::new();
    while let Ok(e) = events.try_recv() {
        shown.push(events::describe(&api.hub, &e).1.to_string());
    }
    let shown = shown.join("\n");
    assert!(
        !shown.contains("123") && shown.contains("\"hidden\":true"),
        "{shown}"
    );
    // Once over, everything is shown.
    use crate::results::games::{Culprit, GameRecord, GameResult, Reason};
    let record = GameRecord {
        run: "r".into(),
        round: 1,
        game_id: 1,
        game: GameKind::Numeron,
        bot_a: "x".into(),
        bot_b: "y".into(),
        score_a: 1,
        score_b: 1,
        result: GameResult::A,
        reason: Reason::Normal,
        culprit: Culprit::Nobody,
        plies: 3,
        duration_ms: 9,
        detail: String::new(),
    };
    api.hub.watch(1, Watch::Over { record: &record });
    let (_, watcher) = call(&api, "GET", "/api/games/1", None, "").await;
    assert_eq!(watcher["moves"][0]["move"], "123");
    assert_eq!(watcher["moves"][1]["move"], "456");
    assert_eq!(watcher["moves"][1]["secret"], true);
}

#[tokio::test]
async fn the_page_and_its_assets_are_served_with_a_strict_policy() {
    let api = api(Duration::from_secs(1));
    for (path, kind) in [
        ("/", "text/html"),
        ("/assets/live.js", "text/javascript"),
        ("/assets/common.js", "text/javascript"),
        ("/assets/play.js", "text/javascript"),
        ("/assets/viewer.js", "text/javascript"),
        ("/assets/style.css", "text/css"),
        // Browsers ask for it: an icon, not a 404 (issue 18).
        ("/favicon.ico", "image/svg+xml"),
    ] {
        let request = Request::builder().uri(path).body(Body::empty()).unwrap();
        let response = router(Arc::clone(&api)).oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let headers = response.headers();
        assert!(headers["content-type"].to_str().unwrap().starts_with(kind));
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"));
    }
    let (status, body) = call(&api, "GET", "/api/tournament", None, "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["kind"], "othello");
    assert_eq!(body["entrants"][1]["name"], "y");
    assert_eq!(body["started"], false);
    let (status, _) = call(&api, "GET", "/api/me", Some("nope"), "").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (_, body) = call(&api, "GET", "/api/me", Some("ty"), "").await;
    assert_eq!(body["name"], "y");
    let (status, _) = call(&api, "GET", "/api/games/9/replay", None, "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn closing_ends_event_streams_and_closes_every_connection_once_its_answer_is_out() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let api = api(Duration::from_secs(1));
    let front = Front::new(Arc::clone(&api));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let gate = crate::serve::gate::Gate::default();
        while let Ok((stream, peer)) = listener.accept().await {
            let front = front.clone();
            let pass = gate.enter(crate::serve::gate::Stage::Http, peer.ip());
            tokio::spawn(async move { front.serve(stream, pass.unwrap()).await });
        }
    });
    // A watcher's event stream, and an idle keep-alive connection after one answer.
    let mut watcher = tokio::net::TcpStream::connect(addr).await.unwrap();
    watcher
        .write_all(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    idle.write_all(b"GET /api/rooms HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    watcher.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    assert!(api.connections.available_permits() < MAX_CONNECTIONS);

    api.shut(Duration::from_secs(5)).await;
    assert_eq!(
        api.connections.available_permits(),
        MAX_CONNECTIONS,
        "every connection is closed"
    );
    // Both see the end: the stream's last chunk, then the connection's close.
    for mut client in [watcher, idle] {
        let mut rest = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(1), client.read_to_end(&mut rest));
        assert!(read.await.is_ok(), "the connection was closed");
    }
}
