//! Tests of loading bots: manifests, executables, inline bots, checksums.

use super::*;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn a_manifest_gives_name_command_and_protocol() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hist");
    std::fs::create_dir(&dir).unwrap();
    write(
        &dir,
        MANIFEST,
        "command = \"perl 'my bot.pl' -x\"\nprotocol = \"lines\"\nname = \"Historian\"\n",
    );
    let spec = BotSpec::load(&BotSource::Path(dir.clone()), GameKind::Morra).unwrap();
    assert_eq!(spec.name, "Historian");
    assert_eq!(spec.command, ["perl", "my bot.pl", "-x"]);
    assert_eq!(spec.protocol, Protocol::Lines);

    write(&dir, MANIFEST, "command = \"./run\"\n");
    let spec = BotSpec::load(&BotSource::Path(dir.clone()), GameKind::Morra).unwrap();
    assert_eq!(spec.name, "hist");
    assert_eq!(spec.protocol, Protocol::Argv);
    assert_eq!(spec.overrides, Overrides::default());

    write(
        &dir,
        MANIFEST,
        "command = \"java Bot\"\nmemory = \"1GiB\"\nmax_procs = 200\nmax_output = 4096\nread = [\"/opt/jdk\"]\n",
    );
    let spec = BotSpec::load(&BotSource::Path(dir.clone()), GameKind::Othello).unwrap();
    assert_eq!(spec.protocol, Protocol::Lines);
    // The operator's limits are ceilings: a bot may ask for less, never for more.
    let base = sandbox::Limits::default();
    let limits = spec.overrides.apply(base);
    assert_eq!(
        (limits.memory, limits.max_procs, limits.max_output),
        (base.memory, base.max_procs, 4096)
    );
    let warnings = spec.overrides.excess(base);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0]
            .starts_with("`memory = 1 GiB` in `bot.toml` is above the operator's `--memory`"),
        "{warnings:?}"
    );
    assert_eq!(spec.overrides.read, [PathBuf::from("/opt/jdk")]);

    for (bad, field) in [
        ("memory = 0", "`memory`"),
        ("max_procs = 0", "`max_procs`"),
        ("env = { ARENA_SEED = \"1\" }", "`ARENA_SEED`"),
        ("env = { \"A=B\" = \"1\" }", "`A=B`"),
    ] {
        write(&dir, MANIFEST, &format!("command = \"./run\"\n{bad}\n"));
        let err = BotSpec::load(&BotSource::Path(dir.clone()), GameKind::Morra).unwrap_err();
        let err = format!("{err:#}");
        assert!(err.contains("bot.toml`") && err.contains(field), "{err}");
    }
    write(
        &dir,
        MANIFEST,
        "command = \"./run\"\nenv = { DEPTH = \"3\" }\n",
    );
    let spec = BotSpec::load(&BotSource::Path(dir.clone()), GameKind::Morra).unwrap();
    assert_eq!(spec.env, [("DEPTH".to_string(), "3".to_string())]);
}

#[test]
fn malformed_manifests_name_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    for (text, what) in [
        ("command = ", "bot.toml"),
        ("comand = \"x\"", "unknown field"),
        (
            "command = \"x\"\nprotocol = \"carrier-pigeon\"",
            "unknown variant",
        ),
        ("command = \"'x\"", "unbalanced quotes"),
        ("command = \"\"", "empty"),
        (
            "command = \"x\"\nmemory = \"lots\"",
            "`memory`: `lots` is not a size",
        ),
    ] {
        write(tmp.path(), MANIFEST, text);
        let err = format!(
            "{:#}",
            BotSpec::load(&BotSource::Path(tmp.path().into()), GameKind::Morra).unwrap_err()
        );
        assert!(err.contains("bot.toml`"), "{text}: {err}");
        assert!(err.contains(what), "{text}: {err}");
    }
}

#[test]
fn an_executable_file_is_a_bot_with_defaults() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("rocky.sh");
    write(tmp.path(), "rocky.sh", "#!/bin/sh\necho 0 0\n");
    write(tmp.path(), "notes.txt", "not a bot");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    let spec = BotSpec::load(&BotSource::Path(file.clone()), GameKind::Morra).unwrap();
    assert_eq!(spec.name, "rocky");
    assert_eq!(spec.command, ["./rocky.sh"]);
    assert_eq!(discover(tmp.path()).unwrap(), vec![file]);
    assert!(BotSpec::load(
        &BotSource::Path(tmp.path().join("notes.txt")),
        GameKind::Morra
    )
    .is_err());
}

#[test]
fn checksums_cover_every_file_and_see_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bot");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    write(&dir, MANIFEST, "command = \"x\"");
    write(&dir.join("lib"), "util.pl", "1;");
    let before = checksums(&dir, &[]).unwrap();
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        ["bot.toml", "lib/util.pl"]
    );
    assert_eq!(before["bot.toml"].len(), 64);
    write(&dir.join("lib"), "util.pl", "2;");
    let after = checksums(&dir, &[]).unwrap();
    assert_eq!(before["bot.toml"], after["bot.toml"]);
    assert_ne!(before["lib/util.pl"], after["lib/util.pl"]);
}

#[test]
fn inline_bots_name_a_protocol_and_a_command() {
    let source: BotSource = "gtp:/usr/games/gtp-rhino --level 3".parse().unwrap();
    let spec = BotSpec::load(&source, GameKind::Othello).unwrap();
    assert_eq!(source.to_string(), "gtp:/usr/games/gtp-rhino --level 3");
    assert_eq!(spec.name, "gtp-rhino --level 3");
    assert_eq!(spec.command, ["/usr/games/gtp-rhino", "--level", "3"]);
    assert_eq!(spec.protocol, Protocol::Gtp);
    assert!(spec.inline);
    let err = BotSpec::load(&"gtp:gtp-rhino".parse().unwrap(), GameKind::Gomoku).unwrap_err();
    assert!(
        err.to_string()
            .contains("is for othello engines, not gomoku"),
        "{err}"
    );
    // Not a protocol: an ordinary (missing) path.
    let path: BotSource = "nothing:here".parse().unwrap();
    assert_eq!(path, BotSource::Path("nothing:here".into()));
    assert!(BotSpec::load(&path, GameKind::Othello).is_err());
}

#[test]
fn duplicate_names_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for d in ["one", "two"] {
        let dir = tmp.path().join(d);
        std::fs::create_dir(&dir).unwrap();
        write(&dir, MANIFEST, "command = \"x\"\nname = \"same\"\n");
    }
    let paths = [tmp.path().join("one"), tmp.path().join("two")].map(BotSource::Path);
    let loaded = load_all(&paths, GameKind::Morra);
    assert_eq!(loaded.specs.len(), 1);
    assert_eq!(loaded.specs[0].source, tmp.path().join("one"));
    let rejected = &loaded.rejected[0];
    assert_eq!(rejected.name, "same (two)");
    assert!(
        rejected.reason.contains("another bot is named `same`"),
        "{rejected:?}"
    );
    assert!(rejected.reason.contains("one`"), "{rejected:?}");
}
