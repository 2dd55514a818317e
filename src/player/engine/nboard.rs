//! NBoard (protocol version 2): `nboard 2`, `set game` with the time in GGF's `TI`,
//! `ping`/`pong`, `go`.

use super::{Engine, EngineIo};
use crate::game::Seat;
use crate::player::{Failure, Request};

/// The standard Othello start in GGF's `BO` notation (a1 to h8 by ranks, `*` black).
const GGF_START: &str = "---------------------------O*------*O---------------------------";

impl Engine {
    pub(super) async fn nboard_start(&mut self, io: &mut EngineIo<'_>) -> Result<(), Failure> {
        // No `set depth` unless `options` asks for one: the engine is told the time instead
        // (`TI` of `set game`), so it plays at the strength the clock allows.
        let mut lines = vec!["nboard 2".to_string()];
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
        // The handshake: `nboard` has no answer, so a ping stands for it.
        self.nboard_ping(io).await
    }

    /// `ping n`, then everything up to `pong n`: what the engine printed before (banners,
    /// `set myname`, status lines) is behind us.
    async fn nboard_ping(&mut self, io: &mut EngineIo<'_>) -> Result<(), Failure> {
        self.pings += 1;
        let pong = format!("pong {}", self.pings);
        io.send(&format!("ping {}", self.pings)).await?;
        while io.recv().await? != pong {}
        Ok(())
    }

    pub(super) async fn nboard(
        &mut self,
        io: &mut EngineIo<'_>,
        request: Request<'_>,
    ) -> Result<String, Failure> {
        // With a game clock, `TI` is the time left on it: the engine shares it out itself.
        let ms = request
            .time
            .map_or(self.setup.move_ms, |t| t.left.as_millis() as u64);
        let game = ggf(request.history, request.seat, ms);
        io.send(&format!("set game {game}")).await?;
        self.nboard_ping(io).await?;
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

/// A time in GGF's clock notation, `minutes:seconds` with milliseconds if any: `0:02`,
/// `1:30`, `0:00.500`.
pub fn ggf_time(ms: u64) -> String {
    let (seconds, millis) = (ms / 1000, ms % 1000);
    let mut text = format!("{}:{:02}", seconds / 60, seconds % 60);
    if millis != 0 {
        text.push_str(&format!(".{millis:03}"));
    }
    text
}

/// The game so far as a GGF record for NBoard's `set game`, with passes (`PA`) where a side
/// had to pass, so that the side to move at its end is `me`. `TI` is the time the move to be
/// made may take: with a limit per move, each move starts with a full clock.
pub fn ggf(history: &[(Seat, String)], me: Seat, move_ms: u64) -> String {
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
    let time = ggf_time(move_ms);
    format!(
        "(;GM[Othello]PC[arena]PB[black]PW[white]RE[?]TI[{time}]TY[8]BO[8 {GGF_START} *]{moves};)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ggf_records_the_moves_the_passes_and_the_time() {
        let h = |moves: &[(Seat, &str)]| -> Vec<(Seat, String)> {
            moves.iter().map(|(s, m)| (*s, m.to_string())).collect()
        };
        let start = format!("BO[8 {GGF_START} *]");
        assert_eq!(
            ggf(&[], Seat::A, 20_000),
            format!("(;GM[Othello]PC[arena]PB[black]PW[white]RE[?]TI[0:20]TY[8]{start};)")
        );
        let game = ggf(&h(&[(Seat::A, "f5"), (Seat::B, "d6")]), Seat::A, 2000);
        assert!(game.ends_with(&format!("{start}B[F5]W[D6];)")), "{game}");
        assert!(game.contains("TI[0:02]"), "{game}");
        // White passed: black moved twice in a row.
        let game = ggf(&h(&[(Seat::A, "f5"), (Seat::A, "c3")]), Seat::B, 2000);
        assert!(game.ends_with("B[F5]W[PA]B[C3];)"), "{game}");
        // Black must move again after its own move: white passes.
        let game = ggf(&h(&[(Seat::A, "f5")]), Seat::A, 2000);
        assert!(game.ends_with("B[F5]W[PA];)"), "{game}");
    }

    #[test]
    fn ggf_times_are_minutes_and_seconds() {
        assert_eq!(ggf_time(2000), "0:02");
        assert_eq!(ggf_time(90_000), "1:30");
        assert_eq!(ggf_time(500), "0:00.500");
    }
}
