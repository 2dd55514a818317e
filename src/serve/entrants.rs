//! Who may connect: `--entrants FILE`, a TOML list of `[[entrant]]` tables with a `name` and
//! the hex SHA-256 of the entrant's token. Tokens themselves are never stored, logged or
//! written: the server keeps their hashes and compares them in constant time.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The longest entrant name.
const MAX_NAME: usize = 64;

/// One entrant: a name and its token's hash.
#[derive(Debug, Clone)]
pub struct Entrant {
    pub name: String,
    hash: [u8; 32],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    entrant: Vec<Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    name: String,
    token_sha256: String,
}

impl Entrant {
    /// The entrant of one `[[entrant]]` table's text.
    pub fn from_table(text: &str) -> Result<Entrant> {
        let mut list = Entrants::parse(text)?.list;
        match (list.pop(), list.is_empty()) {
            (Some(entrant), true) => Ok(entrant),
            _ => bail!("not one `[[entrant]]` table"),
        }
    }
}

/// The entrants of an `--entrants` file.
#[derive(Debug, Clone, Default)]
pub struct Entrants {
    pub list: Vec<Entrant>,
}

impl Entrants {
    /// Reads and checks an entrants file: names valid and distinct, hashes 64 hex digits.
    pub fn read(path: &Path) -> Result<Entrants> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read `{}`", path.display()))?;
        Self::parse(&text).with_context(|| format!("in `{}`", path.display()))
    }

    /// Parses an entrants file's text.
    pub fn parse(text: &str) -> Result<Entrants> {
        let file: File = toml::from_str(text).context("not an entrants file")?;
        let mut list: Vec<Entrant> = Vec::new();
        for t in file.entrant {
            check_name(&t.name)?;
            if list.iter().any(|e| e.name == t.name) {
                bail!("entrant `{}` is listed twice", t.name);
            }
            let hash = parse_hash(&t.token_sha256)
                .with_context(|| format!("entrant `{}`: `token_sha256`", t.name))?;
            list.push(Entrant { name: t.name, hash });
        }
        Ok(Entrants { list })
    }

    /// The index of the entrant `name` if `token` is its token.
    pub fn check(&self, name: &str, token: &str) -> Option<usize> {
        let hash = sha256(token);
        let found = self.list.iter().position(|e| e.name == name);
        // Compare with something even for an unknown name, so timing says little.
        let against = found.map_or([0u8; 32], |i| self.list[i].hash);
        let same = against
            .iter()
            .zip(hash.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
        found.filter(|_| same)
    }

    /// The index of the entrant whose token is `token` (the HTTP API's `Bearer` token): every
    /// hash is compared, in constant time.
    pub fn find(&self, token: &str) -> Option<usize> {
        let hash = sha256(token);
        let mut found = None;
        for (i, e) in self.list.iter().enumerate() {
            let diff = e
                .hash
                .iter()
                .zip(hash.iter())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b));
            if diff == 0 {
                found = Some(i);
            }
        }
        found
    }
}

/// A name arena can use in files and on the wire: letters, digits, `.`, `_`, `-`.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !ok {
        bail!("`{name}` is not an entrant name: use at most {MAX_NAME} letters, digits, `.`, `_` and `-`");
    }
    Ok(())
}

fn parse_hash(text: &str) -> Result<[u8; 32]> {
    let text = text.trim();
    if text.len() != 64 || !text.chars().all(|c| c.is_ascii_hexdigit()) {
        bail!("not 64 hexadecimal digits");
    }
    let mut hash = [0u8; 32];
    for (i, byte) in hash.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16)?;
    }
    Ok(hash)
}

fn sha256(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh token: 32 random bytes from `/dev/urandom`, in hex.
pub fn new_token() -> Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot read `/dev/urandom`")?;
    Ok(hex(&bytes))
}

/// The `[[entrant]]` table of `name` with `token`.
pub fn table(name: &str, token: &str) -> String {
    format!(
        "[[entrant]]\nname = \"{name}\"\ntoken_sha256 = \"{}\"\n",
        hex(&sha256(token))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_accepted_only_with_its_name() {
        let token = new_token().unwrap();
        assert_eq!(token.len(), 64);
        let file = format!("{}{}", table("alice", &token), table("bob", "other"));
        let entrants = Entrants::parse(&file).unwrap();
        assert_eq!(entrants.check("alice", &token), Some(0));
        assert_eq!(entrants.check("bob", "other"), Some(1));
        assert_eq!(entrants.check("bob", &token), None);
        assert_eq!(entrants.check("carol", &token), None);
        assert_eq!(entrants.check("alice", ""), None);
        assert_eq!(entrants.find(&token), Some(0));
        assert_eq!(entrants.find("other"), Some(1));
        assert_eq!(entrants.find(""), None);
    }

    #[test]
    fn bad_files_are_refused() {
        let twice = format!("{}{}", table("a", "x"), table("a", "y"));
        assert!(Entrants::parse(&twice).is_err());
        assert!(Entrants::parse("[[entrant]]\nname = \"a b\"\ntoken_sha256 = \"00\"\n").is_err());
        let short = "[[entrant]]\nname = \"a\"\ntoken_sha256 = \"00\"\n";
        assert!(format!("{:#}", Entrants::parse(short).unwrap_err()).contains("64"));
    }
}
