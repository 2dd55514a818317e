//! Opening books (`--openings FILE`, issue 20): every pairing plays each opening of the file
//! with both colours, a bad line is refused before the first game, and `resume` refuses a
//! book that changed.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;
use serde_json::Value;

/// The first line of game `id`'s replay.
fn header(out: &Path, id: &str) -> Value {
    let text = std::fs::read_to_string(out.join(format!("replays/{id}.jsonl"))).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// A game's seats (A first) and the opening it started from.
type Played = ([String; 2], Vec<String>);

const BOOK: &str = "\
# two openings: one with spaces, one as the XOT lists write them
f5 d6 c3

f5f6e6f4 # a comment after a line
";

#[test]
fn each_pairing_plays_each_opening_with_both_colours_issue_20() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    let book = tmp.path().join("book.txt");
    std::fs::write(&book, BOOK).unwrap();
    let out = tmp.path().join("out");
    let bots =
        ["random", "greedy", "alphabeta"].map(|b| path(&bundled("othello").join(b)).to_string());
    arena_ok(&[
        "run",
        "othello",
        &bots[0],
        &bots[1],
        &bots[2],
        "--games",
        "4",
        "--openings",
        path(&book),
        "--seed",
        "5",
        "--quiet",
        "--out",
        path(&out),
    ]);
    let rows = games(&out);
    assert_eq!(rows.len(), 12, "3 pairings of 4 games");
    let lines = [vec!["f5", "d6", "c3"], vec!["f5", "f6", "e6", "f4"]];
    // For each pairing: which opening each colour arrangement played.
    let mut seen: BTreeMap<[String; 2], Vec<Played>> = BTreeMap::new();
    for row in &rows {
        let h = header(&out, &row["game_id"]);
        let opening: Vec<String> = (h["opening"].as_array().unwrap().iter())
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        assert!(
            lines.iter().any(|l| *l == opening),
            "game {}: opening {opening:?} is not a line of the book",
            row["game_id"]
        );
        let seats = [row["bot_a"].clone(), row["bot_b"].clone()];
        let mut key = seats.clone();
        key.sort();
        seen.entry(key).or_default().push((seats, opening));
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
    for (pairing, games) in &seen {
        for line in &lines {
            let with: Vec<&[String; 2]> = (games.iter())
                .filter(|(_, o)| o == line)
                .map(|(s, _)| s)
                .collect();
            // One colour-swapped pair of games per opening.
            assert_eq!(with.len(), 2, "{pairing:?} played {line:?} {with:?}");
            assert_eq!(
                *with[0],
                [with[1][1].clone(), with[1][0].clone()],
                "{pairing:?}"
            );
        }
    }
    // The file and its checksum are recorded; a changed file cannot be resumed.
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    let t = &info["config"]["tournament"];
    assert_eq!(t["openings"], path(&book));
    assert_eq!(t["openings_sha256"].as_str().unwrap().len(), 64, "{t}");
    std::fs::write(&book, "f5\n").unwrap();
    let again = arena(&["resume", path(&out), "--quiet"]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(!again.status.success(), "{stderr}");
    assert!(
        stderr.contains("openings file") && stderr.contains("changed since the tournament started"),
        "{stderr}"
    );
}

#[test]
fn a_bad_line_is_refused_with_its_line_number_before_the_first_game_issue_20() {
    let tmp = tempfile::tempdir().unwrap();
    let book = tmp.path().join("bad.txt");
    std::fs::write(&book, "f5 d6\n# a comment\nf5 a1 c3\n").unwrap();
    let out = tmp.path().join("out");
    let greedy = path(&bundled("othello").join("greedy")).to_string();
    let random = path(&bundled("othello").join("random")).to_string();
    let run = arena(&[
        "run",
        "othello",
        &greedy,
        &random,
        "--openings",
        path(&book),
        "--quiet",
        "--out",
        path(&out),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("{}:3: move 2 `a1` is illegal", path(&book))),
        "{stderr}"
    );
    assert!(!out.join("games.csv").exists(), "no game is played");

    // A game with no position to start from refuses a book.
    let run = arena(&["run", "morra", "a", "b", "--openings", path(&book)]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(
        stderr.contains("`--openings` applies to othello and gomoku"),
        "{stderr}"
    );
}
