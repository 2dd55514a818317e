//! The Bradley–Terry log-likelihood of the aggregated cells and its maximization by Newton's
//! method; the linear algebra is in `factor.rs`.

use super::factor::{Factor, Plan, Symmetric};
use super::Cell;

/// A cap on Newton steps; the fit usually converges in under ten.
pub(super) const MAX_STEPS: usize = 100;
/// Converged when no parameter moves by more than this (natural units; about 2e-8 Elo).
const STEP_TOLERANCE: f64 = 1e-10;
/// A cap on step halvings in the line search.
const MAX_HALVINGS: usize = 60;

/// The log-likelihood of the remaining cells, in the free parameters.
pub(super) struct Model<'a> {
    cells: &'a [Cell],
    /// Each bot's parameter index; `None` for a bot held at 0.
    param: &'a [Option<usize>],
    /// The first-move advantage's index, if it is determined.
    eta_param: Option<usize>,
    /// The Fisher information's nonzero pattern and elimination order.
    plan: Plan,
    /// Each cell's entries of the information off the diagonal: indices into the plan's
    /// pairs, for the pairs of [`Model::gradient_of_predictor`] in order.
    entries: Vec<Vec<usize>>,
}

impl<'a> Model<'a> {
    /// The model of `cells` in `count` free parameters: `param` per bot, `eta_param` for the
    /// first-move advantage.
    pub(super) fn new(
        cells: &'a [Cell],
        param: &'a [Option<usize>],
        eta_param: Option<usize>,
        count: usize,
    ) -> Self {
        let pairs = |c: &Cell| {
            let z = predictor_gradient(param, eta_param, c);
            let mut pairs = Vec::with_capacity(3);
            for (k, &(i, _)) in z.iter().enumerate() {
                pairs.extend(z[k + 1..].iter().map(|&(j, _)| (i, j)));
            }
            pairs
        };
        let all: Vec<Vec<(usize, usize)>> = cells.iter().map(pairs).collect();
        let plan = Plan::new(count, all.iter().flatten().copied());
        let entries = (all.iter())
            .map(|pairs| {
                (pairs.iter())
                    .map(|&(i, j)| plan.pair_index(i, j).expect("the plan holds every pair"))
                    .collect()
            })
            .collect();
        Model {
            cells,
            param,
            eta_param,
            plan,
            entries,
        }
    }

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
        predictor_gradient(self.param, self.eta_param, c)
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
    pub(super) fn derivatives(&self, theta: &[f64], eta: f64) -> (Vec<f64>, Symmetric) {
        let mut grad = vec![0.0; self.plan.len()];
        let mut info = Symmetric {
            diag: vec![0.0; grad.len()],
            off: vec![0.0; self.plan.pairs().len()],
        };
        for (c, entries) in self.cells.iter().zip(&self.entries) {
            let x = self.predictor(c, theta, eta);
            let p = sigmoid(x);
            let g = c.score() - c.games as f64 * p;
            let w = c.games as f64 * p * sigmoid(-x);
            let z = self.gradient_of_predictor(c);
            let mut entry = entries.iter();
            for (k, &(i, zi)) in z.iter().enumerate() {
                grad[i] += g * zi;
                info.diag[i] += w * zi * zi;
                for &(_, zj) in &z[k + 1..] {
                    let e = *entry.next().expect("an entry per pair");
                    info.off[e] += w * zi * zj;
                }
            }
        }
        (grad, info)
    }

    /// The Cholesky factor of `info`, or `None` if it is not positive definite.
    pub(super) fn factor(&self, info: &Symmetric) -> Option<Factor<'_>> {
        self.plan.factor(info)
    }

    /// Ratings per bot and the first-move advantage, in natural units, at the maximum.
    pub(super) fn maximize(&self) -> (Vec<f64>, f64) {
        let mut theta = vec![0.0; self.param.len()];
        let mut eta = 0.0;
        let mut ll = self.log_likelihood(&theta, eta);
        for _ in 0..MAX_STEPS {
            let (grad, info) = self.derivatives(&theta, eta);
            let Some(factor) = self.factor(&info) else {
                break;
            };
            let step = factor.solve(&grad);
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

    /// The covariance of the free parameters: the inverse Fisher information.
    pub(super) fn covariance(&self, theta: &[f64], eta: f64) -> Option<Vec<Vec<f64>>> {
        let (_, info) = self.derivatives(theta, eta);
        Some(self.factor(&info)?.inverse())
    }
}

/// The parameters (indexed by `param` per bot and `eta_param`) that the advantage of cell
/// `c`'s seat A depends on, with their signs.
fn predictor_gradient(
    param: &[Option<usize>],
    eta_param: Option<usize>,
    c: &Cell,
) -> Vec<(usize, f64)> {
    let mut z = Vec::with_capacity(3);
    if c.a != c.b {
        z.extend(param[c.a].map(|p| (p, 1.0)));
        z.extend(param[c.b].map(|p| (p, -1.0)));
    }
    if c.first {
        z.extend(eta_param.map(|p| (p, 1.0)));
    }
    z
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
