//! `Intl.NumberFormat`: ECMA-402's digit options applied to a [`Decimal`], formatted by ICU4X
//! (decimal, percent, currency, compact).

use fixed_decimal::{
    Decimal, RoundingIncrement, SignDisplay, SignedRoundingMode, UnsignedRoundingMode,
};
use icu_decimal::{
    options::{CompactDecimalFormatterOptions, DecimalFormatterOptions, GroupingStrategy},
    CompactDecimalFormatter, DecimalFormatter,
};
use icu_experimental::dimension::{
    currency::{formatter::CurrencyFormatter, CurrencyType},
    percent::formatter::PercentFormatter,
};
use serde_json::{json, Map, Value};

use super::{
    cldr48,
    locale::{self, Matched},
    numbering,
    options::{IntlError, Spec},
};

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
    strip_if_integer: bool,
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
    fn compact(self) -> Digits {
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
    fn explicit(spec: &Spec) -> bool {
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

/// How numbers are presented: ECMA-402's `style` and `notation`.
enum Presenter {
    Decimal(DecimalFormatter),
    Percent(Box<PercentFormatter<DecimalFormatter>>),
    /// The currency's pattern, and the locale's digits for a number of the program's own
    /// fraction digits (ICU4X's currency formatter always rounds to the currency's).
    Currency(Box<(CurrencyFormatter<DecimalFormatter>, DecimalFormatter)>),
    CompactCurrency(Box<CurrencyFormatter<CompactDecimalFormatter>>),
    Compact(Box<CompactDecimalFormatter>),
}

/// A built `Intl.NumberFormat`.
pub(crate) struct NumberFormatter {
    /// `resolvedOptions()` as JSON.
    pub(crate) resolved: String,
    presenter: Presenter,
    digits: Digits,
    sign: SignDisplay,
    /// Digit options were given (compact notation otherwise rounds as CLDR says).
    explicit_digits: bool,
    /// The matched locale's tag (for [`cldr48`]'s corrections).
    tag: String,
    /// The numbering system (its percent sign).
    numbering: String,
    /// A currency shown by its name.
    by_name: bool,
    /// The separators to write as Arabic ones ([`numbering::arabic_separators`]).
    arabic: Option<(char, char)>,
}

/// `template` (a formatted amount) with its number, from its first digit to its last,
/// replaced by `number`.
fn with_number(template: &str, number: &str) -> String {
    let digit = |(_, c): &(usize, char)| c.is_numeric();
    let first = template.char_indices().find(digit);
    let last = template.char_indices().rev().find(digit);
    match (first, last) {
        (Some((start, _)), Some((end, c))) => {
            let end = end + c.len_utf8();
            format!("{}{number}{}", &template[..start], &template[end..])
        }
        _ => template.to_string(),
    }
}

/// The fraction digits ISO 4217 gives a currency (2 unless listed).
fn currency_digits(code: &str) -> u8 {
    match code {
        "BIF" | "CLP" | "DJF" | "GNF" | "ISK" | "JPY" | "KMF" | "KRW" | "PYG" | "RWF" | "UGX"
        | "UYI" | "VND" | "VUV" | "XAF" | "XOF" | "XPF" => 0,
        "BHD" | "IQD" | "JOD" | "KWD" | "LYD" | "OMR" | "TND" => 3,
        _ => 2,
    }
}

pub(super) fn data_error(
    what: &str,
    matched: &Matched,
    error: impl std::fmt::Display,
) -> IntlError {
    IntlError::range(format!(
        "Intl: no {what} data for locale {:?} ({error})",
        matched.tag
    ))
}

impl NumberFormatter {
    /// Build the formatter a spec describes (checking every option).
    pub(crate) fn new(spec: &str) -> Result<NumberFormatter, IntlError> {
        let spec = Spec::parse(spec)?;
        let mut matched = locale::resolve(&spec.locales)?;
        let numbering = numbering::apply(&mut matched, spec.string("numberingSystem").as_deref())?;
        let style = spec
            .choice("style", &["decimal", "percent", "currency", "unit"])?
            .unwrap_or("decimal");
        let currency = spec.string("currency");
        let currency_display = spec
            .choice(
                "currencyDisplay",
                &["symbol", "narrowSymbol", "code", "name"],
            )?
            .unwrap_or("symbol");
        let notation = spec
            .choice(
                "notation",
                &["standard", "scientific", "engineering", "compact"],
            )?
            .unwrap_or("standard");
        let compact_display = spec
            .choice("compactDisplay", &["short", "long"])?
            .unwrap_or("short");
        let sign_name = spec
            .choice(
                "signDisplay",
                &["auto", "never", "always", "exceptZero", "negative"],
            )?
            .unwrap_or("auto");
        let grouping_name = match spec.options.get("useGrouping") {
            None | Some(Value::Null) => {
                if notation == "compact" {
                    "min2"
                } else {
                    "auto"
                }
            }
            Some(Value::Bool(false)) => "false",
            Some(Value::Bool(true)) => "always",
            Some(Value::String(s)) if s.is_empty() => "false",
            Some(_) => spec
                .choice("useGrouping", &["min2", "auto", "always", "true", "false"])?
                .map(|g| if g == "true" { "always" } else { g })
                .unwrap_or("auto"),
        };
        let accounting = spec.choice("currencySign", &["standard", "accounting"])?;
        if style == "currency" && accounting == Some("accounting") {
            return Err(IntlError::range(
                "Intl.NumberFormat: currencySign \"accounting\" is not supported in this sandbox \
                 (format Math.abs(x) and put a negative amount in parentheses yourself)",
            ));
        }
        if style == "unit" {
            return Err(IntlError::range(
                "Intl.NumberFormat: style \"unit\" is not supported in this sandbox (use \
                 decimal, percent or currency and add the unit's name yourself)",
            ));
        }
        if notation == "scientific" || notation == "engineering" {
            return Err(IntlError::range(format!(
                "Intl.NumberFormat: notation {notation:?} is not supported in this sandbox \
                 (standard or compact are; Number.prototype.toExponential prints scientific)"
            )));
        }
        let currency = match (style, currency) {
            ("currency", None) => {
                return Err(IntlError::type_error(
                    "Currency code is required with currency style.",
                ))
            }
            (_, Some(code))
                if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_alphabetic()) =>
            {
                return Err(IntlError::range(format!("Invalid currency code : {code}")))
            }
            (_, code) => code.map(|c| c.to_ascii_uppercase()),
        };
        let (default_min, default_max) = match (style, &currency) {
            ("currency", Some(code)) => (currency_digits(code), currency_digits(code)),
            ("percent", _) => (0, 0),
            _ => (0, 3),
        };
        let digits = Digits::read(&spec, default_min, default_max)?;
        let explicit_digits = Digits::explicit(&spec);
        let digits = match notation {
            "compact" if !explicit_digits => digits.compact(),
            _ => digits,
        };
        if notation == "compact" && style == "currency" && explicit_digits {
            return Err(IntlError::range(
                "Intl.NumberFormat: compact currency with digit or rounding options is not \
                 supported in this sandbox (compact currency rounds to two significant digits; \
                 for other digits format the amount with notation \"standard\" and scale it \
                 yourself)",
            ));
        }
        let grouping = match grouping_name {
            "false" => GroupingStrategy::Never,
            "always" => GroupingStrategy::Always,
            "min2" => GroupingStrategy::Min2,
            _ => GroupingStrategy::Auto,
        };
        let sign = match sign_name {
            "never" => SignDisplay::Never,
            "always" => SignDisplay::Always,
            "exceptZero" => SignDisplay::ExceptZero,
            "negative" => SignDisplay::Negative,
            _ => SignDisplay::Auto,
        };
        let presenter = presenter(
            &matched,
            style,
            notation,
            compact_display,
            currency.as_deref(),
            currency_display,
            grouping,
        )?;

        let mut resolved = Map::new();
        resolved.insert("locale".into(), matched.tag.clone().into());
        resolved.insert("numberingSystem".into(), numbering.clone().into());
        resolved.insert("style".into(), style.into());
        if let Some(code) = &currency {
            if style == "currency" {
                resolved.insert("currency".into(), code.clone().into());
                resolved.insert("currencyDisplay".into(), currency_display.into());
                resolved.insert("currencySign".into(), "standard".into());
            }
        }
        digits.resolve_into(&mut resolved);
        resolved.insert(
            "useGrouping".into(),
            if grouping_name == "false" {
                json!(false)
            } else {
                json!(grouping_name)
            },
        );
        resolved.insert("notation".into(), notation.into());
        if notation == "compact" {
            resolved.insert("compactDisplay".into(), compact_display.into());
        }
        resolved.insert("signDisplay".into(), sign_name.into());
        Ok(NumberFormatter {
            resolved: Value::Object(resolved).to_string(),
            presenter,
            digits,
            sign,
            explicit_digits,
            tag: matched.tag.clone(),
            arabic: numbering::arabic_separators(&matched, &numbering),
            numbering,
            by_name: style == "currency" && currency_display == "name",
        })
    }

    /// Format one number (JavaScript's text of it).
    pub(crate) fn format(&self, value: &str) -> Result<String, IntlError> {
        let mut value = match parse_number(value)? {
            Parsed::Finite(value) => value,
            Parsed::NaN => return Ok("NaN".to_owned()),
            Parsed::Infinite { negative } => {
                let sign = match (negative, self.sign) {
                    (_, SignDisplay::Never) => "",
                    (true, _) => "-",
                    (false, SignDisplay::Always | SignDisplay::ExceptZero) => "+",
                    (false, _) => "",
                };
                return Ok(format!("{sign}∞"));
            }
        };
        if matches!(self.presenter, Presenter::Percent(_)) {
            value.multiply_pow10(2);
        }
        // Compact notation rounds the number it shows (12.3 of 12.3K), not the whole one.
        let compact = matches!(
            self.presenter,
            Presenter::Compact(_) | Presenter::CompactCurrency(_)
        );
        if !compact {
            self.digits.apply(&mut value);
        }
        value.apply_sign_display(self.sign);
        let money = matches!(
            self.presenter,
            Presenter::Currency(_) | Presenter::CompactCurrency(_)
        );
        let text = match &self.presenter {
            Presenter::Decimal(f) => f.format(&value).to_string(),
            Presenter::Percent(f) => f.format(&value).to_string(),
            Presenter::Currency(f) => {
                let text = f.0.format_fixed_decimal(&value).to_string();
                // ICU4X pads to the currency's digits: the program's own digits (or an
                // integer stripped of its zeros) go in by hand.
                match self.explicit_digits || self.digits.strip_if_integer {
                    true => {
                        let mut number = value.clone();
                        number.sign = fixed_decimal::Sign::None;
                        with_number(&text, &f.1.format(&number).to_string())
                    }
                    false => text,
                }
            }
            Presenter::CompactCurrency(f) => f.format_fixed_decimal(&value).to_string(),
            Presenter::Compact(f) => compact_text(f, &self.digits, &value),
        };
        let text = match &self.presenter {
            Presenter::Percent(_) => cldr48::percent_sign(&self.numbering, text),
            _ if self.by_name => cldr48::name_glue(&self.tag, text),
            _ => text,
        };
        let text = match self.arabic {
            Some((group, decimal)) => cldr48::between_digits(&text, |c| {
                (c == group)
                    .then_some('\u{66c}')
                    .or((c == decimal).then_some('\u{66b}'))
            }),
            None => text,
        };
        Ok(cldr48::separators(&self.tag, money, text))
    }
}

/// `value` in compact notation, its shown number rounded as `digits` say (ECMA-402's
/// ComputeExponent: a rounding that reaches the next power of ten moves to its unit).
fn compact_text(f: &CompactDecimalFormatter, digits: &Digits, value: &Decimal) -> String {
    let magnitude = match value.absolute.is_zero() {
        true => 0,
        false => value.absolute.nonzero_magnitude_start(),
    };
    let shown = |exponent: u8| {
        let mut significand = value.clone();
        significand.multiply_pow10(-i16::from(exponent));
        digits.apply(&mut significand);
        significand
    };
    let mut exponent = f.compact_exponent_for_magnitude(magnitude);
    let mut significand = shown(exponent);
    if !significand.absolute.is_zero()
        && significand.absolute.nonzero_magnitude_start() + i16::from(exponent) > magnitude
    {
        let next = f.compact_exponent_for_magnitude(magnitude + 1);
        if next != exponent {
            exponent = next;
            significand = shown(exponent);
        }
    }
    let text = match f.format_with_exponent(&significand, exponent) {
        Ok(text) => text.to_string(),
        // Not reached: the exponent is the formatter's own for the number's magnitude.
        Err(_) => f.format(value).to_string(),
    };
    text
}

/// The ICU4X formatter for a style and notation.
fn presenter(
    matched: &Matched,
    style: &str,
    notation: &str,
    compact_display: &str,
    currency: Option<&str>,
    currency_display: &str,
    grouping: GroupingStrategy,
) -> Result<Presenter, IntlError> {
    let locale = &matched.locale;
    let options: DecimalFormatterOptions = grouping.into();
    let decimal = || {
        DecimalFormatter::try_new(locale.into(), options)
            .map_err(|e| data_error("number", matched, e))
    };
    let long = compact_display == "long";
    Ok(match (style, notation) {
        ("currency", compact) => {
            let code = currency.unwrap_or("USD");
            let currency_display = match currency_display {
                "symbol" if cldr48::code_for_symbol(&matched.tag, code) => "code",
                display => display,
            };
            let code = CurrencyType::try_from_str(code)
                .map_err(|_| IntlError::range(format!("Invalid currency code : {code}")))?;
            let prefs = locale.into();
            let options = Default::default();
            let error = |e| data_error("currency", matched, e);
            if compact == "compact" {
                Presenter::CompactCurrency(Box::new(match (currency_display, long) {
                    ("code", false) => CurrencyFormatter::try_new_compact_code(prefs, code, options),
                    ("code", true) => CurrencyFormatter::try_new_compact_long_code(prefs, code, options),
                    ("narrowSymbol", false) => CurrencyFormatter::try_new_compact_symbol_narrow(prefs, code, options),
                    ("narrowSymbol", true) => CurrencyFormatter::try_new_compact_long_symbol_narrow(prefs, code, options),
                    ("name", false) => CurrencyFormatter::try_new_compact_name(prefs, code),
                    ("name", true) => CurrencyFormatter::try_new_compact_long_name(prefs, code),
                    (_, false) => CurrencyFormatter::try_new_compact_symbol(prefs, code, options),
                    (_, true) => CurrencyFormatter::try_new_compact_long_symbol(prefs, code, options),
                }
                .map_err(error)?))
            } else {
                Presenter::Currency(Box::new((match currency_display {
                    "code" => CurrencyFormatter::try_new_code(prefs, code, options),
                    "narrowSymbol" => CurrencyFormatter::try_new_symbol_narrow(prefs, code, options),
                    "name" => CurrencyFormatter::try_new_name(prefs, code),
                    _ => CurrencyFormatter::try_new_symbol(prefs, code, options),
                }
                .map_err(error)?, decimal()?)))
            }
        }
        (_, "compact") if style == "percent" => {
            return Err(IntlError::range(
                "Intl.NumberFormat: compact notation with style \"percent\" is not supported in this sandbox",
            ))
        }
        (_, "compact") => {
            let mut options = CompactDecimalFormatterOptions::default();
            options.grouping_strategy = Some(grouping);
            let made = if long {
                CompactDecimalFormatter::try_new_long(locale.into(), options)
            } else {
                CompactDecimalFormatter::try_new_short(locale.into(), options)
            };
            Presenter::Compact(Box::new(made.map_err(|e| data_error("compact number", matched, e))?))
        }
        ("percent", _) => Presenter::Percent(Box::new(
            PercentFormatter::try_new_with_decimal_formatter(locale.into(), decimal()?, Default::default())
                .map_err(|e| data_error("percent", matched, e))?,
        )),
        _ => Presenter::Decimal(decimal()?),
    })
}
