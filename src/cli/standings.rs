//! `arena standings`: the standings, cross-table, ratings and report recomputed from games
//! CSVs alone.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::export;
use crate::results::games::{read_table, Game};
use crate::tournament::file::TournamentFile;

#[derive(Debug, Args)]
pub struct StandingsArgs {
    /// Games CSVs (`games.csv` of one or more runs); their games are merged.
    #[arg(required = true)]
    pub csv: Vec<PathBuf>,

    /// Also write `standings.{csv,md}`, `crosstable.{csv,md}`, `los.csv` and `report.html`
    /// into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,

    /// Fix this bot's rating at 0 [default: the average rating is 0].
    #[arg(long)]
    pub anchor: Option<String>,
}

/// Prints the tables of the games in the CSVs, and writes every output with `--out`.
pub fn run(args: StandingsArgs) -> Result<()> {
    let games = read_table(&args.csv)?;
    if let Some(first) = games.first() {
        if let Some(other) = games.iter().find(|g| g.game != first.game) {
            bail!(
                "the CSVs mix games: `{}` and `{}` (standings are per game)",
                first.game,
                other.game
            );
        }
    }
    let table = match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create `{}`", dir.display()))?;
            export::write_all(dir, &games, &report_options(&args, &games, dir)?)?.standings
        }
        None => export::rated_standings(&games, args.anchor.as_deref())?.0,
    };
    print!(
        "{}\n{}",
        export::markdown::standings(&table),
        export::markdown::crosstable(&table)
    );
    Ok(())
}

/// The HTML report's title, configuration and replay links: a single tournament's own
/// description when its `tournament.json` is beside the CSV.
fn report_options(
    args: &StandingsArgs,
    games: &[Game],
    out: &Path,
) -> Result<export::ReportOptions> {
    let game = games.first().map_or("no games", |g| g.game.name());
    let single = match args.csv.as_slice() {
        [csv] => csv.parent().map(|d| d.to_path_buf()),
        _ => None,
    };
    let described = single
        .as_ref()
        .and_then(|d| TournamentFile::read(d).ok())
        .map(|info| info.describe());
    let (title, config) = described.unwrap_or_else(|| {
        let files: Vec<String> = args.csv.iter().map(|p| p.display().to_string()).collect();
        (
            format!("{game} — {} games", games.len()),
            vec![("games CSVs".to_string(), files.join(", "))],
        )
    });
    Ok(export::ReportOptions {
        anchor: args.anchor.clone(),
        title,
        config,
        replays: replay_dirs(&args.csv, out)?,
        gauntlet: None,
    })
}

/// The `replays/` directory beside each CSV, for the games read from that CSV, linked
/// relative to the output directory `out`.
fn replay_dirs(csvs: &[PathBuf], out: &Path) -> Result<Vec<export::html::ReplayDir>> {
    let mut dirs = Vec::new();
    let mut start = 0;
    if !csvs.iter().any(|c| beside(c).join("replays").is_dir()) {
        return Ok(dirs);
    }
    for csv in csvs {
        let replays = beside(csv).join("replays");
        let href = replays
            .is_dir()
            .then(|| export::html::replays::relative_href(out, &replays))
            .flatten();
        // Each CSV's games follow the previous ones' in the table.
        let count = if csvs.len() == 1 {
            usize::MAX
        } else {
            read_table(std::slice::from_ref(csv))?.len()
        };
        if let Some(href) = href {
            dirs.push(export::html::ReplayDir {
                games: start..start + count,
                dir: replays,
                href,
            });
        }
        start += count;
    }
    Ok(dirs)
}

/// The directory a CSV is in: its run's output directory.
fn beside(csv: &Path) -> PathBuf {
    match csv.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
