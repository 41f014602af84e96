//! The common currencies CLDR 48 (V8's, through ICU 78) writes as their ISO code where ICU4X's
//! data (CLDR 49) has a symbol: `5 JPY` in fr, not `5 JP¥`; `5,00 USD` in it, not `5,00 US$`;
//! `CHF 5.00` for CHF's narrow symbol everywhere, not `Fr. 5.00`. Such a currency is formatted
//! with ICU4X's code display. Written by `engine/tests/intl_v8/tables.mjs currencies` from Node's
//! ICU, for the currencies it lists.

/// `(currency, narrow, every locale but, locales)`: where CLDR 48 writes the currency as its ISO
/// code for `currencyDisplay: "symbol"` (narrow: `"narrowSymbol"`): in the locales listed, or
/// (every locale but) in each supported locale but those.
const AS_CODE: &[(&str, bool, bool, &[&str])] = &[
    (
        "USD",
        false,
        false,
        &[
            "en-AU", "es-MX", "hu", "hu-HU", "it", "it-CH", "it-IT", "ms", "ms-MY", "nb", "nb-NO",
            "no", "pl", "pl-PL", "ro", "ro-RO", "sk", "sk-SK", "uk", "uk-UA",
        ],
    ),
    (
        "EUR",
        false,
        false,
        &[
            "de-CH", "en-AU", "es-AR", "es-MX", "es-US", "hu", "hu-HU", "ro", "ro-RO", "uk",
            "uk-UA",
        ],
    ),
    (
        "GBP",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "hu", "hu-HU", "pl", "pl-PL", "ro",
            "ro-RO", "sk", "sk-SK", "sv", "sv-SE", "uk", "uk-UA",
        ],
    ),
    (
        "JPY",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "fr", "fr-BE", "fr-CH", "fr-FR", "it",
            "it-CH", "it-IT", "nb", "nb-NO", "no", "pl", "pl-PL", "ro", "ro-RO", "sk", "sk-SK",
            "sv", "sv-SE",
        ],
    ),
    (
        "CNY",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI", "fr", "fr-BE",
            "fr-CH", "fr-FR", "hu", "hu-HU", "nb", "nb-NO", "no", "pl", "pl-PL", "ro", "ro-RO",
            "sk", "sk-SK", "sv", "sv-SE", "uk", "uk-UA",
        ],
    ),
    ("CHF", false, true, &[]),
    (
        "INR",
        false,
        false,
        &[
            "cs", "cs-CZ", "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI",
            "fr-CA", "hu", "hu-HU", "it", "it-CH", "it-IT", "nb", "nb-NO", "no", "pl", "pl-PL",
            "ro", "ro-RO", "sk", "sk-SK", "sv", "sv-SE", "uk", "uk-UA",
        ],
    ),
    (
        "CAD",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI", "hu", "hu-HU", "ms",
            "ms-MY", "nb", "nb-NO", "no", "pl", "pl-PL", "ro", "ro-RO", "sk", "sk-SK", "uk",
            "uk-UA",
        ],
    ),
    (
        "AUD",
        false,
        false,
        &[
            "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI", "hu", "hu-HU", "nb", "nb-NO",
            "no", "pl", "pl-PL", "ro", "ro-RO", "sk", "sk-SK", "sv", "sv-SE", "uk", "uk-UA",
        ],
    ),
    (
        "KRW",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI", "fr-CA", "hu",
            "hu-HU", "it", "it-CH", "it-IT", "nb", "nb-NO", "no", "pl", "pl-PL", "ro", "ro-RO",
            "sk", "sk-SK", "sv", "sv-SE", "uk", "uk-UA",
        ],
    ),
    (
        "BRL",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI", "hu", "hu-HU", "it",
            "it-CH", "it-IT", "nb", "nb-NO", "no", "ro", "ro-RO", "sk", "sk-SK", "uk", "uk-UA",
        ],
    ),
    (
        "MXN",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-US", "fi", "fi-FI", "fr-CA", "hu", "hu-HU", "it",
            "it-CH", "it-IT", "ms", "ms-MY", "nb", "nb-NO", "no", "pl", "pl-PL", "ro", "ro-RO",
            "uk", "uk-UA",
        ],
    ),
    ("RUB", false, true, &["ru", "ru-RU"]),
    ("SEK", false, true, &["sv", "sv-SE"]),
    ("NOK", false, true, &["nb", "nb-NO", "no", "sv", "sv-SE"]),
    ("DKK", false, true, &["da", "da-DK", "sv", "sv-SE"]),
    ("PLN", false, true, &["pl", "pl-PL"]),
    ("TRY", false, true, &["tr", "tr-TR"]),
    ("ZAR", false, true, &["en-ZA"]),
    (
        "SGD",
        false,
        true,
        &["en-SG", "fr", "fr-BE", "fr-CA", "fr-CH", "fr-FR", "zh-SG"],
    ),
    (
        "HKD",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI", "fr", "fr-BE",
            "fr-CH", "fr-FR", "hu", "hu-HU", "it", "it-CH", "it-IT", "nb", "nb-NO", "no", "pl",
            "pl-PL", "ro", "ro-RO", "sk", "sk-SK", "sv", "sv-SE", "uk", "uk-UA",
        ],
    ),
    (
        "NZD",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI", "hu", "hu-HU", "nb",
            "nb-NO", "no", "pl", "pl-PL", "ro", "ro-RO", "sk", "sk-SK", "sv", "sv-SE", "uk",
            "uk-UA",
        ],
    ),
    (
        "ILS",
        false,
        false,
        &[
            "cs", "cs-CZ", "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI",
            "fr-CA", "hu", "hu-HU", "nb", "nb-NO", "no", "pl", "pl-PL", "ro", "ro-RO", "uk",
            "uk-UA",
        ],
    ),
    (
        "TWD",
        false,
        false,
        &[
            "en-AU", "es", "es-AR", "es-ES", "es-MX", "es-US", "fi", "fi-FI", "fr", "fr-BE",
            "fr-CA", "fr-CH", "fr-FR", "hu", "hu-HU", "it", "it-CH", "it-IT", "nb", "nb-NO", "no",
            "pl", "pl-PL", "ro", "ro-RO", "sk", "sk-SK", "sv", "sv-SE", "uk", "uk-UA",
        ],
    ),
    (
        "THB",
        false,
        true,
        &[
            "ar", "ar-AE", "ar-EG", "ar-SA", "bn", "bn-IN", "da", "da-DK", "de", "de-AT", "de-CH",
            "de-DE", "el", "el-GR", "es", "es-ES", "fa", "fa-IR", "he", "he-IL", "hi", "hi-IN",
            "id", "id-ID", "it", "it-CH", "it-IT", "nl", "nl-BE", "nl-NL", "pt", "pt-BR", "pt-PT",
            "ru", "ru-RU", "th", "th-TH", "tr", "tr-TR", "vi", "vi-VN",
        ],
    ),
    (
        "VND",
        false,
        false,
        &[
            "cs", "cs-CZ", "en-AU", "es-AR", "es-MX", "es-US", "fi", "fi-FI", "fr-CA", "hu",
            "hu-HU", "it", "it-CH", "it-IT", "nb", "nb-NO", "no", "pl", "pl-PL", "ro", "ro-RO",
            "sk", "sk-SK", "sv", "sv-SE", "uk", "uk-UA",
        ],
    ),
    (
        "PHP",
        false,
        true,
        &[
            "en", "en-CA", "en-GB", "en-IE", "en-IN", "en-NZ", "en-SG", "en-US", "en-ZA", "it",
            "it-CH", "it-IT",
        ],
    ),
    ("IDR", false, true, &["id", "id-ID"]),
    ("CZK", false, true, &["cs", "cs-CZ"]),
    ("HUF", false, true, &["hu", "hu-HU"]),
    ("AED", false, true, &["ar", "ar-AE", "ar-EG", "ar-SA"]),
    ("SAR", false, true, &["ar", "ar-AE", "ar-EG", "ar-SA"]),
    ("EUR", true, false, &["de-CH"]),
    ("CNY", true, false, &["fi", "fi-FI"]),
    ("CHF", true, true, &[]),
    ("INR", true, false, &["fi", "fi-FI"]),
    ("CAD", true, false, &["fi", "fi-FI"]),
    ("AUD", true, false, &["fi", "fi-FI"]),
    ("KRW", true, false, &["fi", "fi-FI"]),
    ("BRL", true, false, &["fi", "fi-FI"]),
    ("MXN", true, false, &["fi", "fi-FI"]),
    ("SEK", true, false, &["fi", "fi-FI"]),
    ("NOK", true, false, &["fi", "fi-FI"]),
    ("DKK", true, false, &["fi", "fi-FI"]),
    ("PLN", true, false, &["fi", "fi-FI"]),
    ("TRY", true, false, &["fi", "fi-FI"]),
    ("ZAR", true, false, &["fi", "fi-FI"]),
    ("SGD", true, false, &["fi", "fi-FI"]),
    ("HKD", true, false, &["fi", "fi-FI"]),
    ("NZD", true, false, &["fi", "fi-FI"]),
    ("ILS", true, false, &["fi", "fi-FI"]),
    ("TWD", true, false, &["fi", "fi-FI"]),
    ("THB", true, false, &["fi", "fi-FI"]),
    ("VND", true, false, &["fi", "fi-FI"]),
    ("PHP", true, false, &["fi", "fi-FI"]),
    ("IDR", true, false, &["fi", "fi-FI"]),
    ("CZK", true, false, &["fi", "fi-FI"]),
    ("HUF", true, false, &["fi", "fi-FI"]),
    ("AED", true, true, &["ar", "ar-AE", "ar-EG", "ar-SA"]),
    ("SAR", true, true, &["ar", "ar-AE", "ar-EG", "ar-SA"]),
];

/// Whether `currency` shows as its ISO code in `tag` for `symbol` display (`narrow`:
/// `narrowSymbol`), as CLDR 48 writes it.
pub(crate) fn as_code(tag: &str, currency: &str, narrow: bool) -> bool {
    AS_CODE
        .iter()
        .find(|(code, n, _, _)| *code == currency && *n == narrow)
        .is_some_and(|(_, _, but, tags)| tags.contains(&tag) != *but)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_currency_is_its_code_where_cldr_48_lists_it_or_leaves_it_out() {
        assert!(as_code("fr-FR", "JPY", false));
        assert!(!as_code("ja-JP", "JPY", false));
        assert!(as_code("de-CH", "CHF", true));
        assert!(!as_code("ru-RU", "RUB", false));
        assert!(as_code("de-DE", "RUB", false));
        assert!(!as_code("en-US", "XYZ", false));
    }
}
