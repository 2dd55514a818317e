//! `report.html`: gathers the standings, ratings and failures of the games for
//! [`super::html::render`].

use anyhow::Result;

use super::html;
use super::{ExportContext, Exporter};
use crate::results::games::{Culprit, GameTable};

/// Writes `report.html`.
pub struct HtmlReportFile;

impl Exporter for HtmlReportFile {
    fn file_name(&self) -> &str {
        "report.html"
    }

    fn render(&self, ctx: &ExportContext<'_>) -> Result<String> {
        let standings = ctx.standings;
        let report = html::HtmlReport {
            title: ctx.options.title.clone(),
            config: ctx.options.config.clone(),
            standings,
            ratings: Some(standings.rows.iter().map(|r| r.elo).collect()),
            first_move_elo: standings.first_move.map(|f| f.0),
            failures: failures(ctx.games),
            games: ctx.games,
            grades: ctx.grades,
            left_out: &ctx.options.left_out,
            sprt: ctx.options.sprt.as_ref(),
            swiss: ctx.options.swiss.as_ref(),
            logs: if ctx.logs.any() {
                (ctx.games.iter())
                    .map(|g| {
                        [g.bot_a, g.bot_b].map(|bot| ctx.logs.href(ctx.games.name(bot), g.game_id))
                    })
                    .collect()
            } else {
                Vec::new()
            },
            replays: html::replays::find(
                ctx.games,
                &ctx.options.replays,
                html::replays::EMBED_LIMIT,
            ),
        };
        Ok(html::render(&report))
    }
}

/// Every failure in `games`, in game order: one per bot that caused its game's end.
pub fn failures(games: &GameTable) -> Vec<html::Failure> {
    let mut failures = Vec::new();
    for (index, g) in games.iter().enumerate() {
        let culprits: &[u32] = match g.culprit {
            Culprit::Nobody => &[],
            Culprit::A => &[g.bot_a],
            Culprit::B => &[g.bot_b],
            Culprit::Both => &[g.bot_a, g.bot_b],
        };
        failures.extend(culprits.iter().map(|&bot| html::Failure {
            bot: games.name(bot).to_string(),
            game_id: g.game_id,
            game: index,
            reason: g.reason,
        }));
    }
    // In game order, whatever order the games ended in.
    failures.sort_by_key(|f| f.game_id);
    failures
}
