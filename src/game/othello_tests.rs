//! Tests of the Othello rules: perft, flips, passes, the end of a game and move errors.

use super::*;
use crate::rng::Rng;

const PERFT: &str = include_str!("../../tests/data/othello_perft.txt");

/// The reference perft counts of the data file, as (depth, count).
fn reference_counts() -> Vec<(u32, u64)> {
    PERFT
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (d, n) = l.split_once(' ').expect("`depth count` lines");
            (d.parse().unwrap(), n.trim().parse().unwrap())
        })
        .collect()
}

/// A board string from rows written rank 8 first, as people draw boards.
fn board(rows: [&str; 8]) -> String {
    rows.iter()
        .rev()
        .map(|r| r.replace(' ', ""))
        .collect::<String>()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// Flips the slow way, square by square, to check the bitboard code against.
fn naive_flips(cells: &[u8], me: u8, at: usize) -> Vec<usize> {
    let them = if me == b'X' { b'O' } else { b'X' };
    let (f0, r0) = ((at % 8) as i32, (at / 8) as i32);
    let mut all = Vec::new();
    for (df, dr) in [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (-1, 1),
        (1, -1),
        (-1, -1),
    ] {
        let mut line = Vec::new();
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while (0..8).contains(&f) && (0..8).contains(&r) && cells[(r * 8 + f) as usize] == them {
            line.push((r * 8 + f) as usize);
            f += df;
            r += dr;
        }
        if (0..8).contains(&f) && (0..8).contains(&r) && cells[(r * 8 + f) as usize] == me {
            all.extend(line);
        }
    }
    all
}

#[test]
fn data_file_lists_the_ten_reference_depths() {
    let counts = reference_counts();
    assert_eq!(counts.len(), 10);
    assert_eq!(counts[0], (1, 4));
    assert_eq!(counts[9], (10, 24_571_056));
    assert!(counts
        .iter()
        .enumerate()
        .all(|(i, &(d, _))| d == i as u32 + 1));
}

#[test]
fn perft_matches_reference_counts_to_depth_8() {
    let game = Othello::new();
    assert_eq!(game.perft(0), 1);
    for (depth, count) in reference_counts().into_iter().filter(|&(d, _)| d <= 8) {
        assert_eq!(game.perft(depth), count, "perft {depth}");
    }
}

#[test]
fn perft_counts_a_pass_as_a_ply_and_an_ended_game_as_no_leaf() {
    // X c1 wipes out white: the game ends after one ply.
    let wipe = Othello::from_board(&format!("XO{}", ".".repeat(62)), Seat::A).unwrap();
    assert_eq!(wipe.perft(1), 1);
    assert_eq!(wipe.perft(2), 0);
    // X c1, O passes, X e1, and the game is over.
    let pass = Othello::from_board(&format!("XO.O{}", ".".repeat(60)), Seat::A).unwrap();
    assert_eq!(pass.perft(1), 1);
    assert_eq!(pass.perft(2), 1);
    assert_eq!(pass.perft(3), 1);
    assert_eq!(pass.perft(4), 0);
    let over = Othello::from_board(&"X".repeat(64), Seat::B).unwrap();
    assert_eq!(over.perft(0), 1);
    assert_eq!(over.perft(1), 0);
}

#[test]
fn start_position() {
    let game = Othello::new();
    assert_eq!(game.turn(), Turn::One(Seat::A));
    assert_eq!(game.legal_moves(), ["d3", "c4", "f5", "e6"]);
    assert_eq!(game.scores(), [2, 2]);
    assert_eq!(game.plies(), 0);
    assert_eq!(game.winner(), None);
    assert_eq!(game.disc(sq("d4")), Some(Seat::B));
    assert_eq!(game.disc(sq("e5")), Some(Seat::B));
    assert_eq!(game.disc(sq("d5")), Some(Seat::A));
    assert_eq!(game.disc(sq("e4")), Some(Seat::A));
    let mut cells = vec![b'.'; 64];
    cells[27] = b'O';
    cells[28] = b'X';
    cells[35] = b'X';
    cells[36] = b'O';
    let expected = String::from_utf8(cells).unwrap();
    assert_eq!(game.board_string(), expected);
    assert_eq!(game.request(Seat::A), [expected.clone(), "X".to_string()]);
    assert_eq!(game.request(Seat::B), [expected, "O".to_string()]);
    assert_eq!(Othello::default(), game);
}

#[test]
fn squares_parse_and_print() {
    for i in 0..64 {
        let s = Square::from_index(i).unwrap();
        assert_eq!(s.to_string().parse::<Square>(), Ok(s));
        assert_eq!(s.to_string().to_uppercase().parse::<Square>(), Ok(s));
        assert_eq!(Square::new(s.file(), s.rank()), Some(s));
        assert_eq!(s.index(), i);
    }
    assert_eq!(sq("a1").index(), 0);
    assert_eq!(sq("h1").index(), 7);
    assert_eq!(sq("a2").index(), 8);
    assert_eq!(sq("h8").index(), 63);
    assert_eq!(sq(" D3\n"), Square::new(3, 2).unwrap());
    for bad in ["zz", "d9", "i1", "d0", "", "d", "d33", "3d", "é1"] {
        assert_eq!(
            bad.parse::<Square>().unwrap_err().to_string(),
            format!("`{bad}` is not a square")
        );
    }
    assert_eq!(Square::from_index(64), None);
    assert_eq!(Square::new(8, 0), None);
}

#[test]
fn first_move_flips_and_hands_over() {
    let mut game = Othello::new();
    game.play(Seat::A, "d3").unwrap();
    assert_eq!(game.disc(sq("d4")), Some(Seat::A));
    assert_eq!(game.scores(), [4, 1]);
    assert_eq!(game.plies(), 1);
    assert_eq!(game.turn(), Turn::One(Seat::B));
    assert_eq!(game.legal_moves(), ["c3", "e3", "c5"]);
    game.play(Seat::B, "C5").unwrap();
    assert_eq!(game.disc(sq("d5")), Some(Seat::B));
    assert_eq!(game.turn(), Turn::One(Seat::A));
}

#[test]
fn illegal_moves_leave_the_state_unchanged() {
    let mut game = Othello::new();
    let before = game.clone();
    let cases = [
        (Seat::A, "zz", "`zz` is not a square"),
        (Seat::A, "d9", "`d9` is not a square"),
        (Seat::A, "", "`` is not a square"),
        (Seat::A, "d4", "`d4` is occupied"),
        (Seat::A, "E4", "`e4` is occupied"),
        (Seat::A, "a1", "`a1` flips no discs"),
        (Seat::A, "c3", "`c3` flips no discs"),
        (Seat::B, "c5", "`O` is not to move"),
    ];
    for (seat, reply, err) in cases {
        assert_eq!(
            game.play(seat, reply).unwrap_err().to_string(),
            err,
            "{reply}"
        );
        assert_eq!(game, before);
    }
    assert_eq!(
        game.play(Seat::A, "d4"),
        Err(MoveError::Othello(OthelloError::Occupied(sq("d4"))))
    );
    assert_eq!(
        game.play(Seat::A, "a1"),
        Err(OthelloError::NoFlip(sq("a1")).into())
    );
    let mut over = Othello::from_board(&"O".repeat(64), Seat::A).unwrap();
    let before = over.clone();
    assert_eq!(over.play(Seat::A, "a1"), Err(MoveError::GameOver));
    assert_eq!(over, before);
}

#[test]
fn flips_in_all_eight_directions() {
    let start = board([
        "X..X..X.", // 8
        ".O.O.O..", // 7
        "..OOO...", // 6
        "XOO.OOOX", // 5
        "..OOO...", // 4
        ".O.O.O..", // 3
        "X..X..X.", // 2
        "........", // 1
    ]);
    let mut game = Othello::from_board(&start, Seat::A).unwrap();
    game.play(Seat::A, "d5").unwrap();
    let after = board([
        "X..X..X.", // 8
        ".X.X.X..", // 7
        "..XXX...", // 6
        "XXXXXXXX", // 5
        "..XXX...", // 4
        ".X.X.X..", // 3
        "X..X..X.", // 2
        "........", // 1
    ]);
    assert_eq!(game.board_string(), after);
    assert_eq!(game.scores(), [26, 0]);
    assert_eq!(game.turn(), Turn::Over);
}

#[test]
fn lines_do_not_wrap_around_the_edges() {
    // Read across the h1-a2 seam, a2 would close h1 against g1 for X, and h1 would close
    // a2 against b2 for X; neither is a move, so X passes and only O's f1 or c2 is legal.
    let mut game = Othello::from_board(&format!("......XO{}", ".".repeat(56)), Seat::A).unwrap();
    assert_eq!(game.turn(), Turn::One(Seat::B));
    assert_eq!(game.legal_moves(), ["f1"]);
    let mut cells = ".".repeat(64);
    cells.replace_range(8..10, "OX");
    game = Othello::from_board(&cells, Seat::A).unwrap();
    assert_eq!(game.turn(), Turn::One(Seat::B));
    assert_eq!(game.legal_moves(), ["c2"]);
}

#[test]
fn a_player_without_a_move_passes() {
    // a1 X, b1 O, d1 O: X's only move is c1.
    let start = format!("XO.O....{}", ".".repeat(56));
    let mut game = Othello::from_board(&start, Seat::A).unwrap();
    assert_eq!(game.legal_moves(), ["c1"]);
    game.play(Seat::A, "c1").unwrap();
    // X X X O: O has no X line to close, X can play e1, so X moves again.
    assert_eq!(game.turn(), Turn::One(Seat::A));
    assert_eq!(game.legal_moves(), ["e1"]);
    assert_eq!(game.plies(), 1);
    game.play(Seat::A, "e1").unwrap();
    assert_eq!(game.turn(), Turn::Over);
    assert_eq!(game.plies(), 2);
    assert_eq!(game.scores(), [5, 0]);
    assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)));
}

#[test]
fn a_built_position_whose_mover_cannot_move_passes_at_once() {
    let start = format!("XO.O....{}", ".".repeat(56));
    let game = Othello::from_board(&start, Seat::B).unwrap();
    assert_eq!(game.turn(), Turn::One(Seat::A));
    assert_eq!(game.plies(), 0);
}

#[test]
fn the_game_can_end_with_empty_squares() {
    let start = format!("XO{}", ".".repeat(62));
    let mut game = Othello::from_board(&start, Seat::A).unwrap();
    game.play(Seat::A, "c1").unwrap();
    assert_eq!(game.turn(), Turn::Over);
    assert_eq!(game.scores(), [3, 0]);
    assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)));
    assert!(game.legal_moves().is_empty());
    assert_eq!(game.play(Seat::B, "d1"), Err(MoveError::GameOver));
    // Neither side able to move ends a game at once, here a draw.
    let stuck = format!("X{}O", ".".repeat(62));
    let stuck = Othello::from_board(&stuck, Seat::A).unwrap();
    assert_eq!(stuck.turn(), Turn::Over);
    assert_eq!(stuck.scores(), [1, 1]);
    assert_eq!(stuck.winner(), Some(Winner::Draw));
}

#[test]
fn filling_the_board_ends_the_game_with_the_disc_count_deciding() {
    // h8 is the last empty square; X closes the line g8-a8 of O with its disc on a8.
    let mut rows = ["XXXXXXXX"; 8];
    rows[0] = "XOOOOOO.";
    rows[1] = "OOOOOOOO";
    rows[2] = "OOOOOOOO";
    rows[3] = "OOOOOOOO";
    let mut game = Othello::from_board(&board(rows), Seat::A).unwrap();
    assert_eq!(game.scores(), [33, 30]);
    assert_eq!(game.plies(), 59);
    // h8 also closes h7..h5 against h4 and g7..e5 against d4: 6 + 3 + 3 flips.
    game.play(Seat::A, "h8").unwrap();
    assert_eq!(game.turn(), Turn::Over);
    assert_eq!(game.scores(), [46, 18]);
    assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)));
    assert_eq!(game.plies(), 60);

    let mut rows = ["XXXXXXXX"; 8];
    rows[..4].fill("OOOOOOOO");
    let white = Othello::from_board(&board(rows), Seat::A).unwrap();
    assert_eq!(white.turn(), Turn::Over);
    assert_eq!(white.winner(), Some(Winner::Draw));
    rows[4] = "OOOOOOOO";
    let white = Othello::from_board(&board(rows), Seat::A).unwrap();
    assert_eq!(white.scores(), [24, 40]);
    assert_eq!(white.winner(), Some(Winner::Seat(Seat::B)));
}

#[test]
fn bad_boards_are_refused() {
    assert_eq!(
        Othello::from_board("XO", Seat::A),
        Err("a board has 64 squares, not 2".to_string())
    );
    let bad = format!("x{}", ".".repeat(63));
    assert_eq!(
        Othello::from_board(&bad, Seat::A),
        Err("`x` is not `X`, `O` or `.`".to_string())
    );
}

#[test]
fn render_shows_coordinates_discs_and_moves() {
    let text = Othello::new().render();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "  a b c d e f g h");
    assert_eq!(lines[1], "8 . . . . . . . . 8");
    assert_eq!(lines[4], "5 . . . X O * . . 5");
    assert_eq!(lines[5], "4 . . * O X . . . 4");
    assert_eq!(lines[6], "3 . . . * . . . . 3");
    assert_eq!(lines[9], "  a b c d e f g h");
    assert_eq!(lines[10], "X 2  O 2  X to move");
    let over = Othello::from_board(&format!("X{}O", ".".repeat(62)), Seat::A).unwrap();
    assert!(over.render().ends_with("X 1  O 1  game over, a draw\n"));
}

#[test]
fn random_games_agree_with_a_naive_referee() {
    let mut rng = Rng::new(42);
    for _ in 0..40 {
        let mut game = Othello::new();
        while let Some(seat) = game.to_move() {
            let cells = game.board_string().into_bytes();
            let me = colour(seat) as u8;
            let naive: Vec<String> = (0..64)
                .filter(|&i| cells[i] == b'.' && !naive_flips(&cells, me, i).is_empty())
                .map(|i| Square::from_index(i).unwrap().to_string())
                .collect();
            assert_eq!(game.legal_moves(), naive);
            let mv = rng.choose(&naive).unwrap().clone();
            let at = sq(&mv).index();
            let mut expect = cells.clone();
            for i in naive_flips(&cells, me, at) {
                expect[i] = me;
            }
            expect[at] = me;
            game.play(seat, &mv).unwrap();
            assert_eq!(game.board_string().into_bytes(), expect);
            let [x, o] = game.scores();
            assert_eq!((x + o) as u32, game.plies() + 4);
        }
        let [x, o] = game.scores();
        let winner = game.winner().unwrap();
        assert_eq!(winner == Winner::Draw, x == o);
        assert_eq!(winner == Winner::Seat(Seat::A), x > o);
    }
}
