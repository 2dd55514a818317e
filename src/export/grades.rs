//! `grades.csv` and `grades.md`: a gauntlet's grades as written files (see
//! [`crate::standings::grades`] for the columns and the rules).

use anyhow::Result;

use super::table::{escape, table, Align};
use super::{ExportContext, Exporter};
use crate::standings::grades::{percent, Grades, Verdict};
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
        Ok(ctx.grades.map(markdown).unwrap_or_default())
    }
}

fn wdl(r: &Record) -> String {
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
    // Writing into memory cannot fail, so neither can these.
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(&header).expect("writing to memory");
    for row in &g.rows {
        let mut cells = vec![row.candidate.clone(), row.word().to_string()];
        if matches!(row.verdict, Verdict::NeverRan(_)) {
            cells.extend(std::iter::repeat_n(String::new(), header.len() - 3));
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
        w.write_record(&cells).expect("writing to memory");
    }
    let bytes = w.into_inner().expect("writing to memory");
    String::from_utf8(bytes).expect("the cells are strings")
}

/// `grades.md`: the rule, then a table of the candidates: grade, total points, and against
/// each reference the points taken of those available and the record moving first and
/// moving second (just the record for games without a first player, such as Morra).
pub fn markdown(g: &Grades) -> String {
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
    let mut right = vec![false, false, true];
    right.extend(g.references.iter().map(|_| true));
    right.push(false);
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
candidate,grade,games,points,available,percent,greedy:points,greedy:first,greedy:second,random:points,random:first,random:second,reason
alpha,pass,4,7,8,87.5,3,1-0-0,0-1-0,4,1-0-0,1-0-0,
bravo,fail,4,6,8,75.0,2,1-0-0,0-0-1,4,1-0-0,1-0-0,not more than half the points against `greedy` (2 of 4)
charlie,fail,4,2,8,25.0,0,0-0-1,0-0-1,2,0-1-0,0-1-0,\"not more than half the points against `greedy` (0 of 4), `random` (2 of 4)\"
delta,fail,,,,,,,,,,,never ran: `build` failed (exit status: 1)
";
        assert_eq!(csv(&fixture(Rule::BeatAll)), expected);
    }

    #[test]
    fn grades_md_is_a_readable_table() {
        let expected = "\
Rule `beat-all`: more than half the points against every reference (more points than games).

Against each reference: points taken of those available (wins-draws-losses moving first / moving second).

| candidate | grade |         points |                 greedy |                 random | reason                                                                     |
| :-------- | :---- | -------------: | ---------------------: | ---------------------: | :------------------------------------------------------------------------- |
| alpha     | pass  | 7 of 8 (87.5%) | 3 of 4 (1-0-0 / 0-1-0) | 4 of 4 (1-0-0 / 1-0-0) |                                                                            |
| bravo     | fail  | 6 of 8 (75.0%) | 2 of 4 (1-0-0 / 0-0-1) | 4 of 4 (1-0-0 / 1-0-0) | not more than half the points against `greedy` (2 of 4)                    |
| charlie   | fail  | 2 of 8 (25.0%) | 0 of 4 (0-0-1 / 0-0-1) | 2 of 4 (0-1-0 / 0-1-0) | not more than half the points against `greedy` (0 of 4), `random` (2 of 4) |
| delta     | fail  |                |                        |                        | never ran: `build` failed (exit status: 1)                                 |
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
            "| candidate | grade |          points |            ref | reason |",
            "| :-------- | :---- | --------------: | -------------: | :----- |",
            "| x\\|y      | pass  | 2 of 2 (100.0%) | 2 of 2 (1-0-0) |        |",
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
            Some("idle,fail,0,0,0,,0,0-0-0,0-0-0,0,0-0-0,0-0-0,played no games against the references")
        );
    }
}
