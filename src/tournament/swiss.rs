//! A Swiss tournament as it is played: plans each round from the games recorded so far when
//! the round before is over, and writes the Swiss standings at the end.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};

use crate::config::RunConfig;
use crate::results::games::{GameRecord, GameResult};
use crate::schedule::swiss::{Played, Swiss, BYE_POINTS};
use crate::schedule::Pairing;
use crate::standings::swiss::{standings, SwissTable};
use crate::standings::{DRAW_POINTS, WIN_POINTS};

/// The rounds of a Swiss tournament, with the games recorded before this run.
pub struct Rounds {
    swiss: Swiss,
    names: Vec<String>,
    before: Vec<GameRecord>,
}

impl Rounds {
    /// The rounds of `config`'s Swiss tournament of `names`, `None` for another format.
    pub fn new(config: &RunConfig, names: &[&str], before: &[GameRecord]) -> Option<Rounds> {
        let rounds = config.format.swiss_rounds(names.len())?;
        Some(Rounds {
            swiss: Swiss {
                bots: names.len(),
                rounds,
                seed: config.seed(),
            },
            names: names.iter().map(|n| n.to_string()).collect(),
            before: before.to_vec(),
        })
    }

    /// The games of every round.
    pub fn total(&self) -> usize {
        self.swiss.rounds as usize * self.swiss.games_per_round() as usize
    }

    /// `records` as the pairing sees them.
    fn played<'r>(&self, records: impl Iterator<Item = &'r GameRecord>) -> Vec<Played> {
        let index: HashMap<&str, usize> = (self.names.iter().enumerate())
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        records
            .filter_map(|r| {
                let seats = [*index.get(r.bot_a.as_str())?, *index.get(r.bot_b.as_str())?];
                Some(Played {
                    round: r.round,
                    seats,
                    points: points(r.result),
                })
            })
            .collect()
    }

    /// The runner's source of games: the missing games of the first unfinished round, each
    /// round planned once the one before is over; the progress bar grows by each round.
    pub fn rule(&self, progress: indicatif::ProgressBar) -> super::runner::More<'_> {
        Box::new(move |records| {
            let done: HashSet<u64> = (self.before.iter().chain(records))
                .map(|r| r.game_id)
                .collect();
            let played = self.played(self.before.iter().chain(records));
            let next: Vec<Pairing> = self.swiss.next(&played, &done);
            progress.inc_length(next.len() as u64);
            next
        })
    }

    /// The standings of the finished tournament of `records` (all its games).
    pub fn table(&self, records: &[GameRecord]) -> SwissTable {
        let played = self.played(records.iter());
        let byes: Vec<String> = (1..=self.swiss.rounds)
            .filter_map(|r| self.swiss.round(r, &played).bye)
            .map(|b| self.names[b].clone())
            .collect();
        let games: Vec<(&str, &str, [u32; 2])> = records
            .iter()
            .map(|r| (r.bot_a.as_str(), r.bot_b.as_str(), points(r.result)))
            .collect();
        let bye_names: Vec<&str> = byes.iter().map(String::as_str).collect();
        SwissTable {
            rounds: self.swiss.rounds,
            rows: standings(&self.names, &games, &bye_names, BYE_POINTS),
            byes,
            bye_points: BYE_POINTS,
        }
    }
}

/// Writes `swiss.md` into `out`, and returns its text.
pub fn write(out: &Path, table: &SwissTable) -> Result<String> {
    let text = markdown(table);
    let path = out.join("swiss.md");
    std::fs::write(&path, &text).with_context(|| format!("cannot write `{}`", path.display()))?;
    Ok(text)
}

/// The points of seats A and B in a game.
fn points(result: GameResult) -> [u32; 2] {
    match result {
        GameResult::A => [WIN_POINTS, 0],
        GameResult::B => [0, WIN_POINTS],
        GameResult::Draw => [DRAW_POINTS, DRAW_POINTS],
    }
}

/// The Swiss standings as a Markdown table, with the byes under it.
fn markdown(table: &SwissTable) -> String {
    let (rounds, bye_points) = (table.rounds, table.bye_points);
    let mut out = format!(
        "Swiss standings after {rounds} rounds (a bye counts {bye_points} points)\n\n\
         | rank | bot | points | Buchholz | Sonneborn-Berger | games | byes |\n\
         | ---: | :-- | -----: | -------: | ---------------: | ----: | ---: |\n"
    );
    for r in &table.rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            r.rank,
            r.bot.replace('|', "\\|"),
            r.points,
            r.buchholz,
            r.sonneborn_berger,
            r.games,
            r.byes
        ));
    }
    if !table.byes.is_empty() {
        let byes = table.byes.join(", ");
        out.push_str(&format!("\nByes, round by round: {byes}\n"));
    }
    out
}
