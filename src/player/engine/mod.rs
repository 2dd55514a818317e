//! Engine protocols: the conversations that let real engines play unchanged, Gomocup
//! (Piskvork) engines at Gomoku and GTP or NBoard engines at Othello.
//!
//! An engine is one process per game, like a `lines` bot, on the same process, deadline,
//! sandbox and log; only what is said on its pipes differs. The engine is told the game from
//! the move history (it keeps its own board), and its answer is turned into the game's own
//! notation for the rules to judge.

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;

use super::process::read_line;
use crate::bot::Protocol;
use crate::game::gomoku::Point;
use crate::game::Seat;
use crate::player::{Failure, Request};

/// The standard Othello start in GGF's `BO` notation (a1 to h8 by ranks, `*` black).
const GGF_START: &str = "---------------------------O*------*O---------------------------";

/// The search depth an NBoard engine is given when `bot.toml` sets none.
pub const NBOARD_DEPTH: u32 = 4;

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
}

/// An engine's pipes.
pub struct EngineIo<'a> {
    pub stdin: &'a mut pipe::Sender,
    pub stdout: &'a mut BufReader<pipe::Receiver>,
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
        }
    }

    /// Tells the engine the moves it has not seen and asks for its move, in the game's
    /// notation.
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

    async fn gomocup(
        &mut self,
        io: &mut EngineIo<'_>,
        request: Request<'_>,
    ) -> Result<String, Failure> {
        if !self.started {
            io.send("START 15").await?;
            loop {
                let line = io.recv().await?;
                let upper = line.to_ascii_uppercase();
                if upper == "OK" {
                    break;
                } else if upper.starts_with("MESSAGE") || upper.starts_with("DEBUG") {
                    continue;
                } else if upper.starts_with("ERROR") {
                    return Err(Failure::Crash(format!("refused `START 15`: `{line}`")));
                }
                return Err(Failure::Illegal(format!("answered `{line}` to `START 15`")));
            }
            let s = &self.setup;
            let mut info = vec![
                format!("INFO timeout_turn {}", s.move_ms),
                format!("INFO timeout_match {}", s.match_ms),
                format!("INFO max_memory {}", s.memory),
                "INFO game_type 1".to_string(),
                "INFO rule 0".to_string(),
            ];
            info.extend(s.options.iter().map(|(k, v)| format!("INFO {k} {v}")));
            info.extend(s.init.iter().cloned());
            for line in info {
                io.send(&line).await?;
            }
            self.started = true;
        }
        io.send(&format!(
            "INFO time_left {}",
            self.setup.match_ms.saturating_sub(self.used_ms)
        ))
        .await?;
        let history = request.history;
        let new = &history[self.known.min(history.len())..];
        if history.is_empty() {
            io.send("BEGIN").await?;
        } else if self.known > 0 && new.len() == 1 && new[0].0 != request.seat {
            io.send(&format!("TURN {}", gomocup_point(&new[0].1)?))
                .await?;
        } else {
            // A position to set up: after an opening, or when the engine moves second.
            io.send("BOARD").await?;
            for (seat, mv) in history {
                let field = if *seat == request.seat { 1 } else { 2 };
                io.send(&format!("{},{field}", gomocup_point(mv)?)).await?;
            }
            io.send("DONE").await?;
        }
        loop {
            let line = io.recv().await?;
            let upper = line.to_ascii_uppercase();
            if upper.starts_with("MESSAGE") || upper.starts_with("DEBUG") {
                continue;
            }
            if upper.starts_with("UNKNOWN") || upper.starts_with("ERROR") {
                return Err(Failure::Illegal(format!("answered `{line}`")));
            }
            let point = parse_gomocup_point(&line).ok_or_else(|| {
                Failure::Illegal(format!("`{line}` is not a move `x,y` on the board"))
            })?;
            self.known = history.len() + 1;
            return Ok(point.to_string());
        }
    }

    async fn gtp(
        &mut self,
        io: &mut EngineIo<'_>,
        request: Request<'_>,
    ) -> Result<String, Failure> {
        if !self.started {
            let mut commands = vec!["boardsize 8".to_string(), "clear_board".to_string()];
            commands.extend(self.setup.options.iter().map(|(k, v)| format!("{k} {v}")));
            commands.extend(self.setup.init.iter().cloned());
            for command in commands {
                if let Err(e) = gtp_command(io, &command).await? {
                    return Err(Failure::Crash(format!("rejected `{command}`: `? {e}`")));
                }
            }
            self.started = true;
        }
        let history = request.history;
        // Moves are played with their colour, so the engine never needs to be told of a pass
        // (some engines reject `play b pass`).
        for (seat, mv) in &history[self.known.min(history.len())..] {
            let command = format!("play {} {mv}", gtp_colour(*seat));
            if let Err(e) = gtp_command(io, &command).await? {
                return Err(Failure::Crash(format!("rejected `{command}`: `? {e}`")));
            }
        }
        let command = format!("genmove {}", gtp_colour(request.seat));
        match gtp_command(io, &command).await? {
            Ok(mv) => {
                let mv = mv.to_ascii_lowercase();
                if mv == "pass" || mv == "resign" || mv.is_empty() {
                    return Err(Failure::Illegal(format!(
                        "answered `= {mv}` to `{command}`"
                    )));
                }
                self.known = history.len() + 1;
                Ok(mv)
            }
            Err(e) => Err(Failure::Illegal(format!("answered `? {e}` to `{command}`"))),
        }
    }

    async fn nboard(
        &mut self,
        io: &mut EngineIo<'_>,
        request: Request<'_>,
    ) -> Result<String, Failure> {
        if !self.started {
            let mut lines = vec!["nboard 2".to_string()];
            // The protocol wants a depth before the first `go`.
            if !self.setup.options.iter().any(|(k, _)| k == "depth") {
                lines.push(format!("set depth {NBOARD_DEPTH}"));
            }
            lines.extend(
                self.setup
                    .options
                    .iter()
                    .map(|(k, v)| format!("set {k} {v}")),
            );
            lines.extend(self.setup.init.iter().cloned());
            for line in lines {
                io.send(&line).await?;
            }
            self.started = true;
        }
        io.send(&format!("set game {}", ggf(request.history, request.seat)))
            .await?;
        // ping/pong: everything the engine printed before (banners, status) is behind us.
        self.pings += 1;
        let pong = format!("pong {}", self.pings);
        io.send(&format!("ping {}", self.pings)).await?;
        while io.recv().await? != pong {}
        io.send("go").await?;
        loop {
            let line = io.recv().await?;
            let Some(rest) = line.strip_prefix("===") else {
                continue; // status lines, and anything else an engine says
            };
            let mv = rest
                .trim()
                .split(['/', ' '])
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            if mv == "pa" || mv.is_empty() {
                return Err(Failure::Illegal(format!(
                    "answered `{line}` with a move to make"
                )));
            }
            return Ok(mv);
        }
    }
}

/// One GTP command and its answer: `Ok(text)` for `= text`, `Err(text)` for `? text`.
async fn gtp_command(
    io: &mut EngineIo<'_>,
    command: &str,
) -> Result<Result<String, String>, Failure> {
    io.send(command).await?;
    loop {
        let line = io.recv().await?;
        let (ok, rest) = match line.chars().next() {
            Some('=') => (true, &line[1..]),
            Some('?') => (false, &line[1..]),
            _ => continue, // not part of a response (an engine's chatter on stdout)
        };
        // A response may carry an id (`=1 f4`), and ends with an empty line.
        let text = rest
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim()
            .to_string();
        loop {
            if io.recv().await?.trim().is_empty() {
                break;
            }
        }
        return Ok(if ok { Ok(text) } else { Err(text) });
    }
}

fn gtp_colour(seat: Seat) -> &'static str {
    match seat {
        Seat::A => "b",
        Seat::B => "w",
    }
}

/// A move in the game's notation (`h8`) as Gomocup's `x,y`.
pub fn gomocup_point(mv: &str) -> Result<String, Failure> {
    let point: Point = mv
        .parse()
        .map_err(|e| Failure::Crash(format!("cannot tell the engine about `{mv}`: {e}")))?;
    Ok(format!("{},{}", point.x(), point.y()))
}

/// Gomocup's `x,y` (0-based column, row) as a point, if it is on the board.
pub fn parse_gomocup_point(text: &str) -> Option<Point> {
    let (x, y) = text.trim().split_once(',')?;
    Point::new(x.trim().parse().ok()?, y.trim().parse().ok()?)
}

/// The game so far as a GGF record for NBoard's `set game`, with passes (`PA`) where a side
/// had to pass, so that the side to move at its end is `me`.
pub fn ggf(history: &[(Seat, String)], me: Seat) -> String {
    let colour = |seat: Seat| match seat {
        Seat::A => 'B',
        Seat::B => 'W',
    };
    let mut moves = String::new();
    let mut next = Seat::A;
    for (seat, mv) in history {
        if *seat != next {
            moves.push_str(&format!("{}[PA]", colour(next)));
        }
        moves.push_str(&format!("{}[{}]", colour(*seat), mv.to_ascii_uppercase()));
        next = seat.other();
    }
    if next != me {
        moves.push_str(&format!("{}[PA]", colour(next)));
    }
    format!(
        "(;GM[Othello]PC[arena]PB[black]PW[white]RE[?]TI[0:00]TY[8]BO[8 {GGF_START} *]{moves};)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gomocup_coordinates_map_both_ways() {
        // x is the column from a (0), y the row from 1 (0).
        assert_eq!(gomocup_point("a1").unwrap(), "0,0");
        assert_eq!(gomocup_point("h8").unwrap(), "7,7");
        assert_eq!(gomocup_point("o15").unwrap(), "14,14");
        assert_eq!(gomocup_point("c11").unwrap(), "2,10");
        assert_eq!(parse_gomocup_point("2,10").unwrap().to_string(), "c11");
        assert_eq!(parse_gomocup_point(" 14 , 0 ").unwrap().to_string(), "o1");
        assert!(parse_gomocup_point("15,3").is_none());
        assert!(parse_gomocup_point("a,b").is_none());
        for x in 0..15 {
            for y in 0..15 {
                let p = Point::new(x, y).unwrap();
                assert_eq!(gomocup_point(&p.to_string()).unwrap(), format!("{x},{y}"));
            }
        }
    }

    #[test]
    fn ggf_records_the_moves_and_the_passes() {
        let h = |moves: &[(Seat, &str)]| -> Vec<(Seat, String)> {
            moves.iter().map(|(s, m)| (*s, m.to_string())).collect()
        };
        let start = format!("BO[8 {GGF_START} *]");
        assert_eq!(
            ggf(&[], Seat::A),
            format!("(;GM[Othello]PC[arena]PB[black]PW[white]RE[?]TI[0:00]TY[8]{start};)")
        );
        let game = ggf(&h(&[(Seat::A, "f5"), (Seat::B, "d6")]), Seat::A);
        assert!(game.ends_with(&format!("{start}B[F5]W[D6];)")), "{game}");
        // White passed: black moved twice in a row.
        let game = ggf(&h(&[(Seat::A, "f5"), (Seat::A, "c3")]), Seat::B);
        assert!(game.ends_with("B[F5]W[PA]B[C3];)"), "{game}");
        // Black must move again after its own move: white passes.
        let game = ggf(&h(&[(Seat::A, "f5")]), Seat::A);
        assert!(game.ends_with("B[F5]W[PA];)"), "{game}");
    }
}
