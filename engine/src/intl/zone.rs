//! The time zone of an `Intl.DateTimeFormat`: `UTC` (the default; also `Etc/UTC`, `GMT`), fixed
//! offsets (`+05:30`, `-0800`) and IANA names (`Europe/Berlin`, from the database jiff bundles
//! into the binary: the host's own files are never read, so every machine formats alike), with
//! the CLDR zone ICU4X names it by. An unknown name is a `RangeError`. A GMT offset is written
//! with CLDR 48's pattern where ICU4X's data (CLDR 49) changed it ([`Essentials`]).

use std::borrow::Cow;

use icu_datetime::provider::{
    time_zones::{TimeZoneEssentials, TimezoneNamesEssentialsV1},
    Baked,
};
use icu_pattern::SinglePlaceholderPattern;
use icu_provider::prelude::*;
use icu_time::{zone::IanaParser, TimeZone};

use super::options::IntlError;

/// A time zone: a fixed offset (seconds east of UTC) or an IANA zone.
pub(crate) enum Zone {
    /// Seconds east of UTC.
    Fixed(i32),
    /// A zone of the bundled database.
    Named(jiff::tz::TimeZone),
}

impl Zone {
    /// The offset from UTC at an instant, in seconds.
    pub(crate) fn offset_at(&self, epoch_ms: i64) -> i32 {
        match self {
            Zone::Fixed(offset) => *offset,
            Zone::Named(zone) => jiff::Timestamp::from_millisecond(epoch_ms)
                .map_or(0, |at| zone.to_offset(at).seconds()),
        }
    }
}

/// `+05:30` for an offset in seconds.
fn offset_text(offset: i32) -> String {
    let (sign, abs) = if offset < 0 {
        ('-', -offset)
    } else {
        ('+', offset)
    };
    format!("{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60)
}

/// A time zone option: the zone and the name `resolvedOptions()` gives it.
pub(crate) fn time_zone(name: Option<String>) -> Result<(Zone, String), IntlError> {
    let Some(name) = name else {
        return Ok((Zone::Fixed(0), "UTC".to_owned()));
    };
    if [
        "utc",
        "etc/utc",
        "gmt",
        "etc/gmt",
        "z",
        "etc/zulu",
        "zulu",
        "universal",
    ]
    .contains(&name.to_ascii_lowercase().as_str())
    {
        return Ok((Zone::Fixed(0), "UTC".to_owned()));
    }
    if let Some(offset) = fixed_offset(&name) {
        return Ok((Zone::Fixed(offset), offset_text(offset)));
    }
    let zone = jiff::tz::db().get(&name).map_err(|_| {
        IntlError::range(format!(
            "Intl.DateTimeFormat: invalid time zone {name:?} (use an IANA name such as \
             \"Europe/Berlin\", \"UTC\" or a fixed offset such as \"+02:00\")"
        ))
    })?;
    let canonical = zone.iana_name().unwrap_or(&name).to_owned();
    Ok((Zone::Named(zone), canonical))
}

/// A fixed offset `±HH`, `±HHMM` or `±HH:MM`, in seconds.
fn fixed_offset(name: &str) -> Option<i32> {
    let sign = match name.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = name[1..].chars().filter(|c| *c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) || !matches!(digits.len(), 2 | 4) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = if digits.len() == 4 {
        digits[2..].parse().ok()?
    } else {
        0
    };
    (hours <= 23 && minutes <= 59).then_some(sign * (hours * 3600 + minutes * 60))
}

impl Zone {
    /// The zone as CLDR knows it, for its names (`timeZoneName`, a long `timeStyle`).
    pub(crate) fn cldr(&self, name: &str) -> TimeZone {
        match self {
            Zone::Fixed(0) => IanaParser::new().parse("Etc/UTC"),
            Zone::Fixed(_) => TimeZone::UNKNOWN,
            Zone::Named(_) => IanaParser::new().parse(name),
        }
    }
}

/// `(language, gmtFormat)`: CLDR 48's pattern of a GMT offset where CLDR 49 changed it (pt's
/// `{0} GMT` was `GMT{0}`: `13:35:09 GMT+5:30`), found by comparing every supported locale's
/// `shortOffset` and `longOffset` with Node's. (Other offsets differ only in their sign, which
/// ICU4X takes from the locale's numbers and ICU from its hourFormat: fi's `UTC−5` is V8's
/// `UTC-5`, fr's `UTC-5` V8's `UTC−5`.)
const GMT_FORMATS: &[(&str, &str)] = &[("pt", "GMT{0}")];

/// ICU4X's time zone essentials (how an offset is written) with CLDR 48's GMT offset pattern
/// where [`GMT_FORMATS`] has the locale's language.
pub(crate) struct Essentials;

impl DataProvider<TimezoneNamesEssentialsV1> for Essentials {
    fn load(&self, req: DataRequest) -> Result<DataResponse<TimezoneNamesEssentialsV1>, DataError> {
        let mut response = Baked.load(req)?;
        let language = req.id.locale.language;
        let cldr48 = GMT_FORMATS
            .iter()
            .find(|(l, _)| language.as_str() == *l)
            .and_then(|(_, format)| {
                SinglePlaceholderPattern::try_from_str(format, Default::default()).ok()
            });
        if let Some(pattern) = cldr48 {
            response
                .payload
                .with_mut(move |essentials: &mut TimeZoneEssentials<'_>| {
                    essentials.offset_pattern = Cow::Owned(pattern)
                });
        }
        Ok(response)
    }
}
