//! `--otlp`: export every call and sub-call as an OpenTelemetry span while ptc runs.

use clap::Args;
use ptc::telemetry::otlp::{resolve_endpoint, OtlpExport};
use ptc_cli::config::TelemetryConfig;

/// Telemetry options of `run` and `serve`.
#[derive(Args, Debug, Clone, Default)]
pub struct TelemetryArgs {
    /// Export every call and sub-call as an OpenTelemetry span to this OTLP/HTTP traces URL
    /// (http/protobuf; a bare `http://HOST:PORT` gets `/v1/traces`). Default: the
    /// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT variables, else
    /// `endpoint` in `[telemetry]` of ptc.toml, else off.
    #[arg(long, value_name = "URL")]
    pub otlp: Option<String>,
}

/// The running exporter, if any; [`Telemetry::shutdown`] flushes it.
pub struct Telemetry(Option<OtlpExport>);

/// Start exporting if an endpoint is named; say where on stderr.
pub fn start(args: &TelemetryArgs, config: &TelemetryConfig) -> Result<Telemetry, String> {
    if let Some(chars) = config.max_attribute_chars {
        ptc::telemetry::set_max_attribute_chars(chars);
    }
    let endpoint = resolve_endpoint(
        args.otlp.as_deref(),
        config.endpoint.as_deref(),
        config.protocol.as_deref(),
        |key| std::env::var(key).ok(),
    )?;
    let Some(endpoint) = endpoint else {
        return Ok(Telemetry(None));
    };
    let export = OtlpExport::install_global(&endpoint)?;
    eprintln!("ptc: exporting spans to {endpoint}");
    Ok(Telemetry(Some(export)))
}

impl Telemetry {
    /// Export the spans still buffered (off the async runtime: the flush blocks).
    pub async fn shutdown(self) {
        let Some(export) = self.0 else {
            return;
        };
        let flushed = tokio::task::spawn_blocking(move || export.shutdown()).await;
        match flushed {
            Ok(Ok(())) => {}
            Ok(Err(e)) => crate::output::stderr_line(&format!("ptc: {e}")),
            Err(e) => eprintln!("ptc: telemetry: the flush failed: {e}"),
        }
    }
}
