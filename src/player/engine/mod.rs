//! Engine protocols: the conversations that let real engines play unchanged, Gomocup
//! (Piskvork) engines at Gomoku and GTP or NBoard engines at Othello.
//!
//! An engine is one process per game, like a `lines` bot, on the same process, deadline,
//! sandbox and log; only what is said on its pipes differs. A session starts with a handshake
//! ([`Engine::start`], timed by `--engine-startup`), then each move the engine is told the
//! clock and the moves it has not seen (it keeps its own board), and its answer is turned into
//! the game's own notation for the rules to judge.

mod gomocup;
mod gtp;
mod nboard;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;

pub use gomocup::{gomocup_point, parse_gomocup_point, MAX_MEMORY_PERCENT};
pub use nboard::{ggf, ggf_time};

use super::process::read_line;
use crate::bot::log::BotLog;
use crate::bot::Protocol;
use crate::player::{Failure, Request};

/// The default of `--engine-startup`: how long an engine may take to start and answer its
/// protocol's handshake.
pub const ENGINE_STARTUP: std::time::Duration = std::time::Duration::from_secs(10);

/// The most lines an engine's chatter (Gomocup `MESSAGE`, `DEBUG`, `ERROR`, `UNKNOWN`, GTP
/// commands it does not know) adds to its log in one game.
pub const MAX_NOTES: u32 = 200;

/// Settings an engine is told at start-up.
#[derive(Debug, Clone, Default)]
pub struct EngineSetup {
    /// `options` from `bot.toml`.
    pub options: Vec<(String, String)>,
    /// `init` lines from `bot.toml`.
    pub init: Vec<String>,
    /// The per-move limit, in milliseconds.
    pub move_ms: u64,
    /// A bound for the whole game, in milliseconds.
    pub match_ms: u64,
    /// The bot's memory limit, in bytes.
    pub memory: u64,
    /// Gomocup's `INFO rule`: 0 freestyle, 1 exactly five, 4 renju.
    pub rule: u32,
    /// The game clock, if the game has one (the time left comes with each request).
    pub clock: Option<crate::player::clock::TimeControl>,
}

/// One engine's side of a game: what it has been told so far.
#[derive(Debug)]
pub struct Engine {
    protocol: Protocol,
    setup: EngineSetup,
    started: bool,
    /// How many moves of the history the engine knows (its own included).
    known: usize,
    /// Think time used so far, for Gomocup's `time_left`.
    used_ms: u64,
    pings: u32,
    /// Lines of chatter noted in the log so far.
    notes: u32,
}

/// An engine's pipes, and the log its chatter goes to.
pub struct EngineIo<'a> {
    /// The engine's standard input.
    pub stdin: &'a mut pipe::Sender,
    /// The engine's standard output.
    pub stdout: &'a mut BufReader<pipe::Receiver>,
    /// The bot's log.
    pub log: &'a BotLog,
}

impl EngineIo<'_> {
    async fn send(&mut self, line: &str) -> Result<(), Failure> {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        if self.stdin.write_all(&bytes).await.is_err() || self.stdin.flush().await.is_err() {
            return Err(Failure::Crash("closed its input".to_string()));
        }
        Ok(())
    }

    async fn recv(&mut self) -> Result<String, Failure> {
        read_line(self.stdout).await.map_err(|e| match e {
            Some(too_long) => Failure::Illegal(too_long),
            None => Failure::Crash("closed its output".to_string()),
        })
    }
}

impl Engine {
    /// An engine that has been told nothing yet.
    pub fn new(protocol: Protocol, setup: EngineSetup) -> Engine {
        Engine {
            protocol,
            setup,
            started: false,
            known: 0,
            used_ms: 0,
            pings: 0,
            notes: 0,
        }
    }

    /// Whether the handshake is done.
    pub fn started(&self) -> bool {
        self.started
    }

    /// The handshake and the settings: Gomocup `START` (answered `OK`) and `INFO`s, GTP
    /// `protocol_version` (any answer) and `time_settings`, NBoard `nboard 2` and a
    /// `ping`/`pong`. Timed by `--engine-startup`, not by the first move's time.
    pub async fn start(&mut self, io: &mut EngineIo<'_>) -> Result<(), Failure> {
        match self.protocol {
            Protocol::Gomocup => self.gomocup_start(io).await?,
            Protocol::Gtp => self.gtp_start(io).await?,
            Protocol::Nboard => self.nboard_start(io).await?,
            other => unreachable!("`{other}` is not an engine protocol"),
        }
        self.started = true;
        Ok(())
    }

    /// Before the first game: the handshake and the settings, as [`Engine::start`] does them;
    /// the reason the engine cannot play if it fails. A GTP engine that refuses a setting is
    /// asked which commands it accepts (`list_commands`); Gomocup's `INFO` and NBoard's `set`
    /// have no answer, so for those the handshake is what is checked.
    pub async fn check(&mut self, io: &mut EngineIo<'_>) -> Result<(), String> {
        match self.protocol {
            Protocol::Gtp => self.gtp_check(io).await?,
            _ => self.start(io).await.map_err(|f| f.detail())?,
        }
        self.started = true;
        Ok(())
    }

    /// Tells the engine the clock and the moves it has not seen, and asks for its move, in
    /// the game's notation. The handshake must be done.
    pub async fn ask(
        &mut self,
        io: &mut EngineIo<'_>,
        request: Request<'_>,
    ) -> Result<String, Failure> {
        let started = std::time::Instant::now();
        let reply = match self.protocol {
            Protocol::Gomocup => self.gomocup(io, request).await,
            Protocol::Gtp => self.gtp(io, request).await,
            Protocol::Nboard => self.nboard(io, request).await,
            other => unreachable!("`{other}` is not an engine protocol"),
        };
        self.used_ms += started.elapsed().as_millis() as u64;
        reply
    }

    /// Says goodbye, where the protocol has a word for it.
    pub async fn end(&mut self, io: &mut EngineIo<'_>) {
        let line = match self.protocol {
            Protocol::Gomocup => "END",
            Protocol::Gtp => "quit",
            _ => return,
        };
        if self.started {
            let _ = io.send(line).await;
        }
    }

    /// Notes a line the engine said (or an answer it gave) in its log, up to [`MAX_NOTES`]
    /// lines a game.
    fn note(&mut self, io: &EngineIo<'_>, text: &str) {
        self.notes += 1;
        if self.notes < MAX_NOTES {
            io.log.note(text);
        } else if self.notes == MAX_NOTES {
            io.log.note(&format!(
                "more than {MAX_NOTES} engine messages in this game: the rest are not logged"
            ));
        }
    }
}
