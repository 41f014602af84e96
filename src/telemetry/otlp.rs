//! Export ptc's call spans to an OpenTelemetry collector over OTLP (http/protobuf).
//!
//! ```no_run
//! # fn main() -> Result<(), String> {
//! use ptc::telemetry::otlp::{self, OtlpExport};
//! let endpoint = otlp::resolve_endpoint(None, None, None, |k| std::env::var(k).ok())?;
//! let export = endpoint.map(|e| OtlpExport::install_global(&e)).transpose()?;
//! // … run calls …
//! if let Some(export) = export {
//!     export.shutdown()?; // flushes the spans still buffered
//! }
//! # Ok(()) }
//! ```
//!
//! Spans are batched and sent from a thread of the SDK's own by a blocking HTTP client, so
//! exporting never runs on the caller's async runtime. `OTEL_EXPORTER_OTLP_HEADERS`,
//! `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` apply
//! as the OpenTelemetry specification says; the service name defaults to `ptc`.

use std::fmt::Write as _;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanExporter};
use opentelemetry_sdk::Resource;
use tracing::field::{Field, Visit};
use tracing::{Level, Subscriber};
use tracing_subscriber::filter::{filter_fn, Targets};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use super::TARGET;

/// The path OTLP/HTTP collectors receive traces at.
pub const TRACES_PATH: &str = "/v1/traces";

/// The traces URL to export to, or `None` when exporting is off.
///
/// Precedence: `flag` (`--otlp`), then the standard variables read through `env`
/// (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, `OTEL_EXPORTER_OTLP_ENDPOINT` as a base
/// that `/v1/traces` is appended to), then `configured` (`[telemetry] endpoint`). A flag or
/// configured URL without a path gets `/v1/traces`. The protocol (`configured_protocol`,
/// else `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`) must be
/// `http/protobuf`, the default; `OTEL_SDK_DISABLED=true` turns exporting off.
pub fn resolve_endpoint(
    flag: Option<&str>,
    configured: Option<&str>,
    configured_protocol: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<String>, String> {
    let env = |key: &str| env(key).filter(|v| !v.trim().is_empty());
    let disabled = env("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let endpoint = match flag {
        Some(url) => Some(with_traces_path(url)),
        None if disabled => None,
        None => env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .or_else(|| {
                env("OTEL_EXPORTER_OTLP_ENDPOINT")
                    .map(|base| format!("{}{TRACES_PATH}", base.trim_end_matches('/')))
            })
            .or_else(|| configured.map(with_traces_path)),
    };
    let Some(endpoint) = endpoint else {
        return Ok(None);
    };
    if !endpoint.starts_with("http://") {
        return Err(format!(
            "telemetry: the OTLP endpoint {endpoint} is not an http:// URL (ptc exports over \
             plain HTTP; put a local collector in front of a TLS endpoint)"
        ));
    }
    let protocol = configured_protocol
        .map(str::to_string)
        .or_else(|| env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
        .or_else(|| env("OTEL_EXPORTER_OTLP_PROTOCOL"));
    match protocol.as_deref().map(str::trim) {
        None | Some("http/protobuf") => Ok(Some(endpoint)),
        Some(other) => Err(format!(
            "telemetry: the OTLP protocol {other:?} is not supported; ptc exports over \
             http/protobuf"
        )),
    }
}

/// `url`, with `/v1/traces` when it has no path.
fn with_traces_path(url: &str) -> String {
    let url = url.trim();
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    if after_scheme.trim_end_matches('/').contains('/') {
        url.to_string()
    } else {
        format!("{}{TRACES_PATH}", url.trim_end_matches('/'))
    }
}

/// An OTLP exporter of ptc's spans. Keep it while calls run; [`OtlpExport::shutdown`]
/// flushes what is still buffered.
#[derive(Debug)]
pub struct OtlpExport {
    provider: SdkTracerProvider,
}

impl OtlpExport {
    /// An exporter that sends spans to the traces URL `endpoint` over http/protobuf. In a
    /// build that also links `ptc-packs` (whose rustls has no default provider), install one
    /// first (`ptc_packs::install_tls_provider()`), or building the HTTP client fails.
    pub fn new(endpoint: &str) -> Result<OtlpExport, String> {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(endpoint)
            .build()
            .map_err(|e| format!("telemetry: {e}"))?;
        Ok(OtlpExport::with_exporter(exporter))
    }

    /// Batch spans to any OpenTelemetry SDK exporter instead (another protocol, or a
    /// test's in-memory one). The resource is the same as [`OtlpExport::new`]'s.
    pub fn with_exporter(exporter: impl SpanExporter + 'static) -> OtlpExport {
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("ptc");
        }
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.build())
            .build();
        OtlpExport { provider }
    }

    /// A `tracing` layer that turns spans into OpenTelemetry spans for this exporter, for
    /// hosts that compose their own subscriber. It takes every span it is given: filter it
    /// (to [`TARGET`] and the host's own targets) so that a root call's span can have the
    /// host's enclosing span as its parent.
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("ptc"))
            .with_location(false)
            .with_threads(false)
            .with_tracked_inactivity(false)
            .with_target(false)
    }

    /// [`OtlpExport::new`], installed as the process's global `tracing` subscriber, with
    /// the exporter's own warnings (an unreachable collector, say) on stderr.
    pub fn install_global(endpoint: &str) -> Result<OtlpExport, String> {
        let export = OtlpExport::new(endpoint)?;
        let warnings = Warnings.with_filter(filter_fn(|meta| {
            meta.target().starts_with("opentelemetry") && *meta.level() <= Level::WARN
        }));
        let spans = export
            .layer()
            .with_filter(Targets::new().with_target(TARGET, Level::INFO));
        let subscriber = tracing_subscriber::registry().with(spans).with(warnings);
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|e| format!("telemetry: {e}"))?;
        Ok(export)
    }

    /// Export what is buffered now.
    pub fn flush(&self) -> Result<(), String> {
        self.provider
            .force_flush()
            .map_err(|e| format!("telemetry: {e}"))
    }

    /// Export what is buffered and stop.
    pub fn shutdown(self) -> Result<(), String> {
        self.provider
            .shutdown()
            .map_err(|e| format!("telemetry: {e}"))
    }
}

/// Prints the exporter's warnings and errors on stderr as `ptc: telemetry: …`.
struct Warnings;

impl<S: Subscriber> Layer<S> for Warnings {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let mut line = format!("ptc: telemetry: {}", event.metadata().name());
        event.record(&mut Fields(&mut line));
        eprintln!("{line}");
    }
}

struct Fields<'a>(&'a mut String);

/// `key=value` for each field but `name` (the event's name, already printed).
impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() != "name" {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() != "name" {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}
