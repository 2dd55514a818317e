//! The report's SPRT section: the test's verdict, its LLR against the bounds, the Elo with
//! its interval, and the pentanomial counts of the pairs.

use std::fmt::Write;

use super::{esc, signed};
use crate::standings::sprt::{Sprt, Verdict};

/// Writes the section of an SPRT match.
pub fn sprt(out: &mut String, t: &Sprt) {
    let verdict = match t.result {
        Verdict::H1 => format!(
            "H1 accepted: the Elo of {} is {} or more rather than {} or less",
            t.bots[0], t.elo1, t.elo0
        ),
        Verdict::H0 => format!(
            "H0 accepted: the Elo of {} is {} or less rather than {} or more",
            t.bots[0], t.elo0, t.elo1
        ),
        Verdict::None => "no decision: neither bound was reached".to_string(),
    };
    let _ = writeln!(
        out,
        "<section id=\"sprt\">\n<h2>SPRT</h2>\n<p class=\"verdict\"><strong>{}</strong></p>\n\
         <table class=\"config\">\n<tbody>\n\
         <tr><th scope=\"row\">Hypotheses</th><td>H0: elo ≤ {} · H1: elo ≥ {} (α = {}, β = {})</td></tr>\n\
         <tr><th scope=\"row\">LLR</th><td class=\"llr\">{:.2} in [{:.2}, {:.2}]</td></tr>\n\
         <tr><th scope=\"row\">Elo of {}</th><td class=\"elo\">{} [{}, {}]</td></tr>\n\
         <tr><th scope=\"row\">Games</th><td>{} ({} pairs)</td></tr>\n\
         <tr><th scope=\"row\">Pentanomial (0, ½, 1, 1½, 2)</th><td class=\"pentanomial\">{}</td></tr>\n\
         </tbody>\n</table>\n</section>",
        esc(&verdict),
        t.elo0,
        t.elo1,
        t.alpha,
        t.beta,
        t.llr,
        t.lower,
        t.upper,
        esc(&t.bots[0]),
        signed(t.elo),
        signed(t.elo_low),
        signed(t.elo_high),
        t.games,
        t.games / 2,
        t.pentanomial.map(|c| c.to_string()).join(", ")
    );
}
