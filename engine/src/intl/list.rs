//! `Intl.ListFormat`: "a, b, and c" in each locale's words (ICU4X's list patterns), as text or
//! parts.

use icu_list::{
    options::{ListFormatterOptions, ListLength},
    ListFormatter, ListFormatterPreferences,
};
use serde_json::{json, Value};

use super::{
    locale,
    options::{IntlError, Spec},
    parts,
};

/// A built `Intl.ListFormat`.
pub(crate) struct ListFormat {
    /// `resolvedOptions()` as JSON.
    pub(crate) resolved: String,
    formatter: ListFormatter,
}

impl ListFormat {
    /// Build the formatter a spec describes (`type`: conjunction, disjunction or unit; `style`:
    /// long, short or narrow).
    pub(crate) fn new(spec_text: &str) -> Result<ListFormat, IntlError> {
        let spec = Spec::parse(spec_text)?;
        let matched = locale::resolve(&spec.locales)?;
        let kind = spec
            .choice("type", &["conjunction", "disjunction", "unit"])?
            .unwrap_or("conjunction");
        let style = spec
            .choice("style", &["long", "short", "narrow"])?
            .unwrap_or("long");
        let length = match style {
            "short" => ListLength::Short,
            "narrow" => ListLength::Narrow,
            _ => ListLength::Wide,
        };
        let prefs = ListFormatterPreferences::from(&matched.locale);
        let options = ListFormatterOptions::default().with_length(length);
        let formatter = match kind {
            "disjunction" => ListFormatter::try_new_or(prefs, options),
            "unit" => ListFormatter::try_new_unit(prefs, options),
            _ => ListFormatter::try_new_and(prefs, options),
        }
        .map_err(|e| {
            IntlError::range(format!(
                "Intl: no list data for locale {:?} ({e})",
                matched.tag
            ))
        })?;
        let resolved = json!({ "locale": matched.tag, "type": kind, "style": style });
        Ok(ListFormat {
            resolved: resolved.to_string(),
            formatter,
        })
    }

    /// The list (JSON array of strings) as text, or as parts' JSON.
    pub(crate) fn format(&self, list: &str, as_parts: bool) -> Result<String, IntlError> {
        let items: Vec<String> = match serde_json::from_str(list) {
            Ok(Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    other => Err(IntlError::type_error(format!(
                        "Intl.ListFormat: every element must be a string, not {other}"
                    ))),
                })
                .collect::<Result<_, _>>()?,
            _ => {
                return Err(IntlError::type_error(
                    "Intl.ListFormat: expected a list of strings",
                ))
            }
        };
        let formatted = self.formatter.format(items.iter().map(String::as_str));
        Ok(if as_parts {
            parts::json(&formatted)
        } else {
            formatted.to_string()
        })
    }
}
