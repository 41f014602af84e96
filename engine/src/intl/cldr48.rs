//! Where ICU4X's compiled CLDR data and CLDR 48 (V8's, through ICU 78) disagree on numbers, the
//! CLDR 48 text: a currency printed as its ISO code where CLDR 48 gives the locale no symbol for
//! it (`69,93 EUR` in uk-UA, not `69,93 €`), and the separators CLDR 48 gives a locale's amounts
//! (fr-CH groups with U+202F and writes money with a decimal point; de-AT groups money with `.`).
//! Each row was read off Node 20's `Intl` (ICU 78.2, CLDR 48).

/// `(currency, locales)`: the locales whose CLDR 48 data has no symbol for the currency, where
/// ICU4X's has one (`symbol` display prints the ISO code there).
const NO_SYMBOL: &[(&str, &[&str])] = &[(
    "EUR",
    &[
        "de-CH", "en-AU", "es-AR", "es-MX", "es-US", "hu", "hu-HU", "ro", "ro-RO", "uk", "uk-UA",
    ],
)];

/// Whether `currency` shows as its ISO code in `tag` for `currencyDisplay: "symbol"`.
pub(crate) fn code_for_symbol(tag: &str, currency: &str) -> bool {
    NO_SYMBOL
        .iter()
        .any(|(code, tags)| *code == currency && tags.contains(&tag))
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
/// formatter leaves Latin: `٪` with an Arabic letter mark in `arab`, `٪` in `arabext`.
pub(crate) fn percent_sign(numbering: &str, text: String) -> String {
    let sign = match numbering {
        "arab" => "\u{66a}\u{61c}",
        "arabext" => "\u{66a}",
        _ => return text,
    };
    text.replace("\u{200e}%\u{200e}", "%")
        .replace("\u{66a}\u{61c}", "%")
        .replace('\u{66a}', "%")
        .replace('%', sign)
}
