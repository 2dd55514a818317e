//! GTP (Go Text Protocol version 2, as Othello engines speak it): `protocol_version`,
//! `boardsize 8`, `time_settings`, `play`, `time_left`, `genmove`, `quit`.

use super::{Engine, EngineIo};
use crate::game::Seat;
use crate::player::{Failure, Request};

/// The per-move limit in whole seconds, as GTP's clock commands take it: rounded down, at
/// least 1 (a byo-yomi of 0 would mean no limit at all).
pub fn gtp_seconds(move_ms: u64) -> u64 {
    (move_ms / 1000).max(1)
}

impl Engine {
    pub(super) async fn gtp_start(&mut self, io: &mut EngineIo<'_>) -> Result<(), Failure> {
        if let Some((command, answer)) = self.gtp_settings(io).await? {
            return Err(Failure::Crash(format!(
                "rejected `{command}`: `? {answer}`"
            )));
        }
        // Canadian byo-yomi with no main time and one stone per period: every move has the
        // move time, and unused time is not kept. An engine without a clock may refuse it.
        // A game clock is sudden death for GTP (it has no increment): the increment shows in
        // each move's `time_left`.
        let command = match self.setup.clock {
            Some(clock) => format!("time_settings {} 0 0", clock.base.as_secs().max(1)),
            None => format!("time_settings 0 {} 1", gtp_seconds(self.setup.move_ms)),
        };
        self.gtp_optional(io, &command).await
    }

    /// The handshake and the settings (`options`, `init`): the first command the engine
    /// refused, with its answer.
    async fn gtp_settings(
        &mut self,
        io: &mut EngineIo<'_>,
    ) -> Result<Option<(String, String)>, Failure> {
        // The handshake: any answer will do (`?` from an engine without the command too).
        let _ = gtp_command(io, "protocol_version").await?;
        let mut commands = vec!["boardsize 8".to_string(), "clear_board".to_string()];
        commands.extend(self.setup.options.iter().map(|(k, v)| format!("{k} {v}")));
        commands.extend(self.setup.init.iter().cloned());
        for command in commands {
            if let Err(e) = gtp_command(io, &command).await? {
                return Ok(Some((command, e)));
            }
        }
        Ok(None)
    }

    /// Before the first game: the handshake and the settings; for a refused one, the
    /// engine's answer and the commands it accepts (`list_commands`, or else whether it
    /// knows the command, `known_command`).
    pub(super) async fn gtp_check(&mut self, io: &mut EngineIo<'_>) -> Result<(), String> {
        let refused = self.gtp_settings(io).await.map_err(|f| f.detail())?;
        let Some((command, answer)) = refused else {
            return Ok(());
        };
        let word = command.split_whitespace().next().unwrap_or_default();
        let from = if self.setup.options.iter().any(|(k, _)| k == word) {
            " (from `options` in `bot.toml`)"
        } else if self.setup.init.contains(&command) {
            " (from `init` in `bot.toml`)"
        } else {
            ""
        };
        let accepts = match gtp_response(io, "list_commands").await {
            Ok(Ok(list)) => format!(
                "; the commands it accepts (`list_commands`): {}",
                list.join(", ")
            ),
            _ => match gtp_command(io, &format!("known_command {word}")).await {
                Ok(Ok(known)) => format!("; `known_command {word}` answers `{known}`"),
                _ => String::new(),
            },
        };
        Err(format!(
            "the engine answered `? {answer}` to `{command}`{from}{accepts}"
        ))
    }

    /// A command an engine may refuse: `?` is noted in its log, not a failure.
    async fn gtp_optional(&mut self, io: &mut EngineIo<'_>, command: &str) -> Result<(), Failure> {
        if let Err(e) = gtp_command(io, command).await? {
            self.note(io, &format!("engine answered `? {e}` to `{command}`"));
        }
        Ok(())
    }

    pub(super) async fn gtp(
        &mut self,
        io: &mut EngineIo<'_>,
        request: Request<'_>,
    ) -> Result<String, Failure> {
        let history = request.history;
        // Moves are played with their colour, so the engine never needs to be told of a pass
        // (some engines reject `play b pass`).
        for (seat, mv) in &history[self.known.min(history.len())..] {
            let command = format!("play {} {mv}", gtp_colour(*seat));
            if let Err(e) = gtp_command(io, &command).await? {
                return Err(Failure::Crash(format!("rejected `{command}`: `? {e}`")));
            }
        }
        let colour = gtp_colour(request.seat);
        let command = match request.time {
            Some(t) => format!(
                "time_left {colour} {} 0",
                gtp_seconds(t.left.as_millis() as u64)
            ),
            None => format!("time_left {colour} {} 1", gtp_seconds(self.setup.move_ms)),
        };
        self.gtp_optional(io, &command).await?;
        let command = format!("genmove {colour}");
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
}

/// One GTP command and its answer: `Ok(text)` for `= text`, `Err(text)` for `? text`; of a
/// multi-line answer, the first line.
async fn gtp_command(
    io: &mut EngineIo<'_>,
    command: &str,
) -> Result<Result<String, String>, Failure> {
    Ok(match gtp_response(io, command).await? {
        Ok(lines) => Ok(lines.into_iter().next().unwrap_or_default()),
        Err(text) => Err(text),
    })
}

/// One GTP command and its whole answer: `Ok(lines)` for `= ...`, `Err(text)` for `? text`.
async fn gtp_response(
    io: &mut EngineIo<'_>,
    command: &str,
) -> Result<Result<Vec<String>, String>, Failure> {
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
        let mut lines = vec![text];
        loop {
            let more = io.recv().await?;
            if more.trim().is_empty() {
                break;
            }
            lines.push(more.trim().to_string());
        }
        return Ok(if ok { Ok(lines) } else { Err(lines.join(" ")) });
    }
}

fn gtp_colour(seat: Seat) -> &'static str {
    match seat {
        Seat::A => "b",
        Seat::B => "w",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_clocks_are_whole_seconds_never_zero() {
        assert_eq!(gtp_seconds(2000), 2);
        assert_eq!(gtp_seconds(2999), 2);
        assert_eq!(gtp_seconds(500), 1);
        assert_eq!(gtp_seconds(20_000), 20);
    }
}
