//! The standings and cross-table as CSV.

use anyhow::Result;

use super::{ExportContext, Exporter};
use crate::standings::Standings;

/// Writes `standings.csv`.
pub struct StandingsCsv;

impl Exporter for StandingsCsv {
    fn file_name(&self) -> &str {
        "standings.csv"
    }

    fn render(&self, ctx: &ExportContext<'_>) -> Result<String> {
        standings(ctx.standings)
    }
}

/// Writes `crosstable.csv`.
pub struct CrosstableCsv;

impl Exporter for CrosstableCsv {
    fn file_name(&self) -> &str {
        "crosstable.csv"
    }

    fn render(&self, ctx: &ExportContext<'_>) -> Result<String> {
        crosstable(ctx.standings)
    }
}

/// The columns of `standings.csv`.
pub const STANDINGS_HEADER: [&str; 15] = [
    "rank",
    "bot",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
    "score_for",
    "score_against",
    "timeouts",
    "illegal",
    "crashes",
    "elo",
    "elo_low",
    "elo_high",
];

/// `standings.csv`: one row per bot in rank order.
pub fn standings(s: &Standings) -> Result<String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(STANDINGS_HEADER)?;
    for r in &s.rows {
        let mut cells = super::standing_cells(r);
        // An unbounded rating leaves the three cells empty.
        match r.elo {
            Some((elo, low, high)) => cells.extend([elo, low, high].map(super::elo)),
            None => cells.extend([String::new(), String::new(), String::new()]),
        }
        w.write_record(cells)?;
    }
    finish(w)
}

/// `crosstable.csv`: the points each row bot took from each column bot (empty where they
/// never met), then the row bot's total points and its record moving first (seat A) and
/// moving second.
pub fn crosstable(s: &Standings) -> Result<String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let mut header = vec!["bot".to_string()];
    header.extend(s.rows.iter().map(|r| r.bot.clone()));
    header.extend(
        [
            "points",
            "first_wins",
            "first_draws",
            "first_losses",
            "second_wins",
            "second_draws",
            "second_losses",
        ]
        .map(String::from),
    );
    w.write_record(&header)?;
    for (row, cells) in s.rows.iter().zip(&s.cross) {
        let mut record = vec![row.bot.clone()];
        record.extend(cells.iter().map(|c| {
            if c.games == 0 {
                String::new()
            } else {
                c.points.to_string()
            }
        }));
        record.push(row.points.to_string());
        for r in [row.as_first, row.as_second] {
            record.extend([r.wins, r.draws, r.losses].map(|n| n.to_string()));
        }
        w.write_record(&record)?;
    }
    finish(w)
}

/// The written CSV as text.
pub(crate) fn finish(w: ::csv::Writer<Vec<u8>>) -> Result<String> {
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes)?)
}
