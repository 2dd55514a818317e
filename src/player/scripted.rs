//! A player that replays a script: the test double of every other player, so the referee and
//! the tournament can be tested without processes.

use std::collections::VecDeque;

use super::{Failure, Player, Request};

/// Replies from a script, recording the requests it saw.
#[derive(Debug, Default)]
pub struct Scripted {
    replies: VecDeque<Result<String, Failure>>,
    /// Replies given when the script has run out: `None` means crash.
    fallback: Option<fn(&Request<'_>) -> String>,
    /// Every request's fields, in order.
    pub seen: Vec<Vec<String>>,
    /// Whether the referee ended the game for this player.
    pub finished: bool,
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

    /// A player that always answers with `reply(request)` once its script has run out.
    pub fn with_fallback(mut self, reply: fn(&Request<'_>) -> String) -> Self {
        self.fallback = Some(reply);
        self
    }

    /// A player that always plays the first legal move (board games) or `reply(request)`.
    pub fn first_legal(reply: fn(&Request<'_>) -> String) -> Self {
        Scripted::default().with_fallback(reply)
    }
}

impl Player for Scripted {
    async fn ask(&mut self, request: Request<'_>) -> Result<String, Failure> {
        self.seen.push(request.fields.to_vec());
        match self.replies.pop_front() {
            Some(reply) => reply,
            None => match self.fallback {
                Some(reply) => Ok(reply(&request)),
                None => Err(Failure::Crash("script ran out".into())),
            },
        }
    }

    async fn finish(&mut self) {
        self.finished = true;
    }
}
