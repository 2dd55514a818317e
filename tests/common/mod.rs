//! Helpers shared by the integration tests: running the real binary on fixture bots.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

/// The directory of the fixture bots for a game.
pub fn fixtures(game: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(game)
}

/// The bundled bots for a game.
pub fn bundled(game: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("bots")
        .join(game)
}

/// Fails the test unless `program` (a path, or a name looked up on `PATH`) is an executable
/// file, naming the Debian `package` that provides it: a test must not pass by skipping what
/// it cannot run. `.ci/run` installs every package named here.
pub fn require(program: &str, package: &str) {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let found = if program.contains('/') {
        executable(Path::new(program))
    } else {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| executable(&d.join(program))))
    };
    if !found {
        panic!("missing `{program}`: install the Debian package `{package}` (`.ci/run` does)");
    }
}

/// The interpreter of the bundled Python bots and the Python fixture engines.
pub fn require_python3() {
    require("/usr/bin/python3", "python3");
}

/// The interpreter of the bundled Perl bots.
pub fn require_perl() {
    require("perl", "perl");
}

/// The compiler and runtime of the bundled Java bot (through the Java adapter).
pub fn require_java() {
    require("javac", "default-jdk-headless");
    require("java", "default-jdk-headless");
}

/// Where Debian's `grhino` package installs its GTP engine.
pub const GTP_RHINO: &str = "/usr/games/gtp-rhino";

/// GRhino's GTP engine, the real engine of the GTP tests.
pub fn require_gtp_rhino() {
    require(GTP_RHINO, "grhino");
}

/// `arena` with the given arguments, run in the project directory.
pub fn arena(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs `arena` and asserts it succeeded, showing its stderr if not.
pub fn arena_ok(args: &[&str]) -> Output {
    let out = arena(args);
    assert!(
        out.status.success(),
        "arena {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// One row of a games CSV, as a map from column to value.
pub type Row = std::collections::BTreeMap<String, String>;

/// The rows of `<out>/games.csv`.
pub fn games(out: &Path) -> Vec<Row> {
    let mut reader = csv::Reader::from_path(out.join("games.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Every replay of the run in `out`, each as its lines (header, exchanges, result) parsed.
pub fn replays(out: &Path) -> Vec<Vec<Value>> {
    let dir = std::fs::read_dir(out.join("replays")).unwrap();
    dir.map(|entry| {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    })
    .collect()
}

/// Everything in a bot's logs under `<out>/logs`: `<bot>.log` (builds, arena's notes), then
/// each game's stderr, `<bot>/<game_id>.log`, in game order.
pub fn bot_logs(out: &Path, bot: &str) -> String {
    let logs = out.join("logs");
    let mut text = std::fs::read_to_string(logs.join(format!("{bot}.log"))).unwrap_or_default();
    let mut games: Vec<(u64, PathBuf)> = std::fs::read_dir(logs.join(bot))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.strip_suffix(".log")?.parse().ok()?;
            Some((id, e.path()))
        })
        .collect();
    games.sort();
    for (_, path) in games {
        text.push_str(&std::fs::read_to_string(path).unwrap());
    }
    text
}

/// The game between `x` and `y` (in either seat).
pub fn game_between<'a>(rows: &'a [Row], x: &str, y: &str) -> &'a Row {
    rows.iter()
        .find(|r| (r["bot_a"] == x && r["bot_b"] == y) || (r["bot_a"] == y && r["bot_b"] == x))
        .unwrap_or_else(|| panic!("no game between `{x}` and `{y}` in {rows:?}"))
}

/// The result of `row` from `bot`'s side: "win", "loss" or "draw".
pub fn result_for(row: &Row, bot: &str) -> &'static str {
    let seat = if row["bot_a"] == bot { "a" } else { "b" };
    match row["result"].as_str() {
        "draw" => "draw",
        r if r == seat => "win",
        _ => "loss",
    }
}

/// The culprit of `row` as a bot name, if one bot is to blame.
pub fn culprit(row: &Row) -> Option<&str> {
    match row["culprit"].as_str() {
        "a" => Some(row["bot_a"].as_str()),
        "b" => Some(row["bot_b"].as_str()),
        _ => None,
    }
}

/// Whether a process is still alive (a zombie waiting for its parent counts as gone).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// Asserts that two output directories hold byte-identical standings and cross-tables.
pub fn assert_same_tables(a: &Path, b: &Path) {
    for file in [
        "standings.csv",
        "standings.md",
        "crosstable.csv",
        "crosstable.md",
    ] {
        let (x, y) = (
            std::fs::read(a.join(file)).unwrap(),
            std::fs::read(b.join(file)).unwrap(),
        );
        assert!(
            x == y,
            "`{file}` differs between `{}` and `{}`",
            a.display(),
            b.display()
        );
    }
}

/// Live processes of one arena run (the arena process `arena_pid`, whose `--keep-work` copies
/// went to `kept`): those whose working directory or environment (`TMPDIR`, set to the bot's
/// copy) lies in the run's `arena-work-<pid>-*` directory or in `kept`. Other runs' bots,
/// even under the same uids, do not count.
pub fn run_processes(arena_pid: u32, kept: &Path) -> Vec<u32> {
    let tag = format!("arena-work-{arena_pid}-");
    let kept = kept.to_string_lossy().into_owned();
    let ours = |text: &str| text.contains(&tag) || (!kept.is_empty() && text.contains(&kept));
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cwd = std::fs::read_link(entry.path().join("cwd"))
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let environ = String::from_utf8_lossy(&environ);
        let tmpdir = environ
            .split('\0')
            .find_map(|v| v.strip_prefix("TMPDIR="))
            .unwrap_or("");
        if (ours(&cwd) || ours(tmpdir)) && alive(pid) {
            found.push(pid);
        }
    }
    found
}

/// `arena doctor`'s verdicts: protection name to (active, detail).
pub fn doctor_verdicts() -> std::collections::BTreeMap<String, (bool, String)> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("doctor")
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let (verdict, rest) = l.split_at(4);
            let (name, detail) = rest.split_once(": ")?;
            Some((
                name.to_string(),
                (verdict.trim() == "yes", detail.to_string()),
            ))
        })
        .collect()
}

/// A path as text (test paths are UTF-8).
pub fn path(p: &std::path::Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Starts `arena` with `args` in the crate's directory (stdout discarded), waits until it says
/// where it listens, and returns it with its port. `stdin`: give it a pipe (the operator's).
pub fn spawn_server(args: &[&str], stdin: bool) -> (std::process::Child, u16) {
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdin(if stdin {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let port = listening_port(child.stderr.take().unwrap());
    (child, port)
}

/// Reads a server's stderr up to `listening on ADDR`, then drains it in a thread: its port.
pub fn listening_port(stderr: std::process::ChildStderr) -> u16 {
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(stderr).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(addr) = line.strip_prefix("listening on ") {
            let port = addr.rsplit(':').next().unwrap().parse().unwrap();
            std::thread::spawn(move || for _ in lines {});
            return port;
        }
    }
    panic!("the server did not say where it listens");
}

/// Waits for `child` to exit; kills it and fails the test if it takes longer than `within`.
pub fn wait_within(
    child: &mut std::process::Child,
    within: std::time::Duration,
) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("a process did not finish within {within:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Sends raw bytes on a new connection and returns what comes back before it closes (or
/// `within` passes); `None` if the server is not there. `end`: shut down the sending side
/// after the bytes (an HTTP server closes a half-closed connection without answering).
pub fn raw(port: u16, bytes: &[u8], end: bool, within: Duration) -> Option<Vec<u8>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(within)).unwrap();
    let _ = stream.write_all(bytes);
    if end {
        let _ = stream.shutdown(Shutdown::Write);
    }
    let mut back = Vec::new();
    let _ = stream.read_to_end(&mut back);
    Some(back)
}

/// One HTTP request (`Connection: close`): the status (0 if the server is gone) and the body
/// as JSON (`Null` if empty or not JSON).
pub fn http(port: u16, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    let (status, _, body) = http_full(port, method, path, token, body);
    (status, body)
}

/// [`http`], with the response's header lines too.
pub fn http_full(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, String, Value) {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let Some(back) = raw(port, request.as_bytes(), false, Duration::from_secs(40)) else {
        return (0, String::new(), Value::Null);
    };
    let text = String::from_utf8_lossy(&back);
    let status = (text.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let body = serde_json::from_str(body).unwrap_or(Value::Null);
    (status, head.to_string(), body)
}

/// Writes `<dir>/entrants.toml` for `names`, whose tokens are `token-<name>`; its path.
pub fn entrants(dir: &Path, names: &[&str]) -> PathBuf {
    let path = dir.join("entrants.toml");
    let text: String = (names.iter())
        .map(|n| arena::serve::entrants::table(n, &format!("token-{n}")))
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// A Morra entrant over the line protocol that always shows 1 and guesses 2, until told `END`; the games
/// it played.
pub fn morra_client(port: u16, name: &str, token: &str) -> std::thread::JoinHandle<usize> {
    use std::io::{BufRead, BufReader};
    let (name, token) = (name.to_string(), token.to_string());
    std::thread::spawn(move || {
        let mut games = 0;
        loop {
            let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(60)))
                .unwrap();
            let mut w = stream.try_clone().unwrap();
            let mut lines = BufReader::new(stream).lines();
            writeln!(w, "HELLO {name} {token}").unwrap();
            let ok = lines.next().and_then(Result::ok).unwrap_or_default();
            assert!(ok.starts_with("OK "), "{ok}");
            match lines.next().and_then(Result::ok) {
                Some(header) if header.starts_with("GAME ") => games += 1,
                _ => return games,
            }
            for _request in lines.map_while(Result::ok) {
                if writeln!(w, "1 2").is_err() {
                    break;
                }
            }
        }
    })
}
