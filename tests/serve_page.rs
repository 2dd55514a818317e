//! The web page of `arena serve` in a real headless Chromium (issue 12): a person signs in
//! with a token and plays a whole Othello game against a bundled bot by clicking the board
//! (reloading the page halfway through),
//! while the same page shows the game live, then the standings, the cross-table and the
//! finished game's replay (the server staying up with `--stay`); with `--open`, a person who
//! registers a name on the page and plays Numer0n through its form, whose secrets the page
//! never shows a watcher while the game is on; two people in two browsers playing each
//! other; and a person who plays a friendly game against a bot between the tournament's
//! games, sees others' rooms and hosts one.

mod common;
#[path = "common/page.rs"]
mod page;
#[path = "common/webdriver.rs"]
mod webdriver;

use std::time::Duration;

use common::*;
use page::*;
use serde_json::json;
use webdriver::Browser;

#[test]
fn a_person_plays_a_whole_othello_game_in_the_browser_and_watches_the_tables_issue_12() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, port) = server(dir.path(), "othello", &["ann"], Some("greedy"), &["--stay"]);
    let browser = Browser::start(1200, 1000);
    browser.goto(&format!("http://127.0.0.1:{port}/"));
    sign_in_and_play(&browser);

    let mut clicks = 0;
    let mut seen_live = false;
    let result = loop {
        wait(
            &browser,
            "return document.querySelector('#my-board .cell.legal') !== null \
             || !!document.getElementById('my-status').dataset.result",
            Duration::from_secs(40),
        );
        if let Some(result) = verdict(&browser) {
            break result;
        }
        // The game is on the page as a live game too, with its board.
        seen_live |= browser.eval(
            "return document.querySelector('#live .card .board') !== null",
            json!([]),
        ) == true;
        let legal = browser.eval(
            "return document.querySelectorAll('#my-board .cell.legal').length",
            json!([]),
        );
        assert!(legal.as_u64().unwrap() > 0);
        let before = moves_shown(&browser);
        browser.click(&browser.find("#my-board .cell.legal"));
        clicks += 1;
        assert!(clicks < 64, "an Othello game has at most 60 moves");
        taken(&browser, before);
        if clicks == 3 {
            // A reload mid-game: the page signs in again from the tab's storage and takes
            // the game back.
            browser.goto(&format!("http://127.0.0.1:{port}/"));
            browser.wait_for("return !document.getElementById('mygame').hidden");
        }
    };
    assert!(clicks >= 2, "ann moved {clicks} times");
    assert!(seen_live, "the game was shown among the games being played");
    assert!(["You won", "You lost", "Draw"].contains(&result.as_str()));

    // The tables: ann and greedy, one game each, the points of the result.
    browser.wait_for(
        "return document.querySelectorAll('#standings tbody tr').length === 2 \
         && document.querySelector('#finished a.replay') !== null",
    );
    let rows = browser.eval(
        "return Array.from(document.querySelectorAll('#standings tbody tr')).map(\
         r => Array.from(r.cells).map(c => c.textContent))",
        json!([]),
    );
    let ann = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[1] == "ann")
        .expect("ann in the standings");
    assert_eq!(ann[2], "1", "one game: {rows}");
    // Points as the files count them: a win 2, a draw 1.
    let points = match result.as_str() {
        "You won" => "2",
        "You lost" => "0",
        _ => "1",
    };
    assert_eq!(ann[6], points, "{rows}");
    let cross = browser.eval(
        "return document.querySelector('#cross tbody').textContent",
        json!([]),
    );
    assert!(cross.as_str().unwrap().contains(&format!("{points}/1")));

    // The finished game's replay opens in the viewer, at its end the same discs.
    browser.click(&browser.find("#finished a.replay"));
    browser.wait_for("return document.getElementById('viewer').open && !!document.querySelector('#v-body .board')");
    browser.click(&browser.find("#v-last"));
    let said = browser.eval(
        "return document.getElementById('v-result').textContent",
        json!([]),
    );
    assert!(said.as_str().unwrap().starts_with("Result:"), "{said}");

    // `--stay` kept the page up after the last game; SIGTERM ends the server.
    assert!(child.try_wait().unwrap().is_none(), "the server stayed");
    assert!(dir.path().join("out/standings.csv").exists());
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(wait_within(&mut child, Duration::from_secs(20)).success());
    let rows = games(&dir.path().join("out"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["reason"], "normal");
    let won = result_for(&rows[0], "ann");
    let expected = match result.as_str() {
        "You won" => "win",
        "You lost" => "loss",
        _ => "draw",
    };
    assert_eq!(won, expected);
}

#[test]
fn a_person_registers_on_the_page_plays_numeron_through_the_form_and_watchers_never_see_the_secrets_issue_12(
) {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, port) = server(
        dir.path(),
        "numeron",
        &[],
        Some("minimizer"),
        &["--network-grace", "5s", "--open", "--start-when", "1"],
    );
    let browser = Browser::start(1200, 1000);
    browser.goto(&format!("http://127.0.0.1:{port}/"));
    // Registration is open: ann picks her name on the page and gets her token there.
    browser.wait_for("return !document.getElementById('register').hidden");
    browser.wait_for(
        "return document.getElementById('status').textContent.includes('Waiting to start: no one has registered yet.')",
    );
    browser.type_into(&browser.find("#reg-name"), "ann");
    browser.click(&browser.find("#register-go"));
    browser.wait_for("return !document.getElementById('me').hidden");
    // The token is shown once, in its own box with a copy button and a word on keeping it;
    // the box stays when the page updates (here: on ann's registration).
    browser.wait_for("return document.getElementById('entrants').textContent.includes('ann')");
    browser.wait_for("return !document.getElementById('token-box').hidden");
    let shown = browser.eval(
        "return document.getElementById('token-value').textContent",
        json!([]),
    );
    let token = shown.as_str().unwrap().to_string();
    let said = browser.eval(
        "return document.getElementById('token-box').textContent",
        json!([]),
    );
    let said = said.as_str().unwrap();
    assert!(
        said.contains("keep it") && said.contains("arena connect"),
        "{said}"
    );
    browser.click(&browser.find("#token-copy"));
    browser.wait_for("return document.getElementById('token-copied').textContent !== ''");
    browser.screenshot(&screenshots().join("serve-page-token.png"));
    assert_eq!(token.len(), 64, "{shown}");
    let table = std::fs::read_to_string(dir.path().join("entrants.toml")).unwrap();
    let entrants = arena::serve::entrants::Entrants::parse(&table).unwrap();
    assert_eq!(entrants.check("ann", &token), Some(0));
    browser.click(&browser.find("#play"));

    let calls = ["012", "345", "678", "901", "234", "567", "890", "123"];
    let mut n = 0;
    let mut secret_sent = false;
    loop {
        wait(
            &browser,
            "return !document.getElementById('my-move').hidden \
             || !!document.getElementById('my-status').dataset.result",
            Duration::from_secs(40),
        );
        if verdict(&browser).is_some() {
            break;
        }
        let label = browser.eval(
            "return document.getElementById('my-fields').textContent",
            json!([]),
        );
        let input = browser.find("#my-input");
        if label.as_str().unwrap().contains("secret") {
            // A wrong secret is refused by the page, not sent.
            browser.type_into(&input, "112");
            browser.click(&browser.find("#my-send"));
            let error = browser.eval(
                "return document.getElementById('my-error').textContent",
                json!([]),
            );
            assert!(
                error.as_str().unwrap().contains("different digits"),
                "{error}"
            );
            browser.eval("document.getElementById('my-input').value = ''", json!([]));
            browser.type_into(&input, "987");
            secret_sent = true;
        } else {
            browser.type_into(&input, calls[n % calls.len()]);
            n += 1;
        }
        let before = moves_shown(&browser);
        browser.click(&browser.find("#my-send"));
        taken(&browser, before);
        if secret_sent && n == 0 {
            // While the game is on, a watcher (the live card) sees no secret.
            wait(
                &browser,
                "return document.querySelector('#live .card tr.secret') !== null",
                Duration::from_secs(10),
            );
            let card = browser.eval(
                "return document.getElementById('live').textContent",
                json!([]),
            );
            assert!(!card.as_str().unwrap().contains("987"), "{card}");
        }
        assert!(n < 60, "a Numer0n game has at most 50 calls each");
    }
    assert!(secret_sent);
    wait_within(&mut child, Duration::from_secs(20));
    let rows = games(&dir.path().join("out"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["reason"], "normal", "{:?}", rows[0]);
}

#[test]
fn two_people_in_two_browsers_play_each_other_a_whole_othello_game_issue_12() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (mut child, port) = server(dir.path(), "othello", &["ann", "bob"], None, &[]);
    let url = format!("http://127.0.0.1:{port}/");
    let people = ["ann", "bob"].map(|name| playing_as(&url, name));

    // Whoever has legal squares plays the first of them, until both pages give a verdict.
    let mut verdicts: [Option<String>; 2] = [None, None];
    let mut moves = 0;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while verdicts.iter().any(Option::is_none) {
        if std::time::Instant::now() > deadline {
            let script = "return document.getElementById('play-box').innerText";
            let shown: Vec<_> = people.iter().map(|b| b.eval(script, json!([]))).collect();
            panic!("the game did not end after {moves} moves: {shown:?}");
        }
        let mut played = false;
        for (i, browser) in people.iter().enumerate() {
            verdicts[i] = verdict(browser);
            let legal = browser.eval(
                "return document.querySelector('#my-board .cell.legal') !== null",
                json!([]),
            );
            if verdicts[i].is_none() && legal == true {
                let before = moves_shown(browser);
                browser.click(&browser.find("#my-board .cell.legal"));
                taken(browser, before);
                moves += 1;
                played = true;
            }
        }
        if !played {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    assert!(moves >= 4, "{moves} moves");
    let [a, b] = verdicts.map(Option::unwrap);
    let pair = (a.as_str(), b.as_str());
    assert!(
        matches!(
            pair,
            ("You won", "You lost") | ("You lost", "You won") | ("Draw", "Draw")
        ),
        "{pair:?}"
    );
    assert!(wait_within(&mut child, Duration::from_secs(20)).success());
    let rows = games(&out);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["reason"], "normal");
    let expected = match a.as_str() {
        "You won" => "win",
        "You lost" => "loss",
        _ => "draw",
    };
    assert_eq!(result_for(&rows[0], "ann"), expected);
}

#[test]
fn a_person_plays_a_friendly_game_against_a_bot_between_the_tournament_s_games_and_hosts_a_room_issue_12(
) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // bob's game waits for him (the grace is long) while ann plays.
    let extra = ["--start-when", "1", "--network-grace", "120s"];
    let (mut child, port) = server(
        dir.path(),
        "othello",
        &["ann", "bob"],
        Some("greedy"),
        &extra,
    );
    let browser = Browser::start(1200, 1000);
    browser.goto(&format!("http://127.0.0.1:{port}/"));
    sign_in_and_play(&browser);

    // ann's game of the tournament; bob has not come yet, so the tournament goes on.
    assert!(["You won", "You lost", "Draw"].contains(&play_out(&browser).as_str()));
    browser.wait_for("return !document.getElementById('friendly').hidden");

    // bob hosts a room: ann's page lists it.
    let (status, hosted) = http(port, "POST", "/api/rooms", Some("token-bob"), "");
    assert_eq!(status, 201, "{hosted}");
    browser.wait_for(
        "return Array.from(document.querySelectorAll('#rooms-list li'))\
         .some(li => li.textContent.includes('bob hosts room') && li.querySelector('button.join-room'))",
    );

    // ann plays greedy, outside the tournament.
    browser.click(&browser.find("#friendly-bots button.play-bot[data-bot='greedy']"));
    wait(
        &browser,
        "return document.getElementById('my-title').textContent.startsWith('Friendly game 1:')",
        Duration::from_secs(20),
    );
    let friendly = play_out(&browser);
    assert!(["You won", "You lost", "Draw"].contains(&friendly.as_str()));

    // The finished friendly game is listed as such, and not counted in the standings.
    browser.wait_for(
        "return Array.from(document.querySelectorAll('#finished tbody tr td:first-child'))\
         .some(td => td.textContent === 'friendly 1')",
    );
    let ann = browser.eval(
        "return document.querySelector('#standings tr[data-player=\"ann\"]').cells[2].textContent",
        json!([]),
    );
    assert_eq!(ann, "1", "ann has played one game of the tournament");

    // ann hosts a room, then closes it.
    browser.click(&browser.find("#host"));
    browser.wait_for("return document.getElementById('hosting').textContent.includes('Your room')");
    let (_, rooms) = http(port, "GET", "/api/rooms", None, "");
    let hosts: Vec<&str> = (rooms["rooms"].as_array().unwrap().iter())
        .map(|r| r["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["bob", "ann"]);
    browser.click(&browser.find("#unhost"));
    browser.wait_for("return !document.getElementById('host').hidden");
    let (_, rooms) = http(port, "GET", "/api/rooms", None, "");
    assert_eq!(rooms["rooms"].as_array().unwrap().len(), 1);

    // bob comes with a bot and plays his game: the tournament is over.
    let bob = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["connect", &format!("127.0.0.1:{port}"), "--name", "bob"])
        .args([
            "--token",
            "token-bob",
            path(&bundled("othello").join("random")),
        ])
        .arg("--no-sandbox")
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(bob.success());
    assert!(wait_within(&mut child, Duration::from_secs(30)).success());
    let rows = games(&out);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["reason"] == "normal"), "{rows:?}");
    let text = std::fs::read_to_string(out.join("friendly.csv")).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    let row: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(
        row[2..6],
        ["1000000001", "othello", "ann", "greedy"],
        "{text}"
    );
    let expected = match friendly.as_str() {
        "You won" => "a",
        "You lost" => "b",
        _ => "draw",
    };
    assert_eq!((row[8], row[9]), (expected, "normal"), "{text}");
}
