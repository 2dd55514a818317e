//! The namespace holders of a bot's jail between its games ([`Pool`]): a game takes an idle
//! one (or starts one) and gives it back when it ends ([`Lease`]), to be reset for the next
//! game (see `reset.rs`). Starting a holder costs milliseconds of kernel time; a reset, a
//! fraction of one.
//!
//! A holder can also be started ahead of a game ([`Pool::prewarm`]), on another thread while
//! the games before it are played, so a bot's first game does not wait for its jail: in a field
//! of a thousand bots, where most games meet a bot whose jail has no idle holder, that start
//! is most of what a game costs beyond its bots' own work.
//!
//! Idle holders are bounded twice: a few per jail, and a few dozen per run, so that a field
//! of a thousand bots keeps its processes and descriptors following the games being played,
//! not the bots registered. When the run's bound is reached, the idle holder given back
//! longest ago (in any jail) ends for the new one.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};

use super::landlock::Rules;
use super::namespace::Holder;
use super::view::Plan;

/// The most idle holders one jail keeps.
const JAIL_IDLE_MAX: usize = 2;

/// The most idle holders of all jails together (each holds a process and four descriptors,
/// and, with cgroup v2, its last game's cgroup with four files open).
const RUN_IDLE_MAX: usize = 32;

/// The most holders started ahead of their games, in all jails together: a holder started for
/// a game that another took first waits for the bot's next game, so they are bounded too.
const RUN_READY_MAX: usize = 8;

/// Idle holders of all jails together.
static IDLE: AtomicUsize = AtomicUsize::new(0);

/// Holders started ahead of their games, in all jails together.
static READY: AtomicUsize = AtomicUsize::new(0);

/// The pools that were given a holder back, the least recent first (entries may be stale:
/// a pool that is gone or has no idle holder left is skipped).
static RECENT: Mutex<Vec<Weak<Pool>>> = Mutex::new(Vec::new());

/// The holders of one bot's jail between its games; they end with the pool.
#[derive(Debug, Default)]
pub struct Pool {
    /// Holders given back, the oldest first, their reset asked for (and usually done).
    idle: Mutex<Vec<Holder>>,
    /// A holder started ahead of the bot's next game, and whether one is being started.
    ahead: Mutex<Ahead>,
    /// Signalled when a holder started ahead is ready (or failed).
    started: Condvar,
}

/// The holder a [`Pool`] starts ahead of a game.
#[derive(Debug, Default)]
struct Ahead {
    ready: Option<Holder>,
    starting: bool,
}

impl Pool {
    /// Whether a holder started now would be used by the bot's next game: it has none idle,
    /// none started ahead, and the run's bound on holders started ahead is not reached.
    pub fn wants_one_ahead(&self) -> bool {
        let ahead = self.ahead.lock().unwrap_or_else(|e| e.into_inner());
        self.has_none_for_next(&ahead) && READY.load(Ordering::Relaxed) < RUN_READY_MAX
    }

    /// Whether the bot's next game would start a holder: none is idle, started ahead, or
    /// being started (`ahead` is this pool's, locked).
    fn has_none_for_next(&self, ahead: &Ahead) -> bool {
        !ahead.starting
            && ahead.ready.is_none()
            && self
                .idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_empty()
    }

    /// Starts a holder for the bot's next game, unless it [does not want one](Self::wants_one_ahead).
    /// Blocking (the start takes milliseconds): call it off the games' threads.
    pub fn prewarm(&self, plan: &Plan, ready: impl FnOnce(&Holder)) {
        {
            let mut ahead = self.ahead.lock().unwrap_or_else(|e| e.into_inner());
            if !self.has_none_for_next(&ahead) {
                return;
            }
            if READY.fetch_add(1, Ordering::Relaxed) >= RUN_READY_MAX {
                READY.fetch_sub(1, Ordering::Relaxed);
                return;
            }
            ahead.starting = true;
        }
        let holder = Holder::start(plan).ok();
        if let Some(holder) = &holder {
            ready(holder);
        }
        let mut ahead = self.ahead.lock().unwrap_or_else(|e| e.into_inner());
        ahead.starting = false;
        if holder.is_none() {
            READY.fetch_sub(1, Ordering::Relaxed);
        }
        ahead.ready = holder;
        self.started.notify_all();
    }

    /// The holder started ahead, waiting for it if it is being started (a start under way is
    /// nearer its end than a new one would be).
    fn take_ahead(&self) -> Option<Holder> {
        let mut ahead = self.ahead.lock().unwrap_or_else(|e| e.into_inner());
        while ahead.starting {
            ahead = self.started.wait(ahead).unwrap_or_else(|e| e.into_inner());
        }
        let holder = ahead.ready.take();
        if holder.is_some() {
            READY.fetch_sub(1, Ordering::Relaxed);
        }
        holder
    }

    /// A holder for one game of the bot whose view is `plan`: the idle one given back last,
    /// if its reset succeeded, else the one started ahead, or a new one. Holders that fail
    /// their reset end, never reused.
    pub fn take(self: &Arc<Self>, plan: &Plan) -> io::Result<Lease> {
        let holder = loop {
            let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            match idle {
                Some(holder) => {
                    IDLE.fetch_sub(1, Ordering::Relaxed);
                    if holder.reset_done() && holder.clear_tmp(plan) {
                        break holder;
                    }
                }
                None => match self.take_ahead() {
                    Some(holder) => break holder,
                    None => break Holder::start(plan)?,
                },
            }
        };
        Ok(Lease {
            holder: Some(holder),
            pool: Arc::downgrade(self),
        })
    }

    /// The holder started ahead, if one is ready.
    #[cfg(test)]
    pub(super) fn ahead_pid(&self) -> Option<i32> {
        let ahead = self.ahead.lock().unwrap_or_else(|e| e.into_inner());
        ahead.ready.as_ref().map(|h| h.pid)
    }

    /// How many holders are idle.
    #[cfg(test)]
    pub(super) fn idle(&self) -> usize {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Ends the oldest idle holder of the least recently used pool other than `except`,
    /// dropping stale entries of [`RECENT`] on the way; whether one ended.
    fn evict_one(recent: &mut Vec<Weak<Pool>>, except: &Arc<Pool>) -> bool {
        let mut i = 0;
        while i < recent.len() {
            let Some(pool) = recent[i].upgrade() else {
                recent.remove(i);
                continue;
            };
            if Arc::ptr_eq(&pool, except) {
                i += 1;
                continue;
            }
            let mut idle = pool.idle.lock().unwrap_or_else(|e| e.into_inner());
            if idle.is_empty() {
                drop(idle);
                recent.remove(i);
                continue;
            }
            let oldest = idle.remove(0);
            IDLE.fetch_sub(1, Ordering::Relaxed);
            drop(idle);
            drop(oldest);
            return true;
        }
        false
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let idle = self.idle.get_mut().unwrap_or_else(|e| e.into_inner());
        IDLE.fetch_sub(idle.len(), Ordering::Relaxed);
        let ahead = self.ahead.get_mut().unwrap_or_else(|e| e.into_inner());
        if ahead.ready.take().is_some() {
            READY.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl super::Jail {
    /// Whether a holder started now ([`Jail::prewarm`](super::Jail::prewarm)) would serve
    /// this bot's next game.
    pub fn wants_holder_ahead(&self) -> bool {
        self.enabled && self.plan.is_some() && self.holders.wants_one_ahead()
    }

    /// Starts the namespace holder of this bot's next game now, with its Landlock ruleset, if
    /// it will need a new one. Blocking (milliseconds): call it off the games' threads.
    pub fn prewarm(&self) {
        if let (true, Some(plan)) = (self.enabled, &self.plan) {
            self.holders.prewarm(plan, |holder| {
                if let Some(rules) = &self.landlock {
                    // A ruleset that cannot be built now is tried again, and reported, by the game.
                    let _ = landlock_of(holder, rules);
                }
            });
        }
    }
}

/// The bot's Landlock ruleset for `holder`'s view (its own /tmp and /proc, reached through the
/// holder's root): built once per holder, as it stays the same from one game to the next.
pub(super) fn landlock_of<'h>(holder: &'h Holder, rules: &Rules) -> anyhow::Result<&'h OwnedFd> {
    if let Some(ruleset) = holder.landlock.get() {
        return Ok(ruleset);
    }
    let ruleset = Rules {
        jail_root: Some(holder.root()),
        ..rules.clone()
    }
    .build()?;
    Ok(holder.landlock.get_or_init(|| ruleset))
}

/// One game's holder, taken from a jail's [`Pool`] and given back (reset) when dropped.
#[derive(Debug)]
pub struct Lease {
    holder: Option<Holder>,
    pool: Weak<Pool>,
}

impl std::ops::Deref for Lease {
    type Target = Holder;

    fn deref(&self) -> &Holder {
        self.holder
            .as_ref()
            .expect("a lease holds its holder until dropped")
    }
}

impl Drop for Lease {
    /// Gives the holder back to its pool, asking for its reset, unless the jail is gone, the
    /// jail has enough idle holders, or the holder cannot be reset: then it ends.
    fn drop(&mut self) {
        let (Some(holder), Some(pool)) = (self.holder.take(), self.pool.upgrade()) else {
            return;
        };
        if !holder.reusable {
            return;
        }
        // Holders are given back under this lock only.
        let mut recent = RECENT.lock().unwrap_or_else(|e| e.into_inner());
        if pool.idle.lock().unwrap_or_else(|e| e.into_inner()).len() >= JAIL_IDLE_MAX {
            return;
        }
        if IDLE.load(Ordering::Relaxed) >= RUN_IDLE_MAX && !Pool::evict_one(&mut recent, &pool) {
            return;
        }
        if !holder.request_reset() {
            return;
        }
        pool.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(holder);
        IDLE.fetch_add(1, Ordering::Relaxed);
        // This pool becomes the most recent.
        recent.retain(|p| !std::ptr::eq(p.as_ptr(), Arc::as_ptr(&pool)));
        recent.push(Arc::downgrade(&pool));
    }
}
