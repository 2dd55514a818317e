//! `arena serve --open` (issue 12): anyone registers a name before the start and gets a
//! token (rate-limited, never written down: only its hash goes to the entrants file), the
//! operator starts the tournament by typing `start` and closes registration with `close`, and an
//! entrant who registered but never came loses by `timeout`.

mod common;

use std::io::Write;
use std::time::Duration;

use common::*;
use serde_json::Value;

/// One HTTP request: the status, the `Retry-After` header if any, and the JSON body.
fn call(port: u16, method: &str, path: &str, body: &str) -> (u16, Option<String>, Value) {
    let (status, head, body) = http_full(port, method, path, None, body);
    let retry = (head.lines()).find_map(|l| {
        l.to_ascii_lowercase()
            .strip_prefix("retry-after: ")
            .map(str::to_string)
    });
    (status, retry, body)
}

fn register(port: u16, name: &str) -> (u16, Option<String>, Value) {
    call(
        port,
        "POST",
        "/api/register",
        &format!("{{\"name\":\"{name}\"}}"),
    )
}

#[test]
fn open_registration_until_the_operator_starts_the_tournament_issue_12() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("class.toml");
    let counter = bundled("morra").join("counter");
    let out = dir.path().join("out");
    let (counter, file_text, out) = (path(&counter), path(&file), path(&out));
    let args = [
        "serve",
        "morra",
        "--gauntlet",
        counter,
        "--entrants",
        file_text,
    ];
    let rest = [
        "--out",
        out,
        "--open",
        "--listen",
        "127.0.0.1:0",
        "--morra-rounds",
        "3",
    ];
    let all = [&args[..], &rest, &["--network-grace", "1s", "--quiet"]].concat();
    let (mut child, port) = spawn_server(&all, true);
    let mut operator = child.stdin.take().unwrap();

    let (status, _, info) = call(port, "GET", "/api/tournament", "");
    assert_eq!(status, 200);
    assert_eq!(info["open"], true);
    assert_eq!(info["entrants"], Value::Array(Vec::new()));

    // Five attempts an address at once: two names, a taken one, a local bot's, a bad one.
    let (status, _, zed) = register(port, "zed");
    assert_eq!(status, 200, "{zed}");
    let token = zed["token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 64);
    let (status, _, body) = register(port, "zed");
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("the name `zed` is taken"))
    );
    let (status, _, _) = register(port, "counter");
    assert_eq!(status, 409, "a local bot's name");
    let (status, _, body) = register(port, "no spaces");
    assert_eq!(status, 400);
    assert!(body["error"]
        .as_str()
        .unwrap()
        .contains("not an entrant name"));
    let (status, _, amy) = register(port, "amy");
    assert_eq!(status, 200, "{amy}");
    let (status, retry, body) = register(port, "bob");
    assert_eq!(status, 429, "{body}");
    assert!(retry.unwrap().parse::<u64>().unwrap() > 0);

    // The file has the two tables, with the tokens' hashes only.
    let text = std::fs::read_to_string(&file).unwrap();
    let entrants = arena::serve::entrants::Entrants::parse(&text).unwrap();
    assert_eq!(entrants.check("zed", &token), Some(0));
    assert_eq!(entrants.list.len(), 2);
    assert!(!text.contains(&token));

    // zed connects; the operator starts; amy never comes.
    let client = morra_client(port, "zed", &token);
    wait_for(|| call(port, "GET", "/api/tournament", "").2["entrants"][0]["connected"] == true);
    writeln!(operator, "start").unwrap();
    // Late entrants may join until the operator closes registration (issue 19).
    writeln!(operator, "close").unwrap();
    wait_for(|| call(port, "GET", "/api/tournament", "").2["open"] == false);
    let (status, _, body) = register(port, "late");
    assert_eq!(status, 409, "{body}");

    assert!(wait_within(&mut child, Duration::from_secs(60)).success());
    assert_eq!(client.join().unwrap(), 1);
    let rows = games(&dir.path().join("out"));
    assert_eq!(rows.len(), 2);
    let zed_row = game_between(&rows, "zed", "counter");
    assert_eq!(zed_row["reason"], "normal");
    let amy_row = game_between(&rows, "amy", "counter");
    assert_eq!(amy_row["reason"], "timeout");
    assert_eq!(result_for(amy_row, "amy"), "loss");
}

/// Waits up to 10 s for `ready`.
fn wait_for(mut ready: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !ready() {
        assert!(std::time::Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(50));
    }
}
