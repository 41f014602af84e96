//! Who may talk to `ptc serve --http`: the bearer token, the browser origins, and the
//! refusal to expose every tool to the network without a token.
//!
//! Checked in this order, before anything runs: the token (401), then rmcp's `Host` and
//! `Origin` validation (403), configured here by [`allowed_origins`]. A request without
//! an `Origin` header is not from a browser page and passes the origin check.

use std::net::SocketAddr;
use std::path::Path;

use hyper::header::{HeaderMap, AUTHORIZATION};
use subtle::{Choice, ConstantTimeEq};

use crate::McpError;

/// The secret a client must send as `Authorization: Bearer <token>`.
#[derive(Clone)]
pub struct BearerToken {
    secret: Vec<u8>,
}

impl BearerToken {
    /// The token in `path`: its content without surrounding whitespace; it must be
    /// non-empty and hold no whitespace or control characters.
    pub fn from_file(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
        let secret = text.trim();
        if secret.is_empty() {
            return Err(format!("the token file {} is empty", path.display()));
        }
        if secret.bytes().any(|b| !b.is_ascii_graphic()) {
            return Err(format!(
                "the token in {} must be printable ASCII without spaces",
                path.display()
            ));
        }
        Ok(BearerToken {
            secret: secret.as_bytes().to_vec(),
        })
    }

    /// Whether `headers` carry this token as `Authorization: Bearer <token>`.
    ///
    /// The comparison takes the same time whatever the presented value's bytes (it walks
    /// the whole secret with `subtle`'s constant-time byte equality, folding in the length
    /// check), so response timing reveals nothing about how much of a guess was right.
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(AUTHORIZATION) else {
            return false;
        };
        let value = value.as_bytes();
        let Some(presented) = value
            .get(..7)
            .filter(|scheme| scheme.eq_ignore_ascii_case(b"bearer "))
            .map(|_| value[7..].trim_ascii())
        else {
            return false;
        };
        let mut same = Choice::from(u8::from(presented.len() == self.secret.len()));
        for (i, byte) in self.secret.iter().enumerate() {
            same &= presented.get(i).copied().unwrap_or(0).ct_eq(byte);
        }
        same.into()
    }
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(…)")
    }
}

/// The flag that serves a non-loopback address without a token.
pub const UNAUTHENTICATED_FLAG: &str = "--http-unauthenticated";

/// Refuse to bind `addr` beyond loopback without a token unless `unauthenticated` (the
/// operator's explicit flag). Ok carries the warning to print loudly when it is exposed.
pub fn check_exposure(
    addr: SocketAddr,
    token: Option<&BearerToken>,
    unauthenticated: bool,
) -> Result<Option<String>, McpError> {
    if addr.ip().is_loopback() || token.is_some() {
        return Ok(None);
    }
    if !unauthenticated {
        return Err(McpError::Http {
            addr: addr.to_string(),
            reason: format!(
                "refusing to serve every tool to the network without authentication: give a \
                 token with --http-token-file FILE (or `token_file` in [serve]), bind a \
                 loopback address, or pass {UNAUTHENTICATED_FLAG} to accept the risk"
            ),
        });
    }
    Ok(Some(format!(
        "WARNING: serving MCP on {addr} WITHOUT AUTHENTICATION ({UNAUTHENTICATED_FLAG}): anyone \
         who can reach this address can run every tool ptc offers, shell commands included"
    )))
}

/// The browser origins admitted (rmcp's `allowed_origins` syntax): pages served from
/// loopback on any port, and from the bound address when it is a specific one.
pub fn allowed_origins(bound: SocketAddr) -> Vec<String> {
    let mut hosts = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "[::1]".to_string(),
    ];
    let ip = bound.ip();
    if !ip.is_loopback() && !ip.is_unspecified() {
        hosts.push(match ip {
            std::net::IpAddr::V4(v4) => v4.to_string(),
            std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        });
    }
    hosts
        .iter()
        .flat_map(|host| [format!("http://{host}:*"), format!("https://{host}:*")])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(secret: &str) -> BearerToken {
        BearerToken {
            secret: secret.as_bytes().to_vec(),
        }
    }

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, authorization.parse().unwrap());
        headers
    }

    #[test]
    fn admits_only_the_exact_token_as_a_bearer_credential() {
        let t = token("s3cret-token");
        assert!(t.admits(&headers("Bearer s3cret-token")));
        assert!(t.admits(&headers("bearer s3cret-token")));
        for wrong in [
            "Bearer s3cret-toke",
            "Bearer s3cret-tokenX",
            "Bearer S3cret-token",
            "Bearer ",
            "Basic s3cret-token",
            "s3cret-token",
            "",
        ] {
            assert!(!t.admits(&headers(wrong)), "{wrong:?}");
        }
        assert!(!t.admits(&HeaderMap::new()));
    }

    #[test]
    fn non_loopback_without_a_token_is_refused_unless_flagged() {
        let open: SocketAddr = "0.0.0.0:8808".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:8808".parse().unwrap();
        let err = check_exposure(open, None, false).unwrap_err().to_string();
        assert!(err.contains(UNAUTHENTICATED_FLAG), "{err}");
        assert!(err.contains("--http-token-file"), "{err}");
        assert!(check_exposure(open, None, true)
            .unwrap()
            .unwrap()
            .contains("WITHOUT AUTHENTICATION"));
        assert_eq!(
            check_exposure(open, Some(&token("t")), false).unwrap(),
            None
        );
        assert_eq!(check_exposure(local, None, false).unwrap(), None);
    }
}
