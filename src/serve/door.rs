//! The door of one remote seat of a game ([`ServeDoor`]): where a remote player of `arena
//! serve` gets its connections from the [`Hub`]. The two seats of a game between two remote
//! entrants claim their connections together ([`Claim`]), so that two games never each hold
//! one of the connections the other waits for.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::player::remote::{Door, Link, Pending};
use crate::player::Failure;

use super::hub::Hub;
use super::rooms::is_friendly;

impl Hub {
    /// The door of one remote seat of a game. `pair`: both seats' entrants when both are
    /// remote (the seats' order), so that their connections are claimed together.
    pub fn door(
        self: &Arc<Self>,
        game_id: u64,
        entrant: usize,
        pair: Option<[usize; 2]>,
    ) -> ServeDoor {
        let (claim, index) = match pair {
            None => (Arc::new(Claim::new(vec![entrant])), 0),
            Some(pair) => {
                let mut claims = self.claims.lock().unwrap_or_else(|e| e.into_inner());
                let claim = match claims.remove(&game_id) {
                    Some(claim) => claim,
                    None => {
                        let claim = Arc::new(Claim::new(pair.to_vec()));
                        claims.insert(game_id, Arc::clone(&claim));
                        claim
                    }
                };
                (claim, if pair[0] == entrant { 0 } else { 1 })
            }
        };
        ServeDoor {
            hub: Arc::clone(self),
            claim,
            index,
            entrant,
            friendly: is_friendly(game_id),
            over: AtomicBool::new(false),
        }
    }
}

/// One seat's connection, or why it has none.
type Claimed = Result<Link, Failure>;

/// The connections of one game's remote seats, claimed together.
pub(super) struct Claim {
    entrants: Vec<usize>,
    links: tokio::sync::Mutex<Option<Vec<Option<Claimed>>>>,
    held: Vec<AtomicBool>,
}

impl Claim {
    pub(super) fn new(entrants: Vec<usize>) -> Claim {
        let held = entrants.iter().map(|_| AtomicBool::new(false)).collect();
        Claim {
            entrants,
            links: tokio::sync::Mutex::new(None),
            held,
        }
    }
}

/// Where a remote player of `arena serve` gets its connections.
pub struct ServeDoor {
    hub: Arc<Hub>,
    claim: Arc<Claim>,
    index: usize,
    entrant: usize,
    /// A friendly game, not one of the schedule.
    friendly: bool,
    over: AtomicBool,
}

impl Door for ServeDoor {
    fn connect(&self, again: bool) -> Pending<'_, Result<Link, Failure>> {
        Box::pin(async move {
            if again {
                return self.hub.reconnect(self.entrant).await;
            }
            let mut links = self.claim.links.lock().await;
            if links.is_none() {
                let got = self.hub.acquire(&self.claim.entrants, self.friendly).await;
                for (held, link) in self.claim.held.iter().zip(&got) {
                    held.store(link.is_ok(), Ordering::SeqCst);
                }
                *links = Some(got.into_iter().map(Some).collect());
            }
            let mine = links.as_mut().and_then(|l| l[self.index].take());
            mine.unwrap_or_else(|| Err(Failure::Crash("the game's connection is gone".into())))
        })
    }

    fn done(&self) {
        if !self.over.swap(true, Ordering::SeqCst) {
            let held = self.claim.held[self.index].load(Ordering::SeqCst);
            self.hub.game_over(self.entrant, held, self.friendly);
        }
    }
}
