//! The games' stderr files beside the reports (`logs/<bot>/<game_id>.log`): which games have
//! one, for the links of the report and the grades, and what a crashed game's file shows.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::bot::workspace::safe_file_name;
use crate::standings::faults::traceback;
use crate::standings::grades::Grades;

/// The most of a game's stderr read for its traceback (its start: a traceback of a crash at
/// the first move comes first, and a chatty bot's is cut by the log's cap anyway).
const READ_LIMIT: u64 = 256 << 10;

/// The `logs/` directory beside the reports, if any, and the games' files in it.
#[derive(Debug, Clone, Default)]
pub struct GameLogs {
    dir: Option<PathBuf>,
    /// By bot directory: the games with a file `<game_id>.log` there. Listed once, so a
    /// report of a million games looks up no million paths.
    files: HashMap<String, HashSet<u64>>,
}

impl GameLogs {
    /// The logs of the run whose reports are written into `out`, when `logs/` is there.
    pub fn beside(out: &Path) -> GameLogs {
        let dir = out.join("logs");
        if !dir.is_dir() {
            return GameLogs::default();
        }
        let files = (std::fs::read_dir(&dir).into_iter().flatten().flatten())
            .filter_map(|bot| {
                let name = bot.file_name().into_string().ok()?;
                let games: HashSet<u64> = (std::fs::read_dir(bot.path()).ok()?.flatten())
                    .filter_map(|file| {
                        let file_name = file.file_name();
                        let id: u64 = file_name.to_str()?.strip_suffix(".log")?.parse().ok()?;
                        let canonical = file_name.to_str()? == format!("{id}.log");
                        // `is_file` follows a link, as opening the link would.
                        (canonical && file.path().is_file()).then_some(id)
                    })
                    .collect();
                (!games.is_empty()).then_some((name, games))
            })
            .collect();
        GameLogs {
            dir: Some(dir),
            files,
        }
    }

    /// Whether any game has a file.
    pub fn any(&self) -> bool {
        !self.files.is_empty()
    }

    /// The file of `bot`'s stderr in game `game_id`, relative to the reports, if it exists.
    pub fn href(&self, bot: &str, game_id: u64) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let name = safe_file_name(bot);
        (self.files.get(&name)?.contains(&game_id)).then(|| format!("logs/{name}/{game_id}.log"))
    }

    /// The start of `bot`'s stderr in game `game_id`, if it has a file.
    fn read(&self, bot: &str, game_id: u64) -> Option<String> {
        let path = self
            .dir
            .as_ref()?
            .join(safe_file_name(bot))
            .join(format!("{game_id}.log"));
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(READ_LIMIT)
            .read_to_end(&mut bytes)
            .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Links each candidate's faults to their games' stderr, and explains each crash from it.
    pub fn explain(&self, grades: &mut Grades) {
        for row in &mut grades.rows {
            for fault in &mut row.faults {
                fault.log = self.href(&row.candidate, fault.game_id);
                if fault.is_crash() {
                    fault.traceback = self
                        .read(&row.candidate, fault.game_id)
                        .and_then(|text| traceback(&text));
                }
            }
        }
    }
}
