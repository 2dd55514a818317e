//! `report.html`: the standings, rating bars, a gauntlet's grades, the cross-table heatmap,
//! failures, every game with a replay viewer, and the configuration, as one self-contained
//! page (inline CSS, SVG and script; replays embedded when small, else fetched beside it).
//!
//! The markup is also well-formed XML: every element is closed, every attribute quoted, only
//! the entities XML predefines are used, and scripts sit in CDATA sections, so tests (and
//! tools) can parse it strictly.

use std::fmt::Write;

use crate::results::games::{GameTable, Reason};
use crate::standings::grades::Grades;
use crate::standings::Standings;

mod bars;
mod formats;
mod games;
mod grades;
mod heatmap;
pub mod replays;
pub mod style;
mod tables;
pub mod viewer;

use heatmap::{crosstable, heatmap_print_zoom};
pub use replays::{ReplayDir, Replays};
use style::CSS;
use tables::{failing_bots, failures, standings};

/// Game ids listed for one bot and one failure reason; the rest are counted as "and N more".
pub const MAX_LISTED: usize = 20;

/// Everything `report.html` shows; the caller fills it.
pub struct HtmlReport<'a> {
    /// The page title, e.g. `othello — results/othello-20261121-200538`.
    pub title: String,
    /// Key/value pairs shown as the tournament's configuration, in order.
    pub config: Vec<(String, String)>,
    /// The standings and cross-table, whose row order every per-bot list follows.
    pub standings: &'a Standings,
    /// Per standings row: `(elo, low, high)`, or `None` where the rating is unbounded.
    /// `None` altogether leaves the rating columns out.
    pub ratings: Option<Vec<Option<(f64, f64, f64)>>>,
    /// How many Elo moving first is worth, if estimated.
    pub first_move_elo: Option<f64>,
    /// One per game lost (or drawn) by a failure, for each culprit bot.
    pub failures: Vec<Failure>,
    /// The games, listed with links to their replays.
    pub games: &'a GameTable,
    /// A gauntlet's grades, shown first.
    pub grades: Option<&'a Grades>,
    /// Bots that could not play, and why.
    pub left_out: &'a [(String, String)],
    /// An SPRT match's test, shown first.
    pub sprt: Option<&'a crate::standings::sprt::Sprt>,
    /// A Swiss tournament's standings with their tie-breaks, shown first.
    pub swiss: Option<&'a crate::standings::swiss::SwissTable>,
    /// Per game of [`HtmlReport::games`]: the links to each seat's stderr in that game, where
    /// it wrote some (empty for none at all).
    pub logs: Vec<[Option<String>; 2]>,
    /// Each game's replay link (games without one are listed unlinked), and the replays'
    /// text when it is embedded.
    pub replays: Replays,
}

/// A game a bot lost by its own failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The culprit.
    pub bot: String,
    /// The game's id, which names its replay.
    pub game_id: u64,
    /// The game's index in [`HtmlReport::games`], which finds its replay link.
    pub game: usize,
    /// `Timeout`, `Illegal` or `Crash`; `Normal` is ignored.
    pub reason: Reason,
}

/// The failure reasons in column order, with their column headings.
const REASONS: [(Reason, &str); 3] = [
    (Reason::Timeout, "Timeouts"),
    (Reason::Illegal, "Illegal"),
    (Reason::Crash, "Crashes"),
];

/// Renders the whole page. The output depends only on `report`.
pub fn render(report: &HtmlReport<'_>) -> String {
    let s = report.standings;
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <meta name=\"generator\" content=\"arena\"/>\n",
    );
    let _ = writeln!(out, "<title>{}</title>", esc(&report.title));
    let _ = write!(out, "<style>{CSS}");
    if let Some(zoom) = heatmap_print_zoom(s) {
        let _ = writeln!(out, "@media print {{ .heat {{ zoom: {zoom:.2}; }} }}");
    }
    out.push_str("</style>\n</head>\n<body>\n<main>\n");

    let games: u32 = s.rows.iter().map(|r| r.games).sum::<u32>() / 2;
    let _ = writeln!(
        out,
        "<header>\n<h1>{}</h1>\n<p class=\"sub\">{}{} · {}</p>\n</header>",
        esc(&report.title),
        s.game
            .map(|g| format!("{} · ", g.name()))
            .unwrap_or_default(),
        plural(s.rows.len(), "bot", "bots"),
        plural(games as usize, "game", "games"),
    );
    let failing = failing_bots(report);
    // An SPRT match is run for its verdict, a gauntlet for its grades: they come first.
    if let Some(t) = report.sprt {
        formats::sprt(&mut out, t);
    }
    if let Some(t) = report.swiss {
        formats::swiss(&mut out, t);
    }
    if let Some(g) = report.grades {
        grades::grades(&mut out, g, report);
    }
    standings(&mut out, report, &failing);
    crosstable(&mut out, s);
    left_out(&mut out, report.left_out);
    failures(&mut out, report, &failing);
    games::games(&mut out, report);
    if !report.config.is_empty() {
        configuration(&mut out, &report.config);
    }
    out.push_str("<footer>Made by arena.</footer>\n</main>\n");
    viewer::viewer(&mut out, &report.replays);
    out.push_str("</body>\n</html>\n");
    out
}

/// The bots that could not play, each with the reason (what to fix, usually).
fn left_out(out: &mut String, bots: &[(String, String)]) {
    if bots.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"left-out\">\n<h2>Left out</h2>\n<p class=\"note\">{} could not play:</p>\n<table class=\"left-out\">\n<thead>\n<tr><th class=\"bot\">Bot</th><th>Why</th></tr>\n</thead>\n<tbody>",
        plural(bots.len(), "bot", "bots")
    );
    for (bot, why) in bots {
        let _ = writeln!(
            out,
            "<tr><td class=\"bot\">{}</td><td>{}</td></tr>",
            esc(bot),
            code(why)
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The configuration, collapsed: it matters less to a reader than the results.
fn configuration(out: &mut String, config: &[(String, String)]) {
    out.push_str(
        "<section id=\"configuration\">\n<details>\n<summary><h2>Configuration</h2></summary>\n\
         <table class=\"config\">\n<tbody>\n",
    );
    for (k, v) in config {
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
            esc(k),
            esc(v)
        );
    }
    out.push_str("</tbody>\n</table>\n</details>\n</section>\n");
}

/// Escapes text for HTML text and quoted attributes, using only entities XML knows, and
/// replaces control characters, which neither XML nor HTML allows, with U+FFFD.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Text for HTML like [`esc`], with each `` `span` `` in backticks (the messages' way of
/// quoting a name or a reply) as `<code>span</code>`; a backtick without its pair stays.
fn code(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    let mut out = String::with_capacity(s.len() + 16);
    for (i, part) in parts.iter().enumerate() {
        let paired = i % 2 == 1 && i + 1 < parts.len();
        if paired {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            if i % 2 == 1 {
                out.push('`');
            }
            out.push_str(&esc(part));
        }
    }
    out
}

/// A rating rounded to a whole number, with a true minus sign and never `-0`.
fn num(x: f64) -> String {
    let r = x.round();
    if r == 0.0 {
        "0".to_string()
    } else if r < 0.0 {
        format!("−{:.0}", -r)
    } else {
        format!("{r:.0}")
    }
}

/// Like `num`, with a `+` on positive values.
fn signed(x: f64) -> String {
    let n = num(x);
    if x.round() > 0.0 {
        format!("+{n}")
    } else {
        n
    }
}

/// The class of a cell holding a bot's name: names are kept on one line unless they are
/// long enough to crowd the table.
fn bot_class(name: &str) -> &'static str {
    if name.chars().count() > 24 {
        "bot long"
    } else {
        "bot"
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests;
