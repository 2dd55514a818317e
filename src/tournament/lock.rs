//! The lock on an output directory: one run or resume writes it at a time, and stopping
//! signals (Ctrl-C, SIGTERM, SIGHUP) end a run gracefully.

use std::fs::File;
use std::io::{Seek, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use tokio::signal::unix::{signal, Signal, SignalKind};

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
        let Some(mut file) = crate::sandbox::liveness::try_lock(&path)? else {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            bail!(
                "`{}` is being written by another arena run (pid {}): wait for it to end, or choose another `--out`",
                out.display(),
                holder.trim()
            );
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
}
