//! `--sprt`: matches stopped by the pentanomial SPRT, through the real binary with real bots.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

fn fixture(name: &str) -> String {
    fixtures("morra").join(name).display().to_string()
}

fn sprt_json(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("sprt.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The largest value of a concave function on `[lo, hi]`, by golden-section search.
fn maximum(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..300 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if f(x1) < f(x2) {
            lo = x1;
        } else {
            hi = x2;
        }
    }
    f((lo + hi) / 2.0)
}

/// The LLR recomputed independently of arena's code: the profile log-likelihood of each
/// hypothesis through the dual of the constrained maximum (the largest value over λ of
/// `Σ n_i ln(1 + λ(a_i − s))`, which is how far the best distribution with mean `s` falls
/// below the observed one), with fishtest's 0.001 for empty cells.
fn independent_llr(counts: &[f64; 5], elo0: f64, elo1: f64) -> f64 {
    let n: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0.0 { 1e-3 } else { c })
        .collect();
    let drop = |s: f64| {
        let dual = |l: f64| -> f64 {
            (0..5)
                .map(|i| n[i] * (1.0 + l * (i as f64 / 4.0 - s)).ln())
                .sum()
        };
        // 1 + λ(a − s) > 0 for every a in [0, 1].
        let eps = 1e-12;
        maximum(dual, -1.0 / (1.0 - s) + eps, 1.0 / s - eps)
    };
    drop(score(elo0)) - drop(score(elo1))
}

fn check_against_games(out: &Path, sprt: &Value, first: &str) {
    let rows = games(out);
    let counts: Vec<u64> = (sprt["pentanomial"].as_array().unwrap().iter())
        .map(|c| c.as_u64().unwrap())
        .collect();
    let pairs: u64 = counts.iter().sum();
    assert_eq!(
        rows.len() as u64,
        2 * pairs,
        "every game is in a finished pair"
    );
    // Recount the pentanomial from games.csv: games 2k−1 and 2k are a pair.
    let mut by_game: Vec<(u64, u32)> = rows
        .iter()
        .map(|r| {
            let halves = match result_for(r, first) {
                "win" => 2,
                "draw" => 1,
                _ => 0,
            };
            (r["game_id"].parse().unwrap(), halves)
        })
        .collect();
    by_game.sort();
    let mut recount = [0u64; 5];
    for pair in by_game.chunks(2) {
        assert_eq!(pair[1].0, pair[0].0 + 1, "{by_game:?}");
        assert_eq!(pair[0].0 % 2, 1, "{by_game:?}");
        recount[(pair[0].1 + pair[1].1) as usize] += 1;
    }
    assert_eq!(recount.to_vec(), counts);
    let counts = recount.map(|c| c as f64);
    let llr = independent_llr(
        &counts,
        sprt["elo0"].as_f64().unwrap(),
        sprt["elo1"].as_f64().unwrap(),
    );
    let got = sprt["llr"].as_f64().unwrap();
    assert!(
        (llr - got).abs() < 1e-6,
        "sprt.json {got}, recomputed {llr}"
    );
    let (lower, upper) = (
        sprt["lower"].as_f64().unwrap(),
        sprt["upper"].as_f64().unwrap(),
    );
    assert!((lower - (0.05f64 / 0.95).ln()).abs() < 1e-9);
    assert!((upper - (0.95f64 / 0.05).ln()).abs() < 1e-9);
}

#[test]
fn a_strong_bot_passes_early_with_h1_and_the_llr_checks_out() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = arena_ok(&[
        "run",
        "morra",
        &fixture("beats-constant"),
        &fixture("constant"),
        "--sprt",
        "elo0=0,elo1=100,alpha=0.05,beta=0.05",
        "--max-games",
        "200",
        "--morra-rounds",
        "3",
        "--jobs",
        "2",
        "--no-replays",
        "--seed",
        "1",
        "--out",
        path(&out),
    ]);
    let sprt = sprt_json(&out);
    assert_eq!(sprt["result"], "H1", "{sprt}");
    assert_eq!(sprt["bots"][0], "beats-constant");
    let rows = games(&out);
    // Each pair won twice adds 0.23 to the LLR: 13 pairs cross 2.94, and with two games
    // at once at most one more pair was under way.
    assert!(rows.len() >= 26 && rows.len() <= 30, "{} games", rows.len());
    assert!(sprt["llr"].as_f64().unwrap() >= sprt["upper"].as_f64().unwrap());
    assert!(sprt["elo"].as_f64().unwrap() > 500.0, "{sprt}");
    assert!(sprt["elo_low"].as_f64() < sprt["elo_high"].as_f64());
    check_against_games(&out, &sprt, "beats-constant");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("SPRT LLR") && stderr.contains("H1 accepted"),
        "{stderr}"
    );
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(report.contains("<section id=\"sprt\">") && report.contains("H1 accepted"));
}

#[test]
fn a_bot_against_a_copy_of_itself_never_passes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let copy = tmp.path().join("twin");
    std::fs::copy(fixture("constant"), &copy).unwrap();
    arena_ok(&[
        "run",
        "morra",
        &fixture("constant"),
        path(&copy),
        "--sprt",
        "elo0=0,elo1=5",
        "--max-games",
        "40",
        "--morra-rounds",
        "3",
        "--jobs",
        "2",
        "--no-replays",
        "--out",
        path(&out),
    ]);
    let sprt = sprt_json(&out);
    let rows = games(&out);
    match sprt["result"].as_str().unwrap() {
        "none" => assert_eq!(rows.len(), 40, "{sprt}"),
        "H0" => assert!(rows.len() <= 40, "{sprt}"),
        other => panic!("a copy of itself gave `{other}`: {sprt}"),
    }
    // Every game a draw: every pair scores 1 of 2.
    assert_eq!(sprt["pentanomial"], serde_json::json!([0, 0, 20, 0, 0]));
    check_against_games(&out, &sprt, "constant");
}

#[test]
fn an_sprt_of_three_bots_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = arena(&[
        "run",
        "morra",
        &fixture("constant"),
        &fixture("beats-constant"),
        &fixture("six"),
        "--sprt",
        "elo0=0,elo1=5",
        "--out",
        path(&tmp.path().join("out")),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`--sprt` tests one bot against another: give two bots"),
        "{stderr}"
    );
    let bad = arena(&["run", "morra", "--sprt", "elo0=5,elo1=0"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("`elo0` must be less than `elo1`"));
}

#[test]
fn a_match_stopped_midway_resumes_and_its_test_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (winner, loser) = (fixture("beats-constant"), fixture("constant"));
    arena_ok(&[
        "run",
        "morra",
        &winner,
        &loser,
        "--sprt",
        "elo0=0,elo1=100",
        "--max-games",
        "200",
        "--morra-rounds",
        "3",
        "--jobs",
        "1",
        "--no-replays",
        "--quiet",
        "--out",
        path(&out),
    ]);
    let whole = sprt_json(&out);
    assert_eq!(whole["result"], "H1");
    // Keep the first five pairs and one game of the sixth, as if the run had been killed.
    let text = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let kept: Vec<&str> = text.lines().take(12).collect();
    std::fs::write(out.join("games.csv"), kept.join("\n") + "\n").unwrap();
    std::fs::remove_file(out.join("sprt.json")).unwrap();
    arena_ok(&["resume", path(&out), "--quiet"]);
    assert_eq!(sprt_json(&out), whole, "the same pairs, the same test");
    check_against_games(&out, &whole, "beats-constant");
}
