//! The `ptc` library's integration tests, one binary with a module per area; each test is
//! named after the behaviour of `shared/spec` it pins. `code_*` modules run on the engine
//! this build compiles (QuickJS, or deno_core built with `--no-default-features --features
//! deno-quickjs`).

mod batches;
mod code_journal;
mod code_journal_writes;
mod code_limits;
mod code_modes;
mod code_notes;
mod code_run;
mod code_scheduling;
mod code_subcalls;
mod definitions;
mod discovery_catalog;
mod discovery_rank;
mod discovery_tools;
mod discovery_up_front;
mod pipeline_policy;
mod pipeline_results;
mod registry_scopes;
mod replay;
mod scheduler;
mod sdk_testkit;
