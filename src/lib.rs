//! `arena`: round-robin tournaments between bots that are separate programs.
//!
//! The flow of a run: [`cli`] turns arguments into options; [`tournament`] prepares the
//! [`bot`]s, follows the [`schedule`], and has the [`referee`] play each game by the rules in
//! [`game`] between [`player`]s; every game becomes a row of [`results`]; [`standings`] and
//! [`export`] turn rows into tables; data reaches stdout through [`stdout`].

pub mod bot;
pub mod cli;
pub mod config;
pub mod export;
pub mod game;

pub mod player;
pub mod referee;
pub mod results;
pub mod rng;
pub mod sandbox;
pub mod schedule;
pub mod serve;
pub mod standings;
pub mod stdout;
pub mod tournament;
