//! The host side of the two raw functions every backend installs, `hostCall` and `hostLog`,
//! minus the engine: accepting a tool call, containing a panicking host, and recording a console
//! line against the output limit. A backend only converts values and throws the returned message.

use std::future::Future;

use futures::FutureExt;

use crate::contain::{contain, contain_async};
use crate::{json, output::Output, stop::Stop, Host, HostCall, LogLevel};

/// The failure message of a host call whose future panicked (or whose `call_tool` did).
pub(crate) const PANICKED: &str = "the tool call panicked";

/// Hand one tool call to `host`: `args` is the glue's strict JSON text.
///
/// `Err(message)` is what the program sees thrown: the run is already over, the arguments are not
/// JSON, the host panicked, or the host refused the call (its failure is then recorded in `stop`,
/// which ends the run).
pub(crate) fn accept_json(
    host: &dyn Host,
    stop: &Stop,
    name: &str,
    args: &str,
) -> Result<HostCall, String> {
    still_running(stop)?;
    let args = json::parse(args).map_err(|e| format!("arguments are not JSON: {e}"))?;
    accept(host, stop, name, args)
}

/// Hand one tool call with already-read JSON `args` to `host` (see [`accept_json`]).
pub(crate) fn accept(
    host: &dyn Host,
    stop: &Stop,
    name: &str,
    args: serde_json::Value,
) -> Result<HostCall, String> {
    still_running(stop)?;
    match contain(|| host.call_tool(name, args)) {
        Err(_) => Err(PANICKED.to_string()),
        Ok(Ok(call)) => Ok(call),
        Ok(Err(failure)) => {
            let message = format!("the run is over ({}): {}", failure.kind, failure.message);
            stop.fail(failure);
            Err(message)
        }
    }
}

/// `Err(message)` once a stop is recorded.
fn still_running(stop: &Stop) -> Result<(), String> {
    match stop.failure() {
        Some(failure) => Err(format!("the run is over ({})", failure.kind)),
        None => Ok(()),
    }
}

/// `call`, with a panic while polling it turned into the [`PANICKED`] failure.
pub(crate) fn contained(
    call: HostCall,
) -> impl Future<Output = Result<serde_json::Value, String>> + Send {
    contain_async(call).map(|result| result.unwrap_or_else(|_| Err(PANICKED.to_string())))
}

/// Record one console line at the glue's `level` name and show it to the host as it happens
/// ([`Host::console`]).
///
/// `Err(message)` is what the program sees thrown: the run is already over, or the line does not
/// fit (the output-limit failure is then recorded in `stop`, which ends the run).
pub(crate) fn log(
    host: &dyn Host,
    output: &mut Output,
    stop: &Stop,
    level: &str,
    line: String,
) -> Result<(), String> {
    still_running(stop)?;
    let level = LogLevel::from_name(level).unwrap_or(LogLevel::Log);
    match output.log(level, line) {
        Ok(kept) => {
            host.console(level, kept);
            Ok(())
        }
        Err(failure) => {
            let message = failure.message.clone();
            stop.fail(failure);
            Err(message)
        }
    }
}
