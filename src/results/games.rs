//! One finished game as a row of `games.csv`, and reading and appending that file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::game::GameKind;

/// The columns of `games.csv`, in order.
pub const HEADER: [&str; 13] = [
    "run",
    "round",
    "game_id",
    "game",
    "bot_a",
    "bot_b",
    "score_a",
    "score_b",
    "result",
    "reason",
    "culprit",
    "plies",
    "duration_ms",
];

/// Who won: seat A (`bot_a`, the first player), seat B, or nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    A,
    B,
    Draw,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    /// By the game's own rules.
    Normal,
    /// A bot did not answer within its time.
    Timeout,
    /// A bot answered something unparseable or against the rules.
    Illegal,
    /// A bot exited, closed its output, or could not be started.
    Crash,
}

/// Who caused a game to end other than by the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Culprit {
    #[serde(rename = "")]
    Nobody,
    #[serde(rename = "a")]
    A,
    #[serde(rename = "b")]
    B,
    #[serde(rename = "both")]
    Both,
}

/// One row of `games.csv`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The tournament run this game belongs to (its id in `tournament.json`).
    pub run: String,
    /// Which repetition of the round robin (1-based).
    pub round: u32,
    /// The game's number in the run's schedule (1-based).
    pub game_id: u64,
    pub game: GameKind,
    /// Seat 1: the bot that moves first.
    pub bot_a: String,
    pub bot_b: String,
    pub score_a: i64,
    pub score_b: i64,
    pub result: GameResult,
    pub reason: Reason,
    pub culprit: Culprit,
    pub plies: u32,
    pub duration_ms: u64,
}

#[cfg(test)]
impl GameRecord {
    /// A plain game for tests: `a` against `b` at `game` with `result`, ended by the rules,
    /// scores 0, one ply; tests change what they need with struct update syntax.
    pub(crate) fn for_test(game: GameKind, a: &str, b: &str, result: GameResult) -> GameRecord {
        GameRecord {
            run: "r".into(),
            round: 1,
            game_id: 1,
            game,
            bot_a: a.into(),
            bot_b: b.into(),
            score_a: 0,
            score_b: 0,
            result,
            reason: Reason::Normal,
            culprit: Culprit::Nobody,
            plies: 1,
            duration_ms: 1,
        }
    }
}

/// Reads one or more games CSVs, in order. Errors name the file and line.
pub fn read_games(paths: &[PathBuf]) -> Result<Vec<GameRecord>> {
    let mut games = Vec::new();
    for path in paths {
        games.extend(read_games_file(path)?);
    }
    Ok(games)
}

fn read_games_file(path: &Path) -> Result<Vec<GameRecord>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot open `{}`", path.display()))?;
    let complete = complete_lines(&bytes);
    if complete < bytes.len() {
        let line = bytes[..complete].iter().filter(|&&b| b == b'\n').count() + 1;
        eprintln!(
            "warning: `{}`: ignoring the torn last line {line} (the run was interrupted while writing it)",
            path.display()
        );
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(&bytes[..complete]);
    let header = reader
        .headers()
        .with_context(|| format!("`{}`: cannot read the header line", path.display()))?
        .clone();
    if header.iter().ne(HEADER.iter().copied()) {
        bail!(
            "`{}`: line 1: the header is not a games CSV header (expected `{}`)",
            path.display(),
            HEADER.join(",")
        );
    }
    let mut games = Vec::new();
    for row in reader.deserialize::<GameRecord>() {
        let record = row.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            let what = match e.kind() {
                csv::ErrorKind::Deserialize { err, .. } => err.to_string(),
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("{len} fields where the header has {expected_len}"),
                _ => e.to_string(),
            };
            anyhow::anyhow!("`{}`: line {line}: {what}", path.display())
        })?;
        games.push(record);
    }
    Ok(games)
}

/// The length of `bytes` up to and including its last newline: rows are written whole, each
/// ending with a newline, so anything after the last one is a row torn by a killed controller.
fn complete_lines(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// Appends finished games to `games.csv`, each one flushed to disk as it is written, so a
/// killed controller loses no finished game.
pub struct GamesWriter {
    file: File,
    path: PathBuf,
}

impl GamesWriter {
    /// Creates `path` with the header line.
    pub fn create(path: &Path) -> Result<Self> {
        let mut file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot create `{}`", path.display()))?;
        writeln!(file, "{}", HEADER.join(","))
            .with_context(|| format!("cannot write `{}`", path.display()))?;
        Ok(GamesWriter {
            file,
            path: path.to_owned(),
        })
    }

    /// Opens an existing `games.csv` to add more games, cutting off a torn last line.
    pub fn reopen(path: &Path) -> Result<Self> {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open `{}`", path.display()))?;
        let complete = complete_lines(&bytes);
        if complete < bytes.len() {
            file.set_len(complete as u64)
                .and_then(|()| file.sync_data())
                .with_context(|| format!("cannot cut the torn line of `{}`", path.display()))?;
        }
        Ok(GamesWriter {
            file,
            path: path.to_owned(),
        })
    }

    /// Appends one game and syncs it to disk.
    pub fn append(&mut self, game: &GameRecord) -> Result<()> {
        let mut row = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        row.serialize(game)?;
        let row = row.into_inner().map_err(|e| e.into_error())?;
        // One write per row, so a crash tears at most the last line.
        self.file
            .write_all(&row)
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot write `{}`", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameRecord {
        GameRecord {
            run: "r1".into(),
            round: 1,
            game_id: 3,
            game: GameKind::Morra,
            bot_a: "Quinn, and Valor".into(),
            bot_b: "Historian".into(),
            score_a: 170,
            score_b: 158,
            result: GameResult::A,
            reason: Reason::Timeout,
            culprit: Culprit::B,
            plies: 12,
            duration_ms: 40,
        }
    }

    #[test]
    fn rows_round_trip_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let mut writer = GamesWriter::create(&path).unwrap();
        let mut second = sample();
        second.culprit = Culprit::Nobody;
        second.reason = Reason::Normal;
        writer.append(&sample()).unwrap();
        writer.append(&second).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().nth(1).unwrap(),
            "r1,1,3,morra,\"Quinn, and Valor\",Historian,170,158,a,timeout,b,12,40"
        );
        assert_eq!(text.lines().nth(2).unwrap().split(',').nth(11), Some(""));
        assert_eq!(read_games(&[path]).unwrap(), vec![sample(), second]);
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_cut_before_appending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let mut writer = GamesWriter::create(&path).unwrap();
        writer.append(&sample()).unwrap();
        drop(writer);
        // A controller killed in the middle of a row.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("r1,1,4,morra,x,y,1");
        std::fs::write(&path, &text).unwrap();
        assert_eq!(
            read_games(std::slice::from_ref(&path)).unwrap(),
            vec![sample()]
        );

        let mut writer = GamesWriter::reopen(&path).unwrap();
        let mut next = sample();
        next.game_id = 4;
        writer.append(&next).unwrap();
        assert_eq!(read_games(&[path]).unwrap(), vec![sample(), next]);
    }

    #[test]
    fn a_bad_row_names_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        std::fs::write(
            &path,
            format!(
                "{}\nr,1,1,morra,x,y,1,2,a,normal,,5,9\nr,1,2,morra,x,y,1,2,maybe,normal,,5,9\n",
                HEADER.join(",")
            ),
        )
        .unwrap();
        let err = read_games(std::slice::from_ref(&path))
            .unwrap_err()
            .to_string();
        assert!(err.contains("games.csv`: line 3"), "{err}");
        assert!(err.contains("maybe"), "{err}");

        std::fs::write(&path, "a,b,c\n").unwrap();
        let err = read_games(&[path]).unwrap_err().to_string();
        assert!(err.contains("line 1: the header"), "{err}");
    }
}
