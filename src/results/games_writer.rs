//! Appending finished games to `games.csv`, one synced write per row.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{GameRecord, HEADER, LEGACY_COLUMNS};

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
    /// How many columns the file has: a file begun before `detail` existed keeps its 13.
    columns: usize,
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
            columns: HEADER.len(),
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
        let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
        let legacy = HEADER[..LEGACY_COLUMNS].join(",");
        let columns = if first == legacy.as_bytes() {
            LEGACY_COLUMNS
        } else {
            HEADER.len()
        };
        Ok(GamesWriter {
            file,
            path: path.to_owned(),
            columns,
        })
    }

    /// Appends one game and syncs it to disk.
    pub fn append(&mut self, game: &GameRecord) -> Result<()> {
        let mut row = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        if self.columns == HEADER.len() {
            row.serialize(game)?;
        } else {
            // A file without the `detail` column: the row with an empty `detail`, whose
            // separator is then cut off.
            row.serialize(GameRecord {
                detail: String::new(),
                ..game.clone()
            })?;
        }
        let mut row = row.into_inner().map_err(|e| e.into_error())?;
        if self.columns < HEADER.len() && row.ends_with(b",\n") {
            row.truncate(row.len() - 2);
            row.push(b'\n');
        }
        // One write per row, so a crash tears at most the last line.
        self.file
            .write_all(&row)
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot write `{}`", self.path.display()))
    }
}
