//! `arena doctor`: which of the sandbox's protections this machine gives bots, and why not.

/// Prints the sandbox's protections on this machine.
pub fn run() {
    let sandbox = crate::sandbox::Sandbox::probe(Default::default(), false);
    for p in &sandbox.protections {
        println!(
            "{} {}: {}",
            if p.active { "yes" } else { "NO " },
            p.name,
            p.detail
        );
    }
    sandbox.cleanup();
}
