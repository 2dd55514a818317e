//! Elo ratings with 95% intervals and a likelihood-of-superiority matrix, fitted to game records.
//!
//! **Model.** Bradley–Terry on the Elo scale: in a game between bots `i` and `j`, `i`'s
//! expected score is `1 / (1 + 10^((R_j - R_i - F) / 400))`, where `F` is the first-move
//! advantage when `i` sits in seat A of a game with a first player, `-F` when `j` does, and 0
//! in Morra, whose seats are only names (games of several kinds share one `F`: rate one game
//! at a time). A draw counts as half a win and half a loss. All the ratings and `F` are
//! fitted at once by maximum likelihood, as Ordo does (BayesElo adds a prior and a draw
//! model), by Newton's method with a line search: the log-likelihood is concave, and the
//! iteration stops when a step moves no parameter by more than 1e-10 natural units, or after
//! 100 steps. Each step solves with the Fisher information, which is sparse when bots meet few
//! others (a gauntlet, a shard of a large field): it is factored sparsely, by minimum degree,
//! down to a dense block (`factor.rs`), not as a dense matrix of every bot.
//!
//! **Unbounded ratings and the prior.** The maximum-likelihood rating of a bot that won (or
//! lost) all its games is infinite, and so is, in general, every difference that some direction
//! of the parameters can make every result "more certain" without making any less; two groups
//! that never met have no difference at all. These cases are found exactly (as the non-tight
//! constraints of a system of difference constraints, by Floyd–Warshall within each strongly
//! connected component of the results, and the connected groups of the remaining results). When
//! the games determine every rating, every comparison and (with a first player) the first-move
//! advantage, the plain maximum likelihood is reported: it matches an independent Bradley–Terry
//! fit. Otherwise the whole fit is redone with a prior, as BayesElo does: each bot gets
//! [`PRIOR_DRAWS`] (2) virtual draws against a virtual opponent rated 0, and with a first
//! player, the first-move advantage 2 virtual draws of a bot against itself (evidence of no
//! advantage). Every rating, interval, and LOS is then finite, for every run with two or more
//! bots, perfect and zero scores included; the prior pulls ratings towards the average by
//! roughly as much as two draws against an average bot would, which matters for bots with few
//! games and hardly at all with many. The choice between the two depends only on the games,
//! never on names.
//!
//! **Anchor.** A chosen bot is fixed at 0; by default the average of the ratings of the main
//! group is 0. Under the prior the main group is every bot. Without it, it is the one group
//! (the MLE is used only when every bot is rated); a lone bot is rated only as the anchor.
//!
//! **Intervals.** The 95% intervals come from the inverse of the observed Fisher information
//! (the negative Hessian of the log-likelihood) at the maximum: `elo ± 1.96·sd` of each
//! rating's difference from the anchor (the anchor bot, or the group average). The likelihood
//! of superiority `LOS[i][j] = Φ((R_i - R_j) / sd(R_i - R_j))`, from the full covariance, is
//! given for every two bots of one group, whatever the anchor; BayesElo's `los` uses the same
//! normal approximation. A bootstrap over games estimates the same covariance asymptotically
//! (it approximates its sandwich form, which equals this one when the model holds), and this
//! avoids its faults here: resamples in which a bot happens to lose every game give infinite
//! ratings, the games must be sorted by the bots' names before resampling so renaming bots
//! changes the intervals, and 200 refits cost 200 times as much. In simulated round robins the
//! intervals cover the true rating 95% of the time without draws; with up to 20% draws, 97%:
//! half points vary less than the binomial the likelihood assumes.
//!
//! **Determinism.** The result depends only on the multiset of `(bots, seats, result)`: games
//! are aggregated into integer counts per pairing and seat before any arithmetic, so reordering
//! games changes nothing, and renaming bots changes only the order of floating-point sums
//! (differences around 1e-12 Elo). No randomness is used.

mod factor;
mod identify;
mod los;
mod model;

use std::collections::HashMap;

use crate::results::games::{GameResult, GameTable};
use identify::{set_aside, Shape};
use model::Model;

/// Elo points per natural unit of the logistic model: `400 / ln 10`.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;
/// The prior: how many virtual draws each bot plays against a virtual opponent rated 0,
/// added only when the games alone leave some rating unbounded (see the module documentation).
const PRIOR_DRAWS: u64 = 2;
/// The 97.5% quantile of the standard normal distribution, for 95% two-sided intervals.
const Z95: f64 = 1.959_963_984_540_054;

/// What to anchor the ratings to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RatingOptions {
    /// The bot fixed at rating 0; `None` puts the average of the main group at 0.
    pub anchor: Option<String>,
}

/// One bot's rating: Elo points relative to the anchor, with its 95% confidence interval.
#[derive(Debug, Clone, PartialEq)]
pub struct BotRating {
    pub bot: String,
    /// `None` when the games do not bound the rating (see the module documentation).
    pub elo: Option<f64>,
    /// The 95% interval's ends; `None` when `elo` is (and, in exact arithmetic never, when
    /// the Fisher information is singular).
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// The ratings of all bots in the games, and how sure each comparison is.
#[derive(Debug, Clone, PartialEq)]
pub struct Ratings {
    /// Sorted by name.
    pub bots: Vec<BotRating>,
    /// The first player's advantage in Elo points with its 95% interval; `None` when no game
    /// has a first player or the games do not bound it.
    pub first_move_elo: Option<f64>,
    pub first_move_low: Option<f64>,
    pub first_move_high: Option<f64>,
    /// `los[i][j]`: the probability that `bots[i]` is stronger than `bots[j]`; `None` on the
    /// diagonal and where the games do not determine the difference.
    pub los: Vec<Vec<Option<f64>>>,
}

/// Why ratings cannot be fitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RatingError {
    /// The anchor named is not one of the bots.
    #[error("unknown anchor `{name}`: it played no game")]
    UnknownAnchor { name: String },
}

/// Fits ratings to `games`; fails only for an anchor that is not one of the bots.
pub fn fit(games: &GameTable, opts: &RatingOptions) -> Result<Ratings, RatingError> {
    // Bots are numbered by name from here on: `rank[id]` is the bot's place in name order.
    let by_name = games.names.by_name();
    let mut rank = vec![0; by_name.len()];
    for (i, &id) in by_name.iter().enumerate() {
        rank[id as usize] = i;
    }
    let names: Vec<&str> = by_name.iter().map(|&id| games.name(id)).collect();
    let anchor = match &opts.anchor {
        None => None,
        Some(a) => Some(
            games
                .names
                .id(a)
                .map(|id| rank[id as usize])
                .ok_or_else(|| RatingError::UnknownAnchor { name: a.clone() })?,
        ),
    };
    let n = names.len();

    let cells = aggregate(games, &rank);
    let mle = solve(&names, anchor, &cells, false);
    let has_first = cells.iter().any(|c| c.first);
    let complete = mle.bots.iter().all(|b| b.low.is_some())
        && (!has_first || mle.first_move_low.is_some())
        && mle
            .los
            .iter()
            .enumerate()
            .all(|(i, row)| row.iter().enumerate().all(|(j, l)| i == j || l.is_some()));
    if n < 2 || complete {
        return Ok(mle);
    }
    Ok(solve(&names, anchor, &cells, true))
}

/// The fit of `cells` between the bots `names` (in name order), anchored at bot `anchor` or
/// at the average: the maximum likelihood without `prior`, or with [`PRIOR_DRAWS`] virtual
/// draws of each bot against a virtual opponent rated 0 (and as many of the first player
/// against itself, for the first-move advantage) with it.
fn solve(names: &[&str], anchor: Option<usize>, cells: &[Cell], prior: bool) -> Ratings {
    let n = names.len();
    let (kept, shape) = if prior {
        let has_first = cells.iter().any(|c| c.first);
        let mut kept = cells.to_vec();
        // The virtual opponent is bot `n`, held at 0.
        let virtual_draw = |a: usize, first: bool| Cell {
            a,
            b: if first { a } else { n },
            first,
            half_points: PRIOR_DRAWS,
            games: PRIOR_DRAWS,
        };
        kept.extend((0..n).map(|i| virtual_draw(i, false)));
        if has_first {
            kept.push(virtual_draw(0, true));
        }
        let shape = Shape {
            component: vec![usize::MAX; n + 1],
            group: vec![0; n],
            eta_identified: has_first,
        };
        (kept, shape)
    } else {
        set_aside(n, cells)
    };

    // One bot per component is held at 0 (the component's first), and `F` at 0 when the data
    // leave it free: what remains is a full-rank, strictly concave problem. With the prior,
    // only the virtual opponent is held.
    let (param, eta_param, count) = shape.parameters(n, n + usize::from(prior));
    let model = Model::new(&kept, &param, eta_param, count);
    let (theta, eta) = model.maximize();
    let cov = model.covariance(&theta, eta);
    let c = |i: usize, j: usize| -> f64 {
        match (&cov, param[i], param[j]) {
            (Some(v), Some(a), Some(b)) => v[a][b],
            _ => 0.0,
        }
    };

    let main = match anchor {
        Some(k) => Some(shape.group[k]),
        None if prior => Some(0),
        None => shape.main_group(&kept),
    };
    let members: Vec<usize> = (0..n).filter(|&i| Some(shape.group[i]) == main).collect();
    // The reference is a linear function of the ratings: the anchor's, or the group average.
    let weights: Vec<(usize, f64)> = match anchor {
        Some(k) => vec![(k, 1.0)],
        None => members
            .iter()
            .map(|&i| (i, 1.0 / members.len() as f64))
            .collect(),
    };
    let reference: f64 = weights.iter().map(|&(j, w)| w * theta[j]).sum();
    let reference_var: f64 = weights
        .iter()
        .map(|&(j, wj)| {
            weights
                .iter()
                .map(|&(k, wk)| wj * wk * c(j, k))
                .sum::<f64>()
        })
        .sum();
    let rated = |i: usize| -> bool {
        // A lone bot is only rated as the chosen anchor: otherwise nothing compares it.
        Some(shape.group[i]) == main && (members.len() >= 2 || anchor == Some(i))
    };
    let bots = names
        .iter()
        .enumerate()
        .map(|(i, &name)| {
            if !rated(i) {
                return BotRating {
                    bot: name.to_string(),
                    elo: None,
                    low: None,
                    high: None,
                };
            }
            let elo = (theta[i] - reference) * ELO_PER_NAT;
            let var = if anchor == Some(i) {
                0.0
            } else {
                let cross: f64 = weights.iter().map(|&(j, w)| w * c(i, j)).sum();
                c(i, i) - 2.0 * cross + reference_var
            };
            let margin = Z95 * var.max(0.0).sqrt() * ELO_PER_NAT;
            let known = cov.is_some() || anchor == Some(i);
            BotRating {
                bot: name.to_string(),
                elo: Some(elo),
                low: known.then_some(elo - margin),
                high: known.then_some(elo + margin),
            }
        })
        .collect();

    let (first_move_elo, first_move_low, first_move_high) = match eta_param {
        Some(p) => {
            let elo = eta * ELO_PER_NAT;
            let margin = cov
                .as_ref()
                .map(|v| Z95 * v[p][p].max(0.0).sqrt() * ELO_PER_NAT);
            (Some(elo), margin.map(|m| elo - m), margin.map(|m| elo + m))
        }
        None => (None, None, None),
    };

    let los = los::matrix(n, &shape.group, &theta, cov.is_some().then_some(&c));

    Ratings {
        bots,
        first_move_elo,
        first_move_low,
        first_move_high,
        los,
    }
}

/// All games between two bots in the same seats (or, without a first player, the same pair).
#[derive(Debug, Clone, Copy)]
struct Cell {
    /// Seat A's bot; without a first player, the lower index.
    a: usize,
    b: usize,
    /// Whether `a` moved first, so the first-move advantage applies.
    first: bool,
    /// `a`'s score in half points: two per win, one per draw.
    half_points: u64,
    games: u64,
}

impl Cell {
    /// `a`'s score in points.
    fn score(&self) -> f64 {
        self.half_points as f64 / 2.0
    }
}

/// Counts the games into cells, in a canonical order (by the bots' places in name order,
/// then the seat flag): game order cannot matter.
fn aggregate(games: &GameTable, rank: &[usize]) -> Vec<Cell> {
    let mut counts: HashMap<(usize, usize, bool), (u64, u64)> = HashMap::new();
    for g in games.iter() {
        let (a, b) = (rank[g.bot_a as usize], rank[g.bot_b as usize]);
        let first = g.game.has_first_player();
        let half_points = match g.result {
            GameResult::A => 2,
            GameResult::Draw => 1,
            GameResult::B => 0,
        };
        let (a, b, half_points) = if !first && a > b {
            (b, a, 2 - half_points)
        } else {
            (a, b, half_points)
        };
        // A bot against itself with no first player tells nothing.
        if a == b && !first {
            continue;
        }
        let entry = counts.entry((a, b, first)).or_default();
        entry.0 += half_points;
        entry.1 += 1;
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_unstable_by_key(|&(key, _)| key);
    counts
        .into_iter()
        .map(|((a, b, first), (half_points, games))| Cell {
            a,
            b,
            first,
            half_points,
            games,
        })
        .collect()
}

#[cfg(test)]
mod tests;
