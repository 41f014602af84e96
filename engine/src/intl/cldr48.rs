//! Where ICU4X's compiled CLDR data and CLDR 48 (V8's, through ICU 78) disagree on numbers, the
//! CLDR 48 text: plural rules CLDR 49 gave a category, and the separators CLDR 48 gives a locale's amounts
//! (fr-CH groups with U+202F and writes money with a decimal point; de-AT groups money with `.`).
//! Each row was read off Node 20's `Intl` (ICU 78.2, CLDR 48).

/// `(language, ordinal)`: the plural rules to which CLDR 49 (ICU4X's data) gave a `one` that
/// CLDR 48's lack: CLDR 48's rules of these are `other` alone (vi cardinals, es ordinals), found
/// by comparing every supported locale's categories of numbers with Node's.
const OTHER_ONLY: &[(&str, bool)] = &[("vi", false), ("es", true)];

/// Whether CLDR 48's plural rules of `language` (cardinal, or ordinal) have `other` alone.
pub(crate) fn other_only(language: &str, ordinal: bool) -> bool {
    OTHER_ONLY.contains(&(language, ordinal))
}

/// `(locale, money only, ICU4X's separator, CLDR 48's)`: a separator between two digits to write
/// otherwise.
const SEPARATORS: &[(&str, bool, char, char)] = &[
    ("fr-CH", false, '\'', '\u{202f}'),
    ("fr-CH", true, ',', '.'),
    ("de-AT", true, '\u{a0}', '.'),
];

/// `text` (a formatted number; `money` when a currency amount) with `tag`'s separators as CLDR
/// 48 writes them. Only a separator between two digits changes, never one around a symbol.
pub(crate) fn separators(tag: &str, money: bool, text: String) -> String {
    let rows: Vec<_> = SEPARATORS
        .iter()
        .filter(|(t, only_money, _, _)| *t == tag && (money || !only_money))
        .collect();
    if rows.is_empty() {
        return text;
    }
    between_digits(&text, |c| {
        rows.iter()
            .find(|(_, _, from, _)| *from == c)
            .map(|(_, _, _, to)| *to)
    })
}

/// `text` with each character between two digits that `respell` maps replaced.
pub(crate) fn between_digits(text: &str, respell: impl Fn(char) -> Option<char>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let digit = |i: Option<&char>| i.is_some_and(|c| c.is_numeric());
    chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let between = i > 0 && digit(chars.get(i - 1)) && digit(chars.get(i + 1));
            match respell(*c) {
                Some(to) if between => to,
                _ => *c,
            }
        })
        .collect()
}

/// `text` (an amount with its currency symbol or code) with a no-break space between the
/// symbol's letter and the digit it touches: CLDR's currencySpacing (a non-symbol character of
/// the currency next to a digit), which ICU4C applies and ICU4X leaves to a locale's
/// `alphaNextToNumber` patterns, missing in some (en-ZA's `CHF5,00` is V8's `CHF 5,00`). A sign
/// between them (`CHF-5.00`) keeps them apart already; `compact` leaves the end alone, where a
/// compact unit follows the digits (`CHF 5K`).
pub(crate) fn currency_spacing(text: String, compact: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let (Some(first), Some(last)) = (
        chars.iter().position(|c| c.is_numeric()),
        chars.iter().rposition(|c| c.is_numeric()),
    ) else {
        return text;
    };
    let before = first > 0 && chars[first - 1].is_alphabetic();
    let after = !compact && chars.get(last + 1).is_some_and(|c| c.is_alphabetic());
    let mut out = String::with_capacity(text.len() + 4);
    for (i, c) in chars.iter().enumerate() {
        if (i == first && before) || (i == last + 1 && after) {
            out.push('\u{a0}');
        }
        out.push(*c);
    }
    out
}

/// The locales whose CLDR 48 currency names follow the amount with no space (`2.00米ドル`).
const NAME_UNSPACED: &[&str] = &["ja", "ja-JP", "zh", "zh-CN"];

/// `text` (an amount with `currencyDisplay: "name"`) glued to its name as CLDR 48 glues it.
pub(crate) fn name_glue(tag: &str, text: String) -> String {
    if !NAME_UNSPACED.contains(&tag) {
        return text;
    }
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|(i, c)| !(**c == ' ' && *i > 0 && chars[i - 1].is_numeric()))
        .map(|(_, c)| *c)
        .collect()
}

/// `text` (a percentage) with the percent sign of its numbering system, which ICU4X's percent
/// formatter leaves Latin: `٪` with an Arabic letter mark in `arab`, `٪` in `arabext`; and
/// `arab`'s minus sign.
pub(crate) fn percent_sign(numbering: &str, text: String) -> String {
    let sign = match numbering {
        "arab" => "\u{66a}\u{61c}",
        "arabext" => "\u{66a}",
        _ => return text,
    };
    let text = text
        .replace("\u{200e}%\u{200e}", "%")
        .replace("\u{66a}\u{61c}", "%")
        .replace('\u{66a}', "%")
        .replace('%', sign);
    // Its negative sign too: `arab`'s minus is an Arabic letter mark and `-` (as the decimal
    // formatter writes it), not the left-to-right mark of Latin digits.
    match numbering {
        "arab" => text.replace("\u{200e}-", "\u{61c}-"),
        _ => text,
    }
}

/// `(language or tag, ICU4X's day period, CLDR 48's)`: the day periods CLDR 49 (ICU4X's data)
/// spells otherwise than CLDR 48 (V8's), found by formatting an hour before and after noon in
/// every supported locale with Node (`hour12`): en-IN writes them in lower case, Korean in
/// Latin letters.
const DAY_PERIODS: &[(&str, &str, &str)] = &[
    ("en-IN", "AM", "am"),
    ("en-IN", "PM", "pm"),
    ("ko", "오전", "AM"),
    ("ko", "오후", "PM"),
];

/// `text` (a formatted date, or its parts as JSON) with `tag`'s day periods as CLDR 48 spells
/// them.
pub(crate) fn day_periods(tag: &str, text: String) -> String {
    let language = tag.split('-').next().unwrap_or(tag);
    DAY_PERIODS
        .iter()
        .filter(|(t, ..)| *t == tag || *t == language)
        .fold(text, |text, (_, from, to)| text.replace(from, to))
}
