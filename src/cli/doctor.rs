//! `arena doctor`: which of the sandbox's protections this machine gives bots, and why not.

/// Prints the sandbox's protections on this machine.
pub fn run() -> anyhow::Result<()> {
    let sandbox = crate::sandbox::Sandbox::probe(Default::default(), false);
    let mut printed = Ok(());
    for p in &sandbox.protections {
        printed = printed.and(crate::stdout::print(format_args!(
            "{} {}: {}\n",
            if p.active { "yes" } else { "NO " },
            p.name,
            p.detail
        )));
    }
    sandbox.cleanup();
    anyhow::Context::context(printed, "cannot write to stdout")
}
