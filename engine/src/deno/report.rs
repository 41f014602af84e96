//! What a deno_core sandbox reports about a run: uncaught errors and syntax errors as
//! diagnostics pointing at the program as written, and the calls it left behind.

use deno_core::v8;

use super::sandbox::Helpers;
use crate::{
    diagnostic::{self, Described, Source},
    left::{parse_site, Left, LeftBehind},
    FailureKind, RunFailure,
};

/// The diagnostic of an uncaught `reason` (see [`diagnostic::exception`]).
pub(super) fn describe<'s>(
    tc: &mut v8::PinScope<'s, '_>,
    helpers: &Helpers,
    reason: v8::Local<'s, v8::Value>,
    source: &Source<'_>,
) -> String {
    let describe = v8::Local::new(tc, &helpers.describe_error);
    let recv = v8::undefined(tc).into();
    let described = describe
        .call(tc, recv, &[reason])
        .map(|text| text.to_rust_string_lossy(tc))
        .and_then(|json| serde_json::from_str::<Described>(&json).ok())
        .unwrap_or_else(|| Described {
            message: "an exception that could not be described".into(),
            ..Default::default()
        });
    diagnostic::exception(&described, source)
}

/// The `message` property of an error (or the value as a string).
pub(super) fn message_of<'s>(
    tc: &mut v8::PinScope<'s, '_>,
    error: v8::Local<'s, v8::Value>,
) -> String {
    let message = error.to_object(tc).and_then(|object| {
        let key = v8::String::new(tc, "message")?;
        object.get(tc, key.into())
    });
    match message {
        Some(message) if !message.is_undefined() => message.to_rust_string_lossy(tc),
        _ => error.to_rust_string_lossy(tc),
    }
}

/// A caught exception as text (`None`: execution was terminated).
pub(super) fn caught<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    exception: Option<v8::Local<'s, v8::Value>>,
) -> String {
    match exception {
        Some(exception) => exception.to_rust_string_lossy(scope),
        None => "execution was terminated".into(),
    }
}

/// The syntax failure for a compile error and its message (which holds the position; the
/// script's line offset makes it the program's own).
pub(super) fn syntax_failure<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    exception: Option<v8::Local<'s, v8::Value>>,
    message: Option<v8::Local<'s, v8::Message>>,
    source: &Source<'_>,
) -> RunFailure {
    let text = caught(scope, exception);
    let message_text = text.strip_prefix("SyntaxError: ").unwrap_or(&text);
    let (line, col) = match message {
        Some(m) => (
            m.get_line_number(scope).unwrap_or(1).max(1),
            m.get_start_column() + 1,
        ),
        None => (1, 1),
    };
    RunFailure::new(
        FailureKind::Syntax,
        diagnostic::syntax(line, col, message_text, source, false),
    )
}

/// The calls the program left behind, as the adapter (`runtime-js/deno.js`) kept them.
pub(super) fn left_behind<'s>(tc: &mut v8::PinScope<'s, '_>, helpers: &Helpers) -> Vec<LeftBehind> {
    #[derive(serde::Deserialize)]
    struct Kept {
        #[serde(default)]
        tool: String,
        #[serde(default)]
        site: String,
        failed: Option<String>,
        rejected: Option<String>,
    }
    let left = v8::Local::new(tc, &helpers.left_behind);
    let recv = v8::undefined(tc).into();
    let Some(json) = left.call(tc, recv, &[]).map(|t| t.to_rust_string_lossy(tc)) else {
        return Vec::new();
    };
    let kept: Vec<Kept> = serde_json::from_str(&json).unwrap_or_default();
    kept.into_iter()
        .map(|k| match k.rejected {
            Some(reason) => LeftBehind::rejection(reason),
            None => LeftBehind {
                tool: k.tool,
                site: parse_site(&k.site),
                left: k.failed.map_or(Left::Pending, Left::Failed),
                subject: None,
            },
        })
        .collect()
}
