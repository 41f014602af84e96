//! The pattern of an `Intl.DateTimeFormat`: ICU4X's pattern for its fields (a date, its glue, a
//! time), with CLDR 48's date and time in place of ICU4X's where ICU4X's data differs
//! ([`ymd`], [`months`], [`styles`], [`clock`]), fitted to the asked widths, and the zone name
//! where V8 puts it: within the time pattern (CLDR's `Hmv` and kin), or, after a date alone,
//! glued to it as a time would be (ICU's generator counts the zone as a time field).

use icu_calendar::cal::Gregorian;
use icu_datetime::{
    fieldsets::builder::{DateFields, FieldSetBuilder},
    options::{Length, TimePrecision},
    DateTimeFormatterPreferences, FixedCalendarDateTimeFormatter,
};
use icu_time::DateTime;

use super::{
    clock::{self, Cycle},
    fields::STYLES,
    months,
    options::IntlError,
    pattern::{self, Widths},
    styles, ymd,
};

/// What a formatter's pattern is made for: its locale, preferences and hour cycle.
pub(crate) struct Composer<'a> {
    /// ICU4X's preferences (the locale, and the hour cycle where the program chose one).
    pub(crate) prefs: DateTimeFormatterPreferences,
    /// The matched supported tag (the CLDR 48 tables' key).
    pub(crate) tag: &'a str,
    /// The hour cycle, and whether the program chose it ([`clock::resolve`]).
    pub(crate) cycle: (Cycle, bool),
}

/// An error for a locale ICU4X has no date data for.
pub(crate) fn no_data(tag: &str, error: &dyn std::fmt::Display) -> IntlError {
    IntlError::range(format!("Intl: no date data for locale {tag:?} ({error})"))
}

/// The index of a time precision among CLDR 48's time patterns: the hour, minutes, seconds.
fn precision(precision: TimePrecision) -> usize {
    match precision {
        TimePrecision::Hour => 0,
        TimePrecision::Minute => 1,
        _ => 2,
    }
}

impl Composer<'_> {
    /// ICU4X's pattern for the builder's fields, at `length` (`None`: the builder's).
    fn icu(
        &self,
        mut builder: FieldSetBuilder,
        length: Option<Length>,
    ) -> Result<String, IntlError> {
        if length.is_some() {
            builder.length = length;
        }
        let fields = builder.build_composite_datetime().map_err(|e| {
            IntlError::type_error(format!(
                "Intl.DateTimeFormat: these options do not make a date format ({e:?})"
            ))
        })?;
        let formatter = FixedCalendarDateTimeFormatter::<Gregorian, _>::try_new(self.prefs, fields)
            .map_err(|e| no_data(self.tag, &e))?;
        let sample = DateTime {
            date: icu_calendar::Date::try_new_gregorian(2000, 1, 1)
                .map_err(|e| no_data(self.tag, &e))?,
            time: icu_time::Time::start_of_day(),
        };
        Ok(formatter.format(&sample).pattern().to_string())
    }

    /// `text` (ICU4X's pattern for the builder's fields at `length`) with its date part, ICU4X's
    /// date alone, replaced by `date`.
    fn with_date(
        &self,
        text: String,
        builder: &FieldSetBuilder,
        length: Option<Length>,
        date: &str,
    ) -> Result<String, IntlError> {
        let mut date_only = builder.clone();
        date_only.time_precision = None;
        Ok(text.replacen(&self.icu(date_only, length)?, date, 1))
    }

    /// `text` with its time part, ICU4X's time alone, replaced by `time` (with ICU4X's fraction
    /// of a second, where asked).
    fn with_time(
        &self,
        text: String,
        builder: &FieldSetBuilder,
        length: Option<Length>,
        time: &str,
    ) -> Result<String, IntlError> {
        let mut time_only = builder.clone();
        time_only.date_fields = None;
        time_only.year_style = None;
        let icu = self.icu(time_only, length)?;
        Ok(text.replacen(&icu, &clock::with_fraction(time, &icu), 1))
    }

    /// The pattern of a `dateStyle` and `timeStyle`: CLDR 48's timeFormats pattern, zone name
    /// and all, for the time, and CLDR 48's dateFormats pattern where ICU4X's differs.
    pub(crate) fn styles(
        &self,
        builder: &FieldSetBuilder,
        date_style: Option<&str>,
        time_style: Option<&str>,
    ) -> Result<String, IntlError> {
        let mut text = self.icu(builder.clone(), None)?;
        if let Some(cldr) = date_style.and_then(|s| styles::pattern(self.tag, s)) {
            text = self.with_date(text, builder, None, cldr)?;
        }
        if let Some(style) = time_style {
            // STYLES is longest first; CLDR's columns are short first.
            let index = 3 - STYLES.iter().position(|s| *s == style).unwrap_or(3);
            let (cycle, chosen) = self.cycle;
            if let Some(time) = clock::style(self.tag, index, cycle, chosen) {
                text = self.with_time(text, builder, None, &time)?;
            }
        }
        Ok(text)
    }

    /// The pattern of a components bag: its date from CLDR 48's tables where they have it, its
    /// time from CLDR 48's time patterns, with the zone name written `zone` (`z`, `zzzz`, `O`...).
    pub(crate) fn fields(
        &self,
        builder: &FieldSetBuilder,
        widths: Widths,
        zone: Option<&str>,
    ) -> Result<String, IntlError> {
        let tag = self.tag;
        // A date of numbers is CLDR's yMd (with a weekday, yMEd or MEd), a short month name's
        // CLDR's yMMMd and kin, which ICU4X's data lacks: each replaces ICU4X's date at the
        // length whose glue V8 uses (ICU's generator chooses it by the month's width).
        let short_month = matches!(widths.month, Some(3 | 5))
            && matches!(widths.weekday, None | Some(3 | 5))
            && !widths.era;
        let cldr_date = if widths.numeric_ymd() {
            ymd::pattern(tag).map(|p| (Length::Short, p))
        } else if widths.numeric_with_weekday() {
            let long = widths.weekday == Some(4);
            ymd::with_weekday(tag, widths.year.is_some(), long).map(|p| (Length::Short, p))
        } else if short_month {
            let (year, day) = (widths.year.is_some(), widths.day.is_some());
            months::pattern(tag, year, day, widths.weekday.is_some()).map(|p| (Length::Medium, p))
        } else {
            None
        };
        let (length, mut text) = match cldr_date {
            Some((length, date)) => {
                let text = self.icu(builder.clone(), Some(length))?;
                (length, self.with_date(text, builder, Some(length), date)?)
            }
            None => pattern::closest(widths, |length| self.icu(builder.clone(), length))?,
        };
        let mut fitted = widths;
        if cldr_date.is_some() && widths.month == Some(3) {
            // The table's month is as CLDR writes it for a short month (cs `LLLL y`).
            fitted.month = None;
        }
        let (cycle, _) = self.cycle;
        let time = builder.time_precision.map(precision);
        let cldr_time =
            time.and_then(|p| clock::fields(tag, (p, widths.two_digit_time), cycle, zone));
        if let Some(time) = &cldr_time {
            text = self.with_time(text, builder, Some(length), time)?;
        }
        let language = tag.split('-').next().unwrap_or(tag);
        let text = pattern::fit(&text, fitted, language);
        Ok(match zone {
            Some(zone) if time.is_none() => self.glue(&text, zone, widths)?,
            Some(zone) if cldr_time.is_none() => format!("{text} {zone}"),
            _ => text,
        })
    }

    /// A date's pattern and a zone name glued as ICU's generator glues a date and a time:
    /// with the locale's dateTimeFormat of the month's width (en `{1}, {0}`, `{1} 'at' {0}`
    /// for a long month; fr `{1} {0}`; fi `{1} 'klo' {0}`; vi `{0} {1}`), read off ICU4X's
    /// pattern for a date and a time.
    fn glue(&self, date: &str, zone: &str, widths: Widths) -> Result<String, IntlError> {
        let length = match widths.month {
            Some(4) => Length::Long,
            Some(3 | 5) => Length::Medium,
            _ => Length::Short,
        };
        let mut builder = FieldSetBuilder::new();
        builder.date_fields = Some(DateFields::YMD);
        builder.time_precision = Some(TimePrecision::Minute);
        let mut date_only = builder.clone();
        date_only.time_precision = None;
        let mut time_only = builder.clone();
        time_only.date_fields = None;
        let both = self.icu(builder, Some(length))?;
        let glue = both
            .replacen(&self.icu(date_only, Some(length))?, "{1}", 1)
            .replacen(&self.icu(time_only, Some(length))?, "{0}", 1);
        let glue = if glue.contains("{0}") && glue.contains("{1}") {
            glue
        } else {
            "{1} {0}".to_owned()
        };
        Ok(glue.replacen("{1}", date, 1).replacen("{0}", zone, 1))
    }
}
