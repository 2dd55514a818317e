//! `report.html`: the standings, rating bars, cross-table heatmap and failures as one
//! self-contained page (inline CSS and SVG, no scripts, nothing fetched).
//!
//! The markup is also well-formed XML: every element is closed, every attribute quoted, and
//! only the entities XML predefines are used, so tests (and tools) can parse it strictly.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::results::games::Reason;
use crate::standings::{Cell, Standing, Standings};

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
    /// Whether `replays/<game_id>.jsonl` exist next to the report: without them (no replays
    /// written, or standings merged from several runs whose game ids overlap) game ids are
    /// listed without links.
    pub replays: bool,
}

/// A game a bot lost by its own failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The culprit.
    pub bot: String,
    /// The game's id, which names its replay.
    pub game_id: u64,
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
    if !report.config.is_empty() {
        configuration(&mut out, &report.config);
    }
    let failing = failing_bots(report);
    standings(&mut out, report, &failing);
    crosstable(&mut out, s);
    failures(&mut out, report, &failing);
    out.push_str("<footer>Made by arena.</footer>\n</main>\n</body>\n</html>\n");
    out
}

fn configuration(out: &mut String, config: &[(String, String)]) {
    out.push_str(
        "<section id=\"configuration\">\n<h2>Configuration</h2>\n\
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
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The horizontal scale shared by every rating bar.
struct Axis {
    min: f64,
    max: f64,
    step: f64,
}

/// Width and side margins of a rating bar, in SVG pixels.
const BAR_WIDTH: f64 = 220.0;
const BAR_PAD: f64 = 18.0;

impl Axis {
    /// A scale over every bounded interval, widened to round tick values; `None` if no
    /// rating is bounded.
    fn new(ratings: &[Option<(f64, f64, f64)>]) -> Option<Axis> {
        let bounded = ratings.iter().flatten().filter(|r| finite(r));
        let lo = bounded.clone().map(|r| r.1.min(r.0)).reduce(f64::min)?;
        let hi = bounded.map(|r| r.2.max(r.0)).reduce(f64::max)?;
        let (lo, hi) = if hi - lo < 10.0 {
            let mid = (lo + hi) / 2.0;
            (mid - 5.0, mid + 5.0)
        } else {
            (lo, hi)
        };
        // Steps of 1, 2 or 5 times a power of ten, found by multiplication rather than
        // logarithms so the ticks are exact and the same on every platform.
        let raw = (hi - lo) / 4.0;
        let mut magnitude = 1.0;
        while magnitude * 10.0 <= raw {
            magnitude *= 10.0;
        }
        let step = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * magnitude)
            .find(|&s| s >= raw)
            .unwrap_or(10.0 * magnitude);
        Some(Axis {
            min: (lo / step).floor() * step,
            max: (hi / step).ceil() * step,
            step,
        })
    }

    fn x(&self, v: f64) -> f64 {
        BAR_PAD + (v - self.min) / (self.max - self.min) * (BAR_WIDTH - 2.0 * BAR_PAD)
    }

    fn ticks(&self) -> Vec<f64> {
        let n = ((self.max - self.min) / self.step).round() as usize;
        (0..=n).map(|i| self.min + i as f64 * self.step).collect()
    }

    /// The grid lines every bar draws behind its interval.
    fn grid(&self, height: f64) -> String {
        self.ticks()
            .iter()
            .map(|&t| {
                let x = self.x(t);
                format!(
                    "<line class=\"grid\" x1=\"{x:.1}\" y1=\"0\" x2=\"{x:.1}\" y2=\"{height}\"/>"
                )
            })
            .collect()
    }

    /// The axis with its tick labels, for the column heading.
    fn header_svg(&self) -> String {
        let mut svg = format!(
            "<svg class=\"axis\" width=\"{BAR_WIDTH}\" height=\"16\" viewBox=\"0 0 {BAR_WIDTH} 16\" aria-hidden=\"true\">"
        );
        for t in self.ticks() {
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"11\" text-anchor=\"middle\">{}</text>",
                self.x(t),
                num(t)
            );
        }
        svg.push_str("</svg>");
        svg
    }

    /// One bot's interval as a bar with end caps and a dot at the estimate.
    fn bar_svg(&self, (elo, low, high): (f64, f64, f64), bot: &str) -> String {
        let (x0, x, x1) = (self.x(low), self.x(elo), self.x(high));
        format!(
            "<svg class=\"bar\" width=\"{BAR_WIDTH}\" height=\"18\" viewBox=\"0 0 {BAR_WIDTH} 18\" role=\"img\" aria-label=\"{label}\">\
             <title>{label}</title>{grid}\
             <line class=\"ci\" x1=\"{x0:.1}\" y1=\"9\" x2=\"{x1:.1}\" y2=\"9\"/>\
             <line class=\"cap\" x1=\"{x0:.1}\" y1=\"4\" x2=\"{x0:.1}\" y2=\"14\"/>\
             <line class=\"cap\" x1=\"{x1:.1}\" y1=\"4\" x2=\"{x1:.1}\" y2=\"14\"/>\
             <circle class=\"est\" cx=\"{x:.1}\" cy=\"9\" r=\"4\"/></svg>",
            label = esc(&format!(
                "{bot}: {} Elo, from {} to {}",
                num(elo),
                num(low),
                num(high)
            )),
            grid = self.grid(18.0),
        )
    }
}

fn finite(&(elo, low, high): &(f64, f64, f64)) -> bool {
    elo.is_finite() && low.is_finite() && high.is_finite()
}

/// Bots with a failure, in standings order (then any bot only the failures name, by name),
/// with the game ids of each reason in `REASONS` order, sorted.
struct Failing<'a> {
    /// The bot's standings row, if it has one.
    row: Option<usize>,
    bot: &'a str,
    counts: [u32; 3],
    games: [Vec<u64>; 3],
}

impl Failing<'_> {
    fn anchor(&self, k: usize) -> String {
        match self.row {
            Some(i) => format!("fail-{i}"),
            None => format!("fail-x{k}"),
        }
    }
}

fn failing_bots<'a>(report: &'a HtmlReport<'_>) -> Vec<Failing<'a>> {
    let mut games: BTreeMap<&str, [Vec<u64>; 3]> = BTreeMap::new();
    for f in &report.failures {
        if let Some(k) = REASONS.iter().position(|(r, _)| *r == f.reason) {
            games.entry(f.bot.as_str()).or_default()[k].push(f.game_id);
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

fn standings(out: &mut String, report: &HtmlReport<'_>, failing: &[Failing<'_>]) {
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

/// The colour stops of the heatmap, from a share of 0 (lost everything) through 0.5 to 1:
/// ColorBrewer's RdBu, which stays legible to the common kinds of colour blindness.
const STOPS: [[f64; 3]; 5] = [
    [202.0, 0.0, 32.0],
    [244.0, 165.0, 130.0],
    [247.0, 247.0, 247.0],
    [146.0, 197.0, 222.0],
    [5.0, 113.0, 176.0],
];

/// The background colour for a share of the points, and whether it needs light text.
fn share_colour(share: f64) -> (String, bool) {
    let t = share.clamp(0.0, 1.0) * 4.0;
    let i = (t.floor() as usize).min(3);
    let f = t - i as f64;
    let rgb: Vec<u8> = (0..3)
        .map(|c| (STOPS[i][c] + (STOPS[i + 1][c] - STOPS[i][c]) * f).round() as u8)
        .collect();
    let linear = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let luminance = 0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2]);
    (
        format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]),
        luminance < 0.3,
    )
}

/// A share of the points as a whole percentage, rounded half up in integers.
fn percent(c: &Cell) -> u64 {
    (100 * u64::from(c.points) + u64::from(c.games)) / (2 * u64::from(c.games))
}

/// Width of the printable area of an A4 page within the margins of `@page`, in CSS pixels.
const PRINT_WIDTH: f64 = 700.0;

/// How much to shrink a heatmap that would not fit a printed page's width, estimated from
/// the print style's cell sizes and the longest name; `None` when it fits as it is.
fn heatmap_print_zoom(s: &Standings) -> Option<f64> {
    let n = s.rows.len() as f64;
    let name = s
        .rows
        .iter()
        .map(|r| r.bot.chars().count().min(24))
        .max()
        .unwrap_or(0) as f64;
    let split = s.game.is_some_and(|g| g.has_first_player());
    // Measured in Chromium's print layout, which narrows cells to their content: about
    // 29px a dense cell and 36px a normal one, 6.5px a character of a name.
    let cell = if s.rows.len() > 12 { 29.0 } else { 36.0 };
    let width = 30.0 + 6.5 * name + n * cell + if split { 170.0 } else { 55.0 };
    // Rounded down to whole percents so the page fits and the output stays exact.
    (width > PRINT_WIDTH).then(|| (PRINT_WIDTH / width * 100.0).floor() / 100.0)
}

fn crosstable(out: &mut String, s: &Standings) {
    if s.rows.is_empty() {
        return;
    }
    let split = s.game.is_some_and(|g| g.has_first_player());
    let dense = if s.rows.len() > 12 { " dense" } else { "" };
    out.push_str("<section id=\"crosstable\">\n<h2>Cross-table</h2>\n");
    out.push_str(
        "<p class=\"note\">Each cell is the row bot’s share of the points against the column \
         bot (a win takes both points, a draw one), with the points taken of those possible \
         beneath it.</p>\n",
    );
    out.push_str(&legend());
    let _ = write!(
        out,
        "<div class=\"scroll\">\n<table class=\"heat{dense}\">\n<thead>\n<tr><th class=\"bot\">Bot</th>"
    );
    for (j, c) in s.rows.iter().enumerate() {
        let _ = write!(
            out,
            "<th class=\"col\" scope=\"col\" title=\"{}\">{}</th>",
            esc(&c.bot),
            j + 1
        );
    }
    out.push_str("<th class=\"total\">Points</th>");
    if split {
        out.push_str(
            "<th class=\"total\" title=\"wins-draws-losses moving first\">As first</th>\
             <th class=\"total\" title=\"wins-draws-losses moving second\">As second</th>",
        );
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for (i, (row, cells)) in s.rows.iter().zip(&s.cross).enumerate() {
        let _ = write!(
            out,
            "<tr><th class=\"{}\" scope=\"row\"><span class=\"idx\">{}</span>{}</th>",
            bot_class(&row.bot),
            i + 1,
            esc(&row.bot)
        );
        for (j, (c, col)) in cells.iter().zip(&s.rows).enumerate() {
            heat_cell(out, row, col, c, i == j, split);
        }
        let _ = write!(out, "<td class=\"total\">{}</td>", row.points);
        if split {
            for r in [row.as_first, row.as_second] {
                let _ = write!(
                    out,
                    "<td class=\"total\">{}-{}-{}</td>",
                    r.wins, r.draws, r.losses
                );
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}

fn heat_cell(out: &mut String, row: &Standing, col: &Standing, c: &Cell, own: bool, split: bool) {
    if own {
        out.push_str("<td class=\"hm self\" title=\"the same bot\"></td>");
        return;
    }
    if c.games == 0 {
        let title = format!("{} and {} never met", row.bot, col.bot);
        let _ = write!(
            out,
            "<td class=\"hm none\" title=\"{}\">–</td>",
            esc(&title)
        );
        return;
    }
    let (bg, light) = share_colour(f64::from(c.points) / (2.0 * f64::from(c.games)));
    let pct = percent(c);
    let mut title = format!(
        "{} against {}: {} of {} points in {}, {pct}%",
        row.bot,
        col.bot,
        c.points,
        2 * c.games,
        plural(c.games as usize, "game", "games"),
    );
    if split {
        let _ = write!(
            title,
            " ({} moving first, {} moving second)",
            c.points_first, c.points_second
        );
    }
    let _ = write!(
        out,
        "<td class=\"hm{}\" style=\"background-color:{bg}\" title=\"{}\">\
         <span class=\"pct\">{pct}%</span><span class=\"pts\">{}/{}</span></td>",
        if light { " light" } else { "" },
        esc(&title),
        c.points,
        2 * c.games,
    );
}

/// The colour scale as eleven swatches, plus the two special cells.
fn legend() -> String {
    let mut svg = String::from(
        "<div class=\"legend\"><svg width=\"250\" height=\"30\" viewBox=\"0 0 250 30\" role=\"img\" aria-label=\"colour scale from 0% to 100%\">",
    );
    for k in 0..=10 {
        let (bg, _) = share_colour(k as f64 / 10.0);
        let _ = write!(
            svg,
            "<rect x=\"{}\" y=\"0\" width=\"20\" height=\"14\" fill=\"{bg}\"/>",
            15 + 20 * k
        );
    }
    for (x, label) in [(25, "0%"), (125, "50%"), (225, "100%")] {
        let _ = write!(
            svg,
            "<text x=\"{x}\" y=\"27\" text-anchor=\"middle\">{label}</text>"
        );
    }
    svg.push_str(
        "</svg><span class=\"key\"><span class=\"swatch self\"></span>same bot</span>\
         <span class=\"key\"><span class=\"swatch none\"></span>never met</span></div>\n",
    );
    svg
}

fn failures(out: &mut String, report: &HtmlReport<'_>, failing: &[Failing<'_>]) {
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
        if report.replays {
            "; each game id links to the game’s replay"
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
            for id in ids.iter().take(MAX_LISTED) {
                if report.replays {
                    let _ = write!(out, " <a href=\"replays/{id}.jsonl\">{id}</a>");
                } else {
                    let _ = write!(out, " <span class=\"gid\">{id}</span>");
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

const CSS: &str = "
:root { --ink: #1f2328; --muted: #59636e; --faint: #aab2bb; --line: #d1d9e0; --rule: #e8ecf0;
  --head: #f6f8fa; --accent: #0b5cad; --bad: #b42318; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 32px 36px 40px; }
h1 { font-size: 26px; font-weight: 650; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 18px; font-weight: 650; margin: 36px 0 12px; padding-bottom: 6px;
  border-bottom: 1px solid var(--line); }
.sub { color: var(--muted); margin: 0; }
.note { color: var(--muted); font-size: 13px; margin: 8px 0; max-width: 60em; }
.muted { color: var(--muted); font-weight: normal; }
.callout { display: inline-block; margin: 10px 0 0; padding: 8px 14px; border-radius: 6px;
  background: var(--head); border: 1px solid var(--line); }
a { color: var(--accent); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 9px; }
thead th { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase;
  letter-spacing: .02em; vertical-align: bottom; background: var(--head); }
.bot { text-align: left; font-weight: 600; white-space: nowrap; }
.bot.long { white-space: normal; min-width: 12em; max-width: 18em; overflow-wrap: anywhere; }
.config th { text-align: left; font-weight: 600; color: var(--muted); padding: 3px 24px 3px 0;
  white-space: nowrap; vertical-align: top; }
.config td { padding: 3px 0; overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular,
  Menlo, Consolas, monospace; font-size: 13px; }
.standings th, .standings td { text-align: right; white-space: nowrap; border-bottom: 1px solid var(--rule); }
.standings thead th { border-bottom: 1px solid var(--line); }
.standings .bot { text-align: left; }
.standings .bot.long { white-space: normal; }
.standings .rank { color: var(--muted); }
.standings .points { font-weight: 700; }
.standings tbody tr:nth-child(even) { background: #fbfcfd; }
.zero { color: var(--faint); }
.fail { color: var(--bad); font-weight: 600; }
.fail a { color: inherit; }
.elo { font-weight: 600; }
.elo .range { display: block; font-size: 11px; font-weight: normal; color: var(--muted); }
.elo.unbounded { text-align: left; font-weight: normal; font-style: italic; color: var(--muted); }
.standings .interval { padding: 2px 8px; }
svg { display: block; }
svg text { font: 10px system-ui, sans-serif; fill: #59636e; }
svg .grid { stroke: #e3e7eb; stroke-width: 1; }
svg .ci { stroke: #0b5cad; stroke-width: 2.5; stroke-linecap: round; }
svg .cap { stroke: #0b5cad; stroke-width: 1.5; }
svg .est { fill: #fff; stroke: #0b5cad; stroke-width: 2; }
.legend { display: flex; align-items: center; flex-wrap: wrap; gap: 18px; margin: 10px 0 14px;
  font-size: 12px; color: var(--muted); }
.legend svg { margin-left: -15px; }
.key { display: inline-flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 20px; height: 14px; border-radius: 2px; }
.heat { border-collapse: separate; border-spacing: 3px; }
.heat thead th { background: none; }
.heat th.col { text-align: center; }
.heat th.bot { padding-left: 0; }
.heat .idx { display: inline-block; min-width: 1.6em; color: var(--muted); font-weight: normal; }
.hm { width: 4em; min-width: 4em; height: 3.1em; padding: 3px 4px; text-align: center;
  vertical-align: middle; border-radius: 4px; line-height: 1.15; color: #1f2328; }
.hm.light { color: #fff; }
.hm .pct { display: block; font-weight: 650; font-size: 14px; }
.hm .pts { display: block; font-size: 11px; opacity: .8; }
.self, .swatch.self { background: repeating-linear-gradient(135deg, #d5dae0 0 2px, #f3f5f7 2px 7px); }
.none, .swatch.none { background: #fff; border: 1px dashed #aab2bb; color: var(--faint); }
.heat td.total { text-align: right; white-space: nowrap; padding-left: 14px; }
.heat th.total { text-align: right; padding-left: 14px; white-space: nowrap; }
.heat.dense { border-spacing: 2px; }
.heat.dense .hm { width: 2.9em; min-width: 2.9em; height: 2.6em; padding: 2px; }
.heat.dense .hm .pct { font-size: 12px; }
.heat.dense .hm .pts { font-size: 10px; }
.failures th, .failures td { text-align: right; border-bottom: 1px solid var(--rule); vertical-align: top; }
.failures thead th { border-bottom: 1px solid var(--line); }
.failures .bot, .failures .games { text-align: left; }
.failures td.games { font-size: 13px; line-height: 1.7; }
.ids .why { display: inline-block; min-width: 5.5em; color: var(--muted); }
.ids a, .ids .gid { display: inline-block; min-width: 2.2em; padding: 0 5px; margin: 1px 0;
  border: 1px solid var(--line); border-radius: 10px; text-align: center; text-decoration: none;
  font-variant-numeric: tabular-nums; line-height: 1.5; }
.ids a:hover { background: var(--head); }
.ids .more { color: var(--muted); font-style: italic; }
footer { margin-top: 40px; color: var(--faint); font-size: 12px; }
@page { margin: 14mm 12mm; }
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  h1 { font-size: 18pt; }
  h2 { font-size: 13pt; margin-top: 20pt; break-after: avoid; page-break-after: avoid; }
  .scroll { overflow: visible; }
  thead { display: table-header-group; }
  tr, .heat, .legend, .callout, #crosstable { break-inside: avoid; page-break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  .standings tbody tr:nth-child(even) { background: none; }
  .callout { background: none; }
  footer { display: none; }
  th, td { padding: 4px 6px; }
  svg.bar, svg.axis { width: 176px; height: auto; }
  .hm { width: 3.2em; min-width: 3.2em; height: 2.8em; }
  .heat.dense .hm { width: 2.5em; min-width: 2.5em; height: 2.4em; }
  .heat td.total, .heat th.total { padding-left: 8px; }
}
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::results::games::{Culprit, GameRecord, GameResult};

    fn game(id: u64, a: &str, b: &str, result: GameResult) -> GameRecord {
        GameRecord {
            game_id: id,
            score_a: 40,
            score_b: 24,
            plies: 60,
            ..GameRecord::for_test(GameKind::Othello, a, b, result)
        }
    }

    const ODD: &str = "<b>&\"x\"";

    /// Three bots, one with an awkward name; `never` meets nobody but `alpha`; `alpha` times
    /// out 25 times against `beta` and crashes once.
    fn sample() -> (Standings, Vec<Failure>) {
        let mut games = vec![
            game(1, "alpha", ODD, GameResult::A),
            game(2, ODD, "alpha", GameResult::Draw),
            game(3, "never", "alpha", GameResult::B),
        ];
        let mut failures = Vec::new();
        for id in 10..35 {
            games.push(GameRecord {
                reason: Reason::Timeout,
                culprit: Culprit::A,
                ..game(id, "alpha", "beta", GameResult::B)
            });
            failures.push(Failure {
                bot: "alpha".into(),
                game_id: id,
                reason: Reason::Timeout,
            });
        }
        games.push(GameRecord {
            reason: Reason::Crash,
            culprit: Culprit::B,
            ..game(40, ODD, "alpha", GameResult::A)
        });
        failures.push(Failure {
            bot: "alpha".into(),
            game_id: 40,
            reason: Reason::Crash,
        });
        (crate::standings::compute(&games), failures)
    }

    fn report(s: &Standings, failures: Vec<Failure>) -> HtmlReport<'_> {
        let ratings = s
            .rows
            .iter()
            .map(|r| (r.bot != "never").then_some((1500.0 + r.points as f64, 1400.0, 1620.0)))
            .collect();
        HtmlReport {
            title: format!("othello — results/{ODD}"),
            config: vec![("seed".into(), "42".into()), ("bots".into(), ODD.into())],
            standings: s,
            ratings: Some(ratings),
            first_move_elo: Some(35.4),
            failures,
            replays: true,
        }
    }

    fn parse(html: &str) -> roxmltree::Document<'_> {
        let options = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        roxmltree::Document::parse_with_options(html, options)
            .unwrap_or_else(|e| panic!("not well-formed: {e}"))
    }

    fn has_class(n: &roxmltree::Node<'_, '_>, class: &str) -> bool {
        n.attribute("class")
            .is_some_and(|c| c.split(' ').any(|x| x == class))
    }

    fn text(n: roxmltree::Node<'_, '_>) -> String {
        n.descendants()
            .filter(|d| d.is_text())
            .filter_map(|d| d.text())
            .collect()
    }

    #[test]
    fn the_page_parses_as_xml_and_is_self_contained() {
        let (s, failures) = sample();
        let html = render(&report(&s, failures));
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
        let doc = parse(&html);
        assert_eq!(doc.root_element().tag_name().name(), "html");
        let lower = html.to_lowercase();
        for bad in ["http://", "https://", "<script", "<link", "url(", "@import"] {
            assert!(!lower.contains(bad), "found `{bad}`");
        }
        // Deterministic: the same report renders to the same bytes.
        let (s2, failures2) = sample();
        assert_eq!(render(&report(&s2, failures2)), html);
    }

    #[test]
    fn every_bot_name_comes_through_escaped() {
        let (s, failures) = sample();
        let html = render(&report(&s, failures));
        assert!(!html.contains(ODD));
        assert!(html.contains("&lt;b&gt;&amp;&quot;x&quot;"));
        let doc = parse(&html);
        let bots: Vec<String> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "td" && has_class(n, "bot"))
            .map(text)
            .collect();
        assert_eq!(bots, ["beta", "alpha", ODD, "never", "alpha"]);
        let title = doc
            .descendants()
            .find(|n| n.tag_name().name() == "title")
            .unwrap();
        assert_eq!(text(title), format!("othello — results/{ODD}"));
        // The heatmap's column headings carry the names in attributes.
        let cols: Vec<&str> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "th" && has_class(n, "col"))
            .filter_map(|n| n.attribute("title"))
            .collect();
        assert_eq!(cols, ["beta", "alpha", ODD, "never"]);
    }

    #[test]
    fn the_heatmap_has_a_cell_per_pair() {
        let (s, failures) = sample();
        let html = render(&report(&s, failures));
        let doc = parse(&html);
        let cells: Vec<_> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "td" && has_class(n, "hm"))
            .collect();
        assert_eq!(cells.len(), 16);
        let count = |class| cells.iter().filter(|n| has_class(n, class)).count();
        assert_eq!(count("self"), 4);
        // Only alpha met everyone: 3 pairs met, so 6 of the 12 off-diagonal cells are empty.
        assert_eq!(count("none"), 6);
        // Rows and columns: beta, alpha, the odd bot, never. alpha against the odd bot: a
        // win, a draw and a loss by crash.
        let cell = cells[4 + 2];
        assert_eq!(text(cell), "50%3/6");
        assert_eq!(
            cell.attribute("title"),
            Some(
                "alpha against <b>&\"x\": 3 of 6 points in 3 games, 50% \
                 (2 moving first, 1 moving second)"
            )
        );
        assert!(cell
            .attribute("style")
            .is_some_and(|s| s.starts_with("background-color:#")));
        // alpha against beta: lost all 25, the darkest red with light text.
        let lost = cells[4];
        assert_eq!(text(lost), "0%0/50");
        assert_eq!(lost.attribute("style"), Some("background-color:#ca0020"));
        assert!(has_class(&lost, "light"));
    }

    #[test]
    fn failures_link_their_replays_up_to_a_cap() {
        let (s, failures) = sample();
        let html = render(&report(&s, failures.clone()));
        let doc = parse(&html);
        let links: Vec<&str> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "a")
            .filter_map(|n| n.attribute("href"))
            .filter(|h| h.starts_with("replays/"))
            .collect();
        let mut expected: Vec<String> = (10..10 + MAX_LISTED as u64)
            .map(|id| format!("replays/{id}.jsonl"))
            .collect();
        expected.push("replays/40.jsonl".into());
        assert_eq!(links, expected);
        assert!(html.contains("and 5 more"));
        // Standings failure counts link to the bot's row in the failures table.
        let row = doc
            .descendants()
            .find(|n| n.attribute("id") == Some("fail-1"));
        assert_eq!(text(row.unwrap().first_child().unwrap()), "alpha");
        assert!(html.contains("<td class=\"fail\"><a href=\"#fail-1\">25</a></td>"));

        let plain = render(&HtmlReport {
            replays: false,
            ..report(&s, failures)
        });
        assert!(!plain.contains("replays/"));
        assert!(plain.contains("<span class=\"gid\">40</span>"));
    }

    #[test]
    fn ratings_draw_bars_or_say_unbounded() {
        let (s, failures) = sample();
        let html = render(&report(&s, failures.clone()));
        let doc = parse(&html);
        let bars = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "svg" && has_class(n, "bar"))
            .count();
        assert_eq!(bars, 3);
        assert_eq!(html.matches(">unbounded</td>").count(), 1);
        // The axis runs over 1400..1620 in steps of 100 widened to round ticks.
        let ticks: Vec<String> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "svg" && has_class(n, "axis"))
            .flat_map(|n| n.children().map(text))
            .collect();
        assert_eq!(ticks, ["1400", "1500", "1600", "1700"]);
        assert!(html.contains("First-move advantage: <strong>+35 Elo</strong>"));

        let bare = render(&HtmlReport {
            ratings: None,
            first_move_elo: None,
            ..report(&s, failures)
        });
        parse(&bare);
        assert!(!bare.contains("<svg class=\"bar\""));
        assert!(!bare.contains(">Elo<"));
        assert!(!bare.contains("First-move"));
    }

    #[test]
    fn an_empty_tournament_still_renders() {
        let s = crate::standings::compute(&[]);
        let html = render(&HtmlReport {
            title: "morra".into(),
            config: Vec::new(),
            standings: &s,
            ratings: Some(Vec::new()),
            first_move_elo: None,
            failures: Vec::new(),
            replays: true,
        });
        parse(&html);
        assert!(html.contains("No games were played."));
        assert!(html.contains("No bot timed out"));
    }

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(esc("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
        assert_eq!(esc("x\u{1}y\u{7f}"), "x\u{fffd}y\u{fffd}");
        assert_eq!(num(-0.4), "0");
        assert_eq!(num(-12.6), "−13");
        assert_eq!(signed(35.4), "+35");
    }

    #[test]
    fn wide_heatmaps_shrink_to_fit_a_printed_page() {
        let round_robin = |n: usize| {
            let names: Vec<String> = (0..n).map(|i| format!("bot{i:02}")).collect();
            let mut games = Vec::new();
            for a in &names {
                for b in &names {
                    if a != b {
                        games.push(game(1, a, b, GameResult::Draw));
                    }
                }
            }
            crate::standings::compute(&games)
        };
        assert_eq!(heatmap_print_zoom(&round_robin(8)), None);
        let wide = round_robin(20);
        assert_eq!(heatmap_print_zoom(&wide), Some(0.86));
        let html = render(&HtmlReport {
            ratings: None,
            ..report(&wide, Vec::new())
        });
        assert!(html.contains("@media print { .heat { zoom: 0.86; } }\n</style>"));
        assert!(html.contains("<table class=\"heat dense\">"));
    }

    #[test]
    fn the_colour_scale_runs_red_to_blue_through_grey() {
        assert_eq!(share_colour(0.0), ("#ca0020".to_string(), true));
        assert_eq!(share_colour(0.5), ("#f7f7f7".to_string(), false));
        assert_eq!(share_colour(1.0), ("#0571b0".to_string(), true));
        assert_eq!(
            percent(&Cell {
                games: 8,
                points: 1,
                ..Cell::default()
            }),
            6
        );
    }
}
