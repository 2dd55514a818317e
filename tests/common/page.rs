//! What the browser tests of the live page share: signing in, waiting for the page, playing
//! a person's Othello game by clicking, and where screenshots go.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use serde_json::json;

use super::common::{bundled, entrants, path, spawn_server};
use super::webdriver::Browser;

/// Where the tests keep their screenshots of the page, for people to look at.
pub fn screenshots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-page-shots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Signs in as `ann` and asks for her games.
pub fn sign_in_and_play(browser: &Browser) {
    sign_in(browser);
    browser.click(&browser.find("#play"));
}

/// Signs in as `ann` with her token.
pub fn sign_in(browser: &Browser) {
    sign_in_as(browser, "ann");
}

/// Signs in as `name` (token `token-NAME`) and asks for the games.
pub fn sign_in_as(browser: &Browser, name: &str) {
    browser.wait_for(
        "return document.getElementById('status').textContent.includes('Waiting to start')",
    );
    browser.type_into(&browser.find("#token"), &format!("token-{name}"));
    browser.click(&browser.find("#signin-go"));
    browser.wait_for("return !document.getElementById('me').hidden");
    let shown = browser.eval(
        "return document.getElementById('me-name').textContent",
        json!([]),
    );
    assert_eq!(shown, name);
}

/// A browser at `url`, signed in as `name`, that has pressed *Play my games*.
pub fn playing_as(url: &str, name: &str) -> Browser {
    let browser = Browser::start(1000, 900);
    browser.goto(url);
    sign_in_as(&browser, name);
    browser.click(&browser.find("#play"));
    browser
}

/// Waits up to `within` for `script` to return true; fails showing the person's game.
pub fn wait(browser: &Browser, script: &str, within: Duration) {
    let deadline = std::time::Instant::now() + within;
    while browser.eval(script, json!([])) != true {
        if std::time::Instant::now() > deadline {
            let shown = browser.eval(
                "var x = new XMLHttpRequest(); x.open('GET', '/api/games/1', false); x.setRequestHeader('Authorization', 'Bearer token-ann'); x.send(); return document.getElementById('mygame').innerText + '\\n' + x.responseText + '\\n' + document.getElementById('my-board').dataset.moves",
                json!([]),
            );
            panic!(
                "timed out waiting for `{script}`; the page shows:\n{}",
                shown.as_str().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The moves of the person's game the page shows.
pub fn moves_shown(browser: &Browser) -> String {
    let v = browser.eval(
        "return document.getElementById('my-board').dataset.moves",
        json!([]),
    );
    v.as_str().unwrap_or_default().to_string()
}

/// Waits until the page shows the move just played (or the game's end).
pub fn taken(browser: &Browser, before: String) {
    wait(
        browser,
        &format!(
            "return document.getElementById('my-board').dataset.moves !== '{before}' \
             || !!document.getElementById('my-status').dataset.result"
        ),
        Duration::from_secs(10),
    );
}

/// The page's verdict on the person's game, once there is one.
pub fn verdict(browser: &Browser) -> Option<String> {
    let v = browser.eval(
        "return document.getElementById('my-status').dataset.result || null",
        json!([]),
    );
    v.as_str().map(str::to_string)
}

/// Plays the person's game by clicking its first legal square until the page gives its
/// verdict; the verdict.
pub fn play_out(browser: &Browser) -> String {
    for _ in 0..64 {
        wait(
            browser,
            "return document.querySelector('#my-board .cell.legal') !== null \
             || !!document.getElementById('my-status').dataset.result",
            Duration::from_secs(40),
        );
        if let Some(result) = verdict(browser) {
            return result;
        }
        let before = moves_shown(browser);
        browser.click(&browser.find("#my-board .cell.legal"));
        taken(browser, before);
    }
    panic!("an Othello game has at most 60 moves");
}

/// Starts `arena serve GAME` for the entrants `people` (tokens `token-NAME`), with one game
/// a pairing, in a gauntlet against `bots/GAME/BOT` if `bot` is given; the server and its
/// port.
pub fn server(
    dir: &Path,
    game: &str,
    people: &[&str],
    bot: Option<&str>,
    extra: &[&str],
) -> (Child, u16) {
    let file = if people.is_empty() {
        dir.join("entrants.toml")
    } else {
        entrants(dir, people)
    };
    let reference = bot.map(|b| bundled(game).join(b));
    let gauntlet = match &reference {
        Some(r) => vec!["--gauntlet", path(r)],
        None => Vec::new(),
    };
    let out = dir.join("out");
    let args = [
        "serve",
        game,
        "--entrants",
        path(&file),
        "--out",
        path(&out),
    ];
    let rest = ["--listen", "127.0.0.1:0", "--games", "1", "--seed", "3"];
    let all = [
        &args[..],
        &gauntlet,
        &rest,
        &["--move-time", "30s", "--quiet"],
        extra,
    ]
    .concat();
    spawn_server(&all, false)
}
