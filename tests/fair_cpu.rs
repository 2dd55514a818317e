//! Fair CPU (`--cpus`): a bot whose helper processes spin on every core gets no more than its
//! share, and its opponent, thinking at the same time (Morra's moves are simultaneous), keeps
//! its pace and never times out.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

/// `arena doctor`'s line for fair CPU: (active, detail).
fn fair_cpu() -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("doctor")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l[4..].starts_with("fair cpu: "))
        .expect("doctor lists fair cpu")
        .to_string();
    (
        line.starts_with("yes"),
        line[4 + "fair cpu: ".len()..].to_string(),
    )
}

/// CPU seconds and wall seconds of each move, as a fixture bot recorded them.
type Moves = Vec<(f64, f64)>;

/// The `cpu wall` pairs a fixture bot recorded, one per move.
fn pairs(path: &Path) -> Moves {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (cpu, wall) = l.split_once(' ')?;
            Some((cpu.parse().ok()?, wall.parse().ok()?))
        })
        .collect()
}

/// Plays the CPU burner against the steady bot with `--cpus cpus`; returns what each recorded.
fn play(cpus: &str) -> (Moves, Moves) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    arena_ok(&[
        "run",
        "morra",
        fixtures("morra").join("steady").to_str().unwrap(),
        fixtures("hostile").join("cpu-burner").to_str().unwrap(),
        "--morra-rounds",
        "5",
        "--move-time",
        "3s",
        "--cpus",
        cpus,
        "--jobs",
        "1",
        "--keep-work",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let rows = games(&out);
    let row = game_between(&rows, "steady", "cpu-burner");
    assert_ne!(
        culprit(row),
        Some("steady"),
        "the steady bot lost a move: {row:?}"
    );
    assert!(row["reason"] != "timeout", "{row:?}");
    let work = out.join("work");
    let burner = pairs(&work.join("cpu-burner/burn.txt"));
    let steady = pairs(&work.join("steady/think.txt"));
    assert_eq!(burner.len(), 5, "the burner played every round");
    assert_eq!(steady.len(), 5, "the steady bot played every round");
    (burner, steady)
}

fn total(moves: &[(f64, f64)]) -> (f64, f64) {
    moves
        .iter()
        .fold((0.0, 0.0), |(c, w), (mc, mw)| (c + mc, w + mw))
}

#[test]
fn helper_processes_get_no_more_than_the_bot_s_cpus() {
    require_perl();
    let (active, detail) = fair_cpu();
    if !active {
        println!("skipping the CPU share checks: {detail}");
    }
    for (cpus, share) in [("1", 1.0), ("0.5", 0.5)] {
        let (burner, steady) = play(cpus);
        let (cpu, wall) = total(&burner);
        let (think, think_wall) = total(&steady);
        println!(
            "--cpus {cpus}: the burner's 4 helpers used {cpu:.2} s of CPU in {wall:.2} s \
             ({:.2} CPU); the steady bot: {:.0} ms of CPU, {:.0} ms of wall time a move",
            cpu / wall,
            think * 1000.0 / 5.0,
            think_wall * 1000.0 / 5.0,
        );
        if active {
            // CFS quotas are enforced per 100 ms period: a little slack for the last one.
            assert!(
                cpu <= share * wall * 1.15 + 0.02,
                "--cpus {cpus}: the burner used {cpu:.2} s of CPU in {wall:.2} s"
            );
        }
    }
}
