//! ECMA-402's `Intl.DateTimeFormat` options as ICU4X's fields: `dateStyle`/`timeStyle` as a
//! field set's lengths, a components bag (`year`, `month`, `hour`...) as ICU4X's field bag and
//! the widths to fit its pattern to ([`pattern::fit`]).

use icu_datetime::{
    fieldbag::{field, DateTimeFieldBag},
    fieldsets::builder::{DateFields, FieldSetBuilder},
    options::{Length, TimePrecision},
};
use serde_json::{Map, Value};

use super::{
    options::{IntlError, Spec},
    pattern::{self, Widths},
};

/// The date fields of ECMA-402's options bag.
pub(crate) const DATE_FIELDS: [&str; 4] = ["weekday", "year", "month", "day"];
/// The time fields of ECMA-402's options bag.
const TIME_FIELDS: [&str; 5] = [
    "dayPeriod",
    "hour",
    "minute",
    "second",
    "fractionalSecondDigits",
];
/// The values of `dateStyle` and `timeStyle`, longest first.
pub(crate) const STYLES: [&str; 4] = ["full", "long", "medium", "short"];

/// The field set of a `dateStyle` and `timeStyle` (at least one given); a `TypeError` where a
/// component option (or `timeZoneName`) is given too, as ECMA-402 says.
pub(crate) fn styles(
    spec: &Spec,
    date_style: Option<&str>,
    time_style: Option<&str>,
    resolved: &mut Map<String, Value>,
) -> Result<FieldSetBuilder, IntlError> {
    if let Some(field) = DATE_FIELDS
        .iter()
        .chain(&TIME_FIELDS)
        .chain(&["era", "timeZoneName"])
        .find(|f| spec.options.get(**f).is_some_and(|v| !v.is_null()))
    {
        return Err(IntlError::type_error(format!(
            "Intl.DateTimeFormat: option {field} cannot be used with dateStyle or timeStyle"
        )));
    }
    if let Some(style) = date_style {
        resolved.insert("dateStyle".into(), style.into());
    }
    if let Some(style) = time_style {
        resolved.insert("timeStyle".into(), style.into());
    }
    let mut builder = FieldSetBuilder::new();
    builder.length = Some(match date_style.or(time_style).unwrap_or("medium") {
        "full" | "long" => Length::Long,
        "medium" => Length::Medium,
        _ => Length::Short,
    });
    builder.date_fields = date_style.map(|s| match s {
        "full" => DateFields::YMDE,
        _ => DateFields::YMD,
    });
    builder.time_precision = time_style.map(|s| match s {
        "short" => TimePrecision::Minute,
        _ => TimePrecision::Second,
    });
    Ok(builder)
}

/// The field bag of a components options bag (`year`, `month`, ...), with ECMA-402's defaults
/// when it names none; the fields shown go into `resolved`. A `2-digit` month, day or time field
/// is asked of ICU4X as a number: its two-digit option pads every number of the pattern (a
/// `2-digit` hour made `Mar 05`); [`pattern::fit`] pads the fields asked for, and only those.
pub(crate) fn bag(
    spec: &Spec,
    resolved: &mut Map<String, Value>,
) -> Result<(DateTimeFieldBag, Widths), IntlError> {
    let required = spec.extra("required").unwrap_or("any");
    let defaults = spec.extra("defaults").unwrap_or("date");
    let given = |fields: &[&str]| {
        fields
            .iter()
            .any(|f| spec.options.get(*f).is_some_and(|v| !v.is_null()))
    };
    let mut need_defaults = true;
    if matches!(required, "date" | "any") && given(&DATE_FIELDS) {
        need_defaults = false;
    }
    if matches!(required, "time" | "any") && given(&TIME_FIELDS) {
        need_defaults = false;
    }
    let mut options = spec.options.clone();
    if need_defaults && matches!(defaults, "date" | "all") {
        for f in ["year", "month", "day"] {
            options.insert(f.into(), "numeric".into());
        }
    }
    if need_defaults && matches!(defaults, "time" | "all") {
        for f in ["hour", "minute", "second"] {
            options.insert(f.into(), "numeric".into());
        }
    }
    let spec = Spec {
        locales: Value::Null,
        options,
        extra: Map::new(),
    };
    let numeric = ["numeric", "2-digit"];
    let texts = ["narrow", "short", "long"];
    let months = ["numeric", "2-digit", "narrow", "short", "long"];
    let mut bag = DateTimeFieldBag::default();
    let mut show = |name: &str, value: Option<&'static str>| {
        if let Some(value) = value {
            resolved.insert(name.into(), value.into());
        }
        value
    };
    bag.weekday = show("weekday", spec.choice("weekday", &texts)?).map(|v| match v {
        "narrow" => field::Weekday::Narrow,
        "short" => field::Weekday::Short,
        _ => field::Weekday::Long,
    });
    bag.era = show("era", spec.choice("era", &texts)?).map(|v| match v {
        "narrow" => field::Era::Narrow,
        "short" => field::Era::Short,
        _ => field::Era::Long,
    });
    bag.year = show("year", spec.choice("year", &numeric)?).map(|v| match v {
        "2-digit" => field::Year::TwoDigit,
        _ => field::Year::Numeric,
    });
    bag.month = show("month", spec.choice("month", &months)?).map(|v| match v {
        "numeric" | "2-digit" => field::Month::Numeric,
        "narrow" => field::Month::Narrow,
        "short" => field::Month::Short,
        _ => field::Month::Long,
    });
    bag.day = show("day", spec.choice("day", &numeric)?).map(|_| field::Day::Numeric);
    bag.hour = show("hour", spec.choice("hour", &numeric)?).map(|_| field::Hour::Numeric);
    bag.minute = show("minute", spec.choice("minute", &numeric)?).map(|_| field::Minute::Numeric);
    bag.second = show("second", spec.choice("second", &numeric)?).map(|_| field::Second::Numeric);
    if bag.hour.is_none() && (bag.minute.is_some() || bag.second.is_some()) {
        // ICU4X shows a time from its hour on: {minute, second} would print "2:07:09 PM".
        return Err(IntlError::range(
            "Intl.DateTimeFormat: minute or second without hour is not supported in this \
             sandbox (add hour, or write the fields yourself: \
             String(d.getUTCMinutes()).padStart(2, '0'))",
        ));
    }
    if let Some(digits) = spec.integer("fractionalSecondDigits", 1, 3)? {
        resolved.insert("fractionalSecondDigits".into(), digits.into());
        bag.fractional_second_digits = Some(match digits {
            1 => field::FractionalSecondDigits::F1,
            2 => field::FractionalSecondDigits::F2,
            _ => field::FractionalSecondDigits::F3,
        });
    }
    let widths = Widths {
        year: spec.choice("year", &numeric)?.map(pattern::width),
        month: spec.choice("month", &months)?.map(pattern::width),
        day: spec.choice("day", &numeric)?.map(pattern::width),
        weekday: spec.choice("weekday", &texts)?.map(pattern::width),
        hour: spec
            .choice("hour", &numeric)?
            .filter(|v| *v == "2-digit")
            .map(pattern::width),
        era: bag.era.is_some(),
        two_digit_time: spec.choice("minute", &numeric)? == Some("2-digit")
            && matches!(spec.choice("second", &numeric)?, None | Some("2-digit")),
    };
    Ok((bag, widths))
}
