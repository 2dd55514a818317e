//! Who plays whom, in which seats, in which order: round-robin schedules.

/// One game of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    /// Which repetition of the round robin (1-based).
    pub round: u32,
    /// The game's number in the whole schedule (1-based).
    pub game_id: u64,
    /// Indices of the bots in seat A (moves first) and seat B.
    pub seats: [usize; 2],
    /// The same for the two colour-swapped games of a pairing (the `game_id` of the first of
    /// them), so both start from the same random opening.
    pub opening: u64,
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
                        opening: game_id - u64::from(g % 2),
                    });
                }
            }
        }
    }
    schedule
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
        for pair in s.chunks(2) {
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!(pair[0].seats, [pair[1].seats[1], pair[1].seats[0]]);
        }
        let mut openings: Vec<u64> = s.iter().map(|p| p.opening).collect();
        openings.dedup();
        assert_eq!(openings.len(), s.len() / 2);
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
}
