//! The Bradley–Terry log-likelihood of the aggregated cells and its maximization by Newton's
//! method, with the small dense linear algebra it needs.

use super::Cell;

/// A cap on Newton steps; the fit usually converges in under ten.
pub(super) const MAX_STEPS: usize = 100;
/// Converged when no parameter moves by more than this (natural units; about 2e-8 Elo).
const STEP_TOLERANCE: f64 = 1e-10;
/// A cap on step halvings in the line search.
const MAX_HALVINGS: usize = 60;

/// The log-likelihood of the remaining cells, in the free parameters.
pub(super) struct Model<'a> {
    pub cells: &'a [Cell],
    /// Each bot's parameter index; `None` for a bot held at 0.
    pub param: &'a [Option<usize>],
    /// The first-move advantage's index, if it is determined.
    pub eta_param: Option<usize>,
    pub count: usize,
}

impl Model<'_> {
    /// The cell's linear predictor: `a`'s advantage in natural units.
    fn predictor(&self, c: &Cell, theta: &[f64], eta: f64) -> f64 {
        let f = if c.first && self.eta_param.is_some() {
            eta
        } else {
            0.0
        };
        theta[c.a] - theta[c.b] + f
    }

    /// The parameters that `a`'s advantage depends on, with their signs.
    fn gradient_of_predictor(&self, c: &Cell) -> Vec<(usize, f64)> {
        let mut z = Vec::with_capacity(3);
        if c.a != c.b {
            z.extend(self.param[c.a].map(|p| (p, 1.0)));
            z.extend(self.param[c.b].map(|p| (p, -1.0)));
        }
        if c.first {
            z.extend(self.eta_param.map(|p| (p, 1.0)));
        }
        z
    }

    pub(super) fn log_likelihood(&self, theta: &[f64], eta: f64) -> f64 {
        self.cells
            .iter()
            .map(|c| {
                let x = self.predictor(c, theta, eta);
                let s = c.score();
                s * log_sigmoid(x) + (c.games as f64 - s) * log_sigmoid(-x)
            })
            .sum()
    }

    /// The gradient and the Fisher information (negative Hessian) in the free parameters.
    pub(super) fn derivatives(&self, theta: &[f64], eta: f64) -> (Vec<f64>, Vec<Vec<f64>>) {
        let mut grad = vec![0.0; self.count];
        let mut info = vec![vec![0.0; self.count]; self.count];
        for c in self.cells {
            let x = self.predictor(c, theta, eta);
            let p = sigmoid(x);
            let g = c.score() - c.games as f64 * p;
            let w = c.games as f64 * p * sigmoid(-x);
            let z = self.gradient_of_predictor(c);
            for &(i, zi) in &z {
                grad[i] += g * zi;
                for &(j, zj) in &z {
                    info[i][j] += w * zi * zj;
                }
            }
        }
        (grad, info)
    }

    /// Ratings per bot and the first-move advantage, in natural units, at the maximum.
    pub(super) fn maximize(&self) -> (Vec<f64>, f64) {
        let mut theta = vec![0.0; self.param.len()];
        let mut eta = 0.0;
        let mut ll = self.log_likelihood(&theta, eta);
        for _ in 0..MAX_STEPS {
            let (grad, info) = self.derivatives(&theta, eta);
            let Some(chol) = cholesky(info) else { break };
            let step = chol_solve(&chol, &grad);
            let mut scale = 1.0;
            let mut moved = false;
            for _ in 0..MAX_HALVINGS {
                let (t, e) = self.apply(&theta, eta, &step, scale);
                let new_ll = self.log_likelihood(&t, e);
                if new_ll >= ll {
                    (theta, eta, ll, moved) = (t, e, new_ll, true);
                    break;
                }
                scale /= 2.0;
            }
            let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs())) * scale;
            if !moved || largest < STEP_TOLERANCE {
                break;
            }
        }
        (theta, eta)
    }

    pub(super) fn apply(
        &self,
        theta: &[f64],
        eta: f64,
        step: &[f64],
        scale: f64,
    ) -> (Vec<f64>, f64) {
        let mut t = theta.to_vec();
        for (i, p) in self.param.iter().enumerate() {
            if let Some(p) = p {
                t[i] += scale * step[*p];
            }
        }
        let e = eta + self.eta_param.map_or(0.0, |p| scale * step[p]);
        (t, e)
    }

    /// The covariance of the free parameters (inverse Fisher information `I⁻¹ = L⁻ᵀ·L⁻¹`).
    ///
    /// `W = L⁻¹` is lower triangular; its column `a` (zero above row `a`) is kept from row `a`
    /// on, so that every sum below runs over consecutive memory: about `m³/3` multiplications
    /// after the factorization, against `m³` for solving `I·x = e_j` column by column.
    pub(super) fn covariance(&self, theta: &[f64], eta: f64) -> Option<Vec<Vec<f64>>> {
        let (_, info) = self.derivatives(theta, eta);
        let l = cholesky(info)?;
        let m = self.count;
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
        // Cov[a][b] = Σ over k ≥ max(a, b) of W[k][a]·W[k][b]: exactly symmetric.
        let mut inv = vec![vec![0.0; m]; m];
        for a in 0..m {
            for b in a..m {
                let v = dot(&w[a][b - a..], &w[b]);
                inv[a][b] = v;
                inv[b][a] = v;
            }
        }
        Some(inv)
    }
}

/// `Σ x[k]·y[k]` over the shorter length, in four running sums (which the compiler can keep
/// in vector registers).
fn dot(x: &[f64], y: &[f64]) -> f64 {
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

/// The Cholesky factor `L` of `a` (`L·Lᵀ = a`) in the lower triangle of the result (the
/// upper one is left over from `a`), or `None` if `a` is not positive definite.
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

/// Solves `L·Lᵀ·x = b`, reading only the lower triangle of `l`.
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

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `ln σ(x)` without overflow or loss of precision in the tails.
fn log_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}
