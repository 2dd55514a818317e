//! `arena standings`: the standings, cross-table, ratings, report and (with `--gauntlet`)
//! grades recomputed from games CSVs alone.
//!
//! CSVs merge only when they belong together: every game of one kind, and either one run or
//! shards of one tournament, told apart by the `tournament.json` beside each CSV (see
//! [`check_mergeable`]); with `--pool`, complete runs of one field and settings (see
//! [`super::pool`]).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::export;
use crate::results::games::{read_table_except, GameTable};
use crate::results::{left_out, superseded};
use crate::standings::grades::{Gauntlet, Rule};
use crate::tournament::file::{first_difference, TournamentFile};

#[derive(Debug, Args)]
pub struct StandingsArgs {
    /// Games CSVs (`games.csv` of one run, of the shards of one tournament, or with `--pool`
    /// of complete runs); their games are merged.
    #[arg(required = true)]
    pub csv: Vec<PathBuf>,

    /// Also write `standings.{csv,md}`, `crosstable.{csv,md}`, `los.csv` and `report.html`
    /// (and the grades, with `--gauntlet`) into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,

    /// Fix this bot's rating at 0 [default: the average rating is 0].
    #[arg(long)]
    pub anchor: Option<String>,

    /// Grade a gauntlet with this reference bot, by its name in the CSV (repeatable, in the
    /// order of the run); every other bot is a candidate. Writes `grades.{csv,md}`.
    #[arg(long = "gauntlet", value_name = "NAME")]
    pub references: Vec<String>,

    /// The rule the candidates pass by: `beat-all`, `min-score:P` or `min-points:N`
    /// [default: beat-all]; only with `--gauntlet`.
    #[arg(long, value_name = "RULE")]
    pub pass: Option<Rule>,

    /// Pool complete runs of one game, field and settings (their seeds may differ) into one
    /// leaderboard, as `--rounds` with their rounds together would have played them.
    #[arg(long)]
    pub pool: bool,
}

/// One games CSV, its games, and the `tournament.json` beside it, if any.
pub(super) struct Part {
    pub(super) csv: PathBuf,
    pub(super) games: GameTable,
    pub(super) info: Option<TournamentFile>,
    /// The bots its run left out, from `left_out.csv` beside it (else from its
    /// `tournament.json`); `None` when neither is there.
    left_out: Option<Vec<(String, String)>>,
}

/// Prints the tables of the games in the CSVs, and writes every output with `--out`.
pub fn run(args: StandingsArgs) -> Result<()> {
    if args.pass.is_some() && args.references.is_empty() {
        bail!("`--pass` grades a gauntlet: name its reference bots with `--gauntlet NAME`");
    }
    let mut parts = Vec::new();
    for csv in &args.csv {
        // Games superseded by `arena run --update` no longer count.
        let superseded = superseded::read(&superseded::path(&beside(csv)))?;
        let games = read_table_except(std::slice::from_ref(csv), &superseded)?;
        let info = csv
            .parent()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    d
                }
            })
            .filter(|d| crate::tournament::file::path(d).is_file())
            .map(TournamentFile::read)
            .transpose()?;
        let listed = left_out::path(&beside(csv));
        let left_out = if listed.is_file() {
            Some(left_out::read(&listed)?)
        } else {
            info.as_ref().map(TournamentFile::left_out)
        };
        parts.push(Part {
            csv: csv.clone(),
            games,
            info,
            left_out,
        });
    }
    check_one_game(&parts)?;
    if args.pool {
        super::pool::check(&parts)?;
    } else {
        check_mergeable(&parts)?;
    }
    let pooled = args
        .pool
        .then(|| {
            super::pool::describe(
                &parts
                    .iter()
                    .filter_map(|p| p.info.as_ref())
                    .collect::<Vec<_>>(),
            )
        })
        .flatten();
    let info = parts.iter().find_map(|p| p.info.clone());
    let left_out = merged_left_out(&parts, !args.references.is_empty());
    let replays = match &args.out {
        Some(dir) => {
            // Links are made relative to the output directory, which must exist for that.
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create `{}`", dir.display()))?;
            replay_dirs(&parts, dir)
        }
        None => Vec::new(),
    };
    let mut games = GameTable::default();
    for part in parts {
        games.extend(part.games);
    }
    let gauntlet = gauntlet(&args, &games, info.as_ref(), &left_out)?;
    let table = match &args.out {
        Some(dir) => {
            let mut options = report_options(&args, &games, dir, gauntlet, replays, left_out);
            if let Some((title, config)) = pooled {
                (options.title, options.config) = (title, config);
            }
            let written = export::write_all(dir, &games, &options)?;
            print_tables(&written.standings)?;
            if let Some(grades) = &written.grades {
                print_grades(grades)?;
            }
            return Ok(());
        }
        None => export::rated_standings(&games, args.anchor.as_deref())?.0,
    };
    print_tables(&table)?;
    if let Some(g) = &gauntlet {
        print_grades(&crate::standings::grades::compute(&games, g))?;
    }
    Ok(())
}

fn print_tables(table: &crate::standings::Standings) -> Result<()> {
    crate::stdout::print(format_args!(
        "{}\n{}",
        export::markdown::standings(table),
        export::markdown::crosstable(table)
    ))
    .context("cannot write the standings to stdout")
}

fn print_grades(grades: &crate::standings::grades::Grades) -> Result<()> {
    crate::stdout::print(format_args!("\n{}", export::terminal::grades(grades)))
        .context("cannot write the grades to stdout")
}

/// Refuses CSVs that mix games: standings are per game.
fn check_one_game(parts: &[Part]) -> Result<()> {
    let name = |p: &Part| format!("`{}`", p.csv.display());
    let mut kinds = Vec::new();
    for p in parts {
        if let Some(first) = p.games.first() {
            if let Some(other) = p.games.iter().find(|g| g.game != first.game) {
                bail!(
                    "{} mixes games: `{}` and `{}` (standings are per game)",
                    name(p),
                    first.game,
                    other.game
                );
            }
            kinds.push((p, first.game));
        }
    }
    if let Some(&(a, kind)) = kinds.first() {
        if let Some(&(b, other)) = kinds.iter().find(|(_, k)| *k != kind) {
            bail!(
                "the CSVs mix games: {} holds `{kind}` and {} `{other}` (standings are per game)",
                name(a),
                name(b)
            );
        }
    }
    Ok(())
}

/// Whether the CSVs may be merged: one game throughout, and one run or the shards of one
/// tournament. Games of several runs merge only when a `tournament.json` is beside every CSV
/// and their configurations are the same but for `shard` (and the output options and the
/// number of parallel games, which change no result), each run a different shard. Any two
/// `tournament.json` found must agree the same way, so CSVs of one game played under other
/// rules or move times (`--morra-rounds`, `--digits`, `--move-time`, ...) do not merge either.
fn check_mergeable(parts: &[Part]) -> Result<()> {
    let name = |p: &Part| format!("`{}`", p.csv.display());
    let described: Vec<(&Part, &TournamentFile)> = parts
        .iter()
        .filter_map(|p| p.info.as_ref().map(|i| (p, i)))
        .collect();
    if let Some(&(a, first)) = described.first() {
        let base = comparable(first)?;
        for &(b, info) in &described[1..] {
            if let Some(key) = first_difference(&base, &comparable(info)?, "") {
                // Complete runs that differ in their seed only are what `--pool` is for.
                let hint = if key == "tournament.seed" {
                    "; complete runs pool with `--pool`"
                } else {
                    ""
                };
                bail!(
                    "cannot merge {} and {}: the `tournament.json` beside them differ in \
                     `{key}` (only shards of one tournament merge{hint})",
                    name(a),
                    name(b)
                );
            }
        }
    }
    let mut runs: Vec<(&str, &Part)> = Vec::new();
    for p in parts {
        for run in &p.games.runs {
            if !runs.iter().any(|(r, _)| *r == &**run) {
                runs.push((run, p));
            }
        }
    }
    if runs.len() < 2 {
        return Ok(());
    }
    let (a, b) = (runs[0].1, runs[1].1);
    let shards: Option<Vec<_>> = parts
        .iter()
        .map(|p| p.info.as_ref().and_then(|i| i.config.tournament.shard))
        .collect();
    let Some(shards) = shards else {
        bail!(
            "cannot merge {} and {}: they hold games of different runs (`{}`, `{}`) and no \
             `tournament.json` beside each shows they are shards of one tournament",
            name(a),
            name(b),
            runs[0].0,
            runs[1].0
        );
    };
    for (i, s) in shards.iter().enumerate() {
        if let Some(j) = shards[..i].iter().position(|t| t.index == s.index) {
            bail!(
                "cannot merge {} and {}: both are shard {}/{} (their games would count twice)",
                name(&parts[j]),
                name(&parts[i]),
                s.index,
                s.count
            );
        }
    }
    Ok(())
}

/// A run's configuration as JSON without what may differ between shards of one tournament.
pub(super) fn comparable(info: &TournamentFile) -> Result<serde_json::Value> {
    let mut value = serde_json::to_value(&info.config).context("cannot compare configurations")?;
    if let Some(map) = value.as_object_mut() {
        // What is written and where changes no game.
        map.remove("output");
    }
    if let Some(map) = value.get_mut("tournament").and_then(|v| v.as_object_mut()) {
        map.remove("shard");
        map.remove("jobs");
    }
    Ok(value)
}

/// The bots the runs of `parts` left out, each once, in the order listed. When `grading` and a
/// CSV has neither `left_out.csv` nor `tournament.json` beside it, says so on stderr: such
/// bots, which played no game, cannot be graded.
fn merged_left_out(parts: &[Part], grading: bool) -> Vec<(String, String)> {
    let mut bots: Vec<(String, String)> = Vec::new();
    for part in parts {
        match &part.left_out {
            Some(listed) => {
                for (name, reason) in listed {
                    if !bots.iter().any(|(n, _)| n == name) {
                        bots.push((name.clone(), reason.clone()));
                    }
                }
            }
            None if grading => eprintln!(
                "warning: neither `{}` nor `tournament.json` is beside `{}`: candidates left \
                 out before the first game (a failed build) are not known, and not graded",
                left_out::FILE,
                part.csv.display()
            ),
            None => {}
        }
    }
    bots
}

/// The gauntlet to grade with `--gauntlet`: its candidates are the bots of the run that are
/// not references, as `arena run` grades them: those of the games, of `tournament.json` when
/// it is beside the CSV, and those left out (`left_out`), which fail as never ran.
fn gauntlet(
    args: &StandingsArgs,
    games: &GameTable,
    info: Option<&TournamentFile>,
    left_out: &[(String, String)],
) -> Result<Option<Gauntlet>> {
    if args.references.is_empty() {
        return Ok(None);
    }
    for r in &args.references {
        if games.names.id(r).is_none() {
            bail!("unknown reference `{r}`: it played no game");
        }
    }
    let bots = (0..games.names.len() as u32)
        .map(|id| games.name(id).to_string())
        .chain(
            info.iter()
                .flat_map(|i| i.bots.iter().map(|b| b.name.clone())),
        )
        .chain(left_out.iter().map(|(name, _)| name.clone()));
    let mut candidates: Vec<String> = bots
        .into_iter()
        .filter(|n| !args.references.contains(n))
        .collect();
    candidates.sort();
    candidates.dedup();
    Ok(Some(Gauntlet {
        references: args.references.clone(),
        candidates,
        never_ran: left_out.to_vec(),
        rule: args.pass.unwrap_or_default(),
        move_time: info.map(|i| i.config.move_limits().move_time),
        versions: info.map(TournamentFile::versions).unwrap_or_default(),
    }))
}

/// The HTML report's title, configuration and links: a single tournament's own description
/// when its `tournament.json` is beside the CSV.
fn report_options(
    args: &StandingsArgs,
    games: &GameTable,
    out: &Path,
    gauntlet: Option<Gauntlet>,
    replays: Vec<export::html::ReplayDir>,
    left_out: Vec<(String, String)>,
) -> export::ReportOptions {
    let game = games.first().map_or("no games", |g| g.game.name());
    let single = match args.csv.as_slice() {
        [csv] => csv.parent().map(|d| d.to_path_buf()),
        _ => None,
    };
    let info = single.as_ref().and_then(|d| TournamentFile::read(d).ok());
    let described = info.map(|info| info.describe());
    let (title, config) = described.unwrap_or_else(|| {
        let files: Vec<String> = args.csv.iter().map(|p| p.display().to_string()).collect();
        (
            format!("{game} — {} games", games.len()),
            vec![("games CSVs".to_string(), files.join(", "))],
        )
    });
    // Links to logs work only from the directory that holds them.
    let beside = |name: &str| {
        single.as_ref().is_some_and(|d| {
            d.join(name).is_dir() && d.canonicalize().ok() == out.canonicalize().ok()
        })
    };
    export::ReportOptions {
        anchor: args.anchor.clone(),
        title,
        config,
        replays,
        logs: beside("logs"),
        gauntlet,
        left_out,
        // An SPRT match's test, as the run wrote it.
        sprt: (single.as_ref())
            .and_then(|d| std::fs::read_to_string(d.join("sprt.json")).ok())
            .and_then(|text| serde_json::from_str(&text).ok()),
        // Byes are not in `games.csv`: the Swiss table is the run's alone (`swiss.md`).
        swiss: None,
    }
}

/// The `replays/` directory beside each CSV, for the games read from that CSV, linked
/// relative to the output directory `out`.
fn replay_dirs(parts: &[Part], out: &Path) -> Vec<export::html::ReplayDir> {
    let mut dirs = Vec::new();
    let mut start = 0;
    for part in parts {
        let replays = beside(&part.csv).join("replays");
        let count = part.games.len();
        let href = replays
            .is_dir()
            .then(|| export::html::replays::relative_href(out, &replays))
            .flatten();
        if let Some(href) = href {
            dirs.push(export::html::ReplayDir {
                games: start..start + count,
                dir: replays,
                href,
            });
        }
        // Each CSV's games follow the previous ones' in the table.
        start += count;
    }
    dirs
}

/// The directory a CSV is in: its run's output directory.
fn beside(csv: &Path) -> PathBuf {
    match csv.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
