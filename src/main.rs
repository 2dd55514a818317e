//! The `arena` command.

fn main() {
    if let Err(e) = arena::cli::main() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
