//! Friendly games outside the schedule, as a game server's rooms: an entrant plays a local
//! bot on demand ("play the AI"), or hosts a room that another entrant joins. They are asked
//! of the tournament's own game loop (its friendly channel, [`Hub::open_rooms`]) from before
//! its start to its last game, and played like any of its games: the same referee, clock
//! and reasons, the same connections. Their results go to `friendly.csv`, never to the
//! tournament's tables.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use anyhow::{Context, Result};
use serde::Serialize;
use tokio::sync::mpsc;

use crate::game::Seat;
use crate::results::games::{read_games, GameRecord, GamesWriter};
use crate::schedule::Pairing;

use super::hub::{Hub, HubEvent};

/// Friendly games are numbered from here up: never a game of a schedule.
pub const FRIENDLY_BASE: u64 = 1_000_000_000;

/// Friendly games an entrant may have asked for and not finished, open rooms included.
pub const MAX_FRIENDLY: usize = 2;

/// Whether game `game_id` is a friendly game.
pub fn is_friendly(game_id: u64) -> bool {
    game_id > FRIENDLY_BASE
}

/// An open room, waiting for someone to join.
#[derive(Debug, Clone, Serialize)]
pub struct Room {
    pub room: u64,
    /// The entrant who hosts it (plays first).
    pub host: String,
}

/// What `GET /api/rooms` shows.
#[derive(Debug, Clone, Serialize)]
pub struct RoomsView {
    /// Whether friendly games may be asked for now (only while the tournament is played).
    pub open: bool,
    /// The local bots one may play.
    pub bots: Vec<String>,
    /// The open rooms, oldest first.
    pub rooms: Vec<Room>,
}

/// Why a friendly game cannot be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoomError {
    /// The tournament's bots are not ready yet (with `--open`: it has not started), or it is
    /// over.
    Closed(&'static str),
    UnknownBot(String),
    UnknownRoom(u64),
    /// One's own room.
    OwnRoom,
    /// Too many friendly games asked for and not finished.
    TooMany,
}

impl std::fmt::Display for RoomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RoomError::Closed(why) => write!(f, "no friendly games now: {why}"),
            RoomError::UnknownBot(name) => write!(f, "no local bot `{name}`"),
            RoomError::UnknownRoom(room) => write!(f, "no open room {room}"),
            RoomError::OwnRoom => write!(f, "this is your own room: someone else joins it"),
            RoomError::TooMany => write!(
                f,
                "you have {MAX_FRIENDLY} friendly games waiting or under way: finish one first"
            ),
        }
    }
}

struct Open {
    room: u64,
    host: usize,
}

/// The rooms' state: [`Hub::rooms`].
pub struct Rooms {
    state: Mutex<State>,
}

impl Default for Rooms {
    /// Rooms whose friendly games are numbered from the first.
    fn default() -> Rooms {
        Rooms::after(0)
    }
}

#[derive(Default)]
struct State {
    /// Where friendly games are asked for, while the tournament is played.
    games: Option<mpsc::UnboundedSender<Pairing>>,
    /// The local bots' names: seats `0..locals.len()`; entrant `e` is seat `locals.len() + e`.
    locals: Vec<String>,
    open: Vec<Open>,
    next_room: u64,
    /// The last friendly game's id.
    last_game: u64,
    closed: bool,
}

impl Rooms {
    /// Friendly games will be numbered after `last_game` (the last one a previous run of
    /// this tournament played).
    pub fn after(last_game: u64) -> Rooms {
        Rooms {
            state: Mutex::new(State {
                last_game: last_game.max(FRIENDLY_BASE),
                ..State::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Hub {
    /// Opens the rooms once the tournament's bots are ready: `locals` are its local bots (its
    /// first seats); friendly games are asked for on the channel returned.
    pub fn open_rooms(&self, locals: &[String]) -> mpsc::UnboundedReceiver<Pairing> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut rooms = self.rooms.lock();
        if !rooms.closed {
            rooms.games = Some(tx);
            rooms.locals = locals.to_vec();
        }
        drop(rooms);
        self.announce_rooms();
        rx
    }

    /// No more friendly games: the tournament is over.
    pub(super) fn close_rooms(&self) {
        let mut rooms = self.rooms.lock();
        rooms.closed = true;
        rooms.games = None;
        let open: Vec<usize> = rooms.open.drain(..).map(|o| o.host).collect();
        drop(rooms);
        for host in open {
            self.friendly_done(host);
        }
    }

    /// The rooms as `GET /api/rooms` shows them.
    pub fn rooms_view(&self) -> RoomsView {
        let rooms = self.rooms.lock();
        RoomsView {
            open: rooms.games.is_some(),
            bots: rooms.locals.clone(),
            rooms: (rooms.open.iter())
                .map(|o| Room {
                    room: o.room,
                    host: self.name(o.host),
                })
                .collect(),
        }
    }

    /// A friendly game of `entrant` against the local bot `bot`, `entrant` in `seat`; its id.
    pub fn play_bot(&self, entrant: usize, bot: &str, seat: Seat) -> Result<u64, RoomError> {
        let mut rooms = self.rooms.lock();
        let first = rooms.locals.len();
        let Some(b) = rooms.locals.iter().position(|l| l == bot) else {
            return Err(match rooms.games {
                None => closed(&rooms),
                Some(_) => RoomError::UnknownBot(bot.to_string()),
            });
        };
        let seats = match seat {
            Seat::A => [first + entrant, b],
            Seat::B => [b, first + entrant],
        };
        self.ask(&mut rooms, &[entrant], seats)
    }

    /// Opens a room hosted by `entrant`; its number.
    pub fn host(&self, entrant: usize) -> Result<u64, RoomError> {
        let mut rooms = self.rooms.lock();
        if rooms.games.is_none() {
            return Err(closed(&rooms));
        }
        self.reserve(entrant)?;
        rooms.next_room += 1;
        let room = rooms.next_room;
        rooms.open.push(Open {
            room,
            host: entrant,
        });
        drop(rooms);
        self.announce_rooms();
        Ok(room)
    }

    /// `entrant` joins room `room`: the game between its host (first) and `entrant` is asked
    /// for; its id.
    pub fn join_room(&self, entrant: usize, room: u64) -> Result<u64, RoomError> {
        let mut rooms = self.rooms.lock();
        let Some(at) = rooms.open.iter().position(|o| o.room == room) else {
            return Err(RoomError::UnknownRoom(room));
        };
        let host = rooms.open[at].host;
        if host == entrant {
            return Err(RoomError::OwnRoom);
        }
        let first = rooms.locals.len();
        // The host's reservation was made when it opened the room.
        let game = self.ask(&mut rooms, &[entrant], [first + host, first + entrant])?;
        self.seen(host);
        rooms.open.remove(at);
        drop(rooms);
        self.announce_rooms();
        Ok(game)
    }

    /// The host `entrant` closes its room `room`.
    pub fn cancel_room(&self, entrant: usize, room: u64) -> Result<(), RoomError> {
        let mut rooms = self.rooms.lock();
        let at = (rooms.open.iter())
            .position(|o| o.room == room && o.host == entrant)
            .ok_or(RoomError::UnknownRoom(room))?;
        rooms.open.remove(at);
        drop(rooms);
        self.friendly_done(entrant);
        self.announce_rooms();
        Ok(())
    }

    /// Reserves a friendly game for each of `entrants` and asks the loop for the game.
    fn ask(
        &self,
        rooms: &mut State,
        entrants: &[usize],
        seats: [usize; 2],
    ) -> Result<u64, RoomError> {
        let Some(games) = rooms.games.clone() else {
            return Err(closed(rooms));
        };
        for (i, &e) in entrants.iter().enumerate() {
            if let Err(e) = self.reserve(e) {
                for &done in &entrants[..i] {
                    self.friendly_done(done);
                }
                return Err(e);
            }
        }
        rooms.last_game += 1;
        let game_id = rooms.last_game;
        let pairing = Pairing {
            round: 0,
            game_id,
            seats,
            index: 0,
        };
        if games.send(pairing).is_err() {
            rooms.games = None;
            for &e in entrants {
                self.friendly_done(e);
            }
            return Err(RoomError::Closed("the tournament is over"));
        }
        Ok(game_id)
    }

    fn announce_rooms(&self) {
        self.tell(HubEvent::Rooms);
    }
}

fn closed(rooms: &State) -> RoomError {
    RoomError::Closed(if rooms.closed {
        "the tournament is over"
    } else {
        "the tournament's bots are not ready yet"
    })
}

/// `<out>/friendly.csv`: the friendly games' records, in the columns of `games.csv`.
pub struct FriendlyLog {
    path: PathBuf,
    writer: Mutex<Option<GamesWriter>>,
}

impl FriendlyLog {
    /// The log of the tournament in `out`, and the friendly games it holds.
    pub fn open(out: &Path) -> Result<(FriendlyLog, Vec<GameRecord>)> {
        let path = out.join("friendly.csv");
        let (writer, played) = if path.exists() {
            let played = read_games(std::slice::from_ref(&path))?;
            (Some(GamesWriter::reopen(&path)?), played)
        } else {
            (None, Vec::new())
        };
        let log = FriendlyLog {
            path,
            writer: Mutex::new(writer),
        };
        Ok((log, played))
    }

    /// Appends a friendly game's record (the file is made at the first).
    pub fn append(&self, record: &GameRecord) -> Result<()> {
        let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if writer.is_none() {
            *writer = Some(GamesWriter::create(&self.path)?);
        }
        let w = writer.as_mut().expect("made above");
        w.append(record)
            .with_context(|| format!("cannot write `{}`", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::game::GameKind;
    use crate::player::remote::Door;
    use crate::serve::entrants::{table, Entrants};
    use crate::serve::hub::{Assignment, Start};

    fn hub() -> Arc<Hub> {
        let text = format!("{}{}", table("x", "tx"), table("y", "ty"));
        Hub::new(
            GameKind::Othello,
            Entrants::parse(&text).unwrap(),
            Duration::from_secs(1),
            Duration::from_secs(5),
            Start { when: 1, at: None },
            Rooms::after(FRIENDLY_BASE + 7),
        )
    }

    #[tokio::test]
    async fn rooms_ask_the_loop_for_games_with_the_schedule_s_seats_and_keep_their_limits() {
        let hub = hub();
        assert_eq!(
            hub.play_bot(0, "greedy", Seat::A),
            Err(RoomError::Closed("the tournament's bots are not ready yet"))
        );
        let mut games = hub.open_rooms(&["greedy".into(), "random".into()]);
        assert_eq!(
            hub.play_bot(0, "nobody", Seat::A),
            Err(RoomError::UnknownBot("nobody".into()))
        );
        // Entrant 1 is seat 3, after the two local bots; ids go on from the last one.
        assert_eq!(hub.play_bot(1, "random", Seat::B), Ok(FRIENDLY_BASE + 8));
        let p = games.try_recv().unwrap();
        assert_eq!((p.game_id, p.seats), (FRIENDLY_BASE + 8, [1, 3]));
        let room = hub.host(1).unwrap();
        assert_eq!(hub.host(1), Err(RoomError::TooMany));
        assert_eq!(hub.join_room(1, room), Err(RoomError::OwnRoom));
        assert_eq!(hub.rooms_view().rooms[0].host, "y");
        assert_eq!(hub.join_room(0, room), Ok(FRIENDLY_BASE + 9));
        assert_eq!(
            games.try_recv().unwrap().seats,
            [3, 2],
            "the host plays first"
        );
        assert_eq!(hub.join_room(0, room), Err(RoomError::UnknownRoom(room)));
        // A closed room gives its reservation back.
        let again = hub.host(0).unwrap();
        assert_eq!(hub.play_bot(0, "greedy", Seat::A), Err(RoomError::TooMany));
        hub.cancel_room(0, again).unwrap();
        assert!(hub.play_bot(0, "greedy", Seat::A).is_ok());
        hub.close();
        assert!(!hub.rooms_view().open);
        assert_eq!(
            hub.host(0),
            Err(RoomError::Closed("the tournament is over"))
        );
    }

    #[tokio::test]
    async fn an_entrant_whose_tournament_games_are_over_still_gets_its_friendly_game() {
        let hub = hub();
        let _x = hub.hello(0).unwrap();
        hub.begin(vec![0, 0]).await;
        let _games = hub.open_rooms(&["greedy".into()]);
        let game = hub.play_bot(0, "greedy", Seat::A).unwrap();
        let (_, rx) = hub.hello(0).unwrap();
        let door = hub.door(game, 0, None);
        let link = tokio::time::timeout(Duration::from_secs(2), door.connect(false)).await;
        assert!(link.unwrap().is_ok());
        assert!(matches!(rx.await, Ok(Assignment::Game(_))));
        door.done();
        // Now nothing is left for it.
        let (_, rx) = hub.hello(0).unwrap();
        assert!(matches!(rx.await, Ok(Assignment::End)));
    }

    #[tokio::test]
    async fn a_friendly_game_asked_for_before_the_start_is_lost_by_timeout_if_its_entrant_never_comes(
    ) {
        let text = table("x", "tx");
        let hub = Hub::new(
            GameKind::Othello,
            Entrants::parse(&text).unwrap(),
            Duration::from_secs(1),
            Duration::from_millis(100),
            Start { when: 1, at: None },
            Rooms::default(),
        );
        let _games = hub.open_rooms(&["greedy".into()]);
        let game = hub.play_bot(0, "greedy", Seat::A).unwrap();
        let door = hub.door(game, 0, None);
        let link = tokio::time::timeout(Duration::from_secs(2), door.connect(false)).await;
        assert_eq!(link.unwrap().err(), Some(crate::player::Failure::Timeout));
        assert!(!hub.started(), "the tournament itself still waits");
    }

    #[test]
    fn the_friendly_log_is_made_at_its_first_game_and_numbers_go_on_after_a_resume() {
        let dir = tempfile::tempdir().unwrap();
        let (log, played) = FriendlyLog::open(dir.path()).unwrap();
        assert!(played.is_empty());
        assert!(!dir.path().join("friendly.csv").exists());
        let record = GameRecord {
            run: "r".into(),
            round: 0,
            game_id: FRIENDLY_BASE + 3,
            game: GameKind::Othello,
            bot_a: "x".into(),
            bot_b: "greedy".into(),
            score_a: 40,
            score_b: 24,
            result: crate::results::games::GameResult::A,
            reason: crate::results::games::Reason::Normal,
            culprit: crate::results::games::Culprit::Nobody,
            plies: 60,
            duration_ms: 1,
            detail: String::new(),
        };
        log.append(&record).unwrap();
        drop(log);
        let (_, played) = FriendlyLog::open(dir.path()).unwrap();
        assert_eq!(played, [record]);
    }
}
