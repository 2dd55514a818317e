//! A person at the terminal as a player: sees the board, types moves, gets another try after
//! an illegal one, and may type `quit`.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader, Lines};

use super::{Failure, Player, Request};
use crate::game::{GameKind, Seat};
use crate::stdout::say;

/// A person playing through lines of text (the terminal, or a pipe in tests).
pub struct Human<R> {
    input: Lines<BufReader<R>>,
    game: GameKind,
    seat: Seat,
    /// The last reply was refused: prompt again without redrawing the board.
    retrying: bool,
    /// The person typed `quit` or closed the input.
    pub quit: bool,
}

impl<R: AsyncRead + Unpin + Send> Human<R> {
    /// A person in `seat` reading moves from `input`.
    pub fn new(input: R, game: GameKind, seat: Seat) -> Self {
        Human {
            input: BufReader::new(input).lines(),
            game,
            seat,
            retrying: false,
            quit: false,
        }
    }
}

impl<R: AsyncRead + Unpin + Send> Player for Human<R> {
    async fn ask(&mut self, request: Request<'_>) -> Result<String, Failure> {
        if !self.retrying {
            say(format_args!(
                "{}\n",
                unicode(&request.rules.render_for(self.seat), self.game)
            ));
        }
        self.retrying = false;
        say(format_args!("{}: ", prompt(self.game, request.fields)));
        let line = match self.input.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) | Err(_) => {
                say(format_args!("\n"));
                self.quit = true;
                return Err(Failure::Resigned);
            }
        };
        let line = line.trim().to_string();
        if line.eq_ignore_ascii_case("quit") {
            self.quit = true;
            return Err(Failure::Resigned);
        }
        Ok(line)
    }

    fn retries_illegal(&self) -> bool {
        true
    }

    fn rejected(&mut self, why: &str) {
        // A person gets another try, not a loss.
        say(format_args!(
            "That is not a legal move: {why}. Try again.\n"
        ));
        self.retrying = true;
    }

    async fn finish(&mut self) {}
}

pub fn side(game: GameKind, seat: Seat) -> &'static str {
    match (game, seat) {
        (GameKind::Othello | GameKind::Gomoku, Seat::A) => "● black",
        (GameKind::Othello | GameKind::Gomoku, Seat::B) => "○ white",
        (_, Seat::A) => "player A",
        (_, Seat::B) => "player B",
    }
}

pub fn hint(game: GameKind) -> &'static str {
    match game {
        GameKind::Othello => "Moves are squares like `d3` (∘ marks your legal moves).",
        GameKind::Gomoku => "Moves are points like `h8`; five in a row wins.",
        GameKind::Numeron => "Pick a secret of distinct digits, then call the bot's.",
        GameKind::Morra => "Each round, show a number 0-5 and guess the bot's: `3 5`.",
    }
}

fn prompt(game: GameKind, request: &[String]) -> String {
    match (game, request.first().map(String::as_str)) {
        (GameKind::Numeron, Some("secret")) => format!(
            "Your secret ({} distinct digits)",
            request.get(1).map_or("3", String::as_str)
        ),
        (GameKind::Numeron, _) => "Your call".to_string(),
        (GameKind::Morra, _) => "Your choice and guess".to_string(),
        _ => "Your move".to_string(),
    }
}

/// A board drawn with discs and stones instead of letters, for Othello and Gomoku: the
/// board's rows and the status line (`X 2  O 2  X to move`) change, the coordinates do not.
pub fn unicode(text: &str, game: GameKind) -> String {
    if !matches!(game, GameKind::Othello | GameKind::Gomoku) {
        return text.to_string();
    }
    text.lines()
        .map(|line| {
            // A row starts with its number (then a space, or the bracket of the last move).
            let row = line
                .trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit());
            let drawn = if row {
                // Every cell of a row (Gomoku marks the last stone as `(X)`, unspaced).
                line.chars()
                    .map(|c| match c {
                        'X' => '●',
                        'O' => '○',
                        '.' => '·',
                        '*' => '∘',
                        other => other,
                    })
                    .collect()
            } else {
                let tokens: Vec<&str> = line
                    .split(' ')
                    .map(|t| match t {
                        "X" => "●",
                        "O" => "○",
                        other => other,
                    })
                    .collect();
                tokens.join(" ")
            };
            drawn + "\n"
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_get_discs_and_coordinates_stay() {
        let board = crate::game::othello::Othello::new().render();
        let drawn = unicode(&board, GameKind::Othello);
        assert!(drawn.starts_with("  a b c d e f g h\n"), "{drawn}");
        assert!(drawn.contains("5 · · · ● ○ ∘ · · 5"), "{drawn}");
        assert!(drawn.contains("● 2  ○ 2  ● to move"), "{drawn}");
        assert_eq!(unicode("round 1 of 5\n", GameKind::Morra), "round 1 of 5\n");
        assert_eq!(unicode(" 1 O(X). 1\n", GameKind::Gomoku), " 1 ○(●)· 1\n");
        assert_eq!(unicode(" 1(X)O. 1\n", GameKind::Gomoku), " 1(●)○· 1\n");
    }

    #[test]
    fn the_last_othello_disc_is_marked_issue_13() {
        use crate::game::Rules;
        let mut game = crate::game::othello::Othello::new();
        game.play(Seat::A, "d3").unwrap();
        let drawn = unicode(&game.render(), GameKind::Othello);
        assert!(drawn.contains("3 · · ∘(●)∘ · · · 3"), "{drawn}");
        game.play(Seat::B, "c5").unwrap();
        let drawn = unicode(&game.render(), GameKind::Othello);
        assert!(drawn.contains("(○)"), "{drawn}");
        assert!(!drawn.contains("(●)"), "only the last disc: {drawn}");
    }
}
