//! Which games infinite rating differences explain, and which ratings and first-move
//! advantage the remaining games determine.

use std::collections::{BTreeMap, VecDeque};

use super::Cell;

/// "No path" in the longest-path matrix.
const NO_PATH: i64 = i64::MIN;

/// Which cells some direction of the parameters pushes to certainty without making any
/// result less likely: their results are explained by infinite rating differences.
///
/// A result "`w` scored against `l`" stays at least as likely along a direction `(r, t)`
/// (ratings `r`, first-move advantage `t`) iff `r_w - r_l >= c·t`, where `c` is +1 if `w`
/// moved second, -1 if `w` moved first and 0 without a first player. With `t` fixed at 0, +1
/// or -1 these are difference constraints `r_w >= r_l + c·t`: edges `l -> w` of weight `c·t`.
/// They are satisfiable iff no cycle has positive weight, and then a constraint can be made
/// strict iff its edge lies on no cycle of weight 0. A cell is set aside if any of the three
/// cases can make one of its results strictly more likely; the union of those directions is
/// again such a direction, so the rest has a finite maximum.
fn separated_cells(n: usize, cells: &[Cell]) -> Vec<bool> {
    // (scorer, other, c) for each side that scored in a cell: both, if it holds a draw.
    let results = |cell: &Cell| {
        let f = i64::from(cell.first);
        let a_scored = cell.half_points > 0;
        let b_scored = cell.half_points < 2 * cell.games;
        [
            a_scored.then_some((cell.a, cell.b, -f)),
            b_scored.then_some((cell.b, cell.a, f)),
        ]
    };
    let mut out = vec![false; cells.len()];
    // Without a first player every `c` is 0, and the two tilts are the same graph.
    let signs: &[i64] = if cells.iter().any(|c| c.first) {
        &[1, -1]
    } else {
        &[1]
    };
    for &sign in signs {
        let edges: Vec<(usize, usize, i64)> = cells
            .iter()
            .flat_map(|cell| results(cell).into_iter().flatten())
            .map(|(w, l, c)| (l, w, sign * c))
            .collect();
        let longest = LongestPaths::new(n, &edges);
        let feasible = longest.feasible();
        for (cell, out) in cells.iter().zip(out.iter_mut()) {
            for (w, l, c) in results(cell).into_iter().flatten() {
                let back = longest.back(w, l);
                // With t = 0: strict unless a path leads back from the winner to the loser.
                let strict_flat = back == NO_PATH;
                // With t = sign: strict unless on a cycle of weight 0.
                let strict_tilted = feasible && (back == NO_PATH || back < -sign * c);
                *out |= strict_flat || strict_tilted;
            }
        }
    }
    out
}

/// The longest path weights that close a cycle with an edge. Such a path, and every cycle,
/// lies within one strongly connected component, so Floyd–Warshall runs on each component
/// alone: `O(Σ size³)`, not `O(bots³)`, which for the games of a large field (a
/// gauntlet's winners and losers, a shard where most bots meet one or two others) is the
/// difference between microseconds and seconds. A component whose edges all weigh 0 (every
/// game without a first player, as in Morra) needs none: every path in it weighs 0.
struct LongestPaths {
    /// Each node's component and its index there.
    component: Vec<usize>,
    local: Vec<usize>,
    /// Each component's size and row-major longest-path matrix, or `None` when its edges all
    /// weigh 0.
    tables: Vec<(usize, Option<Vec<i64>>)>,
}

impl LongestPaths {
    fn new(n: usize, edges: &[(usize, usize, i64)]) -> LongestPaths {
        let component = strong_components(n, edges);
        let mut local = vec![0; n];
        let mut sizes = vec![0; component.iter().map(|&c| c + 1).max().unwrap_or(0)];
        for (v, &c) in component.iter().enumerate() {
            local[v] = sizes[c];
            sizes[c] += 1;
        }
        let mut weighted = vec![false; sizes.len()];
        for &(from, to, w) in edges {
            if component[from] == component[to] && w != 0 {
                weighted[component[from]] = true;
            }
        }
        let mut tables: Vec<(usize, Option<Vec<i64>>)> = (sizes.into_iter().zip(weighted))
            .map(|(k, weighted)| {
                let table = weighted.then(|| {
                    let mut d = vec![NO_PATH; k * k];
                    (0..k).for_each(|v| d[v * k + v] = 0);
                    d
                });
                (k, table)
            })
            .collect();
        for &(from, to, w) in edges {
            if let (true, (k, Some(d))) = (
                component[from] == component[to],
                &mut tables[component[from]],
            ) {
                let e = &mut d[local[from] * *k + local[to]];
                *e = (*e).max(w);
            }
        }
        for (k, d) in &mut tables {
            if let Some(d) = d {
                floyd_warshall(*k, d);
            }
        }
        LongestPaths {
            component,
            local,
            tables,
        }
    }

    /// The longest path weight from `i` back to `j`, where an edge leads from `j` to `i`, or
    /// [`NO_PATH`].
    fn back(&self, i: usize, j: usize) -> i64 {
        if self.component[i] != self.component[j] {
            return NO_PATH;
        }
        match &self.tables[self.component[i]] {
            (k, Some(d)) => d[self.local[i] * k + self.local[j]],
            (_, None) => 0,
        }
    }

    /// Whether no cycle has positive weight.
    fn feasible(&self) -> bool {
        (self.tables.iter()).all(|(k, d)| {
            d.as_ref()
                .is_none_or(|d| (0..*k).all(|v| d[v * k + v] <= 0))
        })
    }
}

/// Longest paths in place (Floyd–Warshall) in the `k × k` matrix `d` of edge weights; a
/// positive cycle through `v` shows as a positive `[v][v]`. Sums saturate, so positive cycles
/// cannot overflow.
fn floyd_warshall(k: usize, d: &mut [i64]) {
    for m in 0..k {
        for i in 0..k {
            let im = d[i * k + m];
            if im == NO_PATH {
                continue;
            }
            for j in 0..k {
                let mj = d[m * k + j];
                if mj != NO_PATH {
                    let through = im.saturating_add(mj);
                    if through > d[i * k + j] {
                        d[i * k + j] = through;
                    }
                }
            }
        }
    }
}

/// Each node's strongly connected component (numbered from 0) in the graph of `edges`
/// (`from`, `to`, weight), by Tarjan's algorithm with an explicit stack.
fn strong_components(n: usize, edges: &[(usize, usize, i64)]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(from, to, _) in edges {
        out[from].push(to);
    }
    let (mut index, mut low) = (vec![UNSEEN; n], vec![0; n]);
    let mut on_stack = vec![false; n];
    let (mut stack, mut component) = (Vec::new(), vec![UNSEEN; n]);
    let (mut next, mut count) = (0, 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, how many of its edges are followed)
        let mut calls = vec![(root, 0)];
        (index[root], low[root], next) = (next, next, next + 1);
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut followed)) = calls.last_mut() {
            if let Some(&w) = out[v].get(*followed) {
                *followed += 1;
                if index[w] == UNSEEN {
                    (index[w], low[w], next) = (next, next, next + 1);
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    component
}

/// The cells that remain once those separated ([`separated_cells`]) are set aside, and what
/// they determine.
pub(super) fn set_aside(n: usize, cells: &[Cell]) -> (Vec<Cell>, Shape) {
    let separated = separated_cells(n, cells);
    let kept: Vec<Cell> = cells
        .iter()
        .zip(&separated)
        .filter(|(_, &s)| !s)
        .map(|(c, _)| *c)
        .collect();
    let shape = Shape::of(n, &kept);
    (kept, shape)
}

/// What the cells that remain determine.
pub(super) struct Shape {
    /// Each bot's component (bots joined by remaining cells), named by its first bot.
    pub component: Vec<usize>,
    /// Each bot's group: the bots whose rating differences are determined.
    pub group: Vec<usize>,
    /// Whether the first-move advantage is determined.
    pub eta_identified: bool,
}

impl Shape {
    /// The fit's parameters: one per bot of the `n` but the first of each component (`slots`
    /// entries, those past `n` held at 0), then the first-move advantage when it is
    /// determined. Each bot's parameter index, the advantage's, and how many in all.
    pub(super) fn parameters(
        &self,
        n: usize,
        slots: usize,
    ) -> (Vec<Option<usize>>, Option<usize>, usize) {
        let mut param = vec![None; slots];
        let mut count = 0;
        for (i, p) in param.iter_mut().enumerate().take(n) {
            if self.component[i] != i {
                *p = Some(count);
                count += 1;
            }
        }
        let eta_param = self.eta_identified.then(|| {
            count += 1;
            count - 1
        });
        (param, eta_param, count)
    }

    /// The parameter changes that leave every remaining cell's likelihood alone are those
    /// with `r_a - r_b + f·t = 0` in every cell. A constant per component always is; `t` can
    /// be non-zero only if potentials `u` with `u_b = u_a + f` exist, and then only bots of a
    /// component with equal `u` have determined differences.
    pub(super) fn of(n: usize, cells: &[Cell]) -> Shape {
        let mut adjacent: Vec<Vec<(usize, i64)>> = vec![Vec::new(); n];
        let mut eta_identified = false;
        for c in cells {
            let f = i64::from(c.first);
            if c.a == c.b {
                // A bot against itself: only the first move explains the result.
                eta_identified |= c.first;
            } else {
                adjacent[c.a].push((c.b, f));
                adjacent[c.b].push((c.a, -f));
            }
        }
        let mut component = vec![usize::MAX; n];
        let mut potential = vec![0i64; n];
        for start in 0..n {
            if component[start] != usize::MAX {
                continue;
            }
            component[start] = start;
            let mut queue = VecDeque::from([start]);
            while let Some(v) = queue.pop_front() {
                for &(w, f) in &adjacent[v] {
                    if component[w] == usize::MAX {
                        component[w] = start;
                        potential[w] = potential[v] + f;
                        queue.push_back(w);
                    } else if potential[w] != potential[v] + f {
                        eta_identified = true;
                    }
                }
            }
        }
        let mut groups: BTreeMap<(usize, i64), usize> = BTreeMap::new();
        let group = (0..n)
            .map(|i| {
                let key = (component[i], if eta_identified { 0 } else { potential[i] });
                let next = groups.len();
                *groups.entry(key).or_insert(next)
            })
            .collect();
        Shape {
            component,
            group,
            eta_identified,
        }
    }

    /// The group the default anchor averages over: the most bots (at least two), then the
    /// most games, then the first name.
    pub(super) fn main_group(&self, cells: &[Cell]) -> Option<usize> {
        let mut size: BTreeMap<usize, (usize, u64)> = BTreeMap::new();
        for &g in &self.group {
            size.entry(g).or_default().0 += 1;
        }
        for c in cells {
            if c.a != c.b && self.group[c.a] == self.group[c.b] {
                size.entry(self.group[c.a]).or_default().1 += c.games;
            }
        }
        // Groups are numbered in order of their first bot, so the lower number wins ties.
        size.into_iter()
            .filter(|&(_, (bots, _))| bots >= 2)
            .max_by(|(g1, s1), (g2, s2)| s1.cmp(s2).then(g2.cmp(g1)))
            .map(|(g, _)| g)
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::Model;
    use super::super::{aggregate, tests::game};
    use super::*;
    use crate::game::GameKind;
    use crate::results::games::{GameRecord, GameResult, GameTable};
    use crate::rng::Rng;

    /// The supremum of the log-likelihood of all cells, approached by damped Newton steps
    /// with every bot but the first free, and the first-move advantage free.
    fn supremum_by_brute_force(n: usize, cells: &[Cell]) -> f64 {
        let param: Vec<Option<usize>> = (0..n).map(|i| i.checked_sub(1)).collect();
        let model = Model::new(cells, &param, Some(n - 1), n);
        let (mut theta, mut eta) = (vec![0.0; n], 0.0);
        let mut ll = model.log_likelihood(&theta, eta);
        for _ in 0..STEPS {
            let (grad, mut info) = model.derivatives(&theta, eta);
            // The damping keeps steps finite along directions the data leave flat.
            let damping = 1e-9 + 1e-3 * grad.iter().map(|g| g.abs()).sum::<f64>();
            info.diag.iter_mut().for_each(|d| *d += damping);
            let step = model.factor(&info).unwrap().solve(&grad);
            let mut scale = 1.0;
            while scale > 1e-12 {
                let (t, e) = model.apply(&theta, eta, &step, scale);
                let new_ll = model.log_likelihood(&t, e);
                if new_ll >= ll {
                    (theta, eta, ll) = (t, e, new_ll);
                    break;
                }
                scale /= 2.0;
            }
        }
        ll
    }
    const STEPS: usize = 300;

    #[test]
    fn longest_paths_back_by_component_are_those_of_the_whole_graph() {
        let mut rng = Rng::new(7);
        for case in 0..300 {
            let n = 1 + rng.below(12);
            let edges: Vec<(usize, usize, i64)> = (0..rng.below(3 * n))
                // Every third case unweighted, as games without a first player are.
                .map(|_| (rng.below(n), rng.below(n), rng.below(3) as i64 - 1))
                .map(|(from, to, w)| (from, to, if case % 3 == 0 { 0 } else { w }))
                .collect();
            let mut whole = vec![NO_PATH; n * n];
            (0..n).for_each(|v| whole[v * n + v] = 0);
            for &(from, to, w) in &edges {
                whole[from * n + to] = whole[from * n + to].max(w);
            }
            floyd_warshall(n, &mut whole);
            let paths = LongestPaths::new(n, &edges);
            for &(from, to, _) in &edges {
                let (i, j) = (to, from);
                assert_eq!(
                    paths.back(i, j),
                    whole[i * n + j],
                    "case {case}: {i} -> {j}"
                );
            }
            let feasible = (0..n).all(|v| whole[v * n + v] <= 0);
            assert_eq!(paths.feasible(), feasible, "case {case}");
        }
    }

    #[test]
    fn setting_aside_separated_games_loses_no_likelihood_and_leaves_a_finite_fit() {
        // Random small data full of perfect scores: what is set aside must be exactly what
        // infinite parameters explain, so the supremum over all the data equals the finite
        // maximum over the rest.
        let mut rng = Rng::new(99);
        let mut separated_cases = 0;
        for case in 0..150 {
            let bots = 2 + rng.below(4);
            let games: Vec<GameRecord> = (0..1 + rng.below(10))
                .map(|_| {
                    let a = rng.below(bots);
                    let b = (a + 1 + rng.below(bots - 1)) % bots;
                    let kind =
                        [GameKind::Morra, GameKind::Othello, GameKind::Othello][rng.below(3)];
                    let result = [
                        GameResult::A,
                        GameResult::A,
                        GameResult::B,
                        GameResult::Draw,
                    ][rng.below(4)];
                    game(kind, &format!("b{a}"), &format!("b{b}"), result)
                })
                .collect();
            let table = GameTable::from_records(&games);
            let n = table.names.len();
            let mut rank = vec![0; n];
            for (i, id) in table.names.by_name().into_iter().enumerate() {
                rank[id as usize] = i;
            }
            let cells = aggregate(&table, &rank);
            let (kept, shape) = set_aside(n, &cells);
            separated_cases += usize::from(kept.len() < cells.len());
            let (param, eta_param, count) = shape.parameters(n, n);
            let model = Model::new(&kept, &param, eta_param, count);
            let (theta, eta) = model.maximize();
            let (grad, _) = model.derivatives(&theta, eta);
            assert!(grad.iter().all(|g| g.abs() < 1e-8), "case {case}: {grad:?}");
            assert!(
                theta.iter().chain([&eta]).all(|x| x.abs() < 10.0),
                "case {case}"
            );
            let max = model.log_likelihood(&theta, eta);
            let sup = supremum_by_brute_force(n, &cells);
            assert!(
                sup <= max + 1e-9 && max - sup < 1e-3,
                "case {case}: {sup} vs {max}"
            );
        }
        assert!(separated_cases > 50, "{separated_cases}");
    }
}
