//! The `ptc` command-line tool.

fn main() {
    eprintln!("ptc: the command-line interface arrives with code mode");
    std::process::exit(2);
}
