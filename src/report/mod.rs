//! Writes the standings and the cross-table as CSV and Markdown files.

use std::path::Path;

use anyhow::{Context, Result};

use crate::standings::{Standing, Standings};

pub mod csv;
pub mod markdown;

/// The files `write_tables` writes, relative to the output directory.
pub const TABLE_FILES: [&str; 4] = [
    "standings.csv",
    "standings.md",
    "crosstable.csv",
    "crosstable.md",
];

/// A standings row's cells, in the column order of both standings files.
fn standing_cells(r: &Standing) -> Vec<String> {
    vec![
        r.rank.to_string(),
        r.bot.clone(),
        r.games.to_string(),
        r.wins.to_string(),
        r.draws.to_string(),
        r.losses.to_string(),
        r.points.to_string(),
        r.score_for.to_string(),
        r.score_against.to_string(),
        r.timeouts.to_string(),
        r.illegal.to_string(),
        r.crashes.to_string(),
    ]
}

/// Writes `standings.{csv,md}` and `crosstable.{csv,md}` into `dir`.
pub fn write_tables(dir: &Path, standings: &Standings) -> Result<()> {
    let contents = [
        csv::standings(standings)?,
        markdown::standings(standings),
        csv::crosstable(standings)?,
        markdown::crosstable(standings),
    ];
    for (name, text) in TABLE_FILES.iter().zip(contents) {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    Ok(())
}
