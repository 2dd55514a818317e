//! Tests of `cgroup.rs`.

use super::*;

#[test]
fn only_leftovers_of_dead_runs_are_stale() {
    let me = std::process::id();
    // pid_max is far below this, so no such process exists.
    assert!(is_stale("arena-4000000000", "arena-"));
    assert!(is_stale("arena-work-4000000000-1a2b3c4d", "arena-work-"));
    assert!(!is_stale(&format!("arena-{me}"), "arena-"));
    assert!(!is_stale("arena-1", "arena-"), "pid 1 is alive");
    assert!(!is_stale("arena-work-deadbeef", "arena-work-"));
    assert!(!is_stale("something-else", "arena-"));
}

#[test]
fn cgroup_paths_follow_proc_self_cgroup() {
    let env = CgroupEnv::this_process();
    // Whatever the machine, the paths lie under the controllers' mount points.
    if let Some(memory) = env.own_v1("memory") {
        assert!(memory.starts_with("/sys/fs/cgroup/memory"));
    }
    if let Some(own) = env.own_v2() {
        assert!(own.starts_with("/sys/fs/cgroup"));
    }
    let docker = CgroupEnv {
        fs_root: "/nonexistent".into(),
        self_cgroup: "0::/\n".into(),
        pid: 1,
        euid: 0,
    };
    assert_eq!(docker.own_v2(), None, "nothing mounted there");
    assert_eq!(count("oom 1\noom_kill 3\n", "oom_kill"), Some(3));
    assert_eq!(count("usage_usec 12\n", "oom_kill"), None);
}

#[test]
fn a_cage_freezes_and_kills_through_its_open_files() {
    // A directory that mimics a cgroup v2 one: the cage writes `cgroup.freeze` and
    // `cgroup.kill` in place, through the files it opened when it was made.
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game");
    std::fs::create_dir(&game).unwrap();
    std::fs::write(game.join("cgroup.procs"), "").unwrap();
    std::fs::write(game.join("cgroup.freeze"), "0").unwrap();
    std::fs::write(game.join("cgroup.kill"), "").unwrap();
    let spec = CageSpec {
        path: Some(&game),
        ..CageSpec::default()
    };
    let cage = Cage::new(spec, None, 0).unwrap();
    assert!(cage.has_cgroup());
    cage.freeze(true);
    assert_eq!(
        std::fs::read_to_string(game.join("cgroup.freeze")).unwrap(),
        "1"
    );
    cage.freeze(false);
    assert_eq!(
        std::fs::read_to_string(game.join("cgroup.freeze")).unwrap(),
        "0"
    );
    assert_eq!(cage.procs_fds()[1], -1);
    let kill = game.join("cgroup.kill");
    std::fs::rename(&kill, game.join("moved")).unwrap();
    cage.kill();
    assert_eq!(std::fs::read_to_string(game.join("moved")).unwrap(), "1");
    assert!(!kill.exists(), "the open file was written, not a new one");
}
