//! A run's field: its bots loaded, prepared and checked, the references among them, and their
//! entries for `tournament.json`. `arena run` and `arena run --update` both start with it.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};

use crate::bot::prepare::PreparedBot;
use crate::bot::workspace::Workspace;
use crate::bot::{BotSpec, Rejected};
use crate::config::RunConfig;
use crate::player::check::check_engines;

use super::file::{BotEntry, Excluded};
use super::too_few_bots;

/// The bots given, loaded but not yet prepared.
pub struct Loaded {
    specs: Vec<BotSpec>,
    rejected: Vec<Rejected>,
}

/// The bots that play, ready, and those left out.
pub struct Field {
    pub bots: Vec<Arc<PreparedBot>>,
    /// A gauntlet's references, by name (empty for a round robin).
    pub references: Vec<String>,
    /// The local bots' entries, in schedule order.
    pub entries: Vec<BotEntry>,
    /// The bots left out, and why.
    pub excluded: Vec<Excluded>,
}

/// Loads the configuration's bots; a reference that cannot load, or fewer than two players
/// in a round robin (counting `remotes` entrants), is an error, other bots are left out.
pub fn load(config: &RunConfig, remotes: usize) -> Result<Loaded> {
    let loaded = crate::bot::load_all(&config.all_bots(), config.game);
    let is_reference = |source: &Path| {
        config
            .tournament
            .gauntlet
            .iter()
            .any(|r| Path::new(&r.to_string()) == source)
    };
    for rejected in &loaded.rejected {
        if is_reference(&rejected.source) {
            bail!(
                "reference bot `{}` cannot play: {}",
                rejected.name,
                rejected.reason
            );
        }
        eprintln!(
            "warning: bot `{}` is left out: {}",
            rejected.name, rejected.reason
        );
    }
    if loaded.specs.len() + remotes < 2 && config.tournament.gauntlet.is_empty() {
        return Err(too_few_bots(
            loaded.specs.len() + remotes,
            loaded.rejected.len(),
        ));
    }
    Ok(Loaded {
        specs: loaded.specs,
        rejected: loaded.rejected,
    })
}

impl Loaded {
    /// Prepares the bots in `workspace` and checks engines answer; a reference that fails is
    /// an error, other bots are left out.
    pub async fn prepare(
        self,
        config: &RunConfig,
        workspace: &Workspace,
        remotes: usize,
    ) -> Result<Field> {
        let references: Vec<String> = self.specs[..config.tournament.gauntlet.len()]
            .iter()
            .map(|s| s.name.clone())
            .collect();
        let (bots, mut excluded) = workspace.prepare_all(self.specs, config.jobs()).await?;
        let bots = check_engines(
            bots,
            &mut excluded,
            &config.player_settings(),
            config.jobs(),
        )
        .await;
        for (spec, reason) in &excluded {
            if references.contains(&spec.name) {
                bail!("reference bot `{}` cannot play: {reason}", spec.name);
            }
            eprintln!("warning: bot `{}` is left out: {reason}", spec.name);
        }
        // A gauntlet whose candidates all failed still grades them (as never run).
        if bots.len() + remotes < 2 && references.is_empty() {
            return Err(too_few_bots(
                bots.len() + remotes,
                self.rejected.len() + excluded.len(),
            ));
        }
        let mut entries = Vec::new();
        for b in &bots {
            entries.push(BotEntry {
                name: b.spec.name.clone(),
                source: if b.spec.inline {
                    b.spec.source.clone()
                } else {
                    std::path::absolute(&b.spec.source)
                        .with_context(|| format!("cannot resolve `{}`", b.spec.source.display()))?
                },
                command: b.spec.command.clone(),
                protocol: b.spec.protocol,
                program: b.program.clone(),
                checksums: crate::bot::checksums(&b.spec.source, &config.sandbox.share)?,
                remote: false,
                since: None,
            });
        }
        let excluded = (self.rejected.into_iter())
            .map(|r| Excluded {
                name: r.name,
                source: r.source,
                reason: r.reason,
            })
            .chain(excluded.iter().map(|(s, reason)| Excluded {
                name: s.name.clone(),
                source: s.source.clone(),
                reason: reason.clone(),
            }))
            .collect();
        Ok(Field {
            bots,
            references,
            entries,
            excluded,
        })
    }
}
