//! `Intl.DateTimeFormat` and `Date.prototype.toLocale*String`: ECMA-402's options bag mapped onto
//! ICU4X's field bag (or, for `dateStyle`/`timeStyle`, its field-set lengths), in UTC or a fixed
//! offset or IANA zone (`zone.rs`). The locale's pattern for the fields is fitted to the asked
//! widths (`pattern.rs`, `ymd.rs`) and formatted with ICU4X's names for it, zone names included.

use icu_calendar::cal::Gregorian;
use icu_datetime::{
    fieldbag::{field, DateTimeFieldBag},
    fieldsets::{
        builder::{DateFields, FieldSetBuilder},
        enums::CompositeFieldSet,
    },
    options::{Length, TimePrecision},
    pattern::{DateTimePattern, FixedCalendarDateTimeNames},
    DateTimeFormatterPreferences, FixedCalendarDateTimeFormatter,
};
use icu_locale::preferences::extensions::unicode::keywords::HourCycle;
use icu_time::{zone::UtcOffset, DateTime, TimeZone, ZonedDateTime};
use serde_json::{Map, Value};
use writeable::TryWriteable;

use super::{
    calendar,
    locale::{self, Matched},
    numbering,
    options::{IntlError, Spec},
    pattern::{self, Widths},
    styles, ymd,
    zone::{time_zone, Zone},
};

/// A built `Intl.DateTimeFormat`.
pub(crate) struct DateFormatter {
    /// `resolvedOptions()` as JSON.
    pub(crate) resolved: String,
    /// The locale's names and number formatting for the pattern's fields. Always the Gregorian
    /// calendar (`resolvedOptions().calendar` says so): only its data is linked in.
    names: FixedCalendarDateTimeNames<Gregorian, CompositeFieldSet>,
    /// The pattern: the locale's for the fields, fitted to the asked widths.
    pattern: DateTimePattern,
    /// The time zone.
    zone: Zone,
    /// The zone as CLDR knows it, for its names (`timeZoneName`, a long `timeStyle`).
    zone_id: TimeZone,
}

/// The date fields of ECMA-402's options bag.
const DATE_FIELDS: [&str; 4] = ["weekday", "year", "month", "day"];
/// The time fields of ECMA-402's options bag.
const TIME_FIELDS: [&str; 5] = [
    "dayPeriod",
    "hour",
    "minute",
    "second",
    "fractionalSecondDigits",
];
const STYLES: [&str; 4] = ["full", "long", "medium", "short"];

fn length(style: &str) -> Length {
    match style {
        "full" | "long" => Length::Long,
        "medium" => Length::Medium,
        _ => Length::Short,
    }
}

impl DateFormatter {
    /// Build the formatter a spec describes. The spec's `required` (`date`, `time` or `any`) and
    /// `defaults` (`date`, `time` or `all`) are ECMA-402's ToDateTimeOptions arguments: which
    /// fields a bare `toLocaleDateString()` and friends show.
    pub(crate) fn new(spec_text: &str) -> Result<DateFormatter, IntlError> {
        let spec = Spec::parse(spec_text)?;
        let mut matched = locale::resolve(&spec.locales)?;
        let numbering = numbering::apply(&mut matched, spec.string("numberingSystem").as_deref())?;
        let (zone, zone_name) = time_zone(spec.string("timeZone"))?;
        if spec.string("dayPeriod").is_some() {
            return Err(IntlError::range(
                "Intl.DateTimeFormat: the option dayPeriod is not supported in this sandbox \
                 (hour12: true writes AM/PM)",
            ));
        }
        let zone_style = spec.choice(
            "timeZoneName",
            &[
                "short",
                "long",
                "shortOffset",
                "longOffset",
                "shortGeneric",
                "longGeneric",
            ],
        )?;
        let zone_id = zone.cldr(&zone_name);
        let date_style = spec.choice("dateStyle", &STYLES)?;
        let time_style = spec.choice("timeStyle", &STYLES)?;
        let hour12 = spec.boolean("hour12");
        let hour_cycle = spec.choice("hourCycle", &["h11", "h12", "h23", "h24"])?;
        let mut resolved = Map::new();
        resolved.insert("locale".into(), matched.tag.clone().into());
        // Its place in resolvedOptions(); the calendar is known once the fields are.
        resolved.insert("calendar".into(), "gregory".into());
        resolved.insert("numberingSystem".into(), numbering.clone().into());
        resolved.insert("timeZone".into(), zone_name.clone().into());
        let mut prefs = DateTimeFormatterPreferences::from(&matched.locale);
        match (hour12, hour_cycle) {
            (Some(true), _) => prefs.hour_cycle = Some(HourCycle::H12),
            (Some(false), _) => prefs.hour_cycle = Some(HourCycle::H23),
            (None, Some("h11")) => prefs.hour_cycle = Some(HourCycle::H11),
            (None, Some("h12")) => prefs.hour_cycle = Some(HourCycle::H12),
            (None, Some(_)) => prefs.hour_cycle = Some(HourCycle::H23),
            (None, None) => {}
        }
        let mut widths = None;
        let builder = if date_style.is_some() || time_style.is_some() {
            if let Some(field) = DATE_FIELDS
                .iter()
                .chain(&TIME_FIELDS)
                .chain(&["era"])
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
            builder.length = Some(length(date_style.or(time_style).unwrap_or("medium")));
            builder.date_fields = date_style.map(|s| {
                if s == "full" {
                    DateFields::YMDE
                } else {
                    DateFields::YMD
                }
            });
            builder.time_precision = time_style.map(|s| {
                if s == "short" {
                    TimePrecision::Minute
                } else {
                    TimePrecision::Second
                }
            });
            builder
        } else {
            let (bag, asked) = bag(&spec, &mut resolved)?;
            widths = Some(asked);
            bag.to_field_set_builder()
        };
        let shows_date = date_style.is_some()
            || DATE_FIELDS
                .iter()
                .chain(&["era"])
                .any(|f| resolved.contains_key(*f));
        let calendar = calendar::resolve(&matched, spec.string("calendar").as_deref(), shows_date)?;
        resolved.insert("calendar".into(), calendar.into());
        if resolved.contains_key("hour") || time_style.is_some() {
            let cycle = match prefs.hour_cycle {
                Some(HourCycle::H11) => "h11",
                Some(HourCycle::H12) => "h12",
                Some(_) => "h23",
                None => default_cycle(&matched),
            };
            resolved.insert("hourCycle".into(), cycle.into());
            resolved.insert("hour12".into(), matches!(cycle, "h11" | "h12").into());
        }
        let no_data = |e: &dyn std::fmt::Display| {
            IntlError::range(format!(
                "Intl: no date data for locale {:?} ({e})",
                matched.tag
            ))
        };
        // The locale's pattern for the fields at one length (ICU4X's semantic skeletons).
        let pattern_of = |mut builder: FieldSetBuilder, length: Option<Length>| {
            if length.is_some() {
                builder.length = length;
            }
            let fields = builder.build_composite_datetime().map_err(|e| {
                IntlError::type_error(format!(
                    "Intl.DateTimeFormat: these options do not make a date format ({e:?})"
                ))
            })?;
            let formatter = FixedCalendarDateTimeFormatter::<Gregorian, _>::try_new(prefs, fields)
                .map_err(|e| no_data(&e))?;
            let sample = DateTime {
                date: icu_calendar::Date::try_new_gregorian(2000, 1, 1).map_err(|e| no_data(&e))?,
                time: icu_time::Time::start_of_day(),
            };
            Ok::<_, IntlError>(formatter.format(&sample).pattern().to_string())
        };
        let pattern_at = |length| pattern_of(builder.clone(), length);
        let text = match widths {
            None => {
                let mut text = pattern_at(None)?;
                // CLDR 48's dateFormats pattern replaces ICU4X's date within the pattern.
                if let Some(cldr) = date_style.and_then(|s| styles::pattern(&matched.tag, s)) {
                    let mut date_only = builder.clone();
                    date_only.time_precision = None;
                    text = text.replacen(&pattern_of(date_only, None)?, cldr, 1);
                }
                text
            }
            Some(widths) => {
                let mut text = pattern::closest(widths, pattern_at)?;
                // A date of numbers is CLDR's yMd (with a weekday, yMEd or MEd), which
                // ICU4X's data lacks: it replaces ICU4X's short date within the pattern.
                let tag = matched.tag.as_str();
                let numeric = if widths.numeric_ymd() {
                    Some(ymd::pattern(tag))
                } else if widths.numeric_with_weekday() {
                    let long = widths.weekday == Some(4);
                    Some(ymd::with_weekday(tag, widths.year.is_some(), long))
                } else {
                    None
                };
                if let Some(ymd) = numeric {
                    let mut date_only = builder.clone();
                    date_only.time_precision = None;
                    let short = pattern_of(date_only, Some(Length::Short))?;
                    text = text.replacen(&short, ymd.unwrap_or(&short), 1);
                }
                let language = matched.locale.id.language.as_str();
                pattern::fit(&text, widths, language)
            }
        };
        // The zone's name after the time, as V8 writes it (CLDR's z, zzzz, O, OOOO, v, vvvv).
        let zone_field = match (zone_style, time_style) {
            (Some("short"), _) | (None, Some("long")) => " z",
            (Some("long"), _) | (None, Some("full")) => " zzzz",
            (Some("shortOffset"), _) => " O",
            (Some("longOffset"), _) => " OOOO",
            (Some("shortGeneric"), _) => " v",
            (Some("longGeneric"), _) => " vvvv",
            _ => "",
        };
        if let Some(style) = zone_style {
            resolved.insert("timeZoneName".into(), style.into());
        }
        // After a date alone, V8 (CLDR's glue) puts a comma before the zone.
        let has_time = text.contains(['h', 'H', 'k', 'K', 'm', 's']);
        let glue = if has_time || zone_field.is_empty() {
            ""
        } else {
            ","
        };
        let pattern: DateTimePattern = format!("{text}{glue}{zone_field}")
            .parse()
            .map_err(|e| no_data(&e))?;
        let mut names = FixedCalendarDateTimeNames::try_new(prefs).map_err(|e| no_data(&e))?;
        names
            .include_for_pattern(&pattern)
            .map_err(|e| no_data(&format!("{e:?}")))?;
        names.include_decimal_formatter().map_err(|e| no_data(&e))?;
        Ok(DateFormatter {
            resolved: Value::Object(resolved).to_string(),
            names,
            pattern,
            zone,
            zone_id,
        })
    }

    /// Format one instant, given as epoch milliseconds.
    pub(crate) fn format(&self, epoch_ms: &str) -> Result<String, IntlError> {
        let ms: f64 = epoch_ms.parse().unwrap_or(f64::NAN);
        if !ms.is_finite() || ms.abs() > 8.64e15 {
            return Err(IntlError::range("Invalid time value"));
        }
        let ms = ms.floor() as i64;
        let seconds = self.zone.offset_at(ms);
        let offset = UtcOffset::try_from_seconds(seconds).unwrap_or_default();
        let zoned = ZonedDateTime::from_epoch_milliseconds_and_utc_offset(ms, offset);
        let local = DateTime::<Gregorian> {
            date: zoned.date.to_calendar(Gregorian),
            time: zoned.time,
        };
        let input = ZonedDateTime {
            date: local.date,
            time: local.time,
            zone: self.zone_id.with_offset(Some(offset)).at_date_time(local),
        };
        let text = self
            .names
            .with_pattern_unchecked(&self.pattern)
            .format(&input)
            .try_write_to_string()
            .map_err(|(e, _)| IntlError::range(format!("Intl.DateTimeFormat: {e}")))?
            .replace('\u{202f}', " ");
        Ok(text)
    }
}

/// The hour cycle a locale uses by default (CLDR's preferred: 12-hour in the listed ones).
fn default_cycle(matched: &Matched) -> &'static str {
    let twelve = [
        "en", "en-US", "en-AU", "en-CA", "en-IN", "en-NZ", "en-SG", "hi", "hi-IN", "ar", "ar-EG",
        "ar-SA", "ar-AE", "ko", "ko-KR", "es-US", "es-MX", "bn", "bn-IN", "zh-TW", "zh-Hant",
        "zh-HK", "en-IE", "ms", "ms-MY", "el", "el-GR",
    ];
    if twelve.contains(&matched.tag.as_str()) {
        "h12"
    } else {
        "h23"
    }
}

/// The field bag of a components options bag (`year`, `month`, ...), with ECMA-402's defaults
/// when it names none; the fields shown go into `resolved`. A `2-digit` month, day or time field
/// is asked of ICU4X as a number: its two-digit option pads every number of the pattern (a
/// `2-digit` hour made `Mar 05`); [`pattern::fit`] pads the fields asked for, and only those.
fn bag(
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
    };
    Ok((bag, widths))
}
