//! `[web]`: what the `builtin` pack's `web_fetch` may reach (see
//! [`ptc_packs::builtin::web_fetch`]).
//!
//! ```toml
//! [web]
//! allow_hosts = ["docs.internal", "*.corp.example"]  # may resolve to private addresses
//! deny_hosts = ["*.ads.example"]     # never fetched
//! allow_private = false              # true: every host may reach private addresses
//! timeout_ms = 30000                 # one call, redirects and body included
//! max_bytes = 10485760               # body read at most
//! ```
//!
//! Host patterns are `host`, `*.domain` (its subdomains) or an IP address. An untrusted
//! workspace file may only narrow: its `deny_hosts` apply, and timeouts and caps that lower
//! the defaults; `allow_hosts`, `allow_private = true` and higher values are ignored.

use serde::Deserialize;
use toml::Spanned;

use ptc_packs::builtin::{HostPattern, WebConfig};

/// The `[web]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebSection {
    /// See [`WebConfig::allow_hosts`].
    pub allow_hosts: Vec<HostPattern>,
    /// See [`WebConfig::deny_hosts`].
    pub deny_hosts: Vec<HostPattern>,
    /// See [`WebConfig::allow_private`].
    pub allow_private: bool,
    /// See [`WebConfig::timeout`], in milliseconds.
    pub timeout_ms: Option<u64>,
    /// See [`WebConfig::max_bytes`].
    pub max_bytes: Option<u64>,
}

impl WebSection {
    /// The rules: the defaults with the set fields applied.
    pub fn config(&self) -> WebConfig {
        let d = WebConfig::default();
        WebConfig {
            allow_hosts: self.allow_hosts.clone(),
            deny_hosts: self.deny_hosts.clone(),
            allow_private: self.allow_private,
            timeout: self
                .timeout_ms
                .map_or(d.timeout, std::time::Duration::from_millis),
            max_bytes: self
                .max_bytes
                .map_or(d.max_bytes, |b| usize::try_from(b).unwrap_or(usize::MAX)),
        }
    }

    /// Drop what widens `web_fetch`'s reach (an untrusted file may only narrow); say what.
    pub(super) fn restrict_untrusted(&mut self) -> Vec<String> {
        let d = WebConfig::default();
        let mut out = Vec::new();
        if !self.allow_hosts.is_empty() {
            let hosts: Vec<&str> = self.allow_hosts.iter().map(HostPattern::as_str).collect();
            out.push(format!("web.allow_hosts = {hosts:?}"));
            self.allow_hosts.clear();
        }
        if std::mem::take(&mut self.allow_private) {
            out.push("web.allow_private = true".to_string());
        }
        let limits = [
            (
                &mut self.timeout_ms,
                d.timeout.as_millis() as u64,
                "timeout_ms",
            ),
            (&mut self.max_bytes, d.max_bytes as u64, "max_bytes"),
        ];
        for (value, default, key) in limits {
            if let Some(v) = value.filter(|&v| v > default) {
                *value = None;
                out.push(format!("web.{key} = {v} (above the default {default})"));
            }
        }
        out
    }
}

/// `[web]` as written, with positions for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWeb {
    #[serde(default)]
    allow_hosts: Vec<Spanned<String>>,
    #[serde(default)]
    deny_hosts: Vec<Spanned<String>>,
    #[serde(default)]
    allow_private: bool,
    timeout_ms: Option<Spanned<u64>>,
    max_bytes: Option<Spanned<u64>>,
}

impl RawWeb {
    /// Check the patterns and values; an error is `(line, message)`.
    pub(super) fn resolve(self, text: &str) -> Result<WebSection, (usize, String)> {
        let line = |at: usize| super::line_of(text, at);
        let patterns = |list: Vec<Spanned<String>>, key: &str| {
            list.into_iter()
                .map(|p| {
                    HostPattern::parse(p.get_ref())
                        .map_err(|e| (line(p.span().start), format!("web.{key}: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let positive = |value: Option<Spanned<u64>>, key: &str| match value {
            Some(v) if *v.get_ref() == 0 => Err((
                line(v.span().start),
                format!("web.{key} must be at least 1 (0 would fail every fetch)"),
            )),
            v => Ok(v.map(Spanned::into_inner)),
        };
        Ok(WebSection {
            allow_hosts: patterns(self.allow_hosts, "allow_hosts")?,
            deny_hosts: patterns(self.deny_hosts, "deny_hosts")?,
            allow_private: self.allow_private,
            timeout_ms: positive(self.timeout_ms, "timeout_ms")?,
            max_bytes: positive(self.max_bytes, "max_bytes")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::Config;

    #[test]
    fn the_web_section_parses_into_web_fetch_rules() {
        let config = Config::parse(
            "[web]\nallow_hosts = [\"docs.internal\", \"*.corp.example\"]\n\
             deny_hosts = [\"ads.example\"]\ntimeout_ms = 5000\nmax_bytes = 1024\n",
            None,
        )
        .unwrap();
        let web = config.web.config();
        assert!(web.allow_hosts[1].matches("wiki.corp.example"));
        assert!(web.deny_hosts[0].matches("ads.example"));
        assert!(!web.allow_private);
        assert_eq!(web.timeout.as_millis(), 5000);
        assert_eq!(web.max_bytes, 1024);
    }

    #[test]
    fn a_bad_host_pattern_or_zero_is_an_error_naming_the_key_and_line() {
        let err = Config::parse("[web]\n\nallow_hosts = [\"http://x.test/\"]\n", None)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("line 3: web.allow_hosts: `http://x.test/`"),
            "{err}"
        );
        let err = Config::parse("[web]\nmax_bytes = 0\n", None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 2: web.max_bytes must be at least 1"),
            "{err}"
        );
        let err = Config::parse("[web]\nallow = true\n", None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `allow`"), "{err}");
    }

    #[test]
    fn an_untrusted_file_may_deny_hosts_and_lower_caps_but_not_widen_reach() {
        let mut web = Config::parse(
            "[web]\nallow_hosts = [\"127.0.0.1\"]\nallow_private = true\n\
             deny_hosts = [\"ads.example\"]\ntimeout_ms = 999999999\nmax_bytes = 1024\n",
            None,
        )
        .unwrap()
        .web;
        let dropped = web.restrict_untrusted();
        assert_eq!(
            dropped,
            [
                "web.allow_hosts = [\"127.0.0.1\"]",
                "web.allow_private = true",
                "web.timeout_ms = 999999999 (above the default 30000)",
            ]
        );
        let rules = web.config();
        assert!(rules.allow_hosts.is_empty() && !rules.allow_private);
        assert_eq!(rules.deny_hosts.len(), 1);
        assert_eq!(rules.timeout.as_millis(), 30000);
        assert_eq!(rules.max_bytes, 1024);
    }
}
