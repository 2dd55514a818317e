//! Plays one game: asks the players for moves, hands the replies to the rules, and decides
//! the result, including forfeits for timeouts, illegal replies and crashes.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use crate::game::{Rules, Seat, Turn, Winner};
use crate::results::games::{Culprit, GameResult, Reason};

/// Why a player gave no usable reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No reply within the time limit.
    Timeout,
    /// A reply arena could not accept before the rules even saw it (an over-long line).
    Illegal(String),
    /// The bot exited, closed its pipes, or could not be started.
    Crash(String),
}

impl Failure {
    fn reason(&self) -> Reason {
        match self {
            Failure::Timeout => Reason::Timeout,
            Failure::Illegal(_) => Reason::Illegal,
            Failure::Crash(_) => Reason::Crash,
        }
    }

    fn detail(&self) -> String {
        match self {
            Failure::Timeout => "no reply in time".to_string(),
            Failure::Illegal(d) | Failure::Crash(d) => d.clone(),
        }
    }
}

/// What a player is asked for a move.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The protocol's request fields (see [`Rules::request`]).
    pub fields: &'a [String],
    /// Who is asked.
    pub seat: Seat,
    /// Every move played so far (opening plies included), for engine protocols that replay
    /// the game rather than read a position.
    pub history: &'a [(Seat, String)],
}

/// Something that answers move requests: a bot process, or a script in tests.
pub trait Player {
    /// Asks for the next move; returns the trimmed reply.
    fn ask(&mut self, request: Request<'_>)
        -> impl Future<Output = Result<String, Failure>> + Send;
    /// Ends the game for this player (closes its process).
    fn finish(&mut self) -> impl Future<Output = ()> + Send;
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub scores: [i64; 2],
    pub result: GameResult,
    pub reason: Reason,
    pub culprit: Culprit,
    pub plies: u32,
    /// What each seat did wrong, if anything, for its log.
    pub faults: [Option<String>; 2],
}

/// One request and its answer, as the referee saw it (for replays).
#[derive(Debug)]
pub struct Exchange<'a> {
    pub seat: Seat,
    pub request: &'a [String],
    /// The reply, or why there was none.
    pub reply: &'a Result<String, Failure>,
    /// Wall time from the request to the reply.
    pub think: Duration,
    /// What was wrong, if this exchange lost the game (`illegal: ...`, `timeout: ...`).
    pub fault: Option<&'a str>,
}

/// Plays a game to its end, telling `observe` about every exchange. A player that fails
/// forfeits the game at once, whatever the score; if both fail in the same turn the game is
/// a draw.
pub async fn play<P: Player + Send>(
    rules: &mut dyn Rules,
    players: [&mut P; 2],
    mut history: Vec<(Seat, String)>,
    observe: &mut (dyn FnMut(Exchange<'_>) + Send),
) -> Outcome {
    let [pa, pb] = players;
    let faults = loop {
        let mut faults: [Option<(Reason, String)>; 2] = [None, None];
        match rules.turn() {
            Turn::Over => break faults,
            Turn::Both => {
                let requests = [rules.request(Seat::A), rules.request(Seat::B)];
                let ask = |seat: Seat| Request {
                    fields: &requests[seat.index()],
                    seat,
                    history: &history,
                };
                let (ra, rb) =
                    tokio::join!(timed(pa.ask(ask(Seat::A))), timed(pb.ask(ask(Seat::B))));
                let mut played = Vec::new();
                for (seat, (reply, think)) in Seat::BOTH.into_iter().zip([ra, rb]) {
                    let i = seat.index();
                    faults[i] = judge(rules, seat, &reply);
                    if let (None, Ok(text)) = (&faults[i], &reply) {
                        played.push((seat, text.trim().to_string()));
                    }
                    observe(Exchange {
                        seat,
                        request: &requests[i],
                        reply: &reply,
                        think,
                        fault: faults[i].as_ref().map(|f| f.1.as_str()),
                    });
                }
                history.extend(played);
            }
            Turn::One(seat) => {
                let request = rules.request(seat);
                let player = match seat {
                    Seat::A => &mut *pa,
                    Seat::B => &mut *pb,
                };
                let asked = Request {
                    fields: &request,
                    seat,
                    history: &history,
                };
                let (reply, think) = timed(player.ask(asked)).await;
                let i = seat.index();
                faults[i] = judge(rules, seat, &reply);
                if let (None, Ok(text)) = (&faults[i], &reply) {
                    history.push((seat, text.trim().to_string()));
                }
                observe(Exchange {
                    seat,
                    request: &request,
                    reply: &reply,
                    think,
                    fault: faults[i].as_ref().map(|f| f.1.as_str()),
                });
            }
        }
        if faults.iter().any(Option::is_some) {
            break faults;
        }
    };
    tokio::join!(pa.finish(), pb.finish());

    let (result, reason, culprit) = match &faults {
        [None, None] => {
            let result = match rules.winner() {
                Some(Winner::Seat(Seat::A)) => GameResult::A,
                Some(Winner::Seat(Seat::B)) => GameResult::B,
                Some(Winner::Draw) | None => GameResult::Draw,
            };
            (result, Reason::Normal, Culprit::Nobody)
        }
        [Some((r, _)), None] => (GameResult::B, *r, Culprit::A),
        [None, Some((r, _))] => (GameResult::A, *r, Culprit::B),
        [Some((ra, _)), Some((rb, _))] => (GameResult::Draw, worse(*ra, *rb), Culprit::Both),
    };
    Outcome {
        scores: rules.scores(),
        result,
        reason,
        culprit,
        plies: rules.plies(),
        faults: faults.map(|f| f.map(|(_, d)| d)),
    }
}

async fn timed<F: Future>(ask: F) -> (F::Output, Duration) {
    let started = Instant::now();
    let reply = ask.await;
    (reply, started.elapsed())
}

/// Plays a reply, or says what was wrong with it (`illegal: ...`, `timeout: ...`).
fn judge(
    rules: &mut dyn Rules,
    seat: Seat,
    reply: &Result<String, Failure>,
) -> Option<(Reason, String)> {
    let (reason, detail) = match reply {
        Ok(text) => match rules.play(seat, text.trim()) {
            Ok(()) => return None,
            Err(why) => (
                Reason::Illegal,
                format!("{} (reply `{}`)", shorten(&why.to_string()), shorten(text)),
            ),
        },
        Err(failure) => (failure.reason(), failure.detail()),
    };
    Some((reason, format!("{}: {detail}", reason_name(reason))))
}

/// The reason recorded when both players fail in different ways: a crash outranks a timeout,
/// which outranks an illegal reply.
fn worse(a: Reason, b: Reason) -> Reason {
    let rank = |r| match r {
        Reason::Crash => 3,
        Reason::Timeout => 2,
        Reason::Illegal => 1,
        Reason::Normal => 0,
    };
    if rank(a) >= rank(b) {
        a
    } else {
        b
    }
}

fn reason_name(r: Reason) -> &'static str {
    match r {
        Reason::Normal => "normal",
        Reason::Timeout => "timeout",
        Reason::Illegal => "illegal",
        Reason::Crash => "crash",
    }
}

/// Text cut to a length that fits a log line: a reply, or a rules message quoting one.
fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::game::morra::Morra;
    use std::collections::VecDeque;

    /// A player that replays a script, and records the requests it saw.
    pub struct Scripted {
        replies: VecDeque<Result<String, Failure>>,
        pub seen: Vec<Vec<String>>,
        pub finished: bool,
    }

    impl Scripted {
        pub fn new(replies: &[Result<&str, Failure>]) -> Self {
            Scripted {
                replies: replies
                    .iter()
                    .map(|r| r.clone().map(str::to_string))
                    .collect(),
                seen: Vec::new(),
                finished: false,
            }
        }
    }

    impl Player for Scripted {
        async fn ask(&mut self, request: Request<'_>) -> Result<String, Failure> {
            self.seen.push(request.fields.to_vec());
            self.replies
                .pop_front()
                .unwrap_or(Err(Failure::Crash("script ran out".into())))
        }

        async fn finish(&mut self) {
            self.finished = true;
        }
    }

    fn run(rounds: u32, a: &[Result<&str, Failure>], b: &[Result<&str, Failure>]) -> Outcome {
        let mut game = Morra::new(rounds);
        let (mut pa, mut pb) = (Scripted::new(a), Scripted::new(b));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut seen = 0;
        let outcome = rt.block_on(play(&mut game, [&mut pa, &mut pb], Vec::new(), &mut |_| {
            seen += 1
        }));
        assert!(pa.finished && pb.finished);
        assert_eq!(seen, 2 * (outcome.plies as usize + 1).min(rounds as usize));
        outcome
    }

    #[test]
    fn a_full_game_is_decided_by_points() {
        let o = run(2, &[Ok("5 5"), Ok("0 0")], &[Ok("5 0"), Ok("1 1")]);
        assert_eq!(o.scores, [10, 0]);
        assert_eq!(
            (o.result, o.reason, o.culprit),
            (GameResult::A, Reason::Normal, Culprit::Nobody)
        );
        assert_eq!(o.plies, 2);
        assert_eq!(o.faults, [None, None]);
    }

    #[test]
    fn a_forfeit_loses_whatever_the_score() {
        // A leads 10-0, then answers `6 0`.
        let o = run(3, &[Ok("5 5"), Ok("6 0")], &[Ok("5 0"), Ok("1 1")]);
        assert_eq!(o.scores, [10, 0]);
        assert_eq!(
            (o.result, o.reason, o.culprit),
            (GameResult::B, Reason::Illegal, Culprit::A)
        );
        assert_eq!(o.plies, 1);
        let fault = o.faults[0].as_deref().unwrap();
        assert!(fault.starts_with("illegal: choice `6`"), "{fault}");
        assert!(fault.contains("(reply `6 0`)"), "{fault}");

        let o = run(3, &[Ok("1 1")], &[Err(Failure::Timeout)]);
        assert_eq!(
            (o.result, o.reason, o.culprit),
            (GameResult::A, Reason::Timeout, Culprit::B)
        );
        let o = run(
            3,
            &[Err(Failure::Crash("exited with status 1".into()))],
            &[Ok("1 1")],
        );
        assert_eq!(
            (o.result, o.reason, o.culprit),
            (GameResult::B, Reason::Crash, Culprit::A)
        );
        assert_eq!(o.faults[0].as_deref(), Some("crash: exited with status 1"));
    }

    #[test]
    fn both_forfeiting_in_one_round_is_a_draw() {
        let o = run(3, &[Ok("1 1"), Ok("3")], &[Ok("1 1"), Ok("x y")]);
        assert_eq!(
            (o.result, o.reason, o.culprit),
            (GameResult::Draw, Reason::Illegal, Culprit::Both)
        );
        assert!(o.faults.iter().all(Option::is_some));
        let o = run(
            3,
            &[Err(Failure::Timeout)],
            &[Err(Failure::Crash("x".into()))],
        );
        assert_eq!(
            (o.result, o.reason, o.culprit),
            (GameResult::Draw, Reason::Crash, Culprit::Both)
        );
    }

    #[test]
    fn morra_requests_carry_each_seats_view() {
        let mut game = Morra::new(3);
        let mut pa = Scripted::new(&[Ok("0 4"), Ok("4 3"), Ok("2 5")]);
        let mut pb = Scripted::new(&[Ok("4 1"), Ok("2 3"), Ok("3 2")]);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut thinks = Vec::new();
        rt.block_on(play(&mut game, [&mut pa, &mut pb], Vec::new(), &mut |e| {
            thinks.push((e.seat, e.request.to_vec(), e.fault.is_none()))
        }));
        assert_eq!(thinks.len(), 6);
        assert_eq!(thinks[0], (Seat::A, pa.seen[0].clone(), true));
        assert_eq!(thinks[1].0, Seat::B);
        assert_eq!(pa.seen[0], ["", "", "0", "", "", "0"]);
        assert_eq!(pa.seen[2], ["04", "43", "4", "42", "13", "0"]);
        assert_eq!(pb.seen[2], ["42", "13", "0", "04", "43", "4"]);
    }
}
