//! `Intl` against V8's: every expression of engine/tests/intl_v8/golden.json (dates in the
//! twelve most asked locales with each option set a model uses, list and relative-time formats,
//! locale casing) gives V8's text, or the recorded `ptc` text where ICU4X's data cannot match
//! (each with its reason). `node engine/tests/intl_v8/golden.mjs` rewrites the table and
//! compares a `ptc` binary with Node live.

use crate::common;

use common::value;
use serde_json::Value;

const GOLDEN: &str = include_str!("../intl_v8/golden.json");

/// The same prelude golden.mjs gives each expression.
const PRELUDE: &str = "const d = new Date(Date.UTC(2025, 0, 5, 14, 7, 9, 45)); \
                       const j = new Date(Date.UTC(2025, 6, 14, 9, 5, 3));";

engine_test! {
    async fn every_expression_formats_as_v8_or_as_its_recorded_difference() {
        let table: Vec<Value> = serde_json::from_str(GOLDEN).expect("golden.json parses");
        let body: Vec<String> = table
            .iter()
            .map(|e| format!("t(() => {});", e["expr"].as_str().expect("expr")))
            .collect();
        let program = format!(
            "{PRELUDE}\nconst out = []; const t = (f) => {{ try {{ out.push(String(f())); }} \
             catch (e) {{ out.push(e.name + ': ' + e.message); }} }};\n{}\nreturn out;",
            body.join("\n")
        );
        let Some(Value::Array(got)) = value(&program).await else {
            panic!("the table's program did not return a list");
        };
        let wrong: Vec<String> = table
            .iter()
            .zip(&got)
            .filter_map(|(entry, got)| {
                let want = entry.get("ptc").unwrap_or(&entry["v8"]);
                (got != want).then(|| format!("{}\n  want {want}\n  got  {got}", entry["expr"]))
            })
            .collect();
        assert!(wrong.is_empty(), "{} of {} differ:\n{}", wrong.len(), table.len(), wrong.join("\n"));
    }
}
