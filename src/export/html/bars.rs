//! The rating bars: one horizontal scale for every bot's Elo interval, drawn as inline SVG.

use std::fmt::Write;

use super::{esc, num};

/// The horizontal scale shared by every rating bar.
pub(super) struct Axis {
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
    pub(super) fn new(ratings: &[Option<(f64, f64, f64)>]) -> Option<Axis> {
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
    pub(super) fn header_svg(&self) -> String {
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
    pub(super) fn bar_svg(&self, (elo, low, high): (f64, f64, f64), bot: &str) -> String {
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

pub(super) fn finite(&(elo, low, high): &(f64, f64, f64)) -> bool {
    elo.is_finite() && low.is_finite() && high.is_finite()
}
