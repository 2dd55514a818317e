//! Who plays whom, in which seats, in which order: round-robin and gauntlet schedules, and
//! their split into shards; Swiss rounds in [`swiss`].

use crate::rng::{derive_seed, Rng};

pub mod openings;
pub mod swiss;

/// One game of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    /// Which repetition of the round robin (1-based).
    pub round: u32,
    /// The game's number in the whole schedule (1-based).
    pub game_id: u64,
    /// Indices of the bots in seat A (moves first) and seat B.
    pub seats: [usize; 2],
    /// The game's index among its pairing's games, over all rounds: `(round - 1) * G + g` for
    /// game `g` of the round, `G` the games per pairing rounded up to even, so colour-swapped
    /// games are `2m` and `2m + 1`: their pair, [`Pairing::pair`], shares an opening (see
    /// [`game_seed`] and [`opening_seed`]).
    pub index: u32,
}

impl Pairing {
    /// The colour-swapped pair of this game among its pairing's games (`index / 2`): the two
    /// games of a pair start from the same opening (a book's line, or random plies), and an
    /// odd game out is a pair of its own.
    pub fn pair(&self) -> u32 {
        self.index / 2
    }
}

/// 64-bit FNV-1a of `parts`, each followed by a 0 byte so `["ab", "c"]` and `["a", "bc"]`
/// differ; stable forever, unlike `std`'s hasher.
fn name_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.as_bytes().iter().chain(&[0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Mixed into the tournament seed for openings, so they are independent of game seeds.
const OPENING_SALT: u64 = 0x6f70_656e_696e_6773;

/// Mixed into the tournament seed for who moves first in a pairing.
const SEAT_SALT: u64 = 0x7365_6174_7366_6972;

/// The seed of one game (`ARENA_SEED`): a function of the tournament's seed, the game, the
/// two bots' names in seat order and the game's [index](Pairing::index) in its pairing only,
/// never of the order or the size of the field, so a bot added or removed changes no other
/// game (what `arena run --update` relies on).
pub fn game_seed(seed: u64, game: &str, names: [&str; 2], index: u32) -> u64 {
    let index = index.to_string();
    derive_seed(seed, name_hash(&[game, names[0], names[1], &index]))
}

/// The seed of a game's random opening: as [`game_seed`], but the same for the two
/// colour-swapped games `2m` and `2m + 1` of a pairing, whatever their seats.
pub fn opening_seed(seed: u64, game: &str, names: [&str; 2], index: u32) -> u64 {
    let (lo, hi) = (names[0].min(names[1]), names[0].max(names[1]));
    let pair = (index / 2).to_string();
    derive_seed(seed ^ OPENING_SALT, name_hash(&[game, lo, hi, &pair]))
}

/// Seats the games of `schedule` by the bots' names (`names[i]` for bot `i`): which of two
/// bots moves first in their pairing's first game is drawn from `seed` and the two names, and
/// seats then alternate with the index and the round as the schedule alternates them. So a
/// game's seats, like its seed, do not depend on the field's order or size; each bot moves
/// first in about half its pairings.
pub fn seat_by_names(schedule: &mut [Pairing], names: &[&str], seed: u64) {
    for p in schedule {
        let [x, y] = p.seats;
        let (lo, hi) = if names[x] <= names[y] { (x, y) } else { (y, x) };
        let coin = derive_seed(seed ^ SEAT_SALT, name_hash(&[names[lo], names[hi]])) & 1;
        let swap = (u64::from(p.index) + u64::from(p.round) + 1 + coin) % 2 == 1;
        p.seats = if swap { [hi, lo] } else { [lo, hi] };
    }
}

/// The [`Pairing::index`] of game `g` (from 0) of a pairing in round `round` (from 1), with
/// `games` games per pairing in each round: `games` rounded up to even is the stride from one
/// round to the next, so colour-swapped games are `2m` and `2m + 1`.
pub fn game_index(round: u32, g: u32, games: u32) -> u32 {
    (round - 1) * (games + games % 2) + g
}

/// A round robin of `bots` bots, repeated `rounds` times, with `games` games per pairing in
/// each round, seats alternating between a pairing's games.
///
/// Games are ordered by the circle method (Berger tables): each of its slots is a set of
/// disjoint pairings, so games that are next to each other can run in parallel. Seats are
/// balanced: with one game per pairing every bot sits first about as often as second, and
/// seats swap from one round to the next.
pub fn round_robin(bots: usize, rounds: u32, games: u32) -> Vec<Pairing> {
    let mut schedule = Vec::new();
    // An odd number of bots gets a phantom opponent: meeting it is a bye.
    let n = bots + bots % 2;
    let mut game_id = 0;
    for round in 1..=rounds {
        for slot in 0..n.saturating_sub(1) {
            for k in 0..n / 2 {
                let (x, y) = if k == 0 {
                    (slot, n - 1)
                } else {
                    ((slot + k) % (n - 1), (slot + n - 1 - k) % (n - 1))
                };
                if x >= bots || y >= bots {
                    continue;
                }
                // The lower index sits first when the indices' sum is odd: every bot then sits
                // first in half its pairings (one more or less with an even number of bots).
                let (lo, hi) = (x.min(y), x.max(y));
                let (a, b) = if (lo + hi) % 2 == 1 {
                    (lo, hi)
                } else {
                    (hi, lo)
                };
                for g in 0..games {
                    game_id += 1;
                    let swap = (g + round - 1) % 2 == 1;
                    schedule.push(Pairing {
                        round,
                        game_id,
                        seats: if swap { [b, a] } else { [a, b] },
                        index: game_index(round, g, games),
                    });
                }
            }
        }
    }
    schedule
}

/// A gauntlet: every candidate plays every reference, never another candidate, `games`
/// games per pairing in each of `rounds` rounds, seats alternating between a pairing's games.
///
/// `candidates` and `references` are indices into the caller's bot list and must not share
/// a bot. Each cycle of the schedule (one game of every pairing) is a run of slots, each slot
/// a set of disjoint pairings with every bot of the smaller side busy, so neighbouring games
/// can run in parallel. The larger side is walked with a stride, so a bot's games are spread
/// out over the cycle and a reference meets candidate after candidate rather than one
/// candidate game after game. Seats are balanced: with one game per pairing each candidate
/// moves first against about half the references (and each reference against about half the
/// candidates), and seats swap from one round to the next.
pub fn gauntlet(
    candidates: &[usize],
    references: &[usize],
    rounds: u32,
    games: u32,
) -> Vec<Pairing> {
    debug_assert!(
        candidates.iter().all(|c| !references.contains(c)),
        "a bot is both a candidate and a reference"
    );
    let (nc, nr) = (candidates.len(), references.len());
    let mut schedule = Vec::new();
    if nc == 0 || nr == 0 {
        return schedule;
    }
    let (wide, narrow) = (nc.max(nr), nc.min(nr));
    // `stride * (narrow - 1) < wide`, so a slot's wide-side bots are distinct, and so are a
    // wide-side bot's slots. With a stride of 2 or more, consecutive slots share no wide-side
    // bot either: a game then waits only for the game before it of its narrow-side bot.
    let stride = wide / narrow;
    let mut game_id = 0;
    for round in 1..=rounds {
        for g in 0..games {
            for slot in 0..wide {
                for k in 0..narrow {
                    let w = (slot + k * stride) % wide;
                    let (i, j) = if nc >= nr { (w, k) } else { (k, w) };
                    let (cand, refr) = (candidates[i], references[j]);
                    // The candidate moves first in the pairing's first game when the positions'
                    // sum is even: each bot then moves first in about half its pairings.
                    let cand_first = ((i + j) as u32 + g + round - 1).is_multiple_of(2);
                    game_id += 1;
                    schedule.push(Pairing {
                        round,
                        game_id,
                        seats: if cand_first {
                            [cand, refr]
                        } else {
                            [refr, cand]
                        },
                        index: game_index(round, g, games),
                    });
                }
            }
        }
    }
    schedule
}

/// Mixed into the tournament seed for the shard split, so it is independent of game seeds.
const SHARD_SALT: u64 = 0x7368_6172_6473_706c;

/// The games of shard `index` (1-based) of `count`: a seeded, balanced split of `schedule`.
///
/// The games' positions are shuffled with `seed` and dealt to the shards in turn, so shard
/// sizes differ by at most one, every game is in exactly one shard, and every shard gets a
/// random mix of the bots' games. Kept games keep their `game_id` (hence their seed and
/// opening) and their order.
pub fn shard(schedule: Vec<Pairing>, index: u32, count: u32, seed: u64) -> Vec<Pairing> {
    assert!(
        (1..=count).contains(&index),
        "shard {index} of {count} is out of range"
    );
    let n = schedule.len();
    // Fisher-Yates with the project's generator, so a seed gives the same split forever.
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Rng::new(derive_seed(seed, SHARD_SALT));
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let mut keep = vec![false; n];
    let (index, count) = (index as usize - 1, count as usize);
    for &pos in order.iter().skip(index).step_by(count) {
        keep[pos] = true;
    }
    schedule
        .into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p))
        .collect()
}

/// `--shard I/N`: shard `index` (from 1) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let Some((i, n)) = s.split_once('/') else {
            return Err(format!(
                "`{s}`: expected `I/N`, such as `2/4` (shard 2 of 4)"
            ));
        };
        let number = |part: &str, what: &str| {
            part.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{s}`: {what} `{part}` is not a whole number"))
        };
        let (index, count) = (number(i, "the shard")?, number(n, "the shard count")?);
        if count == 0 {
            return Err(format!("`{s}`: the shard count must be at least 1"));
        }
        if !(1..=count).contains(&index) {
            return Err(format!("`{s}`: the shard must be between 1 and {count}"));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn meetings(schedule: &[Pairing]) -> BTreeMap<(usize, usize), u32> {
        let mut m = BTreeMap::new();
        for p in schedule {
            let key = (p.seats[0].min(p.seats[1]), p.seats[0].max(p.seats[1]));
            *m.entry(key).or_default() += 1;
        }
        m
    }

    #[test]
    fn every_pair_meets_once_per_round_and_game() {
        for bots in 2..=9 {
            for (rounds, games) in [(1, 1), (3, 1), (2, 2)] {
                let s = round_robin(bots, rounds, games);
                let m = meetings(&s);
                assert_eq!(m.len(), bots * (bots - 1) / 2, "{bots} bots");
                assert!(
                    m.values().all(|&c| c == rounds * games),
                    "{bots} bots: {m:?}"
                );
                assert!(s.iter().all(|p| p.seats[0] != p.seats[1]));
                let ids: Vec<u64> = s.iter().map(|p| p.game_id).collect();
                assert_eq!(ids, (1..=s.len() as u64).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn seats_are_balanced() {
        // With one game per pairing, first-seat counts differ by at most one...
        for bots in 2..=9 {
            let s = round_robin(bots, 1, 1);
            let mut first = vec![0i32; bots];
            for p in &s {
                first[p.seats[0]] += 1;
            }
            let (lo, hi) = (first.iter().min().unwrap(), first.iter().max().unwrap());
            assert!(hi - lo <= 1, "{bots} bots: {first:?}");
        }
        // ...and exactly even over two rounds or with two games per pairing.
        for (rounds, games) in [(2, 1), (1, 2)] {
            let s = round_robin(5, rounds, games);
            let mut by_pair: BTreeMap<[usize; 2], u32> = BTreeMap::new();
            for p in &s {
                *by_pair.entry(p.seats).or_default() += 1;
            }
            assert!(by_pair
                .iter()
                .all(|(k, &v)| by_pair.get(&[k[1], k[0]]) == Some(&v)));
        }
    }

    #[test]
    fn colour_swapped_games_share_an_opening() {
        let s = round_robin(3, 1, 4);
        // A colour-swapped pair: its two bots and its number among their games.
        let key = |p: &Pairing| {
            let [x, y] = p.seats;
            ([x.min(y), x.max(y)], p.pair())
        };
        for (k, pair) in s.chunks(2).enumerate() {
            assert_eq!(key(&pair[0]), key(&pair[1]));
            // Games 2k and 2k+1 of a pairing are its pair k (3 pairings, 4 games each).
            assert_eq!([pair[0].pair(), pair[1].pair()], [(k % 2) as u32; 2]);
            assert_eq!(pair[0].seats, [pair[1].seats[1], pair[1].seats[0]]);
        }
        let mut pairs: Vec<_> = s.iter().map(key).collect();
        pairs.dedup();
        assert_eq!(pairs.len(), s.len() / 2);
    }

    #[test]
    fn neighbouring_games_are_disjoint_within_a_slot() {
        let s = round_robin(6, 1, 1);
        for slot in s.chunks(3) {
            let mut seen: Vec<usize> = slot.iter().flat_map(|p| p.seats).collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), 6);
        }
    }

    fn gauntlet_of(nc: usize, nr: usize, rounds: u32, games: u32) -> Vec<Pairing> {
        // Candidates and references interleaved in the bot list, as a caller may have them.
        let candidates: Vec<usize> = (0..nc).map(|i| 2 * i).collect();
        let references: Vec<usize> = (0..nr).map(|j| 2 * j + 1).collect();
        gauntlet(&candidates, &references, rounds, games)
    }

    #[test]
    fn gauntlet_candidates_meet_only_each_reference() {
        for nc in 1..=6 {
            for nr in 1..=5 {
                for (rounds, games) in [(1, 1), (3, 1), (2, 2), (1, 3)] {
                    let s = gauntlet_of(nc, nr, rounds, games);
                    let what = format!("{nc}x{nr}, {rounds} rounds of {games}");
                    // Candidates are even, references odd: every game has one of each.
                    assert!(s.iter().all(|p| p.seats[0] % 2 != p.seats[1] % 2), "{what}");
                    let m = meetings(&s);
                    assert_eq!(m.len(), nc * nr, "{what}");
                    assert!(m.values().all(|&c| c == rounds * games), "{what}: {m:?}");
                    let ids: Vec<u64> = s.iter().map(|p| p.game_id).collect();
                    assert_eq!(ids, (1..=s.len() as u64).collect::<Vec<_>>(), "{what}");
                    let r: Vec<u32> = s.iter().map(|p| p.round).collect();
                    assert!(r.windows(2).all(|w| w[0] <= w[1]) && r[0] == 1, "{what}");
                }
            }
        }
        assert!(gauntlet(&[], &[1], 1, 1).is_empty());
        assert!(gauntlet(&[0], &[], 1, 1).is_empty());
    }

    #[test]
    fn gauntlet_seats_are_balanced() {
        // One game per pairing: every bot moves first in half its games, give or take one.
        for nc in 1..=6 {
            for nr in 1..=5 {
                let s = gauntlet_of(nc, nr, 1, 1);
                let mut first = vec![0i32; 2 * nc.max(nr)];
                for p in &s {
                    first[p.seats[0]] += 1;
                    first[p.seats[1]] -= 1;
                }
                assert!(first.iter().all(|d| d.abs() <= 1), "{nc}x{nr}: {first:?}");
            }
        }
        // Two rounds of one game, one round of two, or two of three: exactly even per pairing.
        for (rounds, games) in [(2, 1), (1, 2), (2, 3)] {
            let s = gauntlet_of(4, 3, rounds, games);
            let mut by_seats: BTreeMap<[usize; 2], u32> = BTreeMap::new();
            for p in &s {
                *by_seats.entry(p.seats).or_default() += 1;
            }
            assert!(by_seats
                .iter()
                .all(|(k, &v)| by_seats.get(&[k[1], k[0]]) == Some(&v)));
        }
    }

    #[test]
    fn gauntlet_colour_swapped_games_share_an_opening() {
        for games in [2, 3, 4] {
            let s = gauntlet_of(3, 2, 2, games);
            let mut by_pair: BTreeMap<([usize; 2], u32), Vec<&Pairing>> = BTreeMap::new();
            for p in &s {
                let [x, y] = p.seats;
                let key = ([x.min(y), x.max(y)], p.pair());
                by_pair.entry(key).or_default().push(p);
            }
            for (opening, pair) in &by_pair {
                // The pair's first game is its even index.
                assert_eq!(pair[0].index % 2, 0);
                match pair.as_slice() {
                    [a, b] => {
                        assert_eq!(a.seats, [b.seats[1], b.seats[0]]);
                        assert_eq!(a.round, b.round);
                    }
                    // The odd game out of an odd `games` has an opening of its own.
                    [_] => assert_eq!(games % 2, 1),
                    _ => panic!("{games} games: pair {opening:?} used {} times", pair.len()),
                }
            }
            let singles = by_pair.values().filter(|p| p.len() == 1).count();
            assert_eq!(singles, if games % 2 == 1 { 3 * 2 * 2 } else { 0 });
        }
    }

    #[test]
    fn gauntlet_neighbouring_games_are_disjoint_and_spread_out() {
        for (nc, nr) in [(8, 2), (2, 7), (5, 2), (6, 3), (4, 4), (9, 1)] {
            let narrow = nc.min(nr);
            let s = gauntlet_of(nc, nr, 1, 2);
            let slots: Vec<&[Pairing]> = s.chunks(narrow).collect();
            for slot in &slots {
                let mut bots: Vec<usize> = slot.iter().flat_map(|p| p.seats).collect();
                bots.sort();
                bots.dedup();
                assert_eq!(bots.len(), 2 * narrow, "{nc}x{nr}: {slot:?}");
            }
            if nc.max(nr) >= 2 * narrow {
                // Consecutive slots share only bots of the smaller side, so each game waits
                // for one game before it, not two.
                let wide_side = |p: &Pairing| {
                    let is_wide = |b: usize| b.is_multiple_of(2) == (nc > nr);
                    p.seats.into_iter().find(|&b| is_wide(b)).unwrap()
                };
                for w in slots.windows(2) {
                    let before: Vec<usize> = w[0].iter().map(wide_side).collect();
                    assert!(
                        w[1].iter().all(|p| !before.contains(&wide_side(p))),
                        "{nc}x{nr}: {w:?}"
                    );
                }
            }
        }
        // One reference meets the candidates in turn, never one twice in a row.
        let s = gauntlet_of(3, 1, 1, 2);
        let opponents: Vec<usize> = s.iter().map(|p| p.seats[0] + p.seats[1] - 1).collect();
        assert_eq!(opponents, [0, 2, 4, 0, 2, 4]);
    }

    #[test]
    fn shards_partition_the_schedule_evenly() {
        let schedule = gauntlet_of(5, 3, 2, 3);
        assert_eq!(schedule.len(), 90);
        for count in [1, 2, 4, 7, 90, 100] {
            let shards: Vec<Vec<Pairing>> = (1..=count)
                .map(|i| shard(schedule.clone(), i, count, 42))
                .collect();
            let sizes: Vec<usize> = shards.iter().map(Vec::len).collect();
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "{count} shards: {sizes:?}");
            for part in &shards {
                // Each shard keeps the schedule's order (and so its ids, ascending).
                assert!(part.windows(2).all(|w| w[0].game_id < w[1].game_id));
            }
            let mut all: Vec<Pairing> = shards.concat();
            all.sort_by_key(|p| p.game_id);
            assert_eq!(all, schedule, "{count} shards");
        }
        assert_eq!(shard(schedule.clone(), 1, 1, 9), schedule);
    }

    #[test]
    fn shards_depend_on_the_seed_alone() {
        let schedule = round_robin(6, 2, 2);
        let ids = |seed| -> Vec<u64> {
            shard(schedule.clone(), 2, 3, seed)
                .iter()
                .map(|p| p.game_id)
                .collect()
        };
        assert_eq!(ids(7), ids(7));
        assert_ne!(ids(7), ids(8));
        // Pinned: a seed must split the same way in every version.
        assert_eq!(
            shard(round_robin(3, 1, 2), 1, 2, 1)
                .iter()
                .map(|p| p.game_id)
                .collect::<Vec<_>>(),
            [1, 5, 6]
        );
    }

    /// Each game of a round robin of `names` seated by names: its seat names, round and index.
    fn seated(names: &[&str], rounds: u32, games: u32) -> BTreeMap<([String; 2], u32, u32), ()> {
        let mut s = round_robin(names.len(), rounds, games);
        seat_by_names(&mut s, names, 42);
        s.iter()
            .map(|p| {
                (
                    (p.seats.map(|b| names[b].to_string()), p.round, p.index),
                    (),
                )
            })
            .collect()
    }

    #[test]
    fn seats_and_seeds_depend_on_the_names_not_the_field_issue_19() {
        for (rounds, games) in [(1, 1), (2, 1), (1, 2), (2, 3)] {
            let small = seated(&["ann", "bob", "cy"], rounds, games);
            let large = seated(&["dee", "cy", "eve", "ann", "bob"], rounds, games);
            // Every game of the small field is a game of the large one, seats included.
            for game in small.keys() {
                assert!(large.contains_key(game), "{game:?}");
            }
            // A pairing's games alternate seats, and its indices are distinct.
            let ab: Vec<_> = (small.keys())
                .filter(|(s, _, _)| s.contains(&"ann".to_string()) && s.contains(&"bob".into()))
                .collect();
            assert_eq!(ab.len() as u32, rounds * games);
            let mut indices: Vec<u32> = ab.iter().map(|g| g.2).collect();
            indices.dedup();
            assert_eq!(indices.len(), ab.len());
        }
        let mut s = round_robin(2, 1, 2);
        seat_by_names(&mut s, &["x", "y"], 1);
        assert_eq!(s[0].seats, [s[1].seats[1], s[1].seats[0]]);
        // Seeds: the names in seat order and the index; openings shared by games 2m, 2m+1.
        let seed = |n: [&str; 2], i| game_seed(7, "othello", n, i);
        assert_ne!(seed(["a", "b"], 0), seed(["b", "a"], 0));
        assert_ne!(seed(["a", "b"], 0), seed(["a", "b"], 1));
        assert_ne!(seed(["a", "b"], 0), game_seed(7, "gomoku", ["a", "b"], 0));
        assert_ne!(seed(["ab", "c"], 0), seed(["a", "bc"], 0));
        let opening = |n: [&str; 2], i| opening_seed(7, "othello", n, i);
        assert_eq!(opening(["a", "b"], 2), opening(["b", "a"], 3));
        assert_ne!(opening(["a", "b"], 1), opening(["a", "b"], 2));
        // Pinned: a seed must give the same games in every version.
        assert_eq!(seed(["a", "b"], 0), 6442241695015569844);
    }

    #[test]
    fn shard_arguments_are_parsed_and_checked() {
        let parse = |s: &str| s.parse::<Shard>();
        assert_eq!(parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(parse("1/1"), Ok(Shard { index: 1, count: 1 }));
        assert_eq!(parse("2/4").unwrap().to_string(), "2/4");
        let err = |s| parse(s).unwrap_err();
        assert_eq!(err("5/4"), "`5/4`: the shard must be between 1 and 4");
        assert_eq!(err("0/4"), "`0/4`: the shard must be between 1 and 4");
        assert_eq!(err("1/0"), "`1/0`: the shard count must be at least 1");
        assert_eq!(
            err("3"),
            "`3`: expected `I/N`, such as `2/4` (shard 2 of 4)"
        );
        assert_eq!(err("a/4"), "`a/4`: the shard `a` is not a whole number");
        assert_eq!(
            err("1/-4"),
            "`1/-4`: the shard count `-4` is not a whole number"
        );
    }
}
