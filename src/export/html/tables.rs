//! The standings table with its rating bars, and the failures table with its game ids.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::bars::{finite, Axis};
use super::{bot_class, esc, num, signed, HtmlReport, MAX_LISTED, REASONS};

/// Bots with a failure, in standings order (then any bot only the failures name, by name),
/// with the games of each reason in `REASONS` order as `(game id, index)`, sorted.
pub(super) struct Failing<'a> {
    /// The bot's standings row, if it has one.
    row: Option<usize>,
    bot: &'a str,
    counts: [u32; 3],
    games: [Vec<(u64, usize)>; 3],
}

impl Failing<'_> {
    fn anchor(&self, k: usize) -> String {
        match self.row {
            Some(i) => format!("fail-{i}"),
            None => format!("fail-x{k}"),
        }
    }
}

pub(super) fn failing_bots<'a>(report: &'a HtmlReport<'_>) -> Vec<Failing<'a>> {
    let mut games: BTreeMap<&str, [Vec<(u64, usize)>; 3]> = BTreeMap::new();
    for f in &report.failures {
        if let Some(k) = REASONS.iter().position(|(r, _)| *r == f.reason) {
            games.entry(f.bot.as_str()).or_default()[k].push((f.game_id, f.game));
        }
    }
    for ids in games.values_mut().flatten() {
        ids.sort_unstable();
        ids.dedup();
    }
    let mut list = Vec::new();
    for (i, r) in report.standings.rows.iter().enumerate() {
        let counts = [r.timeouts, r.illegal, r.crashes];
        let ids = games.remove(r.bot.as_str()).unwrap_or_default();
        if counts.iter().any(|&n| n > 0) || ids.iter().any(|v| !v.is_empty()) {
            list.push(Failing {
                row: Some(i),
                bot: &r.bot,
                counts,
                games: ids,
            });
        }
    }
    for (bot, ids) in games {
        list.push(Failing {
            row: None,
            bot,
            counts: ids.each_ref().map(|v| v.len() as u32),
            games: ids,
        });
    }
    list
}

pub(super) fn standings(out: &mut String, report: &HtmlReport<'_>, failing: &[Failing<'_>]) {
    let s = report.standings;
    out.push_str("<section id=\"standings\">\n<h2>Standings</h2>\n");
    if s.rows.is_empty() {
        out.push_str("<p class=\"note\">No games were played.</p>\n</section>\n");
        return;
    }
    let axis = report.ratings.as_deref().and_then(Axis::new);
    out.push_str(
        "<div class=\"scroll\">\n<table class=\"standings\">\n<thead>\n<tr>\
         <th title=\"rank\">#</th><th class=\"bot\">Bot</th><th>Games</th>\
         <th title=\"wins\">W</th><th title=\"draws\">D</th><th title=\"losses\">L</th>\
         <th>Points</th><th title=\"score for\">For</th><th title=\"score against\">Against</th>\
         <th>Timeouts</th><th>Illegal</th><th>Crashes</th>",
    );
    if report.ratings.is_some() {
        out.push_str("<th>Elo</th><th class=\"interval\">");
        match &axis {
            Some(a) => out.push_str(&a.header_svg()),
            None => out.push_str("Interval"),
        }
        out.push_str("</th>");
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for (i, r) in s.rows.iter().enumerate() {
        let shared = i > 0 && s.rows[i - 1].rank == r.rank;
        let _ = write!(
            out,
            "<tr><td class=\"rank\">{}</td><td class=\"{}\">{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td class=\"points\">{}</td><td>{}</td><td>{}</td>",
            if shared {
                "=".to_string()
            } else {
                r.rank.to_string()
            },
            bot_class(&r.bot),
            esc(&r.bot),
            r.games,
            r.wins,
            r.draws,
            r.losses,
            r.points,
            r.score_for,
            r.score_against,
        );
        let anchor = failing
            .iter()
            .enumerate()
            .find(|(_, f)| f.row == Some(i))
            .map(|(k, f)| f.anchor(k));
        for n in [r.timeouts, r.illegal, r.crashes] {
            match (&anchor, n) {
                (_, 0) => out.push_str("<td class=\"zero\">0</td>"),
                (Some(a), n) => {
                    let _ = write!(out, "<td class=\"fail\"><a href=\"#{a}\">{n}</a></td>");
                }
                (None, n) => {
                    let _ = write!(out, "<td class=\"fail\">{n}</td>");
                }
            }
        }
        if let Some(ratings) = &report.ratings {
            match (ratings.get(i).copied().flatten().filter(finite), &axis) {
                (Some(rating), Some(axis)) => {
                    let _ = write!(
                        out,
                        "<td class=\"elo\">{}<span class=\"range\">{} to {}</span></td><td class=\"interval\">{}</td>",
                        num(rating.0),
                        num(rating.1),
                        num(rating.2),
                        axis.bar_svg(rating, &r.bot)
                    );
                }
                _ => out.push_str("<td class=\"elo unbounded\" colspan=\"2\">unbounded</td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    let mut notes = Vec::new();
    notes.push(
        "A win is 2 points, a draw 1. Bots level on points, wins and score difference share a \
         rank (=). Failure counts link to the games concerned."
            .to_string(),
    );
    if report.ratings.is_some() {
        notes.push(
            "Elo: the estimated rating, with the interval drawn as a bar (the dot is the \
             estimate). “Unbounded” means the games set no limit to the rating, as when a \
             bot won or lost every game."
                .to_string(),
        );
    }
    for n in notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(&n));
    }
    if let Some(e) = report.first_move_elo.filter(|e| e.is_finite()) {
        let _ = writeln!(
            out,
            "<p class=\"callout\">First-move advantage: <strong>{} Elo</strong> \
             <span class=\"muted\">(what moving first is worth, estimated from all games)</span></p>",
            signed(e)
        );
    }
    out.push_str("</section>\n");
}

pub(super) fn failures(out: &mut String, report: &HtmlReport<'_>, failing: &[Failing<'_>]) {
    out.push_str("<section id=\"failures\">\n<h2>Failures</h2>\n");
    if failing.is_empty() {
        out.push_str(
            "<p class=\"note\">No bot timed out, replied illegally or crashed.</p>\n</section>\n",
        );
        return;
    }
    let _ = writeln!(
        out,
        "<p class=\"note\">Games each bot lost (or drew) by its own failure{}.</p>",
        if report.replays.any() {
            "; each game id opens the game’s replay"
        } else {
            ""
        }
    );
    out.push_str(
        "<div class=\"scroll\">\n<table class=\"failures\">\n<thead>\n<tr><th class=\"bot\">Bot</th>",
    );
    for (_, heading) in REASONS {
        let _ = write!(out, "<th>{heading}</th>");
    }
    out.push_str("<th class=\"games\">Games</th></tr>\n</thead>\n<tbody>\n");
    for (k, f) in failing.iter().enumerate() {
        let _ = write!(
            out,
            "<tr id=\"{}\"><td class=\"{}\">{}</td>",
            f.anchor(k),
            bot_class(f.bot),
            esc(f.bot)
        );
        for n in f.counts {
            let _ = write!(
                out,
                "<td class=\"{}\">{n}</td>",
                if n == 0 { "zero" } else { "fail" }
            );
        }
        out.push_str("<td class=\"games\">");
        for ((_, heading), ids) in REASONS.iter().zip(&f.games) {
            if ids.is_empty() {
                continue;
            }
            let _ = write!(
                out,
                "<div class=\"ids\"><span class=\"why\">{}</span>",
                heading.to_lowercase()
            );
            for &(id, index) in ids.iter().take(MAX_LISTED) {
                match report.replays.href(index) {
                    Some(href) => {
                        let _ = write!(out, " <a class=\"replay\" href=\"{}\">{id}</a>", esc(href));
                    }
                    None => {
                        let _ = write!(out, " <span class=\"gid\">{id}</span>");
                    }
                }
            }
            if ids.len() > MAX_LISTED {
                let _ = write!(
                    out,
                    " <span class=\"more\">and {} more</span>",
                    ids.len() - MAX_LISTED
                );
            }
            out.push_str("</div>");
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}
