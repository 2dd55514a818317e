//! A bot's logs: `logs/<bot>.log` with its builds' output and arena's notes about its games,
//! and `logs/<bot>/<game_id>.log` with each game's stderr, all under one size cap.
//!
//! Each game has its own file, so the games a bot plays at once (`--instances`) never mix
//! their lines, and a report links each game's output. A game's file is made when the game
//! first writes to stderr: a quiet bot leaves none.
//!
//! The log keeps only counters between games, no descriptor and no thread: each game (or
//! build) of the bot opens a [`GameLog`], a pipe whose read end a tokio task drains into the
//! game's file, so a chatty bot never blocks on a full pipe, the logs never outgrow their cap
//! across games, and a run holds descriptors for the games being played rather than for
//! every bot registered.

use std::fs::File;
use std::io::{self, PipeWriter, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

/// The cap accounting, kept across games.
struct Counters {
    /// Bytes of bot output kept.
    written: u64,
    /// Bytes of bot output seen, kept or not.
    seen: u64,
    cap: u64,
    truncated: bool,
    /// The first error writing a log file (a full disk), naming it, for the run to stop on.
    error: Option<String>,
}

impl Counters {
    /// Writes what fits under the cap of `bytes` to `file`, at `path`.
    fn write(&mut self, file: &mut File, path: &Path, bytes: &[u8]) {
        self.seen += bytes.len() as u64;
        let room = self.cap.saturating_sub(self.written) as usize;
        let take = bytes.len().min(room);
        // A failed write does not cost the bot its game, but it is kept: the run stops on it.
        if let Err(e) = file.write_all(&bytes[..take]) {
            self.error
                .get_or_insert_with(|| format!("cannot write `{}`: {e}", path.display()));
        }
        self.written += take as u64;
        if take < bytes.len() && !self.truncated {
            self.truncated = true;
            let _ = writeln!(
                file,
                "\n[arena] log truncated at {} bytes; further output is discarded",
                self.cap
            );
        }
    }
}

/// The log of one bot.
#[derive(Clone)]
pub struct BotLog {
    path: PathBuf,
    counters: Arc<Mutex<Counters>>,
    /// Where [`BotLog::note`] writes, when not `path`: a game's file ([`BotLog::for_game`]).
    notes: Option<PathBuf>,
}

impl BotLog {
    /// Creates the log at `path` (or adds to it, `append`), keeping at most `cap` bytes of
    /// bot output.
    pub fn create(path: &Path, cap: u64, append: bool) -> Result<BotLog> {
        std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(path)
            .with_context(|| format!("cannot create `{}`", path.display()))?;
        Ok(BotLog {
            path: path.to_owned(),
            counters: Arc::new(Mutex::new(Counters {
                written: 0,
                seen: 0,
                cap,
                truncated: false,
                error: None,
            })),
            notes: None,
        })
    }

    /// The same log, whose notes go to the file of the game `game` (its id) among that
    /// game's stderr, such as what an engine says in a game.
    pub fn for_game(&self, game: &str) -> BotLog {
        BotLog {
            notes: Some(self.game_path(game)),
            ..self.clone()
        }
    }

    /// The file of one game's stderr: `<bot>/<game>.log` beside the bot's log.
    pub fn game_path(&self, game: &str) -> PathBuf {
        self.path
            .with_extension("")
            .join(format!("{}.log", super::workspace::safe_file_name(game)))
    }

    fn open(&self) -> Result<File> {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .with_context(|| format!("cannot open `{}`", self.path.display()))
    }

    /// Opens the log for a build: a pipe for its processes' stderr, drained into the bot's
    /// log by a task on the current tokio runtime until every write end is closed.
    pub fn open_game(&self) -> Result<GameLog> {
        self.drain(Sink::Open(self.open()?, self.path.clone()))
    }

    /// Opens the log of the game `game` (its id): a pipe like [`BotLog::open_game`]'s, drained
    /// into [`BotLog::game_path`], which is made when the game first writes (or is noted).
    pub fn open_game_file(&self, game: &str) -> Result<GameLog> {
        let path = self.game_path(game);
        // A game played again (after `arena resume`) starts its file afresh.
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("cannot remove `{}`", path.display()))
            }
            _ => {}
        }
        self.drain(Sink::Later(path))
    }

    fn drain(&self, mut sink: Sink) -> Result<GameLog> {
        let (reader, writer) = io::pipe().context("cannot create a pipe for a bot's stderr")?;
        let mut reader = pipe::Receiver::from_owned_fd(OwnedFd::from(reader))
            .context("cannot watch a bot's stderr pipe")?;
        let counters = Arc::clone(&self.counters);
        let drain = tokio::spawn(async move {
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                match reader.read(&mut buf).await {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut counters = counters.lock().unwrap_or_else(|e| e.into_inner());
                        match sink.file() {
                            Ok((file, path)) => counters.write(file, path, &buf[..n]),
                            Err(e) => {
                                counters.seen += n as u64;
                                counters.error.get_or_insert(e);
                            }
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        Ok(GameLog {
            writer: Some(writer),
            drain,
        })
    }

    /// The first error writing this log, if any: the log file and the error.
    pub fn error(&self) -> Option<String> {
        let counters = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        counters.error.clone()
    }

    /// Bytes the bot has written to stderr so far, kept in the log or not.
    pub fn bytes(&self) -> u64 {
        self.counters.lock().unwrap_or_else(|e| e.into_inner()).seen
    }

    /// Adds a line from arena itself (why a game was lost, a build's result), to the game's
    /// file for a log [`BotLog::for_game`].
    pub fn note(&self, text: &str) {
        let line = format!("[arena] {}\n", text.trim_end());
        // Under the lock, so a note does not land inside a chunk of bot output.
        let mut counters = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        // Notes are not bot output: they do not count against the cap.
        let path = self.notes.as_ref().unwrap_or(&self.path);
        let written = append(path).and_then(|mut file| {
            file.write_all(line.as_bytes())
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
        });
        if let Err(e) = written {
            counters.error.get_or_insert(e);
        }
    }

    /// Closes the log. Each game's output is drained when the game ends, so nothing is left
    /// to wait for; `_wait` is kept for callers.
    pub fn close(self, _wait: Duration) {}
}

/// Where a game's (or build's) output goes.
enum Sink {
    Open(File, PathBuf),
    /// A file made at the first output.
    Later(PathBuf),
}

/// `path` opened to add to it, made with its directory if need be; the error names it.
fn append(path: &Path) -> Result<File, String> {
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
        })
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

impl Sink {
    /// The file and its path, made on first use; the error names it.
    fn file(&mut self) -> Result<(&mut File, &Path), String> {
        if let Sink::Later(path) = self {
            // Appending, so that notes written to the same file between chunks stay whole.
            let made = append(path)?;
            *self = Sink::Open(made, std::mem::take(path));
        }
        match self {
            Sink::Open(file, path) => Ok((file, path)),
            Sink::Later(_) => unreachable!("made just above"),
        }
    }
}

/// The log of one game (or build) of a bot: the write end for its processes' stderr.
pub struct GameLog {
    writer: Option<PipeWriter>,
    drain: tokio::task::JoinHandle<()>,
}

impl GameLog {
    /// The write end of the log pipe, for a new process's stderr (it dups it).
    pub fn stderr_fd(&self) -> RawFd {
        self.writer.as_ref().map_or(-1, |w| w.as_raw_fd())
    }

    /// A stderr (or stdout) handle for a process started by `std` or tokio.
    pub fn stdio(&self) -> io::Result<Stdio> {
        match &self.writer {
            Some(w) => Ok(Stdio::from(w.try_clone()?)),
            None => Err(io::Error::other("the game's log is closed")),
        }
    }

    /// Closes the game's end of the pipe and waits up to `wait` for the processes' last
    /// output to reach the file; output of a process that outlives that is dropped.
    pub async fn close(mut self, wait: Duration) {
        drop(self.writer.take());
        if tokio::time::timeout(wait, &mut self.drain).await.is_err() {
            self.drain.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn output_beyond_the_cap_is_discarded_without_blocking_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.log");
        let log = BotLog::create(&path, 1000, false).unwrap();
        log.note("game 1 starts");
        for _ in 0..2 {
            let game = log.open_game().unwrap();
            // 1 MB is far more than a pipe holds: the writer only finishes if it is drained.
            let mut child = tokio::process::Command::new("sh")
                .args(["-c", "head -c 1000000 /dev/zero | tr '\\0' x >&2"])
                .stderr(game.stdio().unwrap())
                .spawn()
                .unwrap();
            assert!(child.wait().await.unwrap().success());
            game.close(Duration::from_secs(5)).await;
        }
        assert_eq!(log.bytes(), 2_000_000, "the count goes on across games");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("[arena] game 1 starts\n"));
        assert_eq!(
            text.matches('x').count(),
            1000,
            "the cap holds across games"
        );
        assert_eq!(text.matches("log truncated at 1000 bytes").count(), 1);
    }

    #[tokio::test]
    async fn games_played_at_once_write_each_to_its_own_file_issue_18() {
        let dir = tempfile::tempdir().unwrap();
        let log = BotLog::create(&dir.path().join("bot.log"), 1 << 20, false).unwrap();
        let (one, two, quiet) = (
            log.open_game_file("1").unwrap(),
            log.open_game_file("2").unwrap(),
            log.open_game_file("3").unwrap(),
        );
        // Two processes writing line by line at the same time, one per game.
        let script = "for i in $(seq 200); do echo \"$0 line $i\" >&2; done";
        let mut children = Vec::new();
        for (game, name) in [(&one, "one"), (&two, "two")] {
            children.push(
                tokio::process::Command::new("sh")
                    .args(["-c", script, name])
                    .stderr(game.stdio().unwrap())
                    .spawn()
                    .unwrap(),
            );
        }
        for mut child in children {
            assert!(child.wait().await.unwrap().success());
        }
        for game in [one, two, quiet] {
            game.close(Duration::from_secs(5)).await;
        }
        for (id, name) in [("1", "one"), ("2", "two")] {
            let text = std::fs::read_to_string(dir.path().join(format!("bot/{id}.log"))).unwrap();
            let expected: Vec<String> = (1..=200).map(|i| format!("{name} line {i}")).collect();
            assert_eq!(text.lines().collect::<Vec<_>>(), expected);
        }
        assert!(
            !dir.path().join("bot/3.log").exists(),
            "a quiet game has no file"
        );
        // What arena notes about a game (an engine's messages) goes among its lines.
        log.for_game("1").note("engine: MESSAGE hi");
        let text = std::fs::read_to_string(dir.path().join("bot/1.log")).unwrap();
        assert!(
            text.ends_with("one line 200\n[arena] engine: MESSAGE hi\n"),
            "{text}"
        );
        // A game played again (resumed) starts its file afresh.
        log.open_game_file("1")
            .unwrap()
            .close(Duration::from_secs(5))
            .await;
        assert!(!dir.path().join("bot/1.log").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("bot.log")).unwrap(),
            ""
        );
        assert_eq!(log.game_path("7"), dir.path().join("bot/7.log"));
    }
}
