//! Plays one game: asks the players for moves, hands the replies to the rules, and decides
//! the result, including forfeits for timeouts, illegal replies and crashes.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use crate::game::{Rules, Seat, Turn, Winner};
use crate::player::clock::TimeControl;
use crate::player::{Failure, Player, Request};
use crate::results::games::{Culprit, GameResult, Reason};
pub use crate::results::Outcome;

mod clock;
pub use clock::Clocks;

/// One request and its answer, as the referee saw it (for replays).
#[derive(Debug)]
pub struct Exchange<'a> {
    pub seat: Seat,
    pub request: &'a [String],
    /// The reply, or why there was none.
    pub reply: &'a Result<String, Failure>,
    /// Wall time from the request to the reply.
    pub think: Duration,
    /// How late after its limit the reply came, where `--time-margin` let it count.
    pub late: Option<Duration>,
    /// What was wrong, if this exchange lost the game (`illegal: ...`, `timeout: ...`).
    pub fault: Option<&'a str>,
    /// What anyone may know of the move beyond itself ([`Rules::note`]).
    pub note: Option<&'a str>,
    /// With a game clock, the time left on the side's clock after the move.
    pub clock: Option<Duration>,
}

/// Plays a game to its end, telling `observe` about every exchange. A player that fails
/// forfeits the game at once, whatever the score; if both fail in the same turn the game is
/// a draw. A player that [retries illegal replies](Player::retries_illegal) is asked again.
///
/// With a `clock`, each side has a [`Clocks`] clock: it is told its time left with each
/// request, and loses on time when a move takes more than it had.
pub async fn play<A: Player + Send, B: Player + Send>(
    rules: &mut dyn Rules,
    pa: &mut A,
    pb: &mut B,
    mut history: Vec<(Seat, String)>,
    clock: Option<TimeControl>,
    observe: &mut (dyn FnMut(Exchange<'_>) + Send),
) -> Outcome {
    let mut clocks = clock.map(Clocks::new);
    let faults = loop {
        let mut faults: [Option<(Reason, String)>; 2] = [None, None];
        match rules.turn() {
            Turn::Over => break faults,
            Turn::Both => {
                let requests = [rules.request(Seat::A), rules.request(Seat::B)];
                let view: &dyn Rules = rules;
                let told = |seat: Seat| clocks.as_ref().map(|c| c.told(seat));
                let ask = |seat: Seat| Request {
                    fields: &requests[seat.index()],
                    seat,
                    history: &history,
                    rules: view,
                    time: told(seat),
                };
                let (ra, rb) =
                    tokio::join!(timed(pa.ask(ask(Seat::A))), timed(pb.ask(ask(Seat::B))));
                let mut played = Vec::new();
                for (seat, first) in Seat::BOTH.into_iter().zip([ra, rb]) {
                    let i = seat.index();
                    let (reply, think, fault) = match seat {
                        Seat::A => judged(pa, rules, seat, &requests[i], &history, first).await,
                        Seat::B => judged(pb, rules, seat, &requests[i], &history, first).await,
                    };
                    let uncharged = match seat {
                        Seat::A => pa.uncharged(),
                        Seat::B => pb.uncharged(),
                    };
                    let (fault, clock) = charged(&mut clocks, seat, think, uncharged, fault);
                    if let (None, Ok(text)) = (&fault, &reply) {
                        played.push((seat, text.trim().to_string()));
                    }
                    faults[i] = fault;
                    let note = faults[i].is_none().then(|| rules.note(seat)).flatten();
                    let late = [pa.late(), pb.late()][i];
                    observe(Exchange {
                        seat,
                        request: &requests[i],
                        reply: &reply,
                        think,
                        late,
                        fault: faults[i].as_ref().map(|f| f.1.as_str()),
                        note: note.as_deref(),
                        clock,
                    });
                }
                history.extend(played);
            }
            Turn::One(seat) => {
                let request = rules.request(seat);
                let asked = Request {
                    fields: &request,
                    seat,
                    history: &history,
                    rules: &*rules,
                    time: clocks.as_ref().map(|c| c.told(seat)),
                };
                let first = match seat {
                    Seat::A => timed(pa.ask(asked)).await,
                    Seat::B => timed(pb.ask(asked)).await,
                };
                let (reply, think, fault) = match seat {
                    Seat::A => judged(pa, rules, seat, &request, &history, first).await,
                    Seat::B => judged(pb, rules, seat, &request, &history, first).await,
                };
                let uncharged = match seat {
                    Seat::A => pa.uncharged(),
                    Seat::B => pb.uncharged(),
                };
                let (fault, clock) = charged(&mut clocks, seat, think, uncharged, fault);
                if let (None, Ok(text)) = (&fault, &reply) {
                    history.push((seat, text.trim().to_string()));
                }
                let i = seat.index();
                faults[i] = fault;
                let note = faults[i].is_none().then(|| rules.note(seat)).flatten();
                observe(Exchange {
                    seat,
                    request: &request,
                    reply: &reply,
                    think,
                    late: [pa.late(), pb.late()][i],
                    fault: faults[i].as_ref().map(|f| f.1.as_str()),
                    note: note.as_deref(),
                    clock,
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

/// Charges a move to its side's clock, if the game has clocks: the move's fault (a loss on
/// time if the clock ran out) and the time left after it. `uncharged` is the part of `think`
/// that was the player's start-up, not its thinking ([`Player::uncharged`]).
fn charged(
    clocks: &mut Option<Clocks>,
    seat: Seat,
    think: Duration,
    uncharged: Duration,
    fault: Option<(Reason, String)>,
) -> (Option<(Reason, String)>, Option<Duration>) {
    match clocks {
        Some(c) => {
            let fault = c.charge(seat, think.saturating_sub(uncharged), fault);
            (fault, Some(c.left(seat)))
        }
        None => (fault, None),
    }
}

/// Plays a player's reply, or says what was wrong with it. A player that retries illegal
/// replies is told why and asked again until its reply is legal or it fails otherwise.
async fn judged<P: Player>(
    player: &mut P,
    rules: &mut dyn Rules,
    seat: Seat,
    fields: &[String],
    history: &[(Seat, String)],
    first: (Result<String, Failure>, Duration),
) -> (Result<String, Failure>, Duration, Option<(Reason, String)>) {
    // A person who retries is not told the clock again: its clock is charged at the end.
    let time = None;
    let (mut reply, mut think) = first;
    loop {
        let fault = match &reply {
            Ok(text) => match rules.play(seat, text.trim()) {
                Ok(()) => None,
                Err(why) if player.retries_illegal() => {
                    player.rejected(&why.to_string());
                    let request = Request {
                        fields,
                        seat,
                        history,
                        rules: &*rules,
                        time,
                    };
                    (reply, think) = timed(player.ask(request)).await;
                    continue;
                }
                Err(why) => Some((
                    Reason::Illegal,
                    format!("{} (reply `{}`)", shorten(&why.to_string()), shorten(text)),
                )),
            },
            Err(failure) => Some((failure.reason(), failure.detail())),
        };
        let fault =
            fault.map(|(reason, detail)| (reason, format!("{}: {detail}", reason_name(reason))));
        return (reply, think, fault);
    }
}

async fn timed<F: Future>(ask: F) -> (F::Output, Duration) {
    let started = Instant::now();
    let reply = ask.await;
    (reply, started.elapsed())
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
mod tests {
    use super::*;
    use crate::game::morra::Morra;
    use crate::player::scripted::Scripted;

    fn run(rounds: u32, a: &[Result<&str, Failure>], b: &[Result<&str, Failure>]) -> Outcome {
        let mut game = Morra::new(rounds);
        let (mut pa, mut pb) = (Scripted::new(a), Scripted::new(b));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut seen = 0;
        let outcome = rt.block_on(play(
            &mut game,
            &mut pa,
            &mut pb,
            Vec::new(),
            None,
            &mut |_| seen += 1,
        ));
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
    fn a_player_that_retries_gets_another_try_after_an_illegal_reply() {
        let mut game = Morra::new(1);
        let mut pa = Scripted::new(&[Ok("9 9"), Ok("x"), Ok("5 0")]);
        pa.retries = true;
        let mut pb = Scripted::new(&[Ok("0 3")]);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut exchanges = 0;
        let o = rt.block_on(play(
            &mut game,
            &mut pa,
            &mut pb,
            Vec::new(),
            None,
            &mut |_| exchanges += 1,
        ));
        assert_eq!(pa.rejections.len(), 2, "{:?}", pa.rejections);
        assert!(
            pa.rejections[0].contains("choice `9`"),
            "{:?}",
            pa.rejections
        );
        assert_eq!(pa.seen.len(), 3);
        assert_eq!(
            (o.result, o.reason, o.scores),
            (GameResult::A, Reason::Normal, [5, 0])
        );
        assert_eq!(exchanges, 2, "only the accepted replies are exchanges");
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
        rt.block_on(play(
            &mut game,
            &mut pa,
            &mut pb,
            Vec::new(),
            None,
            &mut |e| thinks.push((e.seat, e.request.to_vec(), e.fault.is_none())),
        ));
        assert_eq!(thinks.len(), 6);
        assert_eq!(thinks[0], (Seat::A, pa.seen[0].clone(), true));
        assert_eq!(thinks[1].0, Seat::B);
        assert_eq!(pa.seen[0], ["", "", "0", "", "", "0"]);
        assert_eq!(pa.seen[2], ["04", "43", "4", "42", "13", "0"]);
        assert_eq!(pb.seen[2], ["42", "13", "0", "04", "43", "4"]);
    }
}
