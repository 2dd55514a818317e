//! The cross-table as a heatmap: cell colours, the colour legend and the print zoom.

use std::fmt::Write;

use super::{bot_class, esc, plural};
use crate::standings::{Cell, Standing, Standings};

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
pub(super) fn share_colour(share: f64) -> (String, bool) {
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
pub(super) fn percent(c: &Cell) -> u64 {
    (100 * u64::from(c.points) + u64::from(c.games)) / (2 * u64::from(c.games))
}

/// Width of the printable area of an A4 page within the margins of `@page`, in CSS pixels.
const PRINT_WIDTH: f64 = 700.0;

/// How much to shrink a heatmap that would not fit a printed page's width, estimated from
/// the print style's cell sizes and the longest name; `None` when it fits as it is.
pub(super) fn heatmap_print_zoom(s: &Standings) -> Option<f64> {
    if s.rows.len() > MOST_DRAWN {
        return None;
    }
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

/// The most bots whose cross-table the page draws. Past that its cells, a square of the
/// field, are too many to read on a screen or a page, and they would make the page itself
/// the largest file of the run (about 40 MB for 800 bots): the section then points to
/// `crosstable.csv`, beside the page, which has them all.
pub(super) const MOST_DRAWN: usize = 100;

pub(super) fn crosstable(out: &mut String, s: &Standings) {
    if s.rows.is_empty() {
        return;
    }
    out.push_str("<section id=\"crosstable\">\n<h2>Cross-table</h2>\n");
    let n = s.rows.len();
    if n > MOST_DRAWN {
        let _ = write!(
            out,
            "<p class=\"note\">{n} bots make {} cells, more than a page can show (it draws \
             the cross-table of at most {MOST_DRAWN} bots): they are in \
             <a href=\"crosstable.csv\">crosstable.csv</a>.</p>\n</section>\n",
            n * n,
        );
        return;
    }
    let split = s.game.is_some_and(|g| g.has_first_player());
    let dense = if s.rows.len() > 12 { " dense" } else { "" };
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
