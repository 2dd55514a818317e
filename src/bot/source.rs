//! How a bot is named on the command line: a path, or an inline `PROTOCOL:[NAME=]COMMAND`.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::Protocol;

/// A bot as named on the command line: a directory or executable, or an inline
/// `PROTOCOL:COMMAND` (`gtp:/usr/games/gtp-rhino --level 3`), optionally named
/// `PROTOCOL:NAME=COMMAND` (`gtp:rhino-3=/usr/games/gtp-rhino --level 3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BotSource {
    /// A directory with a `bot.toml`, or an executable file.
    Path(PathBuf),
    /// A command and the protocol it speaks, with no directory of its own, and the name it
    /// was given, if any (otherwise it is named after its command line).
    Inline {
        protocol: Protocol,
        name: Option<String>,
        command: String,
    },
}

impl BotSource {
    /// The source with a path made absolute, so it means the same from any directory.
    pub fn absolute(self) -> Result<BotSource> {
        match self {
            BotSource::Path(path) => Ok(BotSource::Path(
                std::path::absolute(&path)
                    .with_context(|| format!("cannot resolve `{}`", path.display()))?,
            )),
            inline => Ok(inline),
        }
    }

    /// The path of a bot with files of its own.
    pub fn path(&self) -> Option<&Path> {
        match self {
            BotSource::Path(path) => Some(path),
            BotSource::Inline { .. } => None,
        }
    }
}

impl std::str::FromStr for BotSource {
    type Err = String;

    /// An existing path is a path; otherwise `PROTOCOL:COMMAND` with a known protocol is an
    /// inline bot, named `NAME` if its first word is `NAME=PROGRAM` (a name has no `/`);
    /// anything else is a path (that loading will report as missing).
    fn from_str(text: &str) -> std::result::Result<Self, Self::Err> {
        if !Path::new(text).exists() {
            if let Some((protocol, command)) = text.split_once(':') {
                if let Ok(protocol) = protocol.parse::<Protocol>() {
                    // A name has neither spaces nor slashes: `=` after either is the command's.
                    let (name, command) = match command.trim_start().split_once('=') {
                        Some((name, rest))
                            if !name.is_empty() && !name.contains(['/', ' ', '\t']) =>
                        {
                            (Some(name.to_string()), rest.to_string())
                        }
                        _ => (None, command.to_string()),
                    };
                    return Ok(BotSource::Inline {
                        protocol,
                        name,
                        command,
                    });
                }
            }
        }
        Ok(BotSource::Path(PathBuf::from(text)))
    }
}

impl fmt::Display for BotSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotSource::Path(path) => write!(f, "{}", path.display()),
            BotSource::Inline {
                protocol,
                name: None,
                command,
            } => write!(f, "{protocol}:{command}"),
            BotSource::Inline {
                protocol,
                name: Some(name),
                command,
            } => write!(f, "{protocol}:{name}={command}"),
        }
    }
}

impl Serialize for BotSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for BotSource {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> BotSource {
        text.parse().unwrap()
    }

    #[test]
    fn an_inline_bot_may_be_named_before_its_command() {
        let named = parse("gtp:rhino-3=/usr/games/gtp-rhino --level 3");
        assert_eq!(
            named,
            BotSource::Inline {
                protocol: Protocol::Gtp,
                name: Some("rhino-3".into()),
                command: "/usr/games/gtp-rhino --level 3".into(),
            }
        );
        // It reads back from `tournament.json` as it was given.
        assert_eq!(parse(&named.to_string()), named);
        // An `=` after a space or in a path belongs to the command.
        for text in ["lines:python3 bot.py --x=3", "lines:./a=b", "gtp:=x"] {
            let BotSource::Inline { name, command, .. } = parse(text) else {
                panic!("{text}")
            };
            assert_eq!(name, None, "{text}");
            assert_eq!(command, text.split_once(':').unwrap().1);
        }
    }
}
