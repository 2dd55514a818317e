//! The live page of `arena serve` in a real headless Chromium, where it could fail a person
//! or disagree with the files: a game given to a join whose answer never reached the page
//! (a reload, a tab closed while it waited) is shown and played (issue 17); the second seat's
//! page waits for the first seat's move without an error (issue 17); and in a gauntlet the
//! page counts points as `standings.csv` does, lists the references from the start, shows
//! only the pairings played and the grades as `grades.csv` has them, brings the person's
//! board into view, names a forfeit's reason once, and says when the tournament is over
//! (issue 18). Screenshots of the page in mid-game and after the end are kept.

mod common;
#[path = "common/page.rs"]
mod page;
#[path = "common/webdriver.rs"]
mod webdriver;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use page::*;
use serde_json::{json, Value};
use webdriver::Browser;

/// A `POST /api/join` of `token` on a raw connection; its answer is read in a thread.
fn join_nobody_reads(port: u16, token: &str) -> std::thread::JoinHandle<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let request = format!(
        "POST /api/join HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Length: 0\r\nConnection: close\r\n\r\n"
    );
    s.write_all(request.as_bytes()).unwrap();
    std::thread::spawn(move || {
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut back = String::new();
        let _ = s.read_to_string(&mut back);
        back
    })
}

#[test]
fn a_game_given_to_a_join_whose_answer_never_reached_the_page_is_shown_and_played_issue_17() {
    let dir = tempfile::tempdir().unwrap();
    let extra = ["--start-when", "1"];
    let (mut child, port) = server(dir.path(), "othello", &["ann"], Some("greedy"), &extra);
    let browser = Browser::start(1200, 1000);
    browser.goto(&format!("http://127.0.0.1:{port}/"));
    sign_in(&browser);
    // A join of ann's whose answer no page reads (it was made by the page before a reload,
    // or by another tab since closed): the tournament starts on it and gives it her game.
    let lost = join_nobody_reads(port, "token-ann");
    let answer = lost.join().unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"game\":1"), "{answer}");

    // The page finds the game all the same, shows it and ann plays it to the end.
    wait(
        &browser,
        "return document.getElementById('my-title').textContent.startsWith('Game 1:')",
        Duration::from_secs(30),
    );
    let result = play_out(&browser);
    assert!(["You won", "You lost", "Draw"].contains(&result.as_str()));
    assert!(wait_within(&mut child, Duration::from_secs(30)).success());
    let rows = games(&dir.path().join("out"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["reason"], "normal", "{:?}", rows[0]);
}

#[test]
fn the_second_seat_s_page_waits_for_the_first_move_without_an_error_issue_17() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (mut child, port) = server(dir.path(), "othello", &["ann", "bob"], None, &[]);
    let url = format!("http://127.0.0.1:{port}/");
    let people = ["ann", "bob"].map(|name| playing_as(&url, name));
    let legal = "return document.querySelector('#my-board .cell.legal') !== null";
    let deadline = Instant::now() + Duration::from_secs(60);
    let first = loop {
        if let Some(i) = (0..2).find(|&i| people[i].eval(legal, json!([])) == true) {
            break i;
        }
        assert!(Instant::now() < deadline, "nobody was asked for a move");
        std::thread::sleep(Duration::from_millis(50));
    };
    // The first seat thinks for longer than a join once waited for its game's first line:
    // the second seat's page keeps waiting, with no error and no retry.
    let second = &people[1 - first];
    let thinking = Instant::now();
    while thinking.elapsed() < Duration::from_secs(8) {
        let status = second.eval(
            "return document.getElementById('my-status').textContent",
            json!([]),
        );
        let status = status.as_str().unwrap_or_default().to_string();
        assert!(
            !status.contains("could not start") && !status.contains("Trying again"),
            "the second seat's page said: {status}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut verdicts: [Option<String>; 2] = [None, None];
    let deadline = Instant::now() + Duration::from_secs(90);
    while verdicts.iter().any(Option::is_none) {
        assert!(Instant::now() < deadline, "the game did not end");
        let mut played = false;
        for (i, browser) in people.iter().enumerate() {
            verdicts[i] = verdict(browser);
            if verdicts[i].is_none() && browser.eval(legal, json!([])) == true {
                let before = moves_shown(browser);
                browser.click(&browser.find("#my-board .cell.legal"));
                taken(browser, before);
                played = true;
            }
        }
        if !played {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    assert!(wait_within(&mut child, Duration::from_secs(30)).success());
    let rows = games(&out);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["reason"], "normal", "{:?}", rows[0]);
}

/// A line-protocol entrant that takes its game's first request and drops the connection.
fn dropper(port: u16, name: &str) -> std::thread::JoinHandle<()> {
    let hello = format!("HELLO {name} token-{name}\n");
    std::thread::spawn(move || {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(hello.as_bytes()).unwrap();
        let mut lines = BufReader::new(s.try_clone().unwrap()).lines();
        // `OK ...`, `GAME ...`, then the first request.
        for _ in 0..3 {
            lines.next();
        }
        drop(s);
    })
}

/// A CSV file as maps from column to value.
fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    (reader.records())
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .map(str::to_string)
                .zip(r.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

/// The cells of a table's body rows on the page.
fn cells(browser: &Browser, table: &str) -> Vec<Vec<String>> {
    let v = browser.eval(
        &format!(
            "return Array.from(document.querySelectorAll('#{table} tbody tr')).map(\
             r => Array.from(r.cells).map(c => c.textContent))"
        ),
        json!([]),
    );
    let rows = v.as_array().unwrap().iter();
    rows.map(|r| {
        (r.as_array().unwrap().iter())
            .map(|c| c.as_str().unwrap().to_string())
            .collect()
    })
    .collect()
}

#[test]
fn in_a_gauntlet_the_live_page_agrees_with_the_files_and_says_when_the_tournament_is_over_issue_18()
{
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let extra = ["--start-when", "2", "--network-grace", "2s"];
    let (mut child, port) = server(
        dir.path(),
        "othello",
        &["ann", "bob"],
        Some("greedy"),
        &extra,
    );
    // A short window, so that the page is taller than it.
    let browser = Browser::start(1000, 500);
    browser.goto(&format!("http://127.0.0.1:{port}/"));
    // The reference is listed from the start; the cross-table has only the pairings played:
    // the candidates against the reference.
    browser.wait_for(
        "return document.querySelector('#standings tr[data-player=\"greedy\"]') !== null",
    );
    browser.wait_for("return document.querySelectorAll('#cross tbody tr').length === 2");
    let heads = browser.eval(
        "return Array.from(document.querySelectorAll('#cross thead th')).map(t => t.textContent)",
        json!([]),
    );
    assert_eq!(heads, json!(["", "greedy"]));
    let crossed: Vec<String> = cells(&browser, "cross")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(crossed, ["ann", "bob"]);

    sign_in(&browser);
    browser.click(&browser.find("#play"));
    // ann reads the tables at the bottom of the page when her game starts: the board comes
    // into view.
    browser.eval("window.scrollTo(0, document.body.scrollHeight)", json!([]));
    let scrolled = browser.eval("return window.scrollY", json!([]));
    assert!(
        scrolled.as_f64().unwrap() > 0.0,
        "the page is taller than the window"
    );
    let bob = dropper(port, "bob");
    wait(
        &browser,
        "return document.getElementById('my-title').textContent.startsWith('Game')",
        Duration::from_secs(30),
    );
    browser.wait_for(
        "var r = document.getElementById('mygame').getBoundingClientRect(); \
         return r.top > -2 && r.top < window.innerHeight / 2",
    );
    bob.join().unwrap();

    // Mid-game (a few moves in), on a tall window.
    for _ in 0..4 {
        wait(
            &browser,
            "return document.querySelector('#my-board .cell.legal') !== null \
             || !!document.getElementById('my-status').dataset.result",
            Duration::from_secs(40),
        );
        if verdict(&browser).is_some() {
            break;
        }
        let before = moves_shown(&browser);
        browser.click(&browser.find("#my-board .cell.legal"));
        taken(&browser, before);
    }
    browser.resize(1200, 1900);
    browser.eval("window.scrollTo(0, 0)", json!([]));
    browser.screenshot(&screenshots().join("serve-page-mid-game.png"));
    let result = play_out(&browser);
    assert!(["You won", "You lost", "Draw"].contains(&result.as_str()));

    // bob's game was lost by his crash: its reason is said once.
    browser.wait_for("return document.querySelectorAll('#finished tbody tr').length === 2");
    let finished = cells(&browser, "finished");
    let bobs = finished
        .iter()
        .find(|r| r[1] == "bob" || r[2] == "bob")
        .unwrap();
    assert!(bobs[5].starts_with("crash: "), "{bobs:?}");
    assert!(!bobs[5].contains("crash: crash"), "{bobs:?}");

    // After the last game the server closes: the page says the tournament is over and stops
    // trying to reach it.
    assert!(wait_within(&mut child, Duration::from_secs(30)).success());
    browser.wait_for("return window.ArenaPage.events.readyState === 2");
    let status = browser.eval(
        "return document.getElementById('status').textContent + ' | ' + \
         document.getElementById('my-status').textContent",
        json!([]),
    );
    let status = status.as_str().unwrap();
    assert!(status.contains("The tournament is over"), "{status}");
    assert!(!status.contains("Trying again"), "{status}");
    browser.eval("window.scrollTo(0, 0)", json!([]));
    browser.screenshot(&screenshots().join("serve-page-over.png"));

    // The standings and grades the page shows are the files'.
    let shown: BTreeMap<String, String> = (cells(&browser, "standings").into_iter())
        .map(|r| (r[1].clone(), r[6].clone()))
        .collect();
    let filed: BTreeMap<String, String> = (csv_rows(&out.join("standings.csv")).into_iter())
        .map(|r| (r["bot"].clone(), r["points"].clone()))
        .collect();
    assert_eq!(shown, filed);
    let grades: BTreeMap<String, String> = (cells(&browser, "grades").into_iter())
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    let filed: BTreeMap<String, String> = (csv_rows(&out.join("grades.csv")).into_iter())
        .map(|r| (r["candidate"].clone(), r["grade"].clone()))
        .collect();
    assert_eq!(grades, filed);
    let verdicts: Value = browser.eval(
        "return document.getElementById('grades-box').hidden",
        json!([]),
    );
    assert_eq!(verdicts, false);
}
