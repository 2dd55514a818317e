//! `arena`: round-robin tournaments between bots that are separate programs.
//!
//! The flow of a run: [`cli`] turns arguments into options; [`tournament`] prepares the
//! [`bot`]s, follows the [`schedule`], and has the [`referee`] play each game by the rules in
//! [`game`]; every game becomes a [`record`]; [`standings`] and [`report`] turn records into
//! tables.

pub mod bot;
pub mod cli;
pub mod game;
pub mod grades;
pub mod play;
pub mod ratings;
pub mod record;
pub mod referee;
pub mod replay;
pub mod report;
pub mod rng;
pub mod schedule;
pub mod standings;
pub mod tournament;
