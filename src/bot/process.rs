//! Running a bot's processes: one per move (`argv`, `stdin`) or one per game (`lines`), each in
//! its own process group, under a deadline, killed with everything it started when it is done.

use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::{timeout_at, Instant};

use super::prepare::PreparedBot;
use super::Protocol;
use crate::referee::{Failure, Player};

/// The most bytes of a reply arena reads; the rest of an over-long reply is discarded (per-move
/// processes) or makes the reply illegal (`lines`).
pub const MAX_REPLY: usize = 64 * 1024;

/// How long a `lines` bot may take to exit after its stdin is closed at the end of a game.
pub const EXIT_GRACE: Duration = Duration::from_millis(200);

/// Time limits for a bot's moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveLimits {
    /// Wall time per move; for per-move processes counted from the spawn.
    pub move_time: Duration,
    /// Extra time for the first move of a `lines` bot (interpreter or JVM start-up).
    pub startup_time: Duration,
}

/// Sends SIGKILL to the process group led by `pid`.
pub fn kill_group(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) else {
        return;
    };
    // ESRCH (the group is already empty) is the common, harmless case.
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
}

/// Describes how a process ended, for crash reports.
pub fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => status.to_string(),
    }
}

/// Encodes request fields as a protocol line: space-separated, an empty field written as `-`.
pub fn encode_line(fields: &[String]) -> String {
    let mut line = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        line.push_str(if f.is_empty() { "-" } else { f });
    }
    line.push('\n');
    line
}

/// A bot playing one game through real processes.
pub struct ProcessPlayer {
    bot: Arc<PreparedBot>,
    /// The whole environment of the game's processes, built once: changing a single variable
    /// per spawn would make the standard library copy the whole environment on every spawn.
    env: Vec<(OsString, OsString)>,
    limits: MoveLimits,
    /// The running process of a `lines` bot.
    session: Option<Session>,
}

struct Session {
    child: Child,
    pid: Option<u32>,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl ProcessPlayer {
    /// A player for one game, with that game's seed for `ARENA_SEED`.
    pub fn new(bot: Arc<PreparedBot>, game: &str, seed: u64, limits: MoveLimits) -> Self {
        let arena = [
            ("ARENA_GAME", game.to_string()),
            ("ARENA_SEED", seed.to_string()),
            (
                "ARENA_MOVE_TIME_MS",
                limits.move_time.as_millis().to_string(),
            ),
        ];
        let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
            .filter(|(k, _)| !arena.iter().any(|(name, _)| k == name))
            .collect();
        env.extend(arena.map(|(k, v)| (k.into(), v.into())));
        ProcessPlayer {
            bot,
            env,
            limits,
            session: None,
        }
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.bot.program);
        cmd.args(&self.bot.args)
            .current_dir(&self.bot.workdir)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            // Its own group, so a timeout kills everything the bot started.
            .process_group(0)
            .kill_on_drop(true);
        cmd
    }

    fn spawn(&self, mut cmd: Command) -> Result<Child, Failure> {
        let stderr = self
            .bot
            .log
            .stderr()
            .map_err(|e| Failure::Crash(format!("cannot set up stderr: {e}")))?;
        cmd.stderr(stderr).spawn().map_err(|e| {
            Failure::Crash(format!(
                "cannot start `{}`: {e}",
                self.bot.program.display()
            ))
        })
    }

    /// One process for one move: `argv` or `stdin`.
    async fn ask_once(&mut self, fields: &[String]) -> Result<String, Failure> {
        let deadline = Instant::now() + self.limits.move_time;
        let mut cmd = self.command();
        let input = match self.bot.spec.protocol {
            Protocol::Argv => {
                cmd.args(fields).stdin(Stdio::null());
                None
            }
            _ => {
                cmd.stdin(Stdio::piped());
                Some(encode_line(fields))
            }
        };
        let mut child = self.spawn(cmd)?;
        let pid = child.id();
        // If this move is abandoned (Ctrl-C), nothing it started may survive.
        let mut guard = GroupGuard(pid);
        let result = timeout_at(deadline, collect(&mut child, pid, input)).await;
        guard.0 = None;
        match result {
            Err(_) => {
                kill_group(pid);
                let _ = child.wait().await;
                Err(Failure::Timeout)
            }
            Ok(Err(e)) => Err(Failure::Crash(format!("lost its output: {e}"))),
            Ok(Ok((status, out))) if status.success() => {
                Ok(String::from_utf8_lossy(&out).trim().to_string())
            }
            Ok(Ok((status, _))) => Err(Failure::Crash(describe_exit(status))),
        }
    }

    /// One line in, one line out of the game's process: `lines`.
    async fn ask_line(&mut self, fields: &[String]) -> Result<String, Failure> {
        let mut deadline = Instant::now() + self.limits.move_time;
        if self.session.is_none() {
            deadline += self.limits.startup_time;
            let mut cmd = self.command();
            cmd.stdin(Stdio::piped());
            let mut child = self.spawn(cmd)?;
            let pid = child.id();
            let stdin = child.stdin.take();
            let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
            self.session = Some(Session {
                child,
                pid,
                stdin,
                stdout,
            });
        }
        let session = self.session.as_mut().expect("the session was just started");
        let line = encode_line(fields);
        let exchange = async {
            let stdin = session
                .stdin
                .as_mut()
                .expect("stdin stays open during a game");
            if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                return Err(None);
            }
            read_line(&mut session.stdout).await
        };
        let failure = match timeout_at(deadline, exchange).await {
            Ok(Ok(reply)) => return Ok(reply),
            Err(_) => Failure::Timeout,
            Ok(Err(Some(too_long))) => Failure::Illegal(too_long),
            Ok(Err(None)) => {
                // The pipe closed: say whether the process exited, if it did so promptly.
                let status = tokio::time::timeout(Duration::from_millis(50), session.child.wait());
                match status.await {
                    Ok(Ok(status)) => Failure::Crash(describe_exit(status)),
                    _ => Failure::Crash("closed its input or output".to_string()),
                }
            }
        };
        self.end_session(Duration::ZERO).await;
        Err(failure)
    }

    /// Closes a `lines` bot's stdin, gives it `grace` to exit, then kills its group.
    async fn end_session(&mut self, grace: Duration) {
        if let Some(mut session) = self.session.take() {
            drop(session.stdin.take());
            if !grace.is_zero() {
                let _ = tokio::time::timeout(grace, session.child.wait()).await;
            }
            kill_group(session.pid);
            let _ = session.child.wait().await;
        }
    }
}

/// Kills a process group when dropped: for moves abandoned half-way.
struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.0);
    }
}

impl Drop for ProcessPlayer {
    /// A game abandoned half-way (Ctrl-C) still leaves no process behind.
    fn drop(&mut self) {
        if let Some(session) = &self.session {
            kill_group(session.pid);
        }
    }
}

impl Player for ProcessPlayer {
    async fn ask(&mut self, fields: &[String]) -> Result<String, Failure> {
        match self.bot.spec.protocol {
            Protocol::Lines => self.ask_line(fields).await,
            Protocol::Argv | Protocol::Stdin => self.ask_once(fields).await,
        }
    }

    async fn finish(&mut self) {
        self.end_session(EXIT_GRACE).await;
    }
}

/// Feeds a per-move process its input, reads its output and waits for it to exit. When it
/// exits, whatever else it started is killed so its output pipe closes.
async fn collect(
    child: &mut Child,
    pid: Option<u32>,
    input: Option<String>,
) -> std::io::Result<(ExitStatus, Vec<u8>)> {
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let stdin = child.stdin.take();
    let write = async move {
        if let (Some(mut stdin), Some(line)) = (stdin, input) {
            // A bot that does not read its input is its own business.
            let _ = stdin.write_all(line.as_bytes()).await;
        }
    };
    tokio::pin!(write);
    let mut written = false;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let mut open = true;
    let status = loop {
        tokio::select! {
            read = stdout.read(&mut buf), if open => match read {
                Ok(0) | Err(_) => open = false,
                Ok(n) => keep(&mut out, &buf[..n]),
            },
            () = &mut write, if !written => written = true,
            status = child.wait() => break status?,
        }
    };
    kill_group(pid);
    while open {
        match stdout.read(&mut buf).await {
            Ok(0) | Err(_) => open = false,
            Ok(n) => keep(&mut out, &buf[..n]),
        }
    }
    Ok((status, out))
}

/// Keeps at most `MAX_REPLY` bytes, and goes on draining the pipe past that.
fn keep(out: &mut Vec<u8>, bytes: &[u8]) {
    let room = MAX_REPLY.saturating_sub(out.len());
    out.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

/// Reads one reply line. `Err(None)`: the pipe closed; `Err(Some(_))`: the line is too long.
async fn read_line(reader: &mut BufReader<ChildStdout>) -> Result<String, Option<String>> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await.map_err(|_| None)?;
        if available.is_empty() {
            return Err(None);
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1),
            None => (available, available.len()),
        };
        line.extend_from_slice(chunk);
        let found = done > chunk.len();
        reader.consume(done);
        if line.len() > MAX_REPLY {
            return Err(Some(format!("a reply line longer than {MAX_REPLY} bytes")));
        }
        if found {
            return Ok(String::from_utf8_lossy(&line).trim().to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_fields_become_dashes_in_lines() {
        let fields: Vec<String> = ["", "", "0", "", "", "0"].map(String::from).to_vec();
        assert_eq!(encode_line(&fields), "- - 0 - - 0\n");
        let fields: Vec<String> = ["04", "15", "3"].map(String::from).to_vec();
        assert_eq!(encode_line(&fields), "04 15 3\n");
    }
}
