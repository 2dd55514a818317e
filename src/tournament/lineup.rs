//! The bots of a tournament as the players of its games: each game gets fresh processes of
//! its two bots, in an instance of each bot that no other running game uses.

use std::sync::Arc;

use crate::bot::prepare::PreparedBot;
use crate::bot::workspace::Instances;
use crate::player::process::{PlayerSettings, ProcessPlayer};

use super::runner::{GameSeed, Seats};

/// A bot's idle instances, and how many it has in all.
type Pool = std::sync::Mutex<(Vec<Arc<PreparedBot>>, usize)>;

/// A player that gives its instance back to `pool` when its game is over.
fn returning(player: ProcessPlayer, pool: &Arc<Pool>) -> ProcessPlayer {
    let pool = Arc::clone(pool);
    player.on_release(Box::new(move |instance| {
        pool.lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .push(instance);
    }))
}

/// The bots of a tournament as players: each game gets fresh processes of its two bots, in
/// an instance of each that no other running game uses.
pub(super) struct Lineup {
    pub(super) bots: Vec<Arc<PreparedBot>>,
    /// Each bot's idle instances (its first one is the bot itself), and how many it has.
    idle: Vec<Arc<Pool>>,
    instances: Instances,
    capacity: usize,
    settings: PlayerSettings,
}

impl Lineup {
    pub(super) fn new(
        bots: Vec<Arc<PreparedBot>>,
        instances: Instances,
        capacity: usize,
        settings: PlayerSettings,
    ) -> Self {
        Lineup {
            idle: bots
                .iter()
                .map(|b| Arc::new(std::sync::Mutex::new((vec![Arc::clone(b)], 1))))
                .collect(),
            bots,
            instances,
            capacity,
            settings,
        }
    }
}

impl Seats for Lineup {
    type Player = ProcessPlayer;

    fn name(&self, bot: usize) -> &str {
        &self.bots[bot].spec.name
    }

    fn capacity(&self, _bot: usize) -> usize {
        self.capacity
    }

    fn player(&self, bot: usize, game: &GameSeed) -> ProcessPlayer {
        let settings = PlayerSettings {
            seed: game.seed,
            tag: game.game_id.to_string(),
            ..self.settings.clone()
        };
        let mut idle = self.idle[bot].lock().unwrap_or_else(|e| e.into_inner());
        if let Some(instance) = idle.0.pop() {
            return returning(ProcessPlayer::new(instance, settings), &self.idle[bot]);
        }
        idle.1 += 1;
        let n = idle.1;
        drop(idle);
        let primary = &self.bots[bot];
        match self.instances.make(primary, n) {
            Ok(instance) => returning(
                ProcessPlayer::new(Arc::new(instance), settings),
                &self.idle[bot],
            ),
            Err(e) => ProcessPlayer::new(Arc::clone(primary), settings)
                .unable(format!("cannot make another instance: {e:#}")),
        }
    }

    fn prepare(&self, bot: usize) {
        let idle = self.idle[bot].lock().unwrap_or_else(|e| e.into_inner());
        // The instance its next game takes (`player` pops the last one).
        let Some(instance) = idle.0.last().filter(|i| i.jail.wants_holder_ahead()) else {
            return;
        };
        let instance = Arc::clone(instance);
        drop(idle);
        tokio::task::spawn_blocking(move || instance.jail.prewarm());
    }

    fn write_error(&self, bot: usize) -> Option<String> {
        self.bots[bot].log.error()
    }

    fn note(&self, bot: usize, text: &str) {
        self.bots[bot].log.note(text);
    }
}
