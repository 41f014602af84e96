//! ECMA-402's digit options (`minimumFractionDigits`, `maximumSignificantDigits`,
//! `roundingMode`, `roundingIncrement`, `roundingPriority`, `trailingZeroDisplay`...) applied to a
//! [`Decimal`], and the numbers the glue passes, for `Intl.NumberFormat` and `Intl.PluralRules`.

use fixed_decimal::{Decimal, RoundingIncrement, SignedRoundingMode, UnsignedRoundingMode};
use serde_json::{Map, Value};

use super::options::{IntlError, Spec};

/// The digit options: ECMA-402's minimum/maximum fraction, integer and significant digits,
/// and how to round to them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Digits {
    min_int: u8,
    min_frac: u8,
    max_frac: u8,
    significant: Option<(u8, u8)>,
    /// `roundingPriority` when both kinds of digits are given: `auto` (None, significant
    /// digits win), else whether the more precise result wins.
    more_precise: Option<bool>,
    /// `roundingMode`, by its name and as ICU4X rounds.
    mode: (&'static str, SignedRoundingMode),
    /// `roundingIncrement` (1 for none): its leading digits as ICU4X rounds to them, and
    /// the power of ten it carries (50 is five at one place up).
    increment: (u16, RoundingIncrement, i16),
    /// `trailingZeroDisplay: "stripIfInteger"`.
    pub(super) strip_if_integer: bool,
}

/// ECMA-402's `roundingMode` values, as ICU4X rounds.
const ROUNDING_MODES: [(&str, SignedRoundingMode); 9] = {
    use SignedRoundingMode::{Ceil, Floor, HalfCeil, HalfFloor, Unsigned};
    use UnsignedRoundingMode::{Expand, HalfEven, HalfExpand, HalfTrunc, Trunc};
    [
        ("ceil", Ceil),
        ("floor", Floor),
        ("expand", Unsigned(Expand)),
        ("trunc", Unsigned(Trunc)),
        ("halfCeil", HalfCeil),
        ("halfFloor", HalfFloor),
        ("halfExpand", Unsigned(HalfExpand)),
        ("halfTrunc", Unsigned(HalfTrunc)),
        ("halfEven", Unsigned(HalfEven)),
    ]
};

/// ECMA-402's `roundingIncrement` values.
const INCREMENTS: [u16; 15] = [
    1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000,
];

impl Digits {
    /// Read the digit options, with the style's default fraction digits
    /// (ECMA-402's SetNumberFormatDigitOptions).
    pub(super) fn read(spec: &Spec, default_min: u8, default_max: u8) -> Result<Digits, IntlError> {
        let min_int = spec.integer("minimumIntegerDigits", 1, 21)?.unwrap_or(1);
        let min_sig = spec.integer("minimumSignificantDigits", 1, 21)?;
        let max_sig = spec.integer("maximumSignificantDigits", 1, 21)?;
        let min = spec.integer("minimumFractionDigits", 0, 100)?;
        let max = spec.integer("maximumFractionDigits", 0, 100)?;
        let increment = match spec.options.get("roundingIncrement") {
            None | Some(Value::Null) => 1,
            Some(value) => value
                .as_f64()
                .filter(|n| INCREMENTS.iter().any(|&i| f64::from(i) == *n))
                .map(|n| n as u16)
                .ok_or_else(|| {
                    IntlError::range(format!(
                        "roundingIncrement value is out of range: {value} (one of {INCREMENTS:?})"
                    ))
                })?,
        };
        let name = spec
            .choice("roundingMode", &ROUNDING_MODES.map(|(name, _)| name))?
            .unwrap_or("halfExpand");
        let mode = ROUNDING_MODES
            .into_iter()
            .find(|(n, _)| *n == name)
            .expect("a rounding mode choice() accepted");
        let priority = spec
            .choice(
                "roundingPriority",
                &["auto", "morePrecision", "lessPrecision"],
            )?
            .unwrap_or("auto");
        let strip_if_integer = spec.choice("trailingZeroDisplay", &["auto", "stripIfInteger"])?
            == Some("stripIfInteger");
        let significant = match (min_sig, max_sig) {
            (None, None) if priority == "auto" => None,
            (min, max) => {
                let min = min.unwrap_or(1);
                let max = max.unwrap_or(21);
                if min > max {
                    return Err(IntlError::range(format!(
                        "maximumSignificantDigits ({max}) is less than minimumSignificantDigits ({min})"
                    )));
                }
                Some((min, max))
            }
        };
        // A rounding increment takes the minimum as the default maximum.
        let default_max = if increment != 1 {
            default_min
        } else {
            default_max
        };
        let (min_frac, max_frac) = match (min, max) {
            (None, None) => (default_min, default_max),
            (Some(min), None) => (min, default_max.max(min)),
            (None, Some(max)) => (default_min.min(max), max),
            (Some(min), Some(max)) if min > max => {
                return Err(IntlError::range(format!(
                    "maximumFractionDigits ({max}) is less than minimumFractionDigits ({min})"
                )))
            }
            (Some(min), Some(max)) => (min, max),
        };
        if increment != 1 {
            if significant.is_some() {
                return Err(IntlError::type_error(
                    "roundingIncrement works with fraction digits only, not with significant \
                     digits or a roundingPriority",
                ));
            }
            if min_frac != max_frac {
                return Err(IntlError::range(format!(
                    "with roundingIncrement, maximumFractionDigits ({max_frac}) must equal \
                     minimumFractionDigits ({min_frac})"
                )));
            }
        }
        let (mut lead, mut zeros) = (increment, 0);
        while lead % 10 == 0 {
            lead /= 10;
            zeros += 1;
        }
        Ok(Digits {
            min_int,
            min_frac,
            max_frac,
            significant,
            more_precise: match priority {
                "morePrecision" => Some(true),
                "lessPrecision" => Some(false),
                _ => None,
            },
            mode,
            increment: (
                increment,
                match lead {
                    2 => RoundingIncrement::MultiplesOf2,
                    5 => RoundingIncrement::MultiplesOf5,
                    25 => RoundingIncrement::MultiplesOf25,
                    _ => RoundingIncrement::MultiplesOf1,
                },
                zeros,
            ),
            strip_if_integer,
        })
    }

    /// Round and pad `value` as the options say.
    pub(super) fn apply(&self, value: &mut Decimal) {
        let fraction_at = -i16::from(self.max_frac);
        let significant = self.significant.map(|(min, max)| {
            let top = match value.absolute.is_zero() {
                true => 0,
                false => value.absolute.nonzero_magnitude_start(),
            };
            (min, top - i16::from(max) + 1)
        });
        // ECMA-402's rounding priority: the rounding at the lower magnitude keeps more.
        let significant = match (significant, self.more_precise) {
            (Some((_, at)), Some(true)) if at > fraction_at => None,
            (Some((_, at)), Some(false)) if at <= fraction_at => None,
            (chosen, _) => chosen,
        };
        if let Some((min, at)) = significant {
            value.round_with_mode(at, self.mode.1);
            value.absolute.trim_end();
            let top = if value.absolute.is_zero() {
                0
            } else {
                value.absolute.nonzero_magnitude_start()
            };
            value.absolute.pad_end(top - i16::from(min) + 1);
        } else {
            let (_, increment, zeros) = self.increment;
            value.round_with_mode_and_increment(fraction_at + zeros, self.mode.1, increment);
            value.absolute.trim_end();
            value.absolute.pad_end(-i16::from(self.min_frac));
        }
        if self.strip_if_integer {
            value.absolute.trim_end_if_integer();
        }
        value.absolute.pad_start(i16::from(self.min_int));
    }

    /// Compact notation's digits when the program gave none: two significant digits, or no
    /// fraction digits, whichever keeps more (ECMA-402: 1,234 is 1.2K, 12,345 is 12K).
    pub(super) fn compact(self) -> Digits {
        Digits {
            min_frac: 0,
            max_frac: 0,
            significant: Some((1, 2)),
            more_precise: Some(true),
            ..self
        }
    }

    /// Whether the program gave digit options of its own (compact notation otherwise rounds
    /// as CLDR says).
    pub(super) fn explicit(spec: &Spec) -> bool {
        [
            "minimumFractionDigits",
            "maximumFractionDigits",
            "minimumSignificantDigits",
            "maximumSignificantDigits",
            "roundingIncrement",
            "roundingPriority",
        ]
        .iter()
        .any(|k| spec.options.get(*k).is_some_and(|v| !v.is_null()))
    }

    /// The options' entries of `resolvedOptions()`.
    pub(super) fn resolve_into(&self, resolved: &mut Map<String, Value>) {
        resolved.insert("minimumIntegerDigits".into(), self.min_int.into());
        if let Some((min, max)) = self.significant {
            resolved.insert("minimumSignificantDigits".into(), min.into());
            resolved.insert("maximumSignificantDigits".into(), max.into());
        }
        if self.significant.is_none() || self.more_precise.is_some() {
            resolved.insert("minimumFractionDigits".into(), self.min_frac.into());
            resolved.insert("maximumFractionDigits".into(), self.max_frac.into());
        }
        resolved.insert("roundingIncrement".into(), self.increment.0.into());
        resolved.insert("roundingMode".into(), self.mode.0.into());
        let priority = match self.more_precise {
            None => "auto",
            Some(true) => "morePrecision",
            Some(false) => "lessPrecision",
        };
        resolved.insert("roundingPriority".into(), priority.into());
        let zeros = match self.strip_if_integer {
            true => "stripIfInteger",
            false => "auto",
        };
        resolved.insert("trailingZeroDisplay".into(), zeros.into());
    }
}

/// A number as the glue passes it: finite (as a [`Decimal`]), or one of NaN and ±Infinity.
pub(super) enum Parsed {
    Finite(Decimal),
    NaN,
    Infinite { negative: bool },
}

/// Read a number printed by JavaScript (`String(x)`, e.g. `-1.5e+21`, or a BigInt's digits).
pub(super) fn parse_number(text: &str) -> Result<Parsed, IntlError> {
    match text {
        "NaN" => return Ok(Parsed::NaN),
        "Infinity" => return Ok(Parsed::Infinite { negative: false }),
        "-Infinity" => return Ok(Parsed::Infinite { negative: true }),
        _ => {}
    }
    Decimal::try_from_str(&text.replace("e+", "e"))
        .map(Parsed::Finite)
        .map_err(|_| IntlError::range(format!("Intl: {text:?} is not a number")))
}
