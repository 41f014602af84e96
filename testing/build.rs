//! Empty: it exists so that the `[build-dependencies]` in Cargo.toml take part in feature
//! unification on the host side (see the comment there).
fn main() {}
