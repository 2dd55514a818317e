//! Freestyle Gomoku: 15x15, black first, five or more in an unbroken row wins.

use std::fmt;
use std::str::FromStr;

use super::{MoveError, Rules, Seat, Turn, Winner};

/// Points along one side of the board.
pub const SIZE: usize = 15;

/// Points on the board.
pub const CELLS: usize = SIZE * SIZE;

/// The four line directions as (dx, dy): horizontal, vertical and both diagonals.
const DIRECTIONS: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

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
    fn step(self, (dx, dy): (isize, isize), steps: isize) -> Option<Point> {
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

/// A game of freestyle Gomoku in progress.
#[derive(Debug, Clone)]
pub struct Gomoku {
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
    /// An empty board with black (seat A) to move.
    pub fn new() -> Self {
        Gomoku {
            board: [None; CELLS],
            to_move: Seat::A,
            stones: [0, 0],
            winner: None,
            last: None,
        }
    }

    /// A position from a 225-character board string in request format (`X`, `O`, `.`, row 1
    /// first) with `to_move` to play; a five already on the board ends the game.
    pub fn from_board(board: &str, to_move: Seat) -> Result<Self, String> {
        let count = board.chars().count();
        if count != CELLS {
            return Err(format!("the board has {count} points, not {CELLS}"));
        }
        let mut game = Gomoku::new();
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

    /// Whether the stone on `point` lies in an unbroken row of five or more of its colour.
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
        DIRECTIONS
            .into_iter()
            .any(|direction| 1 + run(direction, 1) + run(direction, -1) >= 5)
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
        (0..CELLS)
            .filter(|&index| self.board[index].is_none())
            .filter_map(Point::from_index)
            .map(|point| point.to_string())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        s.parse().unwrap()
    }

    /// A board string with `X` on the `xs` points and `O` on the `os` points.
    fn board_with(xs: &[&str], os: &[&str]) -> String {
        let mut cells = vec!['.'; CELLS];
        for s in xs {
            cells[p(s).index()] = 'X';
        }
        for s in os {
            cells[p(s).index()] = 'O';
        }
        cells.into_iter().collect()
    }

    /// Plays `moves` alternately from the start, black first.
    fn play_all(moves: &[&str]) -> Gomoku {
        let mut game = Gomoku::new();
        for m in moves {
            let Turn::One(seat) = game.turn() else {
                panic!("game over before {m}")
            };
            game.play(seat, m).unwrap();
        }
        game
    }

    /// Black builds `line` with white answering on `replies`; the last black stone completes it.
    fn black_line_wins(line: &[&str], replies: &[&str]) {
        let mut moves = Vec::new();
        for (i, m) in line.iter().enumerate() {
            moves.push(*m);
            if i + 1 < line.len() {
                moves.push(replies[i]);
            }
        }
        let (last, before) = moves.split_last().unwrap();
        let mut game = play_all(before);
        assert_eq!(game.turn(), Turn::One(Seat::A), "{line:?}");
        game.play(Seat::A, last).unwrap();
        assert_eq!(game.turn(), Turn::Over, "{line:?}");
        assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)), "{line:?}");
        assert!(game.legal_moves().is_empty());
    }

    const FAR: [&str; 5] = ["a15", "c15", "e15", "g15", "i15"];

    #[test]
    fn five_in_a_row_wins_in_all_four_directions() {
        black_line_wins(&["f8", "g8", "h8", "i8", "j8"], &FAR);
        black_line_wins(&["h4", "h5", "h6", "h7", "h8"], &FAR);
        black_line_wins(&["d4", "e5", "f6", "g7", "h8"], &FAR);
        black_line_wins(&["d12", "e11", "f10", "g9", "h8"], &FAR);
        // The winning stone in the middle of the line, not only at its end.
        black_line_wins(&["f8", "g8", "i8", "j8", "h8"], &FAR);
        black_line_wins(&["e11", "g9", "h8", "d12", "f10"], &FAR);
    }

    #[test]
    fn five_in_a_row_wins_along_the_edges_and_into_the_corners() {
        let far = ["h8", "h9", "h10", "h11", "j8"];
        black_line_wins(&["a1", "b1", "c1", "d1", "e1"], &far);
        black_line_wins(&["k15", "l15", "m15", "n15", "o15"], &far);
        black_line_wins(&["a11", "a12", "a13", "a14", "a15"], &far);
        black_line_wins(&["o1", "o2", "o3", "o4", "o5"], &far);
        black_line_wins(&["k11", "l12", "m13", "n14", "o15"], &far);
        black_line_wins(&["a15", "b14", "c13", "d12", "e11"], &far);
        black_line_wins(&["o1", "n2", "m3", "l4", "k5"], &far);
    }

    #[test]
    fn white_wins_too() {
        let mut game = play_all(&["a1", "h4", "c1", "h5", "e1", "h6", "g1", "h7", "i1"]);
        game.play(Seat::B, "h8").unwrap();
        assert_eq!(game.winner(), Some(Winner::Seat(Seat::B)));
        assert_eq!(game.scores(), [5, 5]);
    }

    #[test]
    fn an_overline_of_six_wins() {
        let board = board_with(
            &["c8", "d8", "e8", "g8", "h8"],
            &["a1", "c1", "e1", "g1", "i1"],
        );
        let mut game = Gomoku::from_board(&board, Seat::A).unwrap();
        assert_eq!(game.turn(), Turn::One(Seat::A));
        game.play(Seat::A, "f8").unwrap();
        assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)));
    }

    #[test]
    fn four_is_not_a_win() {
        let game = play_all(&["f8", "a1", "g8", "c1", "h8", "e1", "i8"]);
        assert_eq!(game.turn(), Turn::One(Seat::B));
        assert_eq!(game.winner(), None);
    }

    #[test]
    fn a_broken_five_is_not_a_win() {
        let game = play_all(&["d8", "a1", "e8", "c1", "f8", "e1", "g8", "g1", "i8"]);
        assert_eq!(game.turn(), Turn::One(Seat::B));
        assert_eq!(game.winner(), None);
        // A row of five broken by the opponent's stone is no win either.
        let board = board_with(&["d8", "e8", "f8", "g8", "i8", "j8"], &["h8", "a1", "c1"]);
        let mut game = Gomoku::from_board(&board, Seat::B).unwrap();
        assert_eq!(game.winner(), None);
        game.play(Seat::B, "e1").unwrap();
        assert_eq!(game.turn(), Turn::One(Seat::A));
    }

    /// Black on (x, y) when `x / 2 + y` is even: pairs along rows, alternating columns and
    /// pairs along both diagonals, so no line has five; 113 black and 112 white stones.
    fn drawn_colour(point: Point) -> Seat {
        if (point.x() / 2 + point.y()).is_multiple_of(2) {
            Seat::A
        } else {
            Seat::B
        }
    }

    #[test]
    fn a_full_board_without_five_is_a_draw() {
        let points: Vec<Point> = (0..CELLS).filter_map(Point::from_index).collect();
        let of = |seat| points.iter().filter(move |&&q| drawn_colour(q) == seat);
        let (blacks, whites): (Vec<_>, Vec<_>) = (of(Seat::A).collect(), of(Seat::B).collect());
        assert_eq!((blacks.len(), whites.len()), (113, 112));
        let mut game = Gomoku::new();
        for i in 0..CELLS {
            let (seat, point) = if i % 2 == 0 {
                (Seat::A, blacks[i / 2])
            } else {
                (Seat::B, whites[i / 2])
            };
            assert_eq!(game.turn(), Turn::One(seat));
            game.play(seat, &point.to_string()).unwrap();
        }
        assert_eq!(game.turn(), Turn::Over);
        assert_eq!(game.winner(), Some(Winner::Draw));
        assert_eq!(game.plies(), 225);
        assert_eq!(game.scores(), [113, 112]);
        assert!(game.legal_moves().is_empty());
        let again = Gomoku::from_board(&game.board_string(), Seat::B).unwrap();
        assert_eq!(again.winner(), Some(Winner::Draw));
    }

    #[test]
    fn bad_replies_leave_the_state_unchanged() {
        let mut game = play_all(&["h8", "h9"]);
        let before = game.board_string();
        let cases = [
            ("h8", "`h8` is occupied"),
            ("H9", "`h9` is occupied"),
            ("p3", "`p3` is off the board"),
            ("a16", "`a16` is off the board"),
            ("a0", "`a0` is off the board"),
            (
                "z99999999999999999999999",
                "`z99999999999999999999999` is off the board",
            ),
            ("zz", "`zz` is not a point"),
            ("", "`` is not a point"),
            ("h", "`h` is not a point"),
            ("8h", "`8h` is not a point"),
            ("h8 ", "`h8 ` is not a point"),
            ("h-1", "`h-1` is not a point"),
            ("é8", "`é8` is not a point"),
            ("8,7", "`8,7` is not a point"),
        ];
        for (reply, error) in cases {
            assert_eq!(game.play(Seat::A, reply).unwrap_err().to_string(), error);
            assert_eq!(game.board_string(), before);
            assert_eq!(game.turn(), Turn::One(Seat::A));
            assert_eq!(game.plies(), 2);
            assert_eq!(game.scores(), [1, 1]);
        }
        assert_eq!(
            game.play(Seat::B, "a1"),
            Err(MoveError::Gomoku(GomokuError::NotYourTurn(Seat::B)))
        );
        assert_eq!(
            game.play(Seat::B, "a1").unwrap_err().to_string(),
            "it is not `O`'s turn"
        );
        assert_eq!(game.board_string(), before);
        game.play(Seat::A, "A1").unwrap();
        assert_eq!(game.stone(p("a1")), Some(Seat::A));
    }

    #[test]
    fn no_moves_after_the_game_is_over() {
        let mut game = play_all(&["a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2", "e1"]);
        assert_eq!(game.play(Seat::B, "e2"), Err(MoveError::GameOver));
        assert_eq!(game.plies(), 9);
    }

    #[test]
    fn request_is_the_board_and_the_side() {
        let game = Gomoku::new();
        assert_eq!(
            game.request(Seat::A),
            vec![".".repeat(225), "X".to_string()]
        );
        let game = play_all(&["h8", "a1", "o15", "b2"]);
        let mut expected = vec!['.'; 225];
        expected[0] = 'O'; // a1
        expected[16] = 'O'; // b2: row 2, column b
        expected[7 * 15 + 7] = 'X'; // h8
        expected[224] = 'X'; // o15
        let expected: String = expected.into_iter().collect();
        assert_eq!(
            game.request(Seat::A),
            vec![expected.clone(), "X".to_string()]
        );
        assert_eq!(
            game.request(Seat::B),
            vec![expected.clone(), "O".to_string()]
        );
        assert_eq!(game.turn(), Turn::One(Seat::A));
        assert_eq!(game.plies(), 4);
        assert_eq!(game.scores(), [2, 2]);
        assert_eq!(game.last_move(), Some(p("b2")));
        let copy = Gomoku::from_board(&expected, Seat::A).unwrap();
        assert_eq!(copy.board_string(), expected);
        assert_eq!(copy.scores(), [2, 2]);
    }

    #[test]
    fn legal_moves_are_the_empty_points_in_board_order() {
        let game = play_all(&["a1", "c1"]);
        let moves = game.legal_moves();
        assert_eq!(moves.len(), 223);
        assert_eq!(&moves[..3], ["b1", "d1", "e1"]);
        assert_eq!(moves.last().map(String::as_str), Some("o15"));
        assert_eq!(Gomoku::new().legal_moves()[15], "a2");
    }

    #[test]
    fn points_parse_and_print_both_ways() {
        for index in 0..CELLS {
            let point = Point::from_index(index).unwrap();
            assert_eq!(point.index(), index);
            assert_eq!(point.to_string().parse::<Point>(), Ok(point));
            assert_eq!(point.to_string().to_uppercase().parse::<Point>(), Ok(point));
        }
        assert_eq!(p("a1").to_string(), "a1");
        assert_eq!(p("O15").to_string(), "o15");
        assert_eq!(p("h08").to_string(), "h8");
        assert_eq!(Point::from_index(CELLS), None);
    }

    #[test]
    fn points_map_to_zero_based_columns_and_rows() {
        assert_eq!((p("a1").x(), p("a1").y()), (0, 0));
        assert_eq!((p("h8").x(), p("h8").y()), (7, 7));
        assert_eq!((p("c5").x(), p("c5").y()), (2, 4));
        assert_eq!((p("o15").x(), p("o15").y()), (14, 14));
        assert_eq!(Point::new(14, 0), Some(p("o1")));
        assert_eq!(Point::new(0, 14), Some(p("a15")));
        assert_eq!(Point::new(15, 0), None);
        assert_eq!(Point::new(0, 15), None);
    }

    #[test]
    fn from_board_rejects_bad_boards_and_sees_fives() {
        assert!(Gomoku::from_board("...", Seat::A).is_err());
        assert!(Gomoku::from_board(&"x".repeat(225), Seat::A).is_err());
        let game = Gomoku::from_board(&board_with(&["a1", "a2", "a3", "a4", "a5"], &[]), Seat::B);
        assert_eq!(game.unwrap().winner(), Some(Winner::Seat(Seat::A)));
        let both = board_with(
            &["a1", "a2", "a3", "a4", "a5"],
            &["c1", "c2", "c3", "c4", "c5"],
        );
        assert!(Gomoku::from_board(&both, Seat::A).is_err());
    }

    #[test]
    fn render_shows_coordinates_stones_and_the_last_move() {
        let game = play_all(&["a1", "o15", "h8"]);
        let text = game.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 17);
        assert_eq!(lines[0], "   a b c d e f g h i j k l m n o");
        assert_eq!(lines[1], "15 . . . . . . . . . . . . . . O 15");
        assert_eq!(lines[8], " 8 . . . . . . .(X). . . . . . . 8");
        assert_eq!(lines[15], " 1 X . . . . . . . . . . . . . . 1");
        assert_eq!(lines[16], lines[0]);
        let corner = play_all(&["o1"]).render();
        assert!(corner.contains(" 1 . . . . . . . . . . . . . .(X)1"));
    }
}
