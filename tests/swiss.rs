//! `--format swiss`: Swiss rounds through the real binary with real (shell) bots.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::*;

/// Sixteen Morra bots, each always showing and guessing its own numbers, so that the games
/// are decided and the same in every run.
fn field(dir: &Path, count: usize) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    (0..count)
        .map(|k| {
            let path: PathBuf = dir.join(format!("bot{k:02}"));
            let script = format!("#!/bin/sh\necho {} {}\n", k % 6, (k * 7 + k / 6) % 6);
            std::fs::write(&path, script).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path.display().to_string()
        })
        .collect()
}

fn run(bots: &[String], out: &Path, rounds: &str) -> std::process::Output {
    let mut args: Vec<&str> = vec!["run", "morra"];
    args.extend(bots.iter().map(String::as_str));
    args.extend([
        "--format",
        "swiss",
        "--swiss-rounds",
        rounds,
        "--morra-rounds",
        "3",
        "--jobs",
        "2",
        "--seed",
        "5",
        "--no-replays",
        "--quiet",
        "--out",
        path(out),
    ]);
    arena_ok(&args)
}

/// Checks `games.csv` of a Swiss of `bots` bots and `rounds` rounds: each round one pair of
/// colour-swapped games per bot (none for a bye), and no two bots paired twice.
fn check_rounds(out: &Path, bots: usize, rounds: u32) {
    let rows = games(out);
    assert_eq!(rows.len(), rounds as usize * 2 * (bots / 2));
    let mut pairings: BTreeMap<(String, String), BTreeSet<u32>> = BTreeMap::new();
    for round in 1..=rounds {
        let games: Vec<&Row> = rows
            .iter()
            .filter(|r| r["round"] == round.to_string())
            .collect();
        let mut per_bot: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
        for g in &games {
            for bot in [&g["bot_a"], &g["bot_b"]] {
                per_bot
                    .entry(bot)
                    .or_default()
                    .push((g["bot_a"].as_str(), g["bot_b"].as_str()));
            }
            let mut key = [g["bot_a"].clone(), g["bot_b"].clone()];
            key.sort();
            pairings
                .entry((key[0].clone(), key[1].clone()))
                .or_default()
                .insert(round);
        }
        assert_eq!(per_bot.len(), bots - bots % 2, "round {round}");
        for (bot, games) in &per_bot {
            assert_eq!(games.len(), 2, "round {round}: {bot} played {games:?}");
            // The two games of a pair have the seats swapped.
            assert_eq!(games[0], (games[1].1, games[1].0), "round {round}: {bot}");
        }
    }
    for (pair, rounds) in &pairings {
        assert_eq!(rounds.len(), 1, "{pair:?} met in rounds {rounds:?}");
    }
}

#[test]
fn sixteen_bots_play_five_swiss_rounds_without_a_repeated_pairing() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = field(tmp.path(), 16);
    let out = tmp.path().join("out");
    let run = run(&bots, &out, "5");
    check_rounds(&out, 16, 5);
    let table = std::fs::read_to_string(out.join("swiss.md")).unwrap();
    assert!(
        table.starts_with("Swiss standings after 5 rounds"),
        "{table}"
    );
    assert_eq!(table.matches("| rank | bot |").count(), 1);
    // Every bot is ranked once, with its ten games.
    for k in 0..16 {
        let line = table
            .lines()
            .find(|l| l.contains(&format!("| bot{k:02} |")))
            .unwrap_or_else(|| panic!("bot{k:02} missing:\n{table}"));
        assert!(line.ends_with("| 10 | 0 |"), "{line}");
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("<section id=\"swiss\">"),
        "no Swiss section"
    );
    assert!(report.matches("<td class=\"bot\">bot").count() >= 16);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("Swiss standings after 5 rounds"),
        "{stdout}"
    );
    // The cross-table shows the pairings played only: 5 of 15 opponents for each bot.
    let cross = std::fs::read_to_string(out.join("crosstable.md")).unwrap();
    for line in cross.lines().skip(2) {
        let filled = line
            .split('|')
            .skip(2)
            .take(16)
            .filter(|c| !c.trim().is_empty() && c.trim() != "·")
            .count();
        assert_eq!(filled, 5, "{line}");
    }
}

#[test]
fn an_odd_field_gives_one_bye_a_round_and_resumes_mid_round_to_the_same_end() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = field(tmp.path(), 7);
    let out = tmp.path().join("out");
    run(&bots, &out, "4");
    check_rounds(&out, 7, 4);
    let table = std::fs::read_to_string(out.join("swiss.md")).unwrap();
    let byes = table
        .lines()
        .find_map(|l| l.strip_prefix("Byes, round by round: "))
        .unwrap_or_else(|| panic!("{table}"));
    let byes: Vec<&str> = byes.split(", ").collect();
    assert_eq!(byes.len(), 4);
    assert_eq!(byes.iter().collect::<BTreeSet<_>>().len(), 4, "{byes:?}");

    // Keep rounds 1 and 2 and two games of round 3 (six games a round), then resume.
    let sorted = |out: &Path| -> Vec<Row> {
        let mut rows = games(out);
        rows.sort_by_key(|r| r["game_id"].parse::<u64>().unwrap());
        for r in &mut rows {
            r.remove("duration_ms");
            r.remove("run");
        }
        rows
    };
    let whole = sorted(&out);
    let text = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    lines.sort_by_key(|l| {
        let id = l.split(',').nth(2).unwrap();
        id.parse::<u64>().unwrap_or(0)
    });
    let kept: Vec<&str> = std::iter::once(header)
        .chain(lines.into_iter().take(14))
        .collect();
    std::fs::write(out.join("games.csv"), kept.join("\n") + "\n").unwrap();
    std::fs::remove_file(out.join("swiss.md")).unwrap();
    let resumed = arena_ok(&["resume", path(&out), "--quiet"]);
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("14 games already played"));
    assert_eq!(sorted(&out), whole);
    assert_eq!(
        std::fs::read_to_string(out.join("swiss.md")).unwrap(),
        table
    );
}
