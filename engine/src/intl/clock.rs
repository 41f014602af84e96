//! The hour cycle of an `Intl.DateTimeFormat`, as V8 resolves it, and the time pattern it writes:
//! CLDR 48's for the time fields or the `timeStyle` ([`times`]), with its hour letter set to the
//! cycle and its zone name to the asked style.

use icu_locale::preferences::extensions::unicode::keywords::HourCycle;

use super::{
    pattern::{self, Widths},
    times::{self, Kind},
};

/// An hour cycle (ECMA-402's `hourCycle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cycle {
    /// 0–11 (`K`).
    H11,
    /// 1–12 (`h`).
    H12,
    /// 0–23 (`H`).
    H23,
    /// 1–24 (`k`).
    H24,
}

impl Cycle {
    fn parse(name: &str) -> Option<Cycle> {
        Some(match name {
            "h11" => Cycle::H11,
            "h12" => Cycle::H12,
            "h23" => Cycle::H23,
            "h24" => Cycle::H24,
            _ => return None,
        })
    }

    /// Its name in `resolvedOptions()`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cycle::H11 => "h11",
            Cycle::H12 => "h12",
            Cycle::H23 => "h23",
            Cycle::H24 => "h24",
        }
    }

    /// Whether it counts twelve hours (`hour12` in `resolvedOptions()`).
    pub(crate) fn twelve(self) -> bool {
        matches!(self, Cycle::H11 | Cycle::H12)
    }

    /// Its hour field's letter.
    fn letter(self) -> char {
        match self {
            Cycle::H11 => 'K',
            Cycle::H12 => 'h',
            Cycle::H23 => 'H',
            Cycle::H24 => 'k',
        }
    }

    /// The letter a pattern for ICU4X writes, which has no `k`: h24 is written `H`, its midnight
    /// hour by [`midnight`].
    fn icu_letter(self) -> char {
        match self {
            Cycle::H24 => 'H',
            cycle => cycle.letter(),
        }
    }

    /// ICU4X's hour cycle for it (h24's hours are h23's but at midnight).
    pub(crate) fn icu(self) -> HourCycle {
        match self {
            Cycle::H11 => HourCycle::H11,
            Cycle::H12 => HourCycle::H12,
            Cycle::H23 | Cycle::H24 => HourCycle::H23,
        }
    }
}

/// The hour cycle of a formatter for locale `tag`, and whether the program chose it (with
/// `hour12`, `hourCycle` or the locale's `-u-hc-`) rather than the locale's default. `hour12`
/// overrides the others as ECMA-402 (2021, V8's) says: `true` is h11 where the locale's default
/// counts from 0 (h23: de, ja), else h12; `false` is h23 there, else h24 (en-US writes
/// midnight as 24:00).
pub(crate) fn resolve(
    tag: &str,
    hour12: Option<bool>,
    hour_cycle: Option<&str>,
    locale: Option<HourCycle>,
) -> (Cycle, bool) {
    let default = times::default_cycle(tag)
        .and_then(Cycle::parse)
        .unwrap_or(Cycle::H23);
    let from_zero = matches!(default, Cycle::H11 | Cycle::H23);
    let chosen = match (hour12, hour_cycle, locale) {
        (Some(true), ..) if from_zero => Cycle::H11,
        (Some(true), ..) => Cycle::H12,
        (Some(false), ..) if from_zero => Cycle::H23,
        (Some(false), ..) => Cycle::H24,
        (None, Some(name), _) => Cycle::parse(name).unwrap_or(default),
        (None, None, Some(HourCycle::H11)) => Cycle::H11,
        (None, None, Some(HourCycle::H12 | HourCycle::Clock12)) => Cycle::H12,
        (None, None, Some(HourCycle::H23 | HourCycle::Clock24)) => Cycle::H23,
        _ => return (default, false),
    };
    (chosen, true)
}

/// `pattern` with its hour letter set to the cycle's and its zone name (`z`) written `zone`.
fn set(pattern: &str, cycle: Cycle, zone: Option<&str>) -> String {
    pattern::map_fields(pattern, |c, run, _| match c {
        'h' | 'H' | 'K' | 'k' => Some(cycle.icu_letter().to_string().repeat(run)),
        'z' => zone.map(str::to_owned),
        _ => None,
    })
}

/// CLDR 48's pattern for the time fields up to `precision` (0 the hour, 1 minutes, 2 seconds;
/// `two_digit`: minutes and seconds asked `2-digit`) in the cycle, with a zone name written
/// `zone` (`z`, `zzzz`, `O`, `v`...) or none.
pub(crate) fn fields(
    tag: &str,
    (precision, two_digit): (usize, bool),
    cycle: Cycle,
    zone: Option<&str>,
) -> Option<String> {
    let kind = Kind::Fields {
        precision,
        two_digit,
        twelve: cycle.twelve(),
        zoned: zone.is_some(),
    };
    Some(set(times::pattern(tag, kind)?, cycle, zone))
}

/// `timeStyle`'s pattern (0 short, 1 medium, 2 long, 3 full): CLDR 48's timeFormats pattern,
/// unless the program chose a cycle whose hour letter is not the pattern's. Then, as V8 asks
/// ICU's generator for the pattern's skeleton in that cycle, it is the fields' pattern of the
/// style's precision and zone name, its hour as wide as the style's.
pub(crate) fn style(tag: &str, style: usize, cycle: Cycle, chosen: bool) -> Option<String> {
    let table = times::pattern(tag, Kind::Style(style))?;
    let (mut hour, mut zone, mut minutes, mut seconds) = (None, None, 0, 0);
    pattern::map_fields(table, |c, run, _| {
        match c {
            'h' | 'H' | 'K' | 'k' => hour = Some((c, run)),
            'z' => zone = Some("z".repeat(run)),
            'm' => minutes = run,
            's' => seconds = run,
            _ => {}
        }
        None
    });
    match hour {
        Some((letter, width)) if chosen && letter != cycle.letter() => {
            let precision = if seconds > 0 { 2 } else { 1 };
            let two_digit = minutes == 2 && matches!(seconds, 0 | 2);
            let fields = fields(tag, (precision, two_digit), cycle, zone.as_deref())?;
            let widths = Widths {
                hour: Some(width),
                ..Widths::default()
            };
            Some(pattern::fit(&fields, widths, ""))
        }
        _ => Some(table.to_owned()),
    }
}

/// `pattern` with the fraction of a second ICU4X's time pattern `icu` writes (its decimal
/// separator and `S`s) after its seconds, if `icu` has one.
pub(crate) fn with_fraction(pattern: &str, icu: &str) -> String {
    let (Some(start), Some(end)) = (icu.find('S'), icu.rfind('S')) else {
        return pattern.to_owned();
    };
    // The separator before the `S`s, back to the seconds.
    let separator_start = icu[..start].rfind('s').map_or(start, |s| s + 1);
    let fraction = &icu[separator_start..=end];
    pattern::map_fields(pattern, |c, run, _| {
        (c == 's').then(|| format!("{}{fraction}", "s".repeat(run)))
    })
}

/// For h24, `pattern` as midnight's hour writes it: 24, which ICU4X's `H` writes 0.
pub(crate) fn midnight(pattern: &str) -> String {
    pattern::map_fields(pattern, |c, _, _| (c == 'H').then(|| "'24'".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hour12_resolves_as_v8_does_from_the_locale_default() {
        assert_eq!(resolve("de-DE", Some(true), None, None), (Cycle::H11, true));
        assert_eq!(
            resolve("en-US", Some(false), Some("h12"), None),
            (Cycle::H24, true)
        );
        assert_eq!(
            resolve("en-US", None, Some("h23"), None),
            (Cycle::H23, true)
        );
        assert_eq!(resolve("es-AR", None, None, None), (Cycle::H12, false));
        assert_eq!(
            resolve("ja", None, None, Some(HourCycle::H11)),
            (Cycle::H11, true)
        );
    }

    #[test]
    fn fields_take_the_cycle_letter_and_the_zone_style() {
        let de = fields("de", (0, false), Cycle::H11, None);
        assert_eq!(de.as_deref(), Some("K\u{202f}a"));
        let zh = fields("zh-CN", (1, false), Cycle::H23, Some("zzzz"));
        assert_eq!(zh.as_deref(), Some("zzzz HH:mm"));
        let en = fields("en", (1, false), Cycle::H24, None);
        assert_eq!(en.as_deref(), Some("HH:mm"));
        let two_digit = fields("de", (1, true), Cycle::H23, None);
        assert_eq!(two_digit.as_deref(), Some("H:mm"));
        assert_eq!(midnight("HH:mm"), "'24':mm");
        assert_eq!(with_fraction("H:mm:ss", "HH:mm:ss,SSS"), "H:mm:ss,SSS");
    }

    #[test]
    fn a_style_in_another_cycle_is_its_fields_pattern_with_its_hour_width() {
        assert_eq!(style("de", 0, Cycle::H23, false).as_deref(), Some("HH:mm"));
        assert_eq!(
            style("de", 0, Cycle::H11, true).as_deref(),
            Some("KK:mm\u{202f}a")
        );
        assert_eq!(
            style("es", 3, Cycle::H23, true).as_deref(),
            Some("H:mm:ss (zzzz)")
        );
        assert_eq!(
            style("en", 2, Cycle::H24, true).as_deref(),
            Some("HH:mm:ss z")
        );
    }
}
