//! Where each game's replay is, as a link relative to the page, and the replays' text
//! embedded in the page when it is small enough for the viewer to work from `file://`.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use crate::results::games::GameTable;

/// The most replay text embedded in `report.html`, in bytes (2 MiB): above it the page
/// fetches each replay when it is opened, which needs the page served over HTTP.
pub const EMBED_LIMIT: u64 = 2 << 20;

/// The replays of a range of games, all in one directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayDir {
    /// Indices into the game table of the games whose replays are here.
    pub games: Range<usize>,
    /// The directory on disk that holds `<game_id>.jsonl`.
    pub dir: PathBuf,
    /// The same directory as a URL relative to the report, without a trailing slash.
    pub href: String,
}

impl ReplayDir {
    /// Every game's replay in `dir`, next to the report as `replays/`: a run's own report.
    pub fn beside(dir: PathBuf) -> ReplayDir {
        ReplayDir {
            games: 0..usize::MAX,
            dir,
            href: "replays".to_string(),
        }
    }
}

/// The replays found for the games of a report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replays {
    /// By game (its index in the table): its replay's URL relative to the page, for the games
    /// whose replay exists.
    pub hrefs: BTreeMap<usize, String>,
    /// `(href, text)` of every replay, in game order, when together they fit the limit;
    /// otherwise empty and the page fetches them.
    pub embedded: Vec<(String, String)>,
}

impl Replays {
    /// Game `index`'s replay link, if it has one.
    pub fn href(&self, index: usize) -> Option<&str> {
        self.hrefs.get(&index).map(String::as_str)
    }

    /// Whether any game has a replay.
    pub fn any(&self) -> bool {
        !self.hrefs.is_empty()
    }
}

/// Looks up each game's replay in `dirs`, embedding them all if they total at most `limit`
/// bytes. A replay that cannot be read is left unlinked.
///
/// Each directory is listed once, so the report of a million games without replays (the
/// standings of a big `games.csv`) costs no million lookups.
pub fn find(games: &GameTable, dirs: &[ReplayDir], limit: u64) -> Replays {
    let listed: Vec<HashMap<u64, (PathBuf, u64)>> = dirs.iter().map(|d| listing(&d.dir)).collect();
    let mut hrefs = BTreeMap::new();
    let mut paths = Vec::new();
    let mut total = 0u64;
    for (i, g) in games.iter().enumerate() {
        let Some(d) = dirs.iter().position(|d| d.games.contains(&i)) else {
            continue;
        };
        if let Some((path, size)) = listed[d].get(&g.game_id) {
            total += size;
            let href = format!("{}/{}.jsonl", dirs[d].href, g.game_id);
            paths.push((g.game_id, i, path));
            hrefs.insert(i, href);
        }
    }
    // In game order, whatever order the games ended in.
    paths.sort_by_key(|&(id, i, _)| (id, i));
    let mut embedded = Vec::new();
    if total <= limit {
        for (_, i, path) in paths {
            match std::fs::read_to_string(path) {
                Ok(text) => embedded.push((hrefs[&i].clone(), text)),
                Err(_) => {
                    hrefs.remove(&i);
                }
            }
        }
    }
    Replays { hrefs, embedded }
}

/// The replays in `dir`: each file `<game id>.jsonl` (the id as arena writes it) by its id,
/// with its path and size; none if `dir` cannot be read.
fn listing(dir: &Path) -> HashMap<u64, (PathBuf, u64)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return HashMap::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let id: u64 = name.to_str()?.strip_suffix(".jsonl")?.parse().ok()?;
            if name.to_str()? != format!("{id}.jsonl") {
                return None;
            }
            let path = entry.path();
            let size = std::fs::metadata(&path).ok().filter(|m| m.is_file())?.len();
            Some((id, (path, size)))
        })
        .collect()
}

/// The embedded replays as a JavaScript object literal from link to text, safe inside a
/// `<script>` and in XML: `<`, `>` and `&` are written as JSON escapes.
pub(super) fn embedded_json(replays: &Replays) -> String {
    let map: serde_json::Map<String, serde_json::Value> = replays
        .embedded
        .iter()
        .map(|(h, t)| (h.clone(), serde_json::Value::String(t.clone())))
        .collect();
    let json = serde_json::Value::Object(map).to_string();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The directory `to` as a URL relative to the directory `from` (both resolved on disk),
/// each segment percent-encoded; `None` if either cannot be resolved.
pub fn relative_href(from: &Path, to: &Path) -> Option<String> {
    let from = from.canonicalize().ok()?;
    let to = to.canonicalize().ok()?;
    let a: Vec<Component<'_>> = from.components().collect();
    let b: Vec<Component<'_>> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    for c in &b[common..] {
        parts.push(encode(&c.as_os_str().to_string_lossy()));
    }
    Some(if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    })
}

/// Percent-encodes a path segment for a URL, keeping unreserved characters.
fn encode(segment: &str) -> String {
    let mut out = String::new();
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::results::games::{GameRecord, GameResult};

    fn table(ids: &[u64]) -> GameTable {
        let records: Vec<GameRecord> = ids
            .iter()
            .map(|&id| GameRecord {
                game_id: id,
                ..GameRecord::for_test(GameKind::Othello, "a", "b", GameResult::A)
            })
            .collect();
        GameTable::from_records(&records)
    }

    #[test]
    fn replays_are_found_per_directory_and_embedded_under_the_limit() {
        let root = tempfile::tempdir().unwrap();
        let (one, two) = (root.path().join("one"), root.path().join("two words"));
        for d in [&one, &two] {
            std::fs::create_dir_all(d.join("replays")).unwrap();
            std::fs::write(d.join("replays/1.jsonl"), "{\"x\":\"</script>&\"}\n").unwrap();
        }
        let out = root.path().join("merged");
        std::fs::create_dir(&out).unwrap();
        let dirs = [&one, &two].map(|d| relative_href(&out, &d.join("replays")).unwrap());
        assert_eq!(dirs, ["../one/replays", "../two%20words/replays"]);
        let games = table(&[1, 2, 1]);
        let list = vec![
            ReplayDir {
                games: 0..2,
                dir: one.join("replays"),
                href: dirs[0].clone(),
            },
            ReplayDir {
                games: 2..3,
                dir: two.join("replays"),
                href: dirs[1].clone(),
            },
        ];
        let found = find(&games, &list, EMBED_LIMIT);
        assert_eq!(
            found.hrefs,
            BTreeMap::from([
                (0, "../one/replays/1.jsonl".to_string()),
                (2, "../two%20words/replays/1.jsonl".to_string())
            ])
        );
        assert_eq!(found.embedded.len(), 2);
        let json = embedded_json(&found);
        assert!(!json.contains('<') && !json.contains('&') && !json.contains('>'));
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["../one/replays/1.jsonl"], "{\"x\":\"</script>&\"}\n");
        let fetched = find(&games, &list, 10);
        assert_eq!(fetched.hrefs, found.hrefs);
        assert!(fetched.embedded.is_empty());
    }
}
