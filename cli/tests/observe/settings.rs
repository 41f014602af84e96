//! What decides where spans go and how much of a value they carry: the endpoint's
//! precedence, `[telemetry]`, and truncation.

use ptc::telemetry::otlp::resolve_endpoint;
use serde_json::json;

#[test]
fn truncation_counts_characters_and_marks_the_cut() {
    use ptc::telemetry::{json_truncated, truncate};
    assert_eq!(truncate("héllo", 5), "héllo");
    assert_eq!(truncate("héllo wörld", 5), "héll…");
    assert_eq!(json_truncated(&json!({"a": 1}), 100), r#"{"a":1}"#);
    let big = json!({ "list": vec!["ünïcode"; 100_000] });
    let cut = json_truncated(&big, 40);
    assert_eq!(cut.chars().count(), 40);
    assert!(cut.starts_with(r#"{"list":["ünïcode","#) && cut.ends_with('…'));
}

#[test]
fn otlp_endpoint_comes_from_the_flag_then_the_environment_then_the_config() {
    let none = |_: &str| None;
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |key: &str| {
            vars.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.to_string())
        }
    };
    let resolve = |flag, config, protocol, vars: &'static [(&'static str, &'static str)]| {
        resolve_endpoint(flag, config, protocol, env(vars))
    };
    assert_eq!(
        resolve_endpoint(None, None, None, none),
        Ok(None),
        "off by default"
    );
    let traces = "http://127.0.0.1:6006/v1/traces".to_string();
    assert_eq!(
        resolve(Some("http://127.0.0.1:6006"), None, None, &[]),
        Ok(Some(traces.clone())),
        "a bare address gets /v1/traces"
    );
    assert_eq!(
        resolve(
            Some("http://h:1/custom/path"),
            Some("http://c:2"),
            None,
            &[]
        ),
        Ok(Some("http://h:1/custom/path".into()))
    );
    let base = &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:6006/")];
    assert_eq!(
        resolve(None, Some("http://c:2"), None, base),
        Ok(Some(traces.clone()))
    );
    let both = &[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:1"),
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://signal:2/x"),
    ];
    assert_eq!(
        resolve(None, None, None, both),
        Ok(Some("http://signal:2/x".into()))
    );
    assert_eq!(
        resolve(None, Some("http://c:2"), None, &[]),
        Ok(Some("http://c:2/v1/traces".into()))
    );
    let disabled = &[
        ("OTEL_SDK_DISABLED", "true"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:1"),
    ];
    assert_eq!(resolve(None, Some("http://c:2"), None, disabled), Ok(None));
    let grpc = &[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")];
    let e = resolve(Some("http://h:1"), None, None, grpc).unwrap_err();
    assert!(e.contains("\"grpc\" is not supported"), "{e}");
    let proto = &[("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf")];
    assert!(resolve(Some("http://h:1"), None, None, proto).is_ok());
    let e = resolve(Some("https://h:1"), None, None, &[]).unwrap_err();
    assert!(e.contains("not an http:// URL"), "{e}");
}

#[test]
fn telemetry_table_is_checked_and_an_untrusted_endpoint_is_ignored() {
    let config = ptc_cli::config::Config::parse(
        "[telemetry]\nendpoint = \"http://127.0.0.1:4318/v1/traces\"\nmax_attribute_chars = 100\n",
        None,
    )
    .unwrap();
    assert_eq!(
        config.telemetry.endpoint.as_deref(),
        Some("http://127.0.0.1:4318/v1/traces")
    );
    assert_eq!(config.telemetry.max_attribute_chars, Some(100));
    for (text, message) in [
        (
            "[telemetry]\nprotocol = \"grpc\"\n",
            "line 2: telemetry.protocol \"grpc\" is not supported",
        ),
        (
            "[telemetry]\n\nendpoint = \"ftp://x\"\n",
            "line 3: telemetry.endpoint must be an http:// URL",
        ),
        (
            "[telemetry]\nmax_attribute_chars = 3\n",
            "line 2: telemetry.max_attribute_chars must be at least 16",
        ),
        (
            "[telemetry]\nendpiont = \"http://x\"\n",
            "unknown field `endpiont`",
        ),
    ] {
        let e = ptc_cli::config::Config::parse(text, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(message), "{text:?}: {e}");
    }

    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("ptc.toml"),
        "[telemetry]\nendpoint = \"http://attacker.invalid:80\"\nmax_attribute_chars = 64\n",
    )
    .unwrap();
    let loaded = ptc_cli::config::Config::discover_trusted(None, root.path(), None).unwrap();
    assert_eq!(
        loaded.config.telemetry.endpoint, None,
        "an untrusted file sends nothing out"
    );
    assert_eq!(loaded.config.telemetry.max_attribute_chars, Some(64));
    assert!(
        loaded
            .notices
            .iter()
            .any(|n| n.contains("[telemetry] endpoint")),
        "{:?}",
        loaded.notices
    );
}
