//! `arena run ... --update` (issue 19): a finished tournament takes a new bot, a revised one
//! and the loss of one, each update playing only the changed pairings' games, and ends with
//! the outputs of a fresh run of the same field and seed, byte for byte.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// The tables a fresh run and an update must agree on, byte for byte.
const TABLES: [&str; 5] = [
    "standings.csv",
    "standings.md",
    "crosstable.csv",
    "crosstable.md",
    "los.csv",
];

/// Copies of the deterministic Morra bots into `dir` (so one can be revised), and the
/// bundled `random`, whose every choice follows its game's `ARENA_SEED`.
fn field(dir: &Path) -> PathBuf {
    let bots = dir.join("bots");
    std::fs::create_dir_all(&bots).unwrap();
    for name in ["det-a", "det-b", "det-c", "det-d"] {
        std::fs::copy(fixtures("morra").join(name), bots.join(name)).unwrap();
    }
    let random = bots.join("random");
    std::fs::create_dir_all(&random).unwrap();
    for file in ["bot.pl", "bot.toml"] {
        let from = bundled("morra").join("random").join(file);
        std::fs::copy(from, random.join(file)).unwrap();
    }
    bots
}

/// Runs `arena run morra BOTS --out OUT` with the test's settings and `extra`; its stderr.
fn run(bots: &Path, names: &[&str], out: &Path, extra: &[&str]) -> String {
    let mut args: Vec<String> = vec!["run".into(), "morra".into()];
    args.extend(names.iter().map(|n| path(&bots.join(n)).to_string()));
    if !extra.contains(&"--morra-rounds") {
        args.extend(["--morra-rounds", "12"].map(String::from));
    }
    // Generous: a move lost to a busy machine would be a forfeit, and another table.
    args.extend(["--move-time", "5s"].map(String::from));
    args.extend(["--rounds", "2", "--jobs", "2", "--quiet", "--out"].map(String::from));
    args.push(path(out).to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    String::from_utf8_lossy(&arena_ok(&args).stderr).into_owned()
}

fn rows(out: &Path) -> usize {
    games(out).len()
}

/// The ids in `superseded.csv` of `out`.
fn superseded(out: &Path) -> Vec<u64> {
    match std::fs::read_to_string(out.join("superseded.csv")) {
        Ok(text) => text
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Asserts that `live` (updated) and `fresh` hold the same tables, and that `arena standings`
/// on `live`'s CSVs alone gives them too.
fn assert_same(live: &Path, fresh: &Path, tmp: &Path, step: &str) {
    let again = tmp.join(format!("standings-{step}"));
    arena_ok(&[
        "standings",
        path(&live.join("games.csv")),
        "--out",
        path(&again),
    ]);
    for file in TABLES {
        let want = std::fs::read(fresh.join(file)).unwrap();
        for dir in [live, &again] {
            let got = std::fs::read(dir.join(file)).unwrap();
            assert!(
                got == want,
                "{step}: `{file}` of `{}` differs from the fresh run's:\n{}\n---\n{}",
                dir.display(),
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want)
            );
        }
    }
}

#[test]
fn updates_play_only_the_changed_pairings_and_give_a_fresh_run_s_tables_issue_19() {
    require_perl();
    let tmp = tempfile::tempdir().unwrap();
    let bots = field(tmp.path());
    let live = tmp.path().join("live");
    let seed = ["--seed", "11"];
    // Two rounds of one Morra game per pairing: 2 games per pairing.
    run(&bots, &["det-a", "det-b", "random"], &live, &seed);
    assert_eq!(rows(&live), 3 * 2);

    // A late entrant: its 3 pairings are played, nothing else.
    let stderr = run(
        &bots,
        &["det-a", "det-b", "random", "det-c"],
        &live,
        &["--update"],
    );
    assert!(stderr.contains("new `det-c`"), "{stderr}");
    assert_eq!(rows(&live), 6 + 3 * 2, "{stderr}");
    assert!(superseded(&live).is_empty());
    // The fresh run names the bots in another order: neither seeds nor seats depend on it.
    let fresh = tmp.path().join("fresh-added");
    run(&bots, &["det-c", "random", "det-b", "det-a"], &fresh, &seed);
    assert_eq!(rows(&fresh), 6 * 2);
    assert_same(&live, &fresh, tmp.path(), "added");

    // A revision: `det-b`'s 3 pairings are played again, their old games set aside.
    let script = std::fs::read_to_string(bots.join("det-b")).unwrap();
    std::fs::write(bots.join("det-b"), script.replace("% 6 ))", "% 5 ))")).unwrap();
    let stderr = run(
        &bots,
        &["det-a", "det-b", "random", "det-c"],
        &live,
        &["--update"],
    );
    assert!(stderr.contains("revised `det-b`"), "{stderr}");
    assert_eq!(rows(&live), 12 + 3 * 2, "{stderr}");
    let set_aside = superseded(&live);
    assert_eq!(set_aside.len(), 3 * 2);
    let old = games(&live);
    for id in &set_aside {
        let row = old.iter().find(|r| r["game_id"] == id.to_string()).unwrap();
        assert!(
            row["bot_a"] == "det-b" || row["bot_b"] == "det-b",
            "{row:?}"
        );
    }
    let fresh = tmp.path().join("fresh-revised");
    run(&bots, &["det-a", "det-b", "random", "det-c"], &fresh, &seed);
    assert_same(&live, &fresh, tmp.path(), "revised");

    // A bot gone: nothing is played, its 3 pairings are set aside.
    let stderr = run(&bots, &["det-a", "det-b", "det-c"], &live, &["--update"]);
    assert!(stderr.contains("gone `random`"), "{stderr}");
    assert_eq!(rows(&live), 18, "{stderr}");
    assert_eq!(superseded(&live).len(), 6 + 3 * 2);
    let fresh = tmp.path().join("fresh-removed");
    run(&bots, &["det-a", "det-b", "det-c"], &fresh, &seed);
    assert_same(&live, &fresh, tmp.path(), "removed");

    // Nothing changed: nothing is played, and `arena resume` finds nothing to do either.
    run(&bots, &["det-c", "det-b", "det-a"], &live, &["--update"]);
    assert_eq!(rows(&live), 18);
    arena_ok(&["resume", path(&live), "--quiet"]);
    assert_eq!(rows(&live), 18);
    assert_same(&live, &fresh, tmp.path(), "resumed");
}

#[test]
fn a_tournament_in_out_is_refused_without_update_issue_19() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = field(tmp.path());
    let out = tmp.path().join("out");
    run(&bots, &["det-a", "det-b"], &out, &[]);
    let mut args: Vec<String> = vec!["run".into(), "morra".into()];
    args.extend(["det-a", "det-b", "det-c"].map(|n| path(&bots.join(n)).to_string()));
    args.extend(["--move-time", "5s", "--quiet", "--out", path(&out)].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let refused = arena(&args);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("already holds a tournament")
            && stderr.contains("`--update`")
            && stderr.contains("`arena resume"),
        "{stderr}"
    );
    assert_eq!(rows(&out), 2, "nothing was played");
    // Other settings are refused by `--update` too, naming the setting.
    let mut update = args.clone();
    update.extend(["--update", "--morra-rounds", "12", "--rounds", "3"]);
    let refused = arena(&update);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.contains("`tournament.rounds`"),
        "{stderr}"
    );
}

/// `grades.csv` as rows of cells, without the `version_since` column (a time).
fn grades(out: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_path(out.join("grades.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let since = header.iter().position(|h| h == "version_since").unwrap();
    let mut rows = vec![header.iter().map(String::from).collect::<Vec<_>>()];
    for r in reader.records() {
        rows.push(r.unwrap().iter().map(String::from).collect());
    }
    for row in &mut rows {
        row.remove(since);
    }
    rows
}

/// The `version` and `version_since` cells of `candidate` in `out`'s `grades.csv`.
fn version(out: &Path, candidate: &str) -> (String, String) {
    let mut reader = csv::Reader::from_path(out.join("grades.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let row = reader
        .records()
        .map(|r| r.unwrap())
        .find(|r| &r[0] == candidate)
        .unwrap();
    (
        row[col("version")].to_string(),
        row[col("version_since")].to_string(),
    )
}

#[test]
fn a_gauntlet_update_grades_a_late_candidate_and_replays_a_revised_reference_issue_19() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = field(tmp.path());
    let reference = path(&bots.join("det-a")).to_string();
    let gauntlet = ["--gauntlet", &reference, "--seed", "3"];
    let live = tmp.path().join("live");
    run(&bots, &["det-b", "det-c"], &live, &gauntlet);
    assert_eq!(rows(&live), 2 * 2);
    let (b_version, b_since) = version(&live, "det-b");

    // A late candidate plays the reference only, and is graded with the others.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    run(
        &bots,
        &["det-b", "det-c", "det-d"],
        &live,
        &["--gauntlet", &reference, "--update"],
    );
    assert_eq!(rows(&live), 4 + 2);
    let fresh = tmp.path().join("fresh");
    run(&bots, &["det-d", "det-c", "det-b"], &fresh, &gauntlet);
    assert_same(&live, &fresh, tmp.path(), "late");
    assert_eq!(grades(&live), grades(&fresh));
    let (d_version, d_since) = version(&live, "det-d");
    assert_eq!(
        version(&live, "det-b"),
        (b_version.clone(), b_since.clone())
    );
    assert!(d_since > b_since, "{d_since} after {b_since}");
    assert_eq!(d_version.len(), 12);

    // A revised candidate is graded again, under its new version.
    let script = std::fs::read_to_string(bots.join("det-b")).unwrap();
    std::fs::write(bots.join("det-b"), script.replace("% 6 ))", "% 4 ))")).unwrap();
    run(
        &bots,
        &["det-b", "det-c", "det-d"],
        &live,
        &["--gauntlet", &reference, "--update"],
    );
    assert_eq!(rows(&live), 6 + 2);
    assert_ne!(version(&live, "det-b").0, b_version);

    // A revised reference replays every game.
    let script = std::fs::read_to_string(bots.join("det-a")).unwrap();
    std::fs::write(bots.join("det-a"), script.replace("% 6 ))", "% 3 ))")).unwrap();
    run(
        &bots,
        &["det-b", "det-c", "det-d"],
        &live,
        &["--gauntlet", &reference, "--update"],
    );
    assert_eq!(rows(&live), 8 + 3 * 2);
    assert_eq!(superseded(&live).len(), 2 + 3 * 2);
    let fresh = tmp.path().join("fresh-reference");
    run(&bots, &["det-b", "det-c", "det-d"], &fresh, &gauntlet);
    assert_same(&live, &fresh, tmp.path(), "reference");
    assert_eq!(grades(&live), grades(&fresh));
}

#[test]
fn an_update_killed_midway_is_finished_by_resume_issue_19() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = field(tmp.path());
    let live = tmp.path().join("live");
    let slow = ["--seed", "5", "--morra-rounds", "80"];
    run(&bots, &["det-a", "det-b"], &live, &slow);
    let all = ["det-a", "det-b", "det-c", "det-d"];
    let mut update = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .args(all.map(|n| bots.join(n)))
        .args(["--morra-rounds", "80", "--rounds", "2", "--jobs", "2"])
        .args(["--move-time", "5s"])
        .args(["--quiet", "--update", "--out"])
        .arg(&live)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while rows(&live) < 2 + 3 && std::time::Instant::now() < deadline {
        let ended = update.try_wait().unwrap();
        assert!(
            ended.is_none(),
            "the update ended before it was killed: {ended:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    update.kill().unwrap();
    update.wait().unwrap();
    let stopped_at = rows(&live);
    assert!(
        stopped_at < 2 + 5 * 2,
        "the update ended before it was killed"
    );
    let resumed = arena_ok(&["resume", path(&live), "--quiet"]);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(stderr.contains("already played"), "{stderr}");
    // Each game once: the resume played exactly the games the update had not.
    assert_eq!(rows(&live), 2 + 5 * 2);
    let fresh = tmp.path().join("fresh");
    let mut reversed = all;
    reversed.reverse();
    run(&bots, &reversed, &fresh, &slow);
    assert_same(&live, &fresh, tmp.path(), "resumed");
}
