//! Which calendar a date format uses: the `calendar` option, else the locale's `-u-ca-`, else
//! the locale's default (CLDR's: Buddhist in Thai, Persian in Persian). Only the Gregorian
//! calendar's data is linked in, so any other is a `RangeError` naming it and the way to ask for
//! Gregorian dates, never a Gregorian date passed off as another calendar's.

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

/// The calendar for `matched` and the `calendar` option (`resolvedOptions().calendar`): always
/// `gregory`, or a `RangeError` naming the calendar asked for or defaulted to.
pub(crate) fn resolve(matched: &Matched, option: Option<&str>) -> Result<&'static str, IntlError> {
    let keyword = matched.locale.extensions.unicode.keywords.get(&key!("ca"));
    let (name, whence) = match (option, keyword) {
        (Some(name), _) => (name.to_owned(), "the calendar option".to_owned()),
        (None, Some(ca)) => (
            ca.to_string(),
            format!("-u-ca- of {:?}", matched.locale.to_string()),
        ),
        (None, None) => (
            default_for(&matched.tag).to_owned(),
            format!("{}'s default", matched.tag),
        ),
    };
    match name.as_str() {
        "gregory" | "gregorian" => Ok("gregory"),
        _ => Err(IntlError::range(format!(
            "Intl.DateTimeFormat: the {name:?} calendar ({whence}) is not supported in this \
             sandbox, only \"gregory\" is: pass {{ calendar: \"gregory\" }} or the locale \
             \"{}-u-ca-gregory\" for Gregorian dates",
            matched.tag
        ))),
    }
}
