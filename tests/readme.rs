//! The README's examples run as shown, on a 2-core machine: every `arena` line of its Usage
//! block, in order, through a shell (globs included), from a directory laid out as the
//! examples expect, and the Perl bot it shows (issue 13).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::*;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The first fenced block of `lang` after `heading`.
fn block(text: &str, heading: &str, lang: &str) -> String {
    let from = text
        .find(heading)
        .unwrap_or_else(|| panic!("no `{heading}`"));
    let fence = format!("```{lang}\n");
    let start = from + text[from..].find(&fence).unwrap() + fence.len();
    let end = start + text[start..].find("```").unwrap();
    text[start..end].to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn the_readme_examples_run_as_shown_issue_13() {
    require_perl();
    require_python3();
    require_java();
    require_gtp_rhino();
    let text = readme();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // The layout the examples name: the bundled bots, a Perl bot, a reference and students.
    std::os::unix::fs::symlink(root.join("bots"), dir.join("bots")).unwrap();
    let perl = block(&text, "A Perl bot that guesses", "perl");
    std::fs::write(dir.join("mybot.pl"), perl).unwrap();
    std::fs::set_permissions(dir.join("mybot.pl"), std::fs::Permissions::from_mode(0o755)).unwrap();
    copy_dir(
        &root.join("bots/othello/alphabeta"),
        &dir.join("refs/alphabeta"),
    );
    for s in ["greedy", "random"] {
        copy_dir(
            &root.join("bots/othello").join(s),
            &dir.join("students").join(s),
        );
    }
    let path = arena_on_path(dir);

    let usage = block(&text, "## Usage", "sh");
    let lines: Vec<&str> = usage.lines().filter(|l| l.starts_with("arena ")).collect();
    assert!(lines.len() >= 10, "{usage}");
    let mut ran = Vec::new();
    for line in lines {
        let command = line.split(" # ").next().unwrap().trim();
        let interactive = command.starts_with("arena play");
        let output = Command::new("sh")
            .args(["-c", command])
            .current_dir(dir)
            .env("PATH", &path)
            .stdin(if interactive {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                if let Some(mut stdin) = child.stdin.take() {
                    use std::io::Write;
                    stdin.write_all(b"h8\nquit\n")?;
                }
                child.wait_with_output()
            })
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "`{command}` failed ({}):\n{stderr}",
            output.status
        );
        ran.push(command.to_string());
        // No game of the examples is lost by a forfeit of arena's making (the Perl bot and the
        // engine included); `arena run` prints a summary with the games played.
        if command.starts_with("arena run") {
            assert!(stderr.contains("played "), "`{command}`:\n{stderr}");
            assert!(!stderr.contains("left out"), "`{command}`:\n{stderr}");
        }
    }
    // Every game ended by the rules: the Perl bot did not crash, nobody timed out.
    let mut outs: Vec<PathBuf> = std::fs::read_dir(dir.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    outs.extend(["shard-1", "shard-2"].map(|s| dir.join(s)));
    assert!(outs.len() >= 9, "{outs:?}");
    for out in &outs {
        for row in games(out) {
            assert_eq!(row["reason"], "normal", "{}: {row:?}", out.display());
        }
    }
    assert!(ran.iter().any(|c| c.contains("mybot.pl")));
}

/// The packages `.ci/run` installs when their program is missing (`missing+=(PACKAGE)`).
fn ci_packages() -> Vec<String> {
    let ci =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run")).unwrap();
    let mut packages = Vec::new();
    for (i, _) in ci.match_indices("missing+=(") {
        let rest = &ci[i + "missing+=(".len()..];
        let list = &rest[..rest.find(')').unwrap()];
        packages.extend(list.split_whitespace().map(String::from));
    }
    packages
}

#[test]
fn the_quick_start_installs_every_package_the_tests_need_issue_18() {
    let text = readme();
    let start = text.find("## Quick start").unwrap();
    let quick = &text[start..start + text[start..].find("\n## ").unwrap()];
    let install = block(quick, "## Quick start", "sh");
    let line = install
        .lines()
        .find(|l| l.contains("apt-get install"))
        .unwrap_or_else(|| panic!("no `apt-get install` line in the Quick start:\n{quick}"));
    let named: Vec<&str> = line.split_whitespace().collect();
    let packages = ci_packages();
    assert!(packages.len() >= 7, "{packages:?}");
    for package in &packages {
        assert!(
            named.contains(&package.as_str()),
            "the Quick start's `{line}` does not name `{package}`, which `.ci/run` installs"
        );
    }
    // And before the Usage section calls it `arena`, the Quick start says how to get it.
    assert!(quick.contains("cargo install --path ."), "{quick}");
    assert!(quick.contains("target/release/arena"), "{quick}");
}

#[test]
fn the_koth_walk_through_runs_as_shown_issue_19() {
    require_perl();
    require_python3();
    let text = readme();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::os::unix::fs::symlink(root.join("bots"), dir.join("bots")).unwrap();
    let path = arena_on_path(dir);
    let walk = block(&text, "### A King-of-the-Hill leaderboard", "sh");
    // What each `arena run` of the walk-through plays: the first run's one pairing, then
    // only the games that changed (Morra: one game per pairing).
    let mut played = Vec::new();
    for line in walk.lines().filter(|l| !l.trim().is_empty()) {
        let output = Command::new("sh")
            .args(["-c", line])
            .current_dir(dir)
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "`{line}` failed:\n{stderr}");
        if line.starts_with("arena run") {
            let summary = stderr.lines().find(|l| l.starts_with("played ")).unwrap();
            played.push(summary.split_whitespace().nth(1).unwrap().to_string());
        }
    }
    assert_eq!(played, ["1", "2", "2", "0"], "{walk}");
    let board = std::fs::read_to_string(dir.join("public/leaderboard.md")).unwrap();
    assert!(
        board.contains("pattern") && board.contains("counter"),
        "{board}"
    );
    assert!(!board.contains("frequent"), "{board}");
}

/// A `PATH` on which `arena` is the binary under test (linked from `dir/bin`), then the
/// caller's.
fn arena_on_path(dir: &Path) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_arena"), bin.join("arena")).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}
