//! `arena standings` on hand-written and real games CSVs: CSVs that must not merge, old CSVs
//! without the `detail` column, ratings that stay finite and ignore names, and forfeits in
//! the tie-breaks.

mod common;

use std::path::Path;

use common::*;

const HEADER: &str =
    "run,round,game_id,game,bot_a,bot_b,score_a,score_b,result,reason,culprit,plies,duration_ms";

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// Writes `rows` under the 13-column header (that of CSVs before `detail`) to `dir/name`.
fn csv(dir: &Path, name: &str, rows: &[&str]) -> String {
    let file = dir.join(name);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, format!("{HEADER}\n{}\n", rows.join("\n"))).unwrap();
    path(&file)
}

fn stderr_of(args: &[&str]) -> String {
    let out = arena(args);
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn csvs_of_different_games_or_unrelated_runs_do_not_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let a = csv(tmp.path(), "a.csv", &["r,1,1,morra,x,y,10,2,a,normal,,5,9"]);
    let b = csv(
        tmp.path(),
        "b.csv",
        &["r,1,1,othello,x,y,40,24,a,normal,,60,9"],
    );
    let err = stderr_of(&["standings", &a, &b]);
    assert!(err.contains("the CSVs mix games"), "{err}");
    assert!(
        err.contains("a.csv` holds `morra`") && err.contains("b.csv` `othello`"),
        "{err}"
    );
    let c = csv(tmp.path(), "c.csv", &["s,1,1,morra,x,y,10,2,a,normal,,5,9"]);
    let err = stderr_of(&["standings", &a, &c]);
    assert!(err.contains("different runs (`r`, `s`)"), "{err}");
    assert!(err.contains("a.csv") && err.contains("c.csv"), "{err}");
    // The same run in two files merges.
    let d = csv(tmp.path(), "d.csv", &["r,1,2,morra,y,x,10,2,a,normal,,5,9"]);
    arena_ok(&["standings", &a, &d]);
}

#[test]
fn runs_with_different_rules_do_not_merge_and_shards_of_one_do() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = ["det-a", "det-b", "det-c"].map(|b| path(&fixtures("morra").join(b)));
    let run = |out: &str, extra: &[&str]| -> String {
        let dir = tmp.path().join(out);
        let mut args = vec!["run", "morra", "--seed", "3", "--quiet", "--out"];
        let dir_s = path(&dir);
        args.push(&dir_s);
        args.extend(bots.iter().map(String::as_str));
        args.extend(extra);
        arena_ok(&args);
        path(&dir.join("games.csv"))
    };
    let four = run("four", &["--morra-rounds", "4"]);
    let five = run("five", &["--morra-rounds", "5"]);
    let err = stderr_of(&["standings", &four, &five]);
    assert!(err.contains("morra_rounds"), "{err}");
    assert!(
        err.contains("four/games.csv") && err.contains("five/games.csv"),
        "{err}"
    );
    // The same tournament run twice is not two shards: its games would count twice.
    let again = run("again", &["--morra-rounds", "4"]);
    let err = stderr_of(&["standings", &four, &again]);
    assert!(err.contains("shards of one tournament"), "{err}");
    let one = run("one", &["--morra-rounds", "4", "--shard", "1/2"]);
    let two = run("two", &["--morra-rounds", "4", "--shard", "2/2"]);
    arena_ok(&["standings", &one, &two]);
    let err = stderr_of(&["standings", &one, &two, &one]);
    assert!(err.contains("both are shard 1/2"), "{err}");
}

#[test]
fn an_old_csv_without_detail_gives_the_same_output_as_with_an_empty_detail() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = [
        "r,1,1,othello,x,y,40,24,a,normal,,60,9",
        "r,1,2,othello,y,z,10,3,b,crash,a,12,9",
        "r,1,3,othello,z,x,32,32,draw,normal,,60,9",
    ];
    let old = csv(tmp.path(), "old/games.csv", &rows);
    let new_dir = tmp.path().join("new");
    std::fs::create_dir_all(&new_dir).unwrap();
    let new: Vec<String> = rows.iter().map(|r| format!("{r},")).collect();
    std::fs::write(
        new_dir.join("games.csv"),
        format!("{HEADER},detail\n{}\n", new.join("\n")),
    )
    .unwrap();
    let a = arena_ok(&["standings", &old, "--out", &path(&tmp.path().join("a"))]);
    let b = arena_ok(&[
        "standings",
        &path(&new_dir.join("games.csv")),
        "--out",
        &path(&tmp.path().join("b")),
    ]);
    assert_eq!(a.stdout, b.stdout);
    assert_same_tables(&tmp.path().join("a"), &tmp.path().join("b"));
}

/// `(bot, elo, low, high)` of each line of `standings.csv`, by bot.
fn ratings(dir: &Path) -> Vec<(String, String, String, String)> {
    let mut reader = csv::Reader::from_path(dir.join("standings.csv")).unwrap();
    let mut rows: Vec<_> = reader
        .deserialize::<std::collections::HashMap<String, String>>()
        .map(|r| {
            let r = r.unwrap();
            (
                r["bot"].clone(),
                r["elo"].clone(),
                r["elo_low"].clone(),
                r["elo_high"].clone(),
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn perfect_and_zero_scores_are_rated_the_same_whatever_the_names() {
    let tmp = tempfile::tempdir().unwrap();
    // `ace` wins every game, `dud` loses every game, and a pair apart meets nobody else.
    let games = |names: [&str; 6]| -> Vec<String> {
        let [ace, mid, low, dud, p, q] = names;
        let mut rows = Vec::new();
        let mut id = 0;
        let mut add = |a: &str, b: &str, result: &str| {
            id += 1;
            let scores = match result {
                "a" => "10,5",
                "b" => "5,10",
                _ => "5,5",
            };
            rows.push(format!(
                "r,1,{id},morra,{a},{b},{scores},{result},normal,,5,9"
            ));
        };
        for (a, b, result) in [
            (ace, mid, "a"),
            (mid, ace, "b"),
            (ace, low, "a"),
            (ace, dud, "a"),
            (mid, low, "a"),
            (low, mid, "a"),
            (mid, dud, "a"),
            (dud, low, "b"),
            (p, q, "a"),
            (q, p, "draw"),
        ] {
            add(a, b, result);
        }
        rows
    };
    let names = ["ace", "mid", "low", "dud", "p", "q"];
    let renamed = ["zz", "aa", "mm", "bb", "yy", "cc"];
    let mut outs = Vec::new();
    for (dir, n) in [("first", names), ("renamed", renamed)] {
        let rows = games(n);
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let file = csv(tmp.path(), &format!("{dir}/games.csv"), &rows);
        let out = tmp.path().join(format!("{dir}-out"));
        let result = arena_ok(&["standings", &file, "--out", &path(&out)]);
        let stdout = String::from_utf8(result.stdout).unwrap();
        assert!(!stdout.contains("unbounded"), "{stdout}");
        let los = std::fs::read_to_string(out.join("los.csv")).unwrap();
        assert_eq!(los.lines().count(), 7, "{los}");
        assert!(!los.contains(",,,"), "{los}");
        outs.push(ratings(&out));
    }
    for r in &outs[0] {
        assert!(
            !r.1.is_empty() && !r.2.is_empty() && !r.3.is_empty(),
            "{r:?}"
        );
    }
    let by_name = |i: usize, name: &str| outs[i].iter().find(|r| r.0 == name).unwrap().clone();
    for (x, y) in names.iter().zip(renamed) {
        let (a, b) = (by_name(0, x), by_name(1, y));
        assert_eq!((a.1, a.2, a.3), (b.1, b.2, b.3), "{x} renamed {y}");
    }
    let elo = |name: &str| by_name(0, name).1.parse::<f64>().unwrap();
    for other in ["mid", "low", "p", "q"] {
        assert!(
            elo("ace") > elo(other) && elo(other) > elo("dud"),
            "{other}"
        );
    }
}

#[test]
fn a_crash_with_a_lead_ranks_below_an_honest_loss() {
    let tmp = tempfile::tempdir().unwrap();
    let file = csv(
        tmp.path(),
        "games.csv",
        &[
            // `crashy` led 40-10 when it crashed; `honest` lost 30-34.
            "r,1,1,othello,crashy,strong,40,10,b,crash,a,30,9",
            "r,1,2,othello,honest,strong,30,34,b,normal,,60,9",
            "r,1,3,othello,crashy,weak,33,31,a,normal,,60,9",
            "r,1,4,othello,honest,weak,33,31,a,normal,,60,9",
        ],
    );
    let out = tmp.path().join("out");
    arena_ok(&["standings", &file, "--out", &path(&out)]);
    let text = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    let rank = |bot: &str| -> usize {
        text.lines()
            .position(|l| l.contains(&format!(",{bot},")))
            .unwrap()
    };
    assert!(rank("honest") < rank("crashy"), "{text}");
    // The forfeit counts 0-64 in the score columns; games.csv keeps 40-10.
    let crashy = text.lines().find(|l| l.contains(",crashy,")).unwrap();
    assert!(crashy.contains(",33,95,"), "{crashy}");
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("crashy,strong,40,10"));
}

#[test]
fn huge_scores_in_a_csv_neither_panic_nor_wrap_issue_11() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("games.csv");
    let big = i64::MAX;
    std::fs::write(
        &csv,
        format!(
            "{HEADER}\nr,1,1,morra,x,y,{big},0,a,normal,,5,9\nr,1,2,morra,x,y,{big},1,a,normal,,5,9\n"
        ),
    )
    .unwrap();
    let result = arena(&["standings", &csv.display().to_string()]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(
        stdout.contains(&big.to_string()),
        "saturated, not wrapped: {stdout}"
    );
}
