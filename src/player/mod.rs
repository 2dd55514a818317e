//! Players: anything that answers the referee's move requests.

pub mod engine;
pub mod process;
