//! `arena serve` at scale (issue 12, item 9): many waiting connections, many remote games at
//! once, and the same games played by local `lines` bots, side by side in one run.
//!
//! Run with `cargo bench --bench serve_scale`. Prints:
//! 1. **Connections:** `CONNECTIONS` (default 1,000) TCP connections spread over entrants (at
//!    most 50 each, the server keeps 64 waiting per entrant) complete `HELLO` and wait on one
//!    server; whether all got `OK`, how long the handshakes took (at most 128 in flight, from 4
//!    loopback addresses: the server lets one address have 32 connections in their handshake)
//!    and the server's peak RSS (`VmHWM`) with all of them open.
//! 2. **Remote games:** a round robin of `ENTRANTS` (default 40) remote entrants only, `ROUNDS`
//!    Morra rounds (default 50) a game, `--jobs 200`, each entrant with one connection per game
//!    it has, the client (tokio, two threads) answering every request with `1 1` and taking a
//!    server that is gone (refused, reset or closed before `OK`: it exits after its last game,
//!    while the clients of the last games are connecting again) as its end: moves per
//!    second (replies sent / the playing phase, first `GAME` to last game's end), the latency
//!    from sending a reply to receiving the next request (median, 99th percentile), the most
//!    games under way at once (seen by the client), and the server's peak RSS.
//! 3. **Local games:** `arena run morra` with as many tiny native `lines` bots (`1 1` a line),
//!    the same rounds and jobs, `--no-sandbox` and sandboxed: moves per second over the whole
//!    run, and the ratio local/remote (goal: at most 1.5). For a like-for-like ratio the remote
//!    side is timed here from the first `GAME` to the server's exit (its reports included, as
//!    the local run's are; the local run also holds the preparation of its bots).
//!
//! Every run has time limits far above what a move takes (`--move-time 10s --startup-time
//! 60s`), so a loaded machine slows it down instead of making it fail. Run without `--bench`
//! (`cargo test --benches`), it only checks that everything works, on tiny sizes.
//!
//! Measured here (2 cores; the default sizes: 1,000 connections; 40 entrants, 780 games of 50
//! rounds, 78,000 moves): 1,000 handshakes answered `OK` in 61 ms, server peak RSS 16.8 MB
//! with all of them waiting; remote games: up to 221 at once seen by the client (`--jobs 200`
//! bounds the server; the client sees a game's end a little after the server frees its slot),
//! 39,912 moves/s over the playing phase (39,414 to the server's exit), latency reply -> next
//! request median 4.8 ms, p99 53.7 ms (it holds the wait for the opponent's reply, both
//! seats being clients of this process), server peak RSS 41.1 MB; local `lines` bots:
//! `--no-sandbox` 29,562 moves/s (ratio local/remote 0.75), sandboxed 5,251 moves/s (0.13;
//! 3,529 when each game built its jail's holders anew); the goal (at most 1.5) is met.

#[path = "common/mod.rs"]
mod common;

use common::{compile, env_number, median, peak_rss_kb, watch_peaks};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader as AsyncBufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Semaphore;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// A `lines` Morra bot: `1 1` for every request line.
const BOT_SOURCE: &str = r#"
#include <stdio.h>
#include <string.h>
int main(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] != '\n') continue; /* the rest of a long line follows */
        fputs("1 1\n", stdout);
        fflush(stdout);
    }
    return 0;
}
"#;

/// Time limits far above what a move takes, so that a loaded machine (200 games at once)
/// slows the figures down instead of losing games on time and failing the run.
const LIMITS: [&str; 4] = ["--move-time", "10s", "--startup-time", "60s"];

/// The loopback addresses the clients connect from (all of `127.0.0.0/8` is loopback on
/// Linux): the server lets one address have only so many connections in their handshake.
const SOURCES: u8 = 4;

/// Handshakes in flight at once: each source address as many as the server lets it have.
const HANDSHAKES: usize = SOURCES as usize * arena::serve::gate::MAX_PER_ADDRESS;

/// One gate per source address, each with the handshakes it may have in flight.
type Gates = Arc<Vec<Semaphore>>;

fn gates() -> Gates {
    let per = arena::serve::gate::MAX_PER_ADDRESS;
    Arc::new((0..SOURCES).map(|_| Semaphore::new(per)).collect())
}

fn token(name: &str) -> String {
    format!("token-{name}")
}

/// Writes an entrants file for `names` (tokens `token-<name>`).
fn entrants(path: &Path, names: &[String]) {
    let text: String = names
        .iter()
        .map(|n| arena::serve::entrants::table(n, &token(n)))
        .collect();
    std::fs::write(path, text).unwrap();
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Starts `arena serve morra` on a free port; returns once it listens.
fn serve(file: &Path, out: &Path, extra: &[String]) -> (Child, u16) {
    let port = free_port();
    let mut child = Command::new(ARENA)
        .args(["serve", "morra", "--listen", &format!("127.0.0.1:{port}")])
        .arg("--entrants")
        .arg(file)
        .arg("--out")
        .arg(out)
        .args(["--seed", "1", "--quiet", "--no-sandbox"])
        .args(LIMITS)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.starts_with("listening on ") {
            std::thread::spawn(move || {
                for line in lines.map_while(Result::ok) {
                    if !line.starts_with("waiting for entrants") {
                        eprintln!("server: {line}");
                    }
                }
            });
            return (child, port);
        }
        eprintln!("server: {line}");
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the server did not say where it listens");
}

fn wait(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("arena did not finish within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

struct Conn {
    reader: AsyncBufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

/// Connects from source address `source` and says `HELLO`; the connection and the server's
/// answer, or `None` if the server is not there (refused, or closed before answering: at its
/// end, the server exits after its last game while clients may still be connecting).
async fn hello(port: u16, name: &str, gates: &Gates, source: usize) -> Option<(Conn, String)> {
    let _permit = gates[source].acquire().await.unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(([127, 0, 0, 1 + source as u8], 0).into())
        .unwrap();
    let stream = socket.connect(([127, 0, 0, 1], port).into()).await.ok()?;
    stream.set_nodelay(true).unwrap();
    let (r, mut writer) = stream.into_split();
    let mut reader = AsyncBufReader::new(r);
    let line = format!("HELLO {name} {}\n", token(name));
    writer.write_all(line.as_bytes()).await.ok()?;
    let mut answer = String::new();
    if reader.read_line(&mut answer).await.unwrap_or(0) == 0 {
        return None;
    }
    Some((Conn { reader, writer }, answer.trim_end().to_string()))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

/// Part 1: `count` waiting connections.
fn connections(dir: &Path, count: usize) {
    let per = 50;
    let n = count.div_ceil(per).max(16);
    let mut names: Vec<String> = (0..n).map(|i| format!("e{i:03}")).collect();
    // One entrant never connects, so the tournament does not start.
    names.push("absent".to_string());
    let file = dir.join("waiting.toml");
    entrants(&file, &names);
    let (mut server, port) = serve(&file, &dir.join("waiting"), &[]);
    let rt = runtime();
    let gates = gates();
    let started = Instant::now();
    let conns: Vec<(Conn, String)> = rt.block_on(async {
        let tasks: Vec<_> = (0..count)
            .map(|i| {
                let name = names[i % n].clone();
                let gates = Arc::clone(&gates);
                let source = i % SOURCES as usize;
                tokio::spawn(async move { hello(port, &name, &gates, source).await })
            })
            .collect();
        let mut conns = Vec::new();
        for t in tasks {
            conns.push(t.await.unwrap().expect("the server is listening"));
        }
        conns
    });
    let took = started.elapsed();
    let ok = conns.iter().filter(|(_, a)| a.starts_with("OK ")).count();
    std::thread::sleep(Duration::from_millis(200));
    let rss = peak_rss_kb(server.id()).unwrap_or(0);
    let _ = server.kill();
    let _ = server.wait();
    drop(conns);
    println!(
        "1. connections: {count} over {n} entrants: {ok} answered OK in {:.0} ms ({:.1} µs a handshake, {HANDSHAKES} in flight); server peak RSS {:.1} MB",
        took.as_secs_f64() * 1e3,
        took.as_secs_f64() * 1e6 / count as f64,
        mb(rss)
    );
    assert_eq!(ok, count, "not every connection got OK");
}

/// What the clients of part 2 saw.
#[derive(Default)]
struct Games {
    /// Open seats by game id.
    seats: HashMap<u64, u8>,
    peak: usize,
    games: usize,
    first: Option<Instant>,
    last: Option<Instant>,
}

struct Remote {
    replies: u64,
    latencies: Vec<Duration>,
    playing: Duration,
    /// From the first `GAME` to the server's exit.
    to_exit: Duration,
    peak_games: usize,
    games: usize,
    rss_kb: u64,
}

/// One connection after another for `name` until `END`, or until the server is gone after
/// its end (whether every game was played is checked in `games.csv`); the latencies seen.
async fn client(
    port: u16,
    name: String,
    (gates, source): (Gates, usize),
    games: Arc<Mutex<Games>>,
    replies: Arc<AtomicU64>,
) -> Vec<Duration> {
    let mut latencies = Vec::new();
    let mut line = String::new();
    loop {
        let Some((mut c, ok)) = hello(port, &name, &gates, source).await else {
            return latencies;
        };
        assert!(ok.starts_with("OK "), "{name}: {ok}");
        line.clear();
        // A reset (the server exiting) is its end too.
        c.reader.read_line(&mut line).await.unwrap_or(0);
        if line.is_empty() || line.starts_with("END") {
            return latencies;
        }
        assert!(line.starts_with("GAME "), "{name}: {line}");
        let id: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        {
            let mut g = games.lock().unwrap();
            g.first.get_or_insert_with(Instant::now);
            *g.seats.entry(id).or_default() += 1;
            g.peak = g.peak.max(g.seats.len());
        }
        let mut sent: Option<Instant> = None;
        let mut count = 0;
        loop {
            line.clear();
            if c.reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                break;
            }
            if let Some(s) = sent {
                latencies.push(s.elapsed());
            }
            if c.writer.write_all(b"1 1\n").await.is_err() {
                break;
            }
            sent = Some(Instant::now());
            count += 1;
        }
        replies.fetch_add(count, Ordering::Relaxed);
        let mut g = games.lock().unwrap();
        g.last = Some(Instant::now());
        let seats = g.seats.get_mut(&id).unwrap();
        *seats -= 1;
        if *seats == 0 {
            g.seats.remove(&id);
            g.games += 1;
        }
    }
}

/// Part 2: a round robin of `names`, all remote.
fn remote(dir: &Path, names: &[String], rounds: u32, jobs: u32) -> Remote {
    let file = dir.join("players.toml");
    entrants(&file, names);
    let extra: Vec<String> = [
        "--start-when",
        &names.len().to_string(),
        "--jobs",
        &jobs.to_string(),
        "--morra-rounds",
        &rounds.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (mut server, port) = serve(&file, &dir.join("remote"), &extra);
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = watch_peaks(server.id(), Arc::clone(&stop));
    // One connection per game an entrant has (the server keeps 64 waiting per entrant).
    let per = (names.len() - 1).min(64);
    let gates = gates();
    let games = Arc::new(Mutex::new(Games::default()));
    let replies = Arc::new(AtomicU64::new(0));
    let rt = runtime();
    let latencies: Vec<Duration> = rt.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..per {
            for name in names {
                let source = tasks.len() % SOURCES as usize;
                tasks.push(tokio::spawn(client(
                    port,
                    name.clone(),
                    (Arc::clone(&gates), source),
                    Arc::clone(&games),
                    Arc::clone(&replies),
                )));
            }
        }
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all
    });
    let status = wait(&mut server, Duration::from_secs(600));
    let exited = Instant::now();
    stop.store(true, Ordering::Relaxed);
    let rss_kb = sampler.join().unwrap().rss_kb;
    assert!(status.success(), "the server failed: {status}");
    let g = games.lock().unwrap();
    let (first, last) = (g.first.unwrap(), g.last.unwrap());
    check_games(&dir.join("remote"), names.len(), rounds);
    Remote {
        replies: replies.load(Ordering::Relaxed),
        latencies,
        playing: last - first,
        to_exit: exited - first,
        peak_games: g.peak,
        games: g.games,
        rss_kb,
    }
}

/// Every game of the round robin of `bots` ran all its rounds to a draw.
fn check_games(out: &Path, bots: usize, rounds: u32) {
    let table = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), bots * (bots - 1) / 2, "{table}");
    for row in rows {
        assert!(row.contains(",draw,normal,"), "{row}");
        assert!(row.contains(&format!(",{rounds},")), "{row}");
    }
}

/// Part 3: `arena run morra` with `bots`; wall time and the controller's peak RSS.
fn local(bots: &[PathBuf], out: &Path, rounds: u32, jobs: u32, extra: &[&str]) -> (Duration, u64) {
    let _ = std::fs::remove_dir_all(out);
    let started = Instant::now();
    let mut child = Command::new(ARENA)
        .args(["run", "morra"])
        .args(bots.iter().map(|b| format!("lines:{}", b.display())))
        .args(["--seed", "1", "--quiet", "--jobs", &jobs.to_string()])
        .args(LIMITS)
        .args(["--morra-rounds", &rounds.to_string()])
        .arg("--out")
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = watch_peaks(child.id(), Arc::clone(&stop));
    let status = wait(&mut child, Duration::from_secs(600));
    let wall = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let rss = sampler.join().unwrap().rss_kb;
    assert!(status.success(), "arena run failed: {status}");
    check_games(out, bots.len(), rounds);
    (wall, rss)
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (such as `cargo test --benches`) only
    // checks that this works, on tiny sizes.
    let benching = std::env::args().any(|a| a == "--bench");
    let count: usize = env_number("CONNECTIONS", if benching { 1000 } else { 40 });
    let players: usize = env_number("ENTRANTS", if benching { 40 } else { 4 });
    let rounds: u32 = env_number("ROUNDS", if benching { 50 } else { 5 });
    let jobs: u32 = env_number("JOBS", 200);
    assert!(players >= 2, "ENTRANTS must be at least 2");
    let dir = tempfile::tempdir().unwrap();

    connections(dir.path(), count);

    let names: Vec<String> = (0..players).map(|i| format!("p{i:03}")).collect();
    let games = players * (players - 1) / 2;
    let r = remote(dir.path(), &names, rounds, jobs);
    let moves = (games as u64) * u64::from(rounds) * 2;
    assert_eq!(r.replies, moves, "replies sent");
    assert_eq!(r.games, games);
    let mut lat = r.latencies.clone();
    lat.sort();
    let p99 = lat[(lat.len() * 99 / 100).min(lat.len() - 1)];
    let med = median(lat);
    let remote_rate = moves as f64 / r.playing.as_secs_f64();
    let remote_whole = moves as f64 / r.to_exit.as_secs_f64();
    println!(
        "2. remote: {games} games of {rounds} rounds among {players} entrants, --jobs {jobs}: {} games at once at most (as the client sees them); {moves} moves in {:.2} s of play: {:.0} moves/s ({:.0} to the server's exit); latency reply -> next request median {:.2} ms, p99 {:.2} ms; server peak RSS {:.1} MB",
        r.peak_games,
        r.playing.as_secs_f64(),
        remote_rate,
        remote_whole,
        med.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        mb(r.rss_kb)
    );

    let exe = compile(dir.path(), "one", BOT_SOURCE);
    let bots: Vec<PathBuf> = names
        .iter()
        .map(|n| {
            let bot = dir.path().join(n);
            std::fs::copy(&exe, &bot).unwrap();
            bot
        })
        .collect();
    let out = dir.path().join("local");
    for (label, extra) in [("--no-sandbox", &["--no-sandbox"][..]), ("sandboxed", &[])] {
        let (wall, rss) = local(&bots, &out, rounds, jobs, extra);
        let rate = moves as f64 / wall.as_secs_f64();
        let ratio = rate / remote_whole;
        println!(
            "3. local {label}: {moves} moves in {:.2} s: {rate:.0} moves/s, controller peak RSS {:.1} MB; local/remote {ratio:.2} (goal <= 1.5: {})",
            wall.as_secs_f64(),
            mb(rss),
            if ratio <= 1.5 { "met" } else { "not met" }
        );
    }
}
