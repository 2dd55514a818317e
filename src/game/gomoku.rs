//! Gomoku: 15x15, black first, five in an unbroken row wins; freestyle, standard (exactly
//! five) or renju (black's forbidden moves, see [`super::renju`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::renju::{self, Forbidden};
use super::{MoveError, Rules, Seat, Turn, Winner};

/// Points along one side of the board.
pub const SIZE: usize = 15;

/// Points on the board.
pub const CELLS: usize = SIZE * SIZE;

/// The four line directions as (dx, dy): horizontal, vertical and both diagonals.
pub(super) const DIRECTIONS: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// A point on the board: column `a`-`o` (x 0-14) and row `1`-`15` (y 0-14), written like `h8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    x: u8,
    y: u8,
}

impl Point {
    /// The point at 0-based column `x` and row `y`, or `None` off the board.
    pub fn new(x: usize, y: usize) -> Option<Point> {
        (x < SIZE && y < SIZE).then_some(Point {
            x: x as u8,
            y: y as u8,
        })
    }

    /// The 0-based column index (`a` is 0).
    pub fn x(self) -> usize {
        usize::from(self.x)
    }

    /// The 0-based row index (row `1` is 0).
    pub fn y(self) -> usize {
        usize::from(self.y)
    }

    /// The point's position in the request board string (row 1 first, `a` first in a row).
    pub fn index(self) -> usize {
        self.y() * SIZE + self.x()
    }

    /// The point at `index` in the request board string, or `None` past its end.
    pub fn from_index(index: usize) -> Option<Point> {
        (index < CELLS).then_some(Point {
            x: (index % SIZE) as u8,
            y: (index / SIZE) as u8,
        })
    }

    /// The neighbour `steps` away along (`dx`, `dy`), or `None` off the board.
    pub(super) fn step(self, (dx, dy): (isize, isize), steps: isize) -> Option<Point> {
        let x = self.x() as isize + dx * steps;
        let y = self.y() as isize + dy * steps;
        if x < 0 || y < 0 {
            return None;
        }
        Point::new(x as usize, y as usize)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.x), self.y + 1)
    }
}

/// Why a Gomoku reply is not a legal move (besides the game being over).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GomokuError {
    /// The reply is not a letter followed by a row number.
    #[error("`{0}` is not a point")]
    NotAPoint(String),
    /// The reply is a letter and a row number, but off the 15x15 board.
    #[error("`{0}` is off the board")]
    OffTheBoard(String),
    /// This seat replied while the other one is to move.
    #[error("it is not `{}`'s turn", stone_char(*.0))]
    NotYourTurn(Seat),
    /// A stone is already on the point.
    #[error("`{0}` is occupied")]
    Occupied(Point),
    /// Renju: black may not play there.
    #[error("forbidden {0} at {1}")]
    Forbidden(Forbidden, Point),
}

/// Which Gomoku is played (`--gomoku-rule`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum GomokuRule {
    /// Five or more in a row wins.
    #[default]
    Freestyle,
    /// Exactly five in a row wins; an overline (six or more) does not.
    Standard,
    /// Black wins with exactly five and may not make a double-three, a double-four or an
    /// overline (such a move loses as illegal); white wins with five or more.
    Renju,
}

impl GomokuRule {
    /// The lowercase name used on the command line, in `ARENA_GOMOKU_RULE` and in files.
    pub fn name(self) -> &'static str {
        match self {
            GomokuRule::Freestyle => "freestyle",
            GomokuRule::Standard => "standard",
            GomokuRule::Renju => "renju",
        }
    }

    /// The Gomocup protocol's `INFO rule` value: bit 1 exactly five, bit 4 renju.
    pub fn gomocup(self) -> u32 {
        match self {
            GomokuRule::Freestyle => 0,
            GomokuRule::Standard => 1,
            GomokuRule::Renju => 4,
        }
    }

    /// Whether a row of `length` stones of `seat` wins.
    fn wins(self, seat: Seat, length: usize) -> bool {
        match (self, seat) {
            (GomokuRule::Freestyle, _) | (GomokuRule::Renju, Seat::B) => length >= 5,
            (GomokuRule::Standard, _) | (GomokuRule::Renju, Seat::A) => length == 5,
        }
    }
}

impl fmt::Display for GomokuRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Point {
    type Err = GomokuError;

    /// Parses `h8` or `H8`; a letter and a number that miss the board are "off the board",
    /// anything else is "not a point".
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let not_a_point = || GomokuError::NotAPoint(s.to_string());
        let mut chars = s.chars();
        let column = chars.next().ok_or_else(not_a_point)?;
        let row = chars.as_str();
        if !column.is_ascii_alphabetic()
            || row.is_empty()
            || !row.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(not_a_point());
        }
        let x = usize::from(column.to_ascii_lowercase() as u8 - b'a');
        // Digits too many for a usize are still a row number, just a far-off one.
        let y = row.parse::<usize>().unwrap_or(usize::MAX);
        y.checked_sub(1)
            .and_then(|y| Point::new(x, y))
            .ok_or_else(|| GomokuError::OffTheBoard(s.to_string()))
    }
}

/// The board character for a seat's stones: `X` for black (seat A), `O` for white.
fn stone_char(seat: Seat) -> char {
    match seat {
        Seat::A => 'X',
        Seat::B => 'O',
    }
}

/// A game of Gomoku in progress.
#[derive(Debug, Clone)]
pub struct Gomoku {
    rule: GomokuRule,
    board: [Option<Seat>; CELLS],
    to_move: Seat,
    stones: [i64; 2],
    winner: Option<Winner>,
    last: Option<Point>,
}

impl Default for Gomoku {
    fn default() -> Self {
        Gomoku::new()
    }
}

impl Gomoku {
    /// An empty board with black (seat A) to move, freestyle.
    pub fn new() -> Self {
        Gomoku::with_rule(GomokuRule::Freestyle)
    }

    /// An empty board with black (seat A) to move, under `rule`.
    pub fn with_rule(rule: GomokuRule) -> Self {
        Gomoku {
            rule,
            board: [None; CELLS],
            to_move: Seat::A,
            stones: [0, 0],
            winner: None,
            last: None,
        }
    }

    /// A freestyle position from a 225-character board string in request format (`X`, `O`,
    /// `.`, row 1 first) with `to_move` to play; a five already on the board ends the game.
    pub fn from_board(board: &str, to_move: Seat) -> Result<Self, String> {
        Gomoku::from_board_with(GomokuRule::Freestyle, board, to_move)
    }

    /// [`Gomoku::from_board`] under `rule`.
    pub fn from_board_with(rule: GomokuRule, board: &str, to_move: Seat) -> Result<Self, String> {
        let count = board.chars().count();
        if count != CELLS {
            return Err(format!("the board has {count} points, not {CELLS}"));
        }
        let mut game = Gomoku::with_rule(rule);
        game.to_move = to_move;
        for (index, c) in board.chars().enumerate() {
            let stone = match c {
                'X' => Some(Seat::A),
                'O' => Some(Seat::B),
                '.' => None,
                _ => return Err(format!("`{c}` is not a stone or `.`")),
            };
            if let Some(seat) = stone {
                game.board[index] = stone;
                game.stones[seat.index()] += 1;
            }
        }
        let mut fives = Seat::BOTH.into_iter().filter(|&seat| {
            (0..CELLS).any(|index| {
                let point = Point::from_index(index).expect("index is on the board");
                game.board[index] == Some(seat) && game.makes_five(point)
            })
        });
        game.winner = match (fives.next(), fives.next()) {
            (Some(_), Some(_)) => return Err("both sides have five in a row".to_string()),
            (Some(seat), None) => Some(Winner::Seat(seat)),
            (None, _) if game.plies() as usize == CELLS => Some(Winner::Draw),
            (None, _) => None,
        };
        Ok(game)
    }

    /// The stone on `point`, if any.
    pub fn stone(&self, point: Point) -> Option<Seat> {
        self.board[point.index()]
    }

    /// The last stone placed with `play`, if any.
    pub fn last_move(&self) -> Option<Point> {
        self.last
    }

    /// The board in request format: 225 characters `X`, `O` or `.`, row 1 first.
    pub fn board_string(&self) -> String {
        self.board
            .iter()
            .map(|cell| cell.map_or('.', stone_char))
            .collect()
    }

    /// The board as text for people: row 15 at the top, coordinates on all sides, the last
    /// stone placed in brackets.
    pub fn render(&self) -> String {
        let letters: String = (0..SIZE)
            .map(|x| format!(" {}", char::from(b'a' + x as u8)))
            .collect();
        let mut out = format!("  {letters}\n");
        for y in (0..SIZE).rev() {
            out.push_str(&format!("{:>2}", y + 1));
            // Each point is preceded by a separator, which brackets the last stone.
            for x in 0..=SIZE {
                let here = Point::new(x, y);
                let separator = if here.is_some() && here == self.last {
                    '('
                } else if x > 0 && Point::new(x - 1, y) == self.last {
                    ')'
                } else {
                    ' '
                };
                out.push(separator);
                match here {
                    Some(point) => out.push(self.stone(point).map_or('.', stone_char)),
                    None => out.push_str(&format!("{}\n", y + 1)),
                }
            }
        }
        out.push_str(&format!("  {letters}\n"));
        out
    }

    /// The rule this game is played by.
    pub fn rule(&self) -> GomokuRule {
        self.rule
    }

    /// Why black may not play on the empty `point` under renju, if it may not.
    pub fn forbidden(&self, point: Point) -> Option<Forbidden> {
        if self.rule != GomokuRule::Renju || self.stone(point).is_some() {
            return None;
        }
        renju::forbidden(&mut self.board.clone(), point)
    }

    /// Whether the stone on `point` lies in an unbroken row that wins under the game's rule
    /// (five or more, or exactly five).
    fn makes_five(&self, point: Point) -> bool {
        let Some(seat) = self.stone(point) else {
            return false;
        };
        let run = |direction, sign: isize| {
            (1..)
                .map_while(|steps| point.step(direction, sign * steps))
                .take_while(|&p| self.stone(p) == Some(seat))
                .count()
        };
        DIRECTIONS.into_iter().any(|direction| {
            let length = 1 + run(direction, 1) + run(direction, -1);
            self.rule.wins(seat, length)
        })
    }
}

impl Rules for Gomoku {
    fn render(&self) -> String {
        Gomoku::render(self)
    }

    fn turn(&self) -> Turn {
        match self.winner {
            Some(_) => Turn::Over,
            None => Turn::One(self.to_move),
        }
    }

    fn request(&self, seat: Seat) -> Vec<String> {
        vec![self.board_string(), stone_char(seat).to_string()]
    }

    fn play(&mut self, seat: Seat, reply: &str) -> Result<(), MoveError> {
        match self.turn() {
            Turn::Over => return Err(MoveError::GameOver),
            Turn::One(to_move) if to_move != seat => {
                return Err(GomokuError::NotYourTurn(seat).into());
            }
            _ => {}
        }
        let point: Point = reply.parse()?;
        if self.stone(point).is_some() {
            return Err(GomokuError::Occupied(point).into());
        }
        if seat == Seat::A {
            if let Some(why) = self.forbidden(point) {
                return Err(GomokuError::Forbidden(why, point).into());
            }
        }
        self.board[point.index()] = Some(seat);
        self.stones[seat.index()] += 1;
        self.last = Some(point);
        self.to_move = seat.other();
        // Only lines through the new stone can have become a five.
        if self.makes_five(point) {
            self.winner = Some(Winner::Seat(seat));
        } else if self.plies() as usize == CELLS {
            self.winner = Some(Winner::Draw);
        }
        Ok(())
    }

    fn scores(&self) -> [i64; 2] {
        self.stones
    }

    fn winner(&self) -> Option<Winner> {
        self.winner
    }

    fn plies(&self) -> u32 {
        (self.stones[0] + self.stones[1]) as u32
    }

    fn legal_moves(&self) -> Vec<String> {
        if self.winner.is_some() {
            return Vec::new();
        }
        // Black's forbidden points (renju) are no moves: random openings never play one.
        let black = self.to_move == Seat::A;
        (0..CELLS)
            .filter(|&index| self.board[index].is_none())
            .filter_map(Point::from_index)
            .filter(|&point| !black || self.forbidden(point).is_none())
            .map(|point| point.to_string())
            .collect()
    }
}

#[cfg(test)]
#[path = "gomoku_tests.rs"]
mod tests;
