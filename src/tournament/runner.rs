//! Plays a schedule: at most `jobs` games at once and never two games of one bot at once,
//! each game through the referee between the two players the [`Seats`] make for it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::game::{GameConfig, GameKind, Rules, Seat, Turn};
use crate::player::clock::TimeControl;
use crate::player::Player;
use crate::referee::{self, Outcome};
use crate::results::games::GameRecord;
use crate::results::replay::{Header, Move, Replay};
use crate::rng::Rng;
use crate::schedule::openings::Book;
use crate::schedule::{game_seed, opening_seed, Pairing};

/// Makes the players of each game: bot processes in a tournament, scripts in tests.
pub trait Seats: Send + Sync + 'static {
    /// The kind of player these seats make.
    type Player: Player + Send;
    /// The name of bot `bot` (an index into the schedule's bots).
    fn name(&self, bot: usize) -> &str;
    /// A player of bot `bot` for one game.
    fn player(&self, bot: usize, game: &GameSeed) -> Self::Player;
    /// How many games bot `bot` may play at once.
    fn capacity(&self, bot: usize) -> usize {
        let _ = bot;
        1
    }
    /// Gets bot `bot` ready for a game that is about to start (its jail's holder started
    /// ahead, off the games' threads), so the game does not wait for it.
    fn prepare(&self, bot: usize) {
        let _ = bot;
    }
    /// Why bot `bot`'s results could not be written (its log), if they could not: the run
    /// stops on it.
    fn write_error(&self, bot: usize) -> Option<String> {
        let _ = bot;
        None
    }
    /// Tells bot `bot`'s log what it did wrong in a game.
    fn note(&self, bot: usize, text: &str) {
        let _ = (bot, text);
    }
    /// Tells whoever watches the tournament (the server's event stream) what happened in
    /// game `game_id`.
    fn watch(&self, game_id: u64, event: Watch<'_>) {
        let _ = (game_id, event);
    }
}

/// What happens in a game, as [`Seats::watch`] hears it.
#[derive(Debug, Clone, Copy)]
pub enum Watch<'a> {
    /// The game starts between these two (seat A first), after the opening plies given.
    Started {
        names: [&'a str; 2],
        opening: &'a [(Seat, String)],
    },
    /// A seat answered `request`: its move, or (`Err`) the fault that lost it the game.
    Move {
        seat: Seat,
        request: &'a [String],
        reply: Result<&'a str, &'a str>,
        /// What anyone may know of the move beyond itself (a Numer0n call's answer).
        note: Option<&'a str>,
        /// From the request to the reply.
        think: Duration,
    },
    /// The game is over and recorded.
    Over { record: &'a GameRecord },
}

/// What a player needs to know of its game.
#[derive(Debug, Clone, Copy)]
pub struct GameSeed {
    pub game_id: u64,
    /// The game's seed, for `ARENA_SEED`.
    pub seed: u64,
    /// The players of the game, seat A first (indices into the schedule's bots).
    pub seats: [usize; 2],
    /// The game's index in its pairing ([`Pairing::index`]), which a remote entrant's
    /// `ARENA_SEED` is made of.
    pub index: u32,
}

/// What is the same for every game of a run.
#[derive(Debug, Clone)]
pub struct Settings {
    pub run_id: String,
    pub game: GameKind,
    pub rules: GameConfig,
    pub seed: u64,
    pub opening_plies: u32,
    /// The book of `--openings`: each colour-swapped pair starts from its line, then
    /// `opening_plies` random plies.
    pub book: Option<Arc<Book>>,
    /// The game clock of `--time-control`, if the games have one.
    pub clock: Option<TimeControl>,
    pub jobs: usize,
    /// Where replays go, if they are written.
    pub replays: Option<PathBuf>,
    pub move_time: Duration,
}

/// The games a schedule played, and whether it was stopped before the end.
pub struct Played {
    pub records: Vec<GameRecord>,
    pub interrupted: bool,
}

/// Asked after each game of the schedule is recorded: `true` once no more pairs should start
/// (a match decided). The runner then starts only the games that complete a colour-swapped
/// pair already begun, so that every pair it started is played whole.
pub type Enough<'a> = Box<dyn FnMut(&GameRecord) -> bool + Send + 'a>;

/// Asked, with the records of this run so far, whenever every game handed to the runner is
/// over: the games to play next (a Swiss tournament's next round), or none to end.
pub type More<'a> = Box<dyn FnMut(&[GameRecord]) -> Vec<Pairing> + Send + 'a>;

/// What a run plays.
pub struct Plan<'a> {
    /// The games of the schedule.
    pub schedule: Vec<Pairing>,
    /// Resolves when the schedule's games may start.
    pub start: Pin<Box<dyn Future<Output = ()> + Send + 'a>>,
    /// Where friendly games are asked for (`arena serve`): from before the start to the
    /// schedule's end.
    pub friendly: Option<mpsc::UnboundedReceiver<Pairing>>,
    /// Where the games of bots joining late come (`arena serve`), appended to the schedule
    /// (their seats may be new bots) until the channel closes or the schedule is over.
    pub late: Option<mpsc::UnboundedReceiver<Vec<Pairing>>>,
    /// The stopping rule, if the schedule may end early (`--sprt`).
    pub enough: Option<Enough<'a>>,
    /// The rest of a schedule planned as it is played (Swiss rounds).
    pub more: Option<More<'a>>,
}

impl Plan<'_> {
    /// The games of `schedule`, from now on, and no others.
    pub fn now(schedule: Vec<Pairing>) -> Plan<'static> {
        Plan {
            schedule,
            start: Box::pin(async {}),
            friendly: None,
            late: None,
            enough: None,
            more: None,
        }
    }
}

/// Plays every game of the plan's schedule once it may start, at most `jobs` at once and
/// each bot in at most its [capacity](Seats::capacity) of games at once, handing each record
/// to `done` as its game ends (in the order games end). Games of idle bots go first, in
/// schedule order, so extra instances are made only when nothing else can run. `stop`
/// resolving abandons the running games: dropping them kills their processes; finished games
/// are already handed over.
///
/// The plan's friendly games (those of `arena serve`) are played by this same loop, before
/// the schedule's next games and from before its start, and are told to [`Seats::watch`]
/// only: neither `done` nor [`Played::records`] has them. Once the schedule's last game is
/// over no more are taken (those asked for by then are played). So are the plan's late games,
/// which are recorded like the schedule's.
pub async fn play_schedule<S: Seats>(
    settings: &Arc<Settings>,
    seats: &Arc<S>,
    bots: usize,
    plan: Plan<'_>,
    stop: impl Future<Output = ()>,
    done: &mut dyn FnMut(&GameRecord) -> Result<()>,
) -> Result<Played> {
    let Plan {
        schedule,
        start,
        mut friendly,
        mut late,
        mut enough,
        mut more,
    } = plan;
    // Games started of each colour-swapped pair (its bots and `Pairing::pair`), so that a
    // stopping rule leaves no pair half played.
    let mut begun: HashMap<PairKey, u32> = HashMap::new();
    let mut started = false;
    let mut pending: VecDeque<Pairing> = schedule.into();
    let mut busy = vec![0usize; bots];
    let mut capacity: Vec<usize> = (0..bots).map(|b| seats.capacity(b).max(1)).collect();
    let mut running = JoinSet::new();
    let mut records = Vec::new();
    let mut friendlies = HashSet::new();
    tokio::pin!(stop);
    tokio::pin!(start);
    loop {
        while running.len() < settings.jobs.max(1) {
            // Before the start, only friendly games may be played.
            let may = |p: &Pairing| started || friendlies.contains(&p.game_id);
            let idle =
                (pending.iter()).position(|p| may(p) && p.seats.iter().all(|&s| busy[s] == 0));
            let Some(pos) = idle.or_else(|| {
                (pending.iter())
                    .position(|p| may(p) && p.seats.iter().all(|&s| busy[s] < capacity[s]))
            }) else {
                break;
            };
            let pairing = pending.remove(pos).expect("the position is in range");
            *begun.entry(pair_key(&pairing)).or_default() += 1;
            for s in pairing.seats {
                busy[s] += 1;
            }
            running.spawn(play_game(Arc::clone(settings), Arc::clone(seats), pairing));
        }
        // The games likely to start next get their bots ready while these are played.
        if started {
            for pairing in pending.iter().take(settings.jobs.max(1)) {
                for &s in &pairing.seats {
                    seats.prepare(s);
                }
            }
        }
        let joined = tokio::select! {
            () = &mut start, if !started => {
                started = true;
                continue;
            }
            joined = running.join_next(), if started || !running.is_empty() => match joined {
                Some(joined) => joined,
                // Every game so far is over: the schedule may have more to play.
                None if pending.is_empty() && more.as_mut().is_some_and(|more| {
                    pending.extend(more(&records));
                    !pending.is_empty()
                }) => continue,
                None => {
                    // The schedule is over: no more late bots join, nor friendly games are
                    // taken, but those already given are played.
                    if let Some(mut rx) = late.take() {
                        rx.close();
                        while let Ok(more) = rx.try_recv() {
                            take_late(more, seats.as_ref(), &mut busy, &mut capacity, &mut pending);
                        }
                        continue;
                    }
                    let Some(mut rx) = friendly.take() else { break };
                    rx.close();
                    while let Ok(asked) = rx.try_recv() {
                        take_friendly(asked, busy.len(), &mut friendlies, &mut pending);
                    }
                    continue;
                }
            },
            Some(asked) = next_friendly(&mut friendly) => {
                take_friendly(asked, busy.len(), &mut friendlies, &mut pending);
                continue;
            }
            more = next_late(&mut late) => {
                match more {
                    Some(more) => {
                        take_late(more, seats.as_ref(), &mut busy, &mut capacity, &mut pending)
                    }
                    // The door is closed: the schedule ends with the games it has.
                    None => late = None,
                }
                continue;
            }
            () = &mut stop => {
                running.abort_all();
                while running.join_next().await.is_some() {}
                return Ok(Played { records, interrupted: true });
            }
        };
        // A result that cannot be written (a full disk) stops the run; the games so far are
        // in `games.csv`, and the others are played by `arena resume`.
        let (pairing, outcome, elapsed) = joined.context("a game panicked")?.map_err(stopped)?;
        for s in pairing.seats {
            busy[s] -= 1;
        }
        let names = pairing.seats.map(|s| seats.name(s));
        for (i, fault) in outcome.faults.iter().enumerate() {
            if let Some(fault) = fault {
                seats.note(
                    pairing.seats[i],
                    &format!(
                        "game {} against `{}`: {fault}",
                        pairing.game_id,
                        names[1 - i]
                    ),
                );
            }
        }
        // After the notes: a note that cannot be written stops the run too.
        for s in pairing.seats {
            if let Some(e) = seats.write_error(s) {
                return Err(stopped(anyhow::anyhow!(e)));
            }
        }
        let record = GameRecord {
            run: settings.run_id.clone(),
            round: pairing.round,
            game_id: pairing.game_id,
            game: settings.game,
            bot_a: names[0].to_string(),
            bot_b: names[1].to_string(),
            score_a: outcome.scores[0],
            score_b: outcome.scores[1],
            result: outcome.result,
            reason: outcome.reason,
            culprit: outcome.culprit,
            plies: outcome.plies,
            duration_ms: elapsed.as_millis() as u64,
            detail: GameRecord::fault_detail(&outcome.faults),
        };
        if friendlies.remove(&record.game_id) {
            seats.watch(record.game_id, Watch::Over { record: &record });
            continue;
        }
        done(&record)?;
        seats.watch(record.game_id, Watch::Over { record: &record });
        if enough.as_mut().is_some_and(|enough| enough(&record)) {
            // Only the other halves of pairs begun (and friendly games) are still played.
            pending.retain(|p| {
                friendlies.contains(&p.game_id)
                    || begun.get(&pair_key(p)).is_some_and(|n| n % 2 == 1)
            });
        }
        records.push(record);
    }
    Ok(Played {
        records,
        interrupted: false,
    })
}

/// What the two games of a colour-swapped pair share: their bots and [`Pairing::pair`].
type PairKey = (u32, [usize; 2]);

fn pair_key(p: &Pairing) -> PairKey {
    let [a, b] = p.seats;
    (p.pair(), [a.min(b), a.max(b)])
}

/// Puts a friendly game first among the games to play, unless its seats are not the run's.
fn take_friendly(
    asked: Pairing,
    bots: usize,
    friendlies: &mut HashSet<u64>,
    pending: &mut VecDeque<Pairing>,
) {
    if asked.seats.iter().all(|&s| s < bots) {
        friendlies.insert(asked.game_id);
        pending.push_front(asked);
    }
}

/// Appends the games of a bot joining late, making room for new bots among the busy.
fn take_late<S: Seats>(
    more: Vec<Pairing>,
    seats: &S,
    busy: &mut Vec<usize>,
    capacity: &mut Vec<usize>,
    pending: &mut VecDeque<Pairing>,
) {
    let bots = (more.iter().flat_map(|p| p.seats))
        .max()
        .map_or(0, |s| s + 1);
    while busy.len() < bots {
        capacity.push(seats.capacity(busy.len()).max(1));
        busy.push(0);
    }
    pending.extend(more);
}

/// The next games of a bot joining late (`None`: no more will come); never, when none can.
async fn next_late(
    late: &mut Option<mpsc::UnboundedReceiver<Vec<Pairing>>>,
) -> Option<Vec<Pairing>> {
    match late {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// The next friendly game asked for; never, when none can be asked for.
async fn next_friendly(friendly: &mut Option<mpsc::UnboundedReceiver<Pairing>>) -> Option<Pairing> {
    match friendly {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// The error that stops a run when a result cannot be written.
fn stopped(e: anyhow::Error) -> anyhow::Error {
    e.context(
        "the run stopped: the games played so far are in `games.csv`; fix this (free some disk space, say) and continue with `arena resume`",
    )
}

/// Plays one game of the schedule, writing its replay; an error writing it is returned.
async fn play_game<S: Seats>(
    settings: Arc<Settings>,
    seats: Arc<S>,
    pairing: Pairing,
) -> Result<(Pairing, Outcome, Duration)> {
    let started = Instant::now();
    let names = pairing.seats.map(|s| seats.name(s).to_string());
    let (kind, pair) = (settings.game.name(), [names[0].as_str(), names[1].as_str()]);
    let game = GameSeed {
        game_id: pairing.game_id,
        seed: game_seed(settings.seed, kind, pair, pairing.index),
        seats: pairing.seats,
        index: pairing.index,
    };
    let opening_seed = opening_seed(settings.seed, kind, pair, pairing.index);
    // The pair's book line: games 2k and 2k + 1 of a pairing are its pair k.
    let line = (settings.book.as_ref()).map_or(&[][..], |book| book.line(pairing.pair()));
    let (mut rules, opening) = opening(
        settings.game,
        &settings.rules,
        line,
        settings.opening_plies,
        opening_seed,
    );
    let mut replay = settings.replays.as_ref().map(|dir| {
        let path = dir.join(format!("{}.jsonl", pairing.game_id));
        let plies: Vec<String> = opening.iter().map(|(_, mv)| mv.clone()).collect();
        let header = Header {
            run: settings.run_id.clone(),
            game: settings.game.name().to_string(),
            round: pairing.round,
            game_id: pairing.game_id,
            bots: names.clone(),
            seed: game.seed,
            opening: plies,
            move_time_ms: settings.move_time.as_millis() as u64,
            gomoku_rule: (settings.game == GameKind::Gomoku)
                .then(|| settings.rules.gomoku_rule.to_string()),
        };
        Replay::create(&path, &header)
    });
    let mut pa = seats.player(pairing.seats[0], &game);
    let mut pb = seats.player(pairing.seats[1], &game);
    // Morra's requests are the histories of the replies before them: recording them would
    // make replays quadratic in size.
    let with_requests = settings.game != GameKind::Morra;
    let watched = Watch::Started {
        names: [&names[0], &names[1]],
        opening: &opening,
    };
    seats.watch(pairing.game_id, watched);
    let clock = settings.clock;
    let outcome = referee::play(rules.as_mut(), &mut pa, &mut pb, opening, clock, &mut |e| {
        let reply = match (e.fault, e.reply) {
            (Some(fault), _) => Err(fault),
            (None, Ok(reply)) => Ok(reply.trim()),
            (None, Err(_)) => Err("no reply"),
        };
        let (seat, request, note, think) = (e.seat, e.request, e.note, e.think);
        let watched = Watch::Move {
            seat,
            request,
            reply,
            note,
            think,
        };
        seats.watch(pairing.game_id, watched);
        if let Some(r) = replay.as_mut() {
            r.exchange(&Move {
                seat: e.seat,
                think: e.think,
                late: e.late,
                request: with_requests.then_some(e.request),
                reply: e.reply.as_deref().map_err(|f| f.reason()),
                fault: e.fault,
                clock: e.clock,
            });
        }
    })
    .await;
    if let Some(r) = replay {
        let path = r.path().to_owned();
        r.finish(&outcome)
            .await
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    Ok((pairing, outcome, started.elapsed()))
}

/// A game after the book's `line` (checked legal when the book was read) and then `plies`
/// random legal plies, and all those plies with who played them. Random plies that end the
/// game are drawn again; if none can be found the game starts from the book's line.
pub fn opening(
    game: GameKind,
    config: &GameConfig,
    line: &[(Seat, String)],
    plies: u32,
    seed: u64,
) -> (Box<dyn Rules>, Vec<(Seat, String)>) {
    let from_book = || {
        let mut rules = game.new_game(config);
        for (seat, mv) in line {
            rules
                .play(*seat, mv)
                .expect("a book's lines are checked when it is read");
        }
        rules
    };
    let mut rng = Rng::new(seed);
    let wanted = line.len() + plies as usize;
    if plies > 0 && game.has_openings() {
        for _ in 0..100 {
            let mut rules = from_book();
            let mut moves = line.to_vec();
            while moves.len() < wanted {
                let Turn::One(seat) = rules.turn() else { break };
                let legal = rules.legal_moves();
                let Some(mv) = rng.choose(&legal) else { break };
                rules
                    .play(seat, mv)
                    .expect("a move from `legal_moves` is legal");
                moves.push((seat, mv.clone()));
            }
            if moves.len() == wanted && rules.turn() != Turn::Over {
                return (rules, moves);
            }
        }
    }
    (from_book(), line.to_vec())
}
