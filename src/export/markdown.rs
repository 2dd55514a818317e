//! The standings and cross-table as Markdown tables, padded so they read well as plain text.

use anyhow::Result;

use super::table::{escape, table, Align};
use super::{ExportContext, Exporter};
use crate::standings::Standings;

/// Writes `standings.md`.
pub struct StandingsMarkdown;

impl Exporter for StandingsMarkdown {
    fn file_name(&self) -> &str {
        "standings.md"
    }

    fn render(&self, ctx: &ExportContext<'_>) -> Result<String> {
        Ok(standings(ctx.standings))
    }
}

/// Writes `crosstable.md`.
pub struct CrosstableMarkdown;

impl Exporter for CrosstableMarkdown {
    fn file_name(&self) -> &str {
        "crosstable.md"
    }

    fn render(&self, ctx: &ExportContext<'_>) -> Result<String> {
        Ok(crosstable(ctx.standings))
    }
}

/// `standings.md`: the standings table.
pub fn standings(s: &Standings) -> String {
    let header = [
        "rank",
        "bot",
        "games",
        "wins",
        "draws",
        "losses",
        "points",
        "score for",
        "score against",
        "timeouts",
        "illegal",
        "crashes",
    ];
    let mut header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    if s.rated {
        header.extend(["elo", "95% interval"].map(String::from));
    }
    let mut align = vec![Align::Right; header.len()];
    align[1] = Align::Left;
    let rows =
        s.rows
            .iter()
            .map(|r| {
                let mut cells = super::standing_cells(r);
                cells[1] = escape(&r.bot);
                if s.rated {
                    match r.elo {
                        Some((elo, low, high)) => cells
                            .extend([signed(elo), format!("{} to {}", signed(low), signed(high))]),
                        None => cells.extend(["unbounded".to_string(), String::new()]),
                    }
                }
                cells
            })
            .collect();
    let mut text = table(header, &align, rows);
    if let Some((elo, low, high)) = s.first_move {
        text.push_str(&format!(
            "\nMoving first is worth {} Elo (95% interval {} to {}).\n",
            signed(elo),
            signed(low),
            signed(high)
        ));
    }
    text
}

/// An Elo figure with its sign: `+12.3`, `-4.0`, `0.0`.
fn signed(x: f64) -> String {
    let text = super::elo(x);
    if text.starts_with('-') || text == "0.0" {
        text
    } else {
        format!("+{text}")
    }
}

/// `crosstable.md`: points of each row bot against each column bot; `·` on the diagonal,
/// empty where two bots never met. In games with a first player each cell also splits the
/// points into those taken moving first and moving second, `3 (2+1)`, and two columns give
/// each bot's record (wins-draws-losses) moving first and moving second.
pub fn crosstable(s: &Standings) -> String {
    let split = s.game.is_some_and(|g| g.has_first_player());
    let mut header = vec!["bot".to_string()];
    header.extend((1..=s.rows.len()).map(|i| i.to_string()));
    header.push("points".to_string());
    if split {
        header.extend(["as first".to_string(), "as second".to_string()]);
    }
    let mut align = vec![Align::Right; header.len()];
    align[0] = Align::Left;
    let rows = s
        .rows
        .iter()
        .zip(&s.cross)
        .enumerate()
        .map(|(i, (row, cells))| {
            let mut line = vec![format!("{}. {}", i + 1, escape(&row.bot))];
            line.extend(cells.iter().enumerate().map(|(j, c)| {
                if i == j {
                    "·".to_string()
                } else if c.games == 0 {
                    String::new()
                } else if split {
                    format!("{} ({}+{})", c.points, c.points_first, c.points_second)
                } else {
                    c.points.to_string()
                }
            }));
            line.push(row.points.to_string());
            if split {
                for r in [row.as_first, row.as_second] {
                    line.push(format!("{}-{}-{}", r.wins, r.draws, r.losses));
                }
            }
            line
        })
        .collect();
    table(header, &align, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::results::games::{GameRecord, GameResult};

    #[test]
    fn tables_are_aligned_and_escape_pipes() {
        let g = GameRecord {
            score_a: 170,
            score_b: 158,
            ..GameRecord::for_test(GameKind::Morra, "Quinn|Valor", "Historian", GameResult::A)
        };
        let s = crate::standings::compute(&[g]);
        let text = crosstable(&s);
        let expected = [
            "| bot             |   1 |   2 | points |",
            "| :-------------- | --: | --: | -----: |",
            "| 1. Quinn\\|Valor |   · |   2 |      2 |",
            "| 2. Historian    |   0 |   · |      0 |",
        ];
        assert_eq!(text.lines().collect::<Vec<_>>(), expected);
        let text = standings(&s);
        assert!(text.starts_with("| rank | bot"), "{text}");
        assert!(text.contains("Quinn\\|Valor"));
    }

    #[test]
    fn games_with_a_first_player_split_the_crosstable() {
        let game = |a: &str, b: &str, result| GameRecord {
            score_a: 40,
            score_b: 24,
            ..GameRecord::for_test(GameKind::Othello, a, b, result)
        };
        let s = crate::standings::compute(&[
            game("ab", "greedy", GameResult::A),
            game("greedy", "ab", GameResult::Draw),
        ]);
        let expected = [
            "| bot       |       1 |       2 | points | as first | as second |",
            "| :-------- | ------: | ------: | -----: | -------: | --------: |",
            "| 1. ab     |       · | 3 (2+1) |      3 |    1-0-0 |     0-1-0 |",
            "| 2. greedy | 1 (1+0) |       · |      1 |    0-1-0 |     0-0-1 |",
        ];
        assert_eq!(crosstable(&s).lines().collect::<Vec<_>>(), expected);
    }
}
