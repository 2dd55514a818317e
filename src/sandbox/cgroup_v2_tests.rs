//! The cgroup v2 path against a directory tree that mimics cgroupfs (CI machines here have
//! cgroup v1 controllers and an empty v2): which values go into which files, in which order,
//! for root, in a container's cgroup namespace and for a user with a delegated subtree, and
//! what `arena doctor` then says.

use std::path::{Path, PathBuf};

use super::super::cgroup::{trace, CgroupEnv};
use super::super::{Limits, Sandbox};

/// What the kernel does on `mkdir` in cgroupfs: the interface files, and a controller's files
/// only if the parent enabled it in its `cgroup.subtree_control`.
fn kernel(dir: &Path) {
    let parent = std::fs::read_to_string(dir.parent().unwrap().join("cgroup.subtree_control"))
        .unwrap_or_default();
    let files = [
        (
            "cgroup.controllers",
            parent.replace('+', "").trim().to_string(),
        ),
        ("cgroup.subtree_control", String::new()),
        ("cgroup.procs", String::new()),
        ("cgroup.freeze", "0".into()),
        ("cgroup.kill", String::new()),
        ("cgroup.events", "populated 0\nfrozen 0\n".into()),
    ];
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let controllers: Vec<&str> = parent
        .split_whitespace()
        .map(|c| c.trim_start_matches('+'))
        .collect();
    let per_controller = [
        ("memory", "memory.max", "max"),
        ("memory", "memory.swap.max", "max"),
        (
            "memory",
            "memory.events",
            "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n",
        ),
        ("pids", "pids.max", "max"),
        ("cpu", "cpu.max", "max 100000"),
        ("cpu", "cpu.stat", "usage_usec 0\n"),
    ];
    for (controller, file, text) in per_controller {
        if controllers.contains(&controller) {
            std::fs::write(dir.join(file), text).unwrap();
        }
    }
}

/// A machine whose cgroup v2 is mounted at `<tmp>/fs` and whose process `pid` is in the
/// cgroup `own` (relative), which offers `offered` and holds the processes `procs`.
fn machine(tmp: &Path, own: &str, offered: &str, procs: &str, pid: u32, euid: u32) -> CgroupEnv {
    let fs = tmp.join("fs");
    let dir = fs.join(own);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(fs.join("cgroup.controllers"), "cpuset cpu io memory pids").unwrap();
    std::fs::write(dir.join("cgroup.controllers"), offered).unwrap();
    std::fs::write(dir.join("cgroup.subtree_control"), "").unwrap();
    std::fs::write(dir.join("cgroup.procs"), procs).unwrap();
    trace::start(kernel);
    CgroupEnv {
        fs_root: fs,
        self_cgroup: format!("0::/{own}\n"),
        pid,
        euid,
    }
}

fn limits() -> Limits {
    Limits {
        memory: 64 << 20,
        max_procs: 20,
        max_output: 1 << 20,
        milli_cpus: 500,
    }
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap().trim().to_string()
}

/// The index of the first step equal to `step`, failing with all steps.
fn at(steps: &[String], step: &str) -> usize {
    steps
        .iter()
        .position(|s| s == step)
        .unwrap_or_else(|| panic!("no step `{step}` in {steps:#?}"))
}

/// What doctor says about `name`.
fn says(sandbox: &Sandbox, name: &str) -> (bool, String) {
    let p = sandbox.protections.iter().find(|p| p.name == name).unwrap();
    (p.active, p.detail.clone())
}

fn run_dir(sandbox: &Sandbox) -> PathBuf {
    sandbox.roots.unified.as_ref().unwrap().dir.clone()
}

#[test]
fn a_v2_only_machine_limits_each_game_through_cgroup_v2() {
    let tmp = tempfile::tempdir().unwrap();
    let own = "user.slice/session-1.scope";
    let env = machine(tmp.path(), own, "cpu io memory pids", "4242\n", 4242, 0);
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    let run = run_dir(&sandbox);
    let tag = run.file_name().unwrap().to_string_lossy().into_owned();
    let fs = &env.fs_root;

    // Arena left its cgroup for a leaf, then gave the controllers to its children, then made
    // the run's cgroup and gave them to the games' cgroups.
    let steps = trace::steps(fs);
    let moved = at(
        &steps,
        &format!("write {own}/arena-4242-ctl/cgroup.procs 4242"),
    );
    assert!(at(&steps, &format!("mkdir {own}/arena-4242-ctl")) < moved);
    let all = "+memory +pids +cpu";
    let enabled = at(&steps, &format!("write {own}/cgroup.subtree_control {all}"));
    assert!(moved < enabled);
    let made = at(&steps, &format!("mkdir {own}/{tag}"));
    assert!(
        enabled < made,
        "controllers are enabled before children are made"
    );
    let given = at(
        &steps,
        &format!("write {own}/{tag}/cgroup.subtree_control {all}"),
    );
    assert!(made < given);
    assert_eq!(sandbox.roots.memory, None, "no cgroup v1 on this machine");

    // Each game's cage gets the limits, written before anything can join it.
    let work = tempfile::tempdir().unwrap();
    let jail = sandbox
        .jail(0, "bot@1", work.path(), limits(), &[])
        .unwrap();
    let cage = jail.cage("g7").unwrap();
    let game = run.join("bot@1-g7");
    assert_eq!(read(game.join("memory.max")), (64u64 << 20).to_string());
    assert_eq!(read(game.join("memory.swap.max")), "0");
    assert_eq!(read(game.join("pids.max")), "20");
    assert_eq!(read(game.join("cpu.max")), "50000 100000");
    let steps = trace::steps(fs);
    let join = at(&steps, &format!("open {own}/{tag}/bot@1-g7/cgroup.procs"));
    for file in ["memory.max", "memory.swap.max", "pids.max", "cpu.max"] {
        let value = read(game.join(file));
        assert!(
            at(
                &steps,
                &format!("write {own}/{tag}/bot@1-g7/{file} {value}")
            ) < join
        );
    }
    assert!(cage.has_cgroup());
    assert_eq!(cage.procs_fds()[1..], [-1, -1, -1], "no cgroup v1 to join");

    // An OOM kill in the game's cgroup is the bot's memory limit.
    assert!(!cage.hit_memory_limit(&jail));
    std::fs::write(game.join("memory.events"), "oom 1\noom_kill 1\n").unwrap();
    assert!(cage.hit_memory_limit(&jail));
    std::fs::write(game.join("cpu.stat"), "usage_usec 1500000\n").unwrap();
    assert_eq!(
        cage.cpu_usage(),
        Some(std::time::Duration::from_millis(1500))
    );

    let memory = says(&sandbox, "memory limit");
    assert!(
        memory.0 && memory.1.contains("cgroup v2 `memory.max`, no swap"),
        "{memory:?}"
    );
    let procs = says(&sandbox, "process limit");
    assert!(
        procs.0 && procs.1.contains("cgroup v2 `pids.max`"),
        "{procs:?}"
    );
    let cpu = says(&sandbox, "fair cpu");
    assert!(
        cpu.0 && cpu.1.contains("0.5 CPU") && cpu.1.contains("`cpu.max`"),
        "{cpu:?}"
    );
    let kill = says(&sandbox, "no survivors");
    assert!(kill.0 && kill.1.contains("arena-4242-ctl"), "{kill:?}");
}

#[test]
fn a_container_s_cgroup_namespace_is_used_from_its_root() {
    // Docker with its own cgroup namespace: `0::/`, arena the container's only process.
    let tmp = tempfile::tempdir().unwrap();
    let env = machine(tmp.path(), "", "cpu memory pids", "7\n", 7, 0);
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    let run = run_dir(&sandbox);
    assert_eq!(run.parent(), Some(env.fs_root.as_path()));
    assert_eq!(read(env.fs_root.join("arena-7-ctl/cgroup.procs")), "7");
    let all = "+memory +pids +cpu";
    assert_eq!(read(env.fs_root.join("cgroup.subtree_control")), all);
    assert_eq!(read(run.join("cgroup.controllers")), "memory pids cpu");
    assert_eq!(read(run.join("cgroup.subtree_control")), all);
    assert!(says(&sandbox, "fair cpu").0);
}

#[test]
fn controllers_already_enabled_need_no_move() {
    // systemd enabled the controllers for arena's service: arena stays where it is.
    let tmp = tempfile::tempdir().unwrap();
    let env = machine(
        tmp.path(),
        "system.slice/x.service",
        "memory pids cpu",
        "",
        9,
        0,
    );
    std::fs::write(
        env.own_v2().unwrap().join("cgroup.subtree_control"),
        "memory pids cpu",
    )
    .unwrap();
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    let steps = trace::steps(&env.fs_root);
    assert!(!steps.iter().any(|s| s.contains("-ctl")), "{steps:#?}");
    assert!(!steps
        .iter()
        .any(|s| s.starts_with("write system.slice/x.service/cgroup.subtree_control")));
    assert_eq!(
        sandbox.roots.unified.as_ref().unwrap().controllers,
        ["memory", "pids", "cpu"]
    );
}

/// A uid other than this process's, for a cgroup that is not delegated to it.
fn other_uid() -> u32 {
    rustix::process::geteuid().as_raw() + 1
}

#[test]
fn a_user_s_delegated_subtree_is_used_and_another_s_is_not() {
    let me = rustix::process::geteuid().as_raw();
    // As root the test plays uid 1000 and gives it the subtree, as systemd would.
    let user = if me == 0 { 1000 } else { me };
    let own = format!("user.slice/user-{user}.slice/user@{user}.service/app.slice/run.scope");
    let tmp = tempfile::tempdir().unwrap();
    let env = machine(tmp.path(), &own, "cpu memory pids", "", 11, user);
    let dir = env.own_v2().unwrap();
    if me == 0 {
        for f in ["", "cgroup.procs", "cgroup.subtree_control"] {
            std::os::unix::fs::chown(dir.join(f), Some(user), Some(user)).unwrap();
        }
    }
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    let v2 = sandbox.roots.unified.as_ref().unwrap();
    assert!(v2.delegated);
    assert_eq!(v2.controllers, ["memory", "pids", "cpu"]);
    let kill = says(&sandbox, "no survivors");
    assert!(
        kill.0 && kill.1.contains("delegated to this user"),
        "{kill:?}"
    );
    let procs = says(&sandbox, "process limit");
    assert!(
        procs.0 && procs.1.contains("cgroup v2 `pids.max`"),
        "{procs:?}"
    );

    // A cgroup that belongs to someone else (a login session's scope, owned by root).
    let tmp = tempfile::tempdir().unwrap();
    let env = machine(
        tmp.path(),
        "user.slice/session-2.scope",
        "cpu memory pids",
        "",
        12,
        other_uid(),
    );
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    assert!(sandbox.roots.unified.is_none());
    assert!(trace::steps(&env.fs_root).is_empty(), "nothing is touched");
    // With a namespace jail (this machine gives one) the PID namespace leaves no survivors and
    // RLIMIT_NPROC counts per user namespace; the missing cgroup is named either way.
    let jailed = sandbox.namespaces.is_ok();
    let kill = says(&sandbox, "no survivors");
    assert!(
        kill.0 == jailed && kill.1.contains("is not delegated to uid"),
        "{kill:?}"
    );
    // With a jail whose /proc is its own, a sampler bounds all of a bot's processes together.
    let memory = says(&sandbox, "memory limit");
    assert!(
        memory.1.contains("RLIMIT_AS fallback: arena's cgroup")
            || (jailed
                && memory.1.contains("sampled every")
                && memory.1.contains("arena's cgroup")),
        "{memory:?}"
    );
    let procs = says(&sandbox, "process limit");
    assert!(
        procs.0 == jailed && procs.1.contains("arena's cgroup"),
        "{procs:?}"
    );
    assert!(!says(&sandbox, "fair cpu").0);
}

#[test]
fn missing_controllers_are_reported_not_skipped() {
    // Only `memory` is offered to arena's cgroup.
    let tmp = tempfile::tempdir().unwrap();
    let env = machine(tmp.path(), "a.scope", "memory io", "", 5, 0);
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    let v2 = sandbox.roots.unified.as_ref().unwrap();
    assert_eq!(v2.controllers, ["memory"]);
    let procs = says(&sandbox, "process limit");
    assert!(
        procs.1.contains("the `pids` controller is not offered"),
        "{procs:?}"
    );
    let cpu = says(&sandbox, "fair cpu");
    assert!(
        !cpu.0 && cpu.1.contains("the `cpu` controller is not offered"),
        "{cpu:?}"
    );
    let work = tempfile::tempdir().unwrap();
    let jail = sandbox.jail(0, "b", work.path(), limits(), &[]).unwrap();
    let cage = jail.cage("g").unwrap();
    assert!(cage.has_cgroup());
    assert!(!v2.dir.join("b-g/pids.max").exists());
    assert_eq!(
        read(v2.dir.join("b-g/memory.max")),
        (64u64 << 20).to_string()
    );

    // A subtree_control that cannot be written: each controller says so.
    let tmp = tempfile::tempdir().unwrap();
    let env = machine(tmp.path(), "b.scope", "memory pids cpu", "", 6, 0);
    let control = env.own_v2().unwrap().join("cgroup.subtree_control");
    std::fs::remove_file(&control).unwrap();
    std::fs::create_dir(&control).unwrap();
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    assert!(sandbox
        .roots
        .unified
        .as_ref()
        .unwrap()
        .controllers
        .is_empty());
    let memory = says(&sandbox, "memory limit");
    assert!(
        memory.1.contains("cannot enable it for arena's children"),
        "{memory:?}"
    );
    assert!(says(&sandbox, "no survivors").0, "cgroup.kill still works");
}

#[test]
fn a_cage_whose_limits_cannot_be_written_is_refused() {
    // The run's cgroup promised `pids`, but the game's cgroup has no `pids.max`: no game runs
    // without its limits.
    let tmp = tempfile::tempdir().unwrap();
    let env = machine(tmp.path(), "c.scope", "memory pids cpu", "", 8, 0);
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    let work = tempfile::tempdir().unwrap();
    let jail = sandbox.jail(0, "b", work.path(), limits(), &[]).unwrap();
    let run = run_dir(&sandbox);
    std::fs::write(run.join("cgroup.subtree_control"), "memory").unwrap();
    let err = jail.cage("g").unwrap_err();
    assert!(format!("{err:#}").contains("pids.max"), "{err:#}");
}

#[test]
fn a_game_s_cgroup_serves_the_bot_s_next_game_in_its_holder_with_its_counts_afresh() {
    let tmp = tempfile::tempdir().unwrap();
    let env = machine(tmp.path(), "a.scope", "memory pids cpu", "", 5, 0);
    let sandbox = Sandbox::probe_in(limits(), true, &env);
    let run = run_dir(&sandbox);
    let work = tempfile::tempdir().unwrap();
    let jail = sandbox.jail(0, "b", work.path(), limits(), &[]).unwrap();
    let cage = jail.cage("g1").unwrap();
    assert!(
        cage.namespace.is_some(),
        "the jail's namespaces (root here, or a user namespace) give the game a holder"
    );
    assert_eq!(cage.cgroup_path(), Some(run.join("b-g1").as_path()));
    // The OOM killer ends a process of the first game; the game ends and its cgroup is empty.
    std::fs::write(run.join("b-g1/memory.events"), "oom 1\noom_kill 1\n").unwrap();
    assert!(cage.hit_memory_limit(&jail));
    cage.close();

    // The next game takes the holder, and with it the cgroup, limits written: no new one.
    let cage = jail.cage("g2").unwrap();
    assert_eq!(cage.cgroup_path(), Some(run.join("b-g1").as_path()));
    assert!(!run.join("b-g2").exists());
    assert_eq!(read(run.join("b-g1/memory.max")), (64u64 << 20).to_string());
    assert!(
        !cage.hit_memory_limit(&jail),
        "the last game's OOM kill is not this one's"
    );
    std::fs::write(run.join("b-g1/memory.events"), "oom 2\noom_kill 2\n").unwrap();
    assert!(cage.hit_memory_limit(&jail));
    // A cgroup with a process left in it is never handed on.
    std::fs::write(run.join("b-g1/cgroup.events"), "populated 1\nfrozen 0\n").unwrap();
    cage.close();
    let cage = jail.cage("g3").unwrap();
    assert_eq!(cage.cgroup_path(), Some(run.join("b-g3").as_path()));
}
