//! `Intl.Collator` and `String.prototype.localeCompare`: ICU4X's collation (the locale's
//! tailoring, e.g. Swedish å ä ö after z), with ECMA-402's `sensitivity`, `numeric`,
//! `caseFirst` and `ignorePunctuation`.

use icu_collator::{
    options::{AlternateHandling, CaseLevel, CollatorOptions, Strength},
    preferences::{CollationCaseFirst, CollationNumericOrdering},
    CollatorBorrowed, CollatorPreferences,
};
use serde_json::{Map, Value};

use super::{
    locale,
    options::{IntlError, Spec},
};

/// A built `Intl.Collator`.
pub(crate) struct Comparer {
    /// `resolvedOptions()` as JSON.
    pub(crate) resolved: String,
    collator: CollatorBorrowed<'static>,
}

impl Comparer {
    /// Build the collator a spec describes.
    pub(crate) fn new(spec: &str) -> Result<Comparer, IntlError> {
        let spec = Spec::parse(spec)?;
        let matched = locale::resolve(&spec.locales)?;
        let usage = spec.choice("usage", &["sort", "search"])?.unwrap_or("sort");
        let sensitivity = spec
            .choice("sensitivity", &["base", "accent", "case", "variant"])?
            .unwrap_or("variant");
        let ignore_punctuation = spec.boolean("ignorePunctuation").unwrap_or(false);
        let numeric = spec.boolean("numeric").unwrap_or(false);
        let case_first = spec
            .choice("caseFirst", &["upper", "lower", "false"])?
            .unwrap_or("false");
        let mut options = CollatorOptions::default();
        options.strength = Some(match sensitivity {
            "base" | "case" => Strength::Primary,
            "accent" => Strength::Secondary,
            _ => Strength::Tertiary,
        });
        if sensitivity == "case" {
            options.case_level = Some(CaseLevel::On);
        }
        if ignore_punctuation {
            options.alternate_handling = Some(AlternateHandling::Shifted);
        }
        let mut prefs = CollatorPreferences::from(&matched.locale);
        if numeric {
            prefs.numeric_ordering = Some(CollationNumericOrdering::True);
        }
        prefs.case_first = match case_first {
            "upper" => Some(CollationCaseFirst::Upper),
            "lower" => Some(CollationCaseFirst::Lower),
            _ => prefs.case_first,
        };
        let collator = CollatorBorrowed::try_new(prefs, options).map_err(|e| {
            IntlError::range(format!(
                "Intl: no collation data for locale {:?} ({e})",
                matched.tag
            ))
        })?;
        let mut resolved = Map::new();
        resolved.insert("locale".into(), matched.tag.clone().into());
        resolved.insert("usage".into(), usage.into());
        resolved.insert("sensitivity".into(), sensitivity.into());
        resolved.insert("ignorePunctuation".into(), ignore_punctuation.into());
        resolved.insert("collation".into(), "default".into());
        resolved.insert("numeric".into(), numeric.into());
        resolved.insert("caseFirst".into(), case_first.into());
        Ok(Comparer {
            resolved: Value::Object(resolved).to_string(),
            collator,
        })
    }

    /// `compare(a, b)`: -1, 0 or 1.
    pub(crate) fn compare(&self, a: &str, b: &str) -> i8 {
        self.collator.compare(a, b) as i8
    }
}
