//! The plan of a run: which games of the current field's schedule are to be played, given
//! the games its output directory already holds, and which of those no longer count.
//!
//! A game is known by its [`Key`] (its bots in seat order, its round and its index in the
//! pairing), which no change of the field's order or size alters, as its seed does not (see
//! [`crate::schedule::game_seed`]). A new run, a resumed one and an update are each one plan:
//! the recorded games that still count are kept, the field's other games are played.

use std::collections::{HashMap, HashSet};

use crate::config::RunConfig;
use crate::results::games::GameRecord;
use crate::schedule::{gauntlet, round_robin, seat_by_names, shard, Pairing};

use super::file::{Block, TournamentFile};

/// A game's identity: the same game in every plan of the tournament.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// The bots' names, seat A first.
    pub seats: [String; 2],
    pub round: u32,
    /// The game's index in its pairing ([`Pairing::index`]).
    pub index: u32,
}

/// What a run plays, and what it sets aside.
#[derive(Debug, Default)]
pub struct Planned {
    /// The games to play, their seats indices into the current field, each with its id.
    pub games: Vec<Pairing>,
    /// The games of the current field's schedule in all.
    pub total: usize,
    /// Recorded games that no longer count, with why (`superseded.csv`).
    pub superseded: Vec<(u64, String)>,
    /// The ids given to games no earlier plan had, to record in `tournament.json`.
    pub block: Option<Block>,
}

/// The whole schedule of a field, `names` in schedule order and `references` its gauntlet's
/// (empty for a round robin), seated by names, its game ids the positions.
pub fn field_schedule(config: &RunConfig, names: &[&str], references: &[String]) -> Vec<Pairing> {
    let (rounds, games) = match config.format.sprt_games() {
        // An SPRT match is one long pairing, cut short when the test decides.
        Some(games) => (1, games),
        None => (config.tournament.rounds, config.games_per_pairing()),
    };
    let mut schedule = if config.format.format == crate::config::Format::Swiss {
        Vec::new() // paired round by round as the games end (`swiss::Rounds`)
    } else if references.is_empty() {
        round_robin(names.len(), rounds, games)
    } else {
        let (refs, candidates): (Vec<usize>, Vec<usize>) =
            (0..names.len()).partition(|&i| references.iter().any(|r| r == names[i]));
        gauntlet(&candidates, &refs, rounds, games)
    };
    seat_by_names(&mut schedule, names, config.seed());
    schedule
}

/// The games of `schedule` this run's shard plays (all of them without `--shard`).
fn of_shard(config: &RunConfig, schedule: Vec<Pairing>) -> Vec<Pairing> {
    match config.tournament.shard {
        Some(s) => shard(schedule, s.index, s.count, config.seed()),
        None => schedule,
    }
}

fn key(p: &Pairing, names: &[&str]) -> Key {
    Key {
        seats: p.seats.map(|s| names[s].to_string()),
        round: p.round,
        index: p.index,
    }
}

/// The game of every id the tournament `info` gave out.
pub fn keys(info: &TournamentFile) -> HashMap<u64, Key> {
    let mut keys = HashMap::new();
    for block in info.blocks_or_first() {
        let names: Vec<&str> = block.bots.iter().map(String::as_str).collect();
        let schedule = field_schedule(&info.config, &names, &block.gauntlet);
        match &block.positions {
            None => {
                for p in of_shard(&info.config, schedule) {
                    keys.insert(p.game_id, key(&p, &names));
                }
            }
            Some(ranges) => {
                let positions = ranges.iter().flat_map(|&[lo, hi]| lo..=hi);
                for (id, pos) in (block.first_game_id..).zip(positions) {
                    if let Some(p) = schedule.get(pos as usize - 1) {
                        keys.insert(id, key(p, &names));
                    }
                }
            }
        }
    }
    keys
}

/// The plan of a run of the field of `info` (its bots, gauntlet and settings) into an output
/// directory holding `before` (`None`: a new tournament) and the games `records`, of which
/// those in `dropped` are already superseded. Games of a bot not in the field, or named in
/// `revised`, no longer count; the field's games not recorded are played, under the ids an
/// earlier plan gave them if it did (a resumed run), else under new ids after every id given.
pub fn plan(
    info: &TournamentFile,
    before: Option<&TournamentFile>,
    records: &[GameRecord],
    dropped: &HashSet<u64>,
    revised: &HashSet<String>,
) -> Planned {
    if info.config.format.format == crate::config::Format::Swiss {
        // Swiss rounds are paired as the games end (`swiss::Rounds`), from every game
        // recorded: all of them count, and the rounds plan the rest.
        return Planned::default();
    }
    let names: Vec<&str> = info.bots.iter().map(|b| b.name.as_str()).collect();
    let schedule = of_shard(
        &info.config,
        field_schedule(&info.config, &names, &info.gauntlet),
    );
    let total = schedule.len();
    let Some(before) = before else {
        return Planned {
            games: schedule,
            total,
            ..Planned::default()
        };
    };
    let known = keys(before);
    let wanted: HashSet<Key> = schedule.iter().map(|p| key(p, &names)).collect();
    let mut kept = HashSet::new();
    let mut superseded = Vec::new();
    for r in records.iter().filter(|r| !dropped.contains(&r.game_id)) {
        let gone = [&r.bot_a, &r.bot_b]
            .into_iter()
            .find(|b| !names.contains(&b.as_str()));
        let changed = [&r.bot_a, &r.bot_b]
            .into_iter()
            .find(|b| revised.contains(*b));
        let game = known.get(&r.game_id);
        let reason = match (gone, changed, game) {
            (Some(bot), _, _) => format!("`{bot}` is gone"),
            (None, Some(bot), _) => format!("`{bot}` was revised"),
            (None, None, Some(k)) if wanted.contains(k) && !kept.contains(k) => {
                kept.insert(k.clone());
                continue;
            }
            (None, None, _) => "not in the schedule".to_string(),
        };
        superseded.push((r.game_id, reason));
    }
    // Games planned but never played keep their ids, so a stopped run resumes as it was.
    let played: HashSet<u64> = records.iter().map(|r| r.game_id).collect();
    let mut unplayed: HashMap<&Key, u64> = HashMap::new();
    for (id, k) in known.iter().filter(|(id, _)| !played.contains(id)) {
        let slot = unplayed.entry(k).or_insert(*id);
        *slot = (*slot).min(*id);
    }
    let first = known.keys().chain(&played).max().map_or(1, |m| m + 1);
    let mut next = first;
    let mut positions = Vec::new();
    let mut games = Vec::new();
    for p in &schedule {
        let k = key(p, &names);
        if kept.contains(&k) {
            continue;
        }
        let game_id = match unplayed.get(&k) {
            Some(&id) => id,
            None => {
                // An update's field is never sharded: ids are the positions.
                positions.push(p.game_id);
                next += 1;
                next - 1
            }
        };
        games.push(Pairing { game_id, ..*p });
    }
    let block = (!positions.is_empty()).then(|| Block {
        first_game_id: first,
        bots: names.iter().map(|n| n.to_string()).collect(),
        gauntlet: info.gauntlet.clone(),
        positions: Some(ranges(&positions)),
    });
    Planned {
        games,
        total,
        superseded,
        block,
    }
}

/// Ascending positions as inclusive ranges: `[1, 2, 3, 7]` is `[[1, 3], [7, 7]]`.
fn ranges(positions: &[u64]) -> Vec<[u64; 2]> {
    let mut out: Vec<[u64; 2]> = Vec::new();
    for &p in positions {
        match out.last_mut() {
            Some(last) if last[1] + 1 == p => last[1] = p,
            _ => out.push([p, p]),
        }
    }
    out
}
