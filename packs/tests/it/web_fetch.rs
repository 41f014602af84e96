//! `web_fetch` against servers the tests start on 127.0.0.1 (allowed by each test's own
//! `[web] allow_hosts`, for that host only): conversion goldens, charsets, compression,
//! redirects, caps, the time limit, and the SSRF defence of the default rules.

use std::io::Write;
use std::time::Duration;

use crate::builtin_support::Fixture;
use crate::web_server::{Reply, Server};
use ptc_packs::builtin::{HostPattern, WebConfig};
use serde_json::json;

/// The builtin pack with `[web]` rules that allow the test server's host, 127.0.0.1.
fn allowing_local(edit: impl FnOnce(&mut WebConfig)) -> Fixture {
    Fixture::with_context(|ctx| {
        ctx.web.allow_hosts = vec![HostPattern::parse("127.0.0.1").unwrap()];
        edit(&mut ctx.web);
    })
}

const PAGE: &str = "<!doctype html><html><head><title>Docs</title>\
    <script>track()</script><style>body { color: red }</style></head><body>\
    <header><a href=\"/\">Site</a></header><nav><ul><li><a href=\"/a\">A</a></li></ul></nav>\
    <main><h1>Getting started</h1><p>Install it with <code>cargo add ptc</code>.</p>\
    <h2>Usage</h2><ul><li>one</li><li>two</li></ul>\
    <p>See <a href=\"https://example.com/api\">the API</a>.</p></main>\
    <footer>© 2026</footer></body></html>";

#[tokio::test]
async fn web_fetch_converts_html_to_markdown_of_the_main_content() {
    let server = Server::start(|_| Reply::ok("text/html; charset=utf-8", PAGE)).await;
    let f = allowing_local(|_| {});
    let out = f
        .call("web_fetch", json!({"url": server.url("/docs")}))
        .await;
    let v = out.value();
    assert_eq!(
        v["text"],
        "# Getting started\n\nInstall it with `cargo add ptc`.\n\n## Usage\n\n*   one\n*   two\n\n\
         See [the API](https://example.com/api).\n"
    );
    assert_eq!(v["status"], 200);
    assert_eq!(v["content_type"], "text/html; charset=utf-8");
    assert_eq!(v["final_url"], server.url("/docs"));
    assert_eq!(v["total_lines"], 10);
    assert_eq!(v["truncated"], false);
    assert!(out.text().starts_with(&format!(
        "[{} — 200 text/html; charset=utf-8]\n\n# Getting started\n",
        server.url("/docs")
    )));
}

#[tokio::test]
async fn web_fetch_pretty_prints_json_and_returns_text_as_is() {
    let server = Server::start(|path| match path {
        "/json" => Reply::ok("application/json", r#"{"name":"ptc","tags":["a","b"]}"#),
        _ => Reply::ok("text/plain", "  keep   this\n<b>not html</b>\n"),
    })
    .await;
    let f = allowing_local(|_| {});
    let json = f
        .call("web_fetch", json!({"url": server.url("/json")}))
        .await;
    assert_eq!(
        json.value()["text"],
        "{\n  \"name\": \"ptc\",\n  \"tags\": [\n    \"a\",\n    \"b\"\n  ]\n}\n"
    );
    let text = f
        .call("web_fetch", json!({"url": server.url("/txt")}))
        .await;
    assert_eq!(text.value()["text"], "  keep   this\n<b>not html</b>\n");
}

#[tokio::test]
async fn web_fetch_refuses_a_binary_type_naming_it() {
    let server = Server::start(|_| Reply::ok("image/png", vec![0x89, b'P', b'N', b'G', 0])).await;
    let f = allowing_local(|_| {});
    let err = f
        .call("web_fetch", json!({"url": server.url("/logo.png")}))
        .await
        .error();
    assert!(err.contains("is `image/png`, not text"), "{err}");
}

#[tokio::test]
async fn web_fetch_reports_an_error_status_with_the_start_of_the_page() {
    let server = Server::start(|_| {
        Reply::Full(
            "404 Not Found",
            vec![("Content-Type", "text/plain".into())],
            b"no such page".to_vec(),
        )
    })
    .await;
    let f = allowing_local(|_| {});
    let err = f
        .call("web_fetch", json!({"url": server.url("/gone")}))
        .await
        .error();
    assert!(
        err.contains("answered HTTP 404 Not Found: no such page"),
        "{err}"
    );
}

#[tokio::test]
async fn web_fetch_follows_redirects_and_reports_the_final_url() {
    let server = Server::start(|path| match path {
        "/old" => Reply::redirect("/new"),
        _ => Reply::ok("text/plain", format!("at {path}")),
    })
    .await;
    let f = allowing_local(|_| {});
    let out = f
        .call("web_fetch", json!({"url": server.url("/old")}))
        .await;
    assert_eq!(out.value()["final_url"], server.url("/new"));
    assert_eq!(out.value()["text"], "at /new\n");
}

#[tokio::test]
async fn web_fetch_refuses_a_redirect_to_the_metadata_address_though_the_first_host_is_allowed() {
    // The refusal comes before any connection: no packet goes to 169.254.169.254.
    let server =
        Server::start(|_| Reply::redirect("http://169.254.169.254/latest/meta-data/")).await;
    let f = allowing_local(|_| {});
    let err = f
        .call("web_fetch", json!({"url": server.url("/")}))
        .await
        .error();
    assert!(
        err.contains("refused http://169.254.169.254/latest/meta-data/"),
        "{err}"
    );
    assert!(
        err.contains("`169.254.169.254` is a link-local address"),
        "{err}"
    );
}

#[tokio::test]
async fn web_fetch_stops_a_redirect_loop_at_the_limit() {
    let server = Server::start(|_| Reply::redirect("/again")).await;
    let f = allowing_local(|_| {});
    let err = f
        .call("web_fetch", json!({"url": server.url("/start")}))
        .await
        .error();
    assert!(err.contains("stopped after 10 redirects"), "{err}");
}

#[tokio::test]
async fn web_fetch_cuts_a_1_gib_body_at_the_cap_and_closes_the_connection() {
    const GIB: u64 = 1 << 30;
    let server = Server::start(|_| Reply::Endless("text/plain", GIB)).await;
    let f = allowing_local(|web| web.max_bytes = 1024 * 1024);
    let out = f
        .call("web_fetch", json!({"url": server.url("/huge")}))
        .await;
    let v = out.value();
    assert!(
        v["note"]
            .as_str()
            .unwrap()
            .starts_with("the page was cut at 1,048,576 bytes (`[web] max_bytes`)"),
        "{v}"
    );
    // Only the first window comes back, and the server stopped far short of 1 GiB: the
    // client closed the connection once it had its 1 MiB.
    assert_eq!(v["truncated"], true);
    server.connection_ended().await;
    let sent = server.sent();
    eprintln!("the server wrote {sent} bytes of 1 GiB");
    assert!(sent < 64 * 1024 * 1024, "the server wrote {sent} bytes");
}

#[tokio::test]
async fn web_fetch_stops_a_slow_server_at_the_time_limit() {
    let server = Server::start(|_| Reply::Hang).await;
    let f = allowing_local(|web| web.timeout = Duration::from_millis(300));
    let started = std::time::Instant::now();
    let err = f
        .call("web_fetch", json!({"url": server.url("/slow")}))
        .await
        .error();
    assert!(
        err.contains("after its time limit of 300 ms (`[web] timeout_ms`)"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn web_fetch_waiting_on_a_silent_server_ends_when_the_call_is_cancelled() {
    let server = Server::start(|_| Reply::Hang).await;
    let f = allowing_local(|_| {});
    let signal = tokio_util::sync::CancellationToken::new();
    let call = f.call_with_signal(
        "web_fetch",
        json!({"url": server.url("/slow")}),
        signal.clone(),
    );
    let cancel = async {
        server.requested().await;
        signal.cancel();
    };
    let (out, ()) = tokio::join!(call, cancel);
    let err = out.error();
    assert!(err.contains("aborted"), "{err}");
}

#[tokio::test]
async fn web_fetch_decodes_latin1_and_shift_jis() {
    let server = Server::start(|path| match path {
        "/latin1" => Reply::ok(
            "text/plain; charset=iso-8859-1",
            b"caf\xe9 na\xefve\n".to_vec(),
        ),
        _ => {
            let (body, _, _) = encoding_rs::SHIFT_JIS.encode("<p>日本語のページ</p>");
            Reply::ok("text/html; charset=Shift_JIS", body.into_owned())
        }
    })
    .await;
    let f = allowing_local(|_| {});
    let latin1 = f
        .call("web_fetch", json!({"url": server.url("/latin1")}))
        .await;
    assert_eq!(latin1.value()["text"], "café naïve\n");
    let sjis = f
        .call("web_fetch", json!({"url": server.url("/sjis")}))
        .await;
    assert_eq!(sjis.value()["text"], "日本語のページ\n");
}

#[tokio::test]
async fn web_fetch_decodes_gzip_and_brotli_bodies() {
    let text = "compressed text\n".repeat(100);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    let gzip = gz.finish().unwrap();
    let mut br = Vec::new();
    brotli::BrotliCompress(&mut text.as_bytes(), &mut br, &Default::default()).unwrap();
    let server = Server::start(move |path| {
        let (encoding, body) = match path {
            "/gzip" => ("gzip", gzip.clone()),
            _ => ("br", br.clone()),
        };
        Reply::Full(
            "200 OK",
            vec![
                ("Content-Type", "text/plain".into()),
                ("Content-Encoding", encoding.into()),
            ],
            body,
        )
    })
    .await;
    let f = allowing_local(|_| {});
    for path in ["/gzip", "/br"] {
        let out = f.call("web_fetch", json!({"url": server.url(path)})).await;
        assert_eq!(out.value()["text"], text.as_str(), "{path}");
    }
}

#[tokio::test]
async fn web_fetch_pages_a_long_page_with_offset() {
    let body: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    let server = Server::start(move |_| Reply::ok("text/plain", body.clone())).await;
    let f = allowing_local(|_| {});
    let first = f
        .call("web_fetch", json!({"url": server.url("/long")}))
        .await;
    let v = first.value();
    assert_eq!(v["total_lines"], 2500);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["next_offset"], 2001);
    assert!(v["text"].as_str().unwrap().ends_with("line 2000\n"));
    assert!(first
        .text()
        .ends_with("[lines 1-2000 of 2500; continue with offset=2001]\n"));
    let rest = f
        .call(
            "web_fetch",
            json!({"url": server.url("/long"), "offset": 2001}),
        )
        .await;
    let v = rest.value();
    assert!(v["text"].as_str().unwrap().starts_with("line 2001\n"));
    assert_eq!(v["truncated"], false);
    assert_eq!(v.get("next_offset"), None);
}

#[tokio::test]
async fn web_fetch_in_a_program_returns_the_whole_page_past_the_native_caps() {
    let body: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    let server = Server::start(move |_| Reply::ok("text/plain", body.clone())).await;
    let f = allowing_local(|_| {});
    let out = f
        .call_in_program("run-1", 1, "web_fetch", json!({"url": server.url("/long")}))
        .await;
    assert_eq!(out.value()["truncated"], false);
    assert!(out.value()["text"]
        .as_str()
        .unwrap()
        .ends_with("line 2500\n"));
    assert_eq!(out.cut_short(), None);
}

#[tokio::test]
async fn web_fetch_by_default_refuses_127_0_0_1_naming_the_address_and_the_setting() {
    let server = Server::start(|_| Reply::ok("text/plain", "secret")).await;
    let f = Fixture::new();
    let err = f
        .call("web_fetch", json!({"url": server.url("/admin")}))
        .await
        .error();
    assert!(err.contains("`127.0.0.1` is a loopback address"), "{err}");
    assert!(err.contains("`[web] allow_hosts`"), "{err}");
    assert!(err.contains("`[web] allow_private = true`"), "{err}");
}

#[tokio::test]
async fn web_fetch_checks_the_addresses_a_name_resolves_to_and_connects_to_them() {
    let server = Server::start(|_| Reply::ok("text/plain", "local")).await;
    let url = format!("http://localhost:{}/", server.addr.port());
    let err = Fixture::new()
        .call("web_fetch", json!({"url": url}))
        .await
        .error();
    // 127.0.0.1 or ::1, whichever the resolver lists first.
    assert!(err.contains("`localhost` resolves to "), "{err}");
    assert!(err.contains(", a loopback address"), "{err}");
    // Allowed by name, the connection goes to the address checked.
    let f = Fixture::with_context(|ctx| {
        ctx.web.allow_hosts = vec![HostPattern::parse("localhost").unwrap()];
    });
    let out = f.call("web_fetch", json!({"url": url})).await;
    assert_eq!(out.value()["text"], "local\n");
}

#[tokio::test]
async fn web_fetch_refuses_denied_hosts_and_other_schemes() {
    let server = Server::start(|_| Reply::ok("text/plain", "x")).await;
    let f = Fixture::with_context(|ctx| {
        ctx.web.allow_private = true;
        ctx.web.deny_hosts = vec![HostPattern::parse("127.0.0.1").unwrap()];
    });
    let err = f
        .call("web_fetch", json!({"url": server.url("/")}))
        .await
        .error();
    assert!(
        err.contains("refused by `[web] deny_hosts` (`127.0.0.1`)"),
        "{err}"
    );
    let err = f
        .call("web_fetch", json!({"url": "file:///etc/passwd"}))
        .await
        .error();
    assert!(
        err.contains("only http and https URLs are fetched, not `file:`"),
        "{err}"
    );
    let err = f
        .call("web_fetch", json!({"url": "not a url"}))
        .await
        .error();
    assert!(err.contains("`url` is not a valid URL"), "{err}");
}

#[tokio::test]
async fn web_fetch_speaks_tls_to_an_https_url() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let first_byte = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut byte = [0u8; 1];
        stream.read_exact(&mut byte).await.unwrap();
        // Not TLS back: the handshake fails.
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await;
        byte[0]
    });
    let f = allowing_local(|_| {});
    let url = format!("https://127.0.0.1:{port}/");
    let err = f.call("web_fetch", json!({ "url": url })).await.error();
    assert!(err.starts_with(&format!("could not fetch {url}")), "{err}");
    // 0x16: a TLS handshake record (the ClientHello).
    assert_eq!(first_byte.await.unwrap(), 0x16);
}
