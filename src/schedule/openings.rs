//! Opening books (`--openings FILE`): reading and checking a file of openings, one a line,
//! and choosing the line a colour-swapped pair of games starts from.
//!
//! An opening is a list of moves in the game's own notation, as random `--opening-plies` are:
//! the runner plays either kind the same way.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};

use crate::game::{GameConfig, GameKind, Seat, Turn};
use crate::rng::{derive_seed, Rng};

/// The order a book's lines are taken in (`--openings-order`).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum OpeningsOrder {
    /// The file's order.
    #[default]
    Sequential,
    /// The file's lines shuffled once with the tournament seed.
    Random,
}

/// The options of a book: `--openings`, `--openings-order`.
#[derive(Debug, Clone, Default, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct BookOptions {
    /// Start games from this file's openings, one a line in the game's notation (`f5 d6 c3`,
    /// `f5d6c3`, `h8 i9 j10`; `#` comments): a pairing plays each with both colours, its
    /// pairs cycling through the file (othello, gomoku).
    #[arg(long, value_name = "FILE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<PathBuf>,

    /// The order the openings are taken in: the file's, or shuffled with the seed.
    #[arg(long, value_enum, default_value = "sequential")]
    #[serde(default)]
    pub openings_order: OpeningsOrder,

    /// The openings file's SHA-256, recorded when the run starts: `resume` refuses a file
    /// that changed.
    #[arg(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings_sha256: Option<String>,
}

impl BookOptions {
    /// Makes the file's path absolute and records its checksum, for `tournament.json`.
    pub fn record(&mut self) -> Result<()> {
        if let Some(path) = &self.openings {
            let path = std::path::absolute(path)?;
            self.openings_sha256 = Some(checksum(&path)?);
            self.openings = Some(path);
        }
        Ok(())
    }

    /// The book (`None` without `--openings`), checked line by line and refused if the file
    /// changed since its checksum was recorded (a resumed run plays the openings it started
    /// with).
    pub fn load(&self, game: GameKind, config: &GameConfig, seed: u64) -> Result<Option<Book>> {
        let Some(path) = &self.openings else {
            return Ok(None);
        };
        if let Some(recorded) = &self.openings_sha256 {
            if &checksum(path)? != recorded {
                bail!(
                    "the openings file `{}` changed since the tournament started: the tournament cannot be resumed",
                    path.display()
                );
            }
        }
        Book::load(path, game, config, self.openings_order, seed).map(Some)
    }
}

/// Mixed into the tournament seed to shuffle a book, so the order is independent of games.
const BOOK_SALT: u64 = 0x626f_6f6b_6f72_6472;

/// A checked book of openings.
#[derive(Debug, Clone)]
pub struct Book {
    /// Each opening's moves, with who plays each, in the order they are taken.
    lines: Vec<Vec<(Seat, String)>>,
}

impl Book {
    /// Reads `path`, checks every line is legal from the start position of `game`, and orders
    /// the lines as `order` says (shuffled with `seed` for `random`). A bad line is refused
    /// as `path:line: why`.
    pub fn load(
        path: &Path,
        game: GameKind,
        config: &GameConfig,
        order: OpeningsOrder,
        seed: u64,
    ) -> Result<Book> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the openings file `{}`", path.display()))?;
        let mut lines = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let opening = parse_line(line, game, config)
                .map_err(|why| anyhow::anyhow!("{}:{}: {why}", path.display(), number + 1))?;
            lines.push(opening);
        }
        if lines.is_empty() {
            bail!("the openings file `{}` has no opening", path.display());
        }
        if order == OpeningsOrder::Random {
            let mut rng = Rng::new(derive_seed(seed, BOOK_SALT));
            for i in (1..lines.len()).rev() {
                lines.swap(i, rng.below(i + 1));
            }
        }
        Ok(Book { lines })
    }

    /// How many openings the book has.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the book has no opening (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The opening of a pairing's `pair`-th colour-swapped pair of games (see
    /// [`Pairing::pair`](super::Pairing::pair)): the pairs of every pairing cycle through the
    /// book, so every pairing plays the same openings.
    pub fn line(&self, pair: u32) -> &[(Seat, String)] {
        &self.lines[pair as usize % self.lines.len()]
    }
}

/// The SHA-256 of the openings file, recorded in `tournament.json`.
pub fn checksum(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read the openings file `{}`", path.display()))?;
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

/// One line's moves, each played on a fresh game to check it; why the line is refused.
fn parse_line(
    line: &str,
    game: GameKind,
    config: &GameConfig,
) -> Result<Vec<(Seat, String)>, String> {
    if !game.has_openings() {
        return Err(format!("`{}` has no openings", game.name()));
    }
    let mut moves = Vec::new();
    for word in line.split_whitespace() {
        let word = word.to_ascii_lowercase();
        // The published XOT lists write Othello lines without spaces (`f5d6c3`): every
        // Othello square is two characters.
        if game == GameKind::Othello && word.len() > 2 && word.is_ascii() {
            let bytes = word.as_bytes();
            moves.extend(
                bytes
                    .chunks(2)
                    .map(|c| String::from_utf8_lossy(c).into_owned()),
            );
        } else {
            moves.push(word);
        }
    }
    let mut rules = game.new_game(config);
    let mut opening = Vec::new();
    for (i, mv) in moves.into_iter().enumerate() {
        let Turn::One(seat) = rules.turn() else {
            return Err(format!("the game is over before move {} `{mv}`", i + 1));
        };
        if let Err(e) = rules.play(seat, &mv) {
            return Err(format!("move {} `{mv}` is illegal: {e}", i + 1));
        }
        opening.push((seat, mv));
    }
    if rules.turn() == Turn::Over {
        return Err("the opening ends the game".to_string());
    }
    Ok(opening)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(text: &str, game: GameKind, order: OpeningsOrder) -> Result<Book> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.txt");
        std::fs::write(&path, text).unwrap();
        Book::load(&path, game, &GameConfig::default(), order, 7)
    }

    #[test]
    fn lines_with_and_without_spaces_comments_and_blanks() {
        let text = "# XOT-style\n\nf5 d6 c3\nf5d6C3d3 # trailing comment\n  \n";
        let b = book(text, GameKind::Othello, OpeningsOrder::Sequential).unwrap();
        assert_eq!(b.len(), 2);
        let moves: Vec<&str> = b.line(1).iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(moves, ["f5", "d6", "c3", "d3"]);
        assert_eq!(b.line(0)[1].0, Seat::B);
        assert_eq!(b.line(2), b.line(0), "pairs cycle through the book");
        let g = book("h8 i9 j10\n", GameKind::Gomoku, OpeningsOrder::Sequential).unwrap();
        assert_eq!(g.line(0).len(), 3);
    }

    #[test]
    fn a_bad_line_is_refused_with_its_file_and_line_number() {
        let e = book(
            "f5 d6\n# fine\nf5 a1\n",
            GameKind::Othello,
            OpeningsOrder::Random,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("book.txt:3: move 2 `a1` is illegal"), "{e}");
        let e = book("# nothing\n", GameKind::Gomoku, OpeningsOrder::Sequential).unwrap_err();
        assert!(e.to_string().contains("has no opening"), "{e}");
    }

    #[test]
    fn random_order_is_a_seeded_shuffle() {
        let text: String = ["f5", "d3", "c4", "e6"].map(|m| format!("{m}\n")).concat();
        let a = book(&text, GameKind::Othello, OpeningsOrder::Random).unwrap();
        let b = book(&text, GameKind::Othello, OpeningsOrder::Random).unwrap();
        assert_eq!(a.lines, b.lines);
        let mut firsts: Vec<&str> = (0..4).map(|i| a.line(i)[0].1.as_str()).collect();
        firsts.sort();
        assert_eq!(firsts, ["c4", "d3", "e6", "f5"]);
    }
}
