//! Numer0n: each player hides a number of distinct digits and both guess the other's by calls.
//!
//! Both players pick a secret at once, then they call alternately, seat A first. Every call is
//! answered with EAT (right digit, right place) and BITE (right digit, wrong place). When A
//! solves, B still gets its call of the same turn: both solving is a draw. Nobody solving within
//! the call limit is a draw too.

use std::fmt;
use std::str::FromStr;

use super::{Rules, Seat, Turn, Winner};

/// The fewest digits a secret may have.
pub const MIN_DIGITS: u8 = 3;
/// The most digits a secret may have.
pub const MAX_DIGITS: u8 = 5;
/// Digits in a secret unless configured otherwise.
pub const DEFAULT_DIGITS: u8 = 3;
/// Calls each player may make before the game is drawn.
pub const MAX_CALLS: u32 = 50;

/// A string of distinct decimal digits: a secret or a call. Leading zeros are allowed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Code(Vec<u8>);

impl Code {
    /// Parses `s` as a code of exactly `digits` distinct digits.
    pub fn parse(s: &str, digits: u8) -> Result<Code, String> {
        let code: Code = s.parse()?;
        if code.len() != usize::from(digits) {
            return Err(format!("`{s}` is not {digits} digits"));
        }
        Ok(code)
    }

    /// The digits, most significant first, each in `0..=9`.
    pub fn digits(&self) -> &[u8] {
        &self.0
    }

    /// How many digits the code has.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the code has no digits (never true for a parsed code).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromStr for Code {
    type Err = String;

    /// Parses a non-empty string of distinct digits of any length.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{s}` is not a string of digits"));
        }
        let digits: Vec<u8> = s.bytes().map(|b| b - b'0').collect();
        let mut seen = [false; 10];
        for &d in &digits {
            if seen[usize::from(d)] {
                return Err(format!("`{s}` repeats a digit"));
            }
            seen[usize::from(d)] = true;
        }
        Ok(Code(digits))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &d in &self.0 {
            write!(f, "{}", char::from(b'0' + d))?;
        }
        Ok(())
    }
}

/// The answer to `call` against `secret`: (EAT, BITE). Codes of different lengths are compared
/// position by position over the shorter one for EAT.
pub fn eat_bite(secret: &Code, call: &Code) -> (u8, u8) {
    let eat = secret.0.iter().zip(&call.0).filter(|(s, c)| s == c).count();
    // Digits are distinct within each code, so every shared digit is exactly one EAT or BITE.
    let shared = call.0.iter().filter(|d| secret.0.contains(d)).count();
    (eat as u8, (shared - eat) as u8)
}

/// One call and the answer it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The digits called.
    pub code: Code,
    /// Right digits in the right place.
    pub eat: u8,
    /// Right digits in the wrong place.
    pub bite: u8,
}

impl fmt::Display for Call {
    /// The protocol form `call:eat:bite`, e.g. `123:1:0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.code, self.eat, self.bite)
    }
}

/// A game of Numer0n in progress.
#[derive(Debug, Clone)]
pub struct Numeron {
    digits: u8,
    max_calls: u32,
    secrets: [Option<Code>; 2],
    /// `calls[seat]` are the calls `seat` made against the other seat's secret.
    calls: [Vec<Call>; 2],
    winner: Option<Winner>,
}

impl Numeron {
    /// A new game with secrets of `digits` digits and the standard call limit.
    ///
    /// Panics unless `digits` is in `MIN_DIGITS..=MAX_DIGITS`.
    pub fn new(digits: u8) -> Self {
        Numeron::with_max_calls(digits, MAX_CALLS)
    }

    /// A new game drawn after `max_calls` calls by each player without a solve.
    ///
    /// Panics unless `digits` is in `MIN_DIGITS..=MAX_DIGITS` and `max_calls` is positive.
    pub fn with_max_calls(digits: u8, max_calls: u32) -> Self {
        assert!(
            (MIN_DIGITS..=MAX_DIGITS).contains(&digits),
            "a Numer0n secret has {MIN_DIGITS} to {MAX_DIGITS} digits, not {digits}"
        );
        assert!(max_calls > 0, "a Numer0n game needs at least one call each");
        Numeron {
            digits,
            max_calls,
            secrets: [None, None],
            calls: [Vec::new(), Vec::new()],
            winner: None,
        }
    }

    /// A standard game after `moves` were played in turn order: A's secret, B's secret, then
    /// the calls alternately from A. Fails with the first illegal move's error.
    pub fn from_moves(digits: u8, moves: &[&str]) -> Result<Self, String> {
        let mut game = Numeron::new(digits);
        for mv in moves {
            let seat = match game.turn() {
                Turn::Both if game.secrets[0].is_none() => Seat::A,
                Turn::Both => Seat::B,
                Turn::One(seat) => seat,
                Turn::Over => return Err(format!("`{mv}` comes after the end of the game")),
            };
            game.play(seat, mv)?;
        }
        Ok(game)
    }

    /// Digits in each secret and call.
    pub fn digits(&self) -> u8 {
        self.digits
    }

    /// Calls each player may make before the game is drawn.
    pub fn max_calls(&self) -> u32 {
        self.max_calls
    }

    /// `seat`'s secret, once it has picked one.
    pub fn secret(&self, seat: Seat) -> Option<&Code> {
        self.secrets[seat.index()].as_ref()
    }

    /// The calls `seat` made against its opponent's secret, with their answers, oldest first.
    pub fn calls(&self, seat: Seat) -> &[Call] {
        &self.calls[seat.index()]
    }

    /// `seat`'s calls in protocol form: `123:1:0,456:0:2`, or empty before the first call.
    pub fn history(&self, seat: Seat) -> String {
        self.calls[seat.index()]
            .iter()
            .map(Call::to_string)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Both secrets and call histories side by side, turn by turn, with the result if over.
    pub fn render(&self) -> String {
        self.render_hiding(None)
    }

    /// The game as `viewer` sees it: the other secret stays hidden until the game is over.
    pub fn render_hiding(&self, viewer: Option<Seat>) -> String {
        let hidden = |seat: Seat| viewer.is_some_and(|v| v != seat) && self.winner.is_none();
        let secret = |seat: Seat| match self.secret(seat) {
            Some(code) if !hidden(seat) => code.to_string(),
            _ => "?".repeat(usize::from(self.digits)),
        };
        let call = |seat: Seat, i: usize| {
            self.calls(seat).get(i).map_or_else(String::new, |c| {
                format!("{}  {} EAT {} BITE", c.code, c.eat, c.bite)
            })
        };
        let width = usize::from(self.digits) + 16;
        let mut out = format!(
            "Numer0n, {} digits: A's secret {}, B's secret {}\n",
            self.digits,
            secret(Seat::A),
            secret(Seat::B)
        );
        out += &format!("{:>3}  {:<width$}  B calls\n", "#", "A calls");
        for i in 0..self.calls[0].len() {
            let line = format!(
                "{:>3}  {:<width$}  {}",
                i + 1,
                call(Seat::A, i),
                call(Seat::B, i)
            );
            out += line.trim_end();
            out.push('\n');
        }
        match self.winner {
            Some(Winner::Seat(seat)) => out += &format!("{seat:?} wins\n"),
            Some(Winner::Draw) => out += "draw\n",
            None => {}
        }
        out
    }

    fn solved(&self, seat: Seat) -> bool {
        self.calls[seat.index()]
            .last()
            .is_some_and(|c| c.eat == self.digits)
    }
}

impl Rules for Numeron {
    fn render(&self) -> String {
        Numeron::render(self)
    }

    fn render_for(&self, viewer: Seat) -> String {
        self.render_hiding(Some(viewer))
    }

    fn turn(&self) -> Turn {
        if self.winner.is_some() {
            Turn::Over
        } else if self.secrets.iter().any(Option::is_none) {
            Turn::Both
        } else if self.calls[0].len() == self.calls[1].len() {
            Turn::One(Seat::A)
        } else {
            Turn::One(Seat::B)
        }
    }

    fn request(&self, seat: Seat) -> Vec<String> {
        if self.secrets.iter().any(Option::is_none) {
            vec!["secret".to_string(), self.digits.to_string()]
        } else {
            vec![
                "call".to_string(),
                self.history(seat),
                self.history(seat.other()),
            ]
        }
    }

    fn play(&mut self, seat: Seat, reply: &str) -> Result<(), String> {
        match self.turn() {
            Turn::Over => return Err("the game is over".to_string()),
            Turn::Both if self.secrets[seat.index()].is_some() => {
                return Err(format!("{seat:?} has already picked a secret"));
            }
            Turn::One(to_move) if to_move != seat => {
                return Err(format!("it is {to_move:?}'s turn, not {seat:?}'s"));
            }
            _ => {}
        }
        let code = Code::parse(reply, self.digits)?;
        if self.turn() == Turn::Both {
            self.secrets[seat.index()] = Some(code);
            return Ok(());
        }
        let secret = self.secrets[seat.other().index()]
            .as_ref()
            .expect("both secrets are picked before any call");
        let (eat, bite) = eat_bite(secret, &code);
        self.calls[seat.index()].push(Call { code, eat, bite });
        // A turn ends with B's call: only then can B's last call answer A's solve.
        if seat == Seat::B {
            self.winner = match (self.solved(Seat::A), self.solved(Seat::B)) {
                (true, true) => Some(Winner::Draw),
                (true, false) => Some(Winner::Seat(Seat::A)),
                (false, true) => Some(Winner::Seat(Seat::B)),
                (false, false) if self.calls[1].len() as u32 >= self.max_calls => {
                    Some(Winner::Draw)
                }
                (false, false) => None,
            };
        }
        Ok(())
    }

    fn scores(&self) -> [i64; 2] {
        [self.calls[0].len() as i64, self.calls[1].len() as i64]
    }

    fn winner(&self) -> Option<Winner> {
        self.winner
    }

    fn plies(&self) -> u32 {
        (self.calls[0].len() + self.calls[1].len()) as u32
    }
}

#[cfg(test)]
mod tests {
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
        assert_eq!(Code::parse("012", 4).unwrap_err(), "`012` is not 4 digits");
        assert_eq!(
            "".parse::<Code>().unwrap_err(),
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
            g.play(Seat::B, "678").unwrap_err(),
            "B has already picked a secret"
        );
        g.play(Seat::A, "012").unwrap();
        assert_eq!(g.turn(), Turn::One(Seat::A));
        assert_eq!(g.secret(Seat::A), Some(&code("012")));
        assert_eq!(g.secret(Seat::B), Some(&code("345")));
        assert_eq!(g.plies(), 0);
        assert_eq!(g.scores(), [0, 0]);
        assert_eq!(
            g.play(Seat::B, "012").unwrap_err(),
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
        assert_eq!(g.play(Seat::A, "345").unwrap_err(), "the game is over");
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
                let got = g.play(seat, reply).unwrap_err();
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
            assert_eq!(g.play(Seat::B, reply).unwrap_err(), err);
            assert_eq!(snapshot(&g), before, "{reply:?} changed the state");
        }
        // A legal call out of turn is refused just the same.
        let before = snapshot(&g);
        assert_eq!(
            g.play(Seat::A, "345").unwrap_err(),
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
            Numeron::from_moves(4, &["012"]).unwrap_err(),
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
            Numeron::from_moves(3, &["012", "345", "678", "012", "789"]).unwrap_err(),
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
}
