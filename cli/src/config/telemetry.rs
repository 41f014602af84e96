//! `[telemetry]`: where ptc exports its call spans (see [`ptc::telemetry`]).
//!
//! ```toml
//! [telemetry]
//! endpoint = "http://127.0.0.1:6006/v1/traces"   # OTLP/HTTP traces URL (a bare host:port gets /v1/traces)
//! protocol = "http/protobuf"                      # the only one supported, and the default
//! max_attribute_chars = 4096                      # input and output values on spans are cut here
//! ```
//!
//! `--otlp URL` and the standard `OTEL_EXPORTER_OTLP_*` variables win over `endpoint`.
//! Exporting is off unless one of them names an endpoint. An untrusted workspace file's
//! `endpoint` and `protocol` are ignored: they would send every tool's arguments and
//! results elsewhere.

use serde::Deserialize;
use toml::Spanned;

/// The `[telemetry]` table; unset fields keep the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TelemetryConfig {
    /// The OTLP/HTTP traces URL to export spans to.
    pub endpoint: Option<String>,
    /// The OTLP protocol; only `http/protobuf` is supported.
    pub protocol: Option<String>,
    /// How many characters of an input or output value a span carries.
    pub max_attribute_chars: Option<usize>,
}

impl TelemetryConfig {
    /// Drop what would send data elsewhere (for an untrusted file); what was dropped.
    pub(super) fn restrict_untrusted(&mut self) -> Option<String> {
        let dropped = self.endpoint.is_some() || self.protocol.is_some();
        self.endpoint = None;
        self.protocol = None;
        dropped.then(|| "[telemetry] endpoint and protocol".to_string())
    }
}

/// `[telemetry]` as written, with positions for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTelemetry {
    endpoint: Option<Spanned<String>>,
    protocol: Option<Spanned<String>>,
    max_attribute_chars: Option<Spanned<usize>>,
}

impl RawTelemetry {
    /// Check the values; the error is `(line, message)`.
    pub(super) fn resolve(self, text: &str) -> Result<TelemetryConfig, (usize, String)> {
        let line = |span: std::ops::Range<usize>| super::line_of(text, span.start);
        if let Some(endpoint) = &self.endpoint {
            if !endpoint.get_ref().starts_with("http://") {
                return Err((
                    line(endpoint.span()),
                    "telemetry.endpoint must be an http:// URL".into(),
                ));
            }
        }
        if let Some(protocol) = &self.protocol {
            if protocol.get_ref() != "http/protobuf" {
                return Err((
                    line(protocol.span()),
                    format!(
                        "telemetry.protocol {:?} is not supported (only \"http/protobuf\")",
                        protocol.get_ref()
                    ),
                ));
            }
        }
        if let Some(chars) = &self.max_attribute_chars {
            if *chars.get_ref() < 16 {
                return Err((
                    line(chars.span()),
                    "telemetry.max_attribute_chars must be at least 16".into(),
                ));
            }
        }
        Ok(TelemetryConfig {
            endpoint: self.endpoint.map(Spanned::into_inner),
            protocol: self.protocol.map(Spanned::into_inner),
            max_attribute_chars: self.max_attribute_chars.map(Spanned::into_inner),
        })
    }
}
