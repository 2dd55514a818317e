//! A teacher's folder of submissions, some broken in the usual ways: the broken ones are left
//! out with a reason saying what to fix, every good one plays, and all are graded (issue 13).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::*;

fn write(path: &Path, text: &str, executable: bool) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A good Morra submission: a directory with a `bot.toml`, or a bare script.
fn good(dir: &Path, i: usize) {
    let script = format!("#!/bin/sh\necho {} {}\n", i % 6, (i / 6) % 6);
    if i.is_multiple_of(2) {
        write(&dir.join(format!("student-{i:02}/bot.sh")), &script, true);
        write(
            &dir.join(format!("student-{i:02}/bot.toml")),
            "command = \"./bot.sh\"\n",
            false,
        );
    } else {
        write(&dir.join(format!("student-{i:02}")), &script, true);
    }
}

/// The broken submissions and a word each one's reason must contain.
fn broken(dir: &Path) -> Vec<(&'static str, &'static str)> {
    let ok_script = "#!/bin/sh\necho 1 1\n";
    write(&dir.join("x-toml/bot.toml"), "command = ", false);
    write(&dir.join("x-toml/bot.sh"), ok_script, true);
    write(&dir.join("x-norun.py"), "print('1 1')\n", false);
    write(&dir.join("x-nomanifest/bot.sh"), ok_script, true);
    write(&dir.join("x-twin/bot.sh"), ok_script, true);
    write(
        &dir.join("x-twin/bot.toml"),
        "command = \"./bot.sh\"\nname = \"student-00\"\n",
        false,
    );
    write(&dir.join("x-noshebang"), "echo 1 1\n", true);
    write(
        &dir.join("x-nointerp/bot.toml"),
        "command = \"no-such-interpreter-xyz bot.x\"\n",
        false,
    );
    write(&dir.join("x-build/bot.sh"), ok_script, true);
    write(
        &dir.join("x-build/bot.toml"),
        "command = \"./bot.sh\"\nbuild = \"sh -c 'echo cannot compile >&2; exit 3'\"\n",
        false,
    );
    write(
        &dir.join("x-protocol/bot.toml"),
        "command = \"./bot.sh\"\nprotocol = \"gtp\"\n",
        false,
    );
    write(
        &dir.join("x-field/bot.toml"),
        "comand = \"./bot.sh\"\n",
        false,
    );
    write(
        &dir.join("x-badshebang"),
        "#!/usr/bin/no-such-python\n",
        true,
    );
    vec![
        ("x-toml", "bot.toml"),
        ("x-norun.py", "chmod +x"),
        ("x-nomanifest", "has no `bot.toml`"),
        ("student-00 (x-twin)", "another bot is named `student-00`"),
        ("x-noshebang", "`#!` line"),
        ("x-nointerp", "`no-such-interpreter-xyz` is not found"),
        ("x-build", "build failed"),
        ("x-protocol", "is for othello engines"),
        ("x-field", "unknown field"),
        ("x-badshebang", "`/usr/bin/no-such-python`"),
    ]
}

#[test]
fn a_gauntlet_of_forty_submissions_grades_all_and_plays_the_good_ones_issue_13() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("submissions");
    for i in 0..30 {
        good(&subs, i);
    }
    let expected = broken(&subs);
    let mut entries: Vec<String> = std::fs::read_dir(&subs)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    entries.sort();
    assert_eq!(entries.len(), 40);
    let out = tmp.path().join("out");
    let reference = fixtures("morra").join("det-a").display().to_string();
    let mut args = vec!["run", "morra", "--gauntlet", &reference];
    args.extend(entries.iter().map(String::as_str));
    let out_text = out.display().to_string();
    args.extend([
        "--morra-rounds",
        "5",
        "--move-time",
        "2s",
        "--out",
        &out_text,
    ]);
    let result = arena_ok(&args);
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(stderr.contains("played 30 games"), "{stderr}");
    assert!(stderr.contains("10 bots left out"), "{stderr}");

    assert_eq!(games(&out).len(), 30, "every good submission plays");
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let rows: Vec<&str> = grades.lines().skip(1).collect();
    assert_eq!(rows.len(), 40, "every submission is graded:\n{grades}");
    for (name, word) in &expected {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("{name},")) || r.starts_with(&format!("\"{name}\",")))
            .unwrap_or_else(|| panic!("no grade for `{name}`:\n{grades}"));
        assert!(row.contains(",fail,"), "{row}");
        assert!(
            row.contains("never ran") && row.contains(word),
            "`{name}` lacks `{word}`: {row}"
        );
    }
    for i in 0..30 {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("student-{i:02},")))
            .unwrap_or_else(|| panic!("no grade for student-{i:02}:\n{grades}"));
        assert!(!row.contains("never ran"), "{row}");
    }
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(info["excluded"].as_array().unwrap().len(), 10);
    // The report lists them too, with their reasons.
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(report.contains("id=\"left-out\""), "no left-out section");
    for (name, _) in &expected {
        assert!(report.contains(name), "the report lacks `{name}`");
    }
    assert_eq!(info["bots"].as_array().unwrap().len(), 31);
}

#[test]
fn a_reply_counts_whatever_the_exit_status_as_in_the_koth_controller() {
    let tmp = tempfile::tempdir().unwrap();
    let quitter = tmp.path().join("quitter");
    write(&quitter, "#!/bin/sh\necho 5 0\nexit 3\n", true);
    let out = tmp.path().join("out");
    arena_ok(&[
        "run",
        "morra",
        &quitter.display().to_string(),
        &fixtures("morra").join("exit1").display().to_string(),
        "--morra-rounds",
        "3",
        "--quiet",
        "--out",
        &out.display().to_string(),
    ]);
    let rows = games(&out);
    let row = game_between(&rows, "quitter", "exit1");
    // exit1 prints nothing and fails: a crash; quitter replied, then exited with 3.
    assert_eq!(result_for(row, "quitter"), "win");
    assert_eq!(row["reason"], "crash");
    let log = std::fs::read_to_string(out.join("logs/quitter.log")).unwrap();
    assert!(log.contains("replied, then exited with status 3"), "{log}");
}

#[test]
fn a_reference_plays_several_games_at_once_in_its_own_copies_issue_13() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let morra = fixtures("morra");
    let bot = |b: &str| morra.join(b).display().to_string();
    arena_ok(&[
        "run",
        "morra",
        "--gauntlet",
        &bot("det-a"),
        &bot("det-b"),
        &bot("det-c"),
        &bot("det-d"),
        "--jobs",
        "3",
        "--morra-rounds",
        "200",
        "--keep-work",
        "--quiet",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(games(&out).len(), 3);
    // The reference needed a second and a third copy to play its three games at once.
    let work: Vec<String> = std::fs::read_dir(out.join("work"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(work.iter().any(|w| w == "det-a@2"), "{work:?}");
    let log = std::fs::read_to_string(out.join("logs/det-a.log")).unwrap();
    assert!(!log.contains("cannot"), "{log}");
}
