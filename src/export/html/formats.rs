//! The report's sections for the formats beyond the round robin: an SPRT match (verdict, LLR
//! against its bounds, Elo with its interval, pentanomial counts) and a Swiss tournament
//! (standings with their tie-breaks, byes).

use std::fmt::Write;

use super::{esc, signed};
use crate::standings::sprt::{Sprt, Verdict};
use crate::standings::swiss::SwissTable;

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

/// Writes a Swiss tournament's standings: points, then the tie-breaks in the order they
/// apply, and the byes.
pub fn swiss(out: &mut String, t: &SwissTable) {
    let _ = writeln!(
        out,
        "<section id=\"swiss\">\n<h2>Swiss standings</h2>\n<p class=\"note\">After {} rounds; a bye counts {} points. Ties are broken by Buchholz, then Sonneborn-Berger, then the games between the bots still tied.</p>\n<table class=\"swiss\">\n<thead>\n<tr><th>#</th><th class=\"bot\">Bot</th><th>Points</th><th>Buchholz</th><th>Sonneborn-Berger</th><th>Games</th><th>Byes</th></tr>\n</thead>\n<tbody>",
        t.rounds, t.bye_points
    );
    for r in &t.rows {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"bot\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.rank,
            esc(&r.bot),
            r.points,
            r.buchholz,
            r.sonneborn_berger,
            r.games,
            r.byes
        );
    }
    out.push_str("</tbody>\n</table>\n");
    if !t.byes.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"note\">Byes, round by round: {}</p>",
            esc(&t.byes.join(", "))
        );
    }
    out.push_str("</section>\n");
}
