//! `Intl.DateTimeFormat` and `Date.prototype.toLocale*String`: ECMA-402's options bag mapped onto
//! ICU4X's fields (`fields.rs`), in UTC or a fixed offset or IANA zone (`zone.rs`), in the hour
//! cycle V8 resolves (`clock.rs`). The pattern for the fields (`compose.rs`: ICU4X's, with CLDR
//! 48's dates and times where ICU4X's data differs, fitted to the asked widths) is formatted with
//! ICU4X's names for it, zone names included.

use icu_calendar::cal::Gregorian;
use icu_datetime::{
    fieldsets::enums::CompositeFieldSet,
    pattern::{DateTimePattern, FixedCalendarDateTimeNames},
    DateTimeFormatterPreferences,
};
use icu_time::{zone::UtcOffset, DateTime, TimeZone, ZonedDateTime};
use serde_json::{Map, Value};
use writeable::TryWriteable;

use super::{
    calendar, cldr48, clock,
    compose::{no_data, Composer},
    fields::{self, DATE_FIELDS, STYLES},
    locale, numbering,
    options::{IntlError, Spec},
    parts,
    zone::{time_zone, Essentials, Zone},
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
    /// In the h24 cycle, the pattern for midnight's hour, which it writes 24 ([`clock::midnight`]).
    midnight: Option<DateTimePattern>,
    /// The time zone.
    zone: Zone,
    /// The zone as CLDR knows it, for its names (`timeZoneName`, a long `timeStyle`).
    zone_id: TimeZone,
    /// The locale's tag (for CLDR 48's spellings, [`cldr48::day_periods`]).
    tag: String,
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
        let mut prefs = DateTimeFormatterPreferences::from(&matched.locale);
        let cycle = clock::resolve(
            &matched.tag,
            spec.boolean("hour12"),
            spec.choice("hourCycle", &["h11", "h12", "h23", "h24"])?,
            prefs.hour_cycle,
        );
        prefs.hour_cycle = cycle.1.then(|| cycle.0.icu());
        let mut resolved = Map::new();
        resolved.insert("locale".into(), matched.tag.clone().into());
        // Its place in resolvedOptions(); the calendar is known once the fields are.
        resolved.insert("calendar".into(), "gregory".into());
        resolved.insert("numberingSystem".into(), numbering.clone().into());
        resolved.insert("timeZone".into(), zone_name.clone().into());
        let (builder, widths) = if date_style.is_some() || time_style.is_some() {
            let builder = fields::styles(&spec, date_style, time_style, &mut resolved)?;
            (builder, None)
        } else {
            let (bag, widths) = fields::bag(&spec, &mut resolved)?;
            (bag.to_field_set_builder(), Some(widths))
        };
        let shows_date = date_style.is_some()
            || DATE_FIELDS
                .iter()
                .chain(&["era"])
                .any(|f| resolved.contains_key(*f));
        let calendar = calendar::resolve(&matched, spec.string("calendar").as_deref(), shows_date)?;
        resolved.insert("calendar".into(), calendar.into());
        if resolved.contains_key("hour") || time_style.is_some() {
            resolved.insert("hourCycle".into(), cycle.0.name().into());
            resolved.insert("hour12".into(), cycle.0.twelve().into());
        }
        // The zone's name (CLDR's z, zzzz, O, OOOO, v, vvvv).
        let zone_field = zone_style.map(|style| match style {
            "short" => "z",
            "long" => "zzzz",
            "shortOffset" => "O",
            "longOffset" => "OOOO",
            "shortGeneric" => "v",
            _ => "vvvv",
        });
        if let Some(style) = zone_style {
            resolved.insert("timeZoneName".into(), style.into());
        }
        let composer = Composer {
            prefs,
            tag: &matched.tag,
            cycle,
        };
        let text = match widths {
            None => composer.styles(&builder, date_style, time_style)?,
            Some(widths) => composer.fields(&builder, widths, zone_field)?,
        };
        let parse = |text: &str| {
            text.parse::<DateTimePattern>()
                .map_err(|e| no_data(&matched.tag, &e))
        };
        let pattern = parse(&text)?;
        let midnight = match cycle.0 {
            clock::Cycle::H24 => Some(parse(&clock::midnight(&text))?),
            _ => None,
        };
        let no_data = |e: &dyn std::fmt::Display| no_data(&matched.tag, e);
        let mut names = FixedCalendarDateTimeNames::try_new(prefs).map_err(|e| no_data(&e))?;
        // CLDR 48's GMT offsets first: the pattern's names then keep them.
        names
            .load_time_zone_essentials(&Essentials)
            .map_err(|e| no_data(&format!("{e:?}")))?;
        names
            .include_for_pattern(&pattern)
            .map_err(|e| no_data(&format!("{e:?}")))?;
        names.include_decimal_formatter().map_err(|e| no_data(&e))?;
        Ok(DateFormatter {
            resolved: Value::Object(resolved).to_string(),
            names,
            pattern,
            midnight,
            zone,
            zone_id,
            tag: matched.tag.clone(),
        })
    }

    /// Format one instant, given as epoch milliseconds; as JSON parts (`date.parts`) when
    /// `as_parts`.
    pub(crate) fn format(&self, epoch_ms: &str, as_parts: bool) -> Result<String, IntlError> {
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
        let pattern = match &self.midnight {
            Some(midnight) if local.time.hour.number() == 0 => midnight,
            _ => &self.pattern,
        };
        let formatted = self.names.with_pattern_unchecked(pattern).format(&input);
        let failed = |e| IntlError::range(format!("Intl.DateTimeFormat: {e}"));
        if as_parts {
            // V8's parts keep the narrow no-break space before a day period.
            let parts = parts::date_json(&formatted).map_err(failed)?;
            return Ok(cldr48::day_periods(&self.tag, parts));
        }
        let text = formatted
            .try_write_to_string()
            .map_err(|(e, _)| failed(e))?;
        // ICU writes a narrow no-break space before a day period; V8's format a plain one.
        Ok(cldr48::day_periods(
            &self.tag,
            text.replace('\u{202f}', " "),
        ))
    }
}
