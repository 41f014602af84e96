//! TypeScript SDK generation for ptc's code mode.
//!
//! In code mode a model calls tools by writing a TypeScript program (the
//! `run_code` tool). This crate writes what the model reads to do that:
//!
//! * [`declarations`] — the SDK itself: `JsonValue`, `ToolArgsMap`,
//!   `ToolOutputMap`, `ToolName`, `ToolCallError` and
//!   `declare const tools: { [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> }`,
//!   one entry per tool, sorted by name (byte order) and byte-identical for
//!   the same set of tools;
//! * [`sdk_section`] — guidance plus the declarations, for `both` mode;
//! * [`code_section`] — guidance plus the declarations, for `code` mode, where
//!   `run_code` is the model's only tool ([`code_only_guidance`] is its prose);
//! * [`RuntimeLimits`] — the numbers the guidance states;
//! * [`schema_to_ts`] and [`is_identifier`] — the building blocks.
//!
//! The guidance states the runtime contract in a few lines (program shape,
//! the result, failures, globals, limits) plus a five-line example.
//!
//! # Schema mapping
//!
//! | schema node | TypeScript |
//! |---|---|
//! | `string` / `number` / `integer` / `boolean` / `null` | `string` / `number` / `number` / `boolean` / `null` |
//! | `enum` / `const` | union of JSON-encoded literals (`"a" \| 1 \| null`) |
//! | `oneOf` / `anyOf` | `A \| B` (repeats dropped; an `unknown` branch makes it `unknown`) |
//! | a type array (`["string", "null"]`) | `string \| null` (each type with the node's other keywords) |
//! | `$ref` (`#`, `#/$defs/…`, `#/definitions/…`) | the target, inline; where a schema refers back to itself (recursion), a named alias the SDK declares (`type RefNode = { next?: RefNode };`; `JsonValue` from [`schema_to_ts`]); `JsonValue` past [`MAX_INLINED_REFS`] references |
//! | `array` | `T[]`, `(A \| B)[]`; without `items`: `JsonValue[]` |
//! | `object` with properties | `{ a: T; b?: U }` (required → not optional; non-identifier names JSON-quoted), followed by `& Record<string, JsonValue>` unless closed: `additionalProperties: false`, or, in a [`ToolDecl::closed`] tool's parameters, an object that does not say `additionalProperties: true` (the root, and every object with properties reached through properties and `items`, as the pipeline refuses unknown keys there) |
//! | `object` without properties | `Record<string, never>` when closed, `Record<string, JsonValue>` when open, `Record<string, T>` with `additionalProperties: T` (beside properties, a schema-valued `additionalProperties` leaves the object open) |
//! | no `type`/`oneOf`/`enum`/`const` (annotations only) | `JsonValue` |
//! | outside the enforced subset ([`ptc_schema::node_is_supported`]), not an object, or deeper than [`MAX_DEPTH`] | `unknown` |
//!
//! Property and tool descriptions become one-line `//` comments (at the end of
//! a one-line member, else on the line above); a property's constraints follow its
//! description as tags (`// How many. @minimum 1 @maximum 100 @default 10`: bounds,
//! lengths, `pattern`, `format`, item counts, `uniqueItems`, `default` and the first
//! of `examples`, from the node, its union branches and its `$ref` target). The text is kept literal:
//! only line breaks and invisible control characters collapse to spaces, so an
//! example such as `"**/*.ts"` reaches the model exactly as written.
//! Generation never panics, recurses at most [`MAX_DEPTH`] levels, and
//! produces output linear in the input.
//!
//! # Example
//!
//! ```
//! use ptc_sdk_gen::{declarations, ToolDecl};
//! use serde_json::json;
//!
//! let params = json!({
//!     "type": "object",
//!     "properties": {"text": {"type": "string"}},
//!     "required": ["text"]
//! });
//! let output = json!({"type": "string"});
//! let sdk = declarations(&[ToolDecl {
//!     name: "echo",
//!     description: "Echo the text back.",
//!     parameters: &params,
//!     output: &output,
//!     closed: true,
//! }]);
//! assert!(sdk.contains("\n// Echo the text back.\necho: { text: string };\n"));
//! assert!(sdk.contains("declare const tools: { [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> };"));
//! ```
#![warn(missing_docs)]

mod comment;
mod guidance;
mod names;
mod render;
mod sdk;

pub use comment::TAGGED as TAGGED_KEYWORDS;
pub use guidance::{thousands, RuntimeLimits};
pub use names::is_identifier;
pub use render::{schema_to_ts, MAX_DEPTH, MAX_INLINED_REFS};

/// One tool as the SDK declares it.
#[derive(Debug, Clone, Copy)]
pub struct ToolDecl<'a> {
    /// The tool's name; the key in `ToolArgsMap`/`ToolOutputMap`/`tools`.
    pub name: &'a str,
    /// Free text; becomes a one-line `//` comment above the tool's entry.
    pub description: &'a str,
    /// The parameters schema (enforced JSON Schema subset).
    pub parameters: &'a serde_json::Value,
    /// The output schema (enforced JSON Schema subset).
    pub output: &'a serde_json::Value,
    /// The tool refuses argument keys it does not declare: its argument type is closed at
    /// the top level (no `& Record<string, JsonValue>`) unless the parameters say
    /// `additionalProperties: true`.
    pub closed: bool,
}

/// The TypeScript declarations for `tools`.
///
/// Entries are sorted by name in byte order; the output is byte-identical
/// for the same set of tools, whatever their order in `tools`. A tool named
/// `run_code` is skipped: programs never get a binding for it. When a name
/// occurs more than once only one entry is kept (the same one whatever the
/// input order). With no tools the output is still valid TypeScript and
/// `ToolName` is `never`. Never panics.
pub fn declarations(tools: &[ToolDecl<'_>]) -> String {
    sdk::declarations(tools)
}

/// The section used in `both` mode: the runtime contract of `run_code`
/// programs under `limits`, an example, and the [`declarations`] in a fenced
/// `ts` block.
pub fn sdk_section(tools: &[ToolDecl<'_>], limits: &RuntimeLimits) -> String {
    guidance::sdk_section(tools, limits)
}

/// The section used in `code` mode, where the model sees only `run_code`:
/// [`code_only_guidance`] followed by the [`declarations`] in a fenced `ts`
/// block.
pub fn code_section(tools: &[ToolDecl<'_>], limits: &RuntimeLimits) -> String {
    guidance::code_section(tools, limits)
}

/// The prose of [`code_section`]: `run_code` is the only tool, the runtime
/// contract under `limits`, and an example. It refers to the declarations that
/// [`code_section`] puts after it.
pub fn code_only_guidance(limits: &RuntimeLimits) -> String {
    guidance::code_only_guidance(limits)
}
