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
pub mod logs;
pub mod los;
pub mod markdown;
pub mod report;
pub(crate) mod table;
pub mod terminal;

/// What the reports need besides the games.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// The bot whose rating is fixed at 0 (`--anchor`); by default the average is 0.
    pub anchor: Option<String>,
    /// The HTML report's title.
    pub title: String,
    /// The HTML report's configuration table.
    pub config: Vec<(String, String)>,
    /// Where the games' replays are (`replays/` beside the reports for a run), for the
    /// report's links and viewer; empty for none.
    pub replays: Vec<html::ReplayDir>,
    /// Whether `logs/` (`<bot>.log`, and `<bot>/<game_id>.log` for each game's stderr) sits
    /// next to the reports, for links from the report and the grades, and for crashes'
    /// tracebacks.
    pub logs: bool,
    /// For a gauntlet, what to grade: then `grades.csv` and `grades.md` are written too.
    pub gauntlet: Option<Gauntlet>,
    /// Bots that could not play, with the reason (from `tournament.json`), listed in the
    /// report.
    pub left_out: Vec<(String, String)>,
    /// An SPRT match's test (`sprt.json`), shown first in the report.
    pub sprt: Option<crate::standings::sprt::Sprt>,
    /// A Swiss tournament's standings, shown before the others.
    pub swiss: Option<crate::standings::swiss::SwissTable>,
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
    /// The games' stderr files beside the reports.
    pub logs: &'a logs::GameLogs,
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
    let logs = if opts.logs {
        logs::GameLogs::beside(dir)
    } else {
        logs::GameLogs::default()
    };
    let grades = opts.gauntlet.as_ref().map(|g| {
        let mut grades = crate::standings::grades::compute(games, g);
        logs.explain(&mut grades);
        grades
    });
    let ctx = ExportContext {
        games,
        standings: &standings,
        ratings: &ratings,
        grades: grades.as_ref(),
        options: opts,
        logs: &logs,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::results::games::{GameRecord, GameResult};
    use crate::standings::grades::Rule;

    fn games() -> GameTable {
        let game = |id, a: &str, b: &str, result| GameRecord {
            game_id: id,
            ..GameRecord::for_test(GameKind::Othello, a, b, result)
        };
        GameTable::from_records(&[
            game(1, "cand", "ref", GameResult::A),
            game(2, "ref", "cand", GameResult::Draw),
            game(3, "other", "ref", GameResult::B),
            game(4, "ref", "other", GameResult::Draw),
        ])
    }

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap()
    }

    #[test]
    fn a_round_robin_writes_every_file_but_the_grades() {
        let dir = tempfile::tempdir().unwrap();
        let games = games();
        let written = write_all(dir.path(), &games, &ReportOptions::default()).unwrap();
        let expected = [
            "standings.csv",
            "standings.md",
            "crosstable.csv",
            "crosstable.md",
            "los.csv",
            "report.html",
        ];
        assert_eq!(written.files, expected);
        let mut on_disk: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        on_disk.sort();
        let mut sorted = expected.map(String::from).to_vec();
        sorted.sort();
        assert_eq!(on_disk, sorted);
        assert!(written.grades.is_none());
        let s = &written.standings;
        assert!(s.rated);
        assert_eq!(
            read(dir.path(), "standings.csv"),
            csv::standings(s).unwrap()
        );
        assert_eq!(read(dir.path(), "crosstable.md"), markdown::crosstable(s));
        let (_, ratings) = rated_standings(&games, None).unwrap();
        assert_eq!(read(dir.path(), "los.csv"), los::los_csv(&ratings).unwrap());
        assert!(read(dir.path(), "report.html").starts_with("<!DOCTYPE html>"));
    }

    #[test]
    fn a_gauntlet_also_writes_its_grades() {
        let dir = tempfile::tempdir().unwrap();
        let opts = ReportOptions {
            gauntlet: Some(Gauntlet {
                references: vec!["ref".into()],
                candidates: vec!["cand".into(), "other".into()],
                never_ran: vec![("broken".into(), "`build` failed".into())],
                rule: Rule::BeatAll,
                move_time: None,
                versions: Default::default(),
            }),
            ..ReportOptions::default()
        };
        let written = write_all(dir.path(), &games(), &opts).unwrap();
        assert_eq!(written.files[6..], ["grades.csv", "grades.md"]);
        let grades = written.grades.unwrap();
        let verdicts: Vec<_> = grades
            .rows
            .iter()
            .map(|r| (r.candidate.as_str(), r.word()))
            .collect();
        assert_eq!(
            verdicts,
            [("broken", "fail"), ("cand", "pass"), ("other", "fail")]
        );
        assert_eq!(read(dir.path(), "grades.csv"), grades::csv(&grades));
        assert_eq!(read(dir.path(), "grades.md"), grades::markdown(&grades));
    }

    #[test]
    fn an_unknown_anchor_fails_before_any_file_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let opts = ReportOptions {
            anchor: Some("zed".into()),
            ..ReportOptions::default()
        };
        let err = write_all(dir.path(), &games(), &opts).unwrap_err();
        assert_eq!(err.to_string(), "unknown anchor `zed`: it played no game");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn every_exporter_has_its_own_file_name() {
        let mut names: Vec<&str> = EXPORTERS.iter().map(|e| e.file_name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EXPORTERS.len());
    }
}
