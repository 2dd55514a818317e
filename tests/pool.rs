//! `arena standings --pool` through the real binary (issue 19, point 4): complete runs of one
//! field and settings, with different seeds, pool into the leaderboard of one tournament
//! with their rounds together; anything else is refused, naming what differs.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;

fn morra(name: &str) -> String {
    fixtures("morra").join(name).display().to_string()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

const DET: [&str; 4] = ["det-a", "det-b", "det-c", "det-d"];

/// Runs a Morra round robin of the deterministic fixture bots (and `extra` bots) into `out`.
fn run(out: &Path, extra_bots: &[&str], options: &[&str]) {
    let mut args = vec!["run".to_string(), "morra".to_string()];
    args.extend(DET.iter().chain(extra_bots).map(|b| morra(b)));
    args.extend(["--quiet", "--out"].map(String::from));
    args.push(path(out));
    args.extend(options.iter().map(|s| s.to_string()));
    if !options.contains(&"--morra-rounds") {
        args.extend(["--morra-rounds", "20"].map(String::from));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);
}

/// Each bot's points against each opponent, from a `games.csv`.
fn points(out: &Path) -> BTreeMap<(String, String), i64> {
    let mut table = BTreeMap::new();
    for g in games(out) {
        let (a, b) = (g["bot_a"].clone(), g["bot_b"].clone());
        let (sa, sb): (i64, i64) = (g["score_a"].parse().unwrap(), g["score_b"].parse().unwrap());
        *table.entry((a.clone(), b.clone())).or_default() += sa;
        *table.entry((b, a)).or_default() += sb;
    }
    table
}

#[test]
fn three_complete_runs_pool_into_the_tables_of_one_run_of_three_rounds_issue_19() {
    let tmp = tempfile::tempdir().unwrap();
    let mut csvs = Vec::new();
    for seed in ["11", "22", "33"] {
        let out = tmp.path().join(format!("run-{seed}"));
        run(&out, &[], &["--seed", seed]);
        csvs.push(path(&out.join("games.csv")));
    }
    let three = tmp.path().join("three-rounds");
    run(&three, &[], &["--seed", "44", "--rounds", "3"]);

    // Without `--pool`, runs of other seeds do not merge, and the error says what would.
    let mut args = vec!["standings"];
    args.extend(csvs.iter().map(String::as_str));
    let refused = arena(&args);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("differ in `tournament.seed`") && stderr.contains("`--pool`"),
        "{stderr}"
    );

    let pooled = tmp.path().join("pooled");
    let pooled_s = path(&pooled);
    args.extend(["--pool", "--out", &pooled_s]);
    arena_ok(&args);
    // As many games as `--rounds 3` plays, and the sum of the three runs' points.
    let runs: Vec<_> = csvs
        .iter()
        .map(|c| Path::new(c).parent().unwrap())
        .collect();
    let games_of = |dirs: &[&Path]| dirs.iter().map(|d| games(d).len()).sum::<usize>();
    assert_eq!(games_of(&runs), games(&three).len());
    let mut summed: BTreeMap<(String, String), i64> = BTreeMap::new();
    for dir in &runs {
        for (k, v) in points(dir) {
            *summed.entry(k).or_default() += v;
        }
    }
    // The bots are deterministic and their games do not depend on the seed: every
    // pairing's points are those of the run of three rounds, and so are the standings and
    // the cross-table, byte for byte. Only the split of results by seat differs: `--rounds 3`
    // swaps the seats in its second round, three runs of one round never do.
    assert_eq!(summed, points(&three));
    for file in ["standings.csv", "standings.md", "crosstable.md"] {
        let read = |dir: &Path| std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(read(&three), read(&pooled), "`{file}` differs");
    }
    let up_to_points = |dir: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join("crosstable.csv")).unwrap();
        let cut = |l: &str| {
            l.split(',')
                .take(DET.len() + 2)
                .collect::<Vec<_>>()
                .join(",")
        };
        text.lines().map(cut).collect()
    };
    assert_eq!(up_to_points(&three), up_to_points(&pooled));
    let standings = std::fs::read_to_string(pooled.join("standings.csv")).unwrap();
    for bot in DET {
        assert!(standings.contains(bot), "{standings}");
    }
    let report = std::fs::read_to_string(pooled.join("report.html")).unwrap();
    assert!(report.contains("3 runs pooled"), "the report says it pools");
}

#[test]
fn pooling_refuses_other_settings_other_fields_and_incomplete_runs_issue_19() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    run(&base, &[], &["--seed", "1"]);
    let refuse = |other: &Path, wanted: &str| {
        let (a, b) = (
            path(&base.join("games.csv")),
            path(&other.join("games.csv")),
        );
        let out = arena(&["standings", &a, &b, "--pool"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "pooled `{}`", other.display());
        assert!(stderr.contains(wanted), "wanted `{wanted}` in: {stderr}");
    };

    let longer = tmp.path().join("longer");
    run(&longer, &[], &["--seed", "2", "--morra-rounds", "30"]);
    refuse(&longer, "differ in `rules.morra_rounds`");

    let wider = tmp.path().join("wider");
    run(&wider, &["echo-lines"], &["--seed", "3"]);
    refuse(
        &wider,
        "differ in `bots`: `echo-lines` is in the second run only",
    );

    // A run cut short: its last games are missing from `games.csv`.
    let cut = tmp.path().join("cut");
    run(&cut, &[], &["--seed", "4"]);
    let text = std::fs::read_to_string(cut.join("games.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let kept = lines[..lines.len() - 2].join("\n") + "\n";
    std::fs::write(cut.join("games.csv"), kept).unwrap();
    refuse(&cut, "its run is not complete (4 of its 6 games)");

    let shard = tmp.path().join("shard");
    run(&shard, &[], &["--seed", "5", "--shard", "1/2"]);
    refuse(
        &shard,
        "it is shard 1/2 of a tournament, not a complete run",
    );
}
