//! The likelihood-of-superiority matrix: the normal approximation to `P(R_i > R_j)`.

/// `LOS[i][j] = Φ((θ_i - θ_j) / sd(θ_i - θ_j))` for every two bots of one group, from the
/// ratings `theta` (natural units) and their covariance `cov(i, j)`; all `None` without a
/// covariance, and `None` on the diagonal and between groups.
pub(super) fn matrix(
    n: usize,
    group: &[usize],
    theta: &[f64],
    cov: Option<&dyn Fn(usize, usize) -> f64>,
) -> Vec<Vec<Option<f64>>> {
    let mut los = vec![vec![None; n]; n];
    let Some(c) = cov else {
        return los;
    };
    for i in 0..n {
        for j in i + 1..n {
            if group[i] != group[j] {
                continue;
            }
            let var = c(i, i) + c(j, j) - 2.0 * c(i, j);
            if var > 0.0 {
                // One tail for both orders: `x` for (j, i) is exactly `-x`.
                let x = (theta[i] - theta[j]) / var.sqrt();
                let tail = upper_tail(x);
                (los[i][j], los[j][i]) = if x >= 0.0 {
                    (Some(1.0 - tail), Some(tail))
                } else {
                    (Some(tail), Some(1.0 - tail))
                };
            }
        }
    }
    los
}

/// `Φ(-|x|)`, the standard normal distribution's tail beyond `|x|`.
fn upper_tail(x: f64) -> f64 {
    0.5 * erfc(x.abs() / std::f64::consts::SQRT_2)
}

/// The complementary error function for `z >= 0`, to a relative error under 1.2e-7
/// (the Chebyshev fit in Numerical Recipes, 2nd ed., §6.2): ample for three decimals.
fn erfc(z: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    t * poly.exp()
}
