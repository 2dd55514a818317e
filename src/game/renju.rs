//! Renju's forbidden moves for black: an overline, a double-four and a double-three, with the
//! recursive definition of a three (RIF rules, articles 9.2–9.4).
//!
//! The definitions, all along one line through the new stone:
//! - a *five* is exactly five black stones in an unbroken row; six or more is an *overline*;
//! - a *four* is a row of stones that one more black stone turns into a five; the stones of
//!   the four (the five without that point) tell one four from another, so an open four
//!   `_XXXX_` is one four and `X_XXX_X` is two fours on one line;
//! - a *straight four* is a four that two points turn into a five;
//! - a *three* is a row that one more black stone turns into a straight four, where that
//!   stone is not itself forbidden (a "false three" is no three). Each line holds at most one.
//!
//! A move that makes a five is never forbidden (the five takes precedence); otherwise a move
//! that makes an overline, two fours or two threes is.

use std::fmt;

use super::gomoku::{Point, CELLS, DIRECTIONS};
use super::Seat;

/// The cells of a Gomoku board, row 1 first.
pub type Board = [Option<Seat>; CELLS];

/// Why a black move is forbidden under renju.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forbidden {
    /// Six or more black stones in a row.
    Overline,
    /// Two or more fours at once.
    DoubleFour,
    /// Two or more threes at once.
    DoubleThree,
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Forbidden::Overline => "overline",
            Forbidden::DoubleFour => "double-four",
            Forbidden::DoubleThree => "double-three",
        })
    }
}

/// Why black may not play on the empty point `p` of `board`, if it may not. The board is the
/// same after the call (stones are tried on it and taken back).
pub fn forbidden(board: &mut Board, p: Point) -> Option<Forbidden> {
    debug_assert!(board[p.index()].is_none(), "{p} is empty");
    with_black(board, p, |board| judge(board, p))
}

/// Runs `f` with a black stone on the empty point `p`, then takes the stone back.
fn with_black<T>(board: &mut Board, p: Point, f: impl FnOnce(&mut Board) -> T) -> T {
    board[p.index()] = Some(Seat::A);
    let result = f(board);
    board[p.index()] = None;
    result
}

/// The verdict on the black stone already on `p`.
fn judge(board: &mut Board, p: Point) -> Option<Forbidden> {
    let runs = DIRECTIONS.map(|d| run(board, p, d));
    if runs.contains(&5) {
        return None;
    }
    if runs.iter().any(|&n| n > 5) {
        return Some(Forbidden::Overline);
    }
    let fours: usize = DIRECTIONS.into_iter().map(|d| fours(board, p, d)).sum();
    if fours >= 2 {
        return Some(Forbidden::DoubleFour);
    }
    let threes = DIRECTIONS
        .into_iter()
        .filter(|&d| is_three(board, p, d))
        .count();
    (threes >= 2).then_some(Forbidden::DoubleThree)
}

/// The black stones on the line through `p` along `d` counted from `p` (included): how far
/// the unbroken row reaches back and forward.
fn extent(board: &Board, p: Point, d: (isize, isize)) -> (isize, isize) {
    let reach = |sign: isize| {
        (1..)
            .take_while(|&k| is_black(board, p.step(d, sign * k)))
            .count() as isize
    };
    (reach(-1), reach(1))
}

/// The length of the unbroken black row through `p` along `d`.
fn run(board: &Board, p: Point, d: (isize, isize)) -> usize {
    let (back, forward) = extent(board, p, d);
    (1 + back + forward) as usize
}

fn is_black(board: &Board, p: Option<Point>) -> bool {
    p.is_some_and(|p| board[p.index()] == Some(Seat::A))
}

fn is_empty(board: &Board, p: Option<Point>) -> bool {
    p.is_some_and(|p| board[p.index()].is_none())
}

/// How many different fours through the black stone on `p` lie along `d`: the distinct sets
/// of stones that one empty point turns into exactly five with `p` in it.
fn fours(board: &mut Board, p: Point, d: (isize, isize)) -> usize {
    let mut seen: Vec<u16> = Vec::new();
    for k in (-4..=4).filter(|&k| k != 0) {
        let q = p.step(d, k);
        let Some(q) = q.filter(|&q| is_empty(board, Some(q))) else {
            continue;
        };
        let (back, forward) = with_black(board, q, |board| extent(board, q, d));
        // The five must hold `p`, at offset `-k` from `q`.
        if back + forward + 1 != 5 || -k < -back || -k > forward {
            continue;
        }
        // The four's stones as offsets from `p` (-4..=4), bits 0..=8, without `q`.
        let stones = (k - back..=k + forward)
            .filter(|&o| o != k)
            .fold(0u16, |bits, o| bits | 1 << (o + 4));
        if !seen.contains(&stones) {
            seen.push(stones);
        }
    }
    seen.len()
}

/// Whether the black stone on `p` is part of a three along `d`: one empty point `q` turns the
/// row into a straight four through `p`, and black may play on `q`.
fn is_three(board: &mut Board, p: Point, d: (isize, isize)) -> bool {
    (-3..=3).filter(|&k| k != 0).any(|k| {
        let Some(q) = p.step(d, k).filter(|&q| is_empty(board, Some(q))) else {
            return false;
        };
        with_black(board, q, |board| {
            straight_four(board, p, d, k) && judge(board, q).is_none()
        })
    })
}

/// Whether the unbroken black row through `p` along `d` is a straight four holding the stone
/// `k` steps from `p` (the one just tried: a row that was a four already is no three): four
/// stones, and each end's empty point makes exactly five (the point beyond it is not black).
fn straight_four(board: &Board, p: Point, d: (isize, isize), k: isize) -> bool {
    let (back, forward) = extent(board, p, d);
    if back + forward + 1 != 4 || k < -back || k > forward {
        return false;
    }
    let open = |end: isize, beyond: isize| {
        is_empty(board, p.step(d, end)) && !is_black(board, p.step(d, beyond))
    };
    open(-back - 1, -back - 2) && open(forward + 1, forward + 2)
}
