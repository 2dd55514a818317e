//! Every file written from the games (standings, cross-table, LOS, report, grades), registered
//! in one list of exporters that [`write_all`] walks.

use std::path::Path;

use anyhow::{Context, Result};

use crate::results::games::GameTable;
use crate::standings::grades::{Gauntlet, Grades};
use crate::standings::ratings::Ratings;
use crate::standings::{Standing, Standings};

pub mod csv;
pub mod grades;
pub mod html;
pub mod los;
pub mod markdown;
pub mod report;
pub(crate) mod table;

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
    /// For a gauntlet, what to grade: then `grades.csv` and `grades.md` are written too.
    pub gauntlet: Option<Gauntlet>,
}

/// Everything an exporter renders from: the games and what is computed from them once.
pub struct ExportContext<'a> {
    pub games: &'a GameTable,
    /// The standings, rated.
    pub standings: &'a Standings,
    pub ratings: &'a Ratings,
    /// The grades, for a gauntlet.
    pub grades: Option<&'a Grades>,
    pub options: &'a ReportOptions,
}

/// One output file: its name in the output directory and how to render it.
pub trait Exporter: Sync {
    /// The file's name, relative to the output directory.
    fn file_name(&self) -> &str;

    /// Whether this output has the file at all (the grades exist only for a gauntlet).
    fn applies(&self, _ctx: &ExportContext<'_>) -> bool {
        true
    }

    /// The file's contents; the same context always gives the same bytes.
    fn render(&self, ctx: &ExportContext<'_>) -> Result<String>;
}

/// Every file [`write_all`] can write, in the order it writes them.
pub static EXPORTERS: &[&dyn Exporter] = &[
    &csv::StandingsCsv,
    &markdown::StandingsMarkdown,
    &csv::CrosstableCsv,
    &markdown::CrosstableMarkdown,
    &los::LosCsv,
    &report::HtmlReportFile,
    &grades::GradesCsv,
    &grades::GradesMarkdown,
];

/// The standings of `games` with their ratings, anchored at `anchor` (or the average).
pub fn rated_standings(games: &GameTable, anchor: Option<&str>) -> Result<(Standings, Ratings)> {
    let mut standings = crate::standings::tabulate(games);
    let options = crate::standings::ratings::RatingOptions {
        anchor: anchor.map(str::to_string),
    };
    let ratings = crate::standings::ratings::fit(games, &options)?;
    crate::standings::rate(&mut standings, &ratings);
    Ok((standings, ratings))
}

/// What [`write_all`] computed, for printing.
#[derive(Debug, Clone)]
pub struct Written {
    /// The rated standings.
    pub standings: Standings,
    /// The grades, for a gauntlet.
    pub grades: Option<Grades>,
    /// The files written, relative to the output directory, in order.
    pub files: Vec<String>,
}

/// Computes standings, ratings and (for a gauntlet) grades of `games`, and writes every file
/// of [`EXPORTERS`] that applies into `dir`. The same games and options always give the
/// same bytes.
pub fn write_all(dir: &Path, games: &GameTable, opts: &ReportOptions) -> Result<Written> {
    let (standings, ratings) = rated_standings(games, opts.anchor.as_deref())?;
    let grades = opts
        .gauntlet
        .as_ref()
        .map(|g| crate::standings::grades::compute(games, g));
    let ctx = ExportContext {
        games,
        standings: &standings,
        ratings: &ratings,
        grades: grades.as_ref(),
        options: opts,
    };
    let mut files = Vec::new();
    for exporter in EXPORTERS.iter().filter(|e| e.applies(&ctx)) {
        let path = dir.join(exporter.file_name());
        let text = exporter
            .render(&ctx)
            .with_context(|| format!("cannot render `{}`", path.display()))?;
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
        files.push(exporter.file_name().to_string());
    }
    Ok(Written {
        standings,
        grades,
        files,
    })
}

/// The HTML report's title and configuration from a `tournament.json`: its scalar settings,
/// and the number of bots.
pub fn describe_tournament(path: &Path) -> Option<(String, Vec<(String, String)>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let info: serde_json::Value = serde_json::from_str(&text).ok()?;
    let object = info.as_object()?;
    let mut config = Vec::new();
    for (key, value) in object {
        let shown = match value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            serde_json::Value::Array(items) if key == "bots" || key == "excluded" => {
                items.len().to_string()
            }
            serde_json::Value::Object(map) => map
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", "),
            _ => continue,
        };
        config.push((key.replace('_', " "), shown));
    }
    let title = format!(
        "{} — {}",
        info["game"].as_str().unwrap_or("tournament"),
        info["run"].as_str().unwrap_or("")
    );
    Some((title, config))
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
