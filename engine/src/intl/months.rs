//! CLDR 48's patterns for a date with a short month name (what V8 writes for `{ month: "short" }`
//! with a day, a year or both, and a short weekday or none): CLDR's `yMMMd`, `yMMMEd`, `MMMd`,
//! `MMMEd` and `yMMM`. ICU4X's medium date is CLDR's `dateFormats` pattern for a full date,
//! which is not `yMMMd` (de's `dd.MM.y` against `d. MMM y`), and some locales write the month of
//! these skeletons as a number (cs `d. M. y`, fi `d.M.`) or its stand-alone long name (cs `LLLL
//! y`): ICU's generator keeps a field as a pattern writes it when the skeleton asked for that
//! width. Written by `engine/tests/intl_v8/tables.mjs months` from Node's ICU; a region's row is
//! left out where it equals its language's.

/// `(locale, "yMMMd|yMMMEd|MMMd|MMMEd|yMMM")`.
const MONTHS: &[(&str, &str)] = &[
    ("ar", "d MMM y|EEE، d MMM y|d MMM|EEE، d MMM|MMM y"),
    ("bn", "d MMM, y|EEE, d MMM, y|d MMM|EEE d MMM|MMM y"),
    ("cs", "d. M. y|EEE d. M. y|d. M.|EEE d. M.|LLLL y"),
    ("da", "d. MMM y|EEE d. MMM y|d. MMM|EEE d. MMM|MMM y"),
    ("de", "d. MMM y|EEE, d. MMM y|d. MMM|EEE, d. MMM|MMM y"),
    ("el", "d MMM y|EEE d MMM y|d MMM|EEE d MMM|MMM y"),
    ("en", "MMM d, y|EEE, MMM d, y|MMM d|EEE, MMM d|MMM y"),
    ("en-AU", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    ("en-GB", "d MMM y|EEE, d MMM y|d MMM|EEE d MMM|MMM y"),
    ("en-IE", "d MMM y|EEE d MMM y|d MMM|EEE, d MMM|MMM y"),
    ("en-IN", "d MMM y|EEE, d MMM, y|d MMM|EEE, d MMM|MMM y"),
    ("en-NZ", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    ("en-SG", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    ("en-ZA", "dd MMM y|EEE, dd MMM y|dd MMM|EEE, dd MMM|MMM y"),
    ("es", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    (
        "es-AR",
        "d' de 'MMM' de 'y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y",
    ),
    (
        "es-MX",
        "d MMM y|EEE, d' de 'MMM' de 'y|d MMM|EEE d' de 'MMM|MMM y",
    ),
    (
        "es-US",
        "d MMM y|EEE, d' de 'MMM' de 'y|d MMM|EEE, d' de 'MMM|MMM y",
    ),
    ("fa", "d MMM y|EEE d MMM y|d MMM|EEE d MMM|MMM y"),
    ("fi", "d.M.y|EEE d.M.y|d.M.|EEE d.M.|LLL y"),
    ("fr", "d MMM y|EEE d MMM y|d MMM|EEE d MMM|MMM y"),
    (
        "he",
        "d' ב'MMM y|EEE, d' ב'MMM y|d' ב'MMM|EEE, d' ב'MMM|MMM y",
    ),
    ("hi", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    ("hu", "y. MMM d.|y. MMM d., EEE|MMM d.|MMM d., EEE|y. MMM"),
    ("id", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    ("it", "d MMM y|EEE d MMM y|d MMM|EEE d MMM|MMM y"),
    (
        "ja",
        "y'年'M'月'd'日'|y'年'M'月'd'日('EEE)|M'月'd'日'|M'月'd'日('EEE)|y'年'M'月'",
    ),
    (
        "ko",
        "y'년 'MMM d'일'|y'년 'MMM d'일 ('EEE)|MMM d'일'|MMM d'일 ('EEE)|y'년 'MMM",
    ),
    ("ms", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    ("nb", "d. MMM y|EEE d. MMM y|d. MMM|EEE d. MMM|MMM y"),
    ("nl", "d MMM y|EEE d MMM y|d MMM|EEE d MMM|MMM y"),
    ("no", "d. MMM y|EEE d. MMM y|d. MMM|EEE d. MMM|MMM y"),
    ("pl", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    (
        "pt",
        "d' de 'MMM' de 'y|EEE, d' de 'MMM' de 'y|d' de 'MMM|EEE, d' de 'MMM|MMM' de 'y",
    ),
    ("pt-PT", "d/MM/y|EEE, d/MM/y|d/MM|EEE, d/MM|MM/y"),
    ("ro", "d MMM y|EEE, d MMM y|d MMM|EEE, d MMM|MMM y"),
    (
        "ru",
        "d MMM y'\u{202f}г.'|EEE, d MMM y'\u{202f}г.'|d MMM|EEE, d MMM|MMM y'\u{202f}г.'",
    ),
    ("sk", "d. M. y|EEE d. M. y|d. M.|EEE d. M.|M/y"),
    ("sv", "d MMM y|EEE d MMM y|d MMM|EEE d MMM|MMM y"),
    ("th", "d MMM y|EEE d MMM y|d MMM|EEE d MMM|MMM y"),
    ("tr", "d MMM y|d MMM y EEE|d MMM|d MMM EEE|MMM y"),
    (
        "uk",
        "d MMM y'\u{202f}р.'|EEE, d MMM y'\u{202f}р.'|d MMM|EEE, d MMM|MMM y'\u{202f}р.'",
    ),
    ("vi", "d MMM, y|EEE, d MMM, y|d MMM|EEE, d MMM|MMM y"),
    (
        "zh",
        "y'年'M'月'd'日'|y'年'M'月'd'日'EEE|M'月'd'日'|M'月'd'日'EEE|y'年'M'月'",
    ),
];

/// CLDR 48's pattern for a short month with a year, a day and a short weekday as given (at least
/// a year or a day), if the table has the locale.
pub(crate) fn pattern(tag: &str, year: bool, day: bool, weekday: bool) -> Option<&'static str> {
    let index = match (year, day, weekday) {
        (true, true, false) => 0,
        (true, true, true) => 1,
        (false, true, false) => 2,
        (false, true, true) => 3,
        (true, false, false) => 4,
        _ => return None,
    };
    super::locale::row(MONTHS, tag).and_then(|row| row.split('|').nth(index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn czech_writes_the_month_of_a_short_month_skeleton_as_a_number() {
        assert_eq!(pattern("cs-CZ", false, true, true), Some("EEE d. M."));
        assert_eq!(pattern("cs-CZ", true, false, false), Some("LLLL y"));
        assert_eq!(pattern("de-AT", true, true, false), Some("d. MMM y"));
        assert_eq!(pattern("en-US", false, false, true), None);
        assert!(MONTHS.iter().all(|(_, row)| row.split('|').count() == 5));
    }
}
