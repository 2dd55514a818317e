use super::*;
use crate::rng::Rng;

/// A random symmetric, diagonally dominant (so positive definite) matrix with nonzeros at
/// `pairs`, as its plan's [`Symmetric`] and as a dense matrix.
fn random_matrix(
    n: usize,
    pairs: &[(usize, usize)],
    rng: &mut Rng,
) -> (Plan, Symmetric, Vec<Vec<f64>>) {
    let plan = Plan::new(n, pairs.iter().copied());
    let mut dense = vec![vec![0.0; n]; n];
    let mut off = vec![0.0; plan.pairs().len()];
    for (k, &(i, j)) in plan.pairs().iter().enumerate() {
        let v = -(0.1 + rng.below(1000) as f64 / 1000.0);
        off[k] = v;
        dense[i][j] = v;
        dense[j][i] = v;
    }
    let diag: Vec<f64> = (0..n)
        .map(|i| {
            dense[i].iter().map(|v| v.abs()).sum::<f64>() + 0.01 + rng.below(100) as f64 / 100.0
        })
        .collect();
    for i in 0..n {
        dense[i][i] = diag[i];
    }
    (plan, Symmetric { diag, off }, dense)
}

fn product(a: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    a.iter()
        .map(|row| row.iter().zip(x).map(|(a, x)| a * x).sum())
        .collect()
}

fn star(n: usize) -> Vec<(usize, usize)> {
    (1..n).map(|i| (0, i)).collect()
}

fn complete(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect()
}

/// About `edges` random pairs among `n`, plus one parameter (the last) next to all others,
/// as the first-move advantage is.
fn sparse_with_a_dense_row(n: usize, edges: usize, rng: &mut Rng) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = (0..edges)
        .map(|_| (rng.below(n - 1), rng.below(n - 1)))
        .filter(|(i, j)| i != j)
        .collect();
    pairs.extend((0..n - 1).map(|i| (i, n - 1)));
    pairs
}

/// Solves and inverts against the dense matrix: `A·x = b` and `A·A⁻¹ = I` to 1e-9.
fn check(plan: &Plan, a: &Symmetric, dense: &[Vec<f64>], rng: &mut Rng) {
    let n = dense.len();
    let factor = plan.factor(a).expect("positive definite");
    let b: Vec<f64> = (0..n)
        .map(|_| rng.below(2001) as f64 / 1000.0 - 1.0)
        .collect();
    let x = factor.solve(&b);
    for (got, want) in product(dense, &x).iter().zip(&b) {
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }
    let inv = factor.inverse();
    for j in 0..n {
        let column: Vec<f64> = inv.iter().map(|row| row[j]).collect();
        for (i, v) in product(dense, &column).iter().enumerate() {
            let unit = if i == j { 1.0 } else { 0.0 };
            assert!((v - unit).abs() < 1e-9, "[{i}][{j}] = {v}");
        }
        for (i, row) in inv.iter().enumerate() {
            assert_eq!(row[j], inv[j][i], "the inverse is exactly symmetric");
        }
    }
}

#[test]
fn a_dense_pattern_is_one_dense_block() {
    let mut rng = Rng::new(1);
    let (plan, a, dense) = random_matrix(30, &complete(30), &mut rng);
    assert_eq!(plan.sparse, 0);
    check(&plan, &a, &dense, &mut rng);
}

#[test]
fn a_star_eliminates_its_leaves_sparsely_and_leaves_the_centre_for_the_block() {
    let mut rng = Rng::new(2);
    let (plan, a, dense) = random_matrix(200, &star(200), &mut rng);
    // Leaves go one by one until a dozen bots are left, then make the block with the centre.
    assert_eq!(plan.sparse, 200 - DENSE_FROM);
    assert_eq!(plan.order[plan.sparse], 0, "the centre is in the block");
    assert!(plan.rows.iter().all(|r| r.len() == 1), "no fill");
    check(&plan, &a, &dense, &mut rng);
}

#[test]
fn sparse_patterns_with_fill_and_a_dense_row_solve_and_invert_exactly() {
    let mut rng = Rng::new(3);
    for case in 0..40 {
        let n = 2 + rng.below(120);
        let edges = rng.below(3 * n);
        let pairs = if case % 2 == 0 {
            sparse_with_a_dense_row(n.max(3), edges, &mut rng)
        } else {
            (0..edges)
                .map(|_| (rng.below(n), rng.below(n)))
                .filter(|(i, j)| i != j)
                .collect()
        };
        let n = if case % 2 == 0 { n.max(3) } else { n };
        let (plan, a, dense) = random_matrix(n, &pairs, &mut rng);
        check(&plan, &a, &dense, &mut rng);
    }
}

#[test]
fn a_matrix_that_is_not_positive_definite_has_no_factor() {
    for pairs in [star(50), complete(5)] {
        let n = 1 + pairs.iter().map(|&(i, j)| i.max(j)).max().unwrap();
        let plan = Plan::new(n, pairs.iter().copied());
        // A graph Laplacian: singular (constants are in its kernel).
        let mut diag = vec![0.0; n];
        for &(i, j) in plan.pairs() {
            diag[i] += 1.0;
            diag[j] += 1.0;
        }
        let off = vec![-1.0; plan.pairs().len()];
        let laplacian = Symmetric { diag, off };
        let factored = plan.factor(&laplacian).map(|f| f.solve(&vec![1.0; n]));
        // Rounding may leave a tiny positive pivot, but never a usable solution.
        assert!(
            factored.is_none_or(|x| x.iter().any(|v| !v.is_finite() || v.abs() > 1e6)),
            "{pairs:?}"
        );
    }
}
