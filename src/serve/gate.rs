//! The limits of the front door, in one place: how many connections may be in each stage of
//! their handshake, in all and from one address, and how long each stage may take. A
//! connection first waits for its first bytes ([`Stage::FirstBytes`]: counted once it has
//! been silent for a moment, most clients speak at once), then, once they tell its protocol,
//! for its `HELLO` line ([`Stage::Lines`]) or its first request's headers ([`Stage::Http`]):
//! each stage has a pool of its own, so a flood of one door leaves the other open, and one
//! address can hold only a few places of each. The terminal port (`--terminal`) has a gate
//! of its own, whose [`Stage::Dialog`] places are held for a person's whole session.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a new connection may take to send its first bytes.
pub const FIRST_BYTES_TIME: Duration = Duration::from_secs(3);

/// How long a line-protocol client may take to send its `HELLO` line, from its first bytes.
pub const HELLO_TIME: Duration = Duration::from_secs(10);

/// How long an HTTP client may take to send a request's headers (slowloris), the first
/// request's included.
pub const HEADER_TIME: Duration = Duration::from_secs(10);

/// How long a person at the terminal port may take to answer a prompt outside a game.
pub const DIALOG_TIME: Duration = Duration::from_secs(60);

/// The most connections in one stage of their handshake at once, from everyone.
pub const MAX_IN_STAGE: usize = 256;

/// The most connections in one stage of their handshake at once from one address (an IPv6
/// `/64`); enough for a class behind one NAT address, whose handshakes take milliseconds.
pub const MAX_PER_ADDRESS: usize = 32;

/// A stage of a connection's handshake; each has its own pool of places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Accepted, nothing received yet.
    FirstBytes,
    /// The line protocol, until its `HELLO` line.
    Lines,
    /// HTTP, until its first request's headers.
    Http,
    /// A person's whole session on the terminal port (`--terminal`): each of its prompts
    /// has its own time ([`DIALOG_TIME`]).
    Dialog,
}

impl Stage {
    /// How long a connection may stay in this stage.
    pub const fn time(self) -> Duration {
        match self {
            Stage::FirstBytes => FIRST_BYTES_TIME,
            Stage::Lines => HELLO_TIME,
            Stage::Http => HEADER_TIME,
            Stage::Dialog => DIALOG_TIME,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Why a connection was turned away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The stage's pool is full.
    Full,
    /// Its address holds [`MAX_PER_ADDRESS`] places of the stage already.
    Address,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Full => write!(f, "the server is busy: try again later"),
            Refused::Address => write!(
                f,
                "the server is busy: too many connections from your address in their handshake \
                 (at most {MAX_PER_ADDRESS}): try again later"
            ),
        }
    }
}

#[derive(Default)]
struct Pool {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// The pools of every stage, shared by every connection of a listener.
#[derive(Clone, Default)]
pub struct Gate {
    pools: Arc<[Mutex<Pool>; 4]>,
}

impl Gate {
    /// Takes a place in `stage` for a connection from `peer`, or says why not.
    pub fn enter(&self, stage: Stage, peer: IpAddr) -> Result<Pass, Refused> {
        let key = address(peer);
        let mut pool = self.pool(stage);
        let held = pool.by_address.get(&key).copied().unwrap_or(0);
        if held >= MAX_PER_ADDRESS {
            return Err(Refused::Address);
        }
        if pool.total >= MAX_IN_STAGE {
            return Err(Refused::Full);
        }
        pool.total += 1;
        pool.by_address.insert(key, held + 1);
        Ok(Pass {
            gate: self.clone(),
            stage,
            key,
        })
    }

    /// How many places of `stage` are taken (from `peer`'s address, if given).
    pub fn taken(&self, stage: Stage, peer: Option<IpAddr>) -> usize {
        let pool = self.pool(stage);
        match peer {
            Some(p) => pool.by_address.get(&address(p)).copied().unwrap_or(0),
            None => pool.total,
        }
    }

    fn pool(&self, stage: Stage) -> std::sync::MutexGuard<'_, Pool> {
        self.pools[stage.index()]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// A connection's place in a stage; dropping it gives the place back.
pub struct Pass {
    gate: Gate,
    stage: Stage,
    key: IpAddr,
}

impl Drop for Pass {
    fn drop(&mut self) {
        let mut pool = self.gate.pool(self.stage);
        pool.total = pool.total.saturating_sub(1);
        if let Some(n) = pool.by_address.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                pool.by_address.remove(&self.key);
            }
        }
    }
}

/// The address a peer is counted under: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its
/// `/64` (one host usually has a whole `/64`).
fn address(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(_) => peer,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(prefix.into())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn one_address_holds_at_most_its_share_of_a_stage_and_gets_it_back_issue_17() {
        let gate = Gate::default();
        let held: Vec<Pass> = (0..MAX_PER_ADDRESS)
            .map(|_| gate.enter(Stage::FirstBytes, ip("10.0.0.1")).unwrap())
            .collect();
        let refused = gate.enter(Stage::FirstBytes, ip("10.0.0.1")).err();
        assert_eq!(refused, Some(Refused::Address));
        // Another address, and the same address in another stage, are not affected.
        assert!(gate.enter(Stage::FirstBytes, ip("10.0.0.2")).is_ok());
        let lines = gate.enter(Stage::Lines, ip("10.0.0.1")).unwrap();
        assert_eq!(gate.taken(Stage::Lines, None), 1);
        drop(held);
        assert_eq!(gate.taken(Stage::FirstBytes, Some(ip("10.0.0.1"))), 0);
        assert!(gate.enter(Stage::FirstBytes, ip("10.0.0.1")).is_ok());
        drop(lines);
        assert_eq!(gate.taken(Stage::Lines, None), 0);
    }

    #[test]
    fn a_stage_is_full_at_its_total_whatever_the_addresses_issue_17() {
        let gate = Gate::default();
        let held: Vec<Pass> = (0..MAX_IN_STAGE)
            .map(|i| {
                let peer = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i as u32));
                gate.enter(Stage::Lines, peer).unwrap()
            })
            .collect();
        assert_eq!(
            gate.enter(Stage::Lines, ip("10.9.9.9")).err(),
            Some(Refused::Full)
        );
        assert!(gate.enter(Stage::Http, ip("10.9.9.9")).is_ok());
        drop(held);
        assert!(gate.enter(Stage::Lines, ip("10.9.9.9")).is_ok());
    }

    #[test]
    fn an_ipv6_host_is_counted_by_its_slash_64() {
        assert_eq!(address(ip("2001:db8::1")), address(ip("2001:db8::ffff:2")));
        assert_ne!(address(ip("2001:db8::1")), address(ip("2001:db8:0:1::1")));
        assert_eq!(address(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
    }
}
