//! Leaderboards through the real binary: ratings, the HTML report, gauntlet grades, and
//! tournaments split into shards and merged.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn morra(name: &str) -> String {
    fixtures("morra").join(name).display().to_string()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

const DET: [&str; 4] = ["det-a", "det-b", "det-c", "det-d"];

#[test]
fn shards_merge_into_the_tables_of_a_single_run() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bots: Vec<String> = DET.iter().map(|b| morra(b)).collect();
    bots.push(morra("echo-lines"));
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec!["run".to_string(), "morra".to_string()];
        args.extend(bots.iter().cloned());
        args.extend(
            [
                "--morra-rounds",
                "20",
                "--rounds",
                "2",
                "--seed",
                "5",
                "--quiet",
                "--out",
            ]
            .map(String::from),
        );
        args.push(path(out));
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        arena_ok(&args);
    };
    let single = tmp.path().join("single");
    run(&single, &[]);
    let mut csvs = Vec::new();
    let mut ids = Vec::new();
    for i in 1..=4 {
        let out = tmp.path().join(format!("shard{i}"));
        run(&out, &["--shard", &format!("{i}/4")]);
        ids.extend(
            games(&out)
                .iter()
                .map(|r| r["game_id"].parse::<u64>().unwrap()),
        );
        csvs.push(path(&out.join("games.csv")));
    }
    ids.sort();
    assert_eq!(
        ids,
        (1..=20).collect::<Vec<_>>(),
        "every game in exactly one shard"
    );
    let merged = tmp.path().join("merged");
    let mut args = vec!["standings"];
    args.extend(csvs.iter().map(String::as_str));
    let merged_s = path(&merged);
    args.extend(["--out", &merged_s]);
    arena_ok(&args);
    assert_same_tables(&single, &merged);

    let bad = arena(&["run", "morra", "--shard", "5/4"]);
    let stderr = String::from_utf8(bad.stderr).unwrap();
    assert!(
        stderr.contains("`5/4`: the shard must be between 1 and 4"),
        "{stderr}"
    );
}

#[test]
fn a_gauntlet_plays_only_candidates_against_references_and_grades_them() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let result = arena_ok(&[
        "run",
        "morra",
        "--gauntlet",
        &morra("det-a"),
        "--gauntlet",
        &morra("det-b"),
        &morra("det-c"),
        &morra("det-d"),
        &morra("six"),
        &morra("broken-build"),
        "--games",
        "2",
        "--morra-rounds",
        "10",
        "--pass",
        "min-score:50",
        "--out",
        &path(&out),
    ]);
    let rows = games(&out);
    let references = ["det-a", "det-b"];
    // 3 candidates that run x 2 references x 2 games.
    assert_eq!(rows.len(), 12);
    for row in &rows {
        let (a, b) = (row["bot_a"].as_str(), row["bot_b"].as_str());
        assert!(
            references.contains(&a) != references.contains(&b),
            "{row:?}"
        );
    }
    for candidate in ["det-c", "det-d", "six"] {
        for reference in references {
            let firsts = rows
                .iter()
                .filter(|r| r["bot_a"] == candidate && r["bot_b"] == reference)
                .count();
            assert_eq!(
                firsts, 1,
                "{candidate} moves first once against {reference}"
            );
        }
    }
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let lines: Vec<&str> = grades.lines().collect();
    assert!(
        lines[0].starts_with("candidate,grade,games,points,available,percent,det-a:points"),
        "{grades}"
    );
    assert_eq!(
        lines.len(),
        5,
        "every candidate, the one that never ran too: {grades}"
    );
    assert!(lines[1].starts_with("broken-build,fail,"), "{grades}");
    assert!(lines[1].contains("never ran: build failed"), "{grades}");
    assert!(lines[4].starts_with("six,fail,4,0,8,0.0,"), "{grades}");
    let stdout = String::from_utf8(result.stdout).unwrap();
    assert!(stdout.contains("Rule `min-score:50`"), "{stdout}");
    assert!(out.join("grades.md").exists());
}

#[test]
fn ratings_and_the_html_report_come_with_every_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bots: Vec<PathBuf> = ["det-a", "det-b", "det-c", "six", "sleeper"]
        .iter()
        .map(|b| fixtures("morra").join(b))
        .collect();
    let mut args = vec!["run".to_string(), "morra".to_string()];
    args.extend(bots.iter().map(|b| path(b)));
    args.extend(
        [
            "--morra-rounds",
            "30",
            "--rounds",
            "3",
            "--move-time",
            "300ms",
            "--anchor",
            "det-a",
            "--out",
        ]
        .map(String::from),
    );
    args.push(path(&out));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);

    let standings = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    assert!(standings
        .lines()
        .next()
        .unwrap()
        .ends_with(",crashes,elo,elo_low,elo_high"));
    let det_a = standings.lines().find(|l| l.contains(",det-a,")).unwrap();
    assert!(det_a.contains(",0.0,"), "the anchor is at 0: {standings}");
    let los = std::fs::read_to_string(out.join("los.csv")).unwrap();
    assert_eq!(los.lines().count(), 6, "{los}");

    // The report is well-formed, self-contained, names every bot and links failures' replays.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let doc = roxmltree::Document::parse(html.trim_start_matches("<!DOCTYPE html>"))
        .expect("well-formed");
    let text: String = doc.descendants().filter_map(|n| n.text()).collect();
    for bot in ["det-a", "det-b", "det-c", "six", "sleeper"] {
        assert!(text.contains(bot), "`{bot}` is missing from the report");
    }
    assert!(
        !html.contains("http://") && !html.contains("https://") && !html.contains("<script src")
    );
    let links: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("href"))
        .filter(|h| h.starts_with("replays/"))
        .collect();
    assert!(!links.is_empty());
    for link in links {
        assert!(
            out.join(link).exists(),
            "a link to a missing replay: {link}"
        );
    }

    // `arena standings` regenerates the report too, with the same anchor.
    let again = tmp.path().join("again");
    arena_ok(&[
        "standings",
        &path(&out.join("games.csv")),
        "--anchor",
        "det-a",
        "--out",
        &path(&again),
    ]);
    assert_same_tables(&out, &again);
    assert!(again.join("report.html").exists());
    let unknown = arena(&[
        "standings",
        &path(&out.join("games.csv")),
        "--anchor",
        "nobody",
    ]);
    let stderr = String::from_utf8(unknown.stderr).unwrap();
    assert!(stderr.contains("`nobody`"), "{stderr}");
}
