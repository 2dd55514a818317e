//! Entrants who join the hub after the tournament started (`--open` registrations and
//! `reload`ed entrants files): their slot, with the games they were given to play, and the
//! games their remote opponents now have left.

use tokio::time::Instant;

use crate::schedule::Pairing;

use super::{Entrant, Hub, HubEvent, Slot};

impl Hub {
    /// Adds `entrant` to a started tournament: `record` keeps it (run under the lock, like
    /// [`Hub::add_entrant`]'s), then `admit` gives the entrant of that index its games (its
    /// bot index and them); its index among the entrants, or why not.
    pub(in crate::serve) fn add_late(
        &self,
        entrant: Entrant,
        record: impl FnOnce() -> Result<(), String>,
        admit: impl FnOnce(usize) -> Result<(usize, Vec<Pairing>), String>,
    ) -> Result<usize, String> {
        let mut state = self.lock();
        let mut entrants = self.entrants.write().unwrap_or_else(|e| e.into_inner());
        if entrants.list.iter().any(|e| e.name == entrant.name) {
            return Err(format!("the name `{}` is taken", entrant.name));
        }
        record()?;
        let index = entrants.list.len();
        let (bot, games) = admit(index)?;
        // Entrants are the bots after the local ones, in order.
        let first = bot - index;
        entrants.list.push(entrant);
        state.slots.push(Slot {
            left: Some(0),
            // Its absence from its first game is counted from now.
            last_seen: Some(Instant::now()),
            ..Slot::default()
        });
        for p in &games {
            for s in p.seats.iter().filter_map(|s| s.checked_sub(first)) {
                if let Some(left) = state.slots[s].left.as_mut() {
                    *left += 1;
                }
            }
        }
        drop(entrants);
        drop(state);
        self.bump();
        self.tell(HubEvent::Registered { entrant: index });
        Ok(index)
    }
}
