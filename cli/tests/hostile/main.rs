//! The hostile suite: programs, files, configs and requests written to break ptc.
//!
//! Every case ends with a clear result of the right kind, within the configured limits plus a
//! small documented slack, and the process stays up: the next run in the same process works.
//! Area modules: `program` (code-mode programs and their arguments and results), `tools` (builtin
//! tools and the CLI's inputs), `log` (the session log and replay), `sandbox` (bash's kernel
//! sandbox, configuration trust), `serve` (`ptc serve` over stdio and HTTP).

mod cli;
mod fuzz_corpus;
mod log;
mod program;
mod sandbox;
mod serve;
mod tools;
