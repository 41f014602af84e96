//! Which locales programs may ask for, and how a request is matched (ECMA-402's "lookup", with
//! no silent fallback: a request none of whose locales is supported is a `RangeError`).

use icu_locale::Locale;
use serde_json::Value;

use super::options::IntlError;

/// The sandbox's default locale: what `Intl` uses when a program names none.
pub(crate) const DEFAULT_LOCALE: &str = "en-US";

/// The locales a program may name (language, or language-region, or language-script): the most
/// used ones, each with its own CLDR data in ICU4X (a region's data falls back to its
/// language's where CLDR has nothing more specific, as CLDR means it to).
pub(crate) const SUPPORTED: &[&str] = &[
    "ar", "ar-AE", "ar-EG", "ar-SA", "bn", "bn-IN", "cs", "cs-CZ", "da", "da-DK", "de", "de-AT",
    "de-CH", "de-DE", "el", "el-GR", "en", "en-AU", "en-CA", "en-GB", "en-IE", "en-IN", "en-NZ",
    "en-SG", "en-US", "en-ZA", "es", "es-AR", "es-ES", "es-MX", "es-US", "fa", "fa-IR", "fi",
    "fi-FI", "fr", "fr-BE", "fr-CA", "fr-CH", "fr-FR", "he", "he-IL", "hi", "hi-IN", "hu", "hu-HU",
    "id", "id-ID", "it", "it-CH", "it-IT", "ja", "ja-JP", "ko", "ko-KR", "ms", "ms-MY", "nb",
    "nb-NO", "nl", "nl-BE", "nl-NL", "no", "pl", "pl-PL", "pt", "pt-BR", "pt-PT", "ro", "ro-RO",
    "ru", "ru-RU", "sk", "sk-SK", "sv", "sv-SE", "th", "th-TH", "tr", "tr-TR", "uk", "uk-UA", "vi",
    "vi-VN", "zh", "zh-CN", "zh-Hans", "zh-Hant", "zh-HK", "zh-SG", "zh-TW",
];

/// A matched locale: what ICU4X formats with (the request, extensions and all) and the tag
/// `resolvedOptions().locale` reports.
pub(crate) struct Matched {
    /// The requested locale, with any Unicode extensions (`-u-nu-latn`, `-u-hc-h23`).
    pub(crate) locale: Locale,
    /// The supported tag it matched.
    pub(crate) tag: String,
}

/// The row of a locale table for `tag`: its own, else its language's (a table leaves out a
/// region's row where it equals its language's).
pub(crate) fn row<'a, T>(table: &'a [(&str, T)], tag: &str) -> Option<&'a T> {
    let language = tag.split('-').next().unwrap_or(tag);
    let find = |wanted: &str| table.iter().find(|(t, _)| *t == wanted).map(|(_, row)| row);
    find(tag).or_else(|| find(language))
}

/// The requested tags of a `locales` argument (absent: none), each checked and canonical.
pub(crate) fn requested(locales: &Value) -> Result<Vec<Locale>, IntlError> {
    let tags: Vec<&Value> = match locales {
        Value::Null => Vec::new(),
        Value::Array(list) => list.iter().collect(),
        one => vec![one],
    };
    tags.into_iter()
        .map(|tag| {
            let Value::String(tag) = tag else {
                return Err(IntlError::type_error(format!(
                    "a locale must be a string such as \"de-DE\", not {tag}"
                )));
            };
            Locale::try_from_str(tag).map_err(|_| {
                IntlError::range(format!("Incorrect locale information provided: {tag:?}"))
            })
        })
        .collect()
}

/// The supported tag a locale matches (its extensions left out), if any.
fn supported_tag(locale: &Locale) -> Option<&'static str> {
    let base = locale.id.to_string();
    SUPPORTED.iter().copied().find(|tag| *tag == base)
}

/// The locale a formatter uses: the first requested one that is supported, or the default when
/// none is requested; a `RangeError` naming them when none is supported.
pub(crate) fn resolve(locales: &Value) -> Result<Matched, IntlError> {
    let requested = requested(locales)?;
    if requested.is_empty() {
        let locale = Locale::try_from_str(DEFAULT_LOCALE).expect("the default locale parses");
        return Ok(Matched {
            locale,
            tag: DEFAULT_LOCALE.to_owned(),
        });
    }
    for locale in &requested {
        if let Some(tag) = supported_tag(locale) {
            return Ok(Matched {
                locale: locale.clone(),
                tag: tag.to_owned(),
            });
        }
    }
    let asked: Vec<String> = requested
        .iter()
        .map(|l| format!("{:?}", l.to_string()))
        .collect();
    Err(IntlError::range(format!(
        "Intl: locale {} is not supported in this sandbox (supported: {}); the default, when \
         none is given, is {DEFAULT_LOCALE}",
        asked.join(", "),
        SUPPORTED.join(", ")
    )))
}

/// `Intl.getCanonicalLocales(locales)` as JSON.
pub(crate) fn canonical_json(locales: &str) -> Result<String, IntlError> {
    let locales = parse(locales)?;
    let mut tags: Vec<String> = Vec::new();
    for locale in requested(&locales)? {
        let tag = locale.to_string();
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    Ok(Value::from(tags).to_string())
}

/// `supportedLocalesOf(locales)` as JSON: the requested tags this sandbox formats with.
pub(crate) fn supported_json(locales: &str) -> Result<String, IntlError> {
    let locales = parse(locales)?;
    let mut tags: Vec<String> = Vec::new();
    for locale in requested(&locales)? {
        let tag = locale.to_string();
        if supported_tag(&locale).is_some() && !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    Ok(Value::from(tags).to_string())
}

fn parse(locales: &str) -> Result<Value, IntlError> {
    serde_json::from_str(locales)
        .map_err(|e| IntlError::type_error(format!("Intl: unreadable locales ({e})")))
}
