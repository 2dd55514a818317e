//! Morra as run in the code-golf King of the Hill: simultaneous rounds of a choice and a guess.

use std::fmt;
use std::str::FromStr;

use super::{MoveError, Rules, Seat, Turn, Winner};

/// The largest number a player may choose or guess.
pub const MAX_NUMBER: u8 = 5;

/// One player's move in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throw {
    /// The number this player shows.
    pub choice: u8,
    /// This player's guess of the opponent's choice.
    pub guess: u8,
}

impl Throw {
    /// Parses a reply: the first two whitespace-separated tokens must be integers 0 to 5;
    /// anything after them is ignored, as the KotH controller did.
    pub fn parse(reply: &str) -> Result<Throw, ThrowError> {
        let mut tokens = reply.split_whitespace();
        let choice = parse_number(tokens.next(), Number::Choice)?;
        let guess = parse_number(tokens.next(), Number::Guess)?;
        Ok(Throw { choice, guess })
    }
}

impl FromStr for Throw {
    type Err = ThrowError;

    /// The same as [`Throw::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Throw::parse(s)
    }
}

impl fmt::Display for Throw {
    /// The reply form: the choice, a space, the guess (`3 4`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.choice, self.guess)
    }
}

/// Which of the two numbers of a throw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Number {
    /// The number shown.
    Choice,
    /// The guess of the opponent's number.
    Guess,
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Number::Choice => "choice",
            Number::Guess => "guess",
        })
    }
}

/// Why a reply is not a throw.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThrowError {
    /// The reply ends before this number.
    #[error("no {0} in the reply")]
    Missing(Number),
    /// This number's token is not an integer from 0 to 5.
    #[error("{number} `{token}` is not an integer from 0 to 5")]
    OutOfRange {
        /// Which number.
        number: Number,
        /// The token given for it.
        token: String,
    },
}

fn parse_number(token: Option<&str>, number: Number) -> Result<u8, ThrowError> {
    let token = token.ok_or(ThrowError::Missing(number))?;
    match token.parse::<i64>() {
        Ok(n) if (0..=i64::from(MAX_NUMBER)).contains(&n) => Ok(n as u8),
        _ => Err(ThrowError::OutOfRange {
            number,
            token: token.to_string(),
        }),
    }
}

/// Points for one round: whoever alone guessed the other's choice scores the sum of both choices.
pub fn round_points(a: Throw, b: Throw) -> [i64; 2] {
    let a_right = a.guess == b.choice;
    let b_right = b.guess == a.choice;
    let sum = i64::from(a.choice) + i64::from(b.choice);
    match (a_right, b_right) {
        (true, false) => [sum, 0],
        (false, true) => [0, sum],
        _ => [0, 0],
    }
}

/// A Morra game of a fixed number of rounds.
#[derive(Debug, Clone)]
pub struct Morra {
    rounds: u32,
    /// Choices and guesses so far, as the digit strings the protocol sends.
    choices: [String; 2],
    guesses: [String; 2],
    scores: [i64; 2],
    /// The first reply of a round, kept until the other one arrives.
    pending: [Option<Throw>; 2],
}

impl Morra {
    /// A new game of `rounds` rounds.
    pub fn new(rounds: u32) -> Self {
        Morra {
            rounds,
            choices: Default::default(),
            guesses: Default::default(),
            scores: [0, 0],
            pending: [None, None],
        }
    }

    /// Rounds completed so far.
    pub fn rounds_played(&self) -> u32 {
        self.choices[0].len() as u32
    }
}

impl Rules for Morra {
    fn turn(&self) -> Turn {
        if self.rounds_played() >= self.rounds {
            Turn::Over
        } else {
            Turn::Both
        }
    }

    fn request(&self, seat: Seat) -> Vec<String> {
        let (me, them) = (seat.index(), seat.other().index());
        vec![
            self.choices[me].clone(),
            self.guesses[me].clone(),
            self.scores[me].to_string(),
            self.choices[them].clone(),
            self.guesses[them].clone(),
            self.scores[them].to_string(),
        ]
    }

    fn play(&mut self, seat: Seat, reply: &str) -> Result<(), MoveError> {
        if self.turn() == Turn::Over {
            return Err(MoveError::GameOver);
        }
        let throw = Throw::parse(reply)?;
        self.pending[seat.index()] = Some(throw);
        if let [Some(a), Some(b)] = self.pending {
            let points = round_points(a, b);
            for (i, t) in [a, b].into_iter().enumerate() {
                self.choices[i].push(char::from(b'0' + t.choice));
                self.guesses[i].push(char::from(b'0' + t.guess));
                self.scores[i] += points[i];
            }
            self.pending = [None, None];
        }
        Ok(())
    }

    fn scores(&self) -> [i64; 2] {
        self.scores
    }

    fn winner(&self) -> Option<Winner> {
        if self.turn() != Turn::Over {
            return None;
        }
        Some(match self.scores[0].cmp(&self.scores[1]) {
            std::cmp::Ordering::Greater => Winner::Seat(Seat::A),
            std::cmp::Ordering::Less => Winner::Seat(Seat::B),
            std::cmp::Ordering::Equal => Winner::Draw,
        })
    }

    fn plies(&self) -> u32 {
        self.rounds_played()
    }

    fn render(&self) -> String {
        let played = self.rounds_played() as usize;
        let mut out = format!(
            "round {} of {}   score: A {}  B {}\n",
            (played + 1).min(self.rounds as usize),
            self.rounds,
            self.scores[0],
            self.scores[1]
        );
        if played > 0 {
            let last = |s: &String| s.as_bytes()[played - 1] as char;
            out.push_str(&format!(
                "last round: A showed {} and guessed {}; B showed {} and guessed {}\n",
                last(&self.choices[0]),
                last(&self.guesses[0]),
                last(&self.choices[1]),
                last(&self.guesses[1])
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn throw(choice: u8, guess: u8) -> Throw {
        Throw { choice, guess }
    }

    fn play_round(game: &mut Morra, a: &str, b: &str) {
        game.play(Seat::A, a).unwrap();
        game.play(Seat::B, b).unwrap();
    }

    #[test]
    fn only_a_lone_right_guess_scores_the_sum() {
        assert_eq!(round_points(throw(3, 5), throw(5, 0)), [8, 0]);
        assert_eq!(round_points(throw(3, 0), throw(5, 3)), [0, 8]);
        // both right, neither right
        assert_eq!(round_points(throw(3, 5), throw(5, 3)), [0, 0]);
        assert_eq!(round_points(throw(3, 1), throw(5, 1)), [0, 0]);
        // a right guess of zero against zero is worth nothing but is still "right"
        assert_eq!(round_points(throw(0, 0), throw(0, 1)), [0, 0]);
        assert_eq!(round_points(throw(5, 5), throw(5, 1)), [10, 0]);
    }

    #[test]
    fn replies_need_two_integers_from_zero_to_five() {
        assert_eq!(Throw::parse("3 4"), Ok(throw(3, 4)));
        assert_eq!(
            Throw::parse("  0\t5 trailing words are fine\n"),
            Ok(throw(0, 5))
        );
        assert_eq!(Throw::parse("2\n3"), Ok(throw(2, 3)));
        assert_eq!(
            Throw::parse("6 0").unwrap_err().to_string(),
            "choice `6` is not an integer from 0 to 5"
        );
        assert_eq!(
            Throw::parse("1 x").unwrap_err().to_string(),
            "guess `x` is not an integer from 0 to 5"
        );
        assert_eq!(
            Throw::parse("3").unwrap_err().to_string(),
            "no guess in the reply"
        );
        assert_eq!(
            Throw::parse("").unwrap_err(),
            ThrowError::Missing(Number::Choice)
        );
        assert_eq!("2 5".parse::<Throw>().unwrap().to_string(), "2 5");
        assert!(Throw::parse("-1 2").is_err());
        assert!(Throw::parse("a b").is_err());
        assert!(Throw::parse("3.0 2").is_err());
    }

    #[test]
    fn first_round_request_is_four_empty_fields_and_two_zeros() {
        let game = Morra::new(1000);
        assert_eq!(game.request(Seat::A), ["", "", "0", "", "", "0"]);
        assert_eq!(game.turn(), Turn::Both);
    }

    #[test]
    fn histories_and_scores_build_up_per_seat() {
        let mut game = Morra::new(1000);
        play_round(&mut game, "0 4", "4 1"); // A guessed 4 right: A +4
        play_round(&mut game, "4 3", "2 3"); // neither right
        play_round(&mut game, "2 5", "3 2"); // B guessed 2 right, A wrong: B +5
        assert_eq!(
            game.request(Seat::A),
            ["042", "435", "4", "423", "132", "5"]
        );
        assert_eq!(
            game.request(Seat::B),
            ["423", "132", "5", "042", "435", "4"]
        );
        assert_eq!(game.plies(), 3);
    }

    #[test]
    fn an_illegal_reply_leaves_the_round_open() {
        let mut game = Morra::new(2);
        assert_eq!(
            game.play(Seat::A, "9 9").unwrap_err().to_string(),
            "choice `9` is not an integer from 0 to 5"
        );
        play_round(&mut game, "1 1", "1 1");
        assert_eq!(game.plies(), 1);
        assert_eq!(game.scores(), [0, 0]);
    }

    #[test]
    fn more_points_wins_and_equal_points_draw() {
        let mut game = Morra::new(2);
        play_round(&mut game, "5 5", "5 0");
        assert_eq!(game.winner(), None);
        play_round(&mut game, "0 0", "0 0");
        assert_eq!(game.turn(), Turn::Over);
        assert_eq!(game.winner(), Some(Winner::Seat(Seat::A)));
        assert_eq!(game.scores(), [10, 0]);

        let mut game = Morra::new(1);
        play_round(&mut game, "1 4", "2 3");
        assert_eq!(game.winner(), Some(Winner::Draw));
        assert_eq!(game.play(Seat::A, "1 1"), Err(MoveError::GameOver));
        assert_eq!(MoveError::GameOver.to_string(), "the game is over");
    }

    /// The request built from scratch out of every round's throws, as the protocol defines it.
    fn request_from_scratch(rounds: &[[Throw; 2]], seat: Seat) -> Vec<String> {
        let (me, them) = (seat.index(), seat.other().index());
        let digits = |i: usize, f: fn(&Throw) -> u8| -> String {
            rounds.iter().map(|r| char::from(b'0' + f(&r[i]))).collect()
        };
        let score = |i: usize| -> String {
            let points = rounds.iter().map(|r| round_points(r[0], r[1])[i]);
            points.sum::<i64>().to_string()
        };
        vec![
            digits(me, |t| t.choice),
            digits(me, |t| t.guess),
            score(me),
            digits(them, |t| t.choice),
            digits(them, |t| t.guess),
            score(them),
        ]
    }

    #[test]
    fn incremental_requests_match_requests_from_scratch() {
        let mut rng = crate::rng::Rng::new(7);
        let number = |rng: &mut crate::rng::Rng| rng.below(6) as u8;
        for _ in 0..20 {
            let mut game = Morra::new(60);
            let mut rounds = Vec::new();
            while game.turn() != Turn::Over {
                for seat in Seat::BOTH {
                    assert_eq!(game.request(seat), request_from_scratch(&rounds, seat));
                }
                let round = [0, 1].map(|_| throw(number(&mut rng), number(&mut rng)));
                // Either seat may answer first; the round completes with the second reply.
                let first = Seat::BOTH[rng.below(2)];
                for seat in [first, first.other()] {
                    game.play(seat, &round[seat.index()].to_string()).unwrap();
                }
                rounds.push(round);
            }
            assert_eq!(game.plies(), 60);
        }
    }
}
