//! A player that replays a script: the test double of every other player, so the referee and
//! the tournament can be tested without processes.

use std::collections::VecDeque;

use super::{Failure, Player, Request};

/// A reply computed from the request: a strategy for scripted players.
pub type Strategy = fn(&Request<'_>) -> Result<String, Failure>;

/// Replies from a script, recording the requests it saw.
#[derive(Debug, Default)]
pub struct Scripted {
    replies: VecDeque<Result<String, Failure>>,
    /// Replies given when the script has run out: `None` means crash.
    fallback: Option<Strategy>,
    /// Every request's fields, in order.
    pub seen: Vec<Vec<String>>,
    /// Whether the referee ended the game for this player.
    pub finished: bool,
    /// Gets another try after an illegal reply, like a person.
    pub retries: bool,
    /// Why each refused reply was refused.
    pub rejections: Vec<String>,
}

impl Scripted {
    /// A player giving `replies` in order, then crashing.
    pub fn new(replies: &[Result<&str, Failure>]) -> Self {
        Scripted {
            replies: replies
                .iter()
                .map(|r| r.clone().map(str::to_string))
                .collect(),
            ..Scripted::default()
        }
    }

    /// A player that answers with `strategy(request)` once its script has run out.
    pub fn then(mut self, strategy: Strategy) -> Self {
        self.fallback = Some(strategy);
        self
    }

    /// A player that always answers with `strategy(request)`.
    pub fn playing(strategy: Strategy) -> Self {
        Scripted::default().then(strategy)
    }

    /// The first legal move of a board game: a strategy.
    pub fn first_legal(request: &Request<'_>) -> Result<String, Failure> {
        request
            .rules
            .legal_moves()
            .into_iter()
            .next()
            .ok_or_else(|| Failure::Crash("no legal move".into()))
    }
}

impl Player for Scripted {
    async fn ask(&mut self, request: Request<'_>) -> Result<String, Failure> {
        self.seen.push(request.fields.to_vec());
        match self.replies.pop_front() {
            Some(reply) => reply,
            None => match self.fallback {
                Some(strategy) => strategy(&request),
                None => Err(Failure::Crash("script ran out".into())),
            },
        }
    }

    fn retries_illegal(&self) -> bool {
        self.retries
    }

    fn rejected(&mut self, why: &str) {
        self.rejections.push(why.to_string());
    }

    async fn finish(&mut self) {
        self.finished = true;
    }
}
