//! The trust boundary, end to end: nothing of the host reaches a bot through its environment
//! or its directory, `bot.toml` cannot raise the operator's limits, bots that cannot start are
//! left out before the first game, and no value a user or a submission gives makes arena panic.

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

/// Makes a bot directory `name` in `dir` playing Morra with `script` (a shell script).
fn bot(dir: &Path, name: &str, toml: &str, script: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(&path).unwrap();
    std::fs::write(
        path.join("bot.toml"),
        format!("command = \"./bot.sh\"\n{toml}"),
    )
    .unwrap();
    let bot = path.join("bot.sh");
    std::fs::write(&bot, format!("#!/bin/sh\n{script}\necho 0 0\n")).unwrap();
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `arena run morra` on `bots` with two rounds a game, and more arguments.
fn run(bots: &[PathBuf], out: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arena"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "morra"])
        .args(bots)
        .args([
            "--morra-rounds",
            "2",
            "--move-time",
            "2s",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn root() -> bool {
    rustix::process::geteuid().is_root()
}

#[test]
fn bots_get_only_their_own_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let envbot = bot(
        tmp.path(),
        "envbot",
        "env = { FROM_TOML = \"toml-value\" }\n",
        "env >&2",
    );
    let out = tmp.path().join("out");
    let result = run(
        &[envbot, fixtures("morra").join("constant")],
        &out,
        &["--pass-env", "PASSED_ONE"],
        &[
            ("SECRET_TOKEN", "hunter2-secret"),
            ("PASSED_ONE", "passed-value"),
        ],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    let log = bot_logs(&out, "envbot");
    assert!(!log.contains("hunter2-secret"), "{log}");
    assert!(!log.contains("SECRET_TOKEN"), "{log}");
    for wanted in [
        "PASSED_ONE=passed-value",
        "FROM_TOML=toml-value",
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "LANG=C.UTF-8",
        "ARENA_GAME=morra",
        "HOME=/",
        "TMPDIR=/",
    ] {
        assert!(log.contains(wanted), "no `{wanted}` in\n{log}");
    }
    let names: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .filter(|k| k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .collect();
    for name in names {
        assert!(
            [
                "PATH",
                "LANG",
                "HOME",
                "TMPDIR",
                "PASSED_ONE",
                "FROM_TOML",
                "PWD",
                "SHLVL",
                "_"
            ]
            .contains(&name)
                || name.starts_with("ARENA_"),
            "bot got `{name}`:\n{log}"
        );
    }
}

#[test]
fn submissions_never_get_more_than_their_submitter_had() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    // The operator's key, outside every submission.
    let ssh = tmp.path().join("home/.ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_ed25519"), "OPERATOR-KEY").unwrap();
    let shared = tmp.path().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(shared.join("lib.txt"), "SHARED-LIB").unwrap();

    let reader = "cat secret key env >&2 2>/dev/null";
    let shadow = bot(&subs, "shadow", "", reader);
    std::os::unix::fs::symlink("/etc/shadow", shadow.join("secret")).unwrap();
    let key = bot(&subs, "key", "", reader);
    std::os::unix::fs::symlink(ssh.join("id_ed25519"), key.join("key")).unwrap();
    let environ = bot(&subs, "environ", "", reader);
    std::os::unix::fs::symlink("/proc/self/environ", environ.join("env")).unwrap();
    let fifo = bot(&subs, "fifo", "", "");
    let c = std::ffi::CString::new(fifo.join("pipe").into_os_string().into_encoded_bytes());
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.unwrap().as_ptr(), 0o644) }, 0);
    let socket = bot(&subs, "socket", "", "");
    let _listener = std::os::unix::net::UnixListener::bind(socket.join("sock")).unwrap();
    let big = bot(&subs, "big", "", "");
    std::fs::write(big.join("blob"), vec![1u8; 3 << 20]).unwrap();
    let sparse = bot(&subs, "sparse", "", "");
    std::fs::File::create(sparse.join("hole"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let linker = bot(&subs, "linker", "", "cat lib alias >&2");
    std::os::unix::fs::symlink(shared.join("lib.txt"), linker.join("lib")).unwrap();
    std::os::unix::fs::symlink("bot.sh", linker.join("alias")).unwrap();

    let out = tmp.path().join("out");
    let bots = [
        shadow,
        key,
        environ,
        fifo,
        socket,
        big,
        sparse,
        linker,
        fixtures("morra").join("constant"),
    ];
    let share = shared.to_str().unwrap();
    let args = ["--max-bot-size", "2MiB", "--share", share, "--keep-work"];
    let result = run(&bots, &out, &args, &[]);
    let err = stderr(&result);
    assert!(result.status.success(), "{err}");
    for (name, reason) in [
        (
            "shadow",
            "`secret` is a symbolic link to `/etc/shadow`, outside the bot's directory",
        ),
        ("key", "`key` is a symbolic link to `"),
        (
            "environ",
            "`env` is a symbolic link to `/proc/self/environ`, outside",
        ),
        ("fifo", "`pipe` is a FIFO"),
        ("socket", "`sock` is a socket"),
        (
            "big",
            "the bot's directory takes more than `--max-bot-size` (2 MiB) of disk with `blob`",
        ),
    ] {
        let line = format!("warning: bot `{name}` is left out: {reason}");
        assert!(err.contains(&line), "no `{line}` in\n{err}");
    }
    // The sparse file is copied, and stays sparse.
    let rows = games(&out);
    assert!(rows
        .iter()
        .any(|r| r["bot_a"] == "sparse" || r["bot_b"] == "sparse"));
    let hole = std::fs::metadata(out.join("work/sparse/hole")).unwrap();
    assert_eq!(hole.len(), 1 << 30);
    assert!(hole.blocks() < 1024, "{} blocks", hole.blocks());
    // A link into a share, and one inside the bot, are copied as their files.
    let log = bot_logs(&out, "linker");
    assert!(log.contains("SHARED-LIB"), "{log}");
    // Nothing from outside reached any file of the run.
    for entry in walk(&out) {
        let text = std::fs::read(&entry).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        assert!(!text.contains("OPERATOR-KEY"), "{}", entry.display());
    }
}

/// Every regular file under `dir`, links not followed.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            files.extend(walk(&entry.path()));
        } else if kind.is_file() && entry.metadata().unwrap().len() < 1 << 20 {
            files.push(entry.path());
        }
    }
    files
}

#[test]
fn bot_toml_asks_for_less_never_for_more() {
    let tmp = tempfile::tempdir().unwrap();
    let greedy = bot(
        tmp.path(),
        "greedy",
        "max_procs = 4294967295\nmemory = \"100GiB\"\nread = [\"/\"]\n",
        "",
    );
    let modest = bot(tmp.path(), "modest", "max_procs = 8\n", "");
    let out = tmp.path().join("out");
    let result = run(&[greedy, modest], &out, &["--max-procs", "20"], &[]);
    let err = stderr(&result);
    assert!(result.status.success(), "{err}");
    assert!(
        err.contains("warning: bot `greedy`: `max_procs = 4294967295` in `bot.toml` is above the operator's `--max-procs` (20), which applies"),
        "{err}"
    );
    assert!(err.contains("`memory = 100 GiB` in `bot.toml`"), "{err}");
    assert!(
        err.contains("`read = [\"/\"]` in `bot.toml` is ignored: a bot may read only directories shared with `--share`"),
        "{err}"
    );
    assert!(!err.contains("bot `modest`"), "{err}");
}

#[test]
fn bots_that_cannot_start_are_left_out_before_the_first_game() {
    let tmp = tempfile::tempdir().unwrap();
    // A fake interpreter in a private directory (a pyenv under root's home, say).
    let private = tmp.path().join("private");
    std::fs::create_dir(&private).unwrap();
    let interp = private.join("interp");
    std::fs::write(&interp, "#!/bin/sh\nexec /bin/sh \"$@\"\n").unwrap();
    std::fs::set_permissions(&interp, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let shim = bot(tmp.path(), "shim", "", "");
    let script = format!("#!{}\necho 0 0\n", interp.display());
    std::fs::write(shim.join("bot.sh"), script).unwrap();
    // A command only arena's `PATH` has, run through `env`.
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::copy("/bin/sh", bin.join("only-here-sh")).unwrap();
    let envbot = bot(tmp.path(), "envbot", "", "");
    std::fs::write(
        envbot.join("bot.sh"),
        "#!/usr/bin/env only-here-sh\necho 0 0\n",
    )
    .unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = tmp.path().join("out");
    let bots = [shim, envbot, fixtures("morra").join("constant")];
    let result = run(&bots, &out, &[], &[("PATH", &path)]);
    let err = stderr(&result);
    assert!(
        err.contains("warning: bot `envbot` is left out: `./bot.sh` runs `only-here-sh` through `env`, but `only-here-sh` is not found on the bots' `PATH`"),
        "{err}"
    );
    if root() {
        let want = format!(
            "warning: bot `shim` is left out: `{0}` is `{0}`, which bots cannot read (`{1}` is mode 0700)",
            interp.display(),
            private.display()
        );
        assert!(err.contains(&want), "no `{want}` in\n{err}");
    } else {
        eprintln!("not root: bots run as arena's user, who may read the private interpreter");
    }
}

#[test]
fn python3_in_command_is_the_python3_of_the_bots_path_issue_18() {
    require_python3();
    let tmp = tempfile::tempdir().unwrap();
    // arena's `PATH` starts with a `python3` of its own, in a private directory, as a pyenv
    // shim under root's home does; it is not the Python bots get.
    let shims = tmp.path().join("home/.pyenv/shims");
    std::fs::create_dir_all(&shims).unwrap();
    let fake = shims.join("python3");
    std::fs::write(&fake, "#!/bin/sh\necho fake python3 >&2\nexit 3\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        tmp.path().join("home"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    let script = "import sys\nprint('0 0')\n";
    // Named in `command`, and run through `#!/usr/bin/env python3`: the same interpreter.
    let named = tmp.path().join("named");
    std::fs::create_dir(&named).unwrap();
    std::fs::write(named.join("bot.toml"), "command = \"python3 bot.py\"\n").unwrap();
    std::fs::write(named.join("bot.py"), script).unwrap();
    let env = tmp.path().join("env");
    std::fs::create_dir(&env).unwrap();
    std::fs::write(env.join("bot.toml"), "command = \"./bot.py\"\n").unwrap();
    std::fs::write(
        env.join("bot.py"),
        format!("#!/usr/bin/env python3\n{script}"),
    )
    .unwrap();
    std::fs::set_permissions(env.join("bot.py"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", shims.display(), std::env::var("PATH").unwrap());
    let out = tmp.path().join("out");
    let result = run(&[named, env], &out, &[], &[("PATH", &path)]);
    let err = stderr(&result);
    assert!(result.status.success(), "{err}");
    assert!(!err.contains("left out"), "{err}");
    let rows = games(&out);
    assert_eq!(rows.len(), 1, "{err}");
    assert_eq!(rows[0]["reason"], "normal", "{rows:?}");
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    let named = info["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "named")
        .unwrap();
    let program = named["program"].as_str().unwrap();
    assert_ne!(program, fake.display().to_string());
    assert!(
        ["/usr/local/bin/python3", "/usr/bin/python3", "/bin/python3"].contains(&program),
        "{program}"
    );
}

#[test]
fn hostile_names_and_huge_values_are_refused_or_tamed() {
    let tmp = tempfile::tempdir().unwrap();
    let bots: Vec<PathBuf> = ["cgroup.procs", "..", "a/b", "tasks"]
        .iter()
        .enumerate()
        .map(|(i, n)| bot(tmp.path(), &format!("b{i}"), &format!("name = {n:?}\n"), ""))
        .collect();
    let long = bot(
        tmp.path(),
        "long",
        &format!("name = \"{}\"\n", "x".repeat(65_535)),
        "",
    );
    let mut all = bots.clone();
    all.push(long);
    let out = tmp.path().join("out");
    let result = run(&all, &out, &[], &[]);
    let err = stderr(&result);
    assert!(result.status.success(), "{err}");
    assert!(
        err.contains("`name` is longer than 100 characters"),
        "{err}"
    );
    assert_eq!(games(&out).len(), 6, "{err}");
    assert!(out.join("logs/bot-cgroup.procs.log").exists());

    for (args, flag) in [
        (vec!["--move-time", "10000000000000000000s"], "--move-time"),
        (vec!["--startup-time", "2days"], "--startup-time"),
    ] {
        let result = run(&bots[..2], &out, &args, &[]);
        assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
        assert!(stderr(&result).contains(flag), "{}", stderr(&result));
    }
    let result = run(
        &bots[..2],
        &tmp.path().join("o2"),
        &["--rounds", "4294967295"],
        &[],
    );
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("`--rounds 4294967295` and `--games 1` make 4294967295 games"),
        "{}",
        stderr(&result)
    );
}

/// A small seeded generator, so a failing case can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const VALUES: [&str; 20] = [
    "0",
    "1",
    "-1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999",
    "10000000000000000000s",
    "1ns",
    "25h",
    "99999999999GiB",
    "0B",
    "",
    "abc",
    "0/0",
    "3/2",
    "1/1",
    "1e9",
    "\u{202e}x",
    "beat-all",
];

fn assert_no_panic(out: &Output, case: &str) {
    let err = stderr(out);
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "{case}: {:?}\n{err}",
        out.status
    );
    assert!(!err.contains("panicked"), "{case}:\n{err}");
}

#[test]
fn random_command_lines_and_manifests_never_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    // Two bots that cannot start: every run stops after preparing them, quickly.
    let dead: Vec<PathBuf> = (0..2)
        .map(|i| {
            let b = tmp.path().join(format!("dead{i}"));
            std::fs::create_dir_all(&b).unwrap();
            std::fs::write(b.join("bot.toml"), "command = \"no-such-program-xyz\"\n").unwrap();
            b
        })
        .collect();
    let flags = [
        "--move-time",
        "--startup-time",
        "--build-time",
        "--rounds",
        "--games",
        "--memory",
        "--max-procs",
        "--max-output",
        "--log-limit",
        "--max-bot-size",
        "--jobs",
        "--instances",
        "--seed",
        "--shard",
        "--pass",
        "--pass-env",
        "--share",
        "--opening-plies",
    ];
    for case in 0..150 {
        let mut args: Vec<String> = Vec::new();
        for _ in 0..1 + rng.next() % 3 {
            args.push(rng.pick(&flags).to_string());
            args.push(rng.pick(&VALUES).to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = tmp.path().join(format!("cli{case}"));
        let result = run(&dead, &out, &args, &[]);
        assert_no_panic(&result, &format!("case {case}: {args:?}"));
    }

    // Random manifests: many bots in a few runs, each one loaded, checked and prepared.
    let keys = [
        "command",
        "protocol",
        "build",
        "name",
        "memory",
        "max_procs",
        "max_output",
        "read",
        "env",
        "options",
        "init",
        "description",
    ];
    let toml_values = [
        "\"./bot.sh\"",
        "\"\"",
        "0",
        "-1",
        "4294967295",
        "18446744073709551615",
        "\"99999999999GiB\"",
        "\"cgroup.procs\"",
        "\"..\"",
        "[\"/\"]",
        "{ ARENA_SEED = \"1\" }",
        "{ A = \"\\u0000\" }",
        "{ PATH = \"/x\" }",
        "\"gtp\"",
        "\"lines\"",
        "\"'unbalanced\"",
        "1.5",
        "true",
    ];
    for batch in 0..3 {
        let dir = tmp.path().join(format!("fuzz{batch}"));
        let mut bots = Vec::new();
        for i in 0..50 {
            let mut text = String::new();
            let mut used = Vec::new();
            for _ in 0..1 + rng.next() % 4 {
                let key = rng.pick(&keys);
                if !used.contains(&key) {
                    used.push(key);
                    text.push_str(&format!("{key} = {}\n", rng.pick(&toml_values)));
                }
            }
            let b = dir.join(format!("f{i}"));
            std::fs::create_dir_all(&b).unwrap();
            std::fs::write(b.join("bot.toml"), &text).unwrap();
            std::fs::write(b.join("bot.sh"), "#!/bin/sh\nexit 1\n").unwrap();
            bots.push(b);
        }
        let out = tmp.path().join(format!("fuzz-out{batch}"));
        let result = run(&bots, &out, &["--move-time", "100ms"], &[]);
        assert_no_panic(&result, &format!("manifest batch {batch}"));
    }
}

#[test]
fn tournaments_running_at_once_never_share_a_bot_uid_issue_11() {
    let tmp = tempfile::tempdir().unwrap();
    // Each bot notes its uid, and moves slowly enough for the two runs to overlap.
    let bots: Vec<PathBuf> = ["slow-a", "slow-b"]
        .iter()
        .map(|n| bot(tmp.path(), n, "", "id -u >> uids; sleep 0.3"))
        .collect();
    let runs: Vec<(PathBuf, std::process::Child)> = ["one", "two"]
        .iter()
        .map(|r| {
            let out = tmp.path().join(r);
            let child = Command::new(env!("CARGO_BIN_EXE_arena"))
                .args(["run", "morra"])
                .args(&bots)
                .args(["--morra-rounds", "3", "--keep-work", "--quiet", "--out"])
                .arg(&out)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
            (out, child)
        })
        .collect();
    let mut seen: Vec<Vec<String>> = Vec::new();
    for (out, mut child) in runs {
        assert!(child.wait().unwrap().success());
        let mut uids = Vec::new();
        for b in ["slow-a", "slow-b"] {
            let text = std::fs::read_to_string(out.join("work").join(b).join("uids")).unwrap();
            uids.extend(text.lines().map(str::to_string));
        }
        uids.sort();
        uids.dedup();
        seen.push(uids);
    }
    if root() {
        assert!(
            seen.iter().all(|u| u.len() == 2),
            "one uid per bot: {seen:?}"
        );
        assert!(
            seen[0].iter().all(|u| !seen[1].contains(u)),
            "the runs share a uid: {seen:?}"
        );
    } else {
        // Without root every bot runs as the user running arena.
        let me = rustix::process::geteuid().as_raw().to_string();
        assert!(
            seen.iter().all(|u| u == std::slice::from_ref(&me)),
            "{seen:?}"
        );
    }
}
