//! Observing ptc: call spans (in process, and exported to a real Arize Phoenix), and the
//! `ptc replay --html` waterfall in a real headless Chromium.
//!
//! - `spans`: the pipeline's spans through the OpenTelemetry layer ptc installs, collected
//!   in memory: the tree, the attributes, policy events, truncated values.
//! - `settings`: where spans go (`--otlp`, the `OTEL_*` variables, `[telemetry]`, trust) and
//!   how values are cut.
//! - `phoenix`: `ptc run --otlp` and `ptc serve --otlp` against Phoenix from PyPI, read back
//!   through Phoenix's REST API (needs `target/observe/venv`, which `.ci/run` makes from
//!   `tests/observe/requirements.txt`; skipped with a message when absent outside CI).
//! - `waterfall`: pages from real and generated logs, loaded by Debian's Chromium through
//!   playwright-core (`tests/observe/waterfall.mjs`); screenshots land in `target/observe/`
//!   (skipped with a message when Chromium is absent outside CI).

mod phoenix;
mod settings;
mod spans;
mod support;
mod waterfall;
