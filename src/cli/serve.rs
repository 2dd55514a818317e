//! `arena serve` and `arena entrant`: a tournament of local bots and remote entrants, and a
//! token for a new entrant.

use anyhow::{Context, Result};
use clap::Args;

use crate::config::{RunConfig, ServeOptions};
use crate::serve::entrants::{check_name, new_token, table};

/// `arena serve`'s arguments: every option of `arena run`, and the network's.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub run: RunConfig,

    #[command(flatten, next_help_heading = "Network")]
    pub serve: ServeOptions,
}

impl ServeArgs {
    /// The run configuration with the network options in it, resolved.
    pub fn config(self) -> Result<RunConfig> {
        let mut config = self.run;
        if config.output.update {
            anyhow::bail!("`--update` applies to `arena run`, not `arena serve`");
        }
        let mut serve = self.serve;
        serve.entrants = std::path::absolute(&serve.entrants)?;
        config.serve = Some(serve);
        config.resolve()
    }
}

/// `arena entrant`'s arguments.
#[derive(Debug, Args)]
pub struct EntrantArgs {
    /// The entrant's name (letters, digits, `.`, `_`, `-`).
    pub name: String,
}

/// Prints the `[[entrant]]` table for a new entrant on stdout (to append to the entrants
/// file) and its token on stderr (to give to the entrant: it is stored nowhere).
pub fn entrant(args: EntrantArgs) -> Result<()> {
    check_name(&args.name)?;
    let token = new_token()?;
    // Redirected (`>> class.toml`), the table is not below the token: say where it went.
    let place = match crate::stdout::destination() {
        None => "in the table below".to_string(),
        Some(place) => format!("in the `[[entrant]]` table written to {place}"),
    };
    eprintln!(
        "token for `{}` (give it to them; only its hash is {place}): {token}",
        args.name
    );
    crate::stdout::print(format_args!("{}", table(&args.name, &token)))
        .context("cannot write the entrant's table to stdout")
}
