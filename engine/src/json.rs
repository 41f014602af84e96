//! JSON text ⇄ `serde_json::Value` without recursion limits or stack overflows (see
//! [`ptc_schema::value`]), with the messages the engine reports.

#[cfg(any(feature = "quickjs", feature = "v8", feature = "deno-quickjs"))]
pub(crate) use ptc_schema::value::{drop_deep, to_string_unbounded as to_string};

/// Parse JSON text of any nesting depth.
pub(crate) fn parse(text: &str) -> Result<serde_json::Value, String> {
    ptc_schema::value::parse_unbounded(text).map_err(|e| e.to_string())
}
