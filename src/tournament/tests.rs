//! Unit tests of the tournament's logic with scripted players: no processes.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::runner::{play_schedule, GameSeed, Plan, Played, Seats, Settings};
use crate::game::{GameConfig, GameKind};
use crate::player::scripted::{Scripted, Strategy};
use crate::player::{Failure, Player, Request};
use crate::results::games::{Culprit, GameRecord, GameResult, Reason};
use crate::schedule::{gauntlet, round_robin, shard, Pairing};

/// Bots played by strategies; counts how many games each bot plays at once.
struct Strategies {
    bots: Vec<(String, Strategy)>,
    /// Games a bot may play at once.
    capacity: usize,
    playing: Arc<Vec<AtomicUsize>>,
    most_at_once: Arc<AtomicUsize>,
    /// The games told over to [`Seats::watch`], in the order they ended.
    over: std::sync::Mutex<Vec<u64>>,
}

impl Strategies {
    fn new(bots: &[(&str, Strategy)]) -> Self {
        Strategies {
            bots: bots.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
            capacity: 1,
            playing: Arc::new(bots.iter().map(|_| AtomicUsize::new(0)).collect()),
            most_at_once: Arc::new(AtomicUsize::new(0)),
            over: std::sync::Mutex::default(),
        }
    }
}

/// A scripted player that keeps count of its bot's running games.
struct Counted {
    inner: Scripted,
    bot: usize,
    playing: Arc<Vec<AtomicUsize>>,
}

impl Player for Counted {
    async fn ask(&mut self, request: Request<'_>) -> Result<String, Failure> {
        // Let other games run between moves, as real bots do.
        tokio::task::yield_now().await;
        self.inner.ask(request).await
    }

    async fn finish(&mut self) {
        self.inner.finish().await;
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.playing[self.bot].fetch_sub(1, Ordering::SeqCst);
    }
}

impl Seats for Strategies {
    type Player = Counted;

    fn name(&self, bot: usize) -> &str {
        &self.bots[bot].0
    }

    fn capacity(&self, _bot: usize) -> usize {
        self.capacity
    }

    fn watch(&self, game_id: u64, event: super::runner::Watch<'_>) {
        if let super::runner::Watch::Over { .. } = event {
            self.over.lock().unwrap().push(game_id);
        }
    }

    fn player(&self, bot: usize, _game: &GameSeed) -> Counted {
        let now = self.playing[bot].fetch_add(1, Ordering::SeqCst) + 1;
        self.most_at_once.fetch_max(now, Ordering::SeqCst);
        Counted {
            inner: Scripted::playing(self.bots[bot].1),
            bot,
            playing: Arc::clone(&self.playing),
        }
    }
}

fn settings(game: GameKind, jobs: usize) -> Arc<Settings> {
    Arc::new(Settings {
        run_id: "test".into(),
        game,
        rules: GameConfig {
            morra_rounds: 5,
            ..GameConfig::default()
        },
        seed: 11,
        opening_plies: 0,
        book: None,
        clock: None,
        jobs,
        replays: None,
        move_time: std::time::Duration::from_secs(1),
    })
}

fn play(
    settings: &Arc<Settings>,
    seats: &Arc<Strategies>,
    schedule: Vec<Pairing>,
    stop_after: Option<usize>,
) -> Played {
    play_with(settings, seats, Plan::now(schedule), stop_after)
}

/// [`play`], of a whole plan.
fn play_with(
    settings: &Arc<Settings>,
    seats: &Arc<Strategies>,
    plan: Plan<'_>,
    stop_after: Option<usize>,
) -> Played {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stop = Arc::new(tokio::sync::Notify::new());
    let mut seen = 0;
    let bots = seats.bots.len();
    runtime
        .block_on(play_schedule(
            settings,
            seats,
            bots,
            plan,
            {
                let stop = Arc::clone(&stop);
                async move { stop.notified().await }
            },
            &mut |_record| {
                seen += 1;
                if Some(seen) == stop_after {
                    stop.notify_one();
                }
                Ok(())
            },
        ))
        .unwrap()
}

/// Records without their timing, in game order, for comparisons.
fn results(records: &[GameRecord]) -> Vec<GameRecord> {
    let mut records: Vec<GameRecord> = records
        .iter()
        .map(|r| GameRecord {
            duration_ms: 0,
            ..r.clone()
        })
        .collect();
    records.sort_by_key(|r| r.game_id);
    records
}

fn fives(_: &Request<'_>) -> Result<String, Failure> {
    Ok("5 0".into())
}

fn zeros(_: &Request<'_>) -> Result<String, Failure> {
    Ok("0 3".into())
}

fn sleepy(_: &Request<'_>) -> Result<String, Failure> {
    Err(Failure::Timeout)
}

fn crashy(_: &Request<'_>) -> Result<String, Failure> {
    Err(Failure::Crash("exited with status 1".into()))
}

fn first_legal(request: &Request<'_>) -> Result<String, Failure> {
    Scripted::first_legal(request)
}

#[test]
fn a_round_robin_plays_every_pairing_with_the_rules_result() {
    let seats = Arc::new(Strategies::new(&[
        ("fives", fives),
        ("zeros", zeros),
        ("also-fives", fives),
        ("more-zeros", zeros),
    ]));
    let played = play(
        &settings(GameKind::Morra, 2),
        &seats,
        round_robin(4, 1, 1),
        None,
    );
    assert!(!played.interrupted);
    assert_eq!(played.records.len(), 6);
    let pairs: HashSet<(String, String)> = played
        .records
        .iter()
        .map(|r| {
            let mut p = [r.bot_a.clone(), r.bot_b.clone()];
            p.sort();
            (p[0].clone(), p[1].clone())
        })
        .collect();
    assert_eq!(pairs.len(), 6, "every pair meets once");
    for r in &played.records {
        assert_eq!(r.reason, Reason::Normal);
        assert_eq!(r.plies, 5);
        // Showing 5 and guessing the 0 the other shows scores 5 a round; guessing 3 misses.
        let fives = |name: &str| name.contains("fives");
        match (fives(&r.bot_a), fives(&r.bot_b)) {
            (true, false) => assert_eq!((r.result, r.score_a), (GameResult::A, 25), "{r:?}"),
            (false, true) => assert_eq!((r.result, r.score_b), (GameResult::B, 25), "{r:?}"),
            _ => assert_eq!(r.result, GameResult::Draw, "{r:?}"),
        }
    }
}

#[test]
fn forfeits_lose_with_their_reason_and_the_tournament_goes_on() {
    let seats = Arc::new(Strategies::new(&[
        ("sleepy", sleepy),
        ("steady", fives),
        ("crashy", crashy),
    ]));
    let played = play(
        &settings(GameKind::Morra, 1),
        &seats,
        round_robin(3, 1, 1),
        None,
    );
    let by_pair: BTreeMap<(String, String), &GameRecord> = played
        .records
        .iter()
        .map(|r| ((r.bot_a.clone(), r.bot_b.clone()), r))
        .collect();
    assert_eq!(by_pair.len(), 3);
    for r in by_pair.values() {
        let names = [r.bot_a.as_str(), r.bot_b.as_str()];
        if names.contains(&"sleepy") && names.contains(&"crashy") {
            // Both fail in the same round: a draw, recorded with the worse reason.
            assert_eq!(
                (r.result, r.reason, r.culprit),
                (GameResult::Draw, Reason::Crash, Culprit::Both)
            );
        } else {
            let loser = if names.contains(&"sleepy") {
                "sleepy"
            } else {
                "crashy"
            };
            let reason = if loser == "sleepy" {
                Reason::Timeout
            } else {
                Reason::Crash
            };
            let (result, culprit) = if r.bot_a == loser {
                (GameResult::B, Culprit::A)
            } else {
                (GameResult::A, Culprit::B)
            };
            assert_eq!(
                (r.result, r.reason, r.culprit),
                (result, reason, culprit),
                "{r:?}"
            );
        }
    }
}

#[test]
fn colours_are_balanced_and_no_bot_plays_two_games_at_once() {
    let bots: Vec<(&str, Strategy)> = ["a", "b", "c", "d", "e"]
        .into_iter()
        .map(|n| (n, first_legal as Strategy))
        .collect();
    let seats = Arc::new(Strategies::new(&bots));
    let played = play(
        &settings(GameKind::Othello, 4),
        &seats,
        round_robin(5, 1, 2),
        None,
    );
    assert_eq!(played.records.len(), 20);
    assert_eq!(seats.most_at_once.load(Ordering::SeqCst), 1);
    let mut first = BTreeMap::<&str, u32>::new();
    let mut second = BTreeMap::<&str, u32>::new();
    for r in &played.records {
        *first.entry(&r.bot_a).or_default() += 1;
        *second.entry(&r.bot_b).or_default() += 1;
        assert_eq!(r.reason, Reason::Normal);
    }
    for bot in ["a", "b", "c", "d", "e"] {
        assert_eq!((first[bot], second[bot]), (4, 4), "{bot}");
    }
}

#[test]
fn an_interrupted_schedule_resumes_to_the_same_results() {
    let bots: Vec<(&str, Strategy)> =
        vec![("p", first_legal), ("q", first_legal), ("r", first_legal)];
    let seats = Arc::new(Strategies::new(&bots));
    let settings = settings(GameKind::Gomoku, 2);
    let schedule = round_robin(3, 2, 2);
    let whole = play(&settings, &seats, schedule.clone(), None);
    let first = play(&settings, &seats, schedule.clone(), Some(4));
    assert!(first.interrupted);
    assert!(first.records.len() >= 4 && first.records.len() < schedule.len());
    let done: HashSet<u64> = first.records.iter().map(|r| r.game_id).collect();
    let rest = schedule
        .into_iter()
        .filter(|p| !done.contains(&p.game_id))
        .collect();
    let second = play(&settings, &seats, rest, None);
    assert!(!second.interrupted);
    let mut resumed = first.records;
    resumed.extend(second.records);
    assert_eq!(results(&resumed), results(&whole.records));
}

#[test]
fn shards_together_play_the_whole_gauntlet_once() {
    let bots: Vec<(&str, Strategy)> =
        vec![("ref", fives), ("x", zeros), ("y", fives), ("z", sleepy)];
    let seats = Arc::new(Strategies::new(&bots));
    let settings = settings(GameKind::Morra, 2);
    let schedule = gauntlet(&[1, 2, 3], &[0], 2, 1);
    let whole = play(&settings, &seats, schedule.clone(), None);
    assert!(whole
        .records
        .iter()
        .all(|r| r.bot_a == "ref" || r.bot_b == "ref"));
    let mut merged = Vec::new();
    for index in 1..=3 {
        let part = shard(schedule.clone(), index, 3, 5);
        merged.extend(play(&settings, &seats, part, None).records);
    }
    assert_eq!(results(&merged), results(&whole.records));
}

#[test]
fn a_gauntlet_keeps_every_job_busy_when_bots_have_instances_issue_13() {
    let bots: Vec<(&str, Strategy)> = vec![
        ("ref", first_legal),
        ("x", first_legal),
        ("y", first_legal),
        ("z", first_legal),
    ];
    let mut seats = Strategies::new(&bots);
    seats.capacity = 3;
    let seats = Arc::new(seats);
    let schedule = gauntlet(&[1, 2, 3], &[0], 1, 2);
    let played = play(
        &settings(GameKind::Othello, 3),
        &seats,
        schedule.clone(),
        None,
    );
    assert_eq!(played.records.len(), 6);
    // The reference played three games at once; the results are those of one at a time.
    assert_eq!(seats.most_at_once.load(Ordering::SeqCst), 3);
    let one = Arc::new(Strategies::new(&bots));
    let alone = play(&settings(GameKind::Othello, 3), &one, schedule, None);
    assert_eq!(one.most_at_once.load(Ordering::SeqCst), 1);
    assert_eq!(results(&played.records), results(&alone.records));
}

#[test]
fn friendly_games_are_played_by_the_same_loop_but_kept_out_of_the_tournament_s_records() {
    let seats = Arc::new(Strategies::new(&[
        ("fives", fives),
        ("zeros", zeros),
        ("more-zeros", zeros),
    ]));
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let friendly = |game_id, seats| Pairing {
        round: 0,
        game_id,
        seats,
        index: 0,
    };
    tx.send(friendly(1_000_000_001, [0, 1])).unwrap();
    tx.send(friendly(1_000_000_002, [2, 0])).unwrap();
    // Seats that are no bot of the run are not played.
    tx.send(friendly(1_000_000_003, [0, 7])).unwrap();
    let plan = Plan {
        friendly: Some(rx),
        ..Plan::now(round_robin(3, 1, 2))
    };
    let played = play_with(&settings(GameKind::Morra, 2), &seats, plan, None);
    assert!(!played.interrupted);
    let ids: Vec<u64> = results(&played.records).iter().map(|r| r.game_id).collect();
    assert_eq!(
        ids,
        (1..=6).collect::<Vec<_>>(),
        "the schedule's games only"
    );
    let mut over = seats.over.lock().unwrap().clone();
    over.sort();
    assert_eq!(over, [1, 2, 3, 4, 5, 6, 1_000_000_001, 1_000_000_002]);
    assert_eq!(
        seats.most_at_once.load(Ordering::SeqCst),
        1,
        "a friendly game waits for its bots like any other"
    );
    // Once the schedule is over the loop takes no more.
    assert!(tx.send(friendly(1_000_000_004, [0, 1])).is_err());
}

#[test]
fn friendly_games_are_played_before_the_start_and_the_schedule_waits_for_it() {
    let seats = Arc::new(Strategies::new(&[("fives", fives), ("zeros", zeros)]));
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let friendly = 1_000_000_001;
    tx.send(Pairing {
        round: 0,
        game_id: friendly,
        seats: [1, 0],
        index: 0,
    })
    .unwrap();
    // The start comes once the friendly game is over.
    let watched = Arc::clone(&seats);
    let start = async move {
        while !watched.over.lock().unwrap().contains(&friendly) {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    };
    let plan = Plan {
        schedule: round_robin(2, 1, 2),
        start: Box::pin(start),
        friendly: Some(rx),
        late: None,
        enough: None,
        more: None,
    };
    let played = play_with(&settings(GameKind::Morra, 2), &seats, plan, None);
    assert_eq!(played.records.len(), 2);
    let over = seats.over.lock().unwrap().clone();
    assert_eq!(over[0], friendly, "{over:?}");
    assert_eq!(over.len(), 3);
}

#[test]
fn a_stopping_rule_starts_no_new_pair_but_finishes_those_begun() {
    for (jobs, capacity) in [(1, 1), (3, 3), (4, 2)] {
        let mut seats = Strategies::new(&[("fives", fives), ("zeros", zeros)]);
        seats.capacity = capacity;
        let seats = Arc::new(seats);
        let plan = Plan {
            enough: Some(Box::new(|_: &GameRecord| true)),
            ..Plan::now(round_robin(2, 1, 20))
        };
        let played = play_with(&settings(GameKind::Morra, jobs), &seats, plan, None);
        let mut ids: Vec<u64> = played.records.iter().map(|r| r.game_id).collect();
        ids.sort();
        // Games 2k−1 and 2k are a colour-swapped pair: only whole pairs, and no more than were
        // running when the first game ended.
        assert!(ids.len() <= jobs.max(2) + 1, "{jobs} jobs: {ids:?}");
        assert!(
            !ids.is_empty() && ids.len().is_multiple_of(2),
            "{jobs} jobs: {ids:?}"
        );
        assert!(
            ids.chunks(2).all(|p| p[0] % 2 == 1 && p[1] == p[0] + 1),
            "{ids:?}"
        );
    }
}
