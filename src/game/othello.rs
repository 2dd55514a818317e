//! The rules of Othello on bitboards: legal moves, flips, automatic passes, the result and perft.

use std::fmt;
use std::str::FromStr;

use super::{MoveError, Rules, Seat, Turn, Winner};

/// Every square but those on file a: what may receive a disc shifted one file east.
const NOT_FILE_A: u64 = 0xfefe_fefe_fefe_fefe;
/// Every square but those on file h: what may receive a disc shifted one file west.
const NOT_FILE_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// One square of the board, `a1` to `h8`; its index counts from `a1` (0) along the ranks to `h8` (63).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square on `file` (0 for a) and `rank` (0 for rank 1), if both are on the board.
    pub fn new(file: u8, rank: u8) -> Option<Square> {
        (file < 8 && rank < 8).then(|| Square(rank * 8 + file))
    }

    /// The square with index `index` (a1 = 0, b1 = 1, ..., h8 = 63), if there is one.
    pub fn from_index(index: usize) -> Option<Square> {
        (index < 64).then_some(Square(index as u8))
    }

    /// The index of the square: a1 = 0, b1 = 1, ..., h8 = 63.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The file, 0 for a to 7 for h.
    pub fn file(self) -> u8 {
        self.0 % 8
    }

    /// The rank, 0 for rank 1 to 7 for rank 8.
    pub fn rank(self) -> u8 {
        self.0 / 8
    }

    fn bit(self) -> u64 {
        1 << self.0
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.file()), self.rank() + 1)
    }
}

impl FromStr for Square {
    type Err = OthelloError;

    /// Parses `d3` or `D3`, ignoring surrounding white space.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let not_a_square = || OthelloError::NotASquare(t.to_string());
        let &[file, rank] = t.as_bytes() else {
            return Err(not_a_square());
        };
        let file = file.to_ascii_lowercase();
        if !(b'a'..=b'h').contains(&file) || !(b'1'..=b'8').contains(&rank) {
            return Err(not_a_square());
        }
        Square::new(file - b'a', rank - b'1').ok_or_else(not_a_square)
    }
}

/// Why an Othello reply is not a legal move (besides the game being over).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OthelloError {
    /// The reply (trimmed) does not name a square.
    #[error("`{0}` is not a square")]
    NotASquare(String),
    /// This seat replied while the other one is to move.
    #[error("`{}` is not to move", colour(*.0))]
    NotToMove(Seat),
    /// A disc is already on the square.
    #[error("`{0}` is occupied")]
    Occupied(Square),
    /// A disc on the square would turn no opponent disc over.
    #[error("`{0}` flips no discs")]
    NoFlip(Square),
}

/// The disc letter of a seat: `X` for black (seat A), `O` for white (seat B).
pub fn colour(seat: Seat) -> char {
    match seat {
        Seat::A => 'X',
        Seat::B => 'O',
    }
}

/// The bitboard `x` moved one step in direction `dir` (0 to 7), dropping what leaves the board.
fn shift(x: u64, dir: usize) -> u64 {
    match dir {
        0 => (x << 1) & NOT_FILE_A,
        1 => (x >> 1) & NOT_FILE_H,
        2 => x << 8,
        3 => x >> 8,
        4 => (x << 9) & NOT_FILE_A,
        5 => (x << 7) & NOT_FILE_H,
        6 => (x >> 7) & NOT_FILE_A,
        _ => (x >> 9) & NOT_FILE_H,
    }
}

/// The squares where the player with discs `me` may move against the discs `them`.
fn moves(me: u64, them: u64) -> u64 {
    let empty = !(me | them);
    let mut all = 0;
    for dir in 0..8 {
        // A line of at most six opponent discs can lie between a disc and the new square.
        let mut line = shift(me, dir) & them;
        for _ in 0..5 {
            line |= shift(line, dir) & them;
        }
        all |= shift(line, dir) & empty;
    }
    all
}

/// The opponent discs that a disc placed on `mv` (one bit) turns over.
fn flips(me: u64, them: u64, mv: u64) -> u64 {
    let mut all = 0;
    for dir in 0..8 {
        let mut line = 0;
        let mut x = shift(mv, dir);
        while x & them != 0 {
            line |= x;
            x = shift(x, dir);
        }
        if x & me != 0 {
            all |= line;
        }
    }
    all
}

/// The number of move sequences of `depth` plies from a position where `me` is to move;
/// a pass is a ply, and a game that ends earlier reaches no leaf.
fn perft_from(me: u64, them: u64, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut todo = moves(me, them);
    if todo == 0 {
        return if moves(them, me) == 0 {
            0
        } else {
            perft_from(them, me, depth - 1)
        };
    }
    if depth == 1 {
        return u64::from(todo.count_ones());
    }
    let mut nodes = 0;
    while todo != 0 {
        let mv = todo & todo.wrapping_neg();
        todo &= todo - 1;
        let turned = flips(me, them, mv);
        nodes += perft_from(them ^ turned, me | turned | mv, depth - 1);
    }
    nodes
}

/// An Othello game: black (`X`, seat A) moves first and a player with no legal move passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Othello {
    /// The discs of black (seat A) and white (seat B).
    discs: [u64; 2],
    /// Never `Turn::One` for a seat without a legal move: passes are made as soon as they arise.
    turn: Turn,
    plies: u32,
    /// The square of the last disc placed, marked on the board drawn for a person.
    last: Option<Square>,
}

impl Default for Othello {
    fn default() -> Self {
        Self::new()
    }
}

impl Othello {
    /// The standard start: white on d4 and e5, black on d5 and e4, black to move.
    pub fn new() -> Self {
        let at = |file: u8, rank: u8| Square(rank * 8 + file).bit();
        Othello {
            discs: [at(3, 4) | at(4, 3), at(3, 3) | at(4, 4)],
            turn: Turn::One(Seat::A),
            plies: 0,
            last: None,
        }
    }

    /// A position from 64 characters `X`, `O` or `.` (a1, b1, ..., h1, a2, ..., h8) with
    /// `to_move` to move; if it has no legal move it passes at once, and if neither side has
    /// one the game is over. Plies count the discs beyond the four of the start.
    pub fn from_board(board: &str, to_move: Seat) -> Result<Self, String> {
        let count = board.chars().count();
        if count != 64 {
            return Err(format!("a board has 64 squares, not {count}"));
        }
        let mut discs = [0u64; 2];
        for (i, c) in board.chars().enumerate() {
            match c {
                'X' => discs[0] |= 1 << i,
                'O' => discs[1] |= 1 << i,
                '.' => {}
                _ => return Err(format!("`{c}` is not `X`, `O` or `.`")),
            }
        }
        let mut game = Othello {
            discs,
            turn: Turn::Over,
            plies: (discs[0] | discs[1]).count_ones().saturating_sub(4),
            last: None,
        };
        game.turn = game.next_turn(to_move);
        Ok(game)
    }

    /// The board as 64 characters `X`, `O` or `.`, a1 first: the request's board field.
    pub fn board_string(&self) -> String {
        (0..64)
            .filter_map(Square::from_index)
            .map(|sq| self.disc(sq).map_or('.', colour))
            .collect()
    }

    /// Whose disc is on `square`, if any.
    pub fn disc(&self, square: Square) -> Option<Seat> {
        Seat::BOTH
            .into_iter()
            .find(|s| self.discs[s.index()] & square.bit() != 0)
    }

    /// The seat to move, or `None` once the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        match self.turn {
            Turn::One(seat) => Some(seat),
            _ => None,
        }
    }

    /// The legal moves of the side to move, a1 first; empty once the game is over.
    pub fn legal_squares(&self) -> Vec<Square> {
        let Some(seat) = self.to_move() else {
            return Vec::new();
        };
        let mut todo = self.moves_of(seat);
        let mut squares = Vec::with_capacity(todo.count_ones() as usize);
        while todo != 0 {
            squares.push(Square(todo.trailing_zeros() as u8));
            todo &= todo - 1;
        }
        squares
    }

    /// Places `seat`'s disc on `square` and passes the turn on, or says why it is illegal.
    pub fn play_square(&mut self, seat: Seat, square: Square) -> Result<(), MoveError> {
        match self.turn {
            Turn::One(s) if s == seat => {}
            Turn::One(_) | Turn::Both => return Err(OthelloError::NotToMove(seat).into()),
            Turn::Over => return Err(MoveError::GameOver),
        }
        let (me, them) = self.sides(seat);
        let mv = square.bit();
        if (me | them) & mv != 0 {
            return Err(OthelloError::Occupied(square).into());
        }
        let turned = flips(me, them, mv);
        if turned == 0 {
            return Err(OthelloError::NoFlip(square).into());
        }
        self.discs[seat.index()] = me | turned | mv;
        self.discs[seat.other().index()] = them ^ turned;
        self.plies += 1;
        self.last = Some(square);
        self.turn = self.next_turn(seat.other());
        Ok(())
    }

    /// The number of move sequences of `depth` plies from here, a pass counting as a ply and a
    /// game that ends earlier reaching no leaf (the convention of OEIS A124004).
    pub fn perft(&self, depth: u32) -> u64 {
        match self.to_move() {
            Some(seat) => {
                let (me, them) = self.sides(seat);
                perft_from(me, them, depth)
            }
            None => u64::from(depth == 0),
        }
    }

    /// The board as text for people: rank 8 on top, coordinates around it, `*` on the legal
    /// moves of the side to move, and a line with the disc counts and who moves.
    pub fn render(&self) -> String {
        let legal = self.to_move().map_or(0, |seat| self.moves_of(seat));
        let files = "  a b c d e f g h\n";
        let mut out = String::from(files);
        for rank in (0..8).rev() {
            out.push_str(&format!("{}", rank + 1));
            // Each square is preceded by a separator, which brackets the last disc placed.
            for file in 0..8 {
                let sq = Square(rank * 8 + file);
                let c = match self.disc(sq) {
                    Some(seat) => colour(seat),
                    None if legal & sq.bit() != 0 => '*',
                    None => '.',
                };
                let after_last = file > 0 && self.last == Some(Square(rank * 8 + file - 1));
                out.push(if self.last == Some(sq) {
                    '('
                } else if after_last {
                    ')'
                } else {
                    ' '
                });
                out.push(c);
            }
            let after_last = self.last == Some(Square(rank * 8 + 7));
            out.push_str(&format!(
                "{}{}\n",
                if after_last { ')' } else { ' ' },
                rank + 1
            ));
        }
        out.push_str(files);
        let [x, o] = self.scores();
        let status = match (self.to_move(), self.winner()) {
            (Some(seat), _) => format!("{} to move", colour(seat)),
            (None, Some(Winner::Seat(seat))) => format!("game over, {} wins", colour(seat)),
            (None, _) => "game over, a draw".to_string(),
        };
        out.push_str(&format!("X {x}  O {o}  {status}\n"));
        out
    }

    /// The discs of `seat` and of its opponent.
    fn sides(&self, seat: Seat) -> (u64, u64) {
        (self.discs[seat.index()], self.discs[seat.other().index()])
    }

    fn moves_of(&self, seat: Seat) -> u64 {
        let (me, them) = self.sides(seat);
        moves(me, them)
    }

    /// `seat` moves if it can, else its opponent (a pass), else nobody.
    fn next_turn(&self, seat: Seat) -> Turn {
        if self.moves_of(seat) != 0 {
            Turn::One(seat)
        } else if self.moves_of(seat.other()) != 0 {
            Turn::One(seat.other())
        } else {
            Turn::Over
        }
    }
}

impl Rules for Othello {
    fn render(&self) -> String {
        Othello::render(self)
    }

    fn turn(&self) -> Turn {
        self.turn
    }

    fn request(&self, seat: Seat) -> Vec<String> {
        vec![self.board_string(), colour(seat).to_string()]
    }

    fn play(&mut self, seat: Seat, reply: &str) -> Result<(), MoveError> {
        let square = reply.parse::<Square>()?;
        self.play_square(seat, square)
    }

    fn scores(&self) -> [i64; 2] {
        self.discs.map(|d| i64::from(d.count_ones()))
    }

    fn winner(&self) -> Option<Winner> {
        if self.turn != Turn::Over {
            return None;
        }
        let [x, o] = self.scores();
        Some(match x.cmp(&o) {
            std::cmp::Ordering::Greater => Winner::Seat(Seat::A),
            std::cmp::Ordering::Less => Winner::Seat(Seat::B),
            std::cmp::Ordering::Equal => Winner::Draw,
        })
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn legal_moves(&self) -> Vec<String> {
        self.legal_squares().iter().map(Square::to_string).collect()
    }
}

#[cfg(test)]
#[path = "othello_tests.rs"]
mod tests;
