//! `String.prototype.toLocaleUpperCase` / `toLocaleLowerCase`: Unicode's full case mapping with
//! the language-specific rules (Turkish and Azerbaijani dotted/dotless i, Lithuanian dot above,
//! Greek) from ICU4X's casemap data. As in V8, any well-formed locale is accepted: only its
//! language matters.

use icu_casemap::CaseMapper;
use icu_locale::LanguageIdentifier;

use super::{locale, options::IntlError};

/// `text` upper- (or lower-) cased for the first of `locales` (JSON: null, a tag, or a list).
pub(crate) fn map(upper: bool, locales: &str, text: &str) -> Result<String, IntlError> {
    let locales = serde_json::from_str(locales)
        .map_err(|e| IntlError::type_error(format!("Intl: unreadable locales ({e})")))?;
    let language = match locale::requested(&locales)?.first() {
        Some(first) => LanguageIdentifier::from(first.id.language),
        None => LanguageIdentifier::UNKNOWN,
    };
    let mapper = CaseMapper::new();
    Ok(if upper {
        mapper.uppercase_to_string(text, &language)
    } else {
        mapper.lowercase_to_string(text, &language)
    }
    .into_owned())
}
