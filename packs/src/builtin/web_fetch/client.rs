//! The HTTP client of `web_fetch` and its checked connections.
//!
//! One `reqwest` client (HTTP/1.1, rustls with the `ring` provider and the platform's
//! certificate verifier, gzip and brotli decoding, no proxy) whose DNS resolver is
//! [`CheckedResolver`]: it resolves a host once, checks every address with the
//! [`WebConfig`] rules and hands exactly those addresses to the connector, so a second
//! lookup (DNS rebinding) cannot swap in another. Redirects are followed here, hop by hop
//! ([`MAX_REDIRECTS`]), each hop's URL checked again; the body is streamed into a buffer
//! that stops at [`WebConfig::max_bytes`] (the rest is never downloaded), and the whole call
//! runs under [`WebConfig::timeout`].

use std::error::Error as StdError;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{header, Url};
use tokio_util::sync::CancellationToken;

use super::guard::WebConfig;
use ptc::ToolError;

/// Redirects followed at most.
pub const MAX_REDIRECTS: usize = 10;

/// A response read as far as the caps allow.
pub(super) struct Fetched {
    /// The URL the last hop fetched.
    pub final_url: Url,
    /// Its HTTP status.
    pub status: reqwest::StatusCode,
    /// Its `Content-Type` (empty when absent).
    pub content_type: String,
    /// The body, decompressed, at most `max_bytes`.
    pub body: Vec<u8>,
    /// Whether the body went on past `max_bytes`.
    pub cut: bool,
}

/// A refusal by the address rules, carried through reqwest's error chain.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl StdError for Refused {}

/// Resolves a host once and returns only addresses the rules allow (or fails naming the
/// one refused), so the connection goes to exactly what was checked.
struct CheckedResolver(Arc<WebConfig>);

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let config = self.0.clone();
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let ips: Vec<IpAddr> = addrs.iter().map(SocketAddr::ip).collect();
            config.check_addrs(&host, &ips).map_err(Refused)?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The client of one pack, built on first use.
pub(crate) struct Client {
    config: Arc<WebConfig>,
    http: OnceLock<Result<reqwest::Client, String>>,
}

impl Client {
    /// A client under `config`.
    pub(super) fn new(config: WebConfig) -> Self {
        Client {
            config: Arc::new(config),
            http: OnceLock::new(),
        }
    }

    /// The rules this client fetches under.
    pub(super) fn config(&self) -> &WebConfig {
        &self.config
    }

    fn http(&self) -> Result<&reqwest::Client, ToolError> {
        self.http
            .get_or_init(|| build(self.config.clone()))
            .as_ref()
            .map_err(|e| ToolError::new(format!("web_fetch cannot start its HTTP client: {e}")))
    }

    /// Fetch `url`, following redirects; `Ok` for any final status, an error for a
    /// refused address, a binary type, the time limit, `signal` or a network failure.
    pub(super) async fn fetch(
        &self,
        url: &str,
        signal: &CancellationToken,
    ) -> Result<Fetched, ToolError> {
        let limit = self.config.timeout;
        tokio::select! {
            out = tokio::time::timeout(limit, self.follow(url)) => out.unwrap_or_else(|_| {
                Err(ToolError::new(format!(
                    "stopped fetching {url} after its time limit of {} ms (`[web] \
                     timeout_ms`)",
                    limit.as_millis()
                )))
            }),
            _ = signal.cancelled() => Err(ToolError::new("web_fetch was cancelled")),
        }
    }

    async fn follow(&self, url: &str) -> Result<Fetched, ToolError> {
        let http = self.http()?;
        let mut current = parse(url)?;
        let mut hops = 0;
        loop {
            self.check_url(&current)?;
            let response = http
                .get(current.clone())
                .send()
                .await
                .map_err(|e| failure(&current, &e))?;
            let status = response.status();
            let location = response.headers().get(header::LOCATION);
            if matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308) && location.is_some() {
                let target = location
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| current.join(l).ok())
                    .ok_or_else(|| {
                        ToolError::new(format!(
                            "{current} redirected ({status}) to an invalid Location: {:?}",
                            location
                        ))
                    })?;
                hops += 1;
                if hops > MAX_REDIRECTS {
                    return Err(ToolError::new(format!(
                        "stopped after {MAX_REDIRECTS} redirects (a redirect loop?): \
                         {url} → … → {current} → {target}"
                    )));
                }
                current = target;
                continue;
            }
            return self.read(current, response).await;
        }
    }

    /// The scheme, the host's deny rules, and an address written in the URL (a name is
    /// checked when it resolves).
    fn check_url(&self, url: &Url) -> Result<(), ToolError> {
        let refused = |why: String| ToolError::new(format!("refused {url}: {why}"));
        if !matches!(url.scheme(), "http" | "https") {
            return Err(refused(format!(
                "only http and https URLs are fetched, not `{}:`{}",
                url.scheme(),
                in_full(url.as_str())
            )));
        }
        let host = url.host_str().unwrap_or_default();
        self.config.check_host(host).map_err(refused)?;
        if let Some(ip) = literal(url) {
            self.config.check_addrs(host, &[ip]).map_err(refused)?;
        }
        Ok(())
    }

    /// Read `response`'s body up to the cap, refusing binary types before reading.
    async fn read(&self, url: Url, mut response: reqwest::Response) -> Result<Fetched, ToolError> {
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        super::convert::check_textual(&content_type, &url)?;
        let cap = self.config.max_bytes;
        let mut body = Vec::new();
        let mut cut = false;
        while let Some(chunk) = response.chunk().await.map_err(|e| failure(&url, &e))? {
            let room = cap - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                cut = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        // Dropping the response closes the connection: the rest is never downloaded.
        Ok(Fetched {
            final_url: url,
            status: response.status(),
            content_type,
            body,
            cut,
        })
    }
}

fn build(config: Arc<WebConfig>) -> Result<reqwest::Client, String> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_platform_verifier()
        .map_err(|e| e.to_string())?
        .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .dns_resolver(Arc::new(CheckedResolver(config)))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(concat!("ptc-web_fetch/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| e.to_string())
}

/// `url` parsed, or an error saying why it is not one.
fn parse(url: &str) -> Result<Url, ToolError> {
    Url::parse(url).map_err(|e| {
        super::super::shared::invalid_args(format!(
            "`url` is not a valid URL ({e}): {url}{}",
            in_full(url)
        ))
    })
}

/// For a URL written without `scheme://` (`localhost:3000`, `example.com/page`): how to
/// write it in full.
fn in_full(url: &str) -> String {
    match url.contains("://") || url.trim().is_empty() {
        true => String::new(),
        false => format!(" (write the URL in full, e.g. `https://{}`)", url.trim()),
    }
}

/// The address a URL names literally (`http://127.0.0.1/`, `http://[::1]/`; the URL parser
/// already turned `http://2130706433/` and the like into dotted form), if it does.
fn literal(url: &Url) -> Option<IpAddr> {
    url.host_str()?.trim_matches(['[', ']']).parse().ok()
}

/// A network failure as the model should read it: a refusal by the address rules as is,
/// else what failed, with its causes.
fn failure(url: &Url, error: &reqwest::Error) -> ToolError {
    let mut causes = Vec::new();
    let mut source: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(refused) = e.downcast_ref::<Refused>() {
            return ToolError::new(format!("refused {url}: {refused}"));
        }
        causes.push(e.to_string());
        source = e.source();
    }
    ToolError::new(format!("could not fetch {url}: {}", causes.join(": ")))
}
