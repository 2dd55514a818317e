//! Othello perft at depths 9 and 10 against the reference counts (OEIS A124004; a pass counts
//! as a ply). Depths 1 to 8 are unit tests in `src/game/othello.rs`.

use arena::game::othello::Othello;

fn reference(depth: u32) -> u64 {
    include_str!("data/othello_perft.txt")
        .lines()
        .filter_map(|l| l.split_once(' '))
        .find(|(d, _)| d.trim() == depth.to_string())
        .and_then(|(_, n)| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count for depth {depth}"))
}

#[test]
fn perft_9_and_10_match_the_reference_counts() {
    let start = Othello::new();
    for depth in [9, 10] {
        assert_eq!(start.perft(depth), reference(depth), "perft {depth}");
    }
}
