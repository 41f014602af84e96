//! CLDR's `yMd` pattern (`availableFormats`) of each supported locale: what V8 writes for a date
//! of numbers (`toLocaleDateString()`, `{ year: "numeric", month: "2-digit", day: "2-digit" }`).
//! ICU4X's data holds only the short date format (`dateFormats`), which often differs (de's
//! `dd.MM.yy` against `yMd`'s `d.M.y`, ko's `yy. M. d.`); this table fills the gap. Written by
//! `engine/tests/intl_v8/tables.mjs ymd` from Node's ICU (CLDR 48), in the Gregorian calendar;
//! the same with a weekday (CLDR's `yMEd` and `MEd`) by `tables.mjs ymed`.

/// `(locale, yMd pattern)` for each of `locale::SUPPORTED`.
const YMD: &[(&str, &str)] = &[
    ("ar", "d\u{200f}/M\u{200f}/y"),
    ("ar-AE", "d\u{200f}/M\u{200f}/y"),
    ("ar-EG", "d\u{200f}/M\u{200f}/y"),
    ("ar-SA", "d\u{200f}/M\u{200f}/y"),
    ("bn", "d/M/y"),
    ("bn-IN", "d/M/y"),
    ("cs", "d. M. y"),
    ("cs-CZ", "d. M. y"),
    ("da", "d.M.y"),
    ("da-DK", "d.M.y"),
    ("de", "d.M.y"),
    ("de-AT", "d.M.y"),
    ("de-CH", "d.M.y"),
    ("de-DE", "d.M.y"),
    ("el", "d/M/y"),
    ("el-GR", "d/M/y"),
    ("en", "M/d/y"),
    ("en-AU", "dd/MM/y"),
    ("en-CA", "y-MM-dd"),
    ("en-GB", "dd/MM/y"),
    ("en-IE", "d/M/y"),
    ("en-IN", "d/M/y"),
    ("en-NZ", "d/MM/y"),
    ("en-SG", "dd/MM/y"),
    ("en-US", "M/d/y"),
    ("en-ZA", "y/MM/dd"),
    ("es", "d/M/y"),
    ("es-AR", "d/M/y"),
    ("es-ES", "d/M/y"),
    ("es-MX", "d/M/y"),
    ("es-US", "d/M/y"),
    ("fa", "y/M/d"),
    ("fa-IR", "y/M/d"),
    ("fi", "d.M.y"),
    ("fi-FI", "d.M.y"),
    ("fr", "dd/MM/y"),
    ("fr-BE", "dd/MM/y"),
    ("fr-CA", "y-MM-dd"),
    ("fr-CH", "dd.MM.y"),
    ("fr-FR", "dd/MM/y"),
    ("he", "d.M.y"),
    ("he-IL", "d.M.y"),
    ("hi", "d/M/y"),
    ("hi-IN", "d/M/y"),
    ("hu", "y. MM. dd."),
    ("hu-HU", "y. MM. dd."),
    ("id", "d/M/y"),
    ("id-ID", "d/M/y"),
    ("it", "dd/MM/y"),
    ("it-CH", "dd/MM/y"),
    ("it-IT", "dd/MM/y"),
    ("ja", "y/M/d"),
    ("ja-JP", "y/M/d"),
    ("ko", "y. M. d."),
    ("ko-KR", "y. M. d."),
    ("ms", "d/M/y"),
    ("ms-MY", "d/M/y"),
    ("nb", "d.M.y"),
    ("nb-NO", "d.M.y"),
    ("nl", "d-M-y"),
    ("nl-BE", "d/M/y"),
    ("nl-NL", "d-M-y"),
    ("no", "d.M.y"),
    ("pl", "d.MM.y"),
    ("pl-PL", "d.MM.y"),
    ("pt", "dd/MM/y"),
    ("pt-BR", "dd/MM/y"),
    ("pt-PT", "dd/MM/y"),
    ("ro", "dd.MM.y"),
    ("ro-RO", "dd.MM.y"),
    ("ru", "dd.MM.y"),
    ("ru-RU", "dd.MM.y"),
    ("sk", "d. M. y"),
    ("sk-SK", "d. M. y"),
    ("sv", "y-MM-dd"),
    ("sv-SE", "y-MM-dd"),
    ("th", "d/M/y"),
    ("th-TH", "d/M/y"),
    ("tr", "dd.MM.y"),
    ("tr-TR", "dd.MM.y"),
    ("uk", "dd.MM.y"),
    ("uk-UA", "dd.MM.y"),
    ("vi", "d/M/y"),
    ("vi-VN", "d/M/y"),
    ("zh", "y/M/d"),
    ("zh-CN", "y/M/d"),
    ("zh-Hans", "y/M/d"),
    ("zh-Hant", "y/M/d"),
    ("zh-HK", "d/M/y"),
    ("zh-SG", "y'年'M'月'd'日'"),
    ("zh-TW", "y/M/d"),
];

/// `(locale, [yMEd, yMEEEEd, MEd, MEEEEd])` for each of `locale::SUPPORTED`: CLDR's patterns of
/// a date of numbers with a short or long weekday, with a year and without (ICU4X's keep the
/// short date's zeros and lack ja's and ko's parentheses). Written by `tables.mjs ymed`.
const WITH_WEEKDAY: &[(&str, [&str; 4])] = &[
    (
        "ar",
        [
            "EEE'، 'd'\u{200f}/'M'\u{200f}/'y",
            "EEEE'، 'd'\u{200f}/'M'\u{200f}/'y",
            "EEE'، 'd'\u{200f}/'M",
            "EEEE'، 'd'\u{200f}/'M",
        ],
    ),
    (
        "ar-AE",
        [
            "EEE'، 'd'\u{200f}/'M'\u{200f}/'y",
            "EEEE'، 'd'\u{200f}/'M'\u{200f}/'y",
            "EEE'، 'd'\u{200f}/'M",
            "EEEE'، 'd'\u{200f}/'M",
        ],
    ),
    (
        "ar-EG",
        [
            "EEE'، 'd'\u{200f}/'M'\u{200f}/'y",
            "EEEE'، 'd'\u{200f}/'M'\u{200f}/'y",
            "EEE'، 'd'\u{200f}/'M",
            "EEEE'، 'd'\u{200f}/'M",
        ],
    ),
    (
        "ar-SA",
        [
            "EEE'، 'd'\u{200f}/'M'\u{200f}/'y",
            "EEEE'، 'd'\u{200f}/'M'\u{200f}/'y",
            "EEE'، 'd'\u{200f}/'M",
            "EEEE'، 'd'\u{200f}/'M",
        ],
    ),
    ("bn", ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d-M", "EEEE, d-M"]),
    (
        "bn-IN",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d-M", "EEEE, d-M"],
    ),
    (
        "cs",
        ["EEE d. M. y", "EEEE d. M. y", "EEE d. M.", "EEEE d. M."],
    ),
    (
        "cs-CZ",
        ["EEE d. M. y", "EEEE d. M. y", "EEE d. M.", "EEEE d. M."],
    ),
    ("da", ["EEE d.M.y", "EEEE d.M.y", "EEE d.M", "EEEE d.M"]),
    ("da-DK", ["EEE d.M.y", "EEEE d.M.y", "EEE d.M", "EEEE d.M"]),
    (
        "de",
        ["EEE, d.M.y", "EEEE, d.M.y", "EEE, d.M.", "EEEE, d.M."],
    ),
    (
        "de-AT",
        ["EEE, d.M.y", "EEEE, d.M.y", "EEE, d.M.", "EEEE, d.M."],
    ),
    (
        "de-CH",
        ["EEE, d.M.y", "EEEE, d.M.y", "EEE, d.M.", "EEEE, d.M."],
    ),
    (
        "de-DE",
        ["EEE, d.M.y", "EEEE, d.M.y", "EEE, d.M.", "EEEE, d.M."],
    ),
    ("el", ["EEE d/M/y", "EEEE d/M/y", "EEE d/M", "EEEE d/M"]),
    ("el-GR", ["EEE d/M/y", "EEEE d/M/y", "EEE d/M", "EEEE d/M"]),
    ("en", ["EEE, M/d/y", "EEEE, M/d/y", "EEE, M/d", "EEEE, M/d"]),
    (
        "en-AU",
        ["EEE, dd/MM/y", "EEEE, dd/MM/y", "EEE, d/M", "EEEE, d/M"],
    ),
    (
        "en-CA",
        ["EEE, y-MM-dd", "EEEE, y-MM-dd", "EEE, MM-dd", "EEEE, MM-dd"],
    ),
    (
        "en-GB",
        ["EEE, dd/MM/y", "EEEE, dd/MM/y", "EEE dd/MM", "EEEE dd/MM"],
    ),
    (
        "en-IE",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"],
    ),
    (
        "en-IN",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, dd/MM", "EEEE, dd/MM"],
    ),
    (
        "en-NZ",
        ["EEE, dd/MM/y", "EEEE, dd/MM/y", "EEE, dd/MM", "EEEE, dd/MM"],
    ),
    (
        "en-SG",
        ["EEE, dd/MM/y", "EEEE, dd/MM/y", "EEE, dd/MM", "EEEE, dd/MM"],
    ),
    (
        "en-US",
        ["EEE, M/d/y", "EEEE, M/d/y", "EEE, M/d", "EEEE, M/d"],
    ),
    (
        "en-ZA",
        ["EEE, y/MM/dd", "EEEE, y/MM/dd", "EEE, MM/dd", "EEEE, MM/dd"],
    ),
    ("es", ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"]),
    (
        "es-AR",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE d-M", "EEEE d-M"],
    ),
    (
        "es-ES",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"],
    ),
    (
        "es-MX",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"],
    ),
    (
        "es-US",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"],
    ),
    ("fa", ["EEE y/M/d", "EEEE y/M/d", "EEE M/d", "EEEE M/d"]),
    ("fa-IR", ["EEE y/M/d", "EEEE y/M/d", "EEE M/d", "EEEE M/d"]),
    ("fi", ["EEE d.M.y", "EEEE d.M.y", "EEE d.M.", "EEEE d.M."]),
    (
        "fi-FI",
        ["EEE d.M.y", "EEEE d.M.y", "EEE d.M.", "EEEE d.M."],
    ),
    (
        "fr",
        ["EEE dd/MM/y", "EEEE dd/MM/y", "EEE dd/MM", "EEEE dd/MM"],
    ),
    (
        "fr-BE",
        ["EEE dd/MM/y", "EEEE dd/MM/y", "EEE dd/MM", "EEEE dd/MM"],
    ),
    (
        "fr-CA",
        ["EEE y-MM-dd", "EEEE y-MM-dd", "EEE MM-dd", "EEEE MM-dd"],
    ),
    (
        "fr-CH",
        [
            "EEE, dd.MM.y",
            "EEEE, dd.MM.y",
            "EEE, dd.MM.",
            "EEEE, dd.MM.",
        ],
    ),
    (
        "fr-FR",
        ["EEE dd/MM/y", "EEEE dd/MM/y", "EEE dd/MM", "EEEE dd/MM"],
    ),
    ("he", ["EEE, d.M.y", "EEEE, d.M.y", "EEE, d.M", "EEEE, d.M"]),
    (
        "he-IL",
        ["EEE, d.M.y", "EEEE, d.M.y", "EEE, d.M", "EEEE, d.M"],
    ),
    ("hi", ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"]),
    (
        "hi-IN",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"],
    ),
    (
        "hu",
        [
            "y. MM. dd., EEE",
            "y. MM. dd., EEEE",
            "M. d., EEE",
            "M. d., EEEE",
        ],
    ),
    (
        "hu-HU",
        [
            "y. MM. dd., EEE",
            "y. MM. dd., EEEE",
            "M. d., EEE",
            "M. d., EEEE",
        ],
    ),
    ("id", ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"]),
    (
        "id-ID",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"],
    ),
    (
        "it",
        ["EEE dd/MM/y", "EEEE dd/MM/y", "EEE dd/MM", "EEEE dd/MM"],
    ),
    (
        "it-CH",
        ["EEE dd/MM/y", "EEEE dd/MM/y", "EEE dd/MM", "EEEE dd/MM"],
    ),
    (
        "it-IT",
        ["EEE dd/MM/y", "EEEE dd/MM/y", "EEE dd/MM", "EEEE dd/MM"],
    ),
    ("ja", ["y/M/d(EEE)", "y/M/dEEEE", "M/d(EEE)", "M/dEEEE"]),
    ("ja-JP", ["y/M/d(EEE)", "y/M/dEEEE", "M/d(EEE)", "M/dEEEE"]),
    (
        "ko",
        [
            "y. M. d. (EEE)",
            "y. M. d. EEEE",
            "M. d. (EEE)",
            "M. d. EEEE",
        ],
    ),
    (
        "ko-KR",
        [
            "y. M. d. (EEE)",
            "y. M. d. EEEE",
            "M. d. (EEE)",
            "M. d. EEEE",
        ],
    ),
    ("ms", ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d-M", "EEEE, d-M"]),
    (
        "ms-MY",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d-M", "EEEE, d-M"],
    ),
    ("nb", ["EEE d.M.y", "EEEE d.M.y", "EEE d.M.", "EEEE d.M."]),
    (
        "nb-NO",
        ["EEE d.M.y", "EEEE d.M.y", "EEE d.M.", "EEEE d.M."],
    ),
    ("nl", ["EEE d-M-y", "EEEE d-M-y", "EEE d-M", "EEEE d-M"]),
    ("nl-BE", ["EEE d/M/y", "EEEE d/M/y", "EEE d/M", "EEEE d/M"]),
    ("nl-NL", ["EEE d-M-y", "EEEE d-M-y", "EEE d-M", "EEEE d-M"]),
    ("no", ["EEE d.M.y", "EEEE d.M.y", "EEE d.M.", "EEEE d.M."]),
    (
        "pl",
        ["EEE, d.MM.y", "EEEE, d.MM.y", "EEE, d.MM", "EEEE, d.MM"],
    ),
    (
        "pl-PL",
        ["EEE, d.MM.y", "EEEE, d.MM.y", "EEE, d.MM", "EEEE, d.MM"],
    ),
    (
        "pt",
        ["EEE, dd/MM/y", "EEEE, dd/MM/y", "EEE, dd/MM", "EEEE, dd/MM"],
    ),
    (
        "pt-BR",
        ["EEE, dd/MM/y", "EEEE, dd/MM/y", "EEE, dd/MM", "EEEE, dd/MM"],
    ),
    (
        "pt-PT",
        ["EEE, dd/MM/y", "EEEE, dd/MM/y", "EEE, dd/MM", "EEEE, dd/MM"],
    ),
    (
        "ro",
        ["EEE, dd.MM.y", "EEEE, dd.MM.y", "EEE, dd.MM", "EEEE, dd.MM"],
    ),
    (
        "ro-RO",
        ["EEE, dd.MM.y", "EEEE, dd.MM.y", "EEE, dd.MM", "EEEE, dd.MM"],
    ),
    (
        "ru",
        ["EEE, dd.MM.y", "EEEE, dd.MM.y", "EEE, dd.MM", "EEEE, dd.MM"],
    ),
    (
        "ru-RU",
        ["EEE, dd.MM.y", "EEEE, dd.MM.y", "EEE, dd.MM", "EEEE, dd.MM"],
    ),
    (
        "sk",
        ["EEE d. M. y", "EEEE d. M. y", "EEE d. M.", "EEEE d. M."],
    ),
    (
        "sk-SK",
        ["EEE d. M. y", "EEEE d. M. y", "EEE d. M.", "EEEE d. M."],
    ),
    (
        "sv",
        ["EEE, y-MM-dd", "EEEE, y-MM-dd", "EEE d/M", "EEEE d/M"],
    ),
    (
        "sv-SE",
        ["EEE, y-MM-dd", "EEEE, y-MM-dd", "EEE d/M", "EEEE d/M"],
    ),
    ("th", ["EEE d/M/y", "EEEE d/M/y", "EEE d/M", "EEEE d/M"]),
    ("th-TH", ["EEE d/M/y", "EEEE d/M/y", "EEE d/M", "EEEE d/M"]),
    ("tr", ["d.M.y EEE", "d.M.y EEEE", "d/M EEE", "d/M EEEE"]),
    ("tr-TR", ["d.M.y EEE", "d.M.y EEEE", "d/M EEE", "d/M EEEE"]),
    (
        "uk",
        ["EEE, dd.MM.y", "EEEE, dd.MM.y", "EEE, dd.MM", "EEEE, dd.MM"],
    ),
    (
        "uk-UA",
        ["EEE, dd.MM.y", "EEEE, dd.MM.y", "EEE, dd.MM", "EEEE, dd.MM"],
    ),
    ("vi", ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"]),
    (
        "vi-VN",
        ["EEE, d/M/y", "EEEE, d/M/y", "EEE, d/M", "EEEE, d/M"],
    ),
    (
        "zh",
        ["y/M/dEEE", "y'年'M'月'd'日'EEEE", "M/dEEE", "M/dEEEE"],
    ),
    (
        "zh-CN",
        ["y/M/dEEE", "y'年'M'月'd'日'EEEE", "M/dEEE", "M/dEEEE"],
    ),
    (
        "zh-Hans",
        ["y/M/dEEE", "y'年'M'月'd'日'EEEE", "M/dEEE", "M/dEEEE"],
    ),
    (
        "zh-Hant",
        [
            "y/M/d'（'EEE'）'",
            "y'年'M'月'd'日 'EEEE",
            "M/d'（'EEE'）'",
            "M/d'（'EEEE'）'",
        ],
    ),
    (
        "zh-HK",
        [
            "d/M/y'（'EEE'）'",
            "y'年'M'月'd'日 'EEEE",
            "d/M'（'EEE'）'",
            "d/M'（'EEEE'）'",
        ],
    ),
    (
        "zh-SG",
        [
            "y'年'M'月'd'日，'EEE",
            "y'年'M'月'd'日'EEEE",
            "M-dEEE",
            "M-dEEEE",
        ],
    ),
    (
        "zh-TW",
        [
            "y/M/d'（'EEE'）'",
            "y'年'M'月'd'日 'EEEE",
            "M/d'（'EEE'）'",
            "M/d'（'EEEE'）'",
        ],
    ),
];

/// The `yMd` pattern of a supported locale tag.
pub(crate) fn pattern(tag: &str) -> Option<&'static str> {
    YMD.iter().find(|(t, _)| *t == tag).map(|(_, p)| *p)
}

/// The pattern of a date of numbers with a weekday for a supported locale tag: `year`, with
/// one; `long`, a long weekday (else short, or narrow once fitted).
pub(crate) fn with_weekday(tag: &str, year: bool, long: bool) -> Option<&'static str> {
    let (_, patterns) = WITH_WEEKDAY.iter().find(|(t, _)| *t == tag)?;
    Some(patterns[usize::from(!year) * 2 + usize::from(long)])
}
