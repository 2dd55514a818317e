//! `--open`: anyone may register an entrant name, before the tournament starts or after it
//! (a late entrant, see [`super::late`]) until registration is closed. Each new
//! entrant gets a fresh token (shown once, to them); the server keeps only its hash, in
//! memory and appended to the `--entrants` file so that `arena resume` knows them. Attempts
//! are rate-limited per address and overall.

use std::collections::HashMap;
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::entrants::{check_name, new_token, table, Entrant};
use super::hub::Hub;
use super::late::LateDoor;

/// The most entrants an open tournament takes.
pub const MAX_OPEN_ENTRANTS: usize = 1000;

/// Registrations one address may make at once, and how often after that.
const PER_ADDRESS: (f64, Duration) = (5.0, Duration::from_secs(60));

/// Registrations everyone together may make at once, and how often after that.
const OVERALL: (f64, Duration) = (60.0, Duration::from_secs(1));

/// Addresses remembered at most: when they are all taken, those with an attempt left are
/// forgotten (the overall limit still holds for everyone).
const MAX_ADDRESSES: usize = 10_000;

/// Why a registration was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Too many attempts: try again after this long.
    TooSoon(Duration),
    /// Not a valid name.
    Name(String),
    /// The name is taken, registration is closed, or the tournament is full.
    Conflict(String),
    /// The entrants file cannot be written.
    Failed(String),
}

/// A token bucket: `burst` attempts, refilled one per `every`.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full((burst, _): (f64, Duration), now: Instant) -> Bucket {
        Bucket {
            tokens: burst,
            at: now,
        }
    }

    /// Takes one attempt, or says how long until there is one.
    fn take(&mut self, (burst, every): (f64, Duration), now: Instant) -> Result<(), Duration> {
        let refill = now.duration_since(self.at).as_secs_f64() / every.as_secs_f64();
        self.tokens = (self.tokens + refill).min(burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return Ok(());
        }
        Err(every.mul_f64(1.0 - self.tokens))
    }
}

struct Limits {
    addresses: HashMap<IpAddr, Bucket>,
    overall: Bucket,
}

/// Open registration: where new entrants are recorded, names that are not free, the limits.
pub struct Registry {
    file: PathBuf,
    /// The local bots' names.
    taken: Vec<String>,
    limits: Mutex<Limits>,
    /// Where entrants join after the start.
    late: std::sync::Arc<LateDoor>,
}

impl Registry {
    pub fn new(file: PathBuf, taken: Vec<String>, late: std::sync::Arc<LateDoor>) -> Registry {
        let now = Instant::now();
        Registry {
            file,
            taken,
            late,
            limits: Mutex::new(Limits {
                addresses: HashMap::new(),
                overall: Bucket::full(OVERALL, now),
            }),
        }
    }

    /// Takes one attempt of `from` (a registration, good or bad).
    fn attempt(&self, from: IpAddr, now: Instant) -> Result<(), Refused> {
        let mut limits = self.limits.lock().unwrap_or_else(|e| e.into_inner());
        if limits.addresses.len() >= MAX_ADDRESSES && !limits.addresses.contains_key(&from) {
            limits
                .addresses
                .retain(|_, b| b.take(PER_ADDRESS, now).is_err());
            if limits.addresses.len() >= MAX_ADDRESSES {
                return Err(Refused::TooSoon(OVERALL.1));
            }
        }
        let bucket = (limits.addresses)
            .entry(from)
            .or_insert_with(|| Bucket::full(PER_ADDRESS, now));
        bucket.take(PER_ADDRESS, now).map_err(Refused::TooSoon)?;
        limits.overall.take(OVERALL, now).map_err(Refused::TooSoon)
    }

    /// Whether a new entrant may register now.
    pub fn is_open(&self, hub: &Hub) -> bool {
        self.late.is_open(hub)
    }

    /// Registers `name` for a caller at `from`: the new entrant's token.
    pub fn register(&self, hub: &Hub, from: IpAddr, name: &str) -> Result<String, Refused> {
        let token = new_token().map_err(|e| Refused::Failed(format!("{e:#}")))?;
        self.register_token(hub, from, name, &token)?;
        Ok(token)
    }

    /// Registers `name` with the token `token` the caller chose (the Gomoku routes' first
    /// join of an unknown user: its password as sent), with the same limits.
    pub fn register_token(
        &self,
        hub: &Hub,
        from: IpAddr,
        name: &str,
        token: &str,
    ) -> Result<(), Refused> {
        // Before the count of attempts: one that cannot succeed now says why, not "too many".
        if let Some(why) = self.late.why_not(hub) {
            return Err(Refused::Conflict(why));
        }
        self.attempt(from, Instant::now())?;
        check_name(name).map_err(|e| Refused::Name(e.to_string()))?;
        if self.taken.iter().any(|t| t == name) {
            return Err(Refused::Conflict(format!("the name `{name}` is taken")));
        }
        if hub.names().len() >= MAX_OPEN_ENTRANTS {
            let why = format!("the tournament is full ({MAX_OPEN_ENTRANTS} entrants)");
            return Err(Refused::Conflict(why));
        }
        let text = table(name, token);
        let entrant = Entrant::from_table(&text).map_err(|e| Refused::Failed(format!("{e:#}")))?;
        let record = || {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.file)
                .and_then(|mut f| f.write_all(text.as_bytes()).map(|()| f))
                .map_err(|e| format!("cannot write `{}`: {e}", self.file.display()))?;
            file.flush()
                .and_then(|()| file.sync_data())
                .map_err(|e| format!("cannot write `{}`: {e}", self.file.display()))
        };
        self.late.admit(hub, entrant, record).map_err(|why| {
            if why.starts_with("cannot write") {
                Refused::Failed(why)
            } else {
                Refused::Conflict(why)
            }
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_one_per_period() {
        let now = Instant::now();
        let limit = (2.0, Duration::from_secs(10));
        let mut b = Bucket::full(limit, now);
        assert!(b.take(limit, now).is_ok());
        assert!(b.take(limit, now).is_ok());
        let wait = b.take(limit, now).unwrap_err();
        assert!(wait > Duration::from_secs(9) && wait <= Duration::from_secs(10));
        assert!(b.take(limit, now + Duration::from_secs(5)).is_err());
        assert!(b.take(limit, now + Duration::from_secs(11)).is_ok());
    }
}
