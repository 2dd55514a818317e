//! A Swiss tournament's standings: points (a bye counted as a pair of draws), then the usual
//! tie-breaks: Buchholz (the sum of the opponents' points), Sonneborn-Berger (the opponents'
//! points weighted by the points taken from them), then the games between the bots still
//! tied.

use std::collections::HashMap;

/// One bot's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwissRow {
    pub rank: usize,
    pub bot: String,
    /// Points of its games (2 a win, 1 a draw) and of its byes.
    pub points: u32,
    pub buchholz: u32,
    /// `Σ` over its games of the points it took times the opponent's points.
    pub sonneborn_berger: u32,
    pub games: u32,
    pub byes: u32,
}

/// The standings of a Swiss tournament with what they were computed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwissTable {
    pub rounds: u32,
    pub rows: Vec<SwissRow>,
    /// The bot with the bye in each round that had one, in order.
    pub byes: Vec<String>,
    pub bye_points: u32,
}

/// One game for the standings: the two bots and the points each took.
pub type SwissGame<'a> = (&'a str, &'a str, [u32; 2]);

/// The standings of `bots` after `games` and `byes` (the bots given a bye, once per bye,
/// each worth `bye_points`), best first.
pub fn standings(
    bots: &[String],
    games: &[SwissGame<'_>],
    byes: &[&str],
    bye_points: u32,
) -> Vec<SwissRow> {
    let index: HashMap<&str, usize> = (bots.iter().enumerate())
        .map(|(i, b)| (b.as_str(), i))
        .collect();
    let n = bots.len();
    let mut points = vec![0u32; n];
    let mut played = vec![0u32; n];
    let mut bye_count = vec![0u32; n];
    // Points taken by each bot from each opponent.
    let mut against = vec![vec![0u32; n]; n];
    let mut met = vec![vec![false; n]; n];
    for &(a, b, p) in games {
        let (Some(&a), Some(&b)) = (index.get(a), index.get(b)) else {
            continue;
        };
        for (me, them, got) in [(a, b, p[0]), (b, a, p[1])] {
            points[me] += got;
            played[me] += 1;
            against[me][them] += got;
            met[me][them] = true;
        }
    }
    for bye in byes {
        if let Some(&b) = index.get(bye) {
            points[b] += bye_points;
            bye_count[b] += 1;
        }
    }
    let buchholz: Vec<u32> = (0..n)
        .map(|i| (0..n).filter(|&j| met[i][j]).map(|j| points[j]).sum())
        .collect();
    let sb: Vec<u32> = (0..n)
        .map(|i| (0..n).map(|j| against[i][j] * points[j]).sum())
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    let key = |i: usize| (points[i], buchholz[i], sb[i]);
    order.sort_by(|&x, &y| key(y).cmp(&key(x)).then_with(|| bots[x].cmp(&bots[y])));
    // Head to head inside each group still tied: the points taken from the others of the
    // group (names last, so the order is total).
    let mut start = 0;
    while start < order.len() {
        let end = (start..order.len())
            .find(|&k| key(order[k]) != key(order[start]))
            .unwrap_or(order.len());
        let group: Vec<usize> = order[start..end].to_vec();
        let h2h = |i: usize| -> u32 { group.iter().map(|&j| against[i][j]).sum() };
        order[start..end].sort_by(|&x, &y| h2h(y).cmp(&h2h(x)).then_with(|| bots[x].cmp(&bots[y])));
        start = end;
    }
    order
        .iter()
        .enumerate()
        .map(|(k, &i)| SwissRow {
            rank: k + 1,
            bot: bots[i].clone(),
            points: points[i],
            buchholz: buchholz[i],
            sonneborn_berger: sb[i],
            games: played[i],
            byes: bye_count[i],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tie_breaks_by_hand() {
        let bots: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
        // Round 1: a beats b twice, c and d draw twice, e has the bye.
        // Round 2: a and c draw twice, e beats b twice, d has the bye.
        let games = [
            ("a", "b", [2, 0]),
            ("b", "a", [0, 2]),
            ("c", "d", [1, 1]),
            ("d", "c", [1, 1]),
            ("a", "c", [1, 1]),
            ("c", "a", [1, 1]),
            ("e", "b", [2, 0]),
            ("b", "e", [0, 2]),
        ];
        let rows = standings(&bots, &games, &["e", "d"], 2);
        let line: Vec<(&str, u32, u32, u32)> = rows
            .iter()
            .map(|r| (r.bot.as_str(), r.points, r.buchholz, r.sonneborn_berger))
            .collect();
        // Points: a 6, e 6 (4 + bye), c 4, d 4 (2 + bye), b 0.
        // Buchholz: a = b 0 + c 4 = 4; e = b 0 = 0; c = d 4 + a 6 = 10; d = c 4 = 4.
        // Sonneborn-Berger: a = 4·0 + 2·4 = 8; c = 2·4 + 2·6 = 20; d = 2·4 = 8.
        assert_eq!(
            line,
            [
                ("a", 6, 4, 8),
                ("e", 6, 0, 0),
                ("c", 4, 10, 20),
                ("d", 4, 4, 8),
                ("b", 0, 12, 0)
            ]
        );
        assert_eq!((rows[1].games, rows[1].byes), (2, 1));
    }

    #[test]
    fn bots_tied_all_through_go_by_name() {
        let bots: Vec<String> = ["y", "x"].map(String::from).to_vec();
        let games = [("x", "y", [1, 1]), ("y", "x", [1, 1])];
        let rows = standings(&bots, &games, &[], 2);
        let order: Vec<&str> = rows.iter().map(|r| r.bot.as_str()).collect();
        assert_eq!(order, ["x", "y"]);
        assert_eq!(
            (rows[0].points, rows[0].buchholz, rows[0].sonneborn_berger),
            (2, 2, 4)
        );
    }
}
