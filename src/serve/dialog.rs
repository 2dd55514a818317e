//! The Numer0n terminal dialog (`--terminal ADDR`): a person connects with `nc` or `telnet`,
//! gives a name, and plays friendly games by typing: `HOST` opens a room and prints its
//! number, `GUEST` joins one, `AI` plays one of the tournament's bots. The games are the
//! rooms' friendly games ([`super::rooms`]), played by the tournament's loop and recorded in
//! `friendly.csv` with replays; the dialog is only a transport between the person and the
//! game's link, as [`crate::player::remote::pump`] is for programs. Bad input is re-asked;
//! a prompt outside a game waits [`DIALOG_TIME`], a move the person's clock
//! ([`PERSON_MOVE_TIME`]); each address holds at most a few sessions at once ([`Gate`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc};

use crate::game::numeron::Code;
use crate::game::Seat as Side;
use crate::player::remote::{read_reply, Event, LinkEnd, Out};

use super::gate::{Gate, Stage, DIALOG_TIME};
use super::guests::{Guests, Seat};
use super::hub::{Assignment, Hub, HubEvent};
use super::tcp::say;

/// How long a person at the terminal has for a secret or a call (the tournament's
/// `--move-time` is for programs), network grace not included.
pub const PERSON_MOVE_TIME: Duration = Duration::from_secs(60);

/// How long a room hosted at the terminal waits for its guest.
pub const ROOM_WAIT: Duration = Duration::from_secs(600);

/// Says where the terminal port listens.
pub fn listening(addr: std::net::SocketAddr) {
    eprintln!("terminal on {addr}");
}

/// Takes people's connections for ever, each in its own task, while its address and the
/// port have places left.
pub async fn accept(listener: TcpListener, hub: Arc<Hub>, guests: Arc<Guests>) {
    let gate = Gate::default();
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            // Out of file descriptors, say: let some connections end first.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let (hub, guests, gate) = (Arc::clone(&hub), Arc::clone(&guests), gate.clone());
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            let (r, mut w) = stream.into_split();
            let pass = match gate.enter(Stage::Dialog, peer.ip()) {
                Ok(pass) => pass,
                Err(refused) => {
                    let _ = say(&mut w, &format!("ERROR {refused}")).await;
                    return;
                }
            };
            let mut person = Person { lines: lines(r), w };
            session(&mut person, &hub, &guests).await;
            let _ = tokio::time::timeout(Duration::from_secs(1), person.w.shutdown()).await;
            drop(pass);
        });
    }
}

/// Binds the terminal port.
pub async fn listen(addr: &str) -> anyhow::Result<TcpListener> {
    use anyhow::Context;
    TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on `{addr}` (`--terminal`)"))
}

/// A person's connection: the lines typed (a reader task, so that waiting for one can be
/// given up and taken again without losing any), and where to write.
struct Person {
    lines: mpsc::Receiver<String>,
    w: tokio::net::tcp::OwnedWriteHalf,
}

/// Reads the person's lines into a channel until the connection closes (or a line is too
/// long).
fn lines(r: tokio::net::tcp::OwnedReadHalf) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel(4);
    tokio::spawn(async move {
        let mut r = BufReader::new(r);
        while let Event::Line(line) = read_reply(&mut r).await {
            // Telnet's `\r`, and any other control character, are not part of an answer.
            let line: String = line.chars().filter(|c| !c.is_control()).collect();
            if tx.send(line.trim().to_string()).await.is_err() {
                break;
            }
        }
    });
    rx
}

impl Person {
    /// Writes a line; `None` if the person is gone.
    async fn say(&mut self, line: &str) -> Option<()> {
        say(&mut self.w, line).await.then_some(())
    }

    /// Asks `prompt` and waits [`DIALOG_TIME`] for the answer; `None` if the person is gone
    /// or silent.
    async fn ask(&mut self, prompt: &str) -> Option<String> {
        self.say(prompt).await?;
        match tokio::time::timeout(DIALOG_TIME, self.lines.recv()).await {
            Ok(line) => line,
            Err(_) => {
                let _ = self.say("# no answer in time: goodbye").await;
                None
            }
        }
    }
}

/// The whole dialog: a name, then games until the person leaves.
async fn session(person: &mut Person, hub: &Arc<Hub>, guests: &Arc<Guests>) -> Option<()> {
    person.say("# Welcome to Numer0n").await?;
    if !hub.rooms_view().open {
        person.say("# the games open in a moment").await?;
        if let Err(why) = rooms_open(hub).await {
            return person.say(&format!("# no games now: {why}")).await;
        }
    }
    let seat = loop {
        let name = person.ask("INPUT YOUR NAME").await?;
        match guests.seat(hub, &name) {
            Ok(seat) => break seat,
            Err(why) => person.say(&format!("# {why}")).await?,
        }
    };
    loop {
        let kind = person.ask("INPUT YOUR TYPE (HOST or GUEST or AI)").await?;
        let me = seat.entrant;
        // A game is asked for (and, for a host, its room's number), or back to the type.
        let room = match kind.to_ascii_uppercase().as_str() {
            "HOST" => match hub.host(me) {
                Ok(room) => {
                    person.say(&format!("ROOM {room}")).await?;
                    let waiting = format!("# waiting for a guest: they type GUEST, then {room}");
                    person.say(&waiting).await?;
                    Some(room)
                }
                Err(e) => {
                    person.say(&format!("# {e}")).await?;
                    continue;
                }
            },
            "GUEST" if guest(person, hub, &seat).await? => None,
            "AI" if ai(person, hub, &seat).await? => None,
            "GUEST" | "AI" => continue,
            _ => {
                person.say("# type HOST, GUEST or AI").await?;
                continue;
            }
        };
        play(person, hub, me, room).await?;
    }
}

/// Waits (at most [`DIALOG_TIME`]) for the friendly games to open: when the tournament's
/// bots are ready, just after the server starts; or why they will not.
async fn rooms_open(hub: &Hub) -> Result<(), &'static str> {
    let mut events = hub.subscribe();
    let deadline = tokio::time::Instant::now() + DIALOG_TIME;
    loop {
        if hub.rooms_view().open {
            return Ok(());
        }
        if hub.status().1 {
            return Err("the tournament is over");
        }
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Err(_) | Ok(Err(broadcast::error::RecvError::Closed)) => {
                return Err("the tournament's bots are not ready");
            }
            Ok(_) => {}
        }
    }
}

/// `GUEST`: a room number, and the game of that room asked for; `false`: back to the type.
async fn guest(person: &mut Person, hub: &Hub, seat: &Seat) -> Option<bool> {
    let rooms = hub.rooms_view().rooms;
    if rooms.is_empty() {
        person
            .say("# no open room: wait for a host, or type HOST or AI")
            .await?;
        return Some(false);
    }
    let open: Vec<String> = (rooms.iter().take(20))
        .map(|r| format!("{} by {}", r.room, r.host))
        .collect();
    let answer = person
        .ask(&format!("INPUT ROOM NUMBER (open: {})", open.join(", ")))
        .await?;
    let Ok(room) = answer.parse::<u64>() else {
        person
            .say(&format!("# `{answer}` is not a room number"))
            .await?;
        return Some(false);
    };
    match hub.join_room(seat.entrant, room) {
        Ok(_) => Some(true),
        Err(e) => {
            person.say(&format!("# {e}")).await?;
            Some(false)
        }
    }
}

/// `AI`: which of the tournament's bots (asked if there are several), and the game against
/// it asked for, the person first; `false`: back to the type.
async fn ai(person: &mut Person, hub: &Hub, seat: &Seat) -> Option<bool> {
    let bots = hub.rooms_view().bots;
    let bot = match bots.as_slice() {
        [] => {
            person.say("# no bot to play here").await?;
            return Some(false);
        }
        [only] => only.clone(),
        many => loop {
            let answer = person
                .ask(&format!("INPUT AI NAME ({})", many.join(" or ")))
                .await?;
            if many.contains(&answer) {
                break answer;
            }
            person.say(&format!("# no bot `{answer}`")).await?;
        },
    };
    person.say(&format!("# AI: {bot}")).await?;
    match hub.play_bot(seat.entrant, &bot, Side::A) {
        Ok(_) => Some(true),
        Err(e) => {
            person.say(&format!("# {e}")).await?;
            Some(false)
        }
    }
}

/// Waits for the person's game (a hosted room: until its guest comes, at most
/// [`ROOM_WAIT`]) and plays it; `None` if the person is gone.
async fn play(person: &mut Person, hub: &Hub, me: usize, room: Option<u64>) -> Option<()> {
    let close_room = |hub: &Hub| {
        if let Some(room) = room {
            let _ = hub.cancel_room(me, room);
        }
    };
    let (id, mut assigned) = match hub.hello(me) {
        Ok(waiting) => waiting,
        Err(e) => {
            close_room(hub);
            return person.say(&format!("# {e}")).await;
        }
    };
    let wait = tokio::time::sleep(if room.is_some() {
        ROOM_WAIT
    } else {
        DIALOG_TIME
    });
    tokio::pin!(wait);
    let assignment = loop {
        tokio::select! {
            a = &mut assigned => break a.ok(),
            line = person.lines.recv() => {
                if line.is_none() {
                    hub.leave(me, id);
                    close_room(hub);
                    return None;
                }
                person.say("# waiting for your game").await?;
            }
            () = &mut wait => {
                hub.leave(me, id);
                close_room(hub);
                // A game given meanwhile is still ours.
                match assigned.try_recv() {
                    Ok(a) => break Some(a),
                    Err(_) => return person.say("# nobody came: the room is closed").await,
                }
            }
        }
    };
    match assignment {
        Some(Assignment::Game(end)) => game(person, hub, end).await,
        _ => person.say("# no more games: the tournament is over").await,
    }
}

/// What the game waits for from the person.
#[derive(Clone, Copy)]
enum Wanted {
    Secret,
    Call,
}

/// Carries one game between its link and the person: prompts for the requests, answers
/// checked before they go (bad ones re-asked), every call with its answer as it comes, and
/// the result.
async fn game(person: &mut Person, hub: &Hub, mut end: LinkEnd) -> Option<()> {
    let mut events = hub.subscribe();
    let (mut game, mut side, mut digits) = (None, "first", 3u8);
    let mut wanted: Option<Wanted> = None;
    loop {
        tokio::select! {
            out = end.out.recv() => match out {
                None => break,
                Some(Out::Tell(header)) => {
                    let words: Vec<&str> = header.split_whitespace().collect();
                    if let ["GAME", id, _, opponent, seat, ..] = words.as_slice() {
                        game = id.parse::<u64>().ok();
                        side = if *seat == "first" { "first" } else { "second" };
                        person.say(&format!("# your game against {opponent}: you call {side}")).await?;
                    }
                }
                Some(Out::Ask(request)) => {
                    // Calls answered meanwhile are shown before the next prompt.
                    while let Ok(event) = events.try_recv() {
                        show(person, game, side, event).await?;
                    }
                    let words: Vec<&str> = request.split_whitespace().collect();
                    wanted = match words.as_slice() {
                        ["secret", n] => {
                            digits = n.parse().unwrap_or(3);
                            Some(Wanted::Secret)
                        }
                        _ => Some(Wanted::Call),
                    };
                    prompt(person, wanted, digits).await?;
                }
                Some(Out::Moves(_)) => {}
            },
            event = events.recv() => match event {
                Ok(event) => show(person, game, side, event).await?,
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
            line = person.lines.recv() => {
                let Some(line) = line else {
                    let _ = end.events.send(Event::Closed).await;
                    return None;
                };
                let Some(what) = wanted else {
                    person.say("# not your turn: wait").await?;
                    continue;
                };
                if let Err(e) = Code::parse(&line, digits) {
                    let kind = if matches!(what, Wanted::Secret) { "secret" } else { "call" };
                    person.say(&format!("# bad {kind}: {e}")).await?;
                    prompt(person, wanted, digits).await?;
                    continue;
                }
                wanted = None;
                if end.events.send(Event::Line(line)).await.is_err() {
                    break;
                }
            }
        }
    }
    let game = game?;
    // The result is recorded just after the game lets go of its link.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        // The last calls are shown before the result.
        while let Ok(event) = events.try_recv() {
            show(person, Some(game), side, event).await?;
        }
        if hub.games.is_over(game) == Some(true) {
            break;
        }
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(event)) => show(person, Some(game), side, event).await?,
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
            _ => break,
        }
    }
    let verdict = hub.games.with(game, |info| {
        let result = info.result.as_ref()?;
        let how = match result.reason {
            crate::results::games::Reason::Normal => String::new(),
            _ if result.detail.is_empty() => format!(" ({})", result.reason.as_str()),
            _ => format!(" ({})", result.detail),
        };
        Some(match result.winner {
            "draw" => format!("draw{how}"),
            w if w == side => format!("you win{how}"),
            _ => format!("you lose{how}"),
        })
    });
    let verdict = verdict
        .flatten()
        .unwrap_or_else(|| "# the game is over".into());
    person.say(&verdict).await
}

async fn prompt(person: &mut Person, wanted: Option<Wanted>, digits: u8) -> Option<()> {
    match wanted {
        Some(Wanted::Secret) => {
            let ask = format!("INPUT YOUR SECRET ({digits} different digits)");
            person.say(&ask).await
        }
        Some(Wanted::Call) => person.say("INPUT YOUR CALL").await,
        None => Some(()),
    }
}

/// Shows a call of the person's game with its answer: `[123] eat: 1 bite: 0`, the
/// opponent's after `opponent:`. Secrets are never shown.
async fn show(person: &mut Person, game: Option<u64>, side: &str, event: HubEvent) -> Option<()> {
    let HubEvent::Moved { game: g, played } = event else {
        return Some(());
    };
    if Some(g) != game || played.secret {
        return Some(());
    }
    let (Some(call), Some(note)) = (played.mv, played.note) else {
        return Some(());
    };
    let words: Vec<&str> = note.split_whitespace().collect();
    let [eat, "EAT", bite, "BITE"] = words.as_slice() else {
        return Some(());
    };
    let who = if played.seat == side {
        ""
    } else {
        "opponent: "
    };
    person
        .say(&format!("{who}[{call}] eat: {eat} bite: {bite}"))
        .await
}
