//! Tests of the Numer0n rules: EAT/BITE, turn order, the end of a game, requests and errors.

use super::*;

fn code(s: &str) -> Code {
    s.parse().unwrap()
}

fn game(moves: &[&str]) -> Numeron {
    Numeron::from_moves(3, moves).unwrap()
}

/// Everything `play` may change, to check an illegal move changed nothing.
fn snapshot(g: &Numeron) -> String {
    format!("{g:?}")
}

#[test]
fn eat_bite_table() {
    let cases = [
        ("123", "123", (3, 0)),
        ("123", "231", (0, 3)),
        ("123", "312", (0, 3)),
        ("123", "456", (0, 0)),
        ("123", "132", (1, 2)),
        ("123", "145", (1, 0)),
        ("123", "415", (0, 1)),
        ("123", "129", (2, 0)),
        ("123", "329", (1, 1)),
        ("012", "012", (3, 0)),
        ("012", "120", (0, 3)),
        ("012", "019", (2, 0)),
        ("012", "901", (0, 2)),
        ("012", "345", (0, 0)),
        ("102", "012", (1, 2)),
        ("1234", "1234", (4, 0)),
        ("1234", "4321", (0, 4)),
        ("1234", "1243", (2, 2)),
        ("1234", "5678", (0, 0)),
        ("0123", "3210", (0, 4)),
        ("0123", "0456", (1, 0)),
        ("12345", "12345", (5, 0)),
        ("12345", "51234", (0, 5)),
        ("12345", "12354", (3, 2)),
        ("12345", "67890", (0, 0)),
        ("01234", "09876", (1, 0)),
        ("01234", "40567", (0, 2)),
    ];
    for (secret, call, want) in cases {
        assert_eq!(
            eat_bite(&code(secret), &code(call)),
            want,
            "{secret} vs {call}"
        );
    }
}

#[test]
fn codes_parse_and_print() {
    assert_eq!(code("012").digits(), &[0, 1, 2]);
    assert_eq!(code("012").to_string(), "012");
    assert_eq!(Code::parse("98765", 5).unwrap().len(), 5);
    assert_eq!(
        Code::parse("012", 4).unwrap_err().to_string(),
        "`012` is not 4 digits"
    );
    assert_eq!(
        "".parse::<Code>().unwrap_err().to_string(),
        "`` is not a string of digits"
    );
    let call = Call {
        code: code("456"),
        eat: 0,
        bite: 2,
    };
    assert_eq!(call.to_string(), "456:0:2");
}

#[test]
fn secrets_are_picked_at_once_then_a_calls_first() {
    let mut g = Numeron::new(3);
    assert_eq!(g.turn(), Turn::Both);
    g.play(Seat::B, "345").unwrap();
    // B's secret waits for A's: still both to move, and B may not pick again.
    assert_eq!(g.turn(), Turn::Both);
    assert_eq!(
        g.play(Seat::B, "678").unwrap_err().to_string(),
        "B has already picked a secret"
    );
    g.play(Seat::A, "012").unwrap();
    assert_eq!(g.turn(), Turn::One(Seat::A));
    assert_eq!(g.secret(Seat::A), Some(&code("012")));
    assert_eq!(g.secret(Seat::B), Some(&code("345")));
    assert_eq!(g.plies(), 0);
    assert_eq!(g.scores(), [0, 0]);
    assert_eq!(
        g.play(Seat::B, "012").unwrap_err().to_string(),
        "it is A's turn, not B's"
    );
    g.play(Seat::A, "354").unwrap();
    assert_eq!(g.turn(), Turn::One(Seat::B));
    assert_eq!(g.calls(Seat::A)[0].to_string(), "354:1:2");
    g.play(Seat::B, "210").unwrap();
    assert_eq!(g.turn(), Turn::One(Seat::A));
    assert_eq!(g.plies(), 2);
    assert_eq!(g.scores(), [1, 1]);
    assert_eq!(g.winner(), None);
}

#[test]
fn requests_at_each_phase() {
    let mut g = Numeron::new(4);
    let secret = vec!["secret".to_string(), "4".to_string()];
    assert_eq!(g.request(Seat::A), secret);
    assert_eq!(g.request(Seat::B), secret);
    g.play(Seat::A, "0123").unwrap();
    assert_eq!(g.request(Seat::B), secret);
    g.play(Seat::B, "4567").unwrap();
    assert_eq!(g.request(Seat::A), ["call", "", ""]);
    g.play(Seat::A, "4576").unwrap();
    assert_eq!(g.request(Seat::B), ["call", "", "4576:2:2"]);
    g.play(Seat::B, "0189").unwrap();
    assert_eq!(g.request(Seat::A), ["call", "4576:2:2", "0189:2:0"]);
    g.play(Seat::A, "4567").unwrap();
    assert_eq!(
        g.request(Seat::B),
        ["call", "0189:2:0", "4576:2:2,4567:4:0"]
    );
    assert_eq!(g.history(Seat::A), "4576:2:2,4567:4:0");
    assert_eq!(g.history(Seat::B), "0189:2:0");
}

#[test]
fn a_solving_gives_b_a_last_call_that_can_draw() {
    let mut g = game(&["012", "345", "678", "120", "345"]);
    // A has solved, but B still has its call of this turn.
    assert_eq!(g.turn(), Turn::One(Seat::B));
    assert_eq!(g.winner(), None);
    g.play(Seat::B, "012").unwrap();
    assert_eq!(g.turn(), Turn::Over);
    assert_eq!(g.winner(), Some(Winner::Draw));
    assert_eq!(g.scores(), [2, 2]);
    assert_eq!(g.plies(), 4);
}

#[test]
fn a_solving_wins_when_b_misses_its_last_call() {
    let mut g = game(&["012", "345", "345"]);
    g.play(Seat::B, "021").unwrap();
    assert_eq!(g.turn(), Turn::Over);
    assert_eq!(g.winner(), Some(Winner::Seat(Seat::A)));
    assert_eq!(g.scores(), [1, 1]);
    assert_eq!(
        g.play(Seat::A, "345").unwrap_err().to_string(),
        "the game is over"
    );
}

#[test]
fn b_solving_alone_wins_at_once() {
    let g = game(&["012", "345", "678", "012"]);
    assert_eq!(g.turn(), Turn::Over);
    assert_eq!(g.winner(), Some(Winner::Seat(Seat::B)));
    assert_eq!(g.scores(), [1, 1]);
}

#[test]
fn fifty_calls_each_without_a_solve_is_a_draw() {
    let mut g = game(&["012", "345"]);
    for i in 0..MAX_CALLS {
        assert_eq!(g.winner(), None, "over early at call {i}");
        g.play(Seat::A, "678").unwrap();
        g.play(Seat::B, "789").unwrap();
    }
    assert_eq!(g.turn(), Turn::Over);
    assert_eq!(g.winner(), Some(Winner::Draw));
    assert_eq!(g.scores(), [50, 50]);
    assert_eq!(g.plies(), 100);
}

#[test]
fn the_call_limit_counts_whole_turns() {
    let mut g = Numeron::with_max_calls(3, 2);
    for (seat, mv) in [
        (Seat::A, "012"),
        (Seat::B, "345"),
        (Seat::A, "678"),
        (Seat::B, "678"),
    ] {
        g.play(seat, mv).unwrap();
    }
    assert_eq!(g.winner(), None);
    // A solves with its last allowed call; B's last call misses, so A wins, not a draw.
    g.play(Seat::A, "345").unwrap();
    assert_eq!(g.turn(), Turn::One(Seat::B));
    g.play(Seat::B, "678").unwrap();
    assert_eq!(g.winner(), Some(Winner::Seat(Seat::A)));

    let mut g = Numeron::with_max_calls(3, 1);
    for (seat, mv) in [(Seat::A, "012"), (Seat::B, "345"), (Seat::A, "678")] {
        g.play(seat, mv).unwrap();
    }
    assert_eq!(g.turn(), Turn::One(Seat::B));
    g.play(Seat::B, "012").unwrap();
    assert_eq!(g.winner(), Some(Winner::Seat(Seat::B)));
}

#[test]
fn illegal_secrets_leave_the_state_unchanged() {
    let cases = [
        ("112", "`112` repeats a digit"),
        ("000", "`000` repeats a digit"),
        ("12", "`12` is not 3 digits"),
        ("1234", "`1234` is not 3 digits"),
        ("12a", "`12a` is not a string of digits"),
        ("-12", "`-12` is not a string of digits"),
        ("1 2", "`1 2` is not a string of digits"),
        ("١٢٣", "`١٢٣` is not a string of digits"),
        ("-", "`-` is not a string of digits"),
        ("", "`` is not a string of digits"),
    ];
    let mut g = Numeron::new(3);
    g.play(Seat::B, "345").unwrap();
    for (reply, err) in cases {
        for seat in Seat::BOTH {
            let before = snapshot(&g);
            let got = g.play(seat, reply).unwrap_err().to_string();
            if seat == Seat::A {
                assert_eq!(got, err);
            }
            assert_eq!(snapshot(&g), before, "{reply:?} changed the state");
        }
    }
    assert_eq!(g.secret(Seat::A), None);
    assert_eq!(g.turn(), Turn::Both);
}

#[test]
fn illegal_calls_leave_the_state_unchanged() {
    let cases = [
        ("344", "`344` repeats a digit"),
        ("43", "`43` is not 3 digits"),
        ("3456", "`3456` is not 3 digits"),
        ("3x5", "`3x5` is not a string of digits"),
        ("+34", "`+34` is not a string of digits"),
        ("", "`` is not a string of digits"),
    ];
    let mut g = game(&["012", "345", "678"]);
    for (reply, err) in cases {
        let before = snapshot(&g);
        assert_eq!(g.play(Seat::B, reply).unwrap_err().to_string(), err);
        assert_eq!(snapshot(&g), before, "{reply:?} changed the state");
    }
    // A legal call out of turn is refused just the same.
    let before = snapshot(&g);
    assert_eq!(
        g.play(Seat::A, "345").unwrap_err().to_string(),
        "it is B's turn, not A's"
    );
    assert_eq!(snapshot(&g), before);
    assert_eq!(g.plies(), 1);
}

#[test]
fn four_and_five_digit_games() {
    let g = Numeron::from_moves(4, &["0123", "4567", "4576", "3210", "4567"]).unwrap();
    assert_eq!(g.history(Seat::A), "4576:2:2,4567:4:0");
    assert_eq!(g.history(Seat::B), "3210:0:4");
    assert_eq!(g.turn(), Turn::One(Seat::B));
    assert_eq!(
        Numeron::from_moves(4, &["012"]).unwrap_err().to_string(),
        "`012` is not 4 digits"
    );
    let g = Numeron::from_moves(5, &["01234", "56789", "56789", "01243"]).unwrap();
    assert_eq!(g.winner(), Some(Winner::Seat(Seat::A)));
    assert_eq!(g.history(Seat::B), "01243:3:2");
}

#[test]
#[should_panic(expected = "3 to 5 digits, not 6")]
fn six_digits_are_refused() {
    Numeron::new(6);
}

#[test]
fn from_moves_refuses_moves_after_the_end() {
    assert_eq!(
        Numeron::from_moves(3, &["012", "345", "678", "012", "789"])
            .unwrap_err()
            .to_string(),
        "`789` comes after the end of the game"
    );
}

#[test]
fn render_shows_secrets_calls_and_result() {
    assert_eq!(
        Numeron::new(3).render(),
        "Numer0n, 3 digits: A's secret ???, B's secret ???\n  #  A calls              B calls\n"
    );
    let g = game(&["012", "345", "354", "210", "345", "012"]);
    assert_eq!(
        g.render(),
        "Numer0n, 3 digits: A's secret 012, B's secret 345\n\
         \x20 #  A calls              B calls\n\
         \x20 1  354  1 EAT 2 BITE    210  1 EAT 2 BITE\n\
         \x20 2  345  3 EAT 0 BITE    012  3 EAT 0 BITE\n\
         draw\n"
    );
}

/// A random code of `digits` distinct digits.
fn random_code(rng: &mut crate::rng::Rng, digits: u8) -> String {
    let mut pool: Vec<u8> = (b'0'..=b'9').collect();
    (0..digits)
        .map(|_| char::from(pool.remove(rng.below(pool.len()))))
        .collect()
}

/// The request built from scratch out of the call lists, as the protocol defines it.
fn request_from_scratch(g: &Numeron, seat: Seat) -> Vec<String> {
    let history = |s: Seat| {
        let calls: Vec<String> = g.calls(s).iter().map(Call::to_string).collect();
        calls.join(",")
    };
    if g.secret(Seat::A).is_none() || g.secret(Seat::B).is_none() {
        vec!["secret".to_string(), g.digits().to_string()]
    } else {
        vec!["call".to_string(), history(seat), history(seat.other())]
    }
}

#[test]
fn incremental_requests_match_requests_from_scratch() {
    let mut rng = crate::rng::Rng::new(11);
    for round in 0..60 {
        let digits = MIN_DIGITS + (round % 3) as u8;
        let mut g = Numeron::with_max_calls(digits, 20);
        while g.turn() != Turn::Over {
            for seat in Seat::BOTH {
                assert_eq!(g.request(seat), request_from_scratch(&g, seat));
            }
            let seat = match g.turn() {
                Turn::One(seat) => seat,
                _ if g.secret(Seat::A).is_none() => Seat::A,
                _ => Seat::B,
            };
            // Now and then an illegal reply, which must leave the histories alone.
            if rng.below(8) == 0 {
                assert!(g.play(seat, "x").is_err());
            }
            g.play(seat, &random_code(&mut rng, digits)).unwrap();
        }
        for seat in Seat::BOTH {
            assert_eq!(g.request(seat), request_from_scratch(&g, seat));
        }
    }
}

#[test]
fn errors_are_typed() {
    let mut g = game(&["012", "345"]);
    assert_eq!(
        g.play(Seat::B, "678"),
        Err(MoveError::Numeron(NumeronError::NotYourTurn {
            seat: Seat::B,
            to_move: Seat::A
        }))
    );
    assert_eq!(
        g.play(Seat::A, "11"),
        Err(NumeronError::RepeatedDigit("11".to_string()).into())
    );
    assert_eq!(
        g.play(Seat::A, "0123"),
        Err(MoveError::Numeron(NumeronError::WrongLength {
            code: "0123".to_string(),
            digits: 3
        }))
    );
}
