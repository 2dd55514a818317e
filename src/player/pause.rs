//! Pausing a bot between its moves, lazily: the waiting bot is frozen only once its opponent
//! has thought for [`PAUSE_AFTER`], so the fast exchanges of quick bots cost no freeze and
//! thaw, while a bot that ponders through its opponent's long think is still stopped. One
//! thread of the run ([`Waker`]) writes the freezes that fall due.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long the opponent thinks before the waiting bot is frozen: at most this much of the
/// opponent's time can be shared with a pondering bot.
pub const PAUSE_AFTER: Duration = Duration::from_millis(1);

/// How a bot's processes are stopped and continued.
#[derive(Debug, Clone)]
pub enum Freezer {
    /// cgroup v2's `cgroup.freeze`, kept open: everything in the game's cgroup.
    Cgroup(Arc<File>),
    /// SIGSTOP and SIGCONT to every process of the game's PID namespace (without a cgroup to
    /// freeze), sent from inside by the namespace's holder.
    Namespace(Arc<crate::sandbox::Signals>),
    /// SIGSTOP and SIGCONT to the process group (with neither: a helper in a session of its
    /// own is not reached).
    Signal(i32),
}

impl Freezer {
    /// The best freezer of a game whose bot's process is `pid` in `cage`: its cgroup, else
    /// its PID namespace, else the process group.
    pub fn for_game(cage: Option<&crate::sandbox::Cage>, pid: i32) -> Freezer {
        match cage.and_then(|c| c.freeze_file()) {
            Some(file) => Freezer::Cgroup(file),
            None => match cage.and_then(|c| c.namespace_signals()) {
                Some(signals) => Freezer::Namespace(Arc::new(signals)),
                None => Freezer::Signal(pid),
            },
        }
    }

    fn set(&self, frozen: bool) {
        match self {
            Freezer::Cgroup(file) => {
                let _ = file.write_at(if frozen { b"1" } else { b"0" }, 0);
            }
            Freezer::Namespace(signals) => signals.stop(frozen),
            Freezer::Signal(pid) => {
                if let Some(pid) = rustix::process::Pid::from_raw(*pid) {
                    let signal = if frozen {
                        rustix::process::Signal::STOP
                    } else {
                        rustix::process::Signal::CONT
                    };
                    let _ = rustix::process::kill_process_group(pid, signal);
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    /// A freeze is due at this instant.
    Due(Instant),
    Frozen,
}

/// What the pause of one bot and the [`Waker`] share.
#[derive(Debug)]
struct Shared {
    freezer: Freezer,
    state: Mutex<State>,
}

/// The pause of one bot process in one game.
#[derive(Debug)]
pub struct Pause {
    shared: Arc<Shared>,
}

impl Pause {
    /// A pause that stops the bot through `freezer`.
    pub fn new(freezer: Freezer) -> Pause {
        let shared = Arc::new(Shared {
            freezer,
            state: Mutex::new(State::Running),
        });
        waker().watch(&shared);
        Pause { shared }
    }

    /// The bot's move is over: freeze it once [`PAUSE_AFTER`] has passed, unless it is asked
    /// again first. Costs a lock and, only when the waker thread has nothing to wait for, a
    /// wake-up of it: no task and no timer per move.
    pub fn pause(&self) {
        {
            let mut state = lock(&self.shared.state);
            if *state != State::Running {
                return;
            }
            *state = State::Due(Instant::now() + PAUSE_AFTER);
        }
        waker().due();
    }

    /// The bot is asked again (or its game ends): thaw it if it was frozen, and cancel a due
    /// freeze.
    pub fn resume(&self) {
        let mut state = lock(&self.shared.state);
        if *state == State::Frozen {
            self.shared.freezer.set(false);
        }
        *state = State::Running;
    }

    /// Whether the bot is frozen now.
    #[cfg(test)]
    pub fn is_frozen(&self) -> bool {
        *lock(&self.shared.state) == State::Frozen
    }
}

impl Drop for Pause {
    fn drop(&mut self) {
        self.resume();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The thread that freezes bots whose freeze is due: it sleeps until the earliest due
/// instant, or, with none due, until a pause wakes it. A freeze is written under the pause's
/// lock, so a resume cannot overtake it.
#[derive(Debug, Default)]
struct Waker {
    /// The pauses of the games being played (dead ones are dropped as they are met).
    pauses: Mutex<Vec<std::sync::Weak<Shared>>>,
    wake: Condvar,
    /// Whether the thread waits with no freeze due (then a pause must wake it).
    idle: AtomicBool,
}

fn waker() -> &'static Waker {
    static WAKER: OnceLock<&'static Waker> = OnceLock::new();
    WAKER.get_or_init(|| {
        let waker: &'static Waker = Box::leak(Box::default());
        std::thread::Builder::new()
            .name("arena-pause".into())
            .spawn(move || waker.run())
            .expect("the thread that pauses bots can be started");
        waker
    })
}

impl Waker {
    fn watch(&self, shared: &Arc<Shared>) {
        let mut pauses = lock(&self.pauses);
        pauses.retain(|p| p.strong_count() > 0);
        pauses.push(Arc::downgrade(shared));
    }

    /// A freeze became due: wake the thread if it waits for none. The state was set before
    /// `idle` is read, and the thread sets `idle` before it looks at the states again, so
    /// one of the two sees the other (both sequentially consistent).
    fn due(&self) {
        if self.idle.load(Ordering::SeqCst) {
            let _pauses = lock(&self.pauses);
            self.wake.notify_one();
        }
    }

    fn run(&self) {
        let mut pauses = lock(&self.pauses);
        loop {
            self.idle.store(true, Ordering::SeqCst);
            let now = Instant::now();
            let mut next: Option<Instant> = None;
            pauses.retain(|p| {
                let Some(shared) = p.upgrade() else {
                    return false;
                };
                let mut state = lock(&shared.state);
                if let State::Due(at) = *state {
                    if at <= now {
                        shared.freezer.set(true);
                        *state = State::Frozen;
                    } else {
                        next = Some(next.map_or(at, |n| n.min(at)));
                    }
                }
                true
            });
            pauses = match next {
                Some(at) => {
                    self.idle.store(false, Ordering::SeqCst);
                    let wait = at.saturating_duration_since(Instant::now());
                    self.wake
                        .wait_timeout(pauses, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.wake.wait(pauses).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn freeze_file() -> (tempfile::TempDir, Arc<File>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cgroup.freeze");
        std::fs::write(&path, "0").unwrap();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        (dir, Arc::new(file))
    }

    /// Whether the pause's due freeze happens within a generous wait (a loaded machine may
    /// run the freezing thread late).
    async fn frozen_soon(pause: &Pause) -> bool {
        for _ in 0..400 {
            if pause.is_frozen() {
                return true;
            }
            tokio::time::sleep(PAUSE_AFTER * 5).await;
        }
        false
    }

    fn read(dir: &tempfile::TempDir) -> String {
        std::fs::read_to_string(dir.path().join("cgroup.freeze")).unwrap()
    }

    #[tokio::test]
    async fn a_quick_answer_costs_no_freeze_and_a_long_think_freezes() {
        let (dir, file) = freeze_file();
        let pause = Pause::new(Freezer::Cgroup(file));
        // Asked again at once: the due freeze is cancelled and never written.
        pause.pause();
        pause.resume();
        tokio::time::sleep(PAUSE_AFTER * 5).await;
        assert!(!pause.is_frozen());
        assert_eq!(read(&dir), "0");
        // The opponent thinks longer: the bot is frozen, and thawed when asked again.
        pause.pause();
        assert!(frozen_soon(&pause).await);
        assert_eq!(read(&dir), "1");
        pause.resume();
        assert_eq!(read(&dir), "0");
        // A freeze still due when the pause is dropped never happens.
        pause.pause();
        drop(pause);
        tokio::time::sleep(PAUSE_AFTER * 5).await;
        assert_eq!(read(&dir), "0");
    }

    #[tokio::test]
    async fn pauses_of_many_games_at_once_each_freeze_when_due_and_a_bot_asked_again_does_not() {
        // Games played at once share the one waker thread: each bot is frozen once its own
        // freeze is due, whichever was asked first, and the waker's wait for a later freeze
        // does not delay an earlier one.
        let files: Vec<_> = (0..3).map(|_| freeze_file()).collect();
        let pauses: Vec<Pause> = files
            .iter()
            .map(|(_, file)| Pause::new(Freezer::Cgroup(Arc::clone(file))))
            .collect();
        pauses[0].pause();
        pauses[1].pause();
        // The third keeps being asked again before its freeze is due.
        for _ in 0..20 {
            pauses[2].pause();
            pauses[2].resume();
        }
        assert!(frozen_soon(&pauses[0]).await && frozen_soon(&pauses[1]).await);
        assert!(!pauses[2].is_frozen());
        assert_eq!(read(&files[2].0), "0");
        // Thawed and paused again: frozen again.
        pauses[0].resume();
        assert_eq!(read(&files[0].0), "0");
        pauses[0].pause();
        assert!(frozen_soon(&pauses[0]).await);
        assert_eq!(
            files.iter().map(|(dir, _)| read(dir)).collect::<Vec<_>>(),
            ["1", "1", "0"]
        );
    }
}
