//! Compiling a program in a QuickJS context: the body inside an async-function wrapper, with
//! every line and column the program's own.

use std::ffi::CString;

use rquickjs::{qjs, Ctx, Function, Value};

use crate::left::{first_site, parse_site};

/// The lines that open the wrapper around the program. They are numbered -1 and 0 (QuickJS treats a
/// starting line of 0 as "unset", hence the empty line), so the program's own lines and columns are
/// exact.
const WRAPPER_PREFIX: &str = "(async function () {\n\n";
/// The number QuickJS gives the first wrapper line.
const WRAPPER_FIRST_LINE: i32 = -1;
const WRAPPER_SUFFIX: &str = "\n})";

/// Why a program did not compile.
pub(super) enum Uncompiled {
    /// A syntax error at `line:col` of the program (1-based), with QuickJS's message.
    Syntax(usize, usize, String),
    /// Compiling raised something else (e.g. the run was stopped meanwhile).
    Other,
}

/// Compile `js` (the stripped body) as the async function the run calls.
pub(super) fn compile<'js>(
    ctx: &Ctx<'js>,
    js: &str,
    filename: &str,
) -> Result<Function<'js>, Uncompiled> {
    let mut source = String::with_capacity(WRAPPER_PREFIX.len() + js.len() + WRAPPER_SUFFIX.len());
    source.push_str(WRAPPER_PREFIX);
    source.push_str(js);
    source.push_str(WRAPPER_SUFFIX);
    let len = source.len();
    let source = CString::new(source)
        .map_err(|_| Uncompiled::Syntax(1, 1, "the program contains a NUL character".into()))?;
    let filename = CString::new(filename.replace('\0', "")).expect("NUL characters were removed");
    let mut options = qjs::JSEvalOptions {
        version: qjs::JS_EVAL_OPTIONS_VERSION as _,
        eval_flags: qjs::JS_EVAL_TYPE_GLOBAL as _,
        filename: filename.as_ptr(),
        line_num: WRAPPER_FIRST_LINE,
    };
    // SAFETY: `source` is NUL-terminated at `len` and outlives the call, as does `filename`
    // (referenced by `options`); the context pointer comes from a live `Ctx`, and the returned
    // value is owned and handed to `Value::from_raw` exactly once.
    let value = unsafe {
        let raw = qjs::JS_Eval2(
            ctx.as_raw().as_ptr(),
            source.as_ptr(),
            len as _,
            &mut options,
        );
        Value::from_raw(ctx.clone(), raw)
    };
    if value.is_exception() {
        let error = ctx.catch();
        let Some(exception) = error.as_exception() else {
            return Err(Uncompiled::Other);
        };
        let message = exception.message().unwrap_or_default();
        let stack = exception.stack().unwrap_or_default();
        let name = filename.to_string_lossy();
        let (line, col) = position(&stack, &name).unwrap_or((1, 1));
        return Err(Uncompiled::Syntax(line, col, message));
    }
    value
        .into_function()
        .ok_or_else(|| Uncompiled::Syntax(1, 1, "the program does not form a function body".into()))
}

/// The first `filename:line:col` in a stack text.
fn position(stack: &str, filename: &str) -> Option<(usize, usize)> {
    let (line, col) = parse_site(first_site(stack, filename))?;
    Some((line.max(1), col.max(1)))
}
