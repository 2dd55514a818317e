//! Solving with the Fisher information: a symmetric positive definite matrix with a nonzero
//! for every two parameters that share a cell. It is dense in a round robin, but sparse when
//! bots meet few others: a gauntlet of a thousand candidates is a star, a shard or a Swiss run
//! of a large field hardly more than a tree. A dense factorization would cost `m³/3` there
//! (seconds for a thousand bots, in every Newton step) for a matrix of a few thousand entries.
//!
//! So the parameters are put in an order once ([`Plan`]): by minimum degree, as sparse
//! Cholesky codes do, each step taking the parameter with the fewest neighbours left and
//! joining its neighbours (the fill its elimination makes), until the fewest left is a sizable
//! part of what remains. Those are eliminated one by one in sparse columns; what remains, their
//! Schur complement, is factored as one dense block ([`cholesky`]). A round robin is all dense
//! block, as before; a gauntlet's candidates go first and its references make the block.

use std::collections::BTreeSet;

/// The rest is factored as a dense block once its sparsest parameter has a neighbour in every
/// this many parameters left: from there on, a dense block's vectorized dot products beat
/// eliminating one sparse column at a time.
const DENSE_FROM: usize = 12;

/// A symmetric matrix with the nonzero pattern of a [`Plan`]: its diagonal, and the entries of
/// [`Plan::pairs`] in that order.
#[derive(Debug, Clone)]
pub(super) struct Symmetric {
    pub diag: Vec<f64>,
    pub off: Vec<f64>,
}

/// Where an entry of the matrix goes in the factorization.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// Sparse column `k`, its `index`th row.
    Column(usize, usize),
    /// The dense block, row and column (row >= column).
    Block(usize, usize),
}

/// The elimination order of a pattern, and the structure of its Cholesky factor.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    /// The parameter pairs `(i, j)`, `i < j`, that may be nonzero.
    pairs: Vec<(usize, usize)>,
    /// The parameter at each position of the order.
    order: Vec<usize>,
    /// Each parameter's position in the order.
    position: Vec<usize>,
    /// Positions below this are sparse columns; the rest is the dense block.
    sparse: usize,
    /// The rows (positions, ascending) below the diagonal of each sparse column.
    rows: Vec<Vec<usize>>,
}

impl Plan {
    /// The plan for an `n × n` matrix whose off-diagonal nonzeros may be at `pairs` (each
    /// `(i, j)` with `i != j`, repeats allowed); it keeps the pairs, deduplicated, in
    /// [`Plan::pairs`] order. Depends on the pattern alone, so the same games give the same
    /// order and the same sums.
    pub fn new(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Plan {
        let pairs: Vec<(usize, usize)> = pairs
            .into_iter()
            .map(|(i, j)| (i.min(j), i.max(j)))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut adjacent: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        for &(i, j) in &pairs {
            adjacent[i].insert(j);
            adjacent[j].insert(i);
        }
        let mut by_degree: BTreeSet<(usize, usize)> =
            (0..n).map(|v| (adjacent[v].len(), v)).collect();
        let mut order = Vec::with_capacity(n);
        let mut neighbours_of = Vec::new();
        while let Some(&(degree, v)) = by_degree.first() {
            if degree * DENSE_FROM >= by_degree.len() {
                break;
            }
            by_degree.pop_first();
            let neighbours: Vec<usize> = std::mem::take(&mut adjacent[v]).into_iter().collect();
            for &u in &neighbours {
                let before = adjacent[u].len();
                adjacent[u].remove(&v);
                adjacent[u].extend(neighbours.iter().filter(|&&w| w != u));
                by_degree.remove(&(before, u));
                by_degree.insert((adjacent[u].len(), u));
            }
            order.push(v);
            neighbours_of.push(neighbours);
        }
        let sparse = order.len();
        // The dense block in parameter order.
        let mut rest: Vec<usize> = by_degree.into_iter().map(|(_, v)| v).collect();
        rest.sort_unstable();
        order.extend(rest);
        let mut position = vec![0; n];
        for (p, &v) in order.iter().enumerate() {
            position[v] = p;
        }
        let rows = neighbours_of
            .into_iter()
            .map(|neighbours| {
                let mut rows: Vec<usize> = neighbours.into_iter().map(|v| position[v]).collect();
                rows.sort_unstable();
                rows
            })
            .collect();
        Plan {
            pairs,
            order,
            position,
            sparse,
            rows,
        }
    }

    /// The off-diagonal pairs that may be nonzero, in the order of [`Symmetric::off`].
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    /// The index of pair `(i, j)` in [`Plan::pairs`].
    pub fn pair_index(&self, i: usize, j: usize) -> Option<usize> {
        self.pairs.binary_search(&(i.min(j), i.max(j))).ok()
    }

    /// The matrix's size.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Where the entry at positions `(i, j)` goes.
    fn slot(&self, i: usize, j: usize) -> Slot {
        let (low, high) = (i.min(j), i.max(j));
        if low < self.sparse {
            let index = self.rows[low]
                .binary_search(&high)
                .expect("the plan's columns hold every nonzero and its fill");
            Slot::Column(low, index)
        } else {
            Slot::Block(high - self.sparse, low - self.sparse)
        }
    }

    /// The Cholesky factorization of `a`, or `None` if `a` is not positive definite.
    pub fn factor(&self, a: &Symmetric) -> Option<Factor<'_>> {
        let s = self.sparse;
        let d = self.len() - s;
        let mut parts = Parts {
            diag: vec![0.0; s],
            columns: self.rows.iter().map(|r| vec![0.0; r.len()]).collect(),
            block: (0..d).map(|i| vec![0.0; i + 1]).collect(),
        };
        for (p, &v) in a.diag.iter().enumerate() {
            let i = self.position[p];
            self.add(&mut parts, i, i, v);
        }
        for (&(p, q), &v) in self.pairs.iter().zip(&a.off) {
            self.add(&mut parts, self.position[p], self.position[q], v);
        }
        for k in 0..s {
            let pivot = parts.diag[k];
            if !(pivot > 0.0 && pivot.is_finite()) {
                return None;
            }
            let pivot = pivot.sqrt();
            parts.diag[k] = pivot;
            // Taken out while its rows update later entries (never its own).
            let mut column = std::mem::take(&mut parts.columns[k]);
            column.iter_mut().for_each(|l| *l /= pivot);
            // The Schur complement: every two rows of the column update their entry.
            let rows = &self.rows[k];
            for (x, (&i, &li)) in rows.iter().zip(&column).enumerate() {
                for (&j, &lj) in rows[x..].iter().zip(&column[x..]) {
                    self.add(&mut parts, i, j, -li * lj);
                }
            }
            parts.columns[k] = column;
        }
        let Parts {
            diag,
            columns,
            block,
        } = parts;
        Some(Factor {
            plan: self,
            diag,
            columns,
            block: cholesky(block)?,
        })
    }

    /// Adds `v` to the entry at positions `(i, j)` of the matrix being factored.
    fn add(&self, parts: &mut Parts, i: usize, j: usize, v: f64) {
        if i == j && i < self.sparse {
            parts.diag[i] += v;
        } else {
            match self.slot(i, j) {
                Slot::Column(k, index) => parts.columns[k][index] += v,
                Slot::Block(r, c) => parts.block[r][c] += v,
            }
        }
    }
}

/// A matrix being factored: the sparse columns' diagonal and entries below it, and the dense
/// block's lower triangle.
struct Parts {
    diag: Vec<f64>,
    columns: Vec<Vec<f64>>,
    block: Vec<Vec<f64>>,
}

/// A Cholesky factor `L` (`L·Lᵀ` = the matrix in plan order): sparse columns, then the
/// factor of the dense block.
pub(super) struct Factor<'p> {
    plan: &'p Plan,
    diag: Vec<f64>,
    columns: Vec<Vec<f64>>,
    block: Vec<Vec<f64>>,
}

impl Factor<'_> {
    /// `x` with `A·x = b`.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let plan = self.plan;
        let s = plan.sparse;
        let mut y: Vec<f64> = plan.order.iter().map(|&p| b[p]).collect();
        self.forward_sparse(&mut y, 0);
        let tail = chol_solve(&self.block, &y[s..]);
        y[s..].copy_from_slice(&tail);
        self.back_sparse(&mut y, 0);
        let mut x = vec![0.0; y.len()];
        for (p, &v) in plan.order.iter().zip(&y) {
            x[*p] = v;
        }
        x
    }

    /// Solves the sparse columns' part of `L·y = b` in place, from column `from` on (the
    /// entries before it being zero), and leaves the dense block's right-hand side.
    fn forward_sparse(&self, y: &mut [f64], from: usize) {
        for k in from..self.plan.sparse {
            if y[k] == 0.0 {
                continue;
            }
            y[k] /= self.diag[k];
            let yk = y[k];
            for (&i, &l) in self.plan.rows[k].iter().zip(&self.columns[k]) {
                y[i] -= l * yk;
            }
        }
    }

    /// Solves the sparse columns' part of `Lᵀ·x = y` in place, down to column `to`, once the
    /// dense block's part is solved.
    fn back_sparse(&self, y: &mut [f64], to: usize) {
        for k in (to..self.plan.sparse).rev() {
            let rows = &self.plan.rows[k];
            let sum: f64 = rows
                .iter()
                .zip(&self.columns[k])
                .map(|(&i, &l)| l * y[i])
                .sum();
            y[k] = (y[k] - sum) / self.diag[k];
        }
    }

    /// The whole inverse, in parameter order.
    ///
    /// Its dense block's part is the inverse of the block's Schur complement ([`inverse`]).
    /// Each sparse column `j` takes one solve of `A·x = e_j`, for the entries at and after
    /// `j`: forward from `j` through the columns `e_j` reaches, the block's part through the
    /// block's inverse, and back down to `j`.
    pub fn inverse(&self) -> Vec<Vec<f64>> {
        let plan = self.plan;
        let (n, s) = (plan.len(), plan.sparse);
        let mut inv = vec![vec![0.0; n]; n];
        let block_inverse = inverse(&self.block);
        for (a, row) in block_inverse.iter().enumerate() {
            for (b, &v) in row.iter().enumerate() {
                inv[plan.order[s + a]][plan.order[s + b]] = v;
            }
        }
        let mut y = vec![0.0; n];
        for j in 0..s {
            y.iter_mut().for_each(|v| *v = 0.0);
            y[j] = 1.0;
            self.forward_sparse(&mut y, j);
            // The block's part: its inverse times what reached it (usually a few entries).
            let mut x = vec![0.0; n - s];
            for (b, &v) in y[s..].iter().enumerate() {
                if v != 0.0 {
                    for (x, &w) in x.iter_mut().zip(&block_inverse[b]) {
                        *x += v * w;
                    }
                }
            }
            y[s..].copy_from_slice(&x);
            self.back_sparse(&mut y, j);
            let pj = plan.order[j];
            for (i, &v) in y.iter().enumerate().skip(j) {
                let pi = plan.order[i];
                inv[pi][pj] = v;
                inv[pj][pi] = v;
            }
        }
        inv
    }
}

/// `Σ x[k]·y[k]` over the shorter length, in four running sums (which the compiler can keep
/// in vector registers).
pub(super) fn dot(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    let (x, y) = (&x[..n], &y[..n]);
    let mut sums = [0.0; 4];
    let (xs, ys) = (x.chunks_exact(4), y.chunks_exact(4));
    let (x_rest, y_rest) = (xs.remainder(), ys.remainder());
    for (a, b) in xs.zip(ys) {
        for k in 0..4 {
            sums[k] += a[k] * b[k];
        }
    }
    let rest: f64 = x_rest.iter().zip(y_rest).map(|(a, b)| a * b).sum();
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + rest
}

/// The dense Cholesky factor `L` of `a` (`L·Lᵀ = a`), reading and writing only the lower
/// triangle (rows may stop at the diagonal), or `None` if `a` is not positive definite.
pub(super) fn cholesky(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    for j in 0..n {
        let d = a[j][j] - dot(&a[j][..j], &a[j][..j]);
        if !(d > 0.0 && d.is_finite()) {
            return None;
        }
        let d = d.sqrt();
        a[j][j] = d;
        let (done, rest) = a.split_at_mut(j + 1);
        let row_j = &done[j][..j];
        for row in rest {
            row[j] = (row[j] - dot(&row[..j], row_j)) / d;
        }
    }
    Some(a)
}

/// Solves `L·Lᵀ·x = b` for a dense factor, reading only the lower triangle of `l`.
pub(super) fn chol_solve(l: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut y = b.to_vec();
    for i in 0..n {
        y[i] = (y[i] - dot(&l[i][..i], &y[..i])) / l[i][i];
    }
    for i in (0..n).rev() {
        y[i] = (y[i] - (i + 1..n).map(|k| l[k][i] * y[k]).sum::<f64>()) / l[i][i];
    }
    y
}

/// The inverse `L⁻ᵀ·L⁻¹` of the matrix whose dense Cholesky factor is `l`.
///
/// `W = L⁻¹` is lower triangular; its column `a` (zero above row `a`) is kept from row `a`
/// on, so that every sum below runs over consecutive memory: about `m³/3` multiplications,
/// against `m³` for solving `A·x = e_j` column by column.
fn inverse(l: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let m = l.len();
    let w: Vec<Vec<f64>> = (0..m)
        .map(|a| {
            // `column[i - a]` = W[i][a], by forward substitution on `L·x = e_a`.
            let mut column = vec![0.0; m - a];
            for i in a..m {
                let unit = if i == a { 1.0 } else { 0.0 };
                column[i - a] = (unit - dot(&l[i][a..i], &column[..i - a])) / l[i][i];
            }
            column
        })
        .collect();
    // Inv[a][b] = Σ over k ≥ max(a, b) of W[k][a]·W[k][b]: exactly symmetric.
    let mut inv = vec![vec![0.0; m]; m];
    for a in 0..m {
        for b in a..m {
            let v = dot(&w[a][b - a..], &w[b]);
            inv[a][b] = v;
            inv[b][a] = v;
        }
    }
    inv
}

#[cfg(test)]
#[path = "factor_tests.rs"]
mod tests;
