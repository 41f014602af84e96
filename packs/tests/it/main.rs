//! `ptc-packs`'s integration tests: the `builtin` tools, one module per tool (`pack` for the
//! pack as a whole, `paths` for the path policy all file tools share: deny paths, races,
//! deep trees, sizes), over temporary workspaces.

mod builtin_support;

mod bash;
mod edit;
mod glob;
mod grep;
mod line_endings;
mod lsp;
mod pack;
mod paths;
mod program_caps;
mod read;
mod skill;
mod todo;
mod web_fetch;
mod web_server;
mod write;
