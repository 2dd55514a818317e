//! The SPRT of a match played in colour-swapped pairs: the pentanomial generalised sequential
//! probability ratio test under the logistic Elo model, and the match's Elo with its interval.
//!
//! The log-likelihood ratio is fishtest's (`LLR_logistic`, after Michel Van den Bergh): for
//! each hypothesis, the maximum-likelihood distribution of the five pair scores whose expected
//! score is the hypothesis's, found through the secular equation; the LLR is the sum over
//! the pairs of the log of the ratio of the two distributions. Every function here is a pure
//! function of the counts.

use serde::{Deserialize, Serialize};

/// The weight given to a pair score never seen, so that both constrained distributions stay
/// positive (fishtest's `regularize`): it shifts the LLR by at most about 0.005 per empty
/// cell and keeps the Elo finite after a run of wins.
pub const EMPTY_CELL: f64 = 1e-3;

/// The 97.5 % quantile of the standard normal law, for 95 % intervals.
const Z95: f64 = 1.959_963_984_540_054;

/// `--sprt elo0=0,elo1=5,alpha=0.05,beta=0.05`: the two hypotheses (in logistic Elo) and the
/// error rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl Bounds {
    /// `ln(β / (1 − α))`: at or below it the test accepts H0.
    pub fn lower(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// `ln((1 − β) / α)`: at or above it the test accepts H1.
    pub fn upper(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }
}

impl std::str::FromStr for Bounds {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(format!(
                    "`{part}`: expected `KEY=VALUE`, such as `elo0=0,elo1=5,alpha=0.05,beta=0.05`"
                ));
            };
            let number = value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("`{part}`: `{}` is not a number", value.trim()))?;
            match key.trim() {
                "elo0" => elo0 = Some(number),
                "elo1" => elo1 = Some(number),
                "alpha" => alpha = number,
                "beta" => beta = number,
                other => {
                    return Err(format!(
                        "`{other}`: unknown key, expected `elo0`, `elo1`, `alpha` or `beta`"
                    ))
                }
            }
        }
        let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
            return Err(format!("`{s}`: `elo0` and `elo1` are both needed"));
        };
        if elo0 >= elo1 {
            return Err(format!("`{s}`: `elo0` must be less than `elo1`"));
        }
        if elo0.abs() >= 1000.0 || elo1.abs() >= 1000.0 {
            return Err(format!("`{s}`: `elo0` and `elo1` must be within ±1000"));
        }
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(format!("`{s}`: `{name}` must be between 0 and 0.5"));
            }
        }
        Ok(Bounds {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

impl std::fmt::Display for Bounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// Counts of the pairs scoring 0, ½, 1, 1½ and 2 points (of 2) for the first bot.
pub type Pentanomial = [u32; 5];

/// What the test concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The LLR fell to the lower bound: the first bot is not `elo1` stronger.
    H0,
    /// The LLR rose to the upper bound: the first bot is stronger by `elo0` or more.
    H1,
    /// Neither bound was reached.
    #[serde(rename = "none")]
    None,
}

/// The state of the test after some pairs: what `sprt.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// The bot the counts and the Elo are for, and its opponent.
    pub bots: [String; 2],
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub result: Verdict,
    pub pentanomial: Pentanomial,
    pub games: u32,
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
}

impl Sprt {
    /// The test of `bounds` on the pairs counted so far.
    pub fn new(bounds: &Bounds, bots: [String; 2], counts: Pentanomial) -> Sprt {
        let llr = llr(bounds.elo0, bounds.elo1, counts);
        let (elo, elo_low, elo_high) = elo(counts);
        let result = if llr >= bounds.upper() {
            Verdict::H1
        } else if llr <= bounds.lower() {
            Verdict::H0
        } else {
            Verdict::None
        };
        Sprt {
            bots,
            elo0: bounds.elo0,
            elo1: bounds.elo1,
            alpha: bounds.alpha,
            beta: bounds.beta,
            llr,
            lower: bounds.lower(),
            upper: bounds.upper(),
            result,
            pentanomial: counts,
            games: 2 * counts.iter().sum::<u32>(),
            elo,
            elo_low,
            elo_high,
        }
    }

    /// One line for the progress bar and the log: `LLR 1.23 [-2.94, 2.94] Elo 35 [10, 60]`.
    pub fn line(&self) -> String {
        let verdict = match self.result {
            Verdict::H0 => " H0 accepted",
            Verdict::H1 => " H1 accepted",
            Verdict::None => "",
        };
        format!(
            "SPRT LLR {:.2} [{:.2}, {:.2}]{verdict}, Elo {:+.1} [{:+.1}, {:+.1}], pentanomial {:?}",
            self.llr,
            self.lower,
            self.upper,
            self.elo,
            self.elo_low,
            self.elo_high,
            self.pentanomial
        )
    }
}

/// The expected score of a game between bots `elo` apart (logistic model).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score, the score kept within [0.001, 0.999] so that a
/// match of wins only has a finite Elo (as fishtest does).
pub fn elo_of_score(score: f64) -> f64 {
    let s = score.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The pair scores per game (0, ¼, ½, ¾, 1) with the frequencies of `counts`, an empty cell
/// counted as [`EMPTY_CELL`]; and the number of pairs that weighs.
fn regularized(counts: Pentanomial) -> (f64, [(f64, f64); 5]) {
    let weights = counts.map(|c| if c == 0 { EMPTY_CELL } else { f64::from(c) });
    let n: f64 = weights.iter().sum();
    let mut pdf = [(0.0, 0.0); 5];
    for (i, w) in weights.iter().enumerate() {
        pdf[i] = (i as f64 / 4.0, w / n);
    }
    (n, pdf)
}

/// The distribution nearest `pdf` (in likelihood) whose expected value is `s`: `p_i / (1 +
/// x (a_i − s))`, with `x` the root of `Σ p_i (a_i − s) / (1 + x (a_i − s)) = 0`. `s` must
/// lie strictly between the smallest and largest value of positive probability.
pub fn mle_expected(pdf: &[(f64, f64)], s: f64) -> Vec<f64> {
    let shifted: Vec<(f64, f64)> = pdf.iter().map(|&(a, p)| (a - s, p)).collect();
    let lo_value = shifted.iter().map(|x| x.0).fold(f64::INFINITY, f64::min);
    let hi_value = shifted
        .iter()
        .map(|x| x.0)
        .fold(f64::NEG_INFINITY, f64::max);
    debug_assert!(
        lo_value < 0.0 && hi_value > 0.0,
        "s = {s} is not inside the values"
    );
    // Every `1 + x a_i` is positive for x in (−1/hi, −1/lo), where the sum falls from +∞ to
    // −∞: bisection finds its one root.
    let (mut lo, mut hi) = (-1.0 / hi_value, -1.0 / lo_value);
    let f = |x: f64| -> f64 { shifted.iter().map(|&(a, p)| p * a / (1.0 + x * a)).sum() };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    shifted.iter().map(|&(a, p)| p / (1.0 + x * a)).collect()
}

/// The log-likelihood ratio of `elo1` against `elo0` for the pairs of `counts` (fishtest's
/// `LLR_logistic` on pentanomial results).
pub fn llr(elo0: f64, elo1: f64, counts: Pentanomial) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let (n, pdf) = regularized(counts);
    let (s0, s1) = (score_of_elo(elo0), score_of_elo(elo1));
    let (p0, p1) = (mle_expected(&pdf, s0), mle_expected(&pdf, s1));
    let per_pair: f64 = (pdf.iter().zip(p0.iter().zip(&p1)))
        .map(|(&(_, p), (q0, q1))| p * (q1.ln() - q0.ln()))
        .sum();
    n * per_pair
}

/// The first bot's Elo with its 95 % interval, `(elo, low, high)`, from the pairs' mean score
/// and its standard error (empty cells regularised as for the LLR). No pairs give zeros.
pub fn elo(counts: Pentanomial) -> (f64, f64, f64) {
    if counts.iter().all(|&c| c == 0) {
        return (0.0, 0.0, 0.0);
    }
    let (n, pdf) = regularized(counts);
    let mean: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
    let var: f64 = pdf.iter().map(|&(a, p)| p * (a - mean).powi(2)).sum();
    let margin = Z95 * (var / n).sqrt();
    (
        elo_of_score(mean),
        elo_of_score(mean - margin),
        elo_of_score(mean + margin),
    )
}

/// The pentanomial cell of a pair in which the first bot scored `halves` half-points (0 to 4).
pub fn cell(halves: u32) -> usize {
    halves.min(4) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn bounds_are_parsed_and_checked() {
        let b: Bounds = "elo0=0,elo1=5,alpha=0.05,beta=0.05".parse().unwrap();
        assert_eq!((b.elo0, b.elo1, b.alpha, b.beta), (0.0, 5.0, 0.05, 0.05));
        // ln(0.05/0.95) and ln(0.95/0.05), the bounds fishtest shows as [-2.94, 2.94].
        assert!(close(b.lower(), -2.944_438_979, 1e-8));
        assert!(close(b.upper(), 2.944_438_979, 1e-8));
        let d: Bounds = "elo0=-1.5, elo1=3".parse().unwrap();
        assert_eq!((d.alpha, d.beta), (0.05, 0.05));
        assert_eq!(d.to_string().parse::<Bounds>().unwrap(), d);
        let err = |s: &str| s.parse::<Bounds>().unwrap_err();
        assert!(
            err("elo0=5,elo1=0").contains("less than"),
            "{}",
            err("elo0=5,elo1=0")
        );
        assert!(err("elo1=5").contains("both needed"));
        assert!(err("elo0=0,elo1=5,alpha=0.7").contains("`alpha`"));
        assert!(err("elo0=0,elo1=x").contains("`x` is not a number"));
        assert!(err("elo0=0,elo1=5,gamma=1").contains("`gamma`: unknown key"));
        assert!(err("elo0").contains("expected `KEY=VALUE`"));
    }

    #[test]
    fn the_constrained_mle_has_the_asked_mean_and_sums_to_one() {
        let (_, pdf) = regularized([3, 10, 40, 12, 5]);
        for s in [0.2, 0.5, 0.51, 0.8] {
            let q = mle_expected(&pdf, s);
            let total: f64 = q.iter().sum();
            let mean: f64 = q.iter().zip(&pdf).map(|(q, (a, _))| q * a).sum();
            assert!(close(total, 1.0, 1e-12), "{s}: {total}");
            assert!(close(mean, s, 1e-12), "{s}: {mean}");
        }
    }

    #[test]
    fn two_point_results_give_the_binomial_llr_by_hand() {
        // Pairs of only 0 and 2 points (after regularisation, the middle cells weigh 0.003 in
        // all): the MLE with mean s then puts nearly s on the top cell, and the LLR is close
        // to the binomial one, w ln(s1/s0) + l ln((1−s1)/(1−s0)).
        let (w, l) = (60.0, 40.0);
        let (s0, s1) = (score_of_elo(0.0), score_of_elo(20.0));
        let by_hand = w * (s1 / s0).ln() + l * ((1.0 - s1) / (1.0 - s0)).ln();
        let got = llr(0.0, 20.0, [40, 0, 0, 0, 60]);
        assert!(close(got, by_hand, 0.02), "{got} vs {by_hand}");
        // Exactly, without the empty cells: a two-point distribution with mean s is (1−s, s).
        let q = mle_expected(&[(0.0, 0.4), (1.0, 0.6)], 0.55);
        assert!(
            close(q[0], 0.45, 1e-12) && close(q[1], 0.55, 1e-12),
            "{q:?}"
        );
    }

    #[test]
    fn llr_matches_fishtest_and_its_normal_approximation() {
        // The value fishtest's `LLR_logistic(-3, 1, [10789, 19328, 33806, 19402, 10543])`
        // gives (fishtest's `LLRcalc.py` run with a bisection in place of scipy's brentq),
        // and two small samples with empty cells.
        let counts = [10789, 19328, 33806, 19402, 10543];
        let got = llr(-3.0, 1.0, counts);
        assert!(close(got, FISHTEST_LLR, 1e-6), "{got}");
        let small = llr(0.0, 5.0, [3, 10, 40, 12, 5]);
        assert!(close(small, 0.187_352_926_453_469_18, 1e-9), "{small}");
        let empty = llr(0.0, 5.0, [0, 2, 5, 9, 4]);
        assert!(close(empty, 0.285_667_135_898_745, 1e-9), "{empty}");
        // Fishtest's `LLR_alt2`: (s1 − s0)(2 s − s0 − s1) / (2 var) per pair, close for a
        // large sample and nearby hypotheses.
        let (n, pdf) = regularized(counts);
        let mean: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
        let var: f64 = pdf.iter().map(|&(a, p)| p * (a - mean).powi(2)).sum();
        let (s0, s1) = (score_of_elo(-3.0), score_of_elo(1.0));
        let alt = n * (s1 - s0) * (2.0 * mean - s0 - s1) / var / 2.0;
        assert!(close(got, alt, 0.05), "{got} vs {alt}");
        assert_eq!(llr(0.0, 5.0, [0; 5]), 0.0);
    }

    /// `LLR_logistic(-3, 1, [10789, 19328, 33806, 19402, 10543])`.
    const FISHTEST_LLR: f64 = 2.131_067_811_785_043;

    #[test]
    fn a_strong_start_crosses_the_upper_bound_and_a_weak_one_the_lower() {
        // With elo1 = 5 even 40 pairs won twice are not enough (each adds about 0.014 to the
        // LLR: 206 are needed); with elo1 = 100, 13 are.
        let b: Bounds = "elo0=0,elo1=5".parse().unwrap();
        let bots = || ["a".to_string(), "b".to_string()];
        let slow = Sprt::new(&b, bots(), [0, 0, 0, 0, 40]);
        assert_eq!(slow.result, Verdict::None, "{}", slow.line());
        assert!(
            close(slow.llr, 0.571_532_673_271_148_8, 1e-9),
            "{}",
            slow.line()
        );
        let b: Bounds = "elo0=0,elo1=100".parse().unwrap();
        let strong = Sprt::new(&b, bots(), [0, 0, 0, 0, 13]);
        assert_eq!(strong.result, Verdict::H1, "{}", strong.line());
        assert_eq!(
            Sprt::new(&b, bots(), [0, 0, 0, 0, 11]).result,
            Verdict::None
        );
        let weak = Sprt::new(&b, bots(), [10, 0, 0, 0, 0]);
        assert_eq!(weak.result, Verdict::H0, "{}", weak.line());
        let even = Sprt::new(&b, bots(), [1, 2, 4, 2, 1]);
        assert_eq!(even.result, Verdict::None);
        assert_eq!(even.games, 20);
        assert!(close(even.elo, 0.0, 1e-9));
        assert!(even.elo_low < 0.0 && even.elo_high > 0.0);
        assert!(strong.line().contains("H1 accepted"), "{}", strong.line());
    }

    #[test]
    fn elo_and_its_interval_by_hand() {
        // Pairs of 1½ and ½ points in equal numbers: mean ½ per game, so Elo 0; the per-pair
        // variance is ¼², so the interval is ±1.96 × ¼ / √n in score.
        let (elo, low, high) = elo([0, 50, 0, 50, 0]);
        assert!(close(elo, 0.0, 0.01), "{elo}");
        let n = 100.0 + 3.0 * EMPTY_CELL;
        let margin = Z95 * 0.25 / f64::sqrt(n);
        assert!(close(high, elo_of_score(0.5 + margin), 0.05), "{high}");
        assert!(close(low, -high, 0.05), "{low}");
        // 75 % is 190.8 Elo.
        assert!(close(elo_of_score(0.75), 190.848_501_887, 1e-6));
        assert!(close(score_of_elo(elo_of_score(0.3)), 0.3, 1e-12));
    }
}
