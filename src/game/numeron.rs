//! Numer0n: each player hides a number of distinct digits and both guess the other's by calls.
//!
//! Both players pick a secret at once, then they call alternately, seat A first. Every call is
//! answered with EAT (right digit, right place) and BITE (right digit, wrong place). When A
//! solves, B still gets its call of the same turn: both solving is a draw. Nobody solving within
//! the call limit is a draw too.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use super::{MoveError, Rules, Seat, Turn, Winner};

/// The fewest digits a secret may have.
pub const MIN_DIGITS: u8 = 3;
/// The most digits a secret may have.
pub const MAX_DIGITS: u8 = 5;
/// Digits in a secret unless configured otherwise.
pub const DEFAULT_DIGITS: u8 = 3;
/// Calls each player may make before the game is drawn.
pub const MAX_CALLS: u32 = 50;

/// Why a Numer0n reply is not a move (besides the game being over).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumeronError {
    /// The reply is empty or has a character that is not an ASCII digit.
    #[error("`{0}` is not a string of digits")]
    NotDigits(String),
    /// The reply has some digit twice.
    #[error("`{0}` repeats a digit")]
    RepeatedDigit(String),
    /// The reply has distinct digits, but not as many as the game's secrets.
    #[error("`{code}` is not {digits} digits")]
    WrongLength {
        /// The reply.
        code: String,
        /// The digits a secret or call must have.
        digits: u8,
    },
    /// This seat sent a second secret while the other one has not picked yet.
    #[error("{0} has already picked a secret")]
    SecretPicked(Seat),
    /// `seat` called while `to_move` is to call.
    #[error("it is {to_move}'s turn, not {seat}'s")]
    NotYourTurn {
        /// The seat that replied.
        seat: Seat,
        /// The seat to call.
        to_move: Seat,
    },
    /// A move given to [`Numeron::from_moves`] after the game ended.
    #[error("`{0}` comes after the end of the game")]
    AfterTheEnd(String),
}

/// A string of distinct decimal digits: a secret or a call. Leading zeros are allowed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Code(Vec<u8>);

impl Code {
    /// Parses `s` as a code of exactly `digits` distinct digits.
    pub fn parse(s: &str, digits: u8) -> Result<Code, NumeronError> {
        let code: Code = s.parse()?;
        if code.len() != usize::from(digits) {
            return Err(NumeronError::WrongLength {
                code: s.to_string(),
                digits,
            });
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
    type Err = NumeronError;

    /// Parses a non-empty string of distinct digits of any length.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NumeronError::NotDigits(s.to_string()));
        }
        let digits: Vec<u8> = s.bytes().map(|b| b - b'0').collect();
        let mut seen = [false; 10];
        for &d in &digits {
            if seen[usize::from(d)] {
                return Err(NumeronError::RepeatedDigit(s.to_string()));
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
    /// `calls[seat]` in protocol form, appended to with every call: the request's history.
    histories: [String; 2],
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
            histories: [String::new(), String::new()],
            winner: None,
        }
    }

    /// A standard game after `moves` were played in turn order: A's secret, B's secret, then
    /// the calls alternately from A. Fails with the first illegal move's error.
    pub fn from_moves(digits: u8, moves: &[&str]) -> Result<Self, MoveError> {
        let mut game = Numeron::new(digits);
        for mv in moves {
            let seat = match game.turn() {
                Turn::Both if game.secrets[0].is_none() => Seat::A,
                Turn::Both => Seat::B,
                Turn::One(seat) => seat,
                Turn::Over => return Err(NumeronError::AfterTheEnd(mv.to_string()).into()),
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
    pub fn history(&self, seat: Seat) -> &str {
        &self.histories[seat.index()]
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
            Some(Winner::Seat(seat)) => out += &format!("{seat} wins\n"),
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
    /// The answer to `seat`'s last call (a secret has none: it comes before every call).
    fn note(&self, seat: Seat) -> Option<String> {
        let call = self.calls[seat.index()].last()?;
        Some(format!("{} EAT {} BITE", call.eat, call.bite))
    }

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
                self.history(seat).to_string(),
                self.history(seat.other()).to_string(),
            ]
        }
    }

    fn play(&mut self, seat: Seat, reply: &str) -> Result<(), MoveError> {
        match self.turn() {
            Turn::Over => return Err(MoveError::GameOver),
            Turn::Both if self.secrets[seat.index()].is_some() => {
                return Err(NumeronError::SecretPicked(seat).into());
            }
            Turn::One(to_move) if to_move != seat => {
                return Err(NumeronError::NotYourTurn { seat, to_move }.into());
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
        let call = Call { code, eat, bite };
        let history = &mut self.histories[seat.index()];
        if !history.is_empty() {
            history.push(',');
        }
        // Writing to a `String` cannot fail.
        let _ = write!(history, "{call}");
        self.calls[seat.index()].push(call);
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
#[path = "numeron_tests.rs"]
mod tests;
