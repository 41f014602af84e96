//! The glue in a QuickJS sandbox: compiled to bytecode once per process, loaded into each
//! fresh context, and set up with the run's host functions (see `runtime-js/glue.js`); its
//! lazily loaded parts likewise, each the first time a run asks for it.

use std::sync::OnceLock;

use rquickjs::{
    module::{Evaluated, WriteOptions},
    CatchResultExt, Context, Ctx, Exception, Function, Module, Object, Promise, Value,
};

use super::plain_json::PlainJson;
use crate::{FailureKind, RunFailure, GLUE_JS, GLUE_PARTS};

/// The module name the glue is compiled under (it shows in stack frames of glue code).
const GLUE_NAME: &str = "ptc:glue.js";

/// What the glue's setup returns, and the Rust reader for plain returned values.
pub(super) struct Glue<'js> {
    pub(super) result_reader: PlainJson,
    pub(super) encode_result: Function<'js>,
    pub(super) describe_error: Function<'js>,
    pub(super) tool_call_error: Function<'js>,
    /// `typedResult(key, value, shape?)`: a result typed by its tool's shape in place.
    pub(super) typed_result: Function<'js>,
    /// `flatProto(key)`: the prototype that alone types a tool's results, if any.
    pub(super) flat_proto: Function<'js>,
    /// `watch(value, fields, site, subject, text)`: a note taken back at a read of `fields`.
    pub(super) watch: Function<'js>,
}

/// Load the glue into `ctx` and call its setup with `host` (the raw functions) and the run's
/// facts; the helpers it returns.
pub(super) fn install<'js>(
    ctx: &Ctx<'js>,
    host: Object<'js>,
    tool_names: &[String],
    filename: &str,
    result_reader: PlainJson,
) -> Result<Glue<'js>, RunFailure> {
    let internal = |e: rquickjs::Error| {
        RunFailure::new(
            FailureKind::Exception,
            format!("could not set up the sandbox: {e}"),
        )
    };
    let setup = setup_function(ctx).map_err(|e| {
        RunFailure::new(
            FailureKind::Exception,
            format!("could not load the glue: {e}"),
        )
    })?;
    let names = rquickjs::Array::new(ctx.clone()).map_err(internal)?;
    for (i, name) in tool_names.iter().enumerate() {
        names.set(i, name.as_str()).map_err(internal)?;
    }
    let facts = Object::new(ctx.clone()).map_err(internal)?;
    facts.set("toolNames", names).map_err(internal)?;
    facts.set("filename", filename).map_err(internal)?;
    let helpers: Object<'js> = setup.call((host, facts)).map_err(internal)?;
    Ok(Glue {
        result_reader,
        encode_result: helpers.get("encodeResult").map_err(internal)?,
        describe_error: helpers.get("describeError").map_err(internal)?,
        tool_call_error: helpers.get("toolCallError").map_err(internal)?,
        typed_result: helpers.get("typedResult").map_err(internal)?,
        flat_proto: helpers.get("flatProto").map_err(internal)?,
        watch: helpers.get("watch").map_err(internal)?,
    })
}

/// The glue module compiled to QuickJS bytecode once per process (parsing it costs more than a
/// whole trivial run; loading bytecode is cheap).
static GLUE_BYTECODE: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();

/// Each of [`GLUE_PARTS`] compiled to bytecode, the first time any run asks for it.
static PART_BYTECODE: [OnceLock<Result<Vec<u8>, String>>; GLUE_PARTS.len()] =
    [const { OnceLock::new() }; GLUE_PARTS.len()];

/// Compile the module `source` under `name` in a throwaway runtime.
fn compile(name: &str, source: &str) -> Result<Vec<u8>, String> {
    let rt = rquickjs::Runtime::new().map_err(|e| e.to_string())?;
    let context = Context::custom::<super::sandbox::Intrinsics>(&rt).map_err(|e| e.to_string())?;
    context.with(|ctx| {
        Module::declare(ctx.clone(), name, source)
            .catch(&ctx)
            .map_err(|e| e.to_string())?
            // Without the source text (a fifth less to read per run; a program printing a glue
            // function sees `[native code]`), with line numbers (stacks through the glue keep
            // their frames' positions).
            .write(WriteOptions {
                strip_source: true,
                ..WriteOptions::default()
            })
            .map_err(|e| e.to_string())
    })
}

/// Load and evaluate the glue in `ctx`, returning its default export (the setup function).
fn setup_function<'js>(ctx: &Ctx<'js>) -> Result<Function<'js>, String> {
    let bytecode = GLUE_BYTECODE
        .get_or_init(|| compile(GLUE_NAME, GLUE_JS))
        .as_ref()?;
    let (module, evaluated) = load(ctx, bytecode).map_err(|e| e.to_string())?;
    // The module has no top-level await: its evaluation promise settles in the job queue (no
    // program code has run yet, so these are the glue's own jobs).
    while ctx.execute_pending_job() {}
    default_export(module, evaluated).map_err(|e| e.to_string())
}

/// `host.part(name)`: the make function of the glue's part `name` (one of [`GLUE_PARTS`]),
/// loaded into `ctx`. Called while a program runs, so it runs no pending jobs: a part
/// has no top-level await, and its evaluation has settled when `eval` returns.
pub(super) fn part<'js>(ctx: &Ctx<'js>, name: &str) -> rquickjs::Result<Function<'js>> {
    let Some(index) = GLUE_PARTS.iter().position(|(part, _)| *part == name) else {
        let message = format!("the glue has no part named {name:?}");
        return Err(Exception::throw_message(ctx, &message));
    };
    let bytecode = PART_BYTECODE[index]
        .get_or_init(|| compile(&format!("ptc:{name}.js"), GLUE_PARTS[index].1))
        .as_ref()
        .map_err(|message| Exception::throw_message(ctx, message))?;
    let (module, evaluated) = load(ctx, bytecode)?;
    default_export(module, evaluated)
}

/// Evaluate a module's bytecode.
fn load<'js>(
    ctx: &Ctx<'js>,
    bytecode: &'static [u8],
) -> rquickjs::Result<(Module<'js, Evaluated>, Promise<'js>)> {
    // SAFETY: the bytes were produced by `Module::write` from this same QuickJS build, and they live
    // in a static for the rest of the process (QuickJS may reference them as ROM data).
    let module = unsafe { Module::load(ctx.clone(), bytecode)? };
    module.eval()
}

/// An evaluated module's default export, or the error its evaluation ended with.
fn default_export<'js>(
    module: Module<'js, Evaluated>,
    evaluated: Promise<'js>,
) -> rquickjs::Result<Function<'js>> {
    match evaluated.result::<Value<'js>>() {
        Some(Err(e)) => Err(e),
        Some(Ok(_)) => module.get("default"),
        None => Err(rquickjs::Error::new_from_js_message(
            "module",
            "function",
            "its evaluation has not finished",
        )),
    }
}
