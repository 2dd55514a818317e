//! `left_out.csv`: the bots a run left out before its first game (a failed build, a program
//! not found), each with why, beside `games.csv`, so that `arena standings` grades them
//! from the files alone, without `tournament.json`.
//!
//! ```text
//! bot,reason
//! broken-build,`build` failed (exit status: 1)
//! ```
//!
//! A run writes it before its first game, header only when no bot was left out, so its
//! absence means "not known" (a CSV of an earlier arena), never "no one".

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The file's name, beside `games.csv`.
pub const FILE: &str = "left_out.csv";

/// The file of the output directory `out`.
pub fn path(out: &Path) -> PathBuf {
    out.join(FILE)
}

/// The file's text for `bots`, `(name, reason)` in the run's order.
pub fn to_csv(bots: &[(String, String)]) -> String {
    // Writing into memory cannot fail.
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["bot", "reason"])
        .expect("writing to memory");
    for (bot, reason) in bots {
        w.write_record([bot, reason]).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("the cells are strings")
}

/// Writes `left_out.csv` into the output directory `out`.
pub fn write(out: &Path, bots: &[(String, String)]) -> Result<()> {
    let path = path(out);
    std::fs::write(&path, to_csv(bots))
        .with_context(|| format!("cannot write `{}`", path.display()))
}

/// Reads a `left_out.csv`: `(name, reason)` of each bot, in order. Errors name the file and
/// the line.
pub fn read(path: &Path) -> Result<Vec<(String, String)>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    let header = reader
        .headers()
        .with_context(|| format!("cannot read `{}`", path.display()))?
        .clone();
    if header.iter().collect::<Vec<_>>() != ["bot", "reason"] {
        bail!(
            "`{}` line 1: expected the header `bot,reason`, not `{}`",
            path.display(),
            header.iter().collect::<Vec<_>>().join(",")
        );
    }
    let mut bots = Vec::new();
    for record in reader.records() {
        let record = record.with_context(|| format!("`{}` is not a valid CSV", path.display()))?;
        let line = record.position().map_or(0, |p| p.line());
        match (record.get(0), record.get(1)) {
            (Some(bot), Some(reason)) if !bot.is_empty() => {
                bots.push((bot.to_string(), reason.to_string()));
            }
            _ => bail!(
                "`{}` line {line}: expected a bot's name and a reason",
                path.display()
            ),
        }
    }
    Ok(bots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_reasons_round_trip_commas_quotes_and_newlines_included() {
        let dir = tempfile::tempdir().unwrap();
        let bots = vec![
            ("a, b".to_string(), "`build` failed:\n\"boom\"".to_string()),
            ("c".to_string(), String::new()),
        ];
        write(dir.path(), &bots).unwrap();
        assert_eq!(read(&path(dir.path())).unwrap(), bots);
        write(dir.path(), &[]).unwrap();
        assert_eq!(to_csv(&[]), "bot,reason\n");
        assert!(read(&path(dir.path())).unwrap().is_empty());
    }

    #[test]
    fn a_wrong_file_names_itself_and_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = path(dir.path());
        std::fs::write(&file, "name,why\nx,y\n").unwrap();
        let err = format!("{:#}", read(&file).unwrap_err());
        assert!(
            err.contains("line 1: expected the header `bot,reason`"),
            "{err}"
        );
        std::fs::write(&file, "bot,reason\nx,y\n,z\n").unwrap();
        let err = format!("{:#}", read(&file).unwrap_err());
        assert!(err.contains("left_out.csv` line 3"), "{err}");
    }
}
