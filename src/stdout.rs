//! Data to stdout, written so that a reader that goes away (`arena standings ... | head`)
//! ends the writing quietly rather than the program.
//!
//! Rust ignores `SIGPIPE`, so a write to a closed pipe fails with `EPIPE`, on which `print!`
//! panics ("failed printing to stdout: Broken pipe", exit 101). Every line of data goes
//! through [`print`] instead: once the reader is gone, the rest of the data is dropped and the
//! program goes on (a tournament still writes its files) and exits as it would have.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set when stdout's reader has gone: nothing more is written.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to stdout and flushes it. A closed pipe is not an error (what is left is
/// dropped); any other failure (a full disk behind a redirection) is.
pub fn print(args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_fmt(args).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        other => other,
    }
}

/// Where stdout leads when it is not a terminal, for a message on stderr: the path of the
/// file it was redirected to, or "a pipe"; `None` for a terminal.
pub fn destination() -> Option<String> {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        return None;
    }
    Some(match std::fs::read_link("/proc/self/fd/1") {
        Ok(path) if path.is_absolute() && path.exists() => format!("`{}`", path.display()),
        Ok(path) if path.to_string_lossy().starts_with("pipe:") => "a pipe".to_string(),
        _ => "stdout".to_string(),
    })
}

/// Writes what a person at the terminal reads (`arena play`): as [`print`], and a failure is
/// dropped, for there is no one to tell.
pub fn say(args: std::fmt::Arguments<'_>) {
    let _ = print(args);
}
