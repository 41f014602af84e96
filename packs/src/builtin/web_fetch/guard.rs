//! The address rules of `web_fetch` (SSRF defence): which hosts and addresses a fetch may
//! reach.
//!
//! By default every address that is not public is refused: loopback, private (RFC 1918,
//! unique local `fc00::/7`, site-local `fec0::/10`), link-local (`169.254/16` — cloud
//! metadata at 169.254.169.254 — and `fe80::/10`), shared (CGNAT `100.64/10`), multicast,
//! unspecified, broadcast, `0/8` and `240/4`, and IPv6 forms that carry such an IPv4
//! address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4
//! `2002::/16`). [`WebConfig::allow_hosts`] exempts named hosts from that rule (only those
//! hosts: a redirect from one to another host is checked on its own), and
//! [`WebConfig::allow_private`] lifts it; [`WebConfig::deny_hosts`] refuses hosts whatever
//! they resolve to. A host name is checked on every address it resolves to, and the
//! connection goes to those checked addresses (see `client.rs`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

/// The setting that exempts a host, named in refusals.
const ALLOW_HINT: &str = "to allow it, add the host to `[web] allow_hosts` in ptc.toml (or set \
                          `[web] allow_private = true`)";

/// What `web_fetch` may reach and how much it reads (`[web]` in ptc.toml).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebConfig {
    /// Hosts that may resolve to non-public addresses (loopback, private, link-local…).
    pub allow_hosts: Vec<HostPattern>,
    /// Hosts never fetched, whatever they resolve to.
    pub deny_hosts: Vec<HostPattern>,
    /// Every host may resolve to non-public addresses (default false).
    pub allow_private: bool,
    /// The time one call may take, redirects and body included.
    pub timeout: Duration,
    /// Bytes of (decoded) body read at most; the rest is not downloaded.
    pub max_bytes: usize,
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            allow_hosts: Vec::new(),
            deny_hosts: Vec::new(),
            allow_private: false,
            timeout: Duration::from_secs(30),
            max_bytes: 10 * 1024 * 1024,
        }
    }
}

/// A host pattern: `example.com` (that host), `*.example.com` (its subdomains, not itself),
/// an IP address (`127.0.0.1`, `::1` or `[::1]`), or `*` (every host). Case-insensitive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern(String);

impl HostPattern {
    /// Parse `text`; an error says what is wrong (a scheme, a port, a path…).
    pub fn parse(text: &str) -> Result<HostPattern, String> {
        let host = normalize(text);
        let bad = |why: &str| Err(format!("`{text}` is not a host pattern: {why}"));
        if host.is_empty() {
            return bad("it is empty");
        }
        if host.contains("://") || host.contains('/') {
            return bad("write the host alone, without a scheme or a path");
        }
        if host.parse::<IpAddr>().is_err() && host.contains(':') {
            return bad("write the host without a port");
        }
        let name = host.strip_prefix("*.").unwrap_or(&host);
        if host != "*" && (name.contains('*') || name.is_empty()) {
            return bad("`*` may only stand alone or begin it as `*.`");
        }
        Ok(HostPattern(host))
    }

    /// Whether `host` (as in a URL) matches.
    pub fn matches(&self, host: &str) -> bool {
        let host = normalize(host);
        match self.0.strip_prefix('*') {
            Some("") => true,
            Some(suffix) => host.ends_with(suffix),
            None => host == self.0,
        }
    }

    /// The pattern as written (normalised).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Lower case, without IPv6 brackets or a trailing dot.
fn normalize(host: &str) -> String {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(inner) => inner.to_string(),
        None => host,
    }
}

impl WebConfig {
    /// Refuse `host` when `[web] deny_hosts` names it.
    pub(super) fn check_host(&self, host: &str) -> Result<(), String> {
        match self.deny_hosts.iter().find(|p| p.matches(host)) {
            Some(p) => Err(format!(
                "the host `{host}` is refused by `[web] deny_hosts` (`{}`)",
                p.as_str()
            )),
            None => Ok(()),
        }
    }

    /// Whether `host` may reach non-public addresses.
    fn exempt(&self, host: &str) -> bool {
        self.allow_private || self.allow_hosts.iter().any(|p| p.matches(host))
    }

    /// Refuse `addrs` (what `host` resolved to, or its literal address) when one of them
    /// is not public and the host is not exempt; the error names the address, its kind and
    /// the setting that would allow it.
    pub(super) fn check_addrs(&self, host: &str, addrs: &[IpAddr]) -> Result<(), String> {
        if self.exempt(host) {
            return Ok(());
        }
        for &ip in addrs {
            if let Some(kind) = non_public(ip) {
                let via = match host.trim_matches(['[', ']']).parse::<IpAddr>() {
                    Ok(_) => format!("`{host}` is"),
                    Err(_) => format!("`{host}` resolves to {ip},"),
                };
                return Err(format!(
                    "{via} a {kind} address, which web_fetch does not reach by default \
                     (server-side request forgery defence); {ALLOW_HINT}"
                ));
            }
        }
        Ok(())
    }
}

/// The kind of a non-public address, `None` for a public one.
pub fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_public_v4(v4),
        IpAddr::V6(v6) => non_public_v6(v6),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(match () {
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_private() => "private",
        _ if ip.is_link_local() => "link-local",
        _ if a == 100 && (64..128).contains(&b) => "shared (CGNAT)",
        _ if ip.is_multicast() => "multicast",
        _ if ip.is_broadcast() => "broadcast",
        _ if ip.is_unspecified() || a == 0 => "unspecified",
        _ if a >= 240 => "reserved",
        _ => return None,
    })
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    Some(match s {
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_multicast() => "multicast",
        [0xfe80..=0xfebf, ..] => "link-local",
        [0xfec0..=0xfeff, ..] => "site-local (private)",
        [0xfc00..=0xfdff, ..] => "unique local (private)",
        // IPv4-mapped, IPv4-compatible and NAT64 forms: the IPv4 address decides.
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0, 0, hi, lo] => {
            return non_public_v4(embedded(hi, lo));
        }
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => return non_public_v4(embedded(hi, lo)),
        // 6to4: the IPv4 address in bits 16-48.
        [0x2002, hi, lo, ..] => return non_public_v4(embedded(hi, lo)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(ip: &str) -> Option<&'static str> {
        non_public(ip.parse().unwrap())
    }

    #[test]
    fn every_non_public_range_is_refused_and_public_addresses_pass() {
        for (ip, expected) in [
            ("127.0.0.1", "loopback"),
            ("127.8.9.10", "loopback"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("192.168.1.1", "private"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared (CGNAT)"),
            ("224.0.0.1", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "unspecified"),
            ("240.0.0.1", "reserved"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fe80::1", "link-local"),
            ("fd00::1", "unique local (private)"),
            ("fc00::1", "unique local (private)"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:169.254.169.254", "link-local"),
            ("::10.0.0.1", "private"),
            ("64:ff9b::a9fe:a9fe", "link-local"),
            ("2002:c0a8:0101::1", "private"),
        ] {
            assert_eq!(kind(ip), Some(expected), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "100.128.0.1",
            "172.32.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert_eq!(kind(ip), None, "{ip}");
        }
    }

    #[test]
    fn host_patterns_match_hosts_subdomains_and_addresses() {
        let p = |s: &str| HostPattern::parse(s).unwrap();
        assert!(p("Example.COM").matches("example.com."));
        assert!(!p("example.com").matches("www.example.com"));
        assert!(p("*.example.com").matches("docs.example.com"));
        assert!(!p("*.example.com").matches("example.com"));
        assert!(!p("*.example.com").matches("badexample.com"));
        assert!(p("[::1]").matches("[::1]"));
        assert!(p("::1").matches("[::1]"));
        assert!(p("*").matches("anything.org"));
        for bad in [
            "",
            "http://example.com",
            "example.com:8080",
            "ex*ample.com",
            "a/b",
        ] {
            assert!(HostPattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_allowed_host_is_exempt_but_no_other_host_is() {
        let config = WebConfig {
            allow_hosts: vec![HostPattern::parse("127.0.0.1").unwrap()],
            ..WebConfig::default()
        };
        let local: IpAddr = "127.0.0.1".parse().unwrap();
        let metadata: IpAddr = "169.254.169.254".parse().unwrap();
        assert!(config.check_addrs("127.0.0.1", &[local]).is_ok());
        let err = config
            .check_addrs("169.254.169.254", &[metadata])
            .unwrap_err();
        assert!(
            err.contains("`169.254.169.254` is a link-local address"),
            "{err}"
        );
        assert!(err.contains("[web] allow_hosts"), "{err}");
        let err = config.check_addrs("evil.test", &[local]).unwrap_err();
        assert!(
            err.contains("`evil.test` resolves to 127.0.0.1, a loopback"),
            "{err}"
        );
    }
}
