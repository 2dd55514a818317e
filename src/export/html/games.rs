//! The list of games, each id opening the game's replay in the page's viewer, with links to
//! each bot's stderr in that game.

use std::fmt::Write;

use super::{esc, HtmlReport};
use crate::results::games::{Culprit, GameResult, Reason};

/// Games listed in the page; a longer tournament lists its first ones and says how many more.
pub const MAX_GAMES: usize = 2000;

/// Games listed open; a longer list starts collapsed.
const OPEN_GAMES: usize = 200;

/// The games section.
pub(super) fn games(out: &mut String, report: &HtmlReport<'_>) {
    let table = report.games;
    if table.is_empty() {
        return;
    }
    let linked = report.replays.any();
    let logged = report.logs.iter().flatten().any(Option::is_some);
    let first = table.first().is_none_or(|g| g.game.has_first_player());
    out.push_str("<section id=\"games\">\n<h2>Games</h2>\n");
    let _ = writeln!(
        out,
        "<details{}>\n<summary>{} in the order they ended{}</summary>",
        if table.len() <= OPEN_GAMES {
            " open=\"open\""
        } else {
            ""
        },
        super::plural(table.len(), "game", "games"),
        if linked {
            "; click a game’s number to watch its replay"
        } else {
            " (no replays)"
        }
    );
    let _ = write!(
        out,
        "<div class=\"scroll\">\n<table class=\"games\">\n<thead>\n<tr><th>Game</th>\
         <th class=\"bot\">{}</th><th class=\"bot\">{}</th><th>Score</th><th>Result</th>\
         <th class=\"ending\">Ending</th>{}</tr>\n</thead>\n<tbody>\n",
        if first { "First" } else { "Bot A" },
        if first { "Second" } else { "Bot B" },
        if logged {
            "<th class=\"logs\">Stderr</th>"
        } else {
            ""
        }
    );
    // In game order, whatever order the games ended in (they end in any order when several
    // run at once), so a run's report and one regenerated from its CSV are the same.
    let mut order: Vec<usize> = (0..table.len()).collect();
    order.sort_by_key(|&i| table[i].game_id);
    for (i, g) in order.into_iter().map(|i| (i, &table[i])).take(MAX_GAMES) {
        let (a, b) = (table.name(g.bot_a), table.name(g.bot_b));
        let id = match report.replays.href(i) {
            Some(href) => format!(
                "<a class=\"replay\" href=\"{}\">{}</a>",
                esc(href),
                g.game_id
            ),
            None => format!("<span class=\"gid\">{}</span>", g.game_id),
        };
        let result = match g.result {
            GameResult::A => format!("{} won", esc(a)),
            GameResult::B => format!("{} won", esc(b)),
            GameResult::Draw => "draw".to_string(),
        };
        let who = match g.culprit {
            Culprit::Nobody => String::new(),
            Culprit::A => format!(" by {}", esc(a)),
            Culprit::B => format!(" by {}", esc(b)),
            Culprit::Both => " by both".to_string(),
        };
        let ending = match g.reason {
            Reason::Normal => "<span class=\"zero\">by the rules</span>".to_string(),
            Reason::Timeout => format!("<span class=\"fail\">timeout{who}</span>"),
            Reason::Illegal => format!("<span class=\"fail\">illegal move{who}</span>"),
            Reason::Crash => format!("<span class=\"fail\">crash{who}</span>"),
        };
        let logs = if logged {
            let links: Vec<String> = report
                .logs
                .get(i)
                .into_iter()
                .flatten()
                .zip([a, b])
                .filter_map(|(href, bot)| {
                    let href = href.as_ref()?;
                    Some(format!(
                        "<a class=\"log\" href=\"{}\">{}</a>",
                        esc(href),
                        esc(bot)
                    ))
                })
                .collect();
            format!("<td class=\"logs\">{}</td>", links.join(" "))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "<tr><td class=\"ids\">{id}</td><td class=\"bot\">{}</td><td class=\"bot\">{}</td>\
             <td>{}–{}</td><td class=\"result\">{result}</td><td class=\"ending\">{ending}</td>\
             {logs}</tr>",
            esc(a),
            esc(b),
            g.score_a,
            g.score_b,
        );
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    if table.len() > MAX_GAMES {
        let _ = writeln!(
            out,
            "<p class=\"note\">And {} more games: see <code>games.csv</code>.</p>",
            table.len() - MAX_GAMES
        );
    }
    out.push_str("</details>\n</section>\n");
}
