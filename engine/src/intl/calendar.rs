//! Which calendar a date format uses: the `calendar` option, else the locale's `-u-ca-`, else
//! the locale's default (CLDR's: Buddhist in Thai, Persian in Persian). Only the Gregorian
//! calendar's data is linked in, so any other, for a format that shows a date, is a `RangeError`
//! naming it and the way to ask for Gregorian dates, never a Gregorian date passed off as another
//! calendar's; a time alone is the same in every calendar.

use icu_locale::extensions::unicode::key;

use super::{locale::Matched, options::IntlError};

/// The calendar a supported locale uses when none is asked for.
fn default_for(tag: &str) -> &'static str {
    match tag {
        "th" | "th-TH" => "buddhist",
        "fa" | "fa-IR" => "persian",
        _ => "gregory",
    }
}

/// The calendar for `matched` and the `calendar` option (`resolvedOptions().calendar`):
/// `gregory`, or another when the format shows no date (`shows_date` false: a time is the same in
/// every calendar), else a `RangeError` naming the calendar asked for or defaulted to.
pub(crate) fn resolve(
    matched: &Matched,
    option: Option<&str>,
    shows_date: bool,
) -> Result<String, IntlError> {
    let keyword = matched.locale.extensions.unicode.keywords.get(&key!("ca"));
    let (name, whence) = match (option, keyword) {
        (Some(name), _) => (name.to_owned(), "the calendar option".to_owned()),
        (None, Some(ca)) => (ca.to_string(), "the locale's -u-ca-".to_owned()),
        (None, None) => (
            default_for(&matched.tag).to_owned(),
            format!("{}'s default", matched.tag),
        ),
    };
    match name.as_str() {
        "gregory" | "gregorian" => Ok("gregory".to_owned()),
        _ if !shows_date => Ok(name),
        _ => Err(IntlError::range(format!(
            "Intl.DateTimeFormat: the {name:?} calendar ({whence}) is not supported in this \
             sandbox, only \"gregory\" is: pass {{ calendar: \"gregory\" }} or the locale \
             \"{}-u-ca-gregory\" for Gregorian dates",
            matched.tag
        ))),
    }
}
