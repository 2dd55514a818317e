//! What the benchmarks share: sizes from the environment, medians, and tiny C programs
//! compiled for the run.

#![allow(dead_code)] // each benchmark uses its own part of this

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A Morra bot for the `argv` protocol in C: it looks at its arguments like a real bot (their
/// length picks its move) and answers at once.
pub const ARGV_MORRA_BOT: &str = r#"
#include <stdio.h>
int main(int argc, char **argv) {
    size_t n = 0;
    for (int i = 1; i < argc; i++) { const char *s = argv[i]; while (*s++) n++; }
    printf("%d %d\n", (int)(n % 6), (int)((n / 6) % 6));
    return 0;
}
"#;

/// A number from the environment (`GAMES=50`), or `default`.
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The median of `xs` (the upper one of an even count).
pub fn median<T: Copy + PartialOrd>(mut xs: Vec<T>) -> T {
    xs.sort_by(|x, y| x.partial_cmp(y).expect("the values are comparable"));
    xs[xs.len() / 2]
}

/// Compiles `source` (C) into `dir/name` with `cc -O2`.
pub fn compile(dir: &Path, name: &str, source: &str) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).unwrap();
    let exe = dir.join(name);
    let status = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&c)
        .status()
        .expect("`cc` is needed to build the tiny native bots (Debian package `gcc`)");
    assert!(status.success(), "cannot compile `{name}`");
    exe
}

/// The most a process used while it was watched ([`watch_peaks`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Peaks {
    pub threads: u64,
    pub fds: u64,
    /// `VmHWM`, in kB.
    pub rss_kb: u64,
}

/// A field of `/proc/<pid>/status` (`Threads:`, `VmHWM:`) as a number.
fn status_number(status: &str, key: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix(key))?;
    line.split_whitespace().next()?.parse().ok()
}

/// `VmHWM` of `/proc/<pid>/status`, in kB.
pub fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_number(&status, "VmHWM:")
}

/// Samples a process every 20 ms until it exits or `stop` is set: its peak threads, file
/// descriptors and RSS.
pub fn watch_peaks(pid: u32, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Peaks> {
    std::thread::spawn(move || {
        let mut peaks = Peaks::default();
        while !stop.load(Ordering::Relaxed) {
            let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
                break;
            };
            let threads = status_number(&status, "Threads:").unwrap_or(0);
            peaks.threads = peaks.threads.max(threads);
            peaks.rss_kb = (peaks.rss_kb).max(status_number(&status, "VmHWM:").unwrap_or(0));
            if let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
                peaks.fds = peaks.fds.max(dir.count() as u64);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        peaks
    })
}
