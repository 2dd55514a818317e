//! A gauntlet's grades, first in its report: per candidate, pass or fail, the points, the
//! results against each reference, why it failed and how it lost its games (each forfeit
//! with its replay, its stderr and a crash's first traceback lines).

use std::fmt::Write;

use super::{bot_class, code, esc, HtmlReport};
use crate::standings::faults::Fault;
use crate::standings::grades::{percent, Grade, Grades, Verdict, Versus};
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

/// One forfeit: the game (its replay, where linked), the opponent, what happened, a link to
/// the game's stderr and a crash's traceback.
fn fault(out: &mut String, f: &Fault, report: &HtmlReport<'_>) {
    let href = report
        .games
        .iter()
        .position(|g| g.game_id == f.game_id)
        .and_then(|i| report.replays.href(i));
    let game = match href {
        Some(href) => format!(
            "<a class=\"replay\" href=\"{}\">game {}</a>",
            esc(href),
            f.game_id
        ),
        None => format!("game {}", f.game_id),
    };
    let _ = write!(
        out,
        "<li>{game} against {}: <span class=\"words\">{}</span>",
        esc(&f.opponent),
        code(&f.words)
    );
    if let Some(cause) = f.traceback.as_ref().and_then(|t| t.cause.as_deref()) {
        let _ = write!(out, " <span class=\"cause\">({})</span>", code(cause));
    }
    if let Some(log) = &f.log {
        let _ = write!(out, " <a class=\"log\" href=\"{}\">stderr</a>", esc(log));
    }
    if let Some(t) = &f.traceback {
        let _ = write!(
            out,
            "<pre class=\"traceback\">{}</pre>",
            esc(&t.lines.join("\n"))
        );
    }
    out.push_str("</li>");
}

/// The reason cell: why the candidate failed, then the games it forfeited.
fn reason(out: &mut String, row: &Grade, report: &HtmlReport<'_>) {
    out.push_str("<td class=\"reason\">");
    let why = row.reason();
    if !why.is_empty() {
        let _ = write!(out, "<p class=\"why\">{}</p>", code(&why));
    }
    if !row.faults.is_empty() {
        out.push_str("<ul class=\"faults\">");
        for f in &row.faults {
            fault(out, f, report);
        }
        out.push_str("</ul>");
    }
    out.push_str("</td></tr>\n");
}

/// The grades table, first in a gauntlet's report.
pub(super) fn grades(out: &mut String, g: &Grades, report: &HtmlReport<'_>) {
    let split = g.game.is_none_or(|k| k.has_first_player());
    out.push_str("<section id=\"grades\">\n<h2>Grades</h2>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">Rule <code>{}</code>: {}. Against each reference: points taken of \
         those available, and wins-draws-losses{}. Under the reason, each game the candidate \
         forfeited.</p>",
        esc(&g.rule.to_string()),
        code(&g.rule.describe()),
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
        reason(out, row, report);
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}
