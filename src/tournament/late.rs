//! Late entrants: a bot that joins a tournament while it plays (a registration of
//! `arena serve` after the start) gets its pairings appended to the running schedule, against
//! the whole field in a round robin and against the references in a gauntlet, until the door
//! is closed (by the operator, at a set time, or when the schedule is over).

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc;

use crate::config::RunConfig;
use crate::results::games::GameRecord;
use crate::schedule::Pairing;

/// The most bots that may join one tournament late.
pub const MAX_LATE: usize = 1000;

/// The door through which late entrants join a running schedule: it hands their pairings to
/// the runner.
pub struct Late {
    state: Mutex<State>,
}

struct State {
    /// Where the pairings go; `None` once the door is closed.
    tx: Option<mpsc::UnboundedSender<Vec<Pairing>>>,
    /// The local bots' count: a remote entrant's bot index is this plus its index among the
    /// entrants (guests of `arena serve`'s terminal take entrant indices too).
    first_remote: usize,
    /// The bots of the tournament's field so far, late ones included.
    field: Vec<usize>,
    /// How many bots joined late so far, and the most that may.
    joined: usize,
    most: usize,
    /// A gauntlet's references (a late bot plays only them); empty for a round robin.
    references: Vec<usize>,
    rounds: u32,
    games: u32,
    /// The last game id given.
    last_id: u64,
}

/// Why a bot cannot join late.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The door is closed: the schedule is over, or it was closed.
    Closed,
    /// [`MAX_LATE`] bots have joined already.
    Full,
}

impl Late {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a bot may still join.
    pub fn is_open(&self) -> bool {
        self.lock().tx.as_ref().is_some_and(|tx| !tx.is_closed())
    }

    /// Closes the door: no bot joins any more (the pairings already given are played).
    pub fn close(&self) {
        self.lock().tx = None;
    }

    /// Adds the remote entrant `entrant` (its index among the entrants) and hands its
    /// pairings to the runner: its bot index and them, or why it cannot join.
    pub fn admit(&self, entrant: usize) -> Result<(usize, Vec<Pairing>), Refused> {
        let mut state = self.lock();
        let Some(tx) = state.tx.clone().filter(|tx| !tx.is_closed()) else {
            return Err(Refused::Closed);
        };
        if state.joined >= state.most {
            return Err(Refused::Full);
        }
        let bot = state.first_remote + entrant;
        let opponents: Vec<usize> = if state.references.is_empty() {
            state.field.clone()
        } else {
            state.references.clone()
        };
        let pairings = appended(bot, &opponents, state.rounds, state.games, state.last_id);
        tx.send(pairings.clone()).map_err(|_| Refused::Closed)?;
        state.field.push(bot);
        state.joined += 1;
        state.last_id += pairings.len() as u64;
        Ok((bot, pairings))
    }
}

/// The door for late entrants of a run that is not a shard, and the runner's end of it.
/// `names` are the run's bots in schedule order (the `first_remote` local bots, then the
/// remote entrants), `pending` and `played` its games (new game ids follow theirs).
pub fn open(
    config: &RunConfig,
    first_remote: usize,
    names: &[&str],
    references: &[String],
    pending: &[Pairing],
    played: &[GameRecord],
) -> Option<(Arc<Late>, mpsc::UnboundedReceiver<Vec<Pairing>>)> {
    if config.tournament.shard.is_some() {
        // Another shard's game ids are not known here: a late game's id could be taken.
        return None;
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let ids = pending.iter().map(|p| p.game_id);
    let late = Arc::new(Late {
        state: Mutex::new(State {
            tx: Some(tx),
            first_remote,
            field: (0..names.len()).collect(),
            joined: 0,
            most: MAX_LATE,
            references: (0..names.len())
                .filter(|&i| references.iter().any(|r| r == names[i]))
                .collect(),
            rounds: config.tournament.rounds,
            games: config.games_per_pairing(),
            last_id: ids
                .chain(played.iter().map(|r| r.game_id))
                .max()
                .unwrap_or(0),
        }),
    });
    Some((late, rx))
}

/// The games of bot `bot` joining late against each of `opponents`: `games` per pairing in
/// each of `rounds` rounds, seats alternating as in the schedule, numbered after `last_id`.
///
/// This is the one place appended games get their identity: each game's seed is derived by
/// the runner from the two names and its index in the pairing, as every scheduled game's is.
fn appended(
    bot: usize,
    opponents: &[usize],
    rounds: u32,
    games: u32,
    last_id: u64,
) -> Vec<Pairing> {
    let mut pairings = Vec::new();
    let mut game_id = last_id;
    for round in 1..=rounds {
        for (k, &other) in opponents.iter().enumerate() {
            for g in 0..games {
                game_id += 1;
                // The late bot moves first against every other opponent, and seats swap
                // between a pairing's games and from one round to the next.
                let first = (k as u32 + g + round - 1).is_multiple_of(2);
                pairings.push(Pairing {
                    round,
                    game_id,
                    seats: if first { [bot, other] } else { [other, bot] },
                    index: crate::schedule::game_index(round, g, games),
                });
            }
        }
    }
    pairings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn door(bots: usize, references: Vec<usize>) -> (Late, mpsc::UnboundedReceiver<Vec<Pairing>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let state = State {
            tx: Some(tx),
            // Two local bots, then the entrants.
            first_remote: 2,
            field: (0..bots).collect(),
            joined: 0,
            most: 2,
            references,
            rounds: 1,
            games: 1,
            last_id: 4,
        };
        let late = Late {
            state: Mutex::new(state),
        };
        (late, rx)
    }

    #[test]
    fn a_late_candidate_of_a_gauntlet_plays_the_references_only_and_the_door_closes() {
        let (late, mut rx) = door(4, vec![0, 1]);
        let (bot, games) = late.admit(2).unwrap();
        assert_eq!(bot, 4);
        let opponents: Vec<usize> = (games.iter())
            .map(|p| p.seats[0] + p.seats[1] - bot)
            .collect();
        assert_eq!(opponents, [0, 1]);
        assert_eq!(rx.try_recv().unwrap(), games, "the runner gets them");
        let (next, games) = late.admit(3).unwrap();
        assert_eq!(
            (next, games[0].game_id),
            (5, 7),
            "ids follow the last given"
        );
        assert_eq!(late.admit(4), Err(Refused::Full));
        late.close();
        assert!(!late.is_open());
        assert_eq!(late.admit(4), Err(Refused::Closed));
    }

    #[test]
    fn a_late_bot_of_a_round_robin_plays_everyone_before_it() {
        let (late, _rx) = door(3, Vec::new());
        let (_, games) = late.admit(1).unwrap();
        assert_eq!(games.len(), 3);
        // Entrant 2 is a guest of the terminal (friendly games only): not an opponent.
        let (bot, games) = late.admit(3).unwrap();
        assert_eq!(bot, 5);
        let mut opponents: Vec<usize> = (games.iter())
            .map(|p| p.seats[0] + p.seats[1] - bot)
            .collect();
        opponents.sort_unstable();
        assert_eq!(
            opponents,
            [0, 1, 2, 3],
            "the earlier late bot included, the guest not"
        );
    }

    #[test]
    fn a_late_bot_plays_each_opponent_with_seats_swapping_after_the_last_game_id() {
        let p = appended(3, &[0, 1, 2], 2, 2, 12);
        assert_eq!(p.len(), 12);
        assert_eq!(
            p.iter().map(|p| p.game_id).collect::<Vec<_>>(),
            (13..=24).collect::<Vec<_>>()
        );
        for other in 0..3 {
            let games: Vec<_> = p.iter().filter(|p| p.seats.contains(&other)).collect();
            assert_eq!(games.len(), 4);
            let first = games.iter().filter(|p| p.seats[0] == 3).count();
            assert_eq!(first, 2, "half its games against {other} first");
        }
        assert!(p.iter().all(|p| p.seats.contains(&3)));
    }
}
