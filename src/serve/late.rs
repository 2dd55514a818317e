//! Entrants who join a served tournament after its start: a registration (`--open`) or an
//! entrant added to the `--entrants` file and taken in by the operator's `reload`. Their
//! games are appended to the running schedule until the operator's `close`, the
//! `--close-at` time, or the schedule's end.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use anyhow::Result;

use crate::tournament::late::{Late, Refused};

use super::entrants::{Entrant, Entrants};
use super::hub::Hub;

/// The server's side of the door for late entrants: the running tournament's [`Late`] once
/// it has one, and whether the operator or the clock closed registration.
pub struct LateDoor {
    door: OnceLock<Arc<Late>>,
    /// Why registration is closed, once the operator or the clock closed it.
    closed: Mutex<Option<String>>,
    /// The `--entrants` file that `reload` reads again.
    entrants: PathBuf,
    /// The local bots' names, which no entrant may take.
    locals: Vec<String>,
}

impl LateDoor {
    /// A door not yet open (the tournament has not started), for `--entrants FILE` beside
    /// the local bots `locals`.
    pub fn new(entrants: PathBuf, locals: Vec<String>) -> Arc<LateDoor> {
        Arc::new(LateDoor {
            door: OnceLock::new(),
            closed: Mutex::new(None),
            entrants,
            locals,
        })
    }

    /// The running tournament's door (closed at once if registration was closed before).
    pub fn open(&self, door: Arc<Late>) {
        if self.closed().is_some() {
            door.close();
        }
        let _ = self.door.set(door);
    }

    /// Why registration was closed by the operator or the clock, if it was.
    pub fn closed(&self) -> Option<String> {
        self.closed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Closes registration for good (`why` completes "registration is closed: "); whether it
    /// was open.
    pub fn close(&self, why: &str) -> bool {
        let mut closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
        if closed.is_some() {
            return false;
        }
        *closed = Some(format!("registration is closed: {why}"));
        drop(closed);
        if let Some(door) = self.door.get() {
            door.close();
        }
        true
    }

    /// Closes registration at `at` (`--close-at`, given as `text`).
    pub fn close_at(self: &Arc<Self>, at: SystemTime, text: &str) {
        let door = Arc::clone(self);
        let text = text.to_string();
        tokio::spawn(async move {
            let wait = at.duration_since(SystemTime::now()).unwrap_or_default();
            tokio::time::sleep(wait).await;
            if door.close(&format!("the closing time `{text}` has passed")) {
                eprintln!("registration is closed: `--close-at {text}` has come");
            }
        });
    }

    /// Whether an entrant may join now: before the start, or after it while the door is open.
    pub fn is_open(&self, hub: &Hub) -> bool {
        self.why_not(hub).is_none()
    }

    /// Why no entrant can join now, if none can: registration closed, or the started
    /// tournament not (or no longer) taking entrants.
    pub fn why_not(&self, hub: &Hub) -> Option<String> {
        match hub.started() {
            false => self.closed(),
            true => self.refusal(),
        }
    }

    /// Why an entrant cannot join the started tournament now, if it cannot.
    fn refusal(&self) -> Option<String> {
        if let Some(why) = self.closed() {
            return Some(why);
        }
        match self.door.get() {
            None => Some("the tournament is starting: try again in a few seconds".to_string()),
            Some(door) if !door.is_open() => Some(over().to_string()),
            Some(_) => None,
        }
    }

    /// Adds `entrant` to the hub, `record`ing it: before the start as any entrant, after it
    /// with its games appended to the schedule. Its index, or why not.
    pub fn admit(
        &self,
        hub: &Hub,
        entrant: Entrant,
        record: impl FnOnce() -> Result<(), String>,
    ) -> Result<usize, String> {
        if let Some(why) = self.closed() {
            return Err(why);
        }
        if !hub.started() {
            return hub.add_entrant(entrant, record);
        }
        if let Some(why) = self.refusal() {
            return Err(why);
        }
        let door = self.door.get().expect("the refusal says the door is open");
        let name = entrant.name.clone();
        let admit = |index| match door.admit(index) {
            Ok(games) => Ok(games),
            Err(Refused::Closed) => Err(over().to_string()),
            Err(Refused::Full) => Err("the tournament is full".to_string()),
        };
        let index = hub.add_late(entrant, record, admit)?;
        eprintln!("`{name}` joined the running tournament: its games are appended");
        Ok(index)
    }

    /// The operator's `reload`: takes in the entrants added to the `--entrants` file since it
    /// was read; says who joined, and who could not.
    pub fn reload(&self, hub: &Hub) {
        let listed = match Entrants::read(&self.entrants) {
            Ok(listed) => listed,
            Err(e) => return eprintln!("cannot reload the entrants: {e:#}"),
        };
        let known = hub.names();
        let new: Vec<Entrant> = (listed.list.into_iter())
            .filter(|e| !known.contains(&e.name))
            .collect();
        if new.is_empty() {
            eprintln!("no new entrant in `{}`", self.entrants.display());
        }
        for entrant in new {
            let name = entrant.name.clone();
            if self.locals.contains(&name) {
                eprintln!("entrant `{name}` cannot join: it has the name of a local bot");
                continue;
            }
            match self.admit(hub, entrant, || Ok(())) {
                Ok(_) => eprintln!(
                    "entrant `{name}` taken in from `{}`",
                    self.entrants.display()
                ),
                Err(why) => eprintln!("entrant `{name}` cannot join: {why}"),
            }
        }
    }
}

/// Why nobody joins a tournament whose schedule is over.
fn over() -> &'static str {
    "registration is closed: the tournament is over"
}
