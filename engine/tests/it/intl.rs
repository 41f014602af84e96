//! `Intl` and locale formatting on engines without an Intl of their own (engine/src/intl/).

use crate::common;

use common::{failure, value};
use serde_json::json;

engine_test! {
    async fn explore() {
        let v = value(r#"
          const d = Date.UTC(2026, 11, 2, 14, 5, 9);
          const out = [];
          const t = (f) => { try { out.push(f()); } catch (e) { out.push(e.name + ': ' + e.message); } };
          t(() => (2212009.45).toLocaleString('de-DE', { maximumFractionDigits: 1 }));
          t(() => (1234567.891).toLocaleString('fr-FR'));
          t(() => (12345678).toLocaleString('en-IN'));
          t(() => new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'JPY' }).format(123456.7));
          t(() => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(-1234.5));
          t(() => new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(1234.5));
          t(() => new Intl.NumberFormat('en-US', { style: 'percent' }).format(0.256));
          t(() => new Intl.NumberFormat('de-DE', { style: 'percent', maximumFractionDigits: 1 }).format(0.2567));
          t(() => new Intl.NumberFormat('en', { notation: 'compact' }).format(1234567));
          t(() => new Intl.NumberFormat('en', { notation: 'compact', compactDisplay: 'long' }).format(1234567));
          t(() => new Intl.NumberFormat('ar-EG').format(1234.5));
          t(() => new Intl.NumberFormat('en', { maximumSignificantDigits: 3 }).format(123456));
          t(() => new Intl.NumberFormat('en', { minimumIntegerDigits: 3 }).format(7));
          t(() => new Intl.NumberFormat('en', { signDisplay: 'always' }).format(5));
          t(() => new Intl.NumberFormat('en', { useGrouping: false }).format(12345));
          t(() => (12345678901234567890n).toLocaleString('de-DE'));
          t(() => (1e21).toLocaleString());
          t(() => (-0).toLocaleString());
          t(() => new Date(d).toLocaleString('en-US', { timeZone: 'UTC' }));
          t(() => new Date(d).toLocaleString('de-DE'));
          t(() => new Date(d).toLocaleDateString('en-GB'));
          t(() => new Date(d).toLocaleTimeString('en-US'));
          t(() => new Date(d).toLocaleDateString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }));
          t(() => new Date(d).toLocaleDateString('fr-FR', { dateStyle: 'full' }));
          t(() => new Intl.DateTimeFormat('ja-JP', { dateStyle: 'long', timeStyle: 'short' }).format(d));
          t(() => new Intl.DateTimeFormat('en-US', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: '+05:30' }).format(d));
          t(() => new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin' }).format(d));
          t(() => new Intl.PluralRules('ru').select(3));
          t(() => new Intl.PluralRules('en', { type: 'ordinal' }).select(22));
          t(() => new Intl.PluralRules('ar').select(0));
          t(() => ['z', 'ä', 'a', 'o', 'ö'].sort(new Intl.Collator('de').compare).join(''));
          t(() => ['z', 'ä', 'a', 'o', 'ö'].sort(new Intl.Collator('sv').compare).join(''));
          t(() => ['a10', 'a2'].sort(new Intl.Collator('en', { numeric: true }).compare).join(','));
          t(() => 'a'.localeCompare('B'));
          t(() => 'a'.localeCompare('A', 'en', { sensitivity: 'base' }));
          t(() => (5).toLocaleString('xx-YY'));
          t(() => Intl.NumberFormat.supportedLocalesOf(['de-DE', 'xx-YY', 'tlh']));
          t(() => Intl.getCanonicalLocales(['EN-us', 'de-de']));
          t(() => JSON.stringify(new Intl.NumberFormat().resolvedOptions()));
          t(() => (5).toLocaleString('en', { maximumFractionDigits: 200 }));
          t(() => String(Intl));
          return out;
        "#).await;
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
        let _ = (failure, json!(1));
        panic!("explore");
    }
}
