//! The command line's small promises (issue 18): one spelling per switch in `--help`, one
//! message when too few bots can play, where `arena entrant`'s table went, and a reader of
//! stdout that goes away (`| head`) ends nothing badly.

mod common;

use std::path::Path;

use common::*;

fn path(p: &Path) -> String {
    p.display().to_string()
}

fn morra(name: &str) -> String {
    path(&fixtures("morra").join(name))
}

/// The lines of `arena run --help` about `flag`, up to the next option.
fn help_of(flag: &str) -> String {
    let help = String::from_utf8(arena_ok(&["run", "--help"]).stdout).unwrap();
    let start = help
        .find(&format!("      {flag} "))
        .unwrap_or_else(|| panic!("no `{flag}` in:\n{help}"));
    let rest = &help[start + flag.len() + 6..];
    let end = rest.find("\n      --").unwrap_or(rest.len());
    help[start..start + flag.len() + 6 + end].to_string()
}

#[test]
fn pause_opponent_is_on_or_off_in_the_help_and_on_the_command_line_issue_18() {
    let help = help_of("--pause-opponent");
    assert!(help.contains("--pause-opponent <on|off>"), "{help}");
    assert!(help.contains("[possible values: on, off]"), "{help}");
    assert!(!help.contains("true") && !help.contains("false"), "{help}");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    arena_ok(&[
        "run",
        "morra",
        &morra("det-a"),
        &morra("det-b"),
        "--morra-rounds",
        "3",
        "--pause-opponent",
        "off",
        "--quiet",
        "--out",
        &path(&out),
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(json["config"]["sandbox"]["pause_opponent"], false, "{json}");
    let bad = arena(&["run", "morra", "--pause-opponent", "maybe"]);
    assert_eq!(bad.status.code(), Some(2));
    let stderr = String::from_utf8(bad.stderr).unwrap();
    assert!(stderr.contains("[possible values: on, off]"), "{stderr}");
}

#[test]
fn one_message_when_fewer_than_two_bots_can_play_issue_18() {
    let tmp = tempfile::tempdir().unwrap();
    // Left out when loaded: a `bot.toml` with an unknown key.
    let malformed = tmp.path().join("malformed");
    std::fs::create_dir(&malformed).unwrap();
    std::fs::write(
        malformed.join("bot.toml"),
        "command = \"./x\"\ncolour = 1\n",
    )
    .unwrap();
    // Left out when prepared: its interpreter does not exist.
    let missing = tmp.path().join("missing");
    std::fs::create_dir(&missing).unwrap();
    std::fs::write(
        missing.join("bot.toml"),
        "command = \"no-such-interpreter-xyz bot.pl\"\n",
    )
    .unwrap();
    let mut messages = Vec::new();
    for (i, bad) in [&malformed, &missing].into_iter().enumerate() {
        let out = tmp.path().join(format!("out{i}"));
        let result = arena(&[
            "run",
            "morra",
            &morra("det-a"),
            &path(bad),
            "--morra-rounds",
            "3",
            "--quiet",
            "--out",
            &path(&out),
        ]);
        let stderr = String::from_utf8(result.stderr).unwrap();
        assert_eq!(result.status.code(), Some(1), "{stderr}");
        let error = stderr
            .lines()
            .find(|l| l.starts_with("error: "))
            .unwrap_or_else(|| panic!("{stderr}"))
            .to_string();
        messages.push(error);
    }
    let expected =
        "error: fewer than two bots can play: 1 can, 1 bot left out (see the warnings above)";
    assert_eq!(messages, [expected, expected]);
    // With nothing left out, the same words.
    let result = arena(&["run", "morra", &morra("det-a"), "--quiet"]);
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("error: fewer than two bots can play: 1 can\n"),
        "{stderr}"
    );
}

/// Runs `arena args` with its stdout a pipe whose reader has gone, as `arena ... | head -1`
/// leaves it once `head` has its line.
fn with_stdout_closed(args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap()
}

/// Ended quietly: exit 0 (or 141, killed by `SIGPIPE` as a shell reports it), no panic.
fn assert_quiet_end(what: &str, output: &std::process::Output) {
    use std::os::unix::process::ExitStatusExt;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() == Some(0) || output.status.signal() == Some(libc::SIGPIPE),
        "`{what}` with stdout closed: {}\n{stderr}",
        output.status
    );
    assert!(!stderr.contains("Broken pipe"), "`{what}`:\n{stderr}");
    assert!(!stderr.contains("panicked"), "`{what}`:\n{stderr}");
}

#[test]
fn a_reader_that_goes_away_ends_nothing_badly_issue_18() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (a, b, out_s) = (morra("det-a"), morra("det-b"), path(&out));
    let run = [
        "run",
        "morra",
        &a,
        &b,
        "--morra-rounds",
        "3",
        "--quiet",
        "--out",
        &out_s,
    ];
    assert_quiet_end("arena run", &with_stdout_closed(&run));
    // The tournament was written whole all the same.
    assert!(out.join("report.html").exists());
    assert_eq!(games(&out).len(), 1);
    let csv = path(&out.join("games.csv"));
    assert_quiet_end("arena standings", &with_stdout_closed(&["standings", &csv]));
    let merged = path(&tmp.path().join("merged"));
    assert_quiet_end(
        "arena standings --out",
        &with_stdout_closed(&["standings", &csv, "--out", &merged]),
    );
    assert!(tmp.path().join("merged/standings.csv").exists());
    assert_quiet_end("arena doctor", &with_stdout_closed(&["doctor"]));
    assert_quiet_end("arena entrant", &with_stdout_closed(&["entrant", "alice"]));
}

#[test]
fn arena_entrant_says_where_the_table_went_issue_18() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("class.toml");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["entrant", "alice"])
        .stdout(std::fs::File::create(&file).unwrap())
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    let table = std::fs::read_to_string(&file).unwrap();
    assert!(table.contains("name = \"alice\""), "{table}");
    assert!(
        stderr.contains(&format!(
            "only its hash is in the `[[entrant]]` table written to `{}`",
            file.canonicalize().unwrap().display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("table below"), "{stderr}");
    // Into a pipe: the pipe is named.
    let piped = arena_ok(&["entrant", "bob"]);
    let stderr = String::from_utf8(piped.stderr).unwrap();
    assert!(stderr.contains("table written to a pipe"), "{stderr}");
}
