//! The jail around each game of a bot, driven end to end through `arena run` with probe bots
//! that report what they could see and do: processes, files, IPC, `/tmp`, the network, and
//! no survivors after SIGKILL of arena. `.ci/run` runs these tests as root and again as
//! `nobody` (an unprivileged user namespace).
//!
//! Every check compares what a bot observed with what `arena doctor` claims: where this
//! machine cannot give a protection the doctor must say so, and the test prints it.

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

/// Whether the doctor says `name` holds (with `detail_has` in its detail), printing why not.
fn claimed(name: &str, detail_has: &str) -> bool {
    let have = doctor_verdicts();
    let (active, detail) = have.get(name).cloned().unwrap_or_default();
    let holds = active && detail.contains(detail_has);
    if !holds {
        println!("this machine does not give `{name}` ({detail_has}): {detail}; checking that bots do get through");
    }
    holds
}

/// Writes executable probe bots into `dir`, returning their paths.
fn bots(dir: &Path, scripts: &[(&str, String)]) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    scripts
        .iter()
        .map(|(name, body)| {
            let path = dir.join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\necho 0 0\n")).unwrap();
            std::fs::set_permissions(&path, PermissionsExt::from_mode(0o755)).unwrap();
            path
        })
        .collect()
}

/// Plays a two-round Morra tournament of the probes against a constant bot, keeping the
/// bots' copies; returns the output directory.
fn play(tmp: &Path, probes: &[PathBuf], extra: &[&str]) -> PathBuf {
    let out = tmp.join("out");
    let result = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .arg(fixtures("morra").join("constant"))
        .args(probes)
        .args(["--morra-rounds", "2", "--move-time", "5s", "--jobs", "2"])
        .args(["--keep-work", "--quiet", "--out"])
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "arena failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    out
}

/// What probe `bot` wrote to `report.txt` in its copy, as `key:value` lines.
fn report(out: &Path, bot: &str) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(out.join("work").join(bot).join("report.txt"))
        .unwrap_or_else(|e| panic!("{bot} wrote no report: {e}"));
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect()
}

#[test]
fn a_bot_sees_and_signals_only_its_own_processes() {
    let tmp = tempfile::tempdir().unwrap();
    let probe = bots(
        &tmp.path().join("bots"),
        &[(
            "procs",
            "kill -KILL 1 2>/dev/null
{ echo \"pids:$(ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' ')\"
  echo \"init:$(cat /proc/1/comm 2>/dev/null)\"
  echo \"ppid:$PPID\"
} > report.txt"
                .to_string(),
        )],
    );
    let out = play(tmp.path(), &probe, &[]);
    let seen = report(&out, "procs");
    let pids: Vec<u32> = seen["pids"]
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    if claimed("process isolation", "PID namespace") {
        // Its init (the game's holder), itself, and the commands of its own pipeline.
        assert!(pids.len() <= 8 && pids.iter().all(|&p| p < 100), "{pids:?}");
        // `kill -KILL 1` named the game's own init, which survived it.
        assert_eq!(
            seen["init"], "arena-jail",
            "PID 1 is the game's own init: {seen:?}"
        );
        assert_eq!(seen["ppid"], "0", "its parent, arena, is out of sight");
    } else {
        assert!(pids.len() > 8 || seen["init"] != "arena-jail", "{seen:?}");
    }
}

#[test]
fn a_bot_cannot_see_files_outside_its_view() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let secret = tmp.path().join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("key"), "hidden").unwrap();
    std::fs::set_permissions(tmp.path(), PermissionsExt::from_mode(0o755)).unwrap();
    let targets = [
        ("root", "/root".to_string()),
        ("results", out.display().to_string()),
        ("sibling", "../constant".to_string()),
        ("secret", secret.display().to_string()),
    ];
    let mut body = String::from(": > report.txt\n");
    for (name, path) in &targets {
        body += &format!(
            "stat '{path}' >/dev/null 2>&1; echo \"stat-{name}:$?\" >> report.txt\n\
             ls '{path}' >/dev/null 2>&1; echo \"ls-{name}:$?\" >> report.txt\n"
        );
    }
    body += "echo \"usr:$(test -x /bin/sh && echo yes)\" >> report.txt\n";
    body += "touch /usr/arena-probe 2>/dev/null; echo \"write-usr:$?\" >> report.txt\n";
    let probe = bots(&tmp.path().join("bots"), &[("files", body)]);
    play(tmp.path(), &probe, &[]);
    let seen = report(&out, "files");
    assert_eq!(seen["usr"], "yes", "system directories are there: {seen:?}");
    assert_ne!(seen["write-usr"], "0", "and read-only");
    if claimed("file-system isolation", "mount namespace") {
        for (name, _) in &targets {
            assert_ne!(seen[&format!("stat-{name}")], "0", "stat {name}: {seen:?}");
            assert_ne!(seen[&format!("ls-{name}")], "0", "ls {name}: {seen:?}");
        }
    } else {
        assert_eq!(seen["stat-secret"], "0", "{seen:?}");
    }
}

#[test]
fn ipc_and_tmp_are_private_to_a_game_and_gone_after_it() {
    require_perl();
    let tmp = tempfile::tempdir().unwrap();
    let mark = format!("arena-jail-test-{}", std::process::id());
    // A key no one else uses, from the test's pid: SysV shared memory made by the bot.
    let key = 0x4a00_0000u32 | (std::process::id() & 0xff_ffff);
    let host_file = std::env::temp_dir().join(format!("{mark}-host"));
    std::fs::write(&host_file, "host").unwrap();
    let body = format!(
        "perl -e 'exit(defined shmget({key}, 4096, 01666) ? 0 : 1)'; echo \"shm:$?\" >> report.txt
[ -e /tmp/{mark}-persist ] && echo \"persist:yes\" >> report.txt
echo kept > /tmp/{mark}-persist
echo hello > /tmp/{mark}; echo \"tmp:$(cat /tmp/{mark})\" >> report.txt
test -e {host}; echo \"host-tmp:$?\" >> report.txt
head -c 70000000 /dev/zero > /tmp/big 2>/dev/null; echo \"big:$?\" >> report.txt
echo \"big-size:$(stat -c %s /tmp/big)\" >> report.txt; rm -f /tmp/big",
        host = host_file.display()
    );
    let probe = bots(&tmp.path().join("bots"), &[("tmp", body)]);
    // Output may be large here, so that only /tmp's own size stops the big file.
    let out = play(tmp.path(), &probe, &["--max-output", "256MiB"]);
    std::fs::remove_file(&host_file).unwrap();
    let seen = report(&out, "tmp");
    assert_eq!(seen["shm"], "0", "the bot made a shared memory segment");
    assert_eq!(seen["tmp"], "hello", "/tmp works: {seen:?}");
    let key_text = format!("0x{key:08x}");
    let ipcs = Command::new("ipcs").arg("-m").output().unwrap();
    let leaked = String::from_utf8_lossy(&ipcs.stdout).contains(&key_text);
    if claimed("private ipc", "IPC namespace") {
        assert!(!leaked, "the bot's shared memory outlived its game");
    } else {
        assert!(leaked, "without an IPC namespace the segment stays");
        let _ = Command::new("ipcrm").args(["-M", &key_text]).status();
    }
    if claimed("file-system isolation", "private 64 MiB /tmp") {
        assert_eq!(seen["host-tmp"], "1", "the host's /tmp is out of sight");
        assert!(
            !std::env::temp_dir().join(&mark).exists(),
            "the bot's /tmp is its own"
        );
        assert_eq!(seen["persist"], "yes", "/tmp lasts the whole game");
        assert_ne!(
            seen["big"], "0",
            "a file larger than /tmp cannot be written"
        );
        let size: u64 = seen["big-size"].parse().unwrap();
        assert!(size <= 64 << 20, "/tmp took {size} bytes");
    }
}

#[test]
fn the_network_is_unreachable() {
    require_perl();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let port = udp.local_addr().unwrap().port();
    let tmp = tempfile::tempdir().unwrap();
    let body = format!(
        "perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(PeerAddr => \"127.0.0.1:{port}\", Proto => \"udp\") or exit 2; $s->send(\"x\") or exit 3; exit 0'
echo \"udp:$?\" > report.txt
echo \"links:$(grep -c : /proc/net/dev)\" >> report.txt"
    );
    let probe = bots(&tmp.path().join("bots"), &[("net", body)]);
    let out = play(tmp.path(), &probe, &[]);
    let seen = report(&out, "net");
    let mut buf = [0u8; 8];
    let received = udp.recv(&mut buf).is_ok();
    if claimed("network off", "network namespace") {
        assert!(!received, "a bot's UDP packet reached the host");
        assert_ne!(seen["udp"], "0", "{seen:?}");
        assert_eq!(seen["links"], "1", "only a loopback, down: {seen:?}");
    } else {
        assert!(received, "without a network namespace UDP gets through");
    }
}

#[test]
fn after_sigkill_of_arena_no_bot_process_is_alive_within_a_second() {
    let tmp = tempfile::tempdir().unwrap();
    // Daemons in a new session, a grandchild, then a long think.
    let probe = bots(
        &tmp.path().join("bots"),
        &[(
            "daemon",
            "setsid sh -c 'sleep 1000 & sleep 1000' </dev/null >/dev/null 2>&1 &
( sleep 1000 & ) </dev/null >/dev/null 2>&1
exec sleep 1000"
                .to_string(),
        )],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .arg(fixtures("morra").join("constant"))
        .args(&probe)
        .args(["--move-time", "60s", "--quiet", "--out"])
        .arg(tmp.path().join("out"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let arena_pid = child.id();
    let started = Instant::now();
    while run_processes(arena_pid, Path::new("")).len() < 4 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the daemons never started: {:?}",
            run_processes(arena_pid, Path::new(""))
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_secs(1));
    let left = run_processes(arena_pid, Path::new(""));
    if claimed("no survivors", "PID namespace") {
        assert_eq!(left, Vec::<u32>::new(), "bot processes outlived arena");
    } else {
        for pid in &left {
            // Clean up what the unprotected run left behind.
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
        assert!(!left.is_empty(), "without a PID namespace the daemons stay");
    }
}

#[test]
fn a_bot_s_next_game_finds_nothing_of_its_last_one_and_its_holders_end_with_the_run() {
    require_perl();
    let tmp = tempfile::tempdir().unwrap();
    let mark = format!("arena-reuse-test-{}", std::process::id());
    // At its first move of each game (its /tmp has no `begun` yet), the probe notes what is
    // left of its last game (daemons, files in /tmp, SysV IPC objects) and which holder it is
    // in, then leaves some of each.
    let body = format!(
        "if [ ! -e /tmp/{mark}-begun ]; then
  : > /tmp/{mark}-begun
  echo \"holder $(readlink /proc/self/ns/ipc) $(cut -d' ' -f22 /proc/1/stat 2>/dev/null)|daemons $(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^sleep$')|tmp $(ls -A /tmp | grep -c {mark})|ipc $(cat /proc/sysvipc/shm /proc/sysvipc/sem /proc/sysvipc/msg | grep -vc key)\" >> games.txt
  setsid sleep 1000.{pid} </dev/null >/dev/null 2>&1 &
  echo left > /tmp/{mark}-left
  perl -e 'defined shmget(0, 4096, 01600) && defined semget(0, 1, 01600) && defined msgget(0, 01600) or exit 1' || echo \"ipc failed\" >> games.txt
fi",
        pid = std::process::id()
    );
    let probe = bots(&tmp.path().join("bots"), &[("reuse", body)]);
    let out = tmp.path().join("out");
    let mut arena = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .arg(fixtures("morra").join("constant"))
        .args(&probe)
        .args(["--morra-rounds", "2", "--games", "3", "--jobs", "1"])
        .args(["--keep-work", "--quiet", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(arena.wait().unwrap().success());
    let work = out.join("work").join("reuse");
    let text = std::fs::read_to_string(work.join("games.txt")).unwrap_or_default();
    let games: Vec<BTreeMap<&str, &str>> = text
        .lines()
        .map(|l| l.split('|').filter_map(|f| f.split_once(' ')).collect())
        .collect();
    if !claimed("file-system isolation", "private 64 MiB /tmp") {
        for leftover in ["begun", "left"] {
            let _ = std::fs::remove_file(format!("/tmp/{mark}-{leftover}"));
        }
        let daemon = format!("sleep 1000.{}", std::process::id());
        let _ = Command::new("pkill").args(["-x", "-f", &daemon]).status();
        return;
    }
    assert_eq!(games.len(), 3, "each game has a /tmp of its own:\n{text}");
    for (i, game) in games.iter().enumerate() {
        assert_eq!(
            game["tmp"], "1",
            "game {i}: nothing in /tmp of the last game:\n{text}"
        );
        if claimed("process isolation", "PID namespace") {
            assert_eq!(
                game["daemons"], "0",
                "game {i}: no daemon of the last game:\n{text}"
            );
        }
        if claimed("private ipc", "IPC namespace") {
            assert_eq!(
                game["ipc"], "0",
                "game {i}: no IPC of the last game:\n{text}"
            );
        }
    }
    assert!(
        !text.contains("ipc failed"),
        "the probe made its IPC:\n{text}"
    );
    // The games after the first were played in its holder, reset.
    assert!(
        games.iter().all(|g| g["holder"] == games[0]["holder"]),
        "one holder for the bot's games:\n{text}"
    );
    // arena has ended: no holder with this run's view is left.
    let view = |pid: &str| {
        PathBuf::from(format!("/proc/{pid}/root")).join(work.strip_prefix("/").unwrap())
    };
    let holders = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|c| c.trim() == "arena-jail")
                    && view(pid).exists()
            })
            .collect()
    };
    let started = Instant::now();
    while !holders().is_empty() && started.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(holders(), Vec::<String>::new(), "holders outlived the run");
}
