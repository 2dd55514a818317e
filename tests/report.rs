//! `report.html` in a real headless Chromium (through `chromedriver`): the standings come
//! first and the configuration last, a replay link opens the in-page viewer, and stepping
//! through a game changes the board (Othello, Gomoku) or the table (Numer0n, Morra), from
//! a file and, for a merged report, over HTTP. Screenshots go into the test's temporary
//! directory, and one per game into `/tmp/report-shots/`.

mod common;
#[path = "common/webdriver.rs"]
mod webdriver;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::*;
use serde_json::{json, Value};
use webdriver::Browser;

/// Where a copy of one screenshot per game is kept for people to look at.
const SHOTS: &str = "/tmp/report-shots";

fn url(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

fn bot(game: &str, name: &str) -> String {
    bundled(game).join(name).display().to_string()
}

/// Runs a small tournament with seed 7 into `out`.
fn run(game: &str, bots: &[&str], extra: &[&str], out: &Path) {
    run_seeded(game, bots, extra, out, "7");
}

fn run_seeded(game: &str, bots: &[&str], extra: &[&str], out: &Path, seed: &str) {
    let mut args = vec!["run", game, "--seed", seed, "--jobs", "2"];
    args.extend_from_slice(extra);
    let bots: Vec<String> = bots.iter().map(|b| bot(game, b)).collect();
    args.extend(bots.iter().map(String::as_str));
    let out = out.display().to_string();
    args.extend(["--out", &out]);
    arena_ok(&args);
}

fn count(b: &Browser, selector: &str) -> u64 {
    let v = b.eval(
        "return document.querySelectorAll(arguments[0]).length;",
        json!([selector]),
    );
    v.as_u64().unwrap()
}

fn text(b: &Browser, selector: &str) -> String {
    let v = b.eval(
        "return document.querySelector(arguments[0]).textContent;",
        json!([selector]),
    );
    v.as_str().unwrap_or_default().to_string()
}

/// The sections in page order, and whether the configuration starts collapsed.
fn check_layout(b: &Browser, gauntlet: bool) {
    let ids = b.eval(
        "return Array.from(document.querySelectorAll('main > section')).map(s => s.id);",
        json!([]),
    );
    let ids: Vec<&str> = ids
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // A gauntlet's grades come first (issue 18).
    let mut expected = if gauntlet {
        vec!["grades", "standings"]
    } else {
        vec!["standings"]
    };
    expected.extend(["crosstable", "failures", "games", "configuration"]);
    if ids.contains(&"left-out") {
        expected.insert(expected.len() - 3, "left-out");
    }
    assert_eq!(ids, expected);
    assert_eq!(
        b.eval(
            "return document.querySelector('#configuration details').open;",
            json!([])
        ),
        false
    );
    // The results are on screen when the page opens; the configuration is not.
    let top = |id: &str| {
        b.eval(
            "return document.getElementById(arguments[0]).getBoundingClientRect().top;",
            json!([id]),
        )
        .as_f64()
        .unwrap()
    };
    let first = expected[0];
    assert!(top(first) < 300.0, "{first} start at {}", top(first));
}

/// The configuration row `label`'s value.
fn config(b: &Browser, label: &str) -> Option<String> {
    let v = b.eval(
        "for (const tr of document.querySelectorAll('.config tr')) { \
           if (tr.cells[0].textContent === arguments[0]) return tr.cells[1].textContent; } \
         return null;",
        json!([label]),
    );
    v.as_str().map(str::to_string)
}

/// Clicks replay link `selector` and waits for the viewer to show the game.
fn open_replay(b: &Browser, selector: &str) -> u64 {
    b.click(&b.find(selector));
    b.wait_for(
        "return document.getElementById('viewer').open && \
         /^0 \\/ \\d+$/.test(document.getElementById('v-pos').textContent);",
    );
    let pos = text(b, "#v-pos");
    pos.rsplit(' ').next().unwrap().parse().unwrap()
}

fn next(b: &Browser) {
    b.click(&b.find("#v-next"));
}

fn last(b: &Browser) {
    b.click(&b.find("#v-last"));
}

fn shot(b: &Browser, dir: &Path, name: &str) {
    let path = dir.join(format!("{name}.png"));
    b.screenshot(&path);
    let png = std::fs::read(&path).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "{name}.png is not a PNG");
    std::fs::create_dir_all(SHOTS).unwrap();
    std::fs::copy(&path, Path::new(SHOTS).join(format!("{name}.png"))).unwrap();
}

/// The first game of `games.csv` by number: the first the report lists, in game order
/// (games end in any order when they run side by side).
fn first_game(out: &Path) -> Row {
    games(out)
        .into_iter()
        .min_by_key(|r| r["game_id"].parse::<u64>().unwrap())
        .unwrap()
}

fn othello(b: &Browser, root: &Path) {
    let out = root.join("othello");
    run(
        "othello",
        &["greedy"],
        &["--gauntlet", &bot("othello", "random"), "--games", "2"],
        &out,
    );
    b.goto(&url(&out.join("report.html")));
    check_layout(b, true);
    assert_eq!(count(b, "#grades tbody tr"), 1);
    assert_eq!(config(b, "memory").as_deref(), Some("512 MiB"));
    assert_eq!(config(b, "move time").as_deref(), Some("20 s"));
    assert_eq!(config(b, "opening plies").as_deref(), Some("0"));
    assert_eq!(config(b, "digits"), None);
    assert_eq!(config(b, "morra rounds"), None);
    shot(b, root, "othello-report");
    let row = first_game(&out);
    let steps = open_replay(b, "#games a.replay");
    assert_eq!(count(b, "#viewer .board .cell"), 64);
    assert_eq!(count(b, "#viewer .stone"), 4);
    next(b);
    assert_eq!(text(b, "#v-pos"), format!("1 / {steps}"));
    assert_eq!(count(b, "#viewer .stone"), 5);
    b.keys("\u{E014}"); // the right arrow
    assert_eq!(count(b, "#viewer .stone"), 6);
    b.keys("\u{E012}"); // the left arrow
    assert_eq!(count(b, "#viewer .stone"), 5);
    for _ in 0..10 {
        next(b);
    }
    shot(b, root, "othello");
    last(b);
    // The discs computed in the page (with their flips) are the game's final score.
    assert_eq!(
        count(b, "#viewer .stone.black").to_string(),
        row["score_a"],
        "black discs at the end"
    );
    assert_eq!(count(b, "#viewer .stone.white").to_string(), row["score_b"]);
    b.keys("\u{E00C}"); // Escape closes the viewer
    assert_eq!(
        b.eval("return document.getElementById('viewer').open;", json!([])),
        false
    );
}

/// A class's gauntlet: the grades say how each candidate lost its games, for people.
fn grades(b: &Browser, root: &Path) {
    let out = root.join("gauntlet");
    let fixture = |name: &str| fixtures("othello").join(name).display().to_string();
    arena_ok(&[
        "run",
        "othello",
        "--seed",
        "7",
        "--jobs",
        "2",
        "--games",
        "2",
        "--gauntlet",
        &bot("othello", "random"),
        &bot("othello", "greedy"),
        &fixture("syntax-error"),
        &fixture("thinking"),
        "--out",
        &out.display().to_string(),
    ]);
    b.goto(&url(&out.join("report.html")));
    check_layout(b, true);
    assert_eq!(count(b, "#grades tbody tr"), 3);
    let row = |name: &str| {
        b.eval(
            "for (const tr of document.querySelectorAll('#grades tbody tr')) { \
               if (tr.cells[0].textContent === arguments[0]) return tr.textContent; } \
             return null;",
            json!([name]),
        )
        .as_str()
        .unwrap_or_else(|| panic!("no grades row for {name}"))
        .to_string()
    };
    // The crash, with its error and the first lines of its traceback from the game's stderr.
    let crashed = row("syntax-error");
    assert!(
        crashed.contains("crash: exit status 1 (SyntaxError in bot.py line 3)"),
        "{crashed}"
    );
    let traceback = text(b, "#grades pre.traceback");
    assert!(traceback.contains("bot.py\", line 3"), "{traceback}");
    assert!(traceback.contains("SyntaxError"), "{traceback}");
    // Each forfeit links its replay and its game's stderr, which exist.
    assert_eq!(count(b, "#grades tbody tr a.log"), 2);
    let logs = b.eval(
        "return Array.from(document.querySelectorAll('#grades a.log')).map(a => a.getAttribute('href'));",
        json!([]),
    );
    for log in logs.as_array().unwrap() {
        let log = log.as_str().unwrap();
        assert!(log.starts_with("logs/syntax-error/"), "{log}");
        assert!(out.join(log).is_file(), "{log}");
    }
    assert!(count(b, "#grades tbody tr a.replay") >= 4);
    // An illegal reply is quoted as code, never in Markdown's backticks.
    let thinking = row("thinking");
    assert!(
        thinking.contains("illegal reply thinking... at move 1"),
        "{thinking}"
    );
    let codes = b.eval(
        "return Array.from(document.querySelectorAll('#grades code')).map(c => c.textContent);",
        json!([]),
    );
    assert!(
        codes.as_array().unwrap().iter().any(|c| c == "thinking..."),
        "{codes}"
    );
    assert!(!text(b, "#grades").contains('`'), "{}", text(b, "#grades"));
    shot(b, root, "gauntlet-report");
}

fn gomoku(b: &Browser, root: &Path) {
    let out = root.join("gomoku");
    run(
        "gomoku",
        &["pattern", "random-near"],
        &["--games", "2"],
        &out,
    );
    b.goto(&url(&out.join("report.html")));
    check_layout(b, false);
    assert_eq!(config(b, "opening plies").as_deref(), Some("0"));
    assert_eq!(config(b, "move time").as_deref(), Some("1 min"));
    let row = first_game(&out);
    let steps = open_replay(b, "#games a.replay");
    assert_eq!(count(b, "#viewer .board .cell"), 225);
    assert_eq!(count(b, "#viewer .stone"), 0);
    next(b);
    assert_eq!(count(b, "#viewer .stone.black"), 1);
    next(b);
    assert_eq!(count(b, "#viewer .stone"), 2);
    for _ in 0..5 {
        next(b);
    }
    shot(b, root, "gomoku");
    last(b);
    assert_eq!(count(b, "#viewer .stone").to_string(), row["plies"]);
    assert_eq!(steps.to_string(), row["plies"]);
}

fn numeron(b: &Browser, root: &Path) {
    let out = root.join("numeron");
    run(
        "numeron",
        &["minimizer", "random-consistent"],
        &["--games", "2"],
        &out,
    );
    b.goto(&url(&out.join("report.html")));
    check_layout(b, false);
    assert_eq!(config(b, "digits").as_deref(), Some("3"));
    assert_eq!(config(b, "opening plies"), None);
    let row = first_game(&out);
    open_replay(b, "#games a.replay");
    assert_eq!(count(b, "#viewer tr.call"), 0);
    for n in 1..=4 {
        next(b);
        assert_eq!(count(b, "#viewer tr.call"), n);
    }
    assert!(text(b, "#v-status").starts_with("Secrets: "));
    shot(b, root, "numeron");
    last(b);
    let calls = count(b, "#viewer tr.call:not(.secret)");
    assert_eq!(calls.to_string(), row["plies"]);
    assert!(count(b, "#viewer tr.hit") >= 1, "someone found the secret");
}

fn morra(b: &Browser, root: &Path) {
    let out = root.join("morra");
    run(
        "morra",
        &["random", "counter"],
        &["--morra-rounds", "30"],
        &out,
    );
    b.goto(&url(&out.join("report.html")));
    check_layout(b, false);
    assert_eq!(config(b, "morra rounds").as_deref(), Some("30"));
    assert_eq!(config(b, "move time").as_deref(), Some("500 ms"));
    assert_eq!(config(b, "digits"), None);
    let row = first_game(&out);
    let steps = open_replay(b, "#games a.replay");
    assert_eq!(steps, 30);
    next(b);
    next(b);
    assert_eq!(count(b, "#viewer tr.round"), 2);
    for _ in 0..10 {
        next(b);
    }
    shot(b, root, "morra");
    last(b);
    let score = b.eval(
        "const rows = document.querySelectorAll('#viewer tr.round'); \
         const cells = rows[rows.length - 1].cells; return cells[cells.length - 1].textContent;",
        json!([]),
    );
    assert_eq!(
        score,
        Value::from(format!("{}–{}", row["score_a"], row["score_b"]))
    );
}

/// Serves `root` over HTTP with Python's `http.server` on a free port.
fn serve(root: &Path) -> (Child, u16) {
    require_python3();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("/usr/bin/python3")
        .args([
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
        ])
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    (child, port)
}

/// Two runs merged by `arena standings` link each game to its own run's replay; over HTTP
/// the viewer fetches it when the page does not embed it.
fn merged(b: &Browser, root: &Path) {
    // Two shards of one tournament: only those merge.
    let runs: Vec<PathBuf> = ["first", "second"].map(|r| root.join(r)).to_vec();
    for (k, out) in runs.iter().enumerate() {
        let shard = format!("{}/2", k + 1);
        run_seeded(
            "othello",
            &["greedy", "random"],
            &["--games", "2", "--rounds", "2", "--shard", &shard],
            out,
            "1",
        );
    }
    let merged = root.join("merged");
    let csvs: Vec<String> = runs
        .iter()
        .map(|r| r.join("games.csv").display().to_string())
        .collect();
    let merged_arg = merged.display().to_string();
    arena_ok(&["standings", &csvs[0], &csvs[1], "--out", &merged_arg]);
    b.goto(&url(&merged.join("report.html")));
    let hrefs = b.eval(
        "return Array.from(document.querySelectorAll('#games a.replay')).map(a => a.getAttribute('href'));",
        json!([]),
    );
    let hrefs: Vec<&str> = hrefs
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(hrefs.len(), 4);
    let in_run = |run: &str| {
        hrefs
            .iter()
            .filter(|h| h.starts_with(&format!("../{run}/replays/")))
            .count()
    };
    assert_eq!(in_run("first"), games(&runs[0]).len());
    assert_eq!(in_run("second"), games(&runs[1]).len());
    let last_run = if hrefs[3].starts_with("../first/") {
        "first"
    } else {
        "second"
    };
    open_replay(b, "#games tr:last-child a.replay");
    assert!(
        text(b, "#v-sub").ends_with(&format!("run {last_run}")),
        "{}",
        text(b, "#v-sub")
    );

    let (mut server, port) = serve(root);
    b.goto(&format!("http://127.0.0.1:{port}/merged/report.html"));
    b.eval("window.ARENA_REPLAYS = {};", json!([]));
    let steps = open_replay(b, "#games tr:last-child a.replay");
    assert!(steps > 0);
    next(b);
    assert_eq!(count(b, "#viewer .stone"), 5);
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn the_report_puts_results_first_and_plays_replays_in_the_page() {
    require_python3();
    require_perl();
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let b = Browser::start(1100, 900);
    othello(&b, root);
    grades(&b, root);
    gomoku(&b, root);
    numeron(&b, root);
    morra(&b, root);
    merged(&b, root);
    eprintln!("browser checks took {:?}", started.elapsed());
}
