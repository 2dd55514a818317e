//! The thread that does replays' file work: creating each game's file and writing its lines,
//! off the threads that play the games. On some file systems creating a file costs up to a
//! millisecond (ext4 without a journal, shortly after many files were deleted), as much as a
//! quick game's every exchange; here it is done while the game's bots start and play.
//!
//! Lines reach the thread in the order they were written, a chunk at a time; closing a replay
//! waits for the thread to have written all of it, so a game recorded in `games.csv` has its
//! whole replay in the file (as with a buffered writer, a controller killed mid-game may leave
//! the last chunk unwritten).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::OnceLock;

/// What the thread is asked to do with the replay `id`.
enum Job {
    /// Create the file at the path and write the first bytes.
    Open(u64, PathBuf, Vec<u8>),
    Write(u64, Vec<u8>),
    /// Done: answer with the first error writing it, if any (nobody waits for an abandoned
    /// game's).
    Close(u64, Option<tokio::sync::oneshot::Sender<io::Result<()>>>),
}

/// One replay being written, as the game's side holds it.
pub(super) struct Writer {
    id: u64,
    jobs: Sender<Job>,
    closed: bool,
}

fn jobs() -> &'static Sender<Job> {
    static JOBS: OnceLock<Sender<Job>> = OnceLock::new();
    JOBS.get_or_init(|| {
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("arena-replays".into())
            .spawn(move || {
                let mut files: HashMap<u64, (Option<File>, Option<io::Error>)> = HashMap::new();
                for job in rx {
                    match job {
                        Job::Open(id, path, bytes) => {
                            let slot = match File::create(&path) {
                                Ok(mut file) => {
                                    let error = file.write_all(&bytes).err();
                                    (Some(file), error)
                                }
                                Err(e) => (None, Some(e)),
                            };
                            files.insert(id, slot);
                        }
                        Job::Write(id, bytes) => {
                            if let Some((Some(file), error @ None)) = files.get_mut(&id) {
                                *error = file.write_all(&bytes).err();
                            }
                        }
                        Job::Close(id, answer) => {
                            let error = files.remove(&id).and_then(|(_, error)| error);
                            if let Some(answer) = answer {
                                let _ = answer.send(error.map_or(Ok(()), Err));
                            }
                        }
                    }
                }
            })
            .expect("a thread for writing replays can be started");
        tx
    })
}

impl Writer {
    /// Starts a replay at `path` with its first bytes.
    pub fn open(path: PathBuf, first: Vec<u8>) -> Writer {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let jobs = jobs().clone();
        let _ = jobs.send(Job::Open(id, path, first));
        Writer {
            id,
            jobs,
            closed: false,
        }
    }

    /// Appends `bytes`.
    pub fn write(&self, bytes: Vec<u8>) {
        let _ = self.jobs.send(Job::Write(self.id, bytes));
    }

    /// Appends `last` and closes the file once everything before it is written; the first
    /// error creating or writing it, if any.
    pub async fn close(mut self, last: Vec<u8>) -> io::Result<()> {
        self.closed = true;
        let (answer, answered) = tokio::sync::oneshot::channel();
        let sent = self.jobs.send(Job::Write(self.id, last)).is_ok()
            && self.jobs.send(Job::Close(self.id, Some(answer))).is_ok();
        match sent {
            true => answered.await.unwrap_or_else(|_| Err(stopped())),
            false => Err(stopped()),
        }
    }
}

fn stopped() -> io::Error {
    io::Error::other("the thread writing replays stopped")
}

impl Drop for Writer {
    /// A replay dropped without its result (an abandoned game) is closed as it is.
    fn drop(&mut self) {
        if !self.closed {
            let _ = self.jobs.send(Job::Close(self.id, None));
        }
    }
}
