//! Writes the standings and the cross-table as CSV and Markdown files.

use std::path::Path;

use anyhow::{Context, Result};

use crate::results::games::{Culprit, GameRecord};
use crate::standings::{Standing, Standings};

pub mod csv;
pub mod html;
pub mod markdown;

/// The files [`write_all`] writes, relative to the output directory.
pub const FILES: [&str; 6] = [
    "standings.csv",
    "standings.md",
    "crosstable.csv",
    "crosstable.md",
    "los.csv",
    "report.html",
];

/// What the reports need besides the games.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// The bot whose rating is fixed at 0 (`--anchor`); by default the average is 0.
    pub anchor: Option<String>,
    /// The HTML report's title.
    pub title: String,
    /// The HTML report's configuration table.
    pub config: Vec<(String, String)>,
    /// Whether `replays/<game_id>.jsonl` sit next to the reports, for links.
    pub replays: bool,
}

/// The standings of `games` with their ratings, anchored at `anchor` (or the average).
pub fn rated_standings(
    games: &[GameRecord],
    anchor: Option<&str>,
) -> Result<(Standings, crate::standings::ratings::Ratings)> {
    let mut standings = crate::standings::compute(games);
    let options = crate::standings::ratings::RatingOptions {
        anchor: anchor.map(str::to_string),
    };
    let ratings =
        crate::standings::ratings::fit(games, &options).map_err(|e| anyhow::anyhow!(e))?;
    crate::standings::rate(&mut standings, &ratings);
    Ok((standings, ratings))
}

/// Computes standings and ratings of `games` and writes every table, `los.csv` and
/// `report.html` into `dir`. The same games and options always give the same bytes.
pub fn write_all(dir: &Path, games: &[GameRecord], opts: &ReportOptions) -> Result<Standings> {
    let (standings, ratings) = rated_standings(games, opts.anchor.as_deref())?;
    let mut failures = Vec::new();
    for g in games {
        let culprits = match g.culprit {
            Culprit::Nobody => vec![],
            Culprit::A => vec![&g.bot_a],
            Culprit::B => vec![&g.bot_b],
            Culprit::Both => vec![&g.bot_a, &g.bot_b],
        };
        failures.extend(culprits.into_iter().map(|bot| html::Failure {
            bot: bot.clone(),
            game_id: g.game_id,
            reason: g.reason,
        }));
    }
    let report = html::HtmlReport {
        title: opts.title.clone(),
        config: opts.config.clone(),
        standings: &standings,
        ratings: Some(standings.rows.iter().map(|r| r.elo).collect()),
        first_move_elo: standings.first_move.map(|f| f.0),
        failures,
        replays: opts.replays,
    };
    let contents = [
        csv::standings(&standings)?,
        markdown::standings(&standings),
        csv::crosstable(&standings)?,
        markdown::crosstable(&standings),
        crate::standings::ratings::los_csv(&ratings),
        html::render(&report),
    ];
    for (name, text) in FILES.iter().zip(contents) {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    Ok(standings)
}

/// A standings row's cells, in the column order of both standings files (without ratings).
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

/// An Elo figure with one decimal; never `-0.0`.
fn elo(x: f64) -> String {
    let text = format!("{x:.1}");
    if text == "-0.0" {
        "0.0".to_string()
    } else {
        text
    }
}
