//! A gauntlet's grades: per candidate, pass or fail, the points, the results against each
//! reference and why it failed.

use std::fmt::Write;

use super::{bot_class, esc};
use crate::standings::grades::{percent, Grades, Verdict, Versus};
use crate::standings::{Record, WIN_POINTS};

fn wdl(r: &Record) -> String {
    format!("{}-{}-{}", r.wins, r.draws, r.losses)
}

/// One reference's cell: points of those available, then the records.
fn versus(v: &Versus, split: bool) -> String {
    let available = WIN_POINTS * v.games();
    let record = if split {
        format!(
            "<span class=\"first\" title=\"moving first: wins-draws-losses\">{}</span> / \
             <span class=\"second\" title=\"moving second: wins-draws-losses\">{}</span>",
            wdl(&v.as_first),
            wdl(&v.as_second)
        )
    } else {
        let r = &v.as_first;
        let s = &v.as_second;
        format!(
            "{}-{}-{}",
            r.wins + s.wins,
            r.draws + s.draws,
            r.losses + s.losses
        )
    };
    format!(
        "<span class=\"pts\">{} / {available}</span><span class=\"wdl\">{record}</span>",
        v.points()
    )
}

/// The grades table, after the standings.
pub(super) fn grades(out: &mut String, g: &Grades) {
    let split = g.game.is_none_or(|k| k.has_first_player());
    out.push_str("<section id=\"grades\">\n<h2>Grades</h2>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">Rule <code>{}</code>: {}. Against each reference: points taken of \
         those available, and wins-draws-losses{}.</p>",
        esc(&g.rule.to_string()),
        esc(&g.rule.describe()),
        if split {
            " moving first / moving second"
        } else {
            ""
        }
    );
    if g.rows.is_empty() {
        out.push_str("<p class=\"note\">No candidates.</p>\n</section>\n");
        return;
    }
    out.push_str(
        "<div class=\"scroll\">\n<table class=\"grades\">\n<thead>\n<tr>\
         <th class=\"bot\">Candidate</th><th>Grade</th><th>Points</th>",
    );
    for r in &g.references {
        let _ = write!(out, "<th class=\"ref\">{}</th>", esc(r));
    }
    out.push_str("<th class=\"reason\">Reason</th></tr>\n</thead>\n<tbody>\n");
    for row in &g.rows {
        let word = row.word();
        let _ = write!(
            out,
            "<tr><td class=\"{}\">{}</td><td class=\"grade {word}\">{word}</td>",
            bot_class(&row.candidate),
            esc(&row.candidate),
        );
        if matches!(row.verdict, Verdict::NeverRan(_)) {
            let _ = write!(
                out,
                "<td class=\"zero\" colspan=\"{}\">never ran</td>",
                1 + g.references.len()
            );
        } else {
            let (points, available) = (row.points(), row.available());
            let share = if available == 0 {
                String::new()
            } else {
                format!("<span class=\"pct\">{}%</span>", percent(points, available))
            };
            let _ = write!(
                out,
                "<td class=\"points\">{points} / {available}{share}</td>"
            );
            for v in &row.versus {
                let _ = write!(out, "<td class=\"ref\">{}</td>", versus(v, split));
            }
        }
        let _ = writeln!(out, "<td class=\"reason\">{}</td></tr>", esc(&row.reason()));
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}
