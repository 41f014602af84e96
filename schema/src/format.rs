//! `format`: the formats checked, and the rest kept as annotations.
//!
//! Checked (strings only; other values pass, as JSON Schema says): `date-time`, `date`,
//! `time` (RFC 3339), `email` (one `@`, a non-empty local part and a dotted host, no spaces),
//! `uri` (an absolute URI: a scheme, `:`, no spaces or characters RFC 3986 forbids), `uuid`
//! (8-4-4-4-12 hex digits), `ipv4`, `ipv6`. Every other format (`int32`, `hostname`, `json`,
//! …) is an annotation: shown to the model, not enforced.

use std::net::{Ipv4Addr, Ipv6Addr};

/// The formats validation enforces (others are annotations).
pub const CHECKED_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "email",
    "uri",
    "uuid",
    "ipv4",
    "ipv6",
];

/// Whether `text` is a valid `format`; `None` for a format that is only an annotation.
pub(crate) fn check(format: &str, text: &str) -> Option<bool> {
    Some(match format {
        "date-time" => date_time(text),
        "date" => date(text),
        "time" => time(text),
        "email" => email(text),
        "uri" => uri(text),
        "uuid" => uuid(text),
        "ipv4" => text.parse::<Ipv4Addr>().is_ok(),
        "ipv6" => text.parse::<Ipv6Addr>().is_ok(),
        _ => return None,
    })
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn date(s: &str) -> bool {
    let mut parts = s.split('-');
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Some(y), Some(m), Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn time(s: &str) -> bool {
    let (clock, zone) = if let Some(c) = s.strip_suffix(['Z', 'z']) {
        (c, None)
    } else if let Some(at) = s.rfind(['+', '-']) {
        (&s[..at], Some(&s[at + 1..]))
    } else {
        return false;
    };
    if let Some(zone) = zone {
        let Some((h, m)) = zone.split_once(':') else {
            return false;
        };
        if !matches!((digits(h, 2), digits(m, 2)), (Some(h), Some(m)) if h <= 23 && m <= 59) {
            return false;
        }
    }
    let (clock, fraction) = match clock.split_once('.') {
        Some((c, f)) => (c, Some(f)),
        None => (clock, None),
    };
    if fraction.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let mut parts = clock.split(':');
    let (Some(h), Some(m), Some(sec), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    matches!(
        (digits(h, 2), digits(m, 2), digits(sec, 2)),
        (Some(h), Some(m), Some(sec)) if h <= 23 && m <= 59 && sec <= 60
    )
}

fn date_time(s: &str) -> bool {
    match s.find(['T', 't']) {
        Some(at) => date(&s[..at]) && time(&s[at + 1..]),
        None => false,
    }
}

fn email(s: &str) -> bool {
    let Some((local, host)) = s.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && local.len() <= 64
        && !local.contains('@')
        && host.split('.').count() >= 2
        && host.split('.').all(|label| !label.is_empty())
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn uri(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>\"{}|\\^`".contains(c))
}

fn uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn checked_formats_accept_and_refuse() {
        let cases = [
            ("date-time", "2024-02-29T23:59:60.5+05:30", true),
            ("date-time", "2023-02-29T00:00:00Z", false),
            ("date-time", "2024-01-01 00:00:00Z", false),
            ("date", "2024-12-31", true),
            ("date", "2024-13-01", false),
            ("time", "10:00:00Z", true),
            ("time", "10:00", false),
            ("email", "a.b@example.org", true),
            ("email", "a b@example.org", false),
            ("email", "nobody", false),
            ("uri", "https://example.org/a?b=c#d", true),
            ("uri", "urn:isbn:0451450523", true),
            ("uri", "/relative/path", false),
            ("uri", "http://exa mple.org", false),
            ("uuid", "123e4567-e89b-12d3-a456-426614174000", true),
            ("uuid", "123e4567e89b12d3a456426614174000", false),
            ("ipv4", "192.168.0.1", true),
            ("ipv4", "256.1.1.1", false),
            ("ipv6", "::1", true),
            ("ipv6", "1::2::3", false),
        ];
        for (format, text, ok) in cases {
            assert_eq!(check(format, text), Some(ok), "{format} {text}");
        }
        assert_eq!(check("int32", "anything"), None);
    }
}
