//! Late entrants of `arena serve` (issue 19, point 5): after the start, an entrant who
//! registers (`--open`) or is added to the `--entrants` file and taken in by the operator's
//! `reload` gets its games against the whole field appended to the running schedule and
//! plays them, until the operator's `close` (or `--close-at`), after which registration is
//! refused with a clear message; the page (in a real headless Chromium) takes a registration
//! after the start and shows the late entrant in its tables with its games.

mod common;
#[path = "common/page.rs"]
mod page;
#[path = "common/webdriver.rs"]
mod webdriver;

use std::io::Write;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use webdriver::Browser;

fn call(port: u16, method: &str, path: &str, body: &str) -> (u16, Value) {
    let (status, _, body) = http_full(port, method, path, None, body);
    (status, body)
}

fn register(port: u16, name: &str) -> (u16, Value) {
    let body = format!("{{\"name\":\"{name}\"}}");
    call(port, "POST", "/api/register", &body)
}

fn tournament(port: u16) -> Value {
    call(port, "GET", "/api/tournament", "").1
}

/// Waits up to 20 s for `ready`.
fn wait_for(mut ready: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !ready() {
        assert!(std::time::Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A served Morra class with open registration: the entrants file and output directory in a
/// directory of its own, and the server, started with `field` (the bundled `counter`, or
/// `--gauntlet` and it) and `flags`.
struct Class {
    /// Holds the files while the server runs.
    _dir: tempfile::TempDir,
    file: std::path::PathBuf,
    out: std::path::PathBuf,
    child: std::process::Child,
    port: u16,
}

fn serve_class(gauntlet: bool, flags: &[&str]) -> Class {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("class.toml");
    let out = dir.path().join("out");
    let counter = bundled("morra").join("counter");
    let mut args = vec!["serve", "morra"];
    if gauntlet {
        args.push("--gauntlet");
    }
    args.extend([
        path(&counter),
        "--entrants",
        path(&file),
        "--out",
        path(&out),
    ]);
    args.extend(["--open", "--listen", "127.0.0.1:0", "--quiet"]);
    args.extend(flags);
    let (child, port) = spawn_server(&args, true);
    Class {
        _dir: dir,
        file,
        out,
        child,
        port,
    }
}

#[test]
fn entrants_who_join_after_the_start_play_the_whole_field_until_the_operator_closes_issue_19() {
    // A long network grace: the first entrant's game waits for it while others join.
    let flags = ["--morra-rounds", "3", "--network-grace", "30s"];
    let mut class = serve_class(false, &flags);
    let (port, out) = (class.port, class.out.clone());
    let mut operator = class.child.stdin.take().unwrap();

    let (status, zed) = register(port, "zed");
    assert_eq!(status, 200, "{zed}");
    writeln!(operator, "start").unwrap();
    wait_for(|| tournament(port)["started"] == true);

    // Registration stays open after the start: a late entrant joins the running tournament.
    assert_eq!(tournament(port)["open"], true);
    let (status, late) = register(port, "late");
    assert_eq!(status, 200, "{late}");
    let names = |t: &Value| -> Vec<String> {
        (t["entrants"].as_array().unwrap().iter())
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&tournament(port)), ["zed", "late"]);

    // An entrant added to the entrants file is taken in by `reload`.
    let token = "f".repeat(64);
    let mut entrants = std::fs::OpenOptions::new()
        .append(true)
        .open(&class.file)
        .unwrap();
    entrants
        .write_all(arena::serve::entrants::table("filed", &token).as_bytes())
        .unwrap();
    writeln!(operator, "reload").unwrap();
    wait_for(|| names(&tournament(port)).len() == 3);
    assert_eq!(names(&tournament(port)), ["zed", "late", "filed"]);

    // The operator closes registration: a later one is refused, saying why.
    writeln!(operator, "close").unwrap();
    wait_for(|| tournament(port)["open"] == false);
    let (status, body) = register(port, "later");
    assert_eq!(status, 409, "{body}");
    assert_eq!(
        body["error"].as_str(),
        Some("registration is closed: the operator closed it")
    );

    let clients = [
        morra_client(port, "zed", zed["token"].as_str().unwrap()),
        morra_client(port, "late", late["token"].as_str().unwrap()),
        morra_client(port, "filed", &token),
    ];
    assert!(wait_within(&mut class.child, Duration::from_secs(120)).success());
    let played: Vec<usize> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    // A round robin of four: each entrant plays the three others.
    assert_eq!(played, [3, 3, 3]);
    let rows = games(&out);
    assert_eq!(rows.len(), 6, "{rows:?}");
    for (x, y) in [
        ("zed", "counter"),
        ("late", "counter"),
        ("late", "zed"),
        ("filed", "counter"),
        ("filed", "zed"),
        ("filed", "late"),
    ] {
        assert_eq!(game_between(&rows, x, y)["reason"], "normal");
    }
    let mut ids: Vec<u64> = rows.iter().map(|r| r["game_id"].parse().unwrap()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [1, 2, 3, 4, 5, 6],
        "appended games follow the schedule's"
    );
    let standings = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    for name in ["late", "filed"] {
        assert!(standings.contains(name), "{standings}");
    }
}

#[test]
fn registration_closes_at_the_close_at_time_issue_19() {
    let at = std::time::SystemTime::now() + Duration::from_secs(3);
    let at = humantime::format_rfc3339_seconds(at).to_string();
    let flags = ["--close-at", &at, "--network-grace", "1s"];
    let mut class = serve_class(false, &flags);
    let (port, out) = (class.port, class.out.clone());
    let (status, zed) = register(port, "zed");
    assert_eq!(status, 200, "{zed}");
    wait_for(|| tournament(port)["open"] == false);
    let (status, body) = register(port, "late");
    assert_eq!(status, 409, "{body}");
    let why = body["error"].as_str().unwrap();
    assert_eq!(
        why,
        format!("registration is closed: the closing time `{at}` has passed")
    );
    let mut operator = class.child.stdin.take().unwrap();
    writeln!(operator, "start").unwrap();
    // zed never comes: its game is lost by timeout, and the tournament ends.
    assert!(wait_within(&mut class.child, Duration::from_secs(60)).success());
    assert_eq!(games(&out).len(), 1);
}

#[test]
fn a_person_registers_on_the_page_after_the_start_and_the_page_shows_their_games_issue_19() {
    let flags = ["--stay", "--morra-rounds", "3", "--network-grace", "30s"];
    let mut class = serve_class(false, &flags);
    let (port, out) = (class.port, class.out.clone());
    let mut operator = class.child.stdin.take().unwrap();
    let (status, zed) = register(port, "zed");
    assert_eq!(status, 200, "{zed}");
    writeln!(operator, "start").unwrap();
    wait_for(|| tournament(port)["started"] == true);

    // The tournament has started (zed's game waits for zed): the page still offers
    // registration, and ann takes a name there.
    let browser = Browser::start(1200, 1000);
    browser.goto(&format!("http://127.0.0.1:{port}/"));
    browser.wait_for("return !document.getElementById('register').hidden");
    browser.type_into(&browser.find("#reg-name"), "ann");
    browser.click(&browser.find("#register-go"));
    browser.wait_for("return !document.getElementById('token-box').hidden");
    let token = browser.eval(
        "return document.getElementById('token-value').textContent",
        json!([]),
    );
    let token = token.as_str().unwrap().to_string();
    let rows = "return Array.from(document.querySelectorAll('#standings tbody tr')).map(\
                r => Array.from(r.cells).map(c => c.textContent))";
    browser.wait_for(
        "return Array.from(document.querySelectorAll('#standings tbody tr'))\
         .some(r => r.cells[1].textContent === 'ann')",
    );
    browser.screenshot(&page::screenshots().join("serve-page-late-registered.png"));

    // zed and ann play over TCP; the page shows ann's games against the whole field.
    let clients = [
        morra_client(port, "zed", zed["token"].as_str().unwrap()),
        morra_client(port, "ann", &token),
    ];
    let played: Vec<usize> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    assert_eq!(played, [2, 2]);
    browser.wait_for(
        "return Array.from(document.querySelectorAll('#standings tbody tr'))\
         .some(r => r.cells[1].textContent === 'ann' && r.cells[2].textContent === '2') \
         && document.querySelectorAll('#finished tbody tr, #finished li').length >= 3",
    );
    let shown = browser.eval(rows, json!([]));
    let ann = (shown.as_array().unwrap().iter())
        .find(|r| r[1] == "ann")
        .expect("ann in the standings");
    assert_eq!(ann[2], "2", "{shown}");
    let cross = browser.eval(
        "return document.querySelector('#cross').textContent",
        json!([]),
    );
    assert!(cross.as_str().unwrap().contains("ann"), "{cross}");
    let finished = browser.eval(
        "return document.getElementById('finished').textContent",
        json!([]),
    );
    let finished = finished.as_str().unwrap();
    assert!(
        finished.contains("ann") && finished.contains("zed") && finished.contains("counter"),
        "{finished}"
    );
    browser.screenshot(&page::screenshots().join("serve-page-late-played.png"));

    // SIGTERM ends the server that stayed; `games.csv` has ann's games.
    unsafe { libc::kill(class.child.id() as i32, libc::SIGTERM) };
    assert!(wait_within(&mut class.child, Duration::from_secs(20)).success());
    let rows = games(&out);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(game_between(&rows, "ann", "counter")["reason"], "normal");
    assert_eq!(game_between(&rows, "ann", "zed")["reason"], "normal");
}

#[test]
fn a_late_candidate_of_a_served_gauntlet_plays_the_references_and_is_graded_issue_19() {
    let flags = ["--morra-rounds", "3", "--network-grace", "30s"];
    let mut class = serve_class(true, &flags);
    let (port, out) = (class.port, class.out.clone());
    let mut operator = class.child.stdin.take().unwrap();
    let (_, zed) = register(port, "zed");
    writeln!(operator, "start").unwrap();
    wait_for(|| tournament(port)["started"] == true);
    let (status, late) = register(port, "late");
    assert_eq!(status, 200, "{late}");
    let clients = [
        morra_client(port, "zed", zed["token"].as_str().unwrap()),
        morra_client(port, "late", late["token"].as_str().unwrap()),
    ];
    assert!(wait_within(&mut class.child, Duration::from_secs(120)).success());
    let played: Vec<usize> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    assert_eq!(played, [1, 1], "candidates play the reference only");
    let rows = games(&out);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(game_between(&rows, "late", "counter")["reason"], "normal");
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    assert!(
        grades.lines().any(|l| l.starts_with("late,")),
        "the late candidate is graded: {grades}"
    );
}
