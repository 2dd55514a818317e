//! Tests of the Gomoku rules: points, fives in every direction, the end of a game and errors.

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
