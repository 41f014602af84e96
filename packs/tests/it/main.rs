//! `ptc-packs`'s integration tests: the `builtin` tools, one module per tool (`pack` for the
//! pack as a whole), over temporary workspaces.

mod builtin_support;

mod bash;
mod edit;
mod glob;
mod grep;
mod pack;
mod read;
mod todo;
mod write;
