//! A bot's log file: its processes' stderr, size-capped, plus arena's notes about its games.
//!
//! Every process of a bot writes stderr into one pipe that a thread drains for the whole
//! tournament, so a chatty bot never blocks on a full pipe and the log never outgrows its cap.

use std::fs::File;
use std::io::{self, PipeWriter, Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};

struct LogFile {
    file: File,
    /// Bytes of bot output kept.
    written: u64,
    /// Bytes of bot output seen, kept or not.
    seen: u64,
    cap: u64,
    truncated: bool,
}

impl LogFile {
    fn write(&mut self, bytes: &[u8]) {
        self.seen += bytes.len() as u64;
        let room = self.cap.saturating_sub(self.written) as usize;
        let take = bytes.len().min(room);
        // A failed log write must not cost the bot its game: the log is best effort.
        let _ = self.file.write_all(&bytes[..take]);
        self.written += take as u64;
        if take < bytes.len() && !self.truncated {
            self.truncated = true;
            let _ = writeln!(
                self.file,
                "\n[arena] log truncated at {} bytes; further output is discarded",
                self.cap
            );
        }
    }
}

/// The log of one bot.
pub struct BotLog {
    file: Arc<Mutex<LogFile>>,
    writer: PipeWriter,
    /// Signalled when the drain thread has seen the end of the pipe.
    drained: Mutex<mpsc::Receiver<()>>,
}

impl BotLog {
    /// Creates the log at `path` (or adds to it, `append`), keeping at most `cap` bytes of
    /// bot output.
    pub fn create(path: &Path, cap: u64, append: bool) -> Result<BotLog> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(path)
            .with_context(|| format!("cannot create `{}`", path.display()))?;
        let file = Arc::new(Mutex::new(LogFile {
            file,
            written: 0,
            seen: 0,
            cap,
            truncated: false,
        }));
        let (mut reader, writer) = io::pipe().context("cannot create a pipe for a bot's stderr")?;
        let (done, drained) = mpsc::channel();
        let sink = Arc::clone(&file);
        std::thread::Builder::new()
            .name("bot-log".into())
            .spawn(move || {
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => sink
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .write(&buf[..n]),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                let _ = done.send(());
            })
            .context("cannot start a log thread")?;
        Ok(BotLog {
            file,
            writer,
            drained: Mutex::new(drained),
        })
    }

    /// A stderr handle for a new bot process.
    pub fn stderr(&self) -> io::Result<Stdio> {
        Ok(Stdio::from(self.writer.try_clone()?))
    }

    /// The write end of the log pipe, for a new process's stderr (it dups it).
    pub fn stderr_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self.writer.as_raw_fd()
    }

    /// Bytes the bot has written to stderr so far, kept in the log or not.
    pub fn bytes(&self) -> u64 {
        self.file.lock().unwrap_or_else(|e| e.into_inner()).seen
    }

    /// Adds a line from arena itself (why a game was lost, a build's result).
    pub fn note(&self, text: &str) {
        let line = format!("[arena] {}\n", text.trim_end());
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        // Notes are not bot output: they do not count against the cap.
        let _ = file.file.write_all(line.as_bytes());
    }

    /// Closes the log once the bot's processes are gone, waiting a little for the last output.
    pub fn close(self, wait: Duration) {
        drop(self.writer);
        let drained = self.drained.into_inner().unwrap_or_else(|e| e.into_inner());
        let _ = drained.recv_timeout(wait);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn output_beyond_the_cap_is_discarded_without_blocking_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.log");
        let log = BotLog::create(&path, 1000, false).unwrap();
        log.note("game 1 starts");
        // 1 MB is far more than a pipe holds: the writer only finishes if the pipe is drained.
        let status = Command::new("sh")
            .args(["-c", "head -c 1000000 /dev/zero | tr '\\0' x >&2"])
            .stderr(log.stderr().unwrap())
            .status()
            .unwrap();
        assert!(status.success());
        log.close(Duration::from_secs(5));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("[arena] game 1 starts\n"));
        assert_eq!(text.matches('x').count(), 1000);
        assert!(text.contains("log truncated at 1000 bytes"));
    }
}
