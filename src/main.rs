//! The `arena` command.

fn main() {
    // This executable is also the jail factory that namespace holders are cloned from, and
    // the spawner of a game's per-move processes.
    arena::sandbox::main_if_asked();
    if let Err(e) = arena::cli::main() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
