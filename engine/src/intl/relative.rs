//! `Intl.RelativeTimeFormat`: "in 3 hours", "yesterday" in each locale's words (ICU4X's
//! experimental relative-time data, which holds one formatter per unit and style: built per
//! unit on first use and kept in the cache like any formatter).

use icu_experimental::relativetime::{
    options::Numeric, RelativeTimeFormatter, RelativeTimeFormatterOptions,
    RelativeTimeFormatterPreferences,
};
use serde_json::json;

use super::{
    digits::{parse_number, Parsed},
    locale, numbering,
    options::{IntlError, Spec},
    parts,
};

/// The units `format` takes (each also as its plural, `"days"`).
const UNITS: [&str; 8] = [
    "second", "minute", "hour", "day", "week", "month", "quarter", "year",
];

/// A built `Intl.RelativeTimeFormat` for one unit.
pub(crate) struct RelativeFormat {
    /// `resolvedOptions()` as JSON.
    pub(crate) resolved: String,
    /// The unit's formatter (`None` when built only to resolve the options).
    formatter: Option<RelativeTimeFormatter>,
    /// `numeric: "auto"`: -0 is "today" as 0 is (ICU4X words -0 as a number).
    auto: bool,
}

/// The singular unit a `format` argument names, or ECMA-402's `RangeError`.
pub(crate) fn unit(name: &str) -> Result<&'static str, IntlError> {
    let singular = name.strip_suffix('s').unwrap_or(name);
    UNITS
        .iter()
        .copied()
        .find(|u| *u == singular)
        .ok_or_else(|| {
            IntlError::range(format!(
                "Invalid unit argument for format() '{name}' (one of: {}, or their plurals)",
                UNITS.join(", ")
            ))
        })
}

impl RelativeFormat {
    /// Build the formatter a spec describes (`style`: long, short or narrow; `numeric`:
    /// always or auto) for `unit` (a singular unit, or empty to resolve the options only).
    pub(crate) fn new(spec_text: &str, unit: &str) -> Result<RelativeFormat, IntlError> {
        let spec = Spec::parse(spec_text)?;
        let mut matched = locale::resolve(&spec.locales)?;
        let numbering = numbering::apply(&mut matched, spec.string("numberingSystem").as_deref())?;
        let style = spec
            .choice("style", &["long", "short", "narrow"])?
            .unwrap_or("long");
        let numeric = spec
            .choice("numeric", &["always", "auto"])?
            .unwrap_or("always");
        let resolved = json!({
            "locale": matched.tag,
            "style": style,
            "numeric": numeric,
            "numberingSystem": numbering,
        })
        .to_string();
        if unit.is_empty() {
            return Ok(RelativeFormat {
                resolved,
                formatter: None,
                auto: false,
            });
        }
        let prefs = RelativeTimeFormatterPreferences::from(&matched.locale);
        let mut options = RelativeTimeFormatterOptions::default();
        if numeric == "auto" {
            options = options.with_numeric(Numeric::Auto);
        }
        type Make = fn(
            RelativeTimeFormatterPreferences,
            RelativeTimeFormatterOptions,
        ) -> Result<RelativeTimeFormatter, icu_provider::DataError>;
        let make: Make = match (style, unit) {
            ("long", "second") => RelativeTimeFormatter::try_new_long_second,
            ("long", "minute") => RelativeTimeFormatter::try_new_long_minute,
            ("long", "hour") => RelativeTimeFormatter::try_new_long_hour,
            ("long", "day") => RelativeTimeFormatter::try_new_long_day,
            ("long", "week") => RelativeTimeFormatter::try_new_long_week,
            ("long", "month") => RelativeTimeFormatter::try_new_long_month,
            ("long", "quarter") => RelativeTimeFormatter::try_new_long_quarter,
            ("long", _) => RelativeTimeFormatter::try_new_long_year,
            ("short", "second") => RelativeTimeFormatter::try_new_short_second,
            ("short", "minute") => RelativeTimeFormatter::try_new_short_minute,
            ("short", "hour") => RelativeTimeFormatter::try_new_short_hour,
            ("short", "day") => RelativeTimeFormatter::try_new_short_day,
            ("short", "week") => RelativeTimeFormatter::try_new_short_week,
            ("short", "month") => RelativeTimeFormatter::try_new_short_month,
            ("short", "quarter") => RelativeTimeFormatter::try_new_short_quarter,
            ("short", _) => RelativeTimeFormatter::try_new_short_year,
            (_, "second") => RelativeTimeFormatter::try_new_narrow_second,
            (_, "minute") => RelativeTimeFormatter::try_new_narrow_minute,
            (_, "hour") => RelativeTimeFormatter::try_new_narrow_hour,
            (_, "day") => RelativeTimeFormatter::try_new_narrow_day,
            (_, "week") => RelativeTimeFormatter::try_new_narrow_week,
            (_, "month") => RelativeTimeFormatter::try_new_narrow_month,
            (_, "quarter") => RelativeTimeFormatter::try_new_narrow_quarter,
            (_, _) => RelativeTimeFormatter::try_new_narrow_year,
        };
        let formatter = make(prefs, options).map_err(|e| {
            IntlError::range(format!(
                "Intl: no relative-time data for locale {:?} ({e})",
                matched.tag
            ))
        })?;
        Ok(RelativeFormat {
            resolved,
            formatter: Some(formatter),
            auto: numeric == "auto",
        })
    }

    /// `value` (a number as JavaScript prints it) as text, or as parts' JSON.
    pub(crate) fn format(&self, value: &str, as_parts: bool) -> Result<String, IntlError> {
        let Some(formatter) = &self.formatter else {
            return Err(IntlError::type_error("Intl.RelativeTimeFormat: no unit"));
        };
        let value = if self.auto && value == "-0" {
            "0"
        } else {
            value
        };
        let Parsed::Finite(decimal) = parse_number(value)? else {
            return Err(IntlError::range(format!(
                "Intl.RelativeTimeFormat: the value must be a finite number, not {value}"
            )));
        };
        let formatted = formatter.format(decimal);
        Ok(if as_parts {
            parts::json(&formatted)
        } else {
            formatted.to_string()
        })
    }
}
