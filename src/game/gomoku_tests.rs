//! Tests of the Gomoku rules: points, fives in every direction, the end of a game and errors.

use super::*;
use crate::game::renju::Forbidden;

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

// Standard and renju. The positions follow the kinds of examples the Renju International
// Federation's rules give in article 9 (overline, 4x4 in two lines and in one line, 3x3, the
// 4x3 that is allowed, a five made with a forbidden pattern) and the "false three" of
// cs.stackexchange question 159169 (a three whose only straight-four point is itself
// forbidden); each is drawn on an empty board around h8, with stones far from the lines
// where needed.

/// The verdict on black playing `at` under renju, with black on `xs` and white on `os`.
fn renju_verdict(xs: &[&str], os: &[&str], at: &str) -> Option<Forbidden> {
    let game = Gomoku::from_board_with(GomokuRule::Renju, &board_with(xs, os), Seat::A).unwrap();
    game.forbidden(p(at))
}

/// Black plays `at` under `rule`; the result of the move.
fn black_plays(rule: GomokuRule, xs: &[&str], os: &[&str], at: &str) -> Result<Gomoku, String> {
    let mut game = Gomoku::from_board_with(rule, &board_with(xs, os), Seat::A).unwrap();
    game.play(Seat::A, at).map_err(|e| e.to_string())?;
    Ok(game)
}

const SIX_GAP: [&str; 5] = ["c8", "d8", "e8", "g8", "h8"];

#[test]
fn standard_wins_with_exactly_five_and_not_with_an_overline() {
    let game = black_plays(GomokuRule::Standard, &SIX_GAP, &["a1"], "f8").unwrap();
    assert_eq!(game.winner(), None, "an overline of six does not win");
    assert_eq!(game.turn(), Turn::One(Seat::B));
    let five = ["d8", "e8", "g8", "h8"];
    let game = black_plays(GomokuRule::Standard, &five, &["a1"], "f8").unwrap();
    assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)));
    // White's overline does not win either; its exact five does.
    let board = board_with(&["a1"], &SIX_GAP);
    let mut game = Gomoku::from_board_with(GomokuRule::Standard, &board, Seat::B).unwrap();
    game.play(Seat::B, "f8").unwrap();
    assert_eq!(game.winner(), None);
    // A row of six already on the board is no win under standard either.
    let six = ["c8", "d8", "e8", "f8", "g8", "h8"];
    let game = Gomoku::from_board_with(GomokuRule::Standard, &board_with(&six, &[]), Seat::B);
    assert_eq!(game.unwrap().winner(), None);
}

#[test]
fn renju_forbids_blacks_overline_and_lets_white_win_with_one() {
    assert_eq!(
        black_plays(GomokuRule::Renju, &SIX_GAP, &["a1"], "f8").unwrap_err(),
        "forbidden overline at f8"
    );
    // Seven, closing a gap between a three and a three.
    let seven = ["b8", "c8", "d8", "f8", "g8", "h8"];
    assert_eq!(renju_verdict(&seven, &[], "e8"), Some(Forbidden::Overline));
    let board = board_with(&["a1", "a3"], &SIX_GAP);
    let mut game = Gomoku::from_board_with(GomokuRule::Renju, &board, Seat::B).unwrap();
    game.play(Seat::B, "f8").unwrap();
    assert_eq!(game.winner(), Some(Winner::Seat(Seat::B)));
}

#[test]
fn renju_forbids_a_double_three() {
    // Two plain threes crossing: f8 g8 h8 and h6 h7 h8 (RIF's first 3x3 example's shape).
    let cross = ["f8", "g8", "h6", "h7"];
    assert_eq!(
        renju_verdict(&cross, &[], "h8"),
        Some(Forbidden::DoubleThree)
    );
    // A split three (f8 _ h8 i8) with a diagonal one (f6 g7 h8).
    let split = ["f8", "i8", "f6", "g7"];
    assert_eq!(
        renju_verdict(&split, &[], "h8"),
        Some(Forbidden::DoubleThree)
    );
    // Both threes split, on the two diagonals.
    let diagonals = ["e5", "g7", "j6", "k5"];
    assert_eq!(
        renju_verdict(&diagonals, &[], "h8"),
        Some(Forbidden::DoubleThree)
    );
    let mut game = Gomoku::from_board_with(GomokuRule::Renju, &board_with(&cross, &[]), Seat::A);
    let game = game.as_mut().unwrap();
    assert_eq!(
        game.play(Seat::A, "h8").unwrap_err().to_string(),
        "forbidden double-three at h8"
    );
    assert_eq!(game.stone(p("h8")), None, "a refused move changes nothing");
    assert!(!game.legal_moves().contains(&"h8".to_string()));
    assert!(game.legal_moves().contains(&"h9".to_string()));
}

#[test]
fn a_three_closed_at_one_end_is_no_three() {
    // f8 g8 h8 with white on e8 can only become a four closed at one end.
    assert_eq!(
        renju_verdict(&["f8", "g8", "h6", "h7"], &["e8"], "h8"),
        None
    );
    // Against the edge: a8 b8 c8 has no straight four (nothing left of a8).
    assert_eq!(renju_verdict(&["a8", "b8", "c6", "c7"], &[], "c8"), None);
    // One step in from the edge it is a three again: b8 c8 d8 (a8 e8 both free).
    let inner = ["b8", "c8", "d6", "d7"];
    assert_eq!(
        renju_verdict(&inner, &[], "d8"),
        Some(Forbidden::DoubleThree)
    );
    // A three whose straight four would be an overline: f8 g8 h8 with j8 and d8 black
    // beyond the ends, so e8 and i8 each make six, not five.
    assert_eq!(
        renju_verdict(&["f8", "g8", "c8", "k8", "h6", "h7"], &[], "h8"),
        None
    );
}

#[test]
fn a_false_three_whose_only_four_point_is_forbidden_is_no_three() {
    // Horizontal three f8 g8 h8; vertical h8 h9 h10 with white on h6, so only h11 makes a
    // straight four (h8-h11). Without more it is a double-three.
    let (xs, os) = (["f8", "g8", "h9", "h10"], ["h6"]);
    assert_eq!(renju_verdict(&xs, &os, "h8"), Some(Forbidden::DoubleThree));
    // With e14 f13 g12 and i10 j9 black, black on h11 would make an overline on that
    // diagonal: h11 is forbidden, the vertical is a false three, h8 is allowed.
    let mut xs = xs.to_vec();
    xs.extend(["e14", "f13", "g12", "i10", "j9"]);
    assert_eq!(renju_verdict(&xs, &os, "h11"), Some(Forbidden::Overline));
    let game = Gomoku::from_board_with(GomokuRule::Renju, &board_with(&xs, &["h6"]), Seat::A);
    let game = game.unwrap();
    assert_eq!(game.forbidden(p("h8")), None);
    let mut after = game.clone();
    after.play(Seat::A, "h8").unwrap();
    assert_eq!(after.forbidden(p("h11")), Some(Forbidden::Overline));
}

#[test]
fn a_false_three_whose_four_point_is_a_double_four_is_no_three() {
    // The vertical three h8 h9 h10 (white on h6) completes only at h11, and h11 is a
    // double-four: horizontal h11 i11 j11 k11 and the anti-diagonal e14 f13 g12 h11.
    let xs = [
        "f8", "g8", "h9", "h10", "i11", "j11", "k11", "e14", "f13", "g12",
    ];
    let game = Gomoku::from_board_with(GomokuRule::Renju, &board_with(&xs, &["h6"]), Seat::A);
    let mut after = game.clone().unwrap();
    after.play(Seat::A, "h8").unwrap();
    assert_eq!(after.forbidden(p("h11")), Some(Forbidden::DoubleFour));
    assert_eq!(game.unwrap().forbidden(p("h8")), None);
}

#[test]
fn renju_forbids_a_double_four_across_two_lines_and_along_one() {
    // Two fours crossing at h8, one of them closed by white on d8: closed fours count.
    let two = ["e8", "f8", "g8", "h5", "h6", "h7"];
    assert_eq!(
        renju_verdict(&two, &["d8"], "h8"),
        Some(Forbidden::DoubleFour)
    );
    // One line: d8 _ f8 g8 h8 _ j8, both gaps make five.
    let one = ["d8", "f8", "g8", "j8"];
    assert_eq!(renju_verdict(&one, &[], "h8"), Some(Forbidden::DoubleFour));
    // One line: c8 d8 _ f8 g8 _ i8 j8 (e8 and h8 each make five).
    let pairs = ["c8", "d8", "f8", "i8", "j8"];
    assert_eq!(
        renju_verdict(&pairs, &[], "g8"),
        Some(Forbidden::DoubleFour)
    );
    // One line: c8 d8 e8 _ g8 _ i8 j8 k8.
    let long = ["c8", "d8", "e8", "i8", "j8", "k8"];
    assert_eq!(renju_verdict(&long, &[], "g8"), Some(Forbidden::DoubleFour));
    assert_eq!(
        black_plays(GomokuRule::Renju, &one, &["a1"], "h8").unwrap_err(),
        "forbidden double-four at h8"
    );
    // An open four is one four, not two: with a three across it, a 4x3, allowed.
    assert_eq!(
        renju_verdict(&["e8", "f8", "g8", "h6", "h7"], &[], "h8"),
        None
    );
    // A double-four with the same stones under freestyle and standard is a move like any.
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        assert!(black_plays(rule, &two, &["d8"], "h8").is_ok());
    }
}

#[test]
fn a_five_wins_even_when_it_also_makes_a_forbidden_pattern() {
    // h8 makes exactly five d8-h8 and fours on h5-h7 and e5-g7.
    let xs = ["d8", "e8", "f8", "g8", "h5", "h6", "h7", "e5", "f6", "g7"];
    assert_eq!(renju_verdict(&xs, &[], "h8"), None);
    let game = black_plays(GomokuRule::Renju, &xs, &["a1"], "h8").unwrap();
    assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)));
    // A five with a double-three.
    let xs = ["d8", "e8", "f8", "g8", "h6", "h7", "f6", "g7"];
    let game = black_plays(GomokuRule::Renju, &xs, &["a1"], "h8").unwrap();
    assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)));
}

#[test]
fn white_has_no_forbidden_moves() {
    let board = board_with(&["a1", "a3", "a5", "a7"], &["f8", "g8", "h6", "h7"]);
    let mut game = Gomoku::from_board_with(GomokuRule::Renju, &board, Seat::B).unwrap();
    game.play(Seat::B, "h8").unwrap();
    assert_eq!(game.winner(), None);
}

#[test]
fn gomoku_rules_have_their_names_and_gomocup_values() {
    let names = [
        GomokuRule::Freestyle,
        GomokuRule::Standard,
        GomokuRule::Renju,
    ]
    .map(|r| (r.to_string(), r.gomocup()));
    assert_eq!(
        names,
        [
            ("freestyle".into(), 0),
            ("standard".into(), 1),
            ("renju".into(), 4)
        ]
    );
    assert_eq!(Gomoku::new().rule(), GomokuRule::Freestyle);
}
