//! Unit tests of the tournament's logic with scripted players: no processes.
