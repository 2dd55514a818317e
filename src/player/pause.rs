//! Pausing a bot between its moves, lazily: the waiting bot is frozen only once its opponent
//! has thought for [`PAUSE_AFTER`], so the fast exchanges of quick bots cost no freeze and
//! thaw, while a bot that ponders through its opponent's long think is still stopped.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    /// A freeze is due; the number tells which pause it belongs to.
    Due(u64),
    Frozen,
}

/// The pause of one bot process in one game.
#[derive(Debug)]
pub struct Pause {
    freezer: Freezer,
    state: Arc<Mutex<(State, u64)>>,
}

impl Pause {
    /// A pause that stops the bot through `freezer`.
    pub fn new(freezer: Freezer) -> Pause {
        Pause {
            freezer,
            state: Arc::new(Mutex::new((State::Running, 0))),
        }
    }

    /// The bot's move is over: freeze it once [`PAUSE_AFTER`] has passed, unless it is asked
    /// again first. Needs a tokio runtime.
    pub fn pause(&self) {
        let due = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if state.0 != State::Running {
                return;
            }
            state.1 += 1;
            state.0 = State::Due(state.1);
            state.1
        };
        let (freezer, state) = (self.freezer.clone(), Arc::clone(&self.state));
        tokio::spawn(async move {
            tokio::time::sleep(PAUSE_AFTER).await;
            // The freeze is written under the lock, so a resume cannot overtake it.
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            if state.0 == State::Due(due) {
                freezer.set(true);
                state.0 = State::Frozen;
            }
        });
    }

    /// The bot is asked again (or its game ends): thaw it if it was frozen, and cancel a due
    /// freeze.
    pub fn resume(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.0 == State::Frozen {
            self.freezer.set(false);
        }
        state.0 = State::Running;
    }

    /// Whether the bot is frozen now.
    #[cfg(test)]
    pub fn is_frozen(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).0 == State::Frozen
    }
}

impl Drop for Pause {
    fn drop(&mut self) {
        self.resume();
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
    /// run the freezing task late).
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
}
