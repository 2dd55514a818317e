//! `arena standings --pool`: complete runs of one game, field and settings (seeds may
//! differ) pooled into one leaderboard, as one tournament with the runs' rounds together
//! would have played them. Anything else is refused, naming what differs.

use std::collections::BTreeSet;

use anyhow::{bail, Result};

use crate::tournament::file::TournamentFile;
use crate::tournament::plural;

use super::standings::{comparable, Part};
use crate::tournament::file::first_difference;

/// Whether the runs of `parts` may be pooled: each CSV one complete run (every game of its
/// schedule, not a shard) with its `tournament.json` beside it, and all of them the same
/// game, field (bot names and files) and settings but for the seed.
pub(super) fn check(parts: &[Part]) -> Result<()> {
    let name = |p: &Part| format!("`{}`", p.csv.display());
    let mut described = Vec::new();
    for p in parts {
        let Some(info) = &p.info else {
            bail!(
                "cannot pool {}: no `tournament.json` beside it shows which run it is (only \
                 complete runs pool)",
                name(p)
            );
        };
        check_complete(p, info)?;
        described.push((p, info));
    }
    let Some(&(a, first)) = described.first() else {
        return Ok(());
    };
    let base = settings(first)?;
    for &(b, info) in &described[1..] {
        let differs = first_difference(&base, &settings(info)?, "")
            .map(|key| format!("`{key}`"))
            .or_else(|| field_difference(first, info));
        if let Some(key) = differs {
            bail!(
                "cannot pool {} and {}: the `tournament.json` beside them differ in {key} \
                 (only complete runs of one game, field and settings pool)",
                name(a),
                name(b)
            );
        }
    }
    Ok(())
}

/// A run's settings as JSON, without what pooled runs may differ in: the seed, and the bots'
/// paths (the field is compared by [`field_difference`]).
fn settings(info: &TournamentFile) -> Result<serde_json::Value> {
    let mut value = comparable(info)?;
    if let Some(map) = value.as_object_mut() {
        map.remove("bots");
    }
    if let Some(map) = value.get_mut("tournament").and_then(|v| v.as_object_mut()) {
        map.remove("seed");
        map.remove("gauntlet");
    }
    Ok(value)
}

/// What differs between two runs' fields, described: a bot in one only, a bot whose files
/// differ, the references of a gauntlet, or the bots left out.
fn field_difference(a: &TournamentFile, b: &TournamentFile) -> Option<String> {
    if a.gauntlet != b.gauntlet {
        return Some("`gauntlet` (the reference bots)".to_string());
    }
    for (x, y, only) in [(a, b, "first"), (b, a, "second")] {
        if let Some(bot) = (x.bots.iter()).find(|e| !y.bots.iter().any(|f| f.name == e.name)) {
            return Some(format!("`bots`: `{}` is in the {only} run only", bot.name));
        }
    }
    for e in &a.bots {
        let other = b.bots.iter().find(|f| f.name == e.name)?;
        if e.checksums != other.checksums {
            return Some(format!("`bots`: the files of `{}` differ", e.name));
        }
    }
    let left_out = |t: &TournamentFile| -> BTreeSet<String> {
        t.excluded.iter().map(|e| e.name.clone()).collect()
    };
    (left_out(a) != left_out(b)).then(|| "`excluded` (the bots left out)".to_string())
}

/// Refuses a CSV that is not one whole run: a shard, several runs, or games missing.
fn check_complete(p: &Part, info: &TournamentFile) -> Result<()> {
    let name = p.csv.display();
    if let Some(shard) = info.config.tournament.shard {
        bail!(
            "cannot pool `{name}`: it is shard {}/{} of a tournament, not a complete run",
            shard.index,
            shard.count
        );
    }
    if p.games.runs.len() > 1 {
        bail!("cannot pool `{name}`: it holds games of several runs");
    }
    let names: Vec<&str> = info.bots.iter().map(|b| b.name.as_str()).collect();
    let wanted: BTreeSet<u64> =
        crate::tournament::plan::field_schedule(&info.config, &names, &info.gauntlet)
            .iter()
            .map(|p| p.game_id)
            .collect();
    let played: BTreeSet<u64> = p.games.iter().map(|g| g.game_id).collect();
    if played != wanted || p.games.len() != wanted.len() {
        let dir = p
            .csv
            .parent()
            .map_or(".".into(), |d| d.display().to_string());
        bail!(
            "cannot pool `{name}`: its run is not complete ({} of its {} games); finish it \
             first with `arena resume {dir}`",
            played.intersection(&wanted).count(),
            wanted.len()
        );
    }
    Ok(())
}

/// The HTML report's title and configuration for pooled runs: the first run's, with the runs,
/// seeds and rounds of all of them.
pub(super) fn describe(infos: &[&TournamentFile]) -> Option<(String, Vec<(String, String)>)> {
    let first = infos.first()?;
    let (_, mut rows) = first.describe();
    let join = |f: &dyn Fn(&TournamentFile) -> String| {
        infos.iter().map(|i| f(i)).collect::<Vec<_>>().join(", ")
    };
    let rounds: u32 = infos.iter().map(|i| i.config.tournament.rounds).sum();
    for (key, value) in &mut rows {
        match key.as_str() {
            "run" => *value = join(&|i| i.run.clone()),
            "started at" => *value = join(&|i| i.started_at.clone()),
            "seed" => *value = join(&|i| i.config.seed().to_string()),
            "rounds" => *value = format!("{rounds} (pooled from {})", plural(infos.len(), "run")),
            _ => {}
        }
    }
    let runs = plural(infos.len(), "run");
    let title = format!("{} — {runs} pooled", first.config.game.name());
    Some((title, rows))
}
