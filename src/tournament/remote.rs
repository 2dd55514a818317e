//! Players who are not local bots (the remote entrants of `arena serve`) beside the local
//! bots of a [`Lineup`]: they come after the local bots in the schedule, and the same runner
//! plays every game.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use tokio::sync::mpsc;

use crate::game::Seat;
use crate::player::process::ProcessPlayer;
use crate::player::{Failure, Player, Request};
use crate::schedule::Pairing;

use super::late::{Late, MAX_LATE};
use super::lineup::Lineup;
use super::runner::{GameSeed, Seats, Watch};

/// A seat of one game taken by a remote entrant.
pub struct RemoteSeat<'a> {
    /// The entrant (an index into [`Remotes::names`]).
    pub entrant: usize,
    pub game: &'a GameSeed,
    pub seat: Seat,
    pub opponent: &'a str,
    /// The opponent, if it is a remote entrant too.
    pub opponent_entrant: Option<usize>,
}

/// The remote entrants of a tournament: what the runner needs of them.
pub trait Remotes: Send + Sync + 'static {
    type Player: Player + Send;
    /// Their names, in schedule order after the local bots.
    fn names(&self) -> Vec<String>;
    /// A player for one seat of a game.
    fn player(&self, seat: RemoteSeat<'_>) -> Self::Player;
    /// How many games an entrant may have under way at once (each needs its own connection).
    fn capacity(&self, entrant: usize) -> usize;
    /// Learns the games left to play (bot `first + i` is entrant `i`) and resolves when the
    /// tournament may start.
    fn start(
        &self,
        first: usize,
        pending: &[Pairing],
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
    /// Where friendly games are asked for from before the start to the schedule's end
    /// (their seats numbered as the schedule's: the local bots `locals` first, then the
    /// entrants), if they may be.
    fn friendly(&self, locals: &[String]) -> Option<mpsc::UnboundedReceiver<Pairing>> {
        let _ = locals;
        None
    }
    /// How many guests may come for friendly games only (people at `arena serve`'s terminal
    /// port): seats after the entrants', never in the schedule.
    fn guests(&self) -> usize {
        0
    }
    /// Takes the door through which entrants join the running tournament late (their index
    /// follows the last one's); whether it will use it (else the run does not wait for them).
    fn late(&self, door: Arc<Late>) -> bool {
        let _ = door;
        false
    }
    /// The tournament is over or stopped: no more games for anyone.
    fn close(&self);
    /// What happened in a game (any game, not only the entrants').
    fn watch(&self, game_id: u64, event: Watch<'_>) {
        let _ = (game_id, event);
    }
}

/// No remote entrants: `arena run`.
pub struct NoRemotes;

/// A player that cannot exist.
pub enum Never {}

impl Player for Never {
    async fn ask(&mut self, _: Request<'_>) -> Result<String, Failure> {
        match *self {}
    }
    async fn finish(&mut self) {
        match *self {}
    }
}

impl Remotes for NoRemotes {
    type Player = Never;
    fn names(&self) -> Vec<String> {
        Vec::new()
    }
    fn player(&self, _: RemoteSeat<'_>) -> Never {
        unreachable!("there are no remote entrants")
    }
    fn capacity(&self, _: usize) -> usize {
        1
    }
    fn start(&self, _: usize, _: &[Pairing]) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
    fn close(&self) {}
}

/// A local bot's player or a remote entrant's.
pub enum Either<R> {
    Local(Box<ProcessPlayer>),
    Remote(R),
}

impl<R: Player + Send> Player for Either<R> {
    async fn ask(&mut self, request: Request<'_>) -> Result<String, Failure> {
        match self {
            Either::Local(p) => p.ask(request).await,
            Either::Remote(p) => p.ask(request).await,
        }
    }
    fn late(&self) -> Option<std::time::Duration> {
        match self {
            Either::Local(p) => p.late(),
            Either::Remote(p) => p.late(),
        }
    }
    fn uncharged(&mut self) -> std::time::Duration {
        match self {
            Either::Local(p) => p.uncharged(),
            Either::Remote(p) => p.uncharged(),
        }
    }
    async fn finish(&mut self) {
        match self {
            Either::Local(p) => p.finish().await,
            Either::Remote(p) => p.finish().await,
        }
    }
}

/// The local bots and the remote entrants as the seats of the runner.
pub(super) struct Mixed<R> {
    pub(super) lineup: Lineup,
    pub(super) remotes: Arc<R>,
    /// The entrants' names, those who join late included (learnt at their first game).
    names: Vec<OnceLock<String>>,
    /// The entrants at the start.
    entrants: usize,
    capacity: usize,
}

impl<R: Remotes> Mixed<R> {
    /// Remote entrants may play up to `capacity` games at once (one per connection).
    pub(super) fn new(lineup: Lineup, remotes: Arc<R>, capacity: usize) -> Self {
        let known = remotes.names();
        let entrants = known.len();
        let names = (known.into_iter().map(OnceLock::from))
            .chain((0..MAX_LATE + remotes.guests()).map(|_| OnceLock::new()))
            .collect();
        Mixed {
            lineup,
            remotes,
            names,
            entrants,
            capacity,
        }
    }

    /// The local bots' count: the first remote entrant's index.
    pub(super) fn first_remote(&self) -> usize {
        self.lineup.bots.len()
    }

    /// Every player's count at the start, guests' seats included (an entrant who joins late
    /// takes the next entrant index, among the guests' or after them).
    pub(super) fn len(&self) -> usize {
        self.first_remote() + self.entrants + self.remotes.guests()
    }
}

impl<R: Remotes> Seats for Mixed<R> {
    type Player = Either<R::Player>;

    fn name(&self, bot: usize) -> &str {
        match bot.checked_sub(self.first_remote()) {
            Some(e) => {
                let Some(slot) = self.names.get(e) else {
                    return "guest";
                };
                // An entrant who joined late, or a guest of the terminal: the remotes' names
                // hold it by its first game.
                match slot.get() {
                    Some(name) => name,
                    None => match self.remotes.names().into_iter().nth(e) {
                        Some(name) => slot.get_or_init(|| name),
                        None => "guest",
                    },
                }
            }
            None => self.lineup.name(bot),
        }
    }

    fn player(&self, bot: usize, game: &GameSeed) -> Self::Player {
        let first = self.first_remote();
        let Some(entrant) = bot.checked_sub(first) else {
            return Either::Local(Box::new(self.lineup.player(bot, game)));
        };
        let seat = if game.seats[0] == bot {
            Seat::A
        } else {
            Seat::B
        };
        let other = game.seats[1 - seat.index()];
        Either::Remote(self.remotes.player(RemoteSeat {
            entrant,
            game,
            seat,
            opponent: self.name(other),
            opponent_entrant: other.checked_sub(first),
        }))
    }

    fn capacity(&self, bot: usize) -> usize {
        match bot.checked_sub(self.first_remote()) {
            Some(e) => self.remotes.capacity(e).min(self.capacity),
            None => self.lineup.capacity(bot),
        }
    }

    fn prepare(&self, bot: usize) {
        if bot < self.first_remote() {
            self.lineup.prepare(bot);
        }
    }

    fn write_error(&self, bot: usize) -> Option<String> {
        (bot < self.first_remote())
            .then(|| self.lineup.write_error(bot))
            .flatten()
    }

    fn note(&self, bot: usize, text: &str) {
        if bot < self.first_remote() {
            self.lineup.note(bot, text);
        }
    }

    fn watch(&self, game_id: u64, event: Watch<'_>) {
        self.remotes.watch(game_id, event);
    }
}
