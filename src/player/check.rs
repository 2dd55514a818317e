//! Engines checked before the first game: each engine bot is started once, as a game would
//! start it, for its handshake and settings, so that one that refuses an `options` entry is
//! left out with the engine's own answer instead of losing every game the same way.

use std::sync::Arc;

use tokio::task::JoinSet;

use super::process::{PlayerSettings, ProcessPlayer};
use crate::bot::prepare::PreparedBot;
use crate::bot::BotSpec;

/// The bots that passed, in their order; each engine that failed goes to `excluded` with the
/// reason (also noted in its log). `jobs` engines are checked at once.
pub async fn check_engines(
    bots: Vec<Arc<PreparedBot>>,
    excluded: &mut Vec<(BotSpec, String)>,
    settings: &PlayerSettings,
    jobs: usize,
) -> Vec<Arc<PreparedBot>> {
    let permits = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let mut checks = JoinSet::new();
    for (i, bot) in bots.iter().enumerate() {
        if bot.spec.protocol.only_for().is_none() {
            continue;
        }
        let settings = PlayerSettings {
            pause: false,
            tag: "check".to_string(),
            ..settings.clone()
        };
        let (bot, permits) = (Arc::clone(bot), Arc::clone(&permits));
        checks.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let mut player = ProcessPlayer::new(bot, settings);
            (i, player.check_engine().await)
        });
    }
    let mut failed = Vec::new();
    while let Some(joined) = checks.join_next().await {
        match joined {
            Ok((i, Err(reason))) => failed.push((i, reason)),
            Ok((_, Ok(()))) => {}
            // A check that panicked proves nothing: the games will tell.
            Err(_) => {}
        }
    }
    failed.sort();
    let mut ready = Vec::new();
    for (i, bot) in bots.into_iter().enumerate() {
        match failed.iter().find(|(f, _)| *f == i) {
            Some((_, reason)) => {
                bot.log.note(&format!("left out: {reason}"));
                excluded.push((bot.spec.clone(), reason.clone()));
            }
            None => ready.push(bot),
        }
    }
    ready
}
