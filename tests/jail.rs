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

/// `field` of `/proc/<pid>/status` (such as `PPid`), if the process is there.
fn status_field(pid: &str, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        (name == field).then(|| value.trim().to_string())
    })
}

/// The processes whose parent is `parent` and whose name is `comm`.
fn children_named(parent: &str, comm: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|pid| pid.bytes().all(|b| b.is_ascii_digit()))
        .filter(|pid| {
            status_field(pid, "Name").as_deref() == Some(comm)
                && status_field(pid, "PPid").as_deref() == Some(parent)
        })
        .collect()
}

#[test]
fn holders_come_from_a_jail_factory_that_shows_bots_nothing_of_arena_and_ends_with_it() {
    if !claimed("process isolation", "PID namespace") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The probe notes its init's command line, then thinks a while at each move.
    let probe = bots(
        &tmp.path().join("bots"),
        &[(
            "init",
            "tr '\\0' ' ' < /proc/1/cmdline > init.txt 2>/dev/null; sleep 1".to_string(),
        )],
    );
    let out = tmp.path().join("out");
    let mut arena = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .arg(fixtures("morra").join("constant"))
        .args(&probe)
        .args(["--morra-rounds", "3", "--move-time", "5s", "--jobs", "1"])
        .args(["--keep-work", "--quiet", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let arena_pid = arena.id().to_string();
    let started = Instant::now();
    let (factory, holders) = loop {
        let factories = children_named(&arena_pid, "arena-factory");
        if let [factory] = &factories[..] {
            let holders = children_named(factory, "arena-jail");
            if !holders.is_empty() {
                break (factory.clone(), holders);
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no holder of a jail factory of arena: factories {factories:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        children_named(&arena_pid, "arena-jail"),
        Vec::<String>::new(),
        "no holder is cloned from arena itself (the factory's are {holders:?})"
    );
    // The factory has nothing of arena's environment.
    let environ = std::fs::read(format!("/proc/{factory}/environ")).unwrap();
    let names: Vec<&[u8]> = environ
        .split(|&b| b == 0)
        .filter(|v| !v.is_empty())
        .map(|v| v.split(|&b| b == b'=').next().unwrap())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n == b"ARENA_JAIL_FACTORY" || n == b"LD_LIBRARY_PATH"),
        "the factory's environment: {:?}",
        String::from_utf8_lossy(&environ)
    );
    // A Ctrl-C, which reaches the whole process group, leaves it to end with arena.
    assert!(Command::new("kill")
        .args(["-INT", &factory])
        .status()
        .unwrap()
        .success());
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        status_field(&factory, "State").is_some_and(|s| !s.starts_with('Z')),
        "the jail factory ended on SIGINT"
    );
    assert!(arena.wait().unwrap().success());
    let init = std::fs::read_to_string(out.join("work/init/init.txt")).unwrap();
    assert!(
        !init.contains("morra") && !init.contains(&out.display().to_string()),
        "the bot's init shows nothing of arena's command line: {init:?}"
    );
    // With arena gone, its factory ends (a zombie at most, where nothing reaps orphans).
    let ended = || status_field(&factory, "State").is_none_or(|s| s.starts_with('Z'));
    let started = Instant::now();
    while !ended() && started.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(ended(), "the jail factory {factory} outlived arena");
}

/// Compiles the C probe of `tests/fixtures/jail/probe` into a bot directory per name.
fn c_probes(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    require("gcc", "gcc");
    let source = fixtures("jail").join("probe").join("probe.c");
    names
        .iter()
        .map(|name| {
            let bot = dir.join(name);
            std::fs::create_dir_all(&bot).unwrap();
            std::fs::write(bot.join("bot.toml"), "command = \"./probe\"\n").unwrap();
            let built = Command::new("gcc")
                .args(["-O", "-o"])
                .arg(bot.join("probe"))
                .arg(&source)
                .status()
                .unwrap();
            assert!(built.success(), "gcc failed on `{}`", source.display());
            std::fs::set_permissions(dir, PermissionsExt::from_mode(0o755)).unwrap();
            bot
        })
        .collect()
}

/// Runs `arena run morra` on `bots` (2 rounds, copies kept), with `env` added to arena's
/// environment; returns the output directory.
fn run_bots(tmp: &Path, bots: &[PathBuf], env: &[(&str, &str)]) -> PathBuf {
    let out = tmp.join("out");
    let result = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "morra"])
        .args(bots)
        .args(["--morra-rounds", "2", "--move-time", "5s", "--jobs", "1"])
        .args(["--keep-work", "--quiet", "--out"])
        .arg(&out)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "arena failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    out
}

#[test]
fn a_build_runs_in_the_jail_with_a_clean_environment_and_its_own_tmpdir_issue_17() {
    require("gcc", "gcc");
    require("bash", "bash");
    let tmp = tempfile::tempdir().unwrap();
    let host_file = format!("arena-build-host-tmp-{}", std::process::id());
    std::fs::write(Path::new("/tmp").join(&host_file), "host").unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let port = udp.local_addr().unwrap().port();
    let bot = tmp.path().join("bots").join("built");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "command = \"./bot\"\nbuild = \"sh build.sh\"\n",
    )
    .unwrap();
    // The build notes what it sees, tries the network, and compiles the bot with gcc, whose
    // temporary files go to TMPDIR.
    std::fs::write(
        bot.join("build.sh"),
        format!(
            "env > build-env.txt
{{ if [ -e /tmp/{host_file} ]; then echo host-tmp:seen; else echo host-tmp:hidden; fi
  echo \"tmpdir:$TMPDIR\"
  bash -c 'echo x > /dev/udp/127.0.0.1/{port}' 2>/dev/null; echo \"udp:$?\"
}} > build-report.txt
gcc -o bot bot.c"
        ),
    )
    .unwrap();
    // Each move copies what the build saw into `move-env.txt`: the move sees the build's files.
    std::fs::write(
        bot.join("bot.c"),
        "#include <stdio.h>
int main(void) {
    FILE *in = fopen(\"build-env.txt\", \"r\"), *out = fopen(\"move-env.txt\", \"w\");
    int c;
    while (in && out && (c = fgetc(in)) != EOF) fputc(c, out);
    if (out) fclose(out);
    puts(\"0 0\");
    return 0;
}
",
    )
    .unwrap();
    std::fs::set_permissions(tmp.path(), PermissionsExt::from_mode(0o755)).unwrap();
    let secret = "ARENA_TEST_SECRET";
    let out = run_bots(
        tmp.path(),
        &[fixtures("morra").join("constant"), bot],
        &[(secret, "operator-only-7f3a")],
    );
    let _ = std::fs::remove_file(Path::new("/tmp").join(&host_file));
    let work = out.join("work").join("built");
    let log = std::fs::read_to_string(out.join("logs").join("built.log")).unwrap_or_default();
    let built_env = std::fs::read_to_string(work.join("build-env.txt"))
        .unwrap_or_else(|e| panic!("the build left no build-env.txt ({e}); its log:\n{log}"));
    assert!(!built_env.contains(secret), "the build saw:\n{built_env}");
    let allowed = [
        "PATH", "LANG", "HOME", "TMPDIR", "PWD", "OLDPWD", "SHLVL", "_",
    ];
    for line in built_env.lines() {
        let key = line.split('=').next().unwrap_or_default();
        assert!(
            allowed.contains(&key),
            "the build got `{line}` of arena's environment:\n{built_env}"
        );
    }
    let moved = std::fs::read_to_string(work.join("move-env.txt"))
        .unwrap_or_else(|e| panic!("the gcc-built bot never moved ({e}); its log:\n{log}"));
    assert_eq!(moved, built_env, "a move sees what the build wrote");
    let seen: BTreeMap<String, String> = std::fs::read_to_string(work.join("build-report.txt"))
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert!(!seen["tmpdir"].is_empty(), "{seen:?}");
    if claimed("file-system isolation", "private 64 MiB /tmp") {
        assert_eq!(seen["host-tmp"], "hidden", "the build saw the host's /tmp");
    }
    let mut buf = [0u8; 8];
    if claimed("network off", "network namespace") {
        assert!(
            udp.recv(&mut buf).is_err(),
            "the build's UDP packet arrived"
        );
        assert_ne!(seen["udp"], "0", "{seen:?}");
    }
}

/// `<linux/keyctl.h>`.
const KEY_SPEC_SESSION_KEYRING: libc::c_long = -3;
const KEY_SPEC_USER_KEYRING: libc::c_long = -4;
const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
const KEYCTL_CLEAR: libc::c_long = 7;
const KEYCTL_READ: libc::c_long = 11;

/// Adds a `user` key named `name` to `ring`.
fn add_key(name: &str, ring: libc::c_long) -> libc::c_long {
    let name = std::ffi::CString::new(name).unwrap();
    // SAFETY: add_key reads two NUL-terminated strings and a 6-byte payload, all alive.
    unsafe {
        libc::syscall(
            libc::SYS_add_key,
            c"user".as_ptr(),
            name.as_ptr(),
            c"secret".as_ptr(),
            6usize,
            ring,
        )
    }
}

/// Runs `f` in a thread of its own as `uid` (the raw call changes that thread only; the
/// saved uid stays root to come back). Root only.
fn as_uid<T: Send + 'static>(uid: u32, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        // SAFETY: raw setresuid of this thread alone, which ends after `f`.
        assert_eq!(
            unsafe { libc::syscall(libc::SYS_setresuid, uid, uid, 0) },
            0
        );
        let result = f();
        // SAFETY: as above, back to root.
        unsafe { libc::syscall(libc::SYS_setresuid, 0, 0, 0) };
        result
    })
    .join()
    .unwrap()
}

/// The number of keys in the calling thread's user keyring.
fn user_keys() -> libc::c_long {
    let mut ids = [0u8; 4096];
    // SAFETY: KEYCTL_READ writes at most `ids.len()` bytes into `ids`.
    let n = unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_READ,
            KEY_SPEC_USER_KEYRING,
            ids.as_mut_ptr(),
            ids.len(),
        )
    };
    n / 4
}

/// The first uids of each block of bot uids (see `src/sandbox/uids.rs`).
fn first_bot_uids() -> Vec<u32> {
    (0..64u32)
        .flat_map(|block| (0..2).map(move |i| 61000 + block * 1024 + i))
        .collect()
}

#[test]
fn bots_share_no_keyring_with_arena_each_other_or_a_later_run_issue_17() {
    let tmp = tempfile::tempdir().unwrap();
    let root = rustix::process::geteuid().is_root();
    // arena's session keyring (here this thread's, which arena inherits) holds the
    // operator's key, as a login session's does.
    // SAFETY: plain keyctl on integers: a fresh session keyring for this thread.
    let joined = unsafe { libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0usize) };
    assert!(joined > 0, "{}", std::io::Error::last_os_error());
    assert!(add_key("arena-operator-secret", KEY_SPEC_SESSION_KEYRING) > 0);
    // As root, a key left in the user keyring of the first uids of every block, as a bot of
    // an earlier run could have left it.
    if root {
        for uid in first_bot_uids() {
            as_uid(uid, || {
                assert!(add_key("arena-left", KEY_SPEC_USER_KEYRING) > 0)
            });
        }
    }
    let probes = c_probes(&tmp.path().join("bots"), &["keys-a", "keys-b"]);
    let out = run_bots(tmp.path(), &probes, &[]);
    let mut uids = Vec::new();
    for bot in ["keys-a", "keys-b"] {
        let text = std::fs::read_to_string(out.join("work").join(bot).join("report.txt"))
            .unwrap_or_else(|e| panic!("{bot} wrote no report: {e}"));
        assert!(text.contains("operator-key:none"), "{bot}:\n{text}");
        assert!(!text.contains("note-from-other"), "{bot}:\n{text}");
        assert!(
            text.lines()
                .filter_map(|l| l.strip_prefix("user-keys:"))
                .all(|n| n.parse::<i64>().unwrap() <= 0),
            "{bot} found keys in its uid's user keyring:\n{text}"
        );
        let uid: u32 = text
            .lines()
            .find_map(|l| l.strip_prefix("uid:"))
            .unwrap()
            .parse()
            .unwrap();
        uids.push(uid);
    }
    if root {
        // The run emptied its uids' user keyrings: nothing is left for a later run.
        for &uid in &uids {
            assert_eq!(as_uid(uid, user_keys), 0, "uid {uid}'s user keyring");
        }
        for uid in first_bot_uids() {
            // SAFETY: plain keyctl on integers, as that uid.
            as_uid(uid, || unsafe {
                libc::syscall(libc::SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING)
            });
        }
    } else {
        // Not root: bots run as this user in a user namespace of their own per holder, whose
        // user keyrings are that namespace's; the probes above found none and left none.
        println!("not root: no uid block; bots' key calls are denied (uids seen: {uids:?})");
    }
}

#[test]
fn a_bot_gets_eperm_from_every_denied_system_call_issue_17() {
    let tmp = tempfile::tempdir().unwrap();
    let probes = c_probes(&tmp.path().join("bots"), &["calls"]);
    let out = run_bots(
        tmp.path(),
        &[fixtures("morra").join("constant"), probes[0].clone()],
        &[],
    );
    let text = std::fs::read_to_string(out.join("work").join("calls").join("report.txt"))
        .unwrap_or_else(|e| panic!("the probe wrote no report: {e}"));
    let seen: BTreeMap<&str, &str> = text.lines().filter_map(|l| l.split_once(':')).collect();
    let denied = [
        "keyctl",
        "add_key",
        "request_key",
        "bpf",
        "perf_event_open",
        "userfaultfd",
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        "kexec_load",
        "kexec_file_load",
        "ptrace",
        "mount",
        "umount2",
        "pivot_root",
        "move_mount",
        "open_tree",
        "fsopen",
        "fsmount",
        "fsconfig",
        "fspick",
        "unshare",
        "setns",
        "clone-newuser",
    ];
    for call in denied {
        assert_eq!(seen.get(call), Some(&"EPERM"), "`{call}`:\n{text}");
    }
    assert_eq!(seen.get("clone3"), Some(&"ENOSYS"), "{text}");
    assert_eq!(seen.get("fork"), Some(&"ok"), "{text}");
    assert!(claimed("system calls", "seccomp filter"));
}
