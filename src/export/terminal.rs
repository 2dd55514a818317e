//! A gauntlet's grades as printed on the terminal, within [`TERMINAL_WIDTH`] columns: long
//! reasons and forfeits go under the table, wrapped.

use super::grades::wdl;
use super::table::{table, Align};
use crate::standings::grades::{percent, Grades, Verdict};
use crate::standings::WIN_POINTS;

/// The widest the printed grades are, in columns.
pub const TERMINAL_WIDTH: usize = 100;

/// Traceback lines printed under a crash.
const TERMINAL_TRACEBACK: usize = 4;

/// The grades as printed on the terminal, within [`TERMINAL_WIDTH`] columns: the rule, a table
/// of grade and points per candidate (with the points against each reference, and the
/// records while they fit), then under the table each failing candidate's reason and the
/// games it forfeited, wrapped, with the first lines of a crash's traceback and the file of
/// the game's stderr.
pub fn grades(g: &Grades) -> String {
    let split = g.game.is_none_or(|k| k.has_first_player());
    let mut out = String::new();
    for paragraph in [
        format!("Rule `{}`: {}.", g.rule, g.rule.describe()),
        format!(
            "Against each reference: points taken of those available (wins-draws-losses{}).",
            if split {
                " moving first / moving second"
            } else {
                ""
            }
        ),
    ] {
        out.push_str(&wrap(&paragraph, "", ""));
        out.push('\n');
    }
    let record = |v: &crate::standings::grades::Versus| {
        if split {
            format!("{} / {}", wdl(&v.as_first), wdl(&v.as_second))
        } else {
            let (r, s) = (&v.as_first, &v.as_second);
            format!(
                "{}-{}-{}",
                r.wins + s.wins,
                r.draws + s.draws,
                r.losses + s.losses
            )
        }
    };
    // The widest layout that fits: records, then points only, then no reference columns.
    let layouts = [(true, true), (true, false), (false, false)];
    let mut chosen = String::new();
    let mut references_shown = false;
    for (i, &(references, records)) in layouts.iter().enumerate() {
        let mut header = vec![
            "candidate".to_string(),
            "grade".to_string(),
            "points".to_string(),
        ];
        if references {
            header.extend(g.references.iter().cloned());
        }
        let rows = g
            .rows
            .iter()
            .map(|row| {
                let mut cells = vec![row.candidate.clone(), row.word().to_string()];
                if matches!(row.verdict, Verdict::NeverRan(_)) {
                    cells.push("never ran".to_string());
                    if references {
                        cells.extend(g.references.iter().map(|_| String::new()));
                    }
                    return cells;
                }
                let (points, available) = (row.points(), row.available());
                cells.push(if available == 0 {
                    "0 of 0".to_string()
                } else {
                    format!("{points} of {available} ({}%)", percent(points, available))
                });
                if references {
                    cells.extend(row.versus.iter().map(|v| {
                        let taken = format!("{} of {}", v.points(), WIN_POINTS * v.games());
                        if records {
                            format!("{taken} ({})", record(v))
                        } else {
                            taken
                        }
                    }));
                }
                cells
            })
            .collect();
        let mut align = vec![Align::Left, Align::Left, Align::Right];
        if references {
            align.extend(g.references.iter().map(|_| Align::Right));
        }
        let text = table(header, &align, rows);
        let fits = text.lines().all(|l| l.chars().count() <= TERMINAL_WIDTH);
        if fits || i == layouts.len() - 1 {
            chosen = text;
            references_shown = references;
            break;
        }
    }
    out.push_str(&chosen);
    for row in &g.rows {
        let failed = row.verdict != Verdict::Pass;
        if !failed && row.faults.is_empty() && references_shown {
            continue;
        }
        out.push('\n');
        let head = if failed {
            format!("{} fails: {}", row.candidate, row.reason())
        } else {
            format!("{} passes", row.candidate)
        };
        out.push_str(&wrap(&head, "", "    "));
        if !references_shown && !matches!(row.verdict, Verdict::NeverRan(_)) {
            let against: Vec<String> = row
                .versus
                .iter()
                .map(|v| {
                    format!(
                        "{} {} of {} ({})",
                        v.reference,
                        v.points(),
                        WIN_POINTS * v.games(),
                        record(v)
                    )
                })
                .collect();
            out.push_str(&wrap(
                &format!("against {}", against.join(", ")),
                "  ",
                "    ",
            ));
        }
        for f in &row.faults {
            let mut line = format!(
                "game {} against {}: {}",
                f.game_id,
                f.opponent,
                f.explained()
            );
            if let Some(log) = &f.log {
                line.push_str(&format!(", stderr in {log}"));
            }
            out.push_str(&wrap(&line, "  ", "    "));
            if let Some(t) = &f.traceback {
                for l in t.lines.iter().take(TERMINAL_TRACEBACK) {
                    out.push_str(&clip(&format!("      | {l}")));
                    out.push('\n');
                }
                if t.lines.len() > TERMINAL_TRACEBACK {
                    out.push_str("      | …\n");
                }
            }
        }
    }
    out
}

/// `text` in lines of at most [`TERMINAL_WIDTH`] columns, broken between words, the first
/// line indented by `first` and the others by `rest`; each line ends with a newline. A word
/// longer than a line has a line of its own.
fn wrap(text: &str, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        let width = line.chars().count() + 1 + word.chars().count();
        if !empty && width > TERMINAL_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// `line` cut to [`TERMINAL_WIDTH`] columns, with `…` where it was cut.
fn clip(line: &str) -> String {
    if line.chars().count() <= TERMINAL_WIDTH {
        return line.to_string();
    }
    let mut cut: String = line.chars().take(TERMINAL_WIDTH - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standings::grades::tests::fixture;
    use crate::standings::grades::Rule;
    use crate::standings::Record;

    #[test]
    fn the_printed_grades_fit_100_columns_with_reasons_below_the_table_issue_18() {
        use crate::standings::faults::Traceback;
        let refs: Vec<String> = ["greedy-but-long", "random-but-long", "alphabeta-deep"]
            .map(String::from)
            .to_vec();
        let mut g = fixture(Rule::BeatAll);
        g.references = refs.clone();
        for row in &mut g.rows {
            let third = crate::standings::grades::Versus {
                as_first: Record {
                    wins: 0,
                    draws: 0,
                    losses: 1,
                },
                ..row.versus[0].clone()
            };
            row.versus.push(third);
            for (v, r) in row.versus.iter_mut().zip(&refs) {
                v.reference = r.clone();
            }
        }
        g.rows[2].faults.push(crate::standings::faults::Fault {
            game_id: 12,
            opponent: "alphabeta-deep".into(),
            words: "crash: exit status 1".into(),
            log: Some("logs/charlie/12.log".into()),
            traceback: Some(Traceback {
                cause: Some("SyntaxError in bot.py line 3".into()),
                lines: vec![format!("  File \"{}/bot.py\", line 3", "x".repeat(120))],
            }),
        });
        let text = grades(&g);
        for line in text.lines() {
            assert!(
                line.chars().count() <= TERMINAL_WIDTH,
                "{line:?} in\n{text}"
            );
        }
        // The table has no reason column: each reason is under it, wrapped.
        assert!(text.contains("| candidate | grade |"), "{text}");
        assert!(!text.contains("| reason"), "{text}");
        assert!(
            text.contains("\ncharlie fails: not more than half the points against"),
            "{text}"
        );
        assert!(
            text.contains(
                "  game 12 against alphabeta-deep: crash: exit status 1 (SyntaxError in bot.py \
                 line 3), stderr in\n    logs/charlie/12.log\n      |   File \"xxx"
            ),
            "{text}"
        );
        assert!(
            text.contains("delta fails: never ran: `build` failed"),
            "{text}"
        );
        // Three wide references leave the records out of the table, not the points.
        assert!(text.contains(" 0 of 4 "), "{text}");
        assert!(!text.contains("0-0-1 / 0-0-1"), "{text}");
    }
}
