//! A game's spawner (`src/sandbox/spawner.rs`): from a per-move bot's eighth move on, its
//! processes are started by a process inside its jail. Driven end to end through `arena run`
//! with probe bots: the processes it starts are confined exactly as those arena starts, the
//! helpers of a move end with the move, the process limit is the bot's own, and a bot that
//! kills or outlasts its spawner only loses what it would lose anyway. `.ci/run` runs these
//! tests as root and again as `nobody`.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// The move from which a spawner starts the processes (`spawner::FROM_MOVE`).
const FROM_MOVE: usize = 8;

/// Writes an executable probe bot that keeps the count of its moves in `n` and runs `body`
/// (which sees the move's number as `$n`), then replies `0 0`.
fn probe(dir: &Path, name: &str, body: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nn=$(( $(cat n 2>/dev/null || echo 0) + 1 )); echo $n > n\n{body}\necho 0 0\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, PermissionsExt::from_mode(0o755)).unwrap();
    path
}

/// Plays a Morra game of `rounds` rounds between the probe and a constant bot, keeping the
/// bots' copies; returns the output directory and arena's stderr.
fn play(tmp: &Path, probe: &Path, rounds: usize, extra: &[&str]) -> (PathBuf, String) {
    let out = tmp.join("out");
    let result = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .arg(fixtures("morra").join("constant"))
        .arg(probe)
        .args(["--morra-rounds", &rounds.to_string(), "--jobs", "1"])
        .args(["--keep-work", "--quiet", "--out"])
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr).to_string();
    assert!(result.status.success(), "arena failed:\n{stderr}");
    (out, stderr)
}

/// The lines the probe `name` wrote to `file` in its copy.
fn lines(out: &Path, name: &str, file: &str) -> Vec<String> {
    let path = out.join("work").join(name).join(file);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("`{}`: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// Whether this machine gives each game of a bot a PID namespace, which a spawner needs.
fn pid_namespaces() -> bool {
    let have = doctor_verdicts();
    let (active, detail) = have.get("process isolation").cloned().unwrap_or_default();
    let holds = active && detail.contains("PID namespace");
    if !holds {
        println!("no PID namespace per game here ({detail}): no spawner, every process from arena");
    }
    holds
}

#[test]
fn from_the_eighth_move_a_spawner_starts_the_processes_as_confined_as_arena_did() {
    let tmp = tempfile::tempdir().unwrap();
    // Per move: who started it, and everything that confines it.
    let body = "parent=$(cat /proc/$PPID/comm 2>/dev/null || echo outside)
environ=$(cat /proc/$PPID/environ >/dev/null 2>&1 && echo read || echo denied)
status=$(grep -E '^(Uid|Gid|Groups|NoNewPrivs|Seccomp|Seccomp_filters|CapEff|CapBnd):' /proc/self/status | tr -s '\\t ' ' ' | tr '\\n' ';')
limits=$(grep -E '^Max (file size|core file size|address space)' /proc/self/limits | tr -s ' ' | tr '\\n' ';')
echo \"$n|$parent|$environ|$status|$limits|$(cat /proc/self/cgroup | sort | tr '\\n' ';')|$(env | sort | tr '\\n' ';')|ns $(readlink /proc/self/ns/pid /proc/self/ns/mnt /proc/self/ns/net | tr '\\n' ' ')\" >> moves.txt";
    let bot = probe(&tmp.path().join("bots"), "confined", body);
    let (out, _) = play(tmp.path(), &bot, 12, &[]);
    let moves: Vec<Vec<String>> = lines(&out, "confined", "moves.txt")
        .iter()
        .map(|l| l.split('|').map(str::to_string).collect())
        .collect();
    assert_eq!(moves.len(), 12, "{moves:?}");
    let spawned = pid_namespaces();
    for m in &moves {
        let n: usize = m[0].parse().unwrap();
        if spawned && n >= FROM_MOVE {
            assert_eq!(m[1], "arena-spawner", "move {n}: {m:?}");
            // Not dumpable: the bot cannot read what its spawner holds.
            assert_eq!(m[2], "denied", "move {n}: {m:?}");
        } else {
            assert_ne!(m[1], "arena-spawner", "move {n}: {m:?}");
        }
        // Its uid, groups, capabilities, seccomp filter, limits, cgroups, environment and
        // namespaces are those of the moves arena started.
        assert_eq!(m[3..], moves[0][3..], "move {n} differs from move 1");
    }
    assert!(moves[0][3].contains("NoNewPrivs: 1"), "{:?}", moves[0]);
    assert!(
        moves.iter().all(|m| !m[6].contains("ARENA_SPAWNER")),
        "{moves:?}"
    );
}

#[test]
fn a_moves_helpers_end_with_it_and_the_process_limit_stays_the_bots_own() {
    require_perl();
    let tmp = tempfile::tempdir().unwrap();
    // Per move: the helpers left by earlier moves, then as many processes as it can start
    // (they end when the count is done), then, from the spawner's first move, a helper in a
    // session of its own. (Helpers of the moves arena starts end with the move where a cgroup
    // can kill them, with the game otherwise: `tests/hostile.rs`, `tests/jail.rs`.)
    let body = format!(
        "left=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^sleep$')
forks=$(perl -e 'pipe(my $r, my $w) or die; my $n = 0;
  while ($n < 100) {{ my $p = fork(); last unless defined $p;
    if ($p == 0) {{ close $w; my $x = <$r>; exit 0 }} $n++ }}
  close $w; 1 while wait() > 0; print $n')
echo \"$n $left $forks\" >> moves.txt
[ $n -ge {FROM_MOVE} ] && setsid sleep 1000 </dev/null >/dev/null 2>&1 &"
    );
    let bot = probe(&tmp.path().join("bots"), "forks", &body);
    let (out, _) = play(
        tmp.path(),
        &bot,
        8,
        &["--max-procs", "6", "--move-time", "5s"],
    );
    let moves = lines(&out, "forks", "moves.txt");
    assert_eq!(moves.len(), 8, "{moves:?}");
    let spawned = pid_namespaces();
    for line in &moves {
        let [n, left, forks]: [usize; 3] = line
            .split(' ')
            .map(|f| f.parse().unwrap())
            .collect::<Vec<_>>()
            .try_into()
            .unwrap();
        // The spawner kills, and waits for the end of, what its last move started.
        if spawned {
            assert_eq!(
                left, 0,
                "move {n}: a helper of an earlier move lived on: {moves:?}"
            );
        }
        // The shell, perl, and the rest of the 6: the spawner takes none of them.
        if left == 0 {
            assert_eq!(forks, 4, "move {n}: {moves:?}");
        }
    }
    let rows = games(&out);
    assert_eq!(rows[0]["reason"], "normal", "{rows:?}");
}

#[test]
fn a_bot_that_kills_its_spawner_or_runs_out_of_time_loses_only_what_it_would_have() {
    let tmp = tempfile::tempdir().unwrap();
    // `kill -9 -1` ends every process the bot may signal: from its eighth move, its spawner.
    let killer = probe(
        &tmp.path().join("bots"),
        "killer",
        "kill -9 -1 2>/dev/null\necho \"$n\" >> moves.txt",
    );
    let (out, _) = play(tmp.path(), &killer, 12, &[]);
    assert_eq!(lines(&out, "killer", "moves.txt").len(), 12);
    let rows = games(&out);
    assert_eq!(
        (rows[0]["reason"].as_str(), rows[0]["plies"].as_str()),
        ("normal", "12"),
        "{rows:?}"
    );

    // A move of a spawner that runs past its time: a timeout, and nothing of it left.
    let tmp = tempfile::tempdir().unwrap();
    let slow = probe(
        &tmp.path().join("bots"),
        "slow",
        "if [ $n = 10 ]; then setsid sleep 1000 </dev/null >/dev/null 2>&1 & exec sleep 1000; fi",
    );
    let mut arena = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .arg(fixtures("morra").join("constant"))
        .arg(&slow)
        .args([
            "--morra-rounds",
            "12",
            "--move-time",
            "300ms",
            "--jobs",
            "1",
        ])
        .args(["--quiet", "--out"])
        .arg(tmp.path().join("out"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let arena_pid = arena.id();
    let status = arena.wait().unwrap();
    assert!(status.success());
    let rows = games(&tmp.path().join("out"));
    assert_eq!(
        (
            rows[0]["reason"].as_str(),
            culprit(&rows[0]),
            rows[0]["plies"].as_str()
        ),
        ("timeout", Some("slow"), "9"),
        "{rows:?}"
    );
    assert_eq!(
        run_processes(arena_pid, Path::new("")),
        Vec::<u32>::new(),
        "a process of the slow bot outlived the run"
    );
}
