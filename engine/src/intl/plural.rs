//! `Intl.PluralRules`: CLDR's plural categories (cardinal and ordinal) of a number rounded as
//! the digit options say.

use icu_plurals::{PluralCategory, PluralRules};
use serde_json::{Map, Value};

use super::{
    cldr48,
    digits::{parse_number, Digits, Parsed},
    locale,
    number::data_error,
    options::{IntlError, Spec},
};

/// A built `Intl.PluralRules`.
pub(crate) struct PluralSelector {
    /// `resolvedOptions()` as JSON.
    pub(crate) resolved: String,
    rules: PluralRules,
    digits: Digits,
    /// CLDR 48's rules are `other` alone where ICU4X's (CLDR 49) have more.
    other_only: bool,
}

/// CLDR's name of a plural category.
pub(crate) fn category_name(category: PluralCategory) -> &'static str {
    match category {
        PluralCategory::Zero => "zero",
        PluralCategory::One => "one",
        PluralCategory::Two => "two",
        PluralCategory::Few => "few",
        PluralCategory::Many => "many",
        PluralCategory::Other => "other",
    }
}

impl PluralSelector {
    /// Build the rules a spec describes (`type`: cardinal or ordinal, and the digit options).
    pub(crate) fn new(spec: &str) -> Result<PluralSelector, IntlError> {
        let spec = Spec::parse(spec)?;
        let matched = locale::resolve(&spec.locales)?;
        let kind = spec
            .choice("type", &["cardinal", "ordinal"])?
            .unwrap_or("cardinal");
        let digits = Digits::read(&spec, 0, 3)?;
        let made = if kind == "ordinal" {
            PluralRules::try_new_ordinal((&matched.locale).into())
        } else {
            PluralRules::try_new_cardinal((&matched.locale).into())
        };
        let rules = made.map_err(|e| data_error("plural", &matched, e))?;
        let mut resolved = Map::new();
        resolved.insert("locale".into(), matched.tag.clone().into());
        resolved.insert("type".into(), kind.into());
        digits.resolve_into(&mut resolved);
        let other_only = cldr48::other_only(matched.locale.id.language.as_str(), kind == "ordinal");
        let categories: Vec<&str> = match other_only {
            true => vec!["other"],
            false => rules.categories().map(category_name).collect(),
        };
        resolved.insert("pluralCategories".into(), categories.into());
        resolved.insert("roundingMode".into(), "halfExpand".into());
        Ok(PluralSelector {
            resolved: Value::Object(resolved).to_string(),
            rules,
            digits,
            other_only,
        })
    }

    /// `select(n)`: the category's name.
    pub(crate) fn select(&self, value: &str) -> Result<&'static str, IntlError> {
        let mut value = match parse_number(value)? {
            Parsed::Finite(value) => value,
            Parsed::NaN | Parsed::Infinite { .. } => return Ok("other"),
        };
        if self.other_only {
            return Ok("other");
        }
        self.digits.apply(&mut value);
        Ok(category_name(self.rules.category_for(&value)))
    }
}
