//! CLDR 48's `dateFormats` pattern (what `dateStyle` writes) where ICU4X's data gives another
//! (ko's medium `y. M. d.` against ICU4X's `y/M/d`, vi's `d MMMM, y`, da's `EEEE 'den' d. MMMM y`).
//! Written by `engine/tests/intl_v8/tables.mjs styles <locale:style>...` from Node's ICU (CLDR
//! 48) for the locales and styles whose text differed; every other one is ICU4X's.

/// `(locale, dateStyle, pattern)`.
const STYLES: &[(&str, &str, &str)] = &[
    ("cs", "short", "dd.MM.yy"),
    ("cs-CZ", "short", "dd.MM.yy"),
    ("da", "full", "EEEE' den 'd. MMMM y"),
    ("da-DK", "full", "EEEE' den 'd. MMMM y"),
    ("en-AU", "full", "EEEE, d MMMM y"),
    ("en-CA", "short", "y-MM-dd"),
    ("en-IE", "full", "EEEE d MMMM y"),
    ("en-IN", "medium", "d MMM y"),
    ("en-NZ", "medium", "d MMM y"),
    ("en-NZ", "short", "dd/MM/y"),
    ("es-AR", "medium", "d MMM y"),
    ("fr-CH", "full", "EEEE, d MMMM y"),
    ("hi", "full", "EEEE, d MMMM y"),
    ("hi", "long", "d MMMM y"),
    ("hi-IN", "full", "EEEE, d MMMM y"),
    ("hi-IN", "long", "d MMMM y"),
    ("id", "full", "EEEE, dd MMMM y"),
    ("id-ID", "full", "EEEE, dd MMMM y"),
    ("it-CH", "full", "EEEE, d MMMM y"),
    ("it-CH", "short", "dd.MM.yy"),
    ("ko", "medium", "y. M. d."),
    ("ko", "short", "yy. M. d."),
    ("ko-KR", "medium", "y. M. d."),
    ("ko-KR", "short", "yy. M. d."),
    ("pl", "short", "d.MM.y"),
    ("pl-PL", "short", "d.MM.y"),
    ("pt-PT", "full", "EEEE, d' de 'MMMM' de 'y"),
    ("sk", "full", "EEEE d. MMMM y"),
    ("sk-SK", "full", "EEEE d. MMMM y"),
    ("vi", "full", "EEEE, d MMMM, y"),
    ("vi", "long", "d MMMM, y"),
    ("vi", "short", "d/M/yy"),
    ("vi-VN", "full", "EEEE, d MMMM, y"),
    ("vi-VN", "long", "d MMMM, y"),
    ("vi-VN", "short", "d/M/yy"),
    ("zh-Hant", "full", "y'年'M'月'd'日 'EEEE"),
    ("zh-SG", "short", "dd/MM/yy"),
    ("zh-TW", "full", "y'年'M'月'd'日 'EEEE"),
];

/// CLDR 48's pattern for `tag`'s `dateStyle`, where it is not ICU4X's.
pub(crate) fn pattern(tag: &str, style: &str) -> Option<&'static str> {
    STYLES
        .iter()
        .find(|(t, s, _)| *t == tag && *s == style)
        .map(|(_, _, pattern)| *pattern)
}
