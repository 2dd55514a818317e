//! Reading games CSVs: rows parsed straight from the reader's buffer, each checked for
//! agreement between its fields, no game twice; every error names the file and the line.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::{Culprit, GameKind, GameRecord, GameResult, GameTable, Reason, HEADER, LEGACY_COLUMNS};

/// Reads one or more games CSVs, in order, as owned records. Errors name the file and line.
pub fn read_games(paths: &[PathBuf]) -> Result<Vec<GameRecord>> {
    let mut games = Vec::new();
    let mut seen = Seen::default();
    for path in paths {
        read_rows(path, &mut seen, |row| games.push(row.to_record()))?;
    }
    Ok(games)
}

/// Reads one or more games CSVs, in order, into a [`GameTable`]: each bot name is stored
/// once, and a row costs no allocation. Errors name the file and line.
pub fn read_table(paths: &[PathBuf]) -> Result<GameTable> {
    let mut table = GameTable::default();
    let mut seen = Seen::default();
    for path in paths {
        read_rows(path, &mut seen, |row| table.push_row(&row))?;
    }
    Ok(table)
}

/// Reads games CSVs as [`read_table`] does, leaving out the games whose id is in `skip` (the
/// superseded ones).
pub fn read_table_except(
    paths: &[PathBuf],
    skip: &std::collections::HashSet<u64>,
) -> Result<GameTable> {
    let mut table = GameTable::default();
    let mut seen = Seen::default();
    for path in paths {
        read_rows(path, &mut seen, |row| {
            if !skip.contains(&row.game_id) {
                table.push_row(&row)
            }
        })?;
    }
    Ok(table)
}

/// One row of `games.csv`, its text fields borrowed from the reader's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Row<'a> {
    pub(super) run: &'a str,
    pub(super) round: u32,
    pub(super) game_id: u64,
    pub(super) game: GameKind,
    pub(super) bot_a: &'a str,
    pub(super) bot_b: &'a str,
    pub(super) score_a: i64,
    pub(super) score_b: i64,
    pub(super) result: GameResult,
    pub(super) reason: Reason,
    pub(super) culprit: Culprit,
    pub(super) plies: u32,
    pub(super) duration_ms: u64,
    pub(super) detail: &'a str,
}

impl Row<'_> {
    fn to_record(self) -> GameRecord {
        GameRecord {
            run: self.run.to_string(),
            round: self.round,
            game_id: self.game_id,
            game: self.game,
            bot_a: self.bot_a.to_string(),
            bot_b: self.bot_b.to_string(),
            score_a: self.score_a,
            score_b: self.score_b,
            result: self.result,
            reason: self.reason,
            culprit: self.culprit,
            plies: self.plies,
            duration_ms: self.duration_ms,
            detail: self.detail.to_string(),
        }
    }
}

impl Row<'_> {
    /// Checks that the row's fields agree: a game ended by the rules has no culprit, a
    /// forfeit is lost by its culprit, and where the score decides (Morra points, Othello
    /// discs) the winner has the higher score.
    fn check(&self) -> std::result::Result<(), String> {
        let expected = match (self.reason, self.culprit) {
            (Reason::Normal, Culprit::Nobody) => None,
            (Reason::Normal, _) => return Err("a game ended by the rules has a culprit".into()),
            (_, Culprit::Nobody) => {
                return Err(format!("a `{}` game has no culprit", self.reason.as_str()))
            }
            (_, Culprit::A) => Some(GameResult::B),
            (_, Culprit::B) => Some(GameResult::A),
            (_, Culprit::Both) => Some(GameResult::Draw),
        };
        let expected = expected.or(match self.game {
            GameKind::Morra | GameKind::Othello => Some(match self.score_a.cmp(&self.score_b) {
                std::cmp::Ordering::Greater => GameResult::A,
                std::cmp::Ordering::Less => GameResult::B,
                std::cmp::Ordering::Equal => GameResult::Draw,
            }),
            GameKind::Numeron | GameKind::Gomoku => None,
        });
        match expected {
            Some(result) if result != self.result => Err(format!(
                "the result does not agree with the scores and the culprit (scores {}-{}, culprit `{}`, result `{}`)",
                self.score_a,
                self.score_b,
                self.culprit.as_str(),
                self.result.as_str(),
            )),
            _ => Ok(()),
        }
    }
}

/// The games read so far, by run and game id, to find a game that appears twice. Game ids are
/// small and dense (1, 2, ...): a bit per id, and a set for ids beyond that.
#[derive(Debug, Default)]
struct Seen {
    runs: Vec<(String, Vec<u64>, std::collections::HashSet<u64>)>,
}

impl Seen {
    /// Bits kept per run before ids go into the set: 2^26 games, 8 MiB.
    const DENSE: u64 = 1 << 26;

    /// Records game `id` of `run`; `false` if it was already there.
    fn insert(&mut self, run: &str, id: u64) -> bool {
        let at = match self.runs.iter().position(|(r, _, _)| r == run) {
            Some(at) => at,
            None => {
                self.runs
                    .push((run.to_string(), Vec::new(), Default::default()));
                self.runs.len() - 1
            }
        };
        let (_, bits, sparse) = &mut self.runs[at];
        if id >= Self::DENSE {
            return sparse.insert(id);
        }
        let (word, bit) = ((id / 64) as usize, 1u64 << (id % 64));
        if bits.len() <= word {
            bits.resize(word + 1, 0);
        }
        let new = bits[word] & bit == 0;
        bits[word] |= bit;
        new
    }
}

/// A column of `games.csv` with a fixed set of values, each written as one text.
trait Named: Copy + 'static {
    fn all() -> &'static [Self];
    fn name(self) -> &'static str;
}

impl Named for GameKind {
    fn all() -> &'static [Self] {
        <GameKind as clap::ValueEnum>::value_variants()
    }
    fn name(self) -> &'static str {
        GameKind::name(self)
    }
}

impl Named for GameResult {
    fn all() -> &'static [Self] {
        &GameResult::ALL
    }
    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl Named for Reason {
    fn all() -> &'static [Self] {
        &Reason::ALL
    }
    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl Named for Culprit {
    fn all() -> &'static [Self] {
        &Culprit::ALL
    }
    fn name(self) -> &'static str {
        self.as_str()
    }
}

/// Parses the fields of one record (already checked to have [`HEADER`]'s length, or
/// [`LEGACY_COLUMNS`] for a file without `detail`); the error names the column and the value.
fn parse_row(record: &csv::ByteRecord) -> std::result::Result<Row<'_>, String> {
    let field = |i: usize| -> std::result::Result<&str, String> {
        std::str::from_utf8(&record[i])
            .map_err(|_| format!("column `{}` is not valid UTF-8", HEADER[i]))
    };
    fn number<T: std::str::FromStr>(text: &str, i: usize) -> std::result::Result<T, String> {
        text.parse()
            .map_err(|_| format!("column `{}`: `{text}` is not a valid number", HEADER[i]))
    }
    fn choice<T: Named>(text: &str, i: usize) -> std::result::Result<T, String> {
        match T::all().iter().find(|v| v.name() == text) {
            Some(&value) => Ok(value),
            None => {
                let names: Vec<String> = (T::all().iter())
                    .map(|v| format!("`{}`", v.name()))
                    .collect();
                Err(format!(
                    "column `{}`: unknown value `{text}` (expected one of {})",
                    HEADER[i],
                    names.join(", ")
                ))
            }
        }
    }
    Ok(Row {
        run: field(0)?,
        round: number(field(1)?, 1)?,
        game_id: number(field(2)?, 2)?,
        game: choice(field(3)?, 3)?,
        bot_a: field(4)?,
        bot_b: field(5)?,
        score_a: number(field(6)?, 6)?,
        score_b: number(field(7)?, 7)?,
        result: choice(field(8)?, 8)?,
        reason: choice(field(9)?, 9)?,
        culprit: choice(field(10)?, 10)?,
        plies: number(field(11)?, 11)?,
        duration_ms: number(field(12)?, 12)?,
        detail: if record.len() > LEGACY_COLUMNS {
            field(LEGACY_COLUMNS)?
        } else {
            ""
        },
    })
}

/// Streams the rows of one games CSV to `each`, reusing one record buffer; a torn last line
/// is ignored with a warning.
fn read_rows(path: &Path, seen: &mut Seen, mut each: impl FnMut(Row<'_>)) -> Result<()> {
    let mut file = File::open(path).with_context(|| format!("cannot open `{}`", path.display()))?;
    let complete =
        complete_length(&mut file).with_context(|| format!("cannot read `{}`", path.display()))?;
    let torn = file
        .metadata()
        .with_context(|| format!("cannot read `{}`", path.display()))?
        .len()
        > complete;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .buffer_capacity(1 << 16)
        .from_reader(std::io::Read::take(file, complete));
    let header = reader
        .byte_headers()
        .with_context(|| format!("`{}`: cannot read the header line", path.display()))?;
    let legacy = HEADER[..LEGACY_COLUMNS].iter().map(|h| h.as_bytes());
    if header.iter().ne(HEADER.iter().map(|h| h.as_bytes())) && header.iter().ne(legacy) {
        bail!(
            "`{}`: line 1: the header is not a games CSV header (expected `{}`)",
            path.display(),
            HEADER.join(",")
        );
    }
    let mut record = csv::ByteRecord::new();
    loop {
        let more = reader.read_byte_record(&mut record).map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            let what = match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("{len} fields where the header has {expected_len}"),
                _ => e.to_string(),
            };
            anyhow::anyhow!("`{}`: line {line}: {what}", path.display())
        })?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line());
        let row = parse_row(&record)
            .and_then(|row| row.check().map(|()| row))
            .map_err(|what| anyhow::anyhow!("`{}`: line {line}: {what}", path.display()))?;
        if !seen.insert(row.run, row.game_id) {
            bail!(
                "`{}`: line {line}: game {} of run `{}` appears twice (a CSV given twice, or a copied row?)",
                path.display(),
                row.game_id,
                row.run
            );
        }
        each(row);
    }
    if torn {
        eprintln!(
            "warning: `{}`: ignoring the torn last line {} (the run was interrupted while writing it)",
            path.display(),
            reader.position().line()
        );
    }
    Ok(())
}

/// The length of the file up to and including its last newline, read from its end.
pub(crate) fn complete_length(file: &mut File) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut end = file.metadata()?.len();
    let mut chunk = vec![0u8; 1 << 16];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let piece = &mut chunk[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(piece)?;
        if let Some(i) = piece.iter().rposition(|&b| b == b'\n') {
            file.seek(SeekFrom::Start(0))?;
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    file.seek(SeekFrom::Start(0))?;
    Ok(0)
}
