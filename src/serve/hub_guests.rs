//! The hub's guests: people at the terminal port (`--terminal`) who play friendly games
//! under the name they give, as entrants outside the tournament's field: added once its
//! field is fixed, never in its schedule, never counted for its start.

use super::super::entrants::{new_token, table, Entrant};
use super::{Hub, Slot};

impl Hub {
    /// How many entrants of the tournament's field (guests left out) have a waiting
    /// connection.
    pub fn connected(&self) -> usize {
        let state = self.lock();
        state
            .slots
            .iter()
            .filter(|s| !s.guest && s.connected())
            .count()
    }

    /// The tournament's field: its entrants, guests left out.
    pub(super) fn field(&self) -> usize {
        self.lock().slots.iter().filter(|s| !s.guest).count()
    }

    /// Whether an entrant of the field that came has not yet been told `END` (it may still
    /// be asking for its last game's result, see `arena connect`).
    pub fn awaiting_end(&self) -> bool {
        let state = self.lock();
        state.slots.iter().any(|s| s.came && !s.ended && !s.guest)
    }

    /// Adds the guest `name` as an entrant with friendly games only; its index. Its token is
    /// random and never shown: nobody can log in under its name elsewhere.
    pub fn add_guest(&self, name: &str) -> Result<usize, String> {
        let token = new_token().map_err(|e| format!("{e:#}"))?;
        let entrant = Entrant::from_table(&table(name, &token)).map_err(|e| format!("{e:#}"))?;
        let mut state = self.lock();
        let mut entrants = self.entrants.write().unwrap_or_else(|e| e.into_inner());
        if entrants.list.iter().any(|e| e.name == name) {
            return Err(format!("the name `{name}` is taken"));
        }
        entrants.list.push(entrant);
        state.slots.push(Slot {
            left: Some(0),
            guest: true,
            ..Slot::default()
        });
        Ok(entrants.list.len() - 1)
    }
}
