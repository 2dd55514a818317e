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
fn a_shard_without_a_seed_is_refused_before_any_game_issue_18() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("shard-1");
    let bots = ["det-a", "det-b"].map(morra);
    let result = arena(&[
        "run",
        "morra",
        &bots[0],
        &bots[1],
        "--morra-rounds",
        "4",
        "--shard",
        "1/2",
        "--out",
        &path(&out),
    ]);
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: `--shard` needs `--seed`") && stderr.contains("cannot be merged"),
        "{stderr}"
    );
    assert!(!out.exists(), "no game is played: {stderr}");
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

#[test]
fn grades_explain_forfeits_and_standings_recompute_them_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let gauntlet = [
        "--gauntlet",
        "det-a",
        "--gauntlet",
        "det-b",
        "--pass",
        "min-score:50",
    ];
    let mut args = vec![
        "run".to_string(),
        "morra".to_string(),
        "--gauntlet".to_string(),
        morra("det-a"),
        "--gauntlet".to_string(),
        morra("det-b"),
    ];
    for bot in ["det-c", "sleeper", "exit1", "broken-build"] {
        args.push(morra(bot));
    }
    for a in [
        "--games",
        "2",
        "--morra-rounds",
        "5",
        "--move-time",
        "300ms",
        "--pass",
        "min-score:50",
        "--quiet",
        "--out",
    ] {
        args.push(a.to_string());
    }
    args.push(path(&out));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);

    // games.csv keeps the referee's words for each forfeit, in its last column.
    let rows = games(&out);
    for row in &rows {
        let expected = match culprit(row) {
            Some("sleeper") => "timeout: no reply in time",
            Some("exit1") => "crash: exited with status 1",
            _ => "",
        };
        assert_eq!(row["detail"], expected, "{row:?}");
    }
    let grades_csv = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let grades_md = std::fs::read_to_string(out.join("grades.md")).unwrap();
    let line = |name: &str| -> String {
        grades_csv
            .lines()
            .find(|l| l.starts_with(&format!("{name},")))
            .unwrap()
            .to_string()
    };
    assert!(grades_csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",reason,faults,version,version_since"));
    assert!(
        line("sleeper").contains("against det-a: timeout at move 1 (no reply in 300 ms)"),
        "{grades_csv}"
    );
    assert!(
        line("exit1").contains("against det-b: crash: exit status 1"),
        "{grades_csv}"
    );
    // The faults cell, before the version and its time (which hold no comma), is empty.
    assert_eq!(
        line("det-c").split(',').rev().nth(2),
        Some(""),
        "no forfeits: {grades_csv}"
    );
    // In grades.md each forfeit links to its replay and the candidate's log, all present.
    let sleeper = grades_md
        .lines()
        .find(|l| l.starts_with("| sleeper"))
        .unwrap();
    assert!(sleeper.contains("[log](logs/sleeper.log)"), "{grades_md}");
    let links: Vec<&str> = grades_md
        .split("](")
        .skip(1)
        .map(|rest| &rest[..rest.find(')').unwrap()])
        .collect();
    assert!(links.len() >= 10, "{grades_md}");
    for link in links {
        assert!(out.join(link).is_file(), "a link to a missing file: {link}");
    }

    // `arena standings --gauntlet` writes the same grades, in the run's own directory...
    let mut again = vec!["standings".to_string(), path(&out.join("games.csv"))];
    again.extend(gauntlet.iter().map(|s| s.to_string()));
    again.extend(["--out".to_string(), path(&out)]);
    std::fs::remove_file(out.join("grades.csv")).unwrap();
    std::fs::remove_file(out.join("grades.md")).unwrap();
    let args: Vec<&str> = again.iter().map(String::as_str).collect();
    let result = arena_ok(&args);
    assert_eq!(
        std::fs::read_to_string(out.join("grades.csv")).unwrap(),
        grades_csv
    );
    assert_eq!(
        std::fs::read_to_string(out.join("grades.md")).unwrap(),
        grades_md
    );
    let stdout = String::from_utf8(result.stdout).unwrap();
    assert!(stdout.contains("Rule `min-score:50`"), "{stdout}");
    // ...and elsewhere, with `broken-build` from `tournament.json`, and no links.
    let elsewhere = tmp.path().join("elsewhere");
    let n = again.len();
    again[n - 1] = path(&elsewhere);
    let args: Vec<&str> = again.iter().map(String::as_str).collect();
    arena_ok(&args);
    let csv = std::fs::read_to_string(elsewhere.join("grades.csv")).unwrap();
    assert_eq!(csv, grades_csv);
    assert!(csv.contains("broken-build,fail,"), "{csv}");
    let md = std::fs::read_to_string(elsewhere.join("grades.md")).unwrap();
    assert!(!md.contains("]("), "{md}");

    let bad = arena(&[
        "standings",
        &path(&out.join("games.csv")),
        "--pass",
        "beat-all",
    ]);
    let stderr = String::from_utf8(bad.stderr).unwrap();
    assert!(stderr.contains("`--gauntlet NAME`"), "{stderr}");
    let bad = arena(&[
        "standings",
        &path(&out.join("games.csv")),
        "--gauntlet",
        "zed",
    ]);
    let stderr = String::from_utf8(bad.stderr).unwrap();
    assert!(stderr.contains("unknown reference `zed`"), "{stderr}");
}

#[test]
fn regrading_from_the_csv_alone_keeps_the_candidates_left_out_issue_18() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    arena_ok(&[
        "run",
        "morra",
        "--gauntlet",
        &morra("det-a"),
        &morra("det-c"),
        &morra("broken-build"),
        "--games",
        "2",
        "--morra-rounds",
        "5",
        "--quiet",
        "--out",
        &path(&out),
    ]);
    let graded = |dir: &Path| {
        let result = arena(&[
            "standings",
            &path(&dir.join("games.csv")),
            "--gauntlet",
            "det-a",
        ]);
        assert!(result.status.success(), "{result:?}");
        (
            String::from_utf8(result.stdout).unwrap(),
            String::from_utf8(result.stderr).unwrap(),
        )
    };
    // `left_out.csv` beside `games.csv`, written by the run, lists the bot that never played.
    let listed = std::fs::read_to_string(out.join("left_out.csv")).unwrap();
    assert!(listed.starts_with("bot,reason\nbroken-build,"), "{listed}");
    // The two CSVs alone, without `tournament.json`: the left-out candidate still fails.
    let alone = tmp.path().join("alone");
    std::fs::create_dir(&alone).unwrap();
    for file in ["games.csv", "left_out.csv"] {
        std::fs::copy(out.join(file), alone.join(file)).unwrap();
    }
    let (stdout, stderr) = graded(&alone);
    let row = stdout
        .lines()
        .find(|l| l.starts_with("| broken-build"))
        .unwrap_or_else(|| panic!("no row for the bot left out: {stdout}"));
    assert!(row.contains("| fail "), "{row}");
    assert!(stdout.contains("never ran: build failed"), "{stdout}");
    assert!(!stderr.contains("warning"), "{stderr}");
    // `games.csv` alone cannot tell: the command says what it needs.
    let bare = tmp.path().join("bare");
    std::fs::create_dir(&bare).unwrap();
    std::fs::copy(out.join("games.csv"), bare.join("games.csv")).unwrap();
    let (stdout, stderr) = graded(&bare);
    assert!(!stdout.contains("broken-build"), "{stdout}");
    assert!(
        stderr.contains("neither `left_out.csv` nor `tournament.json` is beside"),
        "{stderr}"
    );
}

#[test]
fn each_game_of_a_bot_playing_several_at_once_has_its_own_log_linked_from_the_report_issue_18() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let result = arena_ok(&[
        "run",
        "morra",
        "--gauntlet",
        &morra("stderr-lines"),
        &morra("det-c"),
        &morra("det-d"),
        &morra("exit1"),
        "--games",
        "2",
        "--morra-rounds",
        "30",
        "--jobs",
        "2",
        "--instances",
        "2",
        "--keep-work",
        "--out",
        &path(&out),
    ]);
    // The reference played two games at once, in two copies.
    assert!(out.join("work/stderr-lines@2").is_dir());
    let rows = games(&out);
    assert_eq!(rows.len(), 6);
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    for row in &rows {
        let id = &row["game_id"];
        // The game's seed, which the bot wrote on each of its lines.
        let replay = std::fs::read_to_string(out.join(format!("replays/{id}.jsonl"))).unwrap();
        let header: serde_json::Value =
            serde_json::from_str(replay.lines().next().unwrap()).unwrap();
        let seed = &header["seed"];
        let log = std::fs::read_to_string(out.join(format!("logs/stderr-lines/{id}.log")))
            .unwrap_or_else(|e| panic!("no log of game {id}: {e}"));
        // Every line of the game, in order, and only its lines (a game against `exit1` ends
        // in its first round).
        let rounds = if row["reason"] == "normal" { 30 } else { 1 };
        let expected: Vec<String> = (1..=rounds)
            .map(|n| format!("seed {seed} round {n}"))
            .collect();
        assert_eq!(log.lines().collect::<Vec<_>>(), expected, "game {id}");
        // The report links the game's stderr, from its row in the games list.
        let link = format!("href=\"logs/stderr-lines/{id}.log\"");
        assert!(report.contains(&link), "no {link} in the report");
    }
    // A candidate's crash links its game's stderr from the grades and the report's grades.
    let crashes: Vec<&String> = rows
        .iter()
        .filter(|r| culprit(r) == Some("exit1"))
        .map(|r| &r["game_id"])
        .collect();
    assert_eq!(crashes.len(), 2);
    let grades_md = std::fs::read_to_string(out.join("grades.md")).unwrap();
    for id in crashes {
        let log = format!("logs/exit1/{id}.log");
        assert!(
            grades_md.contains(&format!("[stderr]({log})")),
            "{grades_md}"
        );
        let grades_html = &report[report.find("id=\"grades\"").unwrap()..];
        let grades_html = &grades_html[..grades_html.find("</section>").unwrap()];
        assert!(
            grades_html.contains(&format!("href=\"{log}\"")),
            "{grades_html}"
        );
        assert!(grades_html.contains("exit1: giving up"), "{grades_html}");
        assert_eq!(
            std::fs::read_to_string(out.join(&log)).unwrap(),
            "exit1: giving up\n"
        );
    }
    // The printed grades fit 100 columns, the reasons and forfeits below the table.
    let stdout = String::from_utf8(result.stdout).unwrap();
    let grades = &stdout[stdout.find("Rule `beat-all`").unwrap()..];
    for line in grades.lines() {
        assert!(line.chars().count() <= 100, "{line:?} in\n{grades}");
    }
    assert!(grades.contains("\nexit1 fails: "), "{grades}");
    assert!(
        grades.contains(", stderr in logs/exit1/")
            || grades.contains(", stderr in\n    logs/exit1/"),
        "{grades}"
    );
}
