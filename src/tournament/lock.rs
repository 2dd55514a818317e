//! The lock on an output directory: one run or resume writes it at a time, and stopping
//! signals (Ctrl-C, SIGTERM, SIGHUP) end a run gracefully.

use std::fs::File;
use std::io::{Seek, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::signal::unix::{signal, Signal, SignalKind};

/// How long a lock whose run has ended may stay held (by that run's last children) before
/// it is refused.
const LINGER: Duration = Duration::from_secs(2);

/// Holds `<out>/.arena.lock` locked (`flock`) for as long as it lives; the kernel releases the
/// lock when the process dies, however it dies.
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
}

impl OutputLock {
    /// Locks the output directory `out` (which must exist), or says who holds it.
    pub fn acquire(out: &Path) -> Result<OutputLock> {
        let path = out.join(".arena.lock");
        let since = Instant::now();
        let mut file = loop {
            if let Some(file) = crate::sandbox::liveness::try_lock(&path)? {
                break file;
            }
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let holder = holder.trim();
            // A run that was just killed can leave its lock held for a few milliseconds by a
            // child caught between `clone` and `exec`: when the run itself is gone, wait for
            // that child a moment instead of refusing.
            let gone = holder
                .parse::<u32>()
                .is_ok_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
            if !gone || since.elapsed() > LINGER {
                bail!(
                    "`{}` is being written by another arena run (pid {holder}): wait for it to end, or choose another `--out`",
                    out.display(),
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        // Say who holds it, for the message above.
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| write!(file, "{}", std::process::id()))
            .with_context(|| format!("cannot write `{}`", path.display()))?;
        Ok(OutputLock { _file: file })
    }
}

/// The signals that stop a tournament gracefully: Ctrl-C, SIGTERM (a CI time-out, `kill`)
/// and SIGHUP (a closed terminal).
pub struct Stops {
    streams: [(Signal, i32); 3],
}

impl Stops {
    /// Starts listening; from now on these signals no longer kill the process.
    pub fn listen() -> Result<Stops> {
        let listen = |kind: SignalKind, number: i32| -> Result<(Signal, i32)> {
            Ok((signal(kind).context("cannot listen for signals")?, number))
        };
        Ok(Stops {
            streams: [
                listen(SignalKind::interrupt(), libc::SIGINT)?,
                listen(SignalKind::terminate(), libc::SIGTERM)?,
                listen(SignalKind::hangup(), libc::SIGHUP)?,
            ],
        })
    }

    /// The next stopping signal's number.
    pub async fn next(&mut self) -> i32 {
        let [(int, a), (term, b), (hup, c)] = &mut self.streams;
        tokio::select! {
            _ = int.recv() => *a,
            _ = term.recv() => *b,
            _ = hup.recv() => *c,
        }
    }
}

/// The name of a stopping signal, for messages.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "Ctrl-C",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_directory_fails_and_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = OutputLock::acquire(dir.path()).unwrap();
        let err = OutputLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("is being written by another arena run"),
            "{err}"
        );
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        OutputLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn a_lock_left_held_by_an_ended_run_is_waited_for_a_moment() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".arena.lock");
        let mut held = crate::sandbox::liveness::try_lock(&path).unwrap().unwrap();
        // The run that wrote its pid has ended (no process has this pid: pids stay below
        // 2^22); a child of it still holds the lock.
        write!(held, "{}", i32::MAX).unwrap();
        let child = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(held);
        });
        let since = Instant::now();
        OutputLock::acquire(dir.path()).unwrap();
        assert!(since.elapsed() >= Duration::from_millis(150));
        child.join().unwrap();
    }
}
