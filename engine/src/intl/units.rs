//! `Intl.NumberFormat`'s `style: "unit"`: the number, formatted as for `decimal`, put into the
//! unit's pattern for the locale, width (`unitDisplay`) and the number's plural category.
//!
//! The patterns are CLDR 48's (V8's), read off Node's `Intl` into `units.txt` by
//! `engine/tests/intl_v8/tables.mjs units`: every single unit ECMA-402 sanctions and the
//! compound units a report most often shows (`kilometer-per-hour`, `megabyte-per-second`, …),
//! for every supported locale (ICU4X's own unit formatter knows a handful of units). A row is
//! `tag<TAB>unit<TAB>width<TAB>other|category=pattern|…` (`=s`: a narrow width written as the
//! short one); a region falls back to its language. The table (about 200 KB) is indexed on first
//! use.

use std::collections::HashMap;
use std::sync::OnceLock;

use fixed_decimal::Decimal;
use icu_decimal::DecimalFormatter;
use icu_plurals::PluralRules;

use super::options::IntlError;

/// The table.
const TABLE: &str = include_str!("units.txt");

/// ECMA-402's sanctioned single units (`IsSanctionedSingleUnitIdentifier`).
const SANCTIONED: [&str; 45] = [
    "acre",
    "bit",
    "byte",
    "celsius",
    "centimeter",
    "day",
    "degree",
    "fahrenheit",
    "fluid-ounce",
    "foot",
    "gallon",
    "gigabit",
    "gigabyte",
    "gram",
    "hectare",
    "hour",
    "inch",
    "kilobit",
    "kilobyte",
    "kilogram",
    "kilometer",
    "liter",
    "megabit",
    "megabyte",
    "meter",
    "microsecond",
    "mile",
    "mile-scandinavian",
    "milliliter",
    "millimeter",
    "millisecond",
    "minute",
    "month",
    "nanosecond",
    "ounce",
    "percent",
    "petabyte",
    "pound",
    "second",
    "stone",
    "terabit",
    "terabyte",
    "week",
    "yard",
    "year",
];

/// The rows of the table by tag, unit and width (`s`, `l`, `n`).
fn index() -> &'static HashMap<(&'static str, &'static str, &'static str), &'static str> {
    static INDEX: OnceLock<HashMap<(&str, &str, &str), &str>> = OnceLock::new();
    INDEX.get_or_init(|| {
        TABLE
            .lines()
            .filter_map(|line| {
                let mut fields = line.splitn(4, '\t');
                let key = (fields.next()?, fields.next()?, fields.next()?);
                Some((key, fields.next()?))
            })
            .collect()
    })
}

/// The patterns of `unit` for `tag`, as ECMA-402 checks the unit: `TypeError` without one,
/// `RangeError` for one it does not sanction, and for a sanctioned compound this sandbox has
/// no patterns of (saying which it has).
fn row(tag: &str, unit: Option<&str>, width: &str) -> Result<&'static str, IntlError> {
    let unit = unit.unwrap_or_default();
    let invalid = || format!("Invalid unit argument for Intl.NumberFormat() '{unit}'");
    if unit.is_empty() {
        return Err(IntlError::type_error(invalid()));
    }
    let sanctioned = match unit.split_once("-per-") {
        Some((a, b)) => SANCTIONED.contains(&a) && SANCTIONED.contains(&b),
        None => SANCTIONED.contains(&unit),
    };
    if !sanctioned {
        return Err(IntlError::range(invalid()));
    }
    let language = tag.split('-').next().unwrap_or(tag);
    let width = match width {
        "long" => "l",
        "narrow" => "n",
        _ => "s",
    };
    let index = index();
    let find = |width| {
        [tag, language]
            .into_iter()
            .find_map(|t| index.get(&(t, unit, width)))
    };
    let found = match find(width) {
        Some(&"=s") => find("s"),
        found => found,
    };
    found.copied().ok_or_else(|| {
        let mut compounds: Vec<&str> = index
            .keys()
            .filter(|(t, u, _)| *t == "en" && u.contains("-per-"))
            .map(|(_, u, _)| *u)
            .collect();
        compounds.sort_unstable();
        compounds.dedup();
        IntlError::range(format!(
            "Intl.NumberFormat: the compound unit \"{unit}\" is not supported in this sandbox \
             (every single unit is, and these compounds: {}); format the number and write the \
             unit yourself",
            compounds.join(", ")
        ))
    })
}

/// A unit's formatting: the locale's digits and plural rules, and the unit's patterns.
pub(crate) struct UnitFormat {
    decimal: DecimalFormatter,
    plurals: PluralRules,
    /// `other`'s pattern, then `category=pattern` for those that differ.
    patterns: &'static str,
    /// CLDR 48's plural rules are `other` alone where ICU4X's have more ([`super::cldr48`]).
    other_only: bool,
}

impl UnitFormat {
    /// The formatting of `unit` in `width` (`unitDisplay`) for the locale of `tag`, with
    /// `decimal`'s digits and `plurals`' categories.
    pub(crate) fn new(
        tag: &str,
        unit: Option<&str>,
        width: &str,
        decimal: DecimalFormatter,
        plurals: PluralRules,
        other_only: bool,
    ) -> Result<UnitFormat, IntlError> {
        Ok(UnitFormat {
            patterns: row(tag, unit, width)?,
            decimal,
            plurals,
            other_only,
        })
    }

    /// `value` (rounded and signed already) in the unit's pattern for its plural category.
    pub(crate) fn format(&self, value: &Decimal) -> String {
        let category = match self.other_only {
            true => "other",
            false => super::plural::category_name(self.plurals.category_for(value)),
        };
        let mut patterns = self.patterns.split('|');
        let other = patterns.next().unwrap_or("{0}");
        let pattern = patterns
            .filter_map(|p| p.split_once('='))
            .find(|(c, _)| *c == category)
            .map_or(other, |(_, p)| p);
        pattern.replace("{0}", &self.decimal.format(value).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_table_reads_and_holds_the_number_once_at_most() {
        for line in TABLE.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "{line}");
            assert!(["s", "l", "n"].contains(&fields[2]), "{line}");
            if fields[3] == "=s" {
                assert_eq!(fields[2], "n", "{line}");
                continue;
            }
            for pattern in fields[3].split('|') {
                let pattern = pattern.split_once('=').map_or(pattern, |(_, p)| p);
                assert!(pattern.matches("{0}").count() <= 1, "{line}");
            }
        }
    }

    #[test]
    fn a_unit_is_checked_as_ecma_402_says() {
        assert!(row("en", Some("kilometer"), "short").is_ok());
        assert!(row("de-AT", Some("kilometer-per-hour"), "narrow").is_ok());
        let message = |unit| match row("en", unit, "short") {
            Err(e) => format!("{}: {}", e.kind, e.message),
            Ok(_) => String::new(),
        };
        assert_eq!(
            message(None),
            "TypeError: Invalid unit argument for Intl.NumberFormat() ''"
        );
        assert!(message(Some("furlong")).starts_with("RangeError: Invalid unit argument"));
        assert!(message(Some("acre-per-byte")).contains("is not supported in this sandbox"));
    }
}
