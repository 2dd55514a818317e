//! Range checks of what a `bot.toml` asks for, before anything of the bot runs.

use std::collections::BTreeMap;

use super::Overrides;
use crate::sandbox;

/// The smallest memory a `bot.toml` may ask for: no program starts in less.
const MIN_MEMORY: u64 = 1 << 20;

/// Refuses values no bot can run with (the operator's ceilings cap the others).
pub(super) fn check_overrides(o: &Overrides) -> std::result::Result<(), String> {
    if o.memory.is_some_and(|m| m < MIN_MEMORY) {
        return Err(format!(
            "`memory` must be at least {}",
            sandbox::size(MIN_MEMORY)
        ));
    }
    if o.max_procs == Some(0) {
        return Err("`max_procs` must be at least 1".into());
    }
    if o.max_output == Some(0) {
        return Err("`max_output` must be at least 1 byte".into());
    }
    Ok(())
}

/// The variables of `env = { KEY = "value" }`, refusing keys arena sets itself.
pub(super) fn check_env(
    env: BTreeMap<String, String>,
) -> std::result::Result<Vec<(String, String)>, String> {
    for (key, value) in &env {
        let bad_key = key.is_empty()
            || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || key.starts_with(|c: char| c.is_ascii_digit());
        if bad_key {
            return Err(format!(
                "`env`: `{key}` is not a variable name (letters, digits and `_`)"
            ));
        }
        if key.starts_with("ARENA_") || key == "HOME" || key == "TMPDIR" {
            return Err(format!(
                "`env`: `{key}` is set by arena for every bot and cannot be changed"
            ));
        }
        if value.contains('\0') {
            return Err(format!("`env`: the value of `{key}` holds a NUL byte"));
        }
    }
    Ok(env.into_iter().collect())
}
