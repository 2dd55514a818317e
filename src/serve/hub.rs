//! The server's one registry of entrants: their waiting connections, their games under way
//! and left to play, and games waiting for a dropped connection to come back. Every front
//! door (TCP now, HTTP later) hands connections in here, and the tournament's remote players
//! take them out.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard};
use std::time::{Duration, SystemTime};

use tokio::sync::{broadcast, oneshot, watch};
use tokio::time::Instant;

use crate::game::GameKind;
use crate::player::remote::{link, Link, LinkEnd};
use crate::player::Failure;

use crate::tournament::runner::Watch;

use super::door::Claim;
use super::entrants::{Entrant, Entrants};
use super::games::{Games, Played};
use super::rooms::{RoomError, Rooms, MAX_FRIENDLY};

/// The most waiting connections one entrant may have.
pub const MAX_WAITING: usize = 64;

/// What a waiting connection is given.
pub enum Assignment {
    /// A game: carry its lines.
    Game(LinkEnd),
    /// No more games for this entrant.
    End,
}

struct Waiter {
    id: u64,
    tx: oneshot::Sender<Assignment>,
}

#[derive(Default)]
struct Slot {
    waiting: VecDeque<Waiter>,
    /// Games holding one of its connections.
    active: usize,
    /// Games left to play (known once the tournament starts).
    left: Option<usize>,
    /// Friendly games asked for and not over (open rooms included).
    friendly: usize,
    /// When it last had a connection or a game (its absence is counted from then).
    last_seen: Option<Instant>,
    /// Games whose connection dropped, waiting for a new one.
    orphans: VecDeque<oneshot::Sender<Link>>,
    /// It has connected at least once.
    came: bool,
    /// One of its connections has been told `END`.
    ended: bool,
    /// The terminal said it connected (and not yet that it left); since when it is away.
    said: Option<Option<Instant>>,
    /// A person at the terminal port, outside the tournament's field ([`guests`]).
    guest: bool,
}

impl Slot {
    fn prune(&mut self) {
        self.waiting.retain(|w| !w.tx.is_closed());
        self.orphans.retain(|o| !o.is_closed());
    }

    fn connected(&self) -> bool {
        self.waiting.iter().any(|w| !w.tx.is_closed())
    }

    /// No game left for it: neither of the tournament nor friendly.
    fn finished(&self) -> bool {
        self.left == Some(0) && self.friendly == 0
    }

    /// A waiting connection, given a game; `None` if none is left.
    fn take(&mut self) -> Option<Link> {
        while let Some(w) = self.waiting.pop_front() {
            let (ours, theirs) = link();
            if w.tx.send(Assignment::Game(theirs)).is_ok() {
                return Some(ours);
            }
        }
        None
    }

    fn end(&mut self) {
        for w in self.waiting.drain(..) {
            self.ended |= w.tx.send(Assignment::End).is_ok();
        }
    }
}

#[derive(Default)]
struct State {
    started: bool,
    /// The start was called for (the operator's `start`, or an open registration's start).
    released: bool,
    closed: bool,
    slots: Vec<Slot>,
    next_id: u64,
}

/// What happened to the entrants, for whoever watches (a later web page): sent on
/// [`Hub::subscribe`]'s channel.
#[derive(Debug, Clone)]
pub enum HubEvent {
    /// An entrant has a new waiting connection.
    Waiting { entrant: usize },
    /// A new entrant registered (`--open`).
    Registered { entrant: usize },
    /// The tournament started.
    Started,
    /// A game of an entrant is over.
    GameOver { entrant: usize },
    /// A game (of anyone) started: [`Hub::games`] has its players.
    GameStarted { game: u64 },
    /// A seat of a game replied: its move (a secret not shown to watchers), or the fault
    /// that lost it the game.
    Moved { game: u64, played: Played },
    /// A game is over and recorded: [`Hub::games`] has its result.
    Finished { game: u64 },
    /// The standings changed ([`Hub::games`]).
    Standings,
    /// The open rooms, or whether friendly games may be asked for, changed
    /// ([`Hub::rooms_view`]).
    Rooms,
    /// No more games for anyone.
    Closed,
}

/// When the tournament starts.
#[derive(Debug, Clone)]
pub struct Start {
    /// Once this many entrants are connected.
    pub when: usize,
    /// At this time at the latest.
    pub at: Option<SystemTime>,
}

/// The registry of entrants and their connections.
pub struct Hub {
    pub game: GameKind,
    /// Fixed once the tournament starts; grows before with `--open` registrations.
    entrants: RwLock<Entrants>,
    pub move_time: Duration,
    pub grace: Duration,
    start: Start,
    state: Mutex<State>,
    changed: watch::Sender<u64>,
    /// Games whose two seats are both remote: their players claim connections together.
    pub(super) claims: Mutex<HashMap<u64, Arc<Claim>>>,
    events: broadcast::Sender<HubEvent>,
    /// Every game so far, for the HTTP API and the event stream.
    pub games: Games,
    /// Friendly games' rooms.
    pub(super) rooms: Rooms,
}

impl Hub {
    pub fn new(
        game: GameKind,
        entrants: Entrants,
        move_time: Duration,
        grace: Duration,
        start: Start,
        rooms: Rooms,
    ) -> Arc<Hub> {
        let slots = entrants.list.iter().map(|_| Slot::default()).collect();
        Arc::new(Hub {
            game,
            entrants: RwLock::new(entrants),
            move_time,
            grace,
            start,
            state: Mutex::new(State {
                slots,
                ..State::default()
            }),
            changed: watch::channel(0).0,
            claims: Mutex::new(HashMap::new()),
            events: broadcast::channel(1024).0,
            games: Games::new(game),
            rooms,
        })
    }

    fn roll(&self) -> RwLockReadGuard<'_, Entrants> {
        self.entrants.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Entrant `entrant`'s name.
    pub fn name(&self, entrant: usize) -> String {
        self.roll()
            .list
            .get(entrant)
            .map(|e| e.name.clone())
            .unwrap_or_default()
    }

    /// Every entrant's name, in order.
    pub fn names(&self) -> Vec<String> {
        self.roll().list.iter().map(|e| e.name.clone()).collect()
    }

    /// The entrant `name` if `token` is its token.
    pub fn check(&self, name: &str, token: &str) -> Option<usize> {
        self.roll().check(name, token)
    }

    /// The entrant whose token is `token`.
    pub fn find(&self, token: &str) -> Option<usize> {
        self.roll().find(token)
    }

    /// Adds a new entrant before the start (`--open`), with `record` run under the lock to
    /// keep it (its table appended to the entrants file); its index, or why not.
    pub fn add_entrant(
        &self,
        entrant: Entrant,
        record: impl FnOnce() -> Result<(), String>,
    ) -> Result<usize, String> {
        let mut state = self.lock();
        if state.started || state.released {
            return Err("registration is closed: the tournament has started".into());
        }
        let mut entrants = self.entrants.write().unwrap_or_else(|e| e.into_inner());
        if entrants.list.iter().any(|e| e.name == entrant.name) {
            return Err(format!("the name `{}` is taken", entrant.name));
        }
        record()?;
        entrants.list.push(entrant);
        state.slots.push(Slot::default());
        let index = entrants.list.len() - 1;
        drop(entrants);
        drop(state);
        self.bump();
        self.tell(HubEvent::Registered { entrant: index });
        Ok(index)
    }

    /// Waits for the start (`--start-when`, `--start-at` or the operator's `start`) of an
    /// open tournament; from then on nobody can register.
    pub async fn close_registration(&self) {
        self.wait_start(self.start.when).await;
    }

    /// Whether the tournament has started.
    pub fn started(&self) -> bool {
        let state = self.lock();
        state.started || state.released
    }

    /// Starts the tournament now, whoever is connected (the operator's `start`).
    pub fn release(&self) {
        self.lock().released = true;
        self.bump();
    }

    /// Learns what happened in a game (any game of the tournament) and announces it.
    pub fn watch(&self, game_id: u64, event: Watch<'_>) {
        for e in self.games.apply(game_id, event) {
            self.tell(e);
        }
    }

    /// The hub's events from now on (a slow reader misses the oldest, it never stalls us).
    pub fn subscribe(&self) -> broadcast::Receiver<HubEvent> {
        self.events.subscribe()
    }

    pub(super) fn tell(&self, event: HubEvent) {
        let _ = self.events.send(event);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Registers a connection of `entrant` that waits for a game. Returns its id and where
    /// its game (or `END`) will come, or why it is refused.
    pub fn hello(&self, entrant: usize) -> Result<(u64, oneshot::Receiver<Assignment>), String> {
        let mut state = self.lock();
        state.next_id += 1;
        let id = state.next_id;
        let closed = state.closed;
        let slot = &mut state.slots[entrant];
        slot.prune();
        slot.came = true;
        let (tx, rx) = oneshot::channel();
        if closed || slot.finished() {
            let _ = tx.send(Assignment::End);
            slot.ended = true;
            return Ok((id, rx));
        }
        // A game whose connection dropped takes the new one first.
        while let Some(orphan) = slot.orphans.pop_front() {
            let (ours, theirs) = link();
            if orphan.send(ours).is_ok() {
                slot.said = Some(None);
                let _ = tx.send(Assignment::Game(theirs));
                return Ok((id, rx));
            }
        }
        if slot.waiting.len() >= MAX_WAITING {
            return Err(format!("too many connections (at most {MAX_WAITING})"));
        }
        if slot.said.is_none() {
            eprintln!("{} connected", self.roll().list[entrant].name);
        }
        slot.said = Some(None);
        slot.waiting.push_back(Waiter { id, tx });
        slot.last_seen = Some(Instant::now());
        drop(state);
        self.bump();
        self.tell(HubEvent::Waiting { entrant });
        Ok((id, rx))
    }

    /// A waiting connection went away.
    pub fn leave(&self, entrant: usize, id: u64) {
        let mut state = self.lock();
        let slot = &mut state.slots[entrant];
        slot.waiting.retain(|w| w.id != id);
        slot.last_seen = Some(Instant::now());
        drop(state);
        self.bump();
    }

    /// Whether the tournament has started, whether it is over, and for each entrant whether
    /// it has a waiting connection and how many games it is playing.
    pub fn status(&self) -> (bool, bool, Vec<(bool, usize)>) {
        let state = self.lock();
        let slots = state.slots.iter().map(|s| (s.connected(), s.active));
        (state.started, state.closed, slots.collect())
    }

    /// Says on the terminal who left: entrants said to be connected that have no connection
    /// nor game, and have been told `END`, or have been away for `away`, or `all` are (the
    /// server closes).
    pub fn say_left(&self, away: Duration, all: bool) {
        let (now, mut state) = (Instant::now(), self.lock());
        for (i, slot) in state.slots.iter_mut().enumerate() {
            slot.prune();
            let here = slot.connected() || slot.active > 0;
            let Some(since) = slot.said.as_mut().filter(|_| !here) else {
                slot.said = slot.said.map(|_| None);
                continue;
            };
            let since = *since.get_or_insert(now);
            if slot.ended || all || now >= since + away {
                slot.said = None;
                eprintln!("{} left", self.roll().list[i].name);
            }
        }
    }

    /// Changes of the entrants' connections and games, as they happen.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Learns how many games each entrant has left, ends the connections of those with none,
    /// and waits for the start: enough entrants connected, or the start time.
    pub async fn begin(&self, left: Vec<usize>) {
        {
            let mut state = self.lock();
            for (slot, n) in state.slots.iter_mut().zip(&left) {
                slot.left = Some(*n);
                if *n == 0 {
                    slot.end();
                }
            }
        }
        let playing = left.iter().filter(|&&n| n > 0).count();
        self.wait_start(self.start.when.min(playing)).await;
        let mut state = self.lock();
        state.started = true;
        let now = Instant::now();
        for slot in &mut state.slots {
            slot.last_seen = Some(now);
        }
        drop(state);
        self.tell(HubEvent::Started);
    }

    /// Waits until `wanted` entrants are connected, the start time, or the operator's
    /// `start`; then no entrant can register any more.
    pub async fn wait_start(&self, wanted: usize) {
        if self.lock().released {
            return;
        }
        let mut changes = self.changed.subscribe();
        let mut told = usize::MAX;
        loop {
            let connected = self.connected();
            if self.lock().released {
                break;
            }
            if connected >= wanted {
                let all = self.field();
                let when = (wanted == self.start.when).then_some(wanted);
                eprintln!("{}", super::terminal::starting(connected, all, when));
                break;
            }
            if connected != told {
                let of = if wanted == usize::MAX {
                    String::new()
                } else {
                    format!(" of {wanted}")
                };
                eprintln!("waiting for entrants: {connected}{of} connected");
                told = connected;
            }
            let until = self.start.at.map(|at| {
                at.duration_since(SystemTime::now())
                    .unwrap_or(Duration::ZERO)
            });
            if until == Some(Duration::ZERO) {
                eprintln!(
                    "the start time has come: starting with {connected} of {} entrants connected",
                    self.roll().list.len()
                );
                break;
            }
            let wait = until.unwrap_or(Duration::from_secs(3600));
            let _ = tokio::time::timeout(wait, changes.changed()).await;
        }
        self.lock().released = true;
    }

    /// Takes one waiting connection of each of `entrants` at once (so that two games never
    /// each hold one of the connections the other waits for). An entrant with no connection
    /// and no game for longer than the network grace is absent: its game is lost by timeout
    /// (before the start only a `friendly` game's, counted from when it was asked for).
    pub(super) async fn acquire(
        &self,
        entrants: &[usize],
        friendly: bool,
    ) -> Vec<Result<Link, Failure>> {
        let mut changes = self.changed.subscribe();
        loop {
            let mut next: Option<Instant> = None;
            {
                let mut state = self.lock();
                let started = state.started || friendly;
                let mut ready = true;
                for &e in entrants {
                    let slot = &mut state.slots[e];
                    slot.prune();
                    if slot.connected() || !started || slot.active > 0 {
                        ready &= slot.connected();
                        continue;
                    }
                    let since = slot.last_seen.unwrap_or_else(Instant::now);
                    let deadline = since + self.grace;
                    if Instant::now() < deadline {
                        ready = false;
                        next = Some(next.map_or(deadline, |n| n.min(deadline)));
                    }
                }
                if ready {
                    let links = entrants
                        .iter()
                        .map(|&e| {
                            let slot = &mut state.slots[e];
                            match slot.take() {
                                Some(link) => {
                                    slot.active += 1;
                                    Ok(link)
                                }
                                None => Err(Failure::Timeout),
                            }
                        })
                        .collect();
                    drop(state);
                    self.bump();
                    return links;
                }
            }
            let wait = next.map_or(Duration::from_secs(1), |n| {
                n.saturating_duration_since(Instant::now())
            });
            let _ = tokio::time::timeout(wait, changes.changed()).await;
        }
    }

    /// A connection to replace one that dropped, within the network grace.
    pub(super) async fn reconnect(&self, entrant: usize) -> Result<Link, Failure> {
        let rx = {
            let mut state = self.lock();
            let slot = &mut state.slots[entrant];
            if let Some(link) = slot.take() {
                return Ok(link);
            }
            let (tx, rx) = oneshot::channel();
            slot.orphans.push_back(tx);
            rx
        };
        match tokio::time::timeout(self.grace, rx).await {
            Ok(Ok(link)) => Ok(link),
            _ => Err(Failure::Crash(format!(
                "the connection dropped and no new one came within {}",
                humantime::format_duration(self.grace)
            ))),
        }
    }

    /// One of `entrant`'s games is over; `held`: it held a connection; `friendly`: a friendly
    /// game, not one of the schedule.
    pub(super) fn game_over(&self, entrant: usize, held: bool, friendly: bool) {
        let mut state = self.lock();
        let slot = &mut state.slots[entrant];
        if held {
            slot.active = slot.active.saturating_sub(1);
        }
        slot.last_seen = Some(Instant::now());
        if friendly {
            slot.friendly = slot.friendly.saturating_sub(1);
        } else if let Some(left) = slot.left.as_mut() {
            *left = left.saturating_sub(1);
        }
        if slot.finished() {
            slot.end();
        }
        drop(state);
        self.bump();
        self.tell(HubEvent::GameOver { entrant });
    }

    /// Reserves one more friendly game for `entrant`, if it may have one.
    pub(super) fn reserve(&self, entrant: usize) -> Result<(), RoomError> {
        let mut state = self.lock();
        let slot = state.slots.get_mut(entrant).ok_or(RoomError::TooMany)?;
        if slot.friendly >= MAX_FRIENDLY {
            return Err(RoomError::TooMany);
        }
        slot.friendly += 1;
        // Its absence from the game it asks for is counted from now.
        slot.last_seen = Some(Instant::now());
        Ok(())
    }

    /// `entrant`'s absence from a game is counted from now (a game of its room was asked for).
    pub(super) fn seen(&self, entrant: usize) {
        if let Some(slot) = self.lock().slots.get_mut(entrant) {
            slot.last_seen = Some(Instant::now());
        }
    }

    /// A friendly game reserved for `entrant` will not be played (its room was closed).
    pub(super) fn friendly_done(&self, entrant: usize) {
        let mut state = self.lock();
        if let Some(slot) = state.slots.get_mut(entrant) {
            slot.friendly = slot.friendly.saturating_sub(1);
            if slot.finished() {
                slot.end();
            }
        }
        drop(state);
        self.bump();
    }

    /// No more games for anyone: waiting connections get `END`.
    pub fn close(&self) {
        self.close_rooms();
        let mut state = self.lock();
        state.closed = true;
        for slot in &mut state.slots {
            slot.end();
        }
        drop(state);
        self.bump();
        self.tell(HubEvent::Closed);
    }
}

#[path = "hub_guests.rs"]
mod guests;
#[path = "hub_late.rs"]
mod late;
#[cfg(test)]
#[path = "hub_tests.rs"]
mod tests;
