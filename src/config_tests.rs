//! Tests of the run configuration: parsing, defaults, and the round trip through JSON.

use super::*;
use clap::Parser;

#[derive(Debug, Parser)]
struct Wrapper {
    #[command(flatten)]
    config: RunConfig,
}

fn parse(args: &[&str]) -> RunConfig {
    Wrapper::try_parse_from(std::iter::once("arena").chain(args.iter().copied()))
        .unwrap()
        .config
}

#[test]
fn every_option_survives_a_round_trip_through_json() {
    let config = parse(&[
        "othello",
        "a",
        "gtp:/usr/games/gtp-rhino --level 3",
        "--rounds",
        "3",
        "--games",
        "4",
        "--gauntlet",
        "ref",
        "--pass",
        "min-score:60",
        "--shard",
        "2/5",
        "--opening-plies",
        "6",
        "--seed",
        "7",
        "--jobs",
        "3",
        "--move-time",
        "1s 500ms",
        "--startup-time",
        "2s",
        "--build-time",
        "1min",
        "--memory",
        "1GiB",
        "--max-procs",
        "9",
        "--max-output",
        "1MiB",
        "--log-limit",
        "4KiB",
        "--no-sandbox",
        "--allow-network",
        "--pause-opponent",
        "off",
        "--out",
        "o",
        "--no-replays",
        "--keep-work",
        "--pass-env",
        "SECRET",
        "--share",
        "/opt",
        "--max-bot-size",
        "1GiB",
        "--anchor",
        "x",
        "--morra-rounds",
        "20",
        "--digits",
        "4",
    ]);
    let json = serde_json::to_string_pretty(&config).unwrap();
    let back: RunConfig = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_string_pretty(&back).unwrap(), json);
    assert_eq!(back.move_limits().move_time, Duration::from_millis(1500));
    assert_eq!(back.tournament.shard, Some(Shard { index: 2, count: 5 }));
    assert_eq!(back.tournament.pass, Rule::MinScore(60));
    assert_eq!(back.limits.log_limit, 4096);
    assert_eq!(back.rules.digits, 4);
    assert_eq!(back.sandbox.pass_env, ["SECRET"]);
    assert_eq!(back.limits.max_bot_size, 1 << 30);
    assert!(!back.pause_opponent());
    assert!(json.contains("\"move_time\": \"1s 500ms\""), "{json}");
    assert!(
        json.contains("\"gtp:/usr/games/gtp-rhino --level 3\""),
        "{json}"
    );
}

#[test]
fn defaults_depend_on_the_game_and_are_resolved_once() {
    let config = parse(&["numeron", "x", "--out", "o"]).resolve().unwrap();
    assert_eq!(config.games_per_pairing(), 10);
    assert_eq!(config.tournament.games, Some(10));
    assert_eq!(config.move_limits().move_time, Duration::from_secs(5));
    assert!(config.pause_opponent());
    assert!(config.tournament.seed.is_some());
    assert!(config.bots[0].path().unwrap().is_absolute());
    let err = parse(&["morra", "x", "--opening-plies", "2"])
        .resolve()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("`--opening-plies` applies to othello"),
        "{err}"
    );
}

#[test]
fn cpus_are_a_share_and_older_files_get_one() {
    let config = parse(&["morra", "x", "--cpus", "0.5"]);
    assert_eq!(config.sandbox_limits().milli_cpus, 500);
    assert_eq!(parse(&["morra", "x"]).sandbox_limits().milli_cpus, 1000);
    for bad in ["0", "-1", "NaN", "2000", "one"] {
        let args = ["arena", "morra", "x", "--cpus", bad];
        assert!(Wrapper::try_parse_from(args).is_err(), "{bad}");
    }
    let mut json = serde_json::to_value(&config).unwrap();
    json["limits"].as_object_mut().unwrap().remove("cpus");
    let back: RunConfig = serde_json::from_value(json).unwrap();
    assert_eq!(back.limits.cpus, 1.0);
}

#[test]
fn timestamps_are_compact() {
    let t = timestamp();
    assert_eq!(t.len(), 15, "{t}");
    assert_eq!(&t[8..9], "-");
}
