//! Who is at the terminal port (`--terminal`): each name a person gives is a guest of the
//! hub ([`Hub::add_guest`]), a seat after the entrants' that the tournament's runner knows by
//! the name given ([`Guests::name`]). A name keeps its seat for the server's life, so that a
//! person who comes back plays under the same seat, and one name is used by one person at a
//! time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::entrants::check_name;
use super::hub::Hub;

/// The most names the terminal port takes in one run of the server.
pub const MAX_GUESTS: usize = 1024;

/// The terminal's guests.
pub struct Guests {
    /// Each guest's index among the hub's entrants and name, in the order they came (late
    /// entrants may come between two guests, so the indices need not follow each other).
    names: Box<[OnceLock<(usize, String)>]>,
    /// Each name's guest number (its place in `names`), and whether a person is using it.
    seats: Mutex<HashMap<String, (usize, bool)>>,
}

impl Default for Guests {
    fn default() -> Guests {
        Guests {
            names: (0..MAX_GUESTS).map(|_| OnceLock::new()).collect(),
            seats: Mutex::new(HashMap::new()),
        }
    }
}

/// A person's seat, given back when dropped.
pub struct Seat {
    guests: Arc<Guests>,
    name: String,
    /// Its index among the hub's entrants.
    pub entrant: usize,
}

impl Drop for Seat {
    fn drop(&mut self) {
        if let Some(seat) = self.guests.lock().get_mut(&self.name) {
            seat.1 = false;
        }
    }
}

impl Guests {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (usize, bool)>> {
        self.seats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The name of the guest that is the hub's entrant `entrant`, if it is one.
    pub fn name(&self, entrant: usize) -> Option<&str> {
        (self.names.iter().map_while(OnceLock::get))
            .find(|(e, _)| *e == entrant)
            .map(|(_, name)| name.as_str())
    }

    /// The seat of the person who gives `name` now, or why not (the name is not one, or is
    /// taken). Only once the friendly games are open (`hub.rooms_view().open`).
    pub fn seat(self: &Arc<Self>, hub: &Hub, name: &str) -> Result<Seat, String> {
        check_name(name).map_err(|e| e.to_string())?;
        let view = hub.rooms_view();
        if view.bots.iter().any(|b| b == name) {
            return Err(format!("the name `{name}` is a bot's: choose another"));
        }
        let mut seats = self.lock();
        let k = match seats.get_mut(name) {
            Some((_, true)) => {
                return Err(format!("the name `{name}` is in use: choose another"));
            }
            Some((k, used)) => {
                *used = true;
                *k
            }
            None => {
                if !view.open {
                    return Err(
                        "no games now: the tournament's bots are not ready, or it is over".into(),
                    );
                }
                let k = seats.len();
                if k >= MAX_GUESTS {
                    return Err(format!(
                        "the terminal has had its {MAX_GUESTS} names: no more"
                    ));
                }
                let entrant = hub
                    .add_guest(name)
                    .map_err(|e| format!("{e}: choose another"))?;
                let _ = self.names[k].set((entrant, name.to_string()));
                seats.insert(name.to_string(), (k, true));
                k
            }
        };
        let entrant = self.names[k]
            .get()
            .expect("set when the guest first came")
            .0;
        Ok(Seat {
            guests: Arc::clone(self),
            name: name.to_string(),
            entrant,
        })
    }
}
