//! Swiss rounds: each round pairs bots of equal or nearest scores that have not met, from the
//! results of the rounds before it, so a round is planned only once the one before is over.
//!
//! A round is a function of the tournament's seed and the earlier rounds' results alone: a
//! resumed tournament plans the same round again and plays the games of it still missing.

use std::collections::HashSet;

use super::Pairing;
use crate::rng::{derive_seed, Rng};

/// Points a bye is worth: those of a pair of draws (a win is 2 points, a draw 1).
pub const BYE_POINTS: u32 = 2;

/// Mixed into the tournament seed for the order of bots of equal scores.
const SWISS_SALT: u64 = 0x7377_6973_735f_7461;

/// The most steps the search for a round without a repeated pairing may take before the
/// round is paired allowing repeats (only with more rounds than the field can fill).
const SEARCH_STEPS: usize = 1_000_000;

/// A game as the pairing sees it: its round, its seats and the points each seat got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    pub round: u32,
    pub seats: [usize; 2],
    pub points: [u32; 2],
}

/// One round: its games (a colour-swapped pair per pairing) and the bot with a bye, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    pub games: Vec<Pairing>,
    pub bye: Option<usize>,
}

/// A Swiss tournament of `bots` bots over `rounds` rounds.
#[derive(Debug, Clone, Copy)]
pub struct Swiss {
    pub bots: usize,
    pub rounds: u32,
    pub seed: u64,
}

impl Swiss {
    /// Games in each round: two per pairing.
    pub fn games_per_round(&self) -> u64 {
        2 * (self.bots / 2) as u64
    }

    /// Round `round` (from 1), paired from the games of the rounds before it (games of later
    /// rounds are ignored). Game ids run on from round to round; each game's seed and opening
    /// come from its two bots' names and its index in their pairing (they meet once: 0 and 1).
    pub fn round(&self, round: u32, played: &[Played]) -> Round {
        let before: Vec<&Played> = played.iter().filter(|g| g.round < round).collect();
        let mut score = vec![0u32; self.bots];
        let mut met = HashSet::new();
        for g in &before {
            for i in 0..2 {
                score[g.seats[i]] += g.points[i];
            }
            met.insert(key(g.seats[0], g.seats[1]));
        }
        // The byes of earlier rounds, planned again: each depends only on the rounds before.
        let byes: Vec<usize> = (1..round).filter_map(|r| self.bye(r, &before)).collect();
        for &b in &byes {
            score[b] += BYE_POINTS;
        }
        let order = self.order(&score);
        let (pairs, bye) = pair(&order, &met, &byes);
        let first = u64::from(round - 1) * self.games_per_round();
        let mut games = Vec::with_capacity(2 * pairs.len());
        for (k, &[a, b]) in pairs.iter().enumerate() {
            let id = first + 2 * k as u64 + 1;
            // The higher-placed bot moves first in the pair's first game on odd rounds.
            let seats = if round % 2 == 1 { [a, b] } else { [b, a] };
            games.push(Pairing {
                round,
                game_id: id,
                seats,
                // The two bots meet once: the pair's games are their pairing's 0 and 1.
                index: 0,
            });
            games.push(Pairing {
                round,
                game_id: id + 1,
                seats: [seats[1], seats[0]],
                index: 1,
            });
        }
        Round { games, bye }
    }

    /// The bot with the bye in round `round`, planned from `played` as [`Swiss::round`] does.
    fn bye(&self, round: u32, played: &[&Played]) -> Option<usize> {
        let earlier: Vec<Played> = played
            .iter()
            .filter(|g| g.round < round)
            .map(|g| **g)
            .collect();
        if self.bots.is_multiple_of(2) {
            return None;
        }
        self.round(round, &earlier).bye
    }

    /// Bots by score, best first; equal scores in an order drawn once from the seed.
    fn order(&self, score: &[u32]) -> Vec<usize> {
        let mut rng = Rng::new(derive_seed(self.seed, SWISS_SALT));
        let tiebreak: Vec<u64> = (0..self.bots).map(|_| rng.next_u64()).collect();
        let mut order: Vec<usize> = (0..self.bots).collect();
        order.sort_by_key(|&b| (std::cmp::Reverse(score[b]), tiebreak[b]));
        order
    }

    /// The games of the first round not yet finished in `played`, less those already played:
    /// what to play next; empty once the last round is over.
    pub fn next(&self, played: &[Played], done: &HashSet<u64>) -> Vec<Pairing> {
        for round in 1..=self.rounds {
            let games: Vec<Pairing> = (self.round(round, played).games.into_iter())
                .filter(|p| !done.contains(&p.game_id))
                .collect();
            if !games.is_empty() {
                return games;
            }
        }
        Vec::new()
    }
}

fn key(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

/// Pairs `order` (best first): the bye to the lowest-placed bot without one, then each bot
/// with the nearest below it not yet met, backtracking when the rest cannot be paired. If
/// no round without a repeat is found, repeats are allowed.
fn pair(
    order: &[usize],
    met: &HashSet<(usize, usize)>,
    byes: &[usize],
) -> (Vec<[usize; 2]>, Option<usize>) {
    let mut candidates: Vec<Option<usize>> = if order.len() % 2 == 1 {
        let mut c: Vec<Option<usize>> = (order.iter().rev())
            .filter(|b| !byes.contains(b))
            .map(|&b| Some(b))
            .collect();
        // Everyone has had a bye: the lowest-placed gets another.
        c.push(order.last().copied());
        c
    } else {
        vec![None]
    };
    candidates.dedup();
    for allow_repeats in [false, true] {
        for &bye in &candidates {
            let rest: Vec<usize> = order.iter().copied().filter(|&b| Some(b) != bye).collect();
            let mut steps = 0;
            let mut pairs = Vec::new();
            let mut used = vec![false; rest.len()];
            let ok = |a: usize, b: usize| allow_repeats || !met.contains(&key(a, b));
            if search(&rest, &mut used, &mut pairs, &ok, &mut steps) {
                return (pairs, bye);
            }
        }
    }
    unreachable!("with repeats allowed any even field can be paired")
}

/// Depth-first: the first unpaired bot takes the nearest partner it may meet.
fn search(
    rest: &[usize],
    used: &mut [bool],
    pairs: &mut Vec<[usize; 2]>,
    ok: &dyn Fn(usize, usize) -> bool,
    steps: &mut usize,
) -> bool {
    let Some(i) = used.iter().position(|u| !u) else {
        return true;
    };
    used[i] = true;
    for j in i + 1..rest.len() {
        *steps += 1;
        if *steps > SEARCH_STEPS {
            break;
        }
        if used[j] || !ok(rest[i], rest[j]) {
            continue;
        }
        used[j] = true;
        pairs.push([rest[i], rest[j]]);
        if search(rest, used, pairs, ok, steps) {
            return true;
        }
        pairs.pop();
        used[j] = false;
    }
    used[i] = false;
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays every round with the lower index winning both games (a clear order).
    fn simulate(bots: usize, rounds: u32) -> (Vec<Played>, Vec<Option<usize>>) {
        let swiss = Swiss {
            bots,
            rounds,
            seed: 7,
        };
        let mut played = Vec::new();
        let mut byes = Vec::new();
        for round in 1..=rounds {
            let r = swiss.round(round, &played);
            byes.push(r.bye);
            for p in &r.games {
                let a_wins = p.seats[0] < p.seats[1];
                played.push(Played {
                    round,
                    seats: p.seats,
                    points: if a_wins { [2, 0] } else { [0, 2] },
                });
            }
        }
        (played, byes)
    }

    #[test]
    fn no_pairing_repeats_and_every_bot_plays_one_pair_a_round() {
        for (bots, rounds) in [(16, 5), (7, 6), (2, 1), (9, 4), (33, 7)] {
            let (played, byes) = simulate(bots, rounds);
            let mut pairings = HashSet::new();
            for round in 1..=rounds {
                let games: Vec<&Played> = played.iter().filter(|g| g.round == round).collect();
                let mut count = vec![0; bots];
                for g in &games {
                    for s in g.seats {
                        count[s] += 1;
                    }
                    pairings.insert((round, key(g.seats[0], g.seats[1])));
                }
                let bye = byes[round as usize - 1];
                for (b, &c) in count.iter().enumerate() {
                    let want = if Some(b) == bye { 0 } else { 2 };
                    assert_eq!(c, want, "{bots} bots, round {round}, bot {b}");
                }
                assert_eq!(bye.is_some(), bots % 2 == 1);
            }
            let distinct: HashSet<(usize, usize)> = pairings.iter().map(|p| p.1).collect();
            assert_eq!(
                distinct.len(),
                pairings.len(),
                "{bots} bots: a pairing repeated"
            );
            // Byes go to different bots while some have had none.
            let given: Vec<usize> = byes.iter().flatten().copied().collect();
            let unique: HashSet<&usize> = given.iter().collect();
            assert_eq!(unique.len(), given.len().min(bots));
        }
    }

    #[test]
    fn leaders_meet_leaders() {
        // 8 bots, the lower index always wins: after round 1 the four winners have 4
        // points, and round 2 pairs winners with winners.
        let swiss = Swiss {
            bots: 8,
            rounds: 3,
            seed: 1,
        };
        let (played, _) = simulate(8, 1);
        let winners: HashSet<usize> = (played.iter())
            .filter(|g| g.points[0] == 2)
            .map(|g| g.seats[0])
            .collect();
        let r2 = swiss.round(2, &played);
        for p in &r2.games {
            assert_eq!(
                winners.contains(&p.seats[0]),
                winners.contains(&p.seats[1]),
                "{p:?}"
            );
        }
    }

    #[test]
    fn a_round_depends_only_on_the_rounds_before_it() {
        let swiss = Swiss {
            bots: 9,
            rounds: 4,
            seed: 3,
        };
        let (played, _) = simulate(9, 3);
        let two_rounds: Vec<Played> = played.iter().filter(|g| g.round <= 2).copied().collect();
        assert_eq!(swiss.round(3, &played), swiss.round(3, &two_rounds));
        // Ids run on: round 3 of 9 bots (8 games a round) starts at 17.
        assert_eq!(swiss.round(3, &played).games[0].game_id, 17);
        let done: HashSet<u64> = (1..=18).collect();
        let next = swiss.next(&two_rounds, &done);
        assert_eq!(next.len(), 6);
        assert!(next.iter().all(|p| p.round == 3 && p.game_id > 18));
    }
}
