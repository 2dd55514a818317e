//! Writes the standings and the cross-table as CSV and Markdown files.

use std::path::Path;

use anyhow::{Context, Result};

use crate::standings::Standings;

pub mod csv;
pub mod markdown;

/// The files `write_tables` writes, relative to the output directory.
pub const TABLE_FILES: [&str; 4] = [
    "standings.csv",
    "standings.md",
    "crosstable.csv",
    "crosstable.md",
];

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
