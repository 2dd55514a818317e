//! `arena run ... --update`: the field given is matched by name with the tournament its
//! `--out` holds, each bot new, revised (its checksums changed), unchanged or gone; the plan
//! then keeps the games that still count and plays the others, as for any run.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::config::RunConfig;
use crate::results::games::{read_games, GamesWriter};
use crate::results::superseded;

use super::field::Loaded;
use super::file::{first_difference, BotEntry, TournamentFile};
use super::remote::Remotes;
use super::{finish, plan, plural, workspace, Summary};

/// Updates the tournament in the configuration's `--out` (locked by the caller) to the field
/// of `loaded`: plays only the games of new and revised bots, sets aside those of revised and
/// gone bots, and writes every output for the current field.
pub async fn update<R: Remotes>(
    mut config: RunConfig,
    loaded: Loaded,
    started: Instant,
    remotes: Arc<R>,
) -> Result<Summary> {
    let out = config.out().to_path_buf();
    let before = TournamentFile::read(&out)?;
    if before.config.format.format == crate::config::Format::Swiss
        || before.config.format.sprt.is_some()
    {
        // A Swiss round or an SPRT's stop depends on every game before it: there is nothing
        // to keep when the field changes.
        bail!("`--update` cannot update a Swiss tournament or an SPRT match: run it again");
    }
    if before.config.tournament.shard.is_some() || config.tournament.shard.is_some() {
        bail!("`--update` cannot update a shard: update the whole tournament, or run the shards again");
    }
    if before.bots.iter().any(|b| b.remote) {
        bail!("`{}` is a tournament of `arena serve` with remote entrants: `--update` updates `arena run` tournaments", out.display());
    }
    match (config.tournament.seed, before.config.tournament.seed) {
        (Some(now), Some(then)) if now != then => bail!(
            "`--seed {now}` differs from the tournament's seed {then}: `--update` keeps the \
             settings of `{}` (leave out `--seed`, or give `--seed {then}`)",
            out.display()
        ),
        (_, then) => config.tournament.seed = then,
    }
    if let Some(key) = first_difference(&settings(&before.config)?, &settings(&config)?, "") {
        bail!(
            "the settings differ from those of the tournament in `{}` in `{key}`: `--update` \
             plays the same tournament with another field (start another `--out` to change \
             its settings)",
            out.display()
        );
    }
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let work = out.join("work");
    if work.exists() {
        std::fs::remove_dir_all(&work)
            .with_context(|| format!("cannot remove `{}`", work.display()))?;
    }
    let workspace = workspace(&config, true)?;
    let field = loaded.prepare(&config, &workspace, 0).await?;
    // Matched by name: a bot's games still count while its files are the same.
    let mut revised = HashSet::new();
    let mut entries: Vec<BotEntry> = Vec::new();
    for mut entry in field.entries {
        match before.bots.iter().find(|b| b.name == entry.name) {
            Some(old) if old.checksums == entry.checksums => {
                entry.since = Some(old.since.clone().unwrap_or(before.started_at.clone()));
            }
            Some(_) => {
                revised.insert(entry.name.clone());
                entry.since = Some(now.clone());
            }
            None => entry.since = Some(now.clone()),
        }
        entries.push(entry);
    }
    let mut info = TournamentFile {
        config,
        gauntlet: field.references,
        bots: entries,
        excluded: field.excluded,
        blocks: before.blocks_or_first(),
        ..before.clone()
    };
    let games_path = out.join("games.csv");
    let records = read_games(std::slice::from_ref(&games_path))?;
    let dropped = superseded::read(&superseded::path(&out))?;
    let planned = plan::plan(&info, Some(&before), &records, &dropped, &revised);
    if let Some(block) = planned.block.clone() {
        info.blocks.push(block);
    }
    describe(&before, &info, &revised, &planned);
    // Set aside before `tournament.json` names the new field: stopped between the two, the
    // next `--update` plans the same.
    if !planned.superseded.is_empty() {
        superseded::append(&out, &planned.superseded)?;
    }
    info.write(&out)?;
    let writer = GamesWriter::reopen(&games_path)?;
    let counted = super::counting(records, &dropped, &planned);
    finish(
        info, workspace, field.bots, counted, planned, writer, started, remotes,
    )
    .await
}

/// A configuration as JSON without what an update may change: the bots, where the outputs
/// go, how many games run at once, and a gauntlet's pass rule (which changes no game).
fn settings(config: &RunConfig) -> Result<serde_json::Value> {
    let mut value = serde_json::to_value(config).context("cannot compare configurations")?;
    if let Some(map) = value.as_object_mut() {
        map.remove("output");
        map.remove("bots");
    }
    if let Some(map) = value.get_mut("tournament").and_then(|v| v.as_object_mut()) {
        map.remove("gauntlet");
        map.remove("jobs");
        map.remove("pass");
    }
    Ok(value)
}

/// Says on stderr what changed and what will be played.
fn describe(
    before: &TournamentFile,
    info: &TournamentFile,
    revised: &HashSet<String>,
    planned: &plan::Planned,
) {
    let names =
        |bots: &[BotEntry]| -> Vec<String> { bots.iter().map(|b| b.name.clone()).collect() };
    let (then, now) = (names(&before.bots), names(&info.bots));
    let list = |bots: Vec<&String>| -> String {
        if bots.is_empty() {
            "none".to_string()
        } else {
            bots.iter()
                .map(|b| format!("`{b}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let mut sorted: Vec<&String> = revised.iter().collect();
    sorted.sort();
    eprintln!(
        "updating `{}`: new {}; revised {}; gone {}; {} to play, {} set aside",
        info.run,
        list(now.iter().filter(|n| !then.contains(n)).collect()),
        list(sorted),
        list(then.iter().filter(|n| !now.contains(n)).collect()),
        plural(planned.games.len(), "game"),
        plural(planned.superseded.len(), "game"),
    );
}
