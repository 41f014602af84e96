//! `Intl` and locale formatting where the engine has no Intl of its own (QuickJS, deno_core's
//! QuickJS facade): engine/src/intl/ behind runtime-js/intl.js. Expected texts are what V8 with
//! full ICU prints (U+202F is the narrow no-break space, U+00A0 the no-break space; V8 writes
//! a plain space before AM/PM, as this sandbox does).

use crate::common;

use common::value;
use serde_json::{json, Value};

/// The value a program returns, each entry of `exprs` evaluated (an error as `Name: message`).
async fn each(exprs: &[&str]) -> Vec<Value> {
    let body: Vec<String> = exprs.iter().map(|e| format!("t(() => {e});")).collect();
    let program = format!(
        "const out = []; const t = (f) => {{ try {{ out.push(f()); }} catch (e) {{ \
         out.push(e.name + ': ' + e.message); }} }};\n{}\nreturn out;",
        body.join("\n")
    );
    match value(&program).await {
        Some(Value::Array(out)) => out,
        other => panic!("the program returned {other:?}"),
    }
}

engine_test! {
    async fn numbers_group_as_each_locale_does() {
        assert_eq!(
            each(&[
                "(2212009.45).toLocaleString('de-DE', { maximumFractionDigits: 1 })",
                "(1234567.891).toLocaleString('fr-FR')",
                "(12345678).toLocaleString('en-IN')",
                "(1234.5).toLocaleString('en-US')",
                "(1234.5).toLocaleString()",
            ])
            .await,
            [
                json!("2.212.009,5"),
                json!("1\u{202f}234\u{202f}567,891"),
                json!("1,23,45,678"),
                json!("1,234.5"),
                json!("1,234.5"),
            ]
        );
    }
}

engine_test! {
    async fn currency_percent_and_compact_notation() {
        assert_eq!(
            each(&[
                "new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'JPY' }).format(123456.7)",
                "new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(-1234.5)",
                "new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(1234.5)",
                "new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR', currencyDisplay: 'code' }).format(3)",
                "new Intl.NumberFormat('en-US', { style: 'percent' }).format(0.256)",
                "(0.2567).toLocaleString('de-DE', { style: 'percent', maximumFractionDigits: 1 })",
                "new Intl.NumberFormat('en', { notation: 'compact' }).format(1234567)",
                "new Intl.NumberFormat('en', { notation: 'compact', compactDisplay: 'long' }).format(1234567)",
                "new Intl.NumberFormat('de', { notation: 'compact' }).format(1234567)",
            ])
            .await,
            [
                json!("\u{ffe5}123,457"),
                json!("-$1,234.50"),
                json!("1.234,50\u{a0}€"),
                json!("EUR\u{a0}3.00"),
                json!("26%"),
                json!("25,7\u{a0}%"),
                json!("1.2M"),
                json!("1.2 million"),
                json!("1,2\u{a0}Mio."),
            ]
        );
    }
}

engine_test! {
    async fn digit_sign_and_grouping_options() {
        assert_eq!(
            each(&[
                "new Intl.NumberFormat('en', { maximumSignificantDigits: 3 }).format(123456)",
                "new Intl.NumberFormat('en', { minimumSignificantDigits: 4 }).format(1.5)",
                "new Intl.NumberFormat('en', { minimumIntegerDigits: 3 }).format(7)",
                "new Intl.NumberFormat('en', { minimumFractionDigits: 2 }).format(1)",
                "new Intl.NumberFormat('en', { maximumFractionDigits: 0 }).format(2.5)",
                "new Intl.NumberFormat('en', { signDisplay: 'always' }).format(5)",
                "new Intl.NumberFormat('en', { signDisplay: 'exceptZero' }).format(0)",
                "new Intl.NumberFormat('en', { useGrouping: false }).format(12345)",
                "(12345678901234567890n).toLocaleString('de-DE')",
                "(-0).toLocaleString()",
                "(-Infinity).toLocaleString()",
                "NaN.toLocaleString()",
            ])
            .await,
            [
                json!("123,000"),
                json!("1.500"),
                json!("007"),
                json!("1.00"),
                json!("3"),
                json!("+5"),
                json!("0"),
                json!("12345"),
                json!("12.345.678.901.234.567.890"),
                json!("-0"),
                json!("-∞"),
                json!("NaN"),
            ]
        );
    }
}

engine_test! {
    async fn bad_options_throw_what_engines_throw() {
        let out = each(&[
            "(5).toLocaleString('en', { maximumFractionDigits: 200 })",
            "(5).toLocaleString('en', { minimumFractionDigits: 3, maximumFractionDigits: 1 })",
            "new Intl.NumberFormat('en', { style: 'currency' })",
            "new Intl.NumberFormat('en', { style: 'currency', currency: 'dollars' })",
            "new Intl.NumberFormat('en', { style: 'fancy' })",
            "new Intl.DateTimeFormat('en', { dateStyle: 'long', month: 'long' })",
            "new Date(NaN).toLocaleString()",
        ])
        .await;
        let text: Vec<&str> = out.iter().map(|v| v.as_str().unwrap()).collect();
        assert!(text[0].starts_with("RangeError: maximumFractionDigits value is out of range"), "{}", text[0]);
        assert!(text[1].starts_with("RangeError: maximumFractionDigits (1) is less than"), "{}", text[1]);
        assert_eq!(text[2], "TypeError: Currency code is required with currency style.");
        assert_eq!(text[3], "RangeError: Invalid currency code : dollars");
        assert!(text[4].starts_with("RangeError: Value fancy out of range for Intl options property style"), "{}", text[4]);
        assert!(text[5].starts_with("TypeError: Intl.DateTimeFormat: option month cannot be used with dateStyle"), "{}", text[5]);
        assert_eq!(text[6], "RangeError: Invalid time value");
    }
}

engine_test! {
    async fn arabic_in_egypt_uses_arabic_indic_digits() {
        assert_eq!(
            each(&[
                "new Intl.NumberFormat('ar-EG').format(1234.5)",
                "new Intl.NumberFormat('ar-EG').resolvedOptions().numberingSystem",
                "new Intl.NumberFormat('ar-EG-u-nu-latn').format(1234.5)",
            ])
            .await,
            [json!("١٬٢٣٤٫٥"), json!("arab"), json!("1,234.5")]
        );
    }
}

engine_test! {
    async fn an_abbreviated_weekday_is_bracketed_after_a_japanese_or_korean_day() {
        let d = "Date.UTC(2026, 10, 1, 3)";
        let opts = "{ timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric', weekday: 'short' }";
        let exprs = [
            format!("new Intl.DateTimeFormat('ja-JP', {opts}).format({d})"),
            format!("new Date({d}).toLocaleDateString('ja-JP', {{ timeZone: 'UTC', month: 'short', day: 'numeric', weekday: 'short' }})"),
            format!("new Intl.DateTimeFormat('ko-KR', {opts}).format({d})"),
            format!("new Intl.DateTimeFormat('ko-KR', {{ timeZone: 'UTC', month: 'short', day: 'numeric', weekday: 'short' }}).format({d})"),
            format!("new Intl.DateTimeFormat('ja-JP', {{ timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric', weekday: 'long' }}).format({d})"),
        ];
        let exprs: Vec<&str> = exprs.iter().map(String::as_str).collect();
        // What V8 prints (CLDR's yMMMEd and MMMEd; Korean's yMMMMEd has no parentheses).
        assert_eq!(
            each(&exprs).await,
            [
                json!("2026年11月1日(日)"),
                json!("11月1日(日)"),
                json!("2026년 11월 1일 일"),
                json!("11월 1일 (일)"),
                json!("2026年11月1日日曜日"),
            ]
        );
    }
}

engine_test! {
    async fn dates_with_options_in_utc_and_fixed_offsets() {
        let d = "Date.UTC(2026, 11, 2, 14, 5, 9)";
        let exprs = [
            format!("new Date({d}).toLocaleString('en-US')"),
            format!("new Date({d}).toLocaleString('de-DE')"),
            format!("new Date({d}).toLocaleDateString('en-GB')"),
            format!("new Date({d}).toLocaleTimeString('en-US')"),
            format!("new Date({d}).toLocaleDateString('en-US', {{ weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }})"),
            format!("new Date({d}).toLocaleDateString('fr-FR', {{ dateStyle: 'full' }})"),
            format!("new Intl.DateTimeFormat('ja-JP', {{ dateStyle: 'long', timeStyle: 'short' }}).format({d})"),
            format!("new Intl.DateTimeFormat('en-US', {{ hour: '2-digit', minute: '2-digit', hour12: false, timeZone: '+05:30' }}).format({d})"),
            format!("new Intl.DateTimeFormat('en-US', {{ month: 'short', day: 'numeric' }}).format({d})"),
            format!("new Date({d}).toLocaleString('en-US', {{ timeZone: 'UTC', timeStyle: 'long' }})"),
            "new Intl.DateTimeFormat().resolvedOptions().timeZone".to_owned(),
        ];
        let exprs: Vec<&str> = exprs.iter().map(String::as_str).collect();
        assert_eq!(
            each(&exprs).await,
            [
                json!("12/2/2026, 2:05:09 PM"),
                // V8 prints 2.12.2026 here (CLDR's yMd pattern); ICU4X's field sets give the
                // locale's medium numeric date.
                json!("2.12.2026, 14:05:09"),
                json!("02/12/2026"),
                json!("2:05:09 PM"),
                json!("Wednesday, December 2, 2026"),
                json!("mercredi 2 décembre 2026"),
                json!("2026年12月2日 14:05"),
                json!("19:35"),
                json!("Dec 2"),
                json!("2:05:09 PM UTC"),
                json!("UTC"),
            ]
        );
    }
}

engine_test! {
    async fn named_time_zones_come_from_the_bundled_database() {
        let winter = "Date.UTC(2026, 11, 2, 14, 5, 9)";
        let summer = "Date.UTC(2026, 6, 2, 14, 5, 9)";
        let exprs = [
            format!("new Date({winter}).toLocaleTimeString('de-DE', {{ timeZone: 'Europe/Berlin' }})"),
            format!("new Date({summer}).toLocaleTimeString('de-DE', {{ timeZone: 'Europe/Berlin' }})"),
            format!("new Date({winter}).toLocaleString('en-US', {{ timeZone: 'America/New_York' }})"),
            format!("new Intl.DateTimeFormat('ja-JP', {{ timeZone: 'Asia/Tokyo', hour: 'numeric', minute: 'numeric' }}).format({winter})"),
            "new Intl.DateTimeFormat('en', { timeZone: 'Asia/Kolkata' }).resolvedOptions().timeZone".to_owned(),
            "new Date(0).toLocaleString('en-US', { timeZone: 'Mars/Olympus_Mons' })".to_owned(),
        ];
        let exprs: Vec<&str> = exprs.iter().map(String::as_str).collect();
        let out = each(&exprs).await;
        assert_eq!(
            out[..5],
            [
                json!("15:05:09"),
                json!("16:05:09"),
                json!("12/2/2026, 9:05:09 AM"),
                json!("23:05"),
                json!("Asia/Kolkata"),
            ]
        );
        let text = out[5].as_str().unwrap();
        assert!(
            text.starts_with("RangeError: Intl.DateTimeFormat: invalid time zone \"Mars/Olympus_Mons\""),
            "{text}"
        );
    }
}

engine_test! {
    async fn plural_rules_in_en_ru_and_ar() {
        assert_eq!(
            each(&[
                "[1, 2].map((n) => new Intl.PluralRules('en').select(n)).join()",
                "[1, 2, 22, 3, 11].map((n) => new Intl.PluralRules('en', { type: 'ordinal' }).select(n)).join()",
                "[1, 3, 5, 21, 1.5].map((n) => new Intl.PluralRules('ru').select(n)).join()",
                "[0, 1, 2, 3, 11, 100].map((n) => new Intl.PluralRules('ar').select(n)).join()",
                "new Intl.PluralRules('en', { minimumFractionDigits: 1 }).select(1)",
                "new Intl.PluralRules('ru').resolvedOptions().pluralCategories.join()",
            ])
            .await,
            [
                json!("one,other"),
                json!("one,two,two,few,other"),
                json!("one,few,many,one,other"),
                json!("zero,one,two,few,many,other"),
                json!("other"),
                json!("one,few,many,other"),
            ]
        );
    }
}

engine_test! {
    async fn collators_sort_as_german_and_swedish_do() {
        assert_eq!(
            each(&[
                "['z', 'ä', 'a', 'o', 'ö'].sort(new Intl.Collator('de').compare).join('')",
                "['z', 'ä', 'a', 'o', 'ö'].sort(new Intl.Collator('sv').compare).join('')",
                "['z', 'ä', 'a', 'o', 'ö'].sort((x, y) => x.localeCompare(y, 'sv')).join('')",
                "['a10', 'a2', 'a1'].sort(new Intl.Collator('en', { numeric: true }).compare).join()",
                "'a'.localeCompare('B')",
                "'a'.localeCompare('A', 'en', { sensitivity: 'base' })",
                "'a'.localeCompare('á', 'en', { sensitivity: 'base' })",
                "'a'.localeCompare('á', 'en', { sensitivity: 'accent' })",
            ])
            .await,
            [
                json!("aäoöz"),
                json!("aozäö"),
                json!("aozäö"),
                json!("a1,a2,a10"),
                json!(-1),
                json!(0),
                json!(0),
                json!(-1),
            ]
        );
    }
}

engine_test! {
    async fn an_unsupported_locale_says_so() {
        let out = each(&[
            "(5).toLocaleString('xx-YY')",
            "new Intl.DateTimeFormat(['tlh', 'qq']).format(0)",
            "(5).toLocaleString('not a locale!')",
            "Intl.NumberFormat.supportedLocalesOf(['de-DE', 'xx-YY', 'tlh', 'sv'])",
            "Intl.getCanonicalLocales(['EN-us', 'de-de', 'en-US'])",
            "(5).toLocaleString(['xx', 'de-DE'], { minimumFractionDigits: 1 })",
        ])
        .await;
        let first = out[0].as_str().unwrap();
        assert!(
            first.starts_with("RangeError: Intl: locale \"xx-YY\" is not supported in this sandbox (supported: ar, ar-AE,"),
            "{first}"
        );
        assert!(first.ends_with("the default, when none is given, is en-US"), "{first}");
        let second = out[1].as_str().unwrap();
        assert!(second.starts_with("RangeError: Intl: locale \"tlh\", \"qq\" is not supported"), "{second}");
        assert_eq!(out[2], json!("RangeError: Incorrect locale information provided: \"not a locale!\""));
        assert_eq!(out[3], json!(["de-DE", "sv"]));
        assert_eq!(out[4], json!(["en-US", "de-DE"]));
        assert_eq!(out[5], json!("5,0"));
    }
}

engine_test! {
    async fn the_default_locale_is_en_us_and_says_so() {
        assert_eq!(
            each(&[
                "new Intl.NumberFormat().resolvedOptions().locale",
                "new Intl.DateTimeFormat().resolvedOptions().locale",
                "new Intl.Collator().resolvedOptions().locale",
                "Object.prototype.toString.call(Intl)",
                "typeof Intl.NumberFormat.prototype.resolvedOptions",
            ])
            .await,
            [json!("en-US"), json!("en-US"), json!("en-US"), json!("[object Intl]"), json!("function")]
        );
    }
}

engine_test! {
    async fn a_run_that_never_formats_does_not_load_intl() {
        // `Intl` is still the glue's accessor (the part is made only when it is read or a locale
        // method is called) and the locale methods are the glue's small forwarders.
        assert_eq!(
            value(
                "const d = Object.getOwnPropertyDescriptor(globalThis, 'Intl'); \
                 return [typeof d.get, (1).toLocaleString.length, 'toLocaleString' in Number.prototype]"
            )
            .await,
            Some(json!(["function", 0, true]))
        );
        assert_eq!(
            value("const f = Intl.NumberFormat; return typeof Object.getOwnPropertyDescriptor(globalThis, 'Intl').value").await,
            Some(json!("object"))
        );
    }
}

engine_test! {
    async fn formatting_after_a_program_patches_builtins_still_works() {
        assert_eq!(
            value(
                "JSON.stringify = () => 'x'; JSON.parse = null; WeakMap.prototype.get = null; \
                 Array.prototype[Symbol.iterator] = null; String.prototype.slice = null; \
                 const nf = new Intl.NumberFormat('de-DE'); \
                 return [nf.format(1234.5), nf.resolvedOptions().locale, (2).toLocaleString('fr-FR', { minimumFractionDigits: 1 })]"
            )
            .await,
            Some(json!(["1.234,5", "de-DE", "2,0"]))
        );
    }
}

engine_test! {
    async fn constructors_work_with_and_without_new() {
        assert_eq!(
            each(&[
                "Intl.NumberFormat('de-DE').format(1234.5)",
                "new Intl.NumberFormat('de-DE') instanceof Intl.NumberFormat",
                "Intl.DateTimeFormat('en-GB').format(0)",
                "[3, 1, 2].map(new Intl.NumberFormat('en', { minimumFractionDigits: 1 }).format).join(' ')",
                "Object.prototype.toString.call(new Intl.Collator())",
                "Intl.PluralRules.supportedLocalesOf('ru')",
            ])
            .await,
            [
                json!("1.234,5"),
                json!(true),
                json!("01/01/1970"),
                json!("3.0 1.0 2.0"),
                json!("[object Intl.Collator]"),
                json!(["ru"]),
            ]
        );
    }
}

engine_test! {
    async fn bad_list_and_relative_time_arguments_throw_naming_what_was_wrong() {
        assert_eq!(
            each(&[
                "new Intl.RelativeTimeFormat('en-US').format(1, 'fortnight')",
                "new Intl.ListFormat('en-US').format([1, 2])",
                "new Intl.RelativeTimeFormat('en-US').format(Infinity, 'day')",
                "new Intl.ListFormat('en-US', { type: 'both' })",
                "'i'.toLocaleUpperCase('not a locale!')",
            ])
            .await,
            [
                json!("RangeError: Invalid unit argument for format() 'fortnight' (one of: second, minute, hour, day, week, month, quarter, year, or their plurals)"),
                json!("TypeError: Intl.ListFormat: every element must be a string, not number"),
                json!("RangeError: Intl.RelativeTimeFormat: the value must be a finite number, not Infinity"),
                json!("RangeError: Value both out of range for Intl options property type (one of: conjunction, disjunction, unit)"),
                json!("RangeError: Incorrect locale information provided: \"not a locale!\""),
            ]
        );
    }
}

engine_test! {
    async fn intl_parts_this_sandbox_lacks_throw_saying_what_to_write_instead() {
        let out = each(&[
            "typeof Intl.Segmenter",
            "new Intl.Segmenter('en', { granularity: 'word' })",
            "new Intl.DisplayNames(['en'], { type: 'region' }).of('DE')",
            "new Intl.Locale('de-DE')",
        ])
        .await;
        assert_eq!(out[0], json!("function"));
        for (text, instead) in [
            (&out[1], "text.split(/\\s+/)"),
            (&out[2], "{ DE: \"Germany\""),
            (&out[3], "tag.split(\"-\")"),
        ] {
            let text = text.as_str().unwrap();
            assert!(
                text.starts_with("TypeError: Intl.") && text.contains("is not available in this sandbox") && text.contains(instead),
                "{text}"
            );
        }
    }
}
