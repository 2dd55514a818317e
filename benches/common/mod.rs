//! What the benchmarks share: sizes from the environment, medians, and tiny C programs
//! compiled for the run.

#![allow(dead_code)] // each benchmark uses its own part of this

use std::path::{Path, PathBuf};
use std::process::Command;

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
