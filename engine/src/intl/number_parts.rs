//! `Intl.NumberFormat.prototype.formatToParts`: the formatted text cut into ECMA-402's parts.
//!
//! The text is ICU4X's with CLDR 48's corrections applied after it (`cldr48`), so ICU4X's
//! own parts no longer line up with it; it is read again instead. The locale's group and
//! decimal separators are taken from the same formatter's text of a probe number; digits are
//! `integer` up to the decimal separator and `fraction` after it; other text is split at
//! spaces (`literal`), a sign (`minusSign`, `plusSign`) and what the style adds: `percentSign`,
//! `currency`, `compact` or `unit`.

use serde_json::Value;

/// What the style adds to a number besides signs and spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Adds {
    Nothing,
    Percent,
    Currency,
    Compact,
    Unit,
}

/// `text` (a formatted number) as the JSON `[[type, text], ...]`; `probe` is the same
/// formatter's text of 1234567.125, whence the separators come.
pub(crate) fn json(text: &str, probe: &str, adds: Adds) -> String {
    let (group, decimal) = separators(probe, adds == Adds::Compact);
    let mut parts: Vec<(&'static str, String)> = Vec::new();
    let push = |parts: &mut Vec<(&'static str, String)>, kind: &'static str, text: &str| match parts
        .last_mut()
    {
        Some((last, value)) if *last == kind && kind == "literal" => value.push_str(text),
        _ => parts.push((kind, text.to_owned())),
    };
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let digit = |i: usize| chars.get(i).is_some_and(|(_, c)| c.is_numeric());
    let (mut i, mut fraction) = (0, false);
    while i < chars.len() {
        let at = chars[i].0;
        let rest = &text[at..];
        if digit(i) {
            let start = i;
            while digit(i) {
                i += 1;
            }
            let end = chars.get(i).map_or(text.len(), |(at, _)| *at);
            let kind = if fraction { "fraction" } else { "integer" };
            push(&mut parts, kind, &text[chars[start].0..end]);
            continue;
        }
        let between = i > 0 && digit(i - 1);
        let separator = [(decimal.as_str(), "decimal"), (group.as_str(), "group")]
            .into_iter()
            .find(|(s, _)| !s.is_empty() && rest.starts_with(s));
        if let Some((s, kind)) = separator.filter(|_| between) {
            let after = i + s.chars().count();
            if digit(after) && (kind == "decimal" || !fraction) {
                fraction |= kind == "decimal";
                push(&mut parts, kind, s);
                i = after;
                continue;
            }
        }
        // A run of other text up to the next digit.
        let start = i;
        while i < chars.len() && !digit(i) {
            i += 1;
        }
        let end = chars.get(i).map_or(text.len(), |(at, _)| *at);
        words(&text[chars[start].0..end], adds, &mut parts, push);
    }
    let list: Vec<Value> = parts
        .into_iter()
        .map(|(kind, text)| Value::from(vec![Value::from(kind), Value::from(text)]))
        .collect();
    Value::from(list).to_string()
}

/// The group and decimal separators of `probe` (1234567.125 formatted; `compact`: as 1.2M,
/// whose one separator is the decimal one): the text between its first two digit runs, and
/// between the last two (empty where there is none).
fn separators(probe: &str, compact: bool) -> (String, String) {
    let numeric = |(_, c): &(usize, char)| c.is_numeric();
    let first = probe.char_indices().find(numeric);
    let last = probe.char_indices().rev().find(numeric);
    let (Some((first, _)), Some((last, c))) = (first, last) else {
        return (String::new(), String::new());
    };
    let inner = &probe[first..last + c.len_utf8()];
    let between: Vec<&str> = inner
        .split(|c: char| c.is_numeric())
        .filter(|s| !s.is_empty())
        .collect();
    match between.as_slice() {
        [] => (String::new(), String::new()),
        [one] if compact => (String::new(), (*one).to_owned()),
        // Only one kind: a decimal separator if three digits follow it at the end
        // (1234567.125), else a group separator.
        [one] if inner.ends_with(|c: char| c.is_numeric()) && fraction_last(inner, one) => {
            (String::new(), (*one).to_owned())
        }
        [one] => ((*one).to_owned(), String::new()),
        [.., last] if between.iter().all(|s| s == last) => ((*last).to_owned(), String::new()),
        [first, .., last] => ((*first).to_owned(), (*last).to_owned()),
    }
}

/// Whether `sep`'s last occurrence in `inner` is followed by exactly three digits, the
/// probe's fraction (1234567.125), and it occurs once.
fn fraction_last(inner: &str, sep: &str) -> bool {
    inner.matches(sep).count() == 1
        && inner
            .rsplit(sep)
            .next()
            .is_some_and(|tail| tail.chars().count() == 3)
}

/// Split non-digit `text` into parts: signs `minusSign`/`plusSign`, and between them spaces
/// and direction marks at either end `literal`; the words inside are what
/// the style adds (`adds`: a currency's name or a compact unit may hold spaces, "US dollars"),
/// or, `NaN` and `∞` aside, `literal`.
fn words(
    text: &str,
    adds: Adds,
    parts: &mut Vec<(&'static str, String)>,
    push: impl Fn(&mut Vec<(&'static str, String)>, &'static str, &str),
) {
    let marks = ['\u{200e}', '\u{200f}', '\u{61c}'];
    let spacing = |c: char| c.is_whitespace() || marks.contains(&c);
    let mut segment = String::new();
    let flush = |segment: &mut String, parts: &mut Vec<(&'static str, String)>| {
        let inner = segment.trim_matches(spacing);
        let start = segment.len() - segment.trim_start_matches(spacing).len();
        let (before, after) = (&segment[..start], &segment[start + inner.len()..]);
        if !before.is_empty() {
            push(parts, "literal", before);
        }
        let kind = match inner {
            "" => None,
            "NaN" => Some("nan"),
            "∞" => Some("infinity"),
            _ => Some(match adds {
                Adds::Percent if inner.contains(['%', '٪', '‰']) => "percentSign",
                Adds::Currency => "currency",
                Adds::Compact => "compact",
                Adds::Unit => "unit",
                _ => "literal",
            }),
        };
        if let Some(kind) = kind {
            push(parts, kind, inner);
        }
        if !after.is_empty() {
            push(parts, "literal", after);
        }
        segment.clear();
    };
    for c in text.chars() {
        match c {
            '-' | '\u{2212}' | '+' => {
                flush(&mut segment, parts);
                let kind = if c == '+' { "plusSign" } else { "minusSign" };
                push(parts, kind, &c.to_string());
            }
            c => segment.push(c),
        }
    }
    flush(&mut segment, parts);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_come_from_the_probe() {
        let of = |probe| separators(probe, false);
        assert_eq!(of("1,234,567.125"), (",".into(), ".".into()));
        assert_eq!(of("1.234.567,125"), (".".into(), ",".into()));
        assert_eq!(
            of("1\u{202f}234\u{202f}567,125"),
            ("\u{202f}".into(), ",".into())
        );
        assert_eq!(of("1234567.125"), ("".into(), ".".into()));
        assert_eq!(of("1,234,567"), (",".into(), "".into()));
        assert_eq!(separators("1.2M", true), ("".into(), ".".into()));
    }

    #[test]
    fn a_number_is_cut_into_ecma_402_parts() {
        let parts = json("-1,234.5", "1,234,567.125", Adds::Nothing);
        assert_eq!(
            parts,
            r#"[["minusSign","-"],["integer","1"],["group",","],["integer","234"],["decimal","."],["fraction","5"]]"#
        );
        let euro = json("1.234,50\u{a0}€", "1.234.567,13\u{a0}€", Adds::Currency);
        let expected = serde_json::json!([
            ["integer", "1"],
            ["group", "."],
            ["integer", "234"],
            ["decimal", ","],
            ["fraction", "50"],
            ["literal", "\u{a0}"],
            ["currency", "€"]
        ]);
        assert_eq!(serde_json::from_str::<Value>(&euro).unwrap(), expected);
    }
}
