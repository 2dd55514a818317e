//! Bots: how they are described (`bot.toml`), prepared (private copy, build) and run.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::game::GameKind;
use crate::sandbox;

mod checks;
mod checksums;
pub mod copy;
pub mod log;
pub mod preflight;
pub mod prepare;
mod source;
mod walk;
pub mod workspace;

use checks::{check_env, check_overrides};
pub use checksums::checksums;
pub use source::BotSource;

/// The name of a bot directory's manifest.
pub const MANIFEST: &str = "bot.toml";

/// How requests reach a bot and replies come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// A new process per move; the request fields are appended to the command as arguments.
    Argv,
    /// A new process per move; the fields go as one line on stdin, then stdin is closed.
    Stdin,
    /// One process per game; one request line in, one reply line out per move.
    Lines,
    /// A Gomoku engine speaking the Gomocup (Piskvork) protocol.
    Gomocup,
    /// An Othello engine speaking the Go Text Protocol.
    Gtp,
    /// An Othello engine speaking the NBoard protocol.
    Nboard,
}

impl Protocol {
    /// The protocol a bot gets when its manifest names none: `argv` for Morra, as in the
    /// KotH; `lines` for the turn-based games, whose bots keep a process for the game.
    pub fn default_for(game: GameKind) -> Protocol {
        match game {
            GameKind::Morra => Protocol::Argv,
            GameKind::Othello | GameKind::Numeron | GameKind::Gomoku => Protocol::Lines,
        }
    }
}

impl Protocol {
    /// The game an engine protocol is for; `None` for the generic protocols.
    pub fn only_for(self) -> Option<GameKind> {
        match self {
            Protocol::Argv | Protocol::Stdin | Protocol::Lines => None,
            Protocol::Gomocup => Some(GameKind::Gomoku),
            Protocol::Gtp | Protocol::Nboard => Some(GameKind::Othello),
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Argv => "argv",
            Protocol::Stdin => "stdin",
            Protocol::Lines => "lines",
            Protocol::Gomocup => "gomocup",
            Protocol::Gtp => "gtp",
            Protocol::Nboard => "nboard",
        })
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        <Protocol as clap::ValueEnum>::from_str(s, true)
            .map_err(|_| format!("unknown protocol `{s}`"))
    }
}

/// The contents of a `bot.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    command: String,
    protocol: Option<Protocol>,
    build: Option<String>,
    name: Option<String>,
    description: Option<String>,
    memory: Option<Size>,
    max_procs: Option<u32>,
    max_output: Option<Size>,
    #[serde(default)]
    read: Vec<PathBuf>,
    #[serde(default)]
    options: toml::Table,
    #[serde(default)]
    init: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

/// A size in `bot.toml`: a number of bytes or a string such as `"1GiB"`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Size {
    Bytes(u64),
    Text(String),
}

impl Size {
    fn bytes(&self) -> std::result::Result<u64, String> {
        match self {
            Size::Bytes(n) => Ok(*n),
            Size::Text(t) => sandbox::parse_size(t),
        }
    }
}

/// Per-bot changes to the sandbox's limits, from `bot.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Overrides {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_procs: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output: Option<u64>,
    /// More directories the bot may read (an interpreter installed outside the system's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<PathBuf>,
}

impl Overrides {
    /// The limits for this bot: `base`, the operator's ceilings, lowered where the bot asks
    /// for less; a bot never gets more than `base`.
    pub fn apply(&self, base: sandbox::Limits) -> sandbox::Limits {
        sandbox::Limits {
            memory: self.memory.map_or(base.memory, |m| m.min(base.memory)),
            max_procs: self
                .max_procs
                .map_or(base.max_procs, |p| p.min(base.max_procs)),
            max_output: self
                .max_output
                .map_or(base.max_output, |o| o.min(base.max_output)),
            ..base
        }
    }

    /// A warning for each value above the operator's ceiling in `base` (the ceiling applies).
    pub fn excess(&self, base: sandbox::Limits) -> Vec<String> {
        let size = sandbox::size;
        let mut warnings = Vec::new();
        let mut over = |key: &str, asked: String, ceiling: String, flag: &str| {
            warnings.push(format!(
                "`{key} = {asked}` in `{MANIFEST}` is above the operator's `--{flag}` ({ceiling}), which applies"
            ));
        };
        if let Some(m) = self.memory.filter(|&m| m > base.memory) {
            over("memory", size(m), size(base.memory), "memory");
        }
        if let Some(p) = self.max_procs.filter(|&p| p > base.max_procs) {
            over(
                "max_procs",
                p.to_string(),
                base.max_procs.to_string(),
                "max-procs",
            );
        }
        if let Some(o) = self.max_output.filter(|&o| o > base.max_output) {
            over("max_output", size(o), size(base.max_output), "max-output");
        }
        warnings
    }
}

/// A bot as the user described it, before anything has run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BotSpec {
    pub name: String,
    /// The bot's directory, or its single executable file, in the user's tree.
    pub source: PathBuf,
    /// The command line, split like a shell would; run inside the bot's private copy.
    pub command: Vec<String>,
    pub protocol: Protocol,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(flatten)]
    pub overrides: Overrides,
    /// Engine settings (`options = { depth = 3 }`): `INFO key value` for Gomocup, `set key
    /// value` for NBoard, `key value` commands for GTP.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<(String, String)>,
    /// Raw lines sent to an engine after its start-up handshake.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub init: Vec<String>,
    /// Given inline as `PROTOCOL:COMMAND`: no directory, no files.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub inline: bool,
    /// Constant environment variables from `bot.toml` (`env = { KEY = "value" }`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
}

impl BotSpec {
    /// Reads a bot from a directory with a `bot.toml`, from a single executable file, or
    /// from an inline `PROTOCOL:COMMAND` such as `gtp:gtp-rhino --level 3`.
    pub fn load(source: &BotSource, game: GameKind) -> Result<BotSpec> {
        match source {
            BotSource::Path(path) => Self::load_path(path, game),
            BotSource::Inline {
                protocol,
                name,
                command,
            } => Self::inline(*protocol, name.as_deref(), command, game),
        }
    }

    fn load_path(path: &Path, game: GameKind) -> Result<BotSpec> {
        let meta = std::fs::metadata(path)
            .with_context(|| format!("cannot read bot `{}`", path.display()))?;
        if meta.is_dir() {
            Self::load_dir(path, game)
        } else if is_executable(&meta) {
            let file_name = path
                .file_name()
                .and_then(|n| n.to_str())
                .with_context(|| format!("bot `{}` has no usable file name", path.display()))?;
            let name = Path::new(file_name)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or(file_name)
                .to_string();
            Ok(BotSpec {
                name,
                source: path.to_owned(),
                command: vec![format!("./{file_name}")],
                protocol: Protocol::default_for(game),
                build: None,
                description: None,
                overrides: Overrides::default(),
                options: Vec::new(),
                init: Vec::new(),
                inline: false,
                env: Vec::new(),
            })
        } else {
            bail!(
                "`{}` is not executable: mark it executable (`chmod +x`) with a `#!` line naming its interpreter, or put it in a directory with a `{MANIFEST}` whose `command` names the interpreter",
                path.display()
            )
        }
    }

    /// A bot given as `PROTOCOL:COMMAND`, named after its command line, or as
    /// `PROTOCOL:NAME=COMMAND`.
    fn inline(
        protocol: Protocol,
        name: Option<&str>,
        command: &str,
        game: GameKind,
    ) -> Result<BotSpec> {
        let text = match name {
            Some(name) => format!("{protocol}:{name}={command}"),
            None => format!("{protocol}:{command}"),
        };
        check_protocol(protocol, game).map_err(|e| anyhow::anyhow!("bot `{text}`: {e}"))?;
        let words = split_command(command).with_context(|| format!("bot `{text}`: bad command"))?;
        let name = match name {
            Some(name) => {
                check_name(name).map_err(|e| anyhow::anyhow!("bot `{text}`: {e}"))?;
                name.to_string()
            }
            None => {
                let program = Path::new(&words[0])
                    .file_name()
                    .map_or(words[0].clone(), |n| n.to_string_lossy().into_owned());
                std::iter::once(program)
                    .chain(words[1..].iter().cloned())
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        };
        Ok(BotSpec {
            name,
            source: PathBuf::from(text),
            command: words,
            protocol,
            build: None,
            description: None,
            overrides: Overrides::default(),
            options: Vec::new(),
            init: Vec::new(),
            inline: true,
            env: Vec::new(),
        })
    }

    fn load_dir(dir: &Path, game: GameKind) -> Result<BotSpec> {
        let path = dir.join(MANIFEST);
        if !path.exists() {
            bail!(
                "`{}` has no `{MANIFEST}`: add one with at least `command = \"...\"`",
                dir.display()
            );
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read `{}`", path.display()))?;
        let manifest: Manifest = toml::from_str(&text).map_err(|e| {
            // One line, for warnings and grade sheets: where, then what.
            let at = e.span().map_or(String::new(), |span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                format!(" line {line}, column {column}:")
            });
            anyhow::anyhow!("`{}`:{at} {}", path.display(), e.message().trim_end())
        })?;
        let command = split_command(&manifest.command)
            .with_context(|| format!("`{}`: bad `command`", path.display()))?;
        let build = manifest
            .build
            .as_deref()
            .map(split_command)
            .transpose()
            .with_context(|| format!("`{}`: bad `build`", path.display()))?;
        let name = match manifest.name {
            Some(name) => name,
            None => dir
                .canonicalize()
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .with_context(|| format!("bot `{}` has no usable name", dir.display()))?,
        };
        check_name(&name).map_err(|e| anyhow::anyhow!("`{}`: {e}", path.display()))?;
        let size = |value: &Option<Size>, key: &str| {
            value
                .as_ref()
                .map(Size::bytes)
                .transpose()
                .map_err(|e| anyhow::anyhow!("`{}`: `{key}`: {e}", path.display()))
        };
        let overrides = Overrides {
            memory: size(&manifest.memory, "memory")?,
            max_procs: manifest.max_procs,
            max_output: size(&manifest.max_output, "max_output")?,
            read: manifest.read,
        };
        check_overrides(&overrides).map_err(|e| anyhow::anyhow!("`{}`: {e}", path.display()))?;
        let env =
            check_env(manifest.env).map_err(|e| anyhow::anyhow!("`{}`: {e}", path.display()))?;
        let protocol = manifest.protocol.unwrap_or(Protocol::default_for(game));
        check_protocol(protocol, game).map_err(|e| anyhow::anyhow!("`{}`: {e}", path.display()))?;
        let options = manifest
            .options
            .iter()
            .map(|(k, v)| {
                let value = match v {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), value)
            })
            .collect();
        Ok(BotSpec {
            name,
            source: dir.to_owned(),
            command,
            protocol,
            build,
            description: manifest.description,
            overrides,
            options,
            init: manifest.init,
            inline: false,
            env,
        })
    }
}

/// The longest bot name, in characters.
pub const MAX_NAME: usize = 100;

/// Refuses a bot name that is empty, unprintable or too long.
fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err("`name` must be printable and not empty".into());
    }
    if name.chars().count() > MAX_NAME {
        return Err(format!("`name` is longer than {MAX_NAME} characters"));
    }
    Ok(())
}

/// Refuses an engine protocol for another game than its own.
fn check_protocol(protocol: Protocol, game: GameKind) -> std::result::Result<(), String> {
    match protocol.only_for() {
        Some(own) if own != game => Err(format!(
            "`protocol = \"{protocol}\"` is for {own} engines, not {game}"
        )),
        _ => Ok(()),
    }
}

/// Splits a command line like a POSIX shell would, without running a shell.
fn split_command(line: &str) -> Result<Vec<String>> {
    let words = shlex::split(line).context("unbalanced quotes")?;
    if words.is_empty() {
        bail!("the command is empty");
    }
    Ok(words)
}

fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

/// The bots in `dir` (`bots/<game>/` by default): its subdirectories and executable files,
/// by name, skipping hidden entries.
pub fn discover(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list bots in `{}`", dir.display()))?;
    let mut bots = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list bots in `{}`", dir.display()))?;
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let meta = std::fs::metadata(&path)
            .with_context(|| format!("cannot read `{}`", path.display()))?;
        if meta.is_dir() || is_executable(&meta) {
            bots.push(path);
        }
    }
    bots.sort();
    Ok(bots)
}

/// A bot that cannot play, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// Its name from `bot.toml`, or its file or directory name when that cannot be read.
    pub name: String,
    pub source: PathBuf,
    pub reason: String,
}

/// The bots that loaded, and those that did not with the reason.
#[derive(Debug, Default)]
pub struct Loaded {
    pub specs: Vec<BotSpec>,
    pub rejected: Vec<Rejected>,
}

/// Loads every bot. One that cannot be loaded is rejected with its reason, and so is a later
/// bot with the name of an earlier one: the others still play.
pub fn load_all(sources: &[BotSource], game: GameKind) -> Loaded {
    let mut loaded = Loaded::default();
    for source in sources {
        let fallback = || match source {
            BotSource::Path(path) => path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            inline => inline.to_string(),
        };
        let path = || PathBuf::from(source.to_string());
        match BotSpec::load(source, game) {
            Ok(spec) => {
                if let Some(twin) = loaded.specs.iter().find(|s| s.name == spec.name) {
                    // Named after its file too, so the two stay apart in the grades.
                    let name = format!("{} ({})", spec.name, fallback());
                    loaded.rejected.push(Rejected {
                        reason: format!(
                            "another bot is named `{}`: `{}` (set another `name` in a `{MANIFEST}`)",
                            spec.name,
                            twin.source.display()
                        ),
                        name,
                        source: spec.source,
                    });
                } else {
                    loaded.specs.push(spec);
                }
            }
            Err(e) => loaded.rejected.push(Rejected {
                name: fallback(),
                source: path(),
                reason: format!("{e:#}"),
            }),
        }
    }
    loaded
}

#[cfg(test)]
mod tests;
