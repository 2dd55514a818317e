//! Replays: one JSON Lines file per game with every request, reply and think time, so a
//! teacher can see exactly where a bot went wrong.
//!
//! The first line describes the game ([`Header`], with the file's `format` version), then one
//! line per exchange ([`ExchangeRecord`]), then one line with the result ([`ResultRecord`],
//! missing if the controller was killed mid-game). Lines are serialized from typed records
//! into a buffer, which a thread of its own writes to the file ([`writer`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::games::{Culprit, GameResult, Reason};
use super::Outcome;
use crate::game::Seat;

/// The version of the replay format written in every header line.
pub const FORMAT: u32 = 1;

/// What a replay's first line says about its game, filled in by whoever runs the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The run's id.
    pub run: String,
    /// The game's name, e.g. `numeron`.
    pub game: String,
    pub round: u32,
    pub game_id: u64,
    /// The bots in seat A and seat B.
    pub bots: [String; 2],
    pub seed: u64,
    /// The opening's plies, played before the bots' first move.
    pub opening: Vec<String>,
    pub move_time_ms: u64,
    /// Gomoku's rule (`freestyle`, `standard`, `renju`); `None` for the other games.
    pub gomoku_rule: Option<String>,
}

/// One exchange of a game as it is recorded: who was asked, how long they took, what they
/// were asked (if recorded), and their reply or the kind of failure.
#[derive(Debug, Clone, Copy)]
pub struct Move<'a> {
    pub seat: Seat,
    pub think: std::time::Duration,
    /// How late after its limit the reply came, within `--time-margin`.
    pub late: Option<std::time::Duration>,
    /// The request's fields; `None` where they are not recorded (Morra).
    pub request: Option<&'a [String]>,
    /// The reply, or why there was none.
    pub reply: Result<&'a str, Reason>,
    /// What was wrong, if this exchange lost the game.
    pub fault: Option<&'a str>,
    /// With a game clock, the time left on the side's clock after the move.
    pub clock: Option<std::time::Duration>,
}

/// The header line as written: `format` first, then the fields in their historical order.
#[derive(Debug, Serialize, Deserialize)]
struct HeaderLine {
    format: u32,
    run: String,
    game: String,
    round: u32,
    game_id: u64,
    bot_a: String,
    bot_b: String,
    seed: u64,
    opening: Vec<String>,
    move_time_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gomoku_rule: Option<String>,
}

/// One exchange line as written, borrowing from the referee's exchange.
#[derive(Serialize)]
struct ExchangeLine<'a> {
    seat: &'static str,
    ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    late_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reply: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<&'a str>,
    /// The time left on the side's clock after the move, with a game clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    clock_ms: Option<u64>,
}

/// One exchange of a replay, as read back.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ExchangeRecord {
    /// `a` or `b`.
    pub seat: String,
    /// Think time in milliseconds.
    pub ms: u64,
    /// How many milliseconds after its limit a reply that `--time-margin` let count came.
    #[serde(default)]
    pub late_ms: Option<u64>,
    /// The request's fields (not recorded for Morra).
    #[serde(default)]
    pub request: Option<Vec<String>>,
    #[serde(default)]
    pub reply: Option<String>,
    /// `timeout`, `illegal` or `crash` when there was no usable reply.
    #[serde(default)]
    pub failure: Option<String>,
    /// What was wrong, if this exchange lost the game.
    #[serde(default)]
    pub fault: Option<String>,
    /// With a game clock, the time left on the side's clock after the move, in milliseconds.
    #[serde(default)]
    pub clock_ms: Option<u64>,
}

/// The last line of a replay: how the game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// `a`, `b` or `draw`.
    pub result: String,
    /// `normal`, `timeout`, `illegal` or `crash`.
    pub reason: String,
    /// `""`, `a`, `b` or `both`.
    pub culprit: String,
    pub score_a: i64,
    pub score_b: i64,
    pub plies: u32,
}

/// A replay file read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayFile {
    pub header: Header,
    pub exchanges: Vec<ExchangeRecord>,
    /// `None` if the game was interrupted.
    pub result: Option<ResultRecord>,
}

mod writer;

/// How many bytes of lines a replay gathers before handing them to the writing thread.
const CHUNK: usize = 16 * 1024;

/// A replay being written. Writing is best effort for the game, but the first error is kept
/// and returned by [`Replay::finish`] so the caller can warn about it.
pub struct Replay {
    out: Option<writer::Writer>,
    /// Lines not yet handed to the writing thread.
    buf: Vec<u8>,
    path: std::path::PathBuf,
}

fn seat_name(seat: Seat) -> &'static str {
    match seat {
        Seat::A => "a",
        Seat::B => "b",
    }
}

impl Replay {
    /// Starts the replay file at `path` with its header line. The file is made and written
    /// by another thread: an error doing so is [`Replay::finish`]'s.
    pub fn create(path: &Path, header: &Header) -> Replay {
        let mut replay = Replay {
            out: None,
            buf: Vec::with_capacity(CHUNK),
            path: path.to_owned(),
        };
        let [bot_a, bot_b] = header.bots.clone();
        replay.line(&HeaderLine {
            format: FORMAT,
            run: header.run.clone(),
            game: header.game.clone(),
            round: header.round,
            game_id: header.game_id,
            bot_a,
            bot_b,
            seed: header.seed,
            opening: header.opening.clone(),
            move_time_ms: header.move_time_ms,
            gomoku_rule: header.gomoku_rule.clone(),
        });
        let first = std::mem::replace(&mut replay.buf, Vec::with_capacity(CHUNK));
        replay.out = Some(writer::Writer::open(path.to_owned(), first));
        replay
    }

    /// Records one exchange.
    pub fn exchange(&mut self, m: &Move<'_>) {
        let (reply, failure) = match m.reply {
            Ok(reply) => (Some(reply), None),
            Err(reason) => (None, Some(reason.as_str())),
        };
        self.line(&ExchangeLine {
            seat: seat_name(m.seat),
            ms: m.think.as_millis() as u64,
            // A reply less than a millisecond late is still late: it rounds up.
            late_ms: m.late.map(|l| l.as_micros().div_ceil(1000) as u64),
            request: m.request,
            reply,
            failure,
            fault: m.fault,
            clock_ms: m.clock.map(|c| c.as_millis() as u64),
        });
    }

    /// Records the result and closes the file once it is all written; returns the first error
    /// making or writing it, if any.
    pub async fn finish(mut self, o: &Outcome) -> io::Result<()> {
        let result = match o.result {
            GameResult::A => "a",
            GameResult::B => "b",
            GameResult::Draw => "draw",
        };
        let reason = o.reason.as_str();
        let culprit = match o.culprit {
            Culprit::Nobody => "",
            Culprit::A => "a",
            Culprit::B => "b",
            Culprit::Both => "both",
        };
        self.line(&ResultRecord {
            result: result.into(),
            reason: reason.into(),
            culprit: culprit.into(),
            score_a: o.scores[0],
            score_b: o.scores[1],
            plies: o.plies,
        });
        let last = std::mem::take(&mut self.buf);
        match self.out.take() {
            Some(out) => out.close(last).await,
            None => Ok(()),
        }
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn line<T: Serialize>(&mut self, record: &T) {
        // Typed records with string keys always serialize.
        serde_json::to_writer(&mut self.buf, record).expect("a replay line serializes");
        self.buf.push(b'\n');
        if self.buf.len() >= CHUNK {
            if let Some(out) = &self.out {
                out.write(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
            }
        }
    }

    /// Reads a replay file back into its records.
    pub fn read(path: &Path) -> Result<ReplayFile> {
        let file = File::open(path).with_context(|| format!("cannot open `{}`", path.display()))?;
        let mut lines = BufReader::new(file).lines();
        let at = |n: usize| format!("`{}` line {n}", path.display());
        let first = lines
            .next()
            .with_context(|| format!("`{}` is empty", path.display()))?
            .with_context(|| at(1))?;
        let h: HeaderLine = serde_json::from_str(&first).with_context(|| at(1))?;
        anyhow::ensure!(
            h.format <= FORMAT,
            "`{}` has replay format {}; this arena reads up to {FORMAT}",
            path.display(),
            h.format
        );
        let header = Header {
            run: h.run,
            game: h.game,
            round: h.round,
            game_id: h.game_id,
            bots: [h.bot_a, h.bot_b],
            seed: h.seed,
            opening: h.opening,
            move_time_ms: h.move_time_ms,
            gomoku_rule: h.gomoku_rule,
        };
        let mut exchanges = Vec::new();
        let mut result = None;
        for (i, line) in lines.enumerate() {
            let line = line.with_context(|| at(i + 2))?;
            anyhow::ensure!(result.is_none(), "{}: a line after the result", at(i + 2));
            let value: serde_json::Value =
                serde_json::from_str(&line).with_context(|| at(i + 2))?;
            if value.get("result").is_some() {
                result = Some(serde_json::from_value(value).with_context(|| at(i + 2))?);
            } else {
                exchanges.push(serde_json::from_value(value).with_context(|| at(i + 2))?);
            }
        }
        Ok(ReplayFile {
            header,
            exchanges,
            result,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn numeron_header(game_id: u64, seed: u64, opening: &[&str], move_time_ms: u64) -> Header {
        Header {
            run: "run".into(),
            game: "numeron".into(),
            round: 1,
            game_id,
            bots: ["x".into(), "y".into()],
            seed,
            opening: opening.iter().map(|p| p.to_string()).collect(),
            move_time_ms,
            gomoku_rule: None,
        }
    }

    #[tokio::test]
    async fn a_replay_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.jsonl");
        let header = numeron_header(7, 42, &["d3"], 5000);
        let mut replay = Replay::create(&path, &header);
        let request = vec!["call".to_string(), String::new()];
        replay.exchange(&Move {
            seat: Seat::A,
            request: Some(&request),
            reply: Ok("012"),
            think: Duration::from_millis(3),
            late: Some(Duration::from_micros(1200)),
            fault: None,
            clock: None,
        });
        replay.exchange(&Move {
            seat: Seat::B,
            request: None,
            reply: Err(Reason::Timeout),
            think: Duration::from_millis(9),
            late: None,
            fault: Some("timeout: no reply"),
            clock: Some(Duration::from_millis(1250)),
        });
        replay
            .finish(&Outcome {
                scores: [1, 0],
                result: GameResult::A,
                reason: Reason::Timeout,
                culprit: Culprit::B,
                plies: 2,
                faults: [None, None],
            })
            .await
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            r#"{"format":1,"run":"run","game":"numeron","round":1,"game_id":7,"bot_a":"x","bot_b":"y","seed":42,"opening":["d3"],"move_time_ms":5000}"#
        );
        assert_eq!(
            lines[1],
            r#"{"seat":"a","ms":3,"late_ms":2,"request":["call",""],"reply":"012"}"#
        );
        assert_eq!(
            lines[2],
            r#"{"seat":"b","ms":9,"failure":"timeout","fault":"timeout: no reply","clock_ms":1250}"#
        );
        let read = Replay::read(&path).unwrap();
        assert_eq!(read.header, header);
        assert_eq!(read.exchanges.len(), 2);
        assert_eq!(read.exchanges[0].reply.as_deref(), Some("012"));
        assert_eq!(read.exchanges[0].late_ms, Some(2));
        assert_eq!(read.exchanges[0].request.as_ref(), Some(&request));
        assert_eq!(read.exchanges[1].failure.as_deref(), Some("timeout"));
        assert_eq!(read.exchanges[1].request, None);
        assert_eq!(read.exchanges[1].clock_ms, Some(1250));
        let result = read.result.unwrap();
        assert_eq!(
            (result.result.as_str(), result.culprit.as_str()),
            ("a", "b")
        );
        assert_eq!((result.score_a, result.plies), (1, 2));
    }

    #[tokio::test]
    async fn a_long_replay_is_written_whole_and_a_file_that_cannot_be_made_is_finish_s_error() {
        let dir = tempfile::tempdir().unwrap();
        let header = numeron_header(1, 1, &[], 100);
        let outcome = Outcome {
            scores: [0, 0],
            result: GameResult::Draw,
            reason: Reason::Normal,
            culprit: Culprit::Nobody,
            plies: 0,
            faults: [None, None],
        };
        // Many chunks' worth of lines reach the file in order.
        let path = dir.path().join("1.jsonl");
        let mut replay = Replay::create(&path, &header);
        let request: Vec<String> = vec!["call".into(), "0".repeat(1000)];
        for i in 0..200 {
            let reply = i.to_string();
            replay.exchange(&Move {
                seat: if i % 2 == 0 { Seat::A } else { Seat::B },
                think: Duration::from_millis(i),
                late: None,
                request: Some(&request),
                reply: Ok(&reply),
                fault: None,
                clock: None,
            });
        }
        replay.finish(&outcome).await.unwrap();
        let read = Replay::read(&path).unwrap();
        assert_eq!(read.exchanges.len(), 200);
        let replies: Vec<String> = read
            .exchanges
            .iter()
            .map(|e| e.reply.clone().unwrap())
            .collect();
        assert_eq!(replies, (0..200).map(|i| i.to_string()).collect::<Vec<_>>());
        assert!(read.result.is_some());

        // A file that cannot be made: the game is played, its replay's finish says why.
        let missing = dir.path().join("no such directory/2.jsonl");
        let replay = Replay::create(&missing, &header);
        let err = replay.finish(&outcome).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
