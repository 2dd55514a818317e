//! `superseded.csv`: the games of `games.csv` that no longer count, each with why (a bot
//! revised or gone, after `arena run --update`), beside `games.csv`, which stays append-only.
//!
//! ```text
//! game_id,reason
//! 4,`det-b` was revised
//! ```
//!
//! Appended and synced as `games.csv` is, before the games that replace them are played;
//! `arena standings` leaves these games out, so the CSVs alone give the current standings.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The file's name, beside `games.csv`.
pub const FILE: &str = "superseded.csv";

/// The file of the output directory `out`.
pub fn path(out: &Path) -> PathBuf {
    out.join(FILE)
}

/// The ids of the superseded games listed in `path`; none when there is no such file.
/// Errors name the file and the line.
pub fn read(path: &Path) -> Result<HashSet<u64>> {
    if !path.exists() {
        return Ok(HashSet::new());
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    let mut ids = HashSet::new();
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, "game_id,reason")) | None => {}
        Some((_, other)) => bail!(
            "`{}` line 1: expected the header `game_id,reason`, not `{other}`",
            path.display()
        ),
    }
    for (i, line) in lines {
        let id = line.split(',').next().unwrap_or_default();
        let id = id.parse::<u64>().map_err(|_| {
            anyhow::anyhow!(
                "`{}` line {}: `{id}` is not a game id",
                path.display(),
                i + 1
            )
        })?;
        ids.insert(id);
    }
    Ok(ids)
}

/// Appends `games` (`(game_id, reason)`) to the file of `out`, creating it with its header,
/// in one synced write.
pub fn append(out: &Path, games: &[(u64, String)]) -> Result<()> {
    let path = path(out);
    let mut rows = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    if !path.exists() {
        rows.write_record(["game_id", "reason"])?;
    }
    for (id, reason) in games {
        rows.write_record([id.to_string(), reason.clone()])?;
    }
    let rows = rows.into_inner().map_err(|e| e.into_error())?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open `{}`", path.display()))?;
    file.write_all(&rows)
        .and_then(|()| file.sync_data())
        .with_context(|| format!("cannot write `{}`", path.display()))
}
