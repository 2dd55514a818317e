//! `grades.csv` and `grades.md`: a gauntlet's grades as written files (see
//! [`crate::standings::grades`] for the columns and the rules).

use anyhow::Result;

use super::table::{escape, table, Align};
use super::{ExportContext, Exporter};
use crate::standings::grades::{percent, Grade, Grades, Verdict};
use crate::standings::{Record, WIN_POINTS};

/// Writes `grades.csv` for a gauntlet.
pub struct GradesCsv;

impl Exporter for GradesCsv {
    fn file_name(&self) -> &str {
        "grades.csv"
    }

    fn applies(&self, ctx: &ExportContext<'_>) -> bool {
        ctx.grades.is_some()
    }

    fn render(&self, ctx: &ExportContext<'_>) -> Result<String> {
        Ok(ctx.grades.map(csv).unwrap_or_default())
    }
}

/// Writes `grades.md` for a gauntlet.
pub struct GradesMarkdown;

impl Exporter for GradesMarkdown {
    fn file_name(&self) -> &str {
        "grades.md"
    }

    fn applies(&self, ctx: &ExportContext<'_>) -> bool {
        ctx.grades.is_some()
    }

    fn render(&self, ctx: &ExportContext<'_>) -> Result<String> {
        let links = Links {
            // The grades link `replays/<id>.jsonl`: only a run's own replays, beside them.
            replays: ctx
                .options
                .replays
                .iter()
                .any(|d| d.href == "replays" && d.games.start == 0),
            logs: ctx.options.logs,
        };
        Ok(ctx
            .grades
            .map(|g| markdown_linked(g, links))
            .unwrap_or_default())
    }
}

pub(super) fn wdl(r: &Record) -> String {
    format!("{}-{}-{}", r.wins, r.draws, r.losses)
}

/// `grades.csv`: one row per candidate (see the module documentation for the columns).
pub fn csv(g: &Grades) -> String {
    let mut header = vec![
        "candidate".to_string(),
        "grade".to_string(),
        "games".to_string(),
        "points".to_string(),
        "available".to_string(),
        "percent".to_string(),
    ];
    for r in &g.references {
        header.extend(["points", "first", "second"].map(|c| format!("{r}:{c}")));
    }
    header.push("reason".to_string());
    header.push("faults".to_string());
    // Which version was graded, when `tournament.json` tells (after the older columns).
    let versions = !g.versions.is_empty();
    if versions {
        header.extend(["version".to_string(), "version_since".to_string()]);
    }
    // Writing into memory cannot fail, so neither can these.
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(&header).expect("writing to memory");
    for row in &g.rows {
        let mut cells = vec![row.candidate.clone(), row.word().to_string()];
        if matches!(row.verdict, Verdict::NeverRan(_)) {
            // Blank up to `reason` and `faults` (and the version columns, filled below).
            let blank = header.len() - 4 - if versions { 2 } else { 0 };
            cells.extend(std::iter::repeat_n(String::new(), blank));
        } else {
            let (games, points, available) = (row.games(), row.points(), row.available());
            cells.push(games.to_string());
            cells.push(points.to_string());
            cells.push(available.to_string());
            cells.push(if games == 0 {
                String::new()
            } else {
                percent(points, available)
            });
            for v in &row.versus {
                cells.push(v.points().to_string());
                cells.push(wdl(&v.as_first));
                cells.push(wdl(&v.as_second));
            }
        }
        cells.push(row.reason());
        let faults: Vec<String> = row
            .faults
            .iter()
            .map(|f| format!("game {} against {}: {}", f.game_id, f.opponent, f.words))
            .collect();
        cells.push(faults.join("; "));
        if versions {
            let v = g.versions.get(&row.candidate);
            cells.extend(v.cloned().unwrap_or_default());
        }
        w.write_record(&cells).expect("writing to memory");
    }
    let bytes = w.into_inner().expect("writing to memory");
    String::from_utf8(bytes).expect("the cells are strings")
}

/// Which files beside `grades.md` its `faults` column links to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Links {
    /// `replays/<game_id>.jsonl`, for each forfeited game.
    pub replays: bool,
    /// `logs/<bot>.log`, for each candidate with a forfeit.
    pub logs: bool,
}

/// `grades.md` without links (as printed after a run).
pub fn markdown(g: &Grades) -> String {
    markdown_linked(g, Links::default())
}

/// The file name of a bot's log in `logs/`, as the tournament names it.
fn log_file(bot: &str) -> String {
    format!("{}.log", crate::bot::workspace::safe_file_name(bot))
}

/// The `faults` cell of a candidate in `grades.md`: each forfeited game with its id (a link
/// to its replay), opponent and what happened (a crash's error, from the game's stderr, where
/// known) and a link to the game's stderr where it has some, then a link to the bot's log.
fn faults_cell(row: &Grade, links: Links) -> String {
    let mut parts: Vec<String> = row
        .faults
        .iter()
        .map(|f| {
            let game = if links.replays {
                format!("[game {0}](replays/{0}.jsonl)", f.game_id)
            } else {
                format!("game {}", f.game_id)
            };
            let stderr = match (&f.log, links.logs) {
                (Some(log), true) => format!(", [stderr]({log})"),
                _ => String::new(),
            };
            escape(&format!(
                "{game} against {}: {}{stderr}",
                f.opponent,
                f.explained()
            ))
        })
        .collect();
    if links.logs && !parts.is_empty() {
        parts.push(format!("[log](logs/{})", log_file(&row.candidate)));
    }
    parts.join("; ")
}

/// `grades.md`: the rule, then a table of the candidates: grade, total points, and against
/// each reference the points taken of those available and the record moving first and
/// moving second (just the record for games without a first player, such as Morra), why it
/// failed, and the games it forfeited (see [`faults_cell`]).
pub fn markdown_linked(g: &Grades, links: Links) -> String {
    let split = g.game.is_none_or(|k| k.has_first_player());
    let mut out = format!("Rule `{}`: {}.\n\n", g.rule, g.rule.describe());
    out.push_str(if split {
        "Against each reference: points taken of those available (wins-draws-losses moving \
         first / moving second).\n\n"
    } else {
        "Against each reference: points taken of those available (wins-draws-losses).\n\n"
    });
    let mut header = vec![
        "candidate".to_string(),
        "grade".to_string(),
        "points".to_string(),
    ];
    header.extend(g.references.iter().map(|r| escape(r)));
    header.push("reason".to_string());
    header.push("faults".to_string());
    let mut right = vec![false, false, true];
    right.extend(g.references.iter().map(|_| true));
    right.extend([false, false]);
    let rows = g
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![escape(&row.candidate), row.word().to_string()];
            if matches!(row.verdict, Verdict::NeverRan(_)) {
                cells.extend(std::iter::repeat_n(String::new(), g.references.len() + 1));
            } else {
                let (points, available) = (row.points(), row.available());
                cells.push(if available == 0 {
                    "0 of 0".to_string()
                } else {
                    format!("{points} of {available} ({}%)", percent(points, available))
                });
                cells.extend(row.versus.iter().map(|v| {
                    let taken = format!("{} of {}", v.points(), WIN_POINTS * v.games());
                    if split {
                        format!("{taken} ({} / {})", wdl(&v.as_first), wdl(&v.as_second))
                    } else {
                        let total = Record {
                            wins: v.as_first.wins + v.as_second.wins,
                            draws: v.as_first.draws + v.as_second.draws,
                            losses: v.as_first.losses + v.as_second.losses,
                        };
                        format!("{taken} ({})", wdl(&total))
                    }
                }));
            }
            cells.push(escape(&row.reason()));
            cells.push(faults_cell(row, links));
            cells
        })
        .collect();
    let align: Vec<Align> = right
        .iter()
        .map(|&r| if r { Align::Right } else { Align::Left })
        .collect();
    out.push_str(&table(header, &align, rows));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::results::games::{GameRecord, GameResult};
    use crate::standings::grades::tests::{fixture, game, graded};
    use crate::standings::grades::Rule;

    #[test]
    fn grades_csv_lists_every_candidate_by_name() {
        let expected = "\
candidate,grade,games,points,available,percent,greedy:points,greedy:first,greedy:second,random:points,random:first,random:second,reason,faults
alpha,pass,4,7,8,87.5,3,1-0-0,0-1-0,4,1-0-0,1-0-0,,
bravo,fail,4,6,8,75.0,2,1-0-0,0-0-1,4,1-0-0,1-0-0,not more than half the points against `greedy` (2 of 4),
charlie,fail,4,2,8,25.0,0,0-0-1,0-0-1,2,0-1-0,0-1-0,\"not more than half the points against `greedy` (0 of 4), `random` (2 of 4)\",
delta,fail,,,,,,,,,,,never ran: `build` failed (exit status: 1),
";
        assert_eq!(csv(&fixture(Rule::BeatAll)), expected);
    }

    #[test]
    fn grades_md_is_a_readable_table() {
        let expected = "\
Rule `beat-all`: more than half the points against every reference (more points than games).

Against each reference: points taken of those available (wins-draws-losses moving first / moving second).

| candidate | grade |         points |                 greedy |                 random | reason                                                                     | faults |
| :-------- | :---- | -------------: | ---------------------: | ---------------------: | :------------------------------------------------------------------------- | :----- |
| alpha     | pass  | 7 of 8 (87.5%) | 3 of 4 (1-0-0 / 0-1-0) | 4 of 4 (1-0-0 / 1-0-0) |                                                                            |        |
| bravo     | fail  | 6 of 8 (75.0%) | 2 of 4 (1-0-0 / 0-0-1) | 4 of 4 (1-0-0 / 1-0-0) | not more than half the points against `greedy` (2 of 4)                    |        |
| charlie   | fail  | 2 of 8 (25.0%) | 0 of 4 (0-0-1 / 0-0-1) | 2 of 4 (0-1-0 / 0-1-0) | not more than half the points against `greedy` (0 of 4), `random` (2 of 4) |        |
| delta     | fail  |                |                        |                        | never ran: `build` failed (exit status: 1)                                 |        |
";
        assert_eq!(markdown(&fixture(Rule::BeatAll)), expected);
    }

    #[test]
    fn games_without_a_first_player_show_one_record() {
        let g = GameRecord {
            game: GameKind::Morra,
            ..game("x|y", "ref", GameResult::A)
        };
        let text = markdown(&graded(
            &[g],
            &["ref".into()],
            &["x|y".into()],
            &[],
            Rule::BeatAll,
        ));
        let expected = [
            "| candidate | grade |          points |            ref | reason | faults |",
            "| :-------- | :---- | --------------: | -------------: | :----- | :----- |",
            "| x\\|y      | pass  | 2 of 2 (100.0%) | 2 of 2 (1-0-0) |        |        |",
        ];
        assert_eq!(text.lines().skip(4).collect::<Vec<_>>(), expected);
    }

    #[test]
    fn a_candidate_without_games_has_zero_counts_and_no_percent() {
        let refs = ["greedy".to_string(), "random".to_string()];
        let games = [game("solo", "greedy", GameResult::A)];
        let g = graded(&games, &refs, &["idle".into()], &[], Rule::MinPoints(0));
        assert_eq!(
            csv(&g).lines().nth(1),
            Some("idle,fail,0,0,0,,0,0-0-0,0-0-0,0,0-0-0,0-0-0,played no games against the references,")
        );
    }

    #[test]
    fn forfeits_are_explained_with_links_to_replays_and_the_log() {
        use crate::results::games::{Culprit, Reason};
        let games = [
            GameRecord {
                game_id: 7,
                reason: Reason::Timeout,
                culprit: Culprit::A,
                plies: 13,
                detail: "timeout: no reply in time".into(),
                ..game("cand x", "ref", GameResult::B)
            },
            GameRecord {
                game_id: 8,
                reason: Reason::Illegal,
                culprit: Culprit::B,
                plies: 8,
                detail: "illegal: not a square (reply `d9`)".into(),
                ..game("ref", "cand x", GameResult::A)
            },
            GameRecord {
                game_id: 9,
                reason: Reason::Crash,
                culprit: Culprit::A,
                detail: "crash: exited with status 1".into(),
                ..game("ref", "cand x", GameResult::B)
            },
        ];
        let g = graded(
            &games,
            &["ref".into()],
            &["cand x".into()],
            &[],
            Rule::BeatAll,
        );
        let faults = "game 7 against ref: timeout at move 14 (no reply in 20 s); \
                      game 8 against ref: illegal reply `d9` at move 9";
        let line = csv(&g).lines().nth(1).unwrap().to_string();
        assert!(line.ends_with(&format!(",{faults}")), "{line}");
        // The reference's crash in game 9 is not the candidate's fault.
        assert!(!line.contains("game 9"), "{line}");
        let links = Links {
            replays: true,
            logs: true,
        };
        let md = markdown_linked(&g, links);
        assert!(
            md.contains(
                "[game 7](replays/7.jsonl) against ref: timeout at move 14 (no reply in 20 s); \
                 [game 8](replays/8.jsonl) against ref: illegal reply `d9` at move 9; \
                 [log](logs/cand_x.log) |"
            ),
            "{md}"
        );
        assert!(!markdown(&g).contains("]("));
    }
}
