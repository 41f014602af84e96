//! `Intl.NumberFormat`: a number rounded by its digit options ([`Digits`]), formatted by ICU4X
//! (decimal, percent, currency, compact).

use fixed_decimal::{Decimal, SignDisplay};
use icu_decimal::{
    options::{CompactDecimalFormatterOptions, DecimalFormatterOptions, GroupingStrategy},
    CompactDecimalFormatter, DecimalFormatter,
};
use icu_experimental::dimension::{
    currency::{formatter::CurrencyFormatter, CurrencyType},
    percent::formatter::PercentFormatter,
};
use serde_json::{json, Map, Value};

use super::number_parts::{self, Adds};
use super::{
    cldr48, currencies,
    digits::{parse_number, Digits, Parsed},
    locale::{self, Matched},
    numbering,
    options::{IntlError, Spec},
    units::UnitFormat,
};

/// How numbers are presented: ECMA-402's `style` and `notation`.
enum Presenter {
    Decimal(DecimalFormatter),
    Percent(Box<PercentFormatter<DecimalFormatter>>),
    /// The currency's pattern, and the locale's digits for a number of the program's own
    /// fraction digits (ICU4X's currency formatter always rounds to the currency's).
    Currency(Box<(CurrencyFormatter<DecimalFormatter>, DecimalFormatter)>),
    CompactCurrency(Box<CurrencyFormatter<CompactDecimalFormatter>>),
    Compact(Box<CompactDecimalFormatter>),
    /// A unit's patterns ([`super::units`]).
    Unit(Box<UnitFormat>),
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
        let unit = spec.string("unit");
        let unit_display = spec
            .choice("unitDisplay", &["short", "long", "narrow"])?
            .unwrap_or("short");
        if style == "unit" && notation == "compact" {
            return Err(IntlError::range(
                "Intl.NumberFormat: compact notation with style \"unit\" is not supported in \
                 this sandbox (format the number compact and write the unit yourself)",
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
        let presenter = match style {
            "unit" => unit_presenter(&matched, unit.as_deref(), unit_display, grouping)?,
            _ => presenter(
                &matched,
                style,
                notation,
                compact_display,
                currency.as_deref(),
                currency_display,
                grouping,
            )?,
        };

        let mut resolved = Map::new();
        resolved.insert("locale".into(), matched.tag.clone().into());
        resolved.insert("numberingSystem".into(), numbering.clone().into());
        resolved.insert("style".into(), style.into());
        if let (Some(unit), "unit") = (&unit, style) {
            resolved.insert("unit".into(), unit.clone().into());
            resolved.insert("unitDisplay".into(), unit_display.into());
        }
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

    /// One number as ECMA-402's parts, JSON ([`number_parts`]).
    pub(crate) fn parts(&self, value: &str) -> Result<String, IntlError> {
        let adds = match self.presenter {
            Presenter::Decimal(_) => Adds::Nothing,
            Presenter::Percent(_) => Adds::Percent,
            Presenter::Currency(_) => Adds::Currency,
            Presenter::CompactCurrency(_) | Presenter::Compact(_) => Adds::Compact,
            Presenter::Unit(_) => Adds::Unit,
        };
        let probe = match adds {
            Adds::Compact => "1.25",
            _ => "1234567.125",
        };
        Ok(number_parts::json(
            &self.format(value)?,
            &self.format(probe)?,
            adds,
        ))
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
            Presenter::Unit(f) => f.format(&value),
        };
        let text = match &self.presenter {
            Presenter::Percent(_) => cldr48::percent_sign(&self.numbering, text),
            _ if self.by_name => cldr48::name_glue(&self.tag, text),
            Presenter::Currency(_) => cldr48::currency_spacing(text, false),
            Presenter::CompactCurrency(_) => cldr48::currency_spacing(text, true),
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

/// The formatting of `unit` in `width`, with the locale's digits and (CLDR 48's) plural rules.
fn unit_presenter(
    matched: &Matched,
    unit: Option<&str>,
    width: &str,
    grouping: GroupingStrategy,
) -> Result<Presenter, IntlError> {
    let locale = &matched.locale;
    let decimal = DecimalFormatter::try_new(locale.into(), grouping.into())
        .map_err(|e| data_error("number", matched, e))?;
    let plurals = icu_plurals::PluralRules::try_new_cardinal(locale.into())
        .map_err(|e| data_error("plural", matched, e))?;
    let other_only = cldr48::other_only(locale.id.language.as_str(), false);
    let unit = UnitFormat::new(&matched.tag, unit, width, decimal, plurals, other_only)?;
    Ok(Presenter::Unit(Box::new(unit)))
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
                "symbol" | "narrowSymbol"
                    if currencies::as_code(&matched.tag, code, currency_display == "narrowSymbol") =>
                {
                    "code"
                }
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
