//! Running a bot's processes: one per move (`argv`, `stdin`) or one per game (`lines`), each in
//! its own process group, under a deadline, killed with everything it started when it is done.

use std::ffi::CString;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::time::{timeout_at, Instant};

use super::engine::{Engine, EngineIo, EngineSetup};
use super::pause::{Freezer, Pause};
use crate::bot::log::{BotLog, GameLog};
use crate::bot::prepare::PreparedBot;
use crate::bot::Protocol;
use crate::player::{Failure, Player, Request};
use crate::sandbox::spawn::{kill_group, Proc, SpawnSpec};
use crate::sandbox::Cage;

use super::clock::move_limit;
pub use super::io::describe_exit;
pub(crate) use super::io::read_line;
use super::io::{c_pair, c_string, collect, reply, GroupGuard};
pub use super::io::{encode_line, MAX_REPLY};
use super::settings::{set_time_left, time_left_var, Deadline};
pub use super::settings::{MoveLimits, PlayerSettings};
/// How long a `lines` bot may take to exit after its stdin is closed at the end of a game.
pub const EXIT_GRACE: Duration = Duration::from_millis(200);

/// How long the last stderr output of a game may take to reach the bot's log once the
/// game's processes are gone.
const LOG_WAIT: Duration = Duration::from_millis(100);

/// How long an engine may take to exit after it is told the game is over.
pub const ENGINE_EXIT_GRACE: Duration = Duration::from_secs(1);

/// A bot playing one game through real processes.
pub struct ProcessPlayer {
    bot: Arc<PreparedBot>,
    /// The program, its arguments (`argv[0]` first) and the whole environment of the game's
    /// processes, built once for the game.
    program: CString,
    argv: Vec<CString>,
    env: Vec<CString>,
    cwd: CString,
    /// `/dev/null`, the stdin of `argv` bots, opened once for the game.
    null: std::fs::File,
    settings: PlayerSettings,
    /// The cgroup of this game's processes; `None` once closed.
    cage: Option<Cage>,
    /// The pipe of this game's stderr into the bot's log; `None` once closed.
    log: Option<GameLog>,
    /// The bot's log, noting into this game's file (what an engine says in the game).
    notes: BotLog,
    /// Why the game's cage or log could not be set up: then no process starts.
    setup_error: Option<String>,
    /// The bot's stderr byte count when the game started.
    stderr_start: u64,
    /// The running process of a `lines` bot or an engine.
    session: Option<Session>,
    /// What an engine has been told, for the engine protocols.
    engine: Option<Engine>,
    /// Called with the bot when the player is dropped and its processes are gone.
    release: Option<Release>,
    /// How late the last reply came, within `--time-margin`.
    late: Option<Duration>,
    /// The start-up part of the last move's time ([`Player::uncharged`]).
    uncharged: Duration,
}

/// What a player does with its bot when it is done (an instance goes back to its pool).
pub type Release = Box<dyn FnOnce(Arc<PreparedBot>) + Send + Sync>;

struct Session {
    child: Proc,
    pid: Option<u32>,
    stdin: Option<pipe::Sender>,
    stdout: BufReader<pipe::Receiver>,
    /// Freezes the process between its moves, when the game pauses waiting bots.
    pause: Option<Pause>,
}

impl ProcessPlayer {
    /// A player for one game.
    pub fn new(bot: Arc<PreparedBot>, settings: PlayerSettings) -> Self {
        // Only what the bot was given: `PATH`, `LANG`, what the operator passes and `bot.toml`
        // sets (`PreparedBot::env`), then its own space and the game's variables.
        let workdir = bot.workdir.as_os_str().as_encoded_bytes();
        let mut game = vec![("HOME", workdir.to_vec()), ("TMPDIR", workdir.to_vec())];
        game.extend(settings.game_env());
        let mut env: Vec<CString> = bot
            .env
            .iter()
            .filter(|(k, _)| !game.iter().any(|(name, _)| k == name))
            .filter_map(|(k, v)| c_pair(k.as_encoded_bytes(), v.as_encoded_bytes()))
            .collect();
        env.extend(game.iter().filter_map(|(k, v)| c_pair(k.as_bytes(), v)));
        // Last, so that each move of a per-move bot replaces it in place (no copy).
        if let Some(clock) = settings.clock {
            env.extend(time_left_var(clock.base));
        }
        let program = c_string(bot.program.as_os_str().as_encoded_bytes());
        let mut argv = vec![program.clone()];
        argv.extend(bot.args.iter().map(|a| c_string(a.as_bytes())));
        let cwd = c_string(bot.workdir.as_os_str().as_encoded_bytes());
        let mut setup_error = None;
        let cage = bot
            .jail
            .cage(&settings.tag)
            .map_err(|e| setup_error = Some(format!("{e:#}")))
            .ok();
        // Each game's stderr in a file of its own, so games played at once never mix.
        let (log, notes) = if settings.tag.is_empty() {
            (bot.log.open_game(), bot.log.clone())
        } else {
            (
                bot.log.open_game_file(&settings.tag),
                bot.log.for_game(&settings.tag),
            )
        };
        let log = log.map_err(|e| setup_error = Some(format!("{e:#}"))).ok();
        let stderr_start = bot.log.bytes();
        let engine = bot.spec.protocol.only_for().map(|_| {
            let limits = settings.limits;
            Engine::new(
                bot.spec.protocol,
                EngineSetup {
                    options: bot.spec.options.clone(),
                    init: bot.spec.init.clone(),
                    move_ms: limits.move_time.as_millis() as u64,
                    match_ms: limits
                        .move_time
                        .saturating_mul(settings.max_moves)
                        .as_millis()
                        .min(u128::from(u64::MAX)) as u64,
                    memory: bot.jail.limits.memory,
                    rule: settings.gomoku_rule.gomocup(),
                    clock: settings.clock,
                },
            )
        });
        let null = std::fs::File::open("/dev/null").expect("`/dev/null` can be opened");
        ProcessPlayer {
            null,
            bot,
            program,
            argv,
            env,
            cwd,
            settings,
            cage,
            log,
            notes,
            setup_error,
            stderr_start,
            session: None,
            engine,
            release: None,
            late: None,
            uncharged: Duration::ZERO,
        }
    }

    /// Calls `release` with the bot when this player is dropped.
    pub fn on_release(mut self, release: Release) -> Self {
        self.release = Some(release);
        self
    }

    /// A player that cannot start the bot in this game, for `why`: its moves fail as a crash.
    pub fn unable(mut self, why: String) -> Self {
        self.cage = None;
        self.log = None;
        self.setup_error = Some(why);
        self
    }

    /// Starts a process of the bot with `extra` arguments, its sandbox applied.
    fn spawn(
        &mut self,
        extra: &[String],
        stdin_pipe: bool,
        cpu_seconds: u64,
    ) -> Result<Proc, Failure> {
        let (Some(cage), Some(log)) = (&mut self.cage, &self.log) else {
            let why = self.setup_error.as_deref().unwrap_or("the game is over");
            return Err(Failure::Crash(format!(
                "cannot start `{}`: {why}",
                self.bot.program.display()
            )));
        };
        let mut argv = self.argv.clone();
        argv.extend(extra.iter().map(|a| c_string(a.as_bytes())));
        let spec = SpawnSpec {
            program: &self.program,
            argv: &argv,
            envp: &self.env,
            cwd: &self.cwd,
            stdin_pipe,
            null: std::os::fd::AsRawFd::as_raw_fd(&self.null),
            stdout: None,
            stderr: log.stderr_fd(),
            setup: None,
            exec_fd: None,
        };
        self.bot.jail.start(cage, &spec, cpu_seconds).map_err(|e| {
            Failure::Crash(format!(
                "cannot start `{}`: {e}",
                self.bot.program.display()
            ))
        })
    }

    /// Kills every process of this game of the bot: the cgroup, and the process group.
    fn kill_all(&self, pid: Option<u32>) {
        if let Some(cage) = &self.cage {
            cage.kill();
        }
        kill_group(pid);
    }

    /// Why a process ended badly, naming the limit it hit if it hit one.
    fn exit_detail(&self, status: ExitStatus) -> String {
        use std::os::unix::process::ExitStatusExt;
        let memory = self
            .cage
            .as_ref()
            .is_some_and(|c| c.hit_memory_limit(&self.bot.jail));
        let described = describe_exit(status);
        if let Some(held) = self.cage.as_ref().and_then(Cage::memory_over) {
            return format!(
                "memory limit: more than {} (all its processes together held {}, sampled; {described})",
                crate::sandbox::size(self.bot.jail.limits.memory),
                crate::sandbox::size(held >> 20 << 20)
            );
        }
        if memory {
            return format!(
                "memory limit: more than {} ({described}, by the OOM killer)",
                crate::sandbox::size(self.bot.jail.limits.memory)
            );
        }
        match status.signal() {
            Some(libc::SIGXCPU) => format!("cpu time limit ({described})"),
            Some(libc::SIGXFSZ) => format!(
                "output limit: a file larger than {} ({described})",
                crate::sandbox::size(self.bot.jail.limits.max_output)
            ),
            _ => described,
        }
    }

    /// One process for one move: `argv` or `stdin`.
    async fn ask_once(&mut self, fields: &[String], limit: Duration) -> Result<String, Failure> {
        if let (Some(cage), Some(log)) = (&mut self.cage, &self.log) {
            // Before the move's clock starts: the game's spawner may start now.
            self.bot.jail.prepare_move(cage, &self.cwd, log.stderr_fd());
        }
        let limits = self.settings.limits;
        let deadline = limits.deadline(limit);
        let cpu = limit
            .saturating_add(limits.margin)
            .as_secs()
            .saturating_add(1);
        let (args, input): (&[String], _) = match self.bot.spec.protocol {
            Protocol::Argv => (fields, None),
            _ => (&[], Some(encode_line(fields))),
        };
        let mut child = self.spawn(args, input.is_some(), cpu)?;
        // A process of the game's spawner: the spawner kills what it started when it ends.
        let swept = child.swept();
        let pid = (!swept).then(|| child.id());
        // If this move is abandoned (Ctrl-C), nothing it started may survive.
        let mut guard = GroupGuard(pid);
        let result = collect(&mut child, input, || {
            if !swept {
                self.kill_all(pid)
            }
        });
        let result = timeout_at(deadline.hard, result).await;
        self.late = deadline.late();
        guard.0 = None;
        match result {
            Err(_) => {
                // For a process of the game's spawner, the spawner (the move's processes die
                // with the game's cgroup).
                child.kill();
                self.kill_all(pid);
                let _ = child.wait().await;
                Err(Failure::Timeout)
            }
            Ok(Err(e)) => Err(Failure::Crash(format!("lost its output: {e}"))),
            // As in the KotH controller, a reply counts whatever the exit status; the status
            // goes to the log. A process killed by a signal (a limit) still crashed.
            Ok(Ok((status, out)))
                if !status.success()
                    && (status.code().is_none() || out.trim_ascii().is_empty()) =>
            {
                Err(Failure::Crash(self.exit_detail(status)))
            }
            Ok(Ok((status, out))) if !status.success() => {
                self.bot.log.note(&format!(
                    "game {}: replied, then {}",
                    self.settings.tag,
                    describe_exit(status)
                ));
                reply(out)
            }
            Ok(Ok((_, out))) => reply(out),
        }
    }

    /// Starts the game's process if it is not running; returns the deadline of this move
    /// (the first gets `--startup-time` on top).
    fn start_session(&mut self, limit: Duration) -> Result<Deadline, Failure> {
        let limits = self.settings.limits;
        let mut deadline = limits.deadline(limit);
        if self.session.is_none() {
            deadline = limits.deadline(limit.saturating_add(limits.startup_time));
            let cpu = limits
                .startup_time
                .saturating_add(limits.engine_startup)
                .saturating_add(limits.hard_time().saturating_mul(self.settings.max_moves))
                .as_secs()
                .saturating_add(1);
            let mut child = self.spawn(&[], true, cpu)?;
            let pid = Some(child.id());
            let stdin = child.stdin.take();
            let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
            let pause = self.settings.pause.then(|| {
                Pause::new(Freezer::for_game(
                    self.cage.as_ref(),
                    pid.map_or(0, |p| p as i32),
                ))
            });
            self.session = Some(Session {
                child,
                pid,
                stdin,
                stdout,
                pause,
            });
        }
        Ok(deadline)
    }

    /// One line in, one line out of the game's process: `lines`.
    async fn ask_line(&mut self, fields: &[String], limit: Duration) -> Result<String, Failure> {
        let (fresh, started) = (self.session.is_none(), Instant::now());
        let deadline = self.start_session(limit)?;
        self.set_paused(false);
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
        let result = timeout_at(deadline.hard, exchange).await;
        self.late = deadline.late();
        // The first move's `--startup-time` is the interpreter's, not the bot's thinking.
        let startup = fresh.then_some(self.settings.limits.startup_time);
        self.uncharged = started.elapsed().min(startup.unwrap_or_default());
        let result = match result {
            Ok(Ok(reply)) => Ok(reply),
            Err(_) => Err(Failure::Timeout),
            Ok(Err(Some(too_long))) => Err(Failure::Illegal(too_long)),
            Ok(Err(None)) => Err(Failure::Crash("closed its input or output".to_string())),
        };
        self.after_move(result).await
    }

    /// One move of an engine protocol: the engine's conversation on the game's process. A new
    /// session first does its handshake within `--engine-startup`; the move then has the
    /// plain move time from the handshake's end (no `--startup-time`).
    async fn ask_engine(&mut self, request: Request<'_>) -> Result<String, Failure> {
        let limits = self.settings.limits;
        let limit = move_limit(limits.move_time, request.time.as_ref());
        // The clock starts here, as for a `lines` bot: thawing the engine is on its time.
        let (asked, mut deadline) = (Instant::now(), limits.deadline(limit));
        let fresh = self.session.is_none();
        self.uncharged = Duration::ZERO;
        self.start_session(limit)?;
        self.set_paused(false);
        let session = self.session.as_mut().expect("the session was just started");
        let engine = self
            .engine
            .as_mut()
            .expect("an engine protocol has an engine");
        let mut io = EngineIo {
            stdin: session
                .stdin
                .as_mut()
                .expect("stdin stays open during a game"),
            stdout: &mut session.stdout,
            log: &self.notes,
        };
        if fresh || !engine.started() {
            let startup = Instant::now() + limits.engine_startup;
            let started = match timeout_at(startup, engine.start(&mut io)).await {
                Ok(result) => result,
                Err(_) => {
                    self.bot.log.note(&format!(
                        "no handshake within --engine-startup {}",
                        humantime::format_duration(limits.engine_startup)
                    ));
                    Err(Failure::Timeout)
                }
            };
            if let Err(failure) = started {
                return self.after_move(Err(failure)).await;
            }
            // The handshake is not the engine's thinking: it is not on its game clock.
            self.uncharged = asked.elapsed();
            deadline = limits.deadline(limit);
        }
        let result = timeout_at(deadline.hard, engine.ask(&mut io, request)).await;
        self.late = deadline.late();
        let result = result.unwrap_or(Err(Failure::Timeout));
        self.after_move(result).await
    }

    /// Before the first game: starts an engine, checks its handshake and settings
    /// ([`Engine::check`]) and ends it; the reason it cannot play if it refuses them or fails.
    /// A check longer than `--engine-startup` is only noted (a busy machine is no reason to
    /// leave an engine out): its games will tell.
    pub async fn check_engine(&mut self) -> Result<(), String> {
        if self.engine.is_none() {
            return Ok(());
        }
        let checked = match self.start_session(self.settings.limits.move_time) {
            Ok(_) => {
                let session = self.session.as_mut().expect("the session was just started");
                let mut io = EngineIo {
                    stdin: session.stdin.as_mut().expect("stdin is piped"),
                    stdout: &mut session.stdout,
                    log: &self.bot.log,
                };
                let startup = self.settings.limits.engine_startup;
                let engine = self.engine.as_mut().expect("checked above");
                let check = tokio::time::timeout(startup, engine.check(&mut io)).await;
                check.unwrap_or_else(|_| {
                    let startup = humantime::format_duration(startup);
                    io.log.note(&format!(
                        "check before the first game: no handshake within --engine-startup {startup}"
                    ));
                    Ok(())
                })
            }
            Err(failure) => Err(failure.detail()),
        };
        self.finish().await;
        checked
    }

    /// After a move of a per-game process: pause it until its next turn, or, if the move
    /// failed, end it (saying why it crashed if it exited).
    async fn after_move(&mut self, result: Result<String, Failure>) -> Result<String, Failure> {
        let failure = match result {
            Ok(reply) => {
                if self.settings.pause {
                    self.set_paused(true);
                }
                return Ok(reply);
            }
            Err(Failure::Crash(detail)) => {
                // Say whether the process exited, if it did so promptly.
                let session = self.session.as_mut().expect("a session is running");
                let status = tokio::time::timeout(Duration::from_millis(50), session.child.wait());
                match status.await {
                    Ok(Ok(status)) => Failure::Crash(self.exit_detail(status)),
                    _ => Failure::Crash(detail),
                }
            }
            Err(other) => other,
        };
        self.end_session(Duration::ZERO).await;
        Err(failure)
    }

    /// Freezes (lazily, see [`Pause`]) or thaws a `lines` bot between its moves.
    fn set_paused(&mut self, paused: bool) {
        let Some(pause) = self.session.as_ref().and_then(|s| s.pause.as_ref()) else {
            return;
        };
        if paused {
            pause.pause();
        } else {
            pause.resume();
        }
    }

    /// Closes a `lines` bot's stdin, gives it `grace` to exit, then kills everything it
    /// started.
    async fn end_session(&mut self, grace: Duration) {
        self.set_paused(false);
        if let Some(mut session) = self.session.take() {
            drop(session.stdin.take());
            if !grace.is_zero() {
                let _ = tokio::time::timeout(grace, session.child.wait()).await;
            }
            self.kill_all(session.pid);
            let _ = session.child.wait().await;
        }
    }

    /// A bot that wrote more than its output limit to stderr in this game loses it.
    fn check_stderr(&self) -> Result<(), Failure> {
        let written = self.bot.log.bytes().saturating_sub(self.stderr_start);
        let limit = self.bot.jail.limits.max_output;
        if written > limit {
            return Err(Failure::Crash(format!(
                "output limit: more than {} on stderr in one game",
                crate::sandbox::size(limit)
            )));
        }
        Ok(())
    }
}

impl Drop for ProcessPlayer {
    /// A game abandoned half-way (Ctrl-C) still leaves no process behind.
    fn drop(&mut self) {
        if let Some(session) = &self.session {
            self.kill_all(session.pid);
        }
        // The cage is closed by `finish`; after an abandoned game, dropping it kills the rest.
        drop(self.cage.take());
        if let Some(release) = self.release.take() {
            release(Arc::clone(&self.bot));
        }
    }
}

impl Player for ProcessPlayer {
    async fn ask(&mut self, request: Request<'_>) -> Result<String, Failure> {
        self.late = None;
        let limit = move_limit(self.settings.limits.move_time, request.time.as_ref());
        let reply = match self.bot.spec.protocol {
            Protocol::Lines => self.ask_line(request.fields, limit).await,
            Protocol::Argv | Protocol::Stdin => {
                set_time_left(&mut self.env, &self.settings, request.time);
                self.ask_once(request.fields, limit).await
            }
            Protocol::Gomocup | Protocol::Gtp | Protocol::Nboard => self.ask_engine(request).await,
        };
        match self.check_stderr() {
            Ok(()) => reply,
            Err(flood) => {
                self.end_session(Duration::ZERO).await;
                Err(flood)
            }
        }
    }

    fn late(&self) -> Option<Duration> {
        self.late
    }

    fn uncharged(&mut self) -> Duration {
        std::mem::take(&mut self.uncharged)
    }

    async fn finish(&mut self) {
        let mut grace = EXIT_GRACE;
        if self.engine.is_some() && self.session.is_some() {
            self.set_paused(false);
            let session = self.session.as_mut().expect("checked above");
            let engine = self.engine.as_mut().expect("checked above");
            if let Some(stdin) = session.stdin.as_mut() {
                let mut io = EngineIo {
                    stdin,
                    stdout: &mut session.stdout,
                    log: &self.notes,
                };
                engine.end(&mut io).await;
            }
            // The Gomocup manager gives an engine a second to exit after `END`.
            grace = ENGINE_EXIT_GRACE;
        }
        self.end_session(grace).await;
        if let Some(cage) = self.cage.take() {
            cage.close();
        }
        if let Some(log) = self.log.take() {
            log.close(LOG_WAIT).await;
        }
    }
}
