//! The glue in a QuickJS sandbox: compiled to bytecode once per process, loaded into each
//! fresh context, and set up with the run's host functions (see `runtime-js/glue.js`).

use std::sync::OnceLock;

use rquickjs::{
    module::WriteOptions, CatchResultExt, Context, Ctx, Function, Module, Object, Value,
};

use super::plain_json::PlainJson;
use crate::{FailureKind, RunFailure, GLUE_JS};

/// The module name the glue is compiled under (it shows in stack frames of glue code).
const GLUE_NAME: &str = "ptc:glue.js";

/// What the glue's setup returns, and the Rust reader for plain returned values.
pub(super) struct Glue<'js> {
    pub(super) result_reader: PlainJson,
    pub(super) encode_result: Function<'js>,
    pub(super) describe_error: Function<'js>,
    pub(super) tool_call_error: Function<'js>,
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
    })
}

/// The glue module compiled to QuickJS bytecode once per process (parsing it costs more than a
/// whole trivial run; loading bytecode is cheap).
static GLUE_BYTECODE: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();

/// Compile the glue module in a throwaway runtime.
fn compile() -> Result<Vec<u8>, String> {
    let rt = rquickjs::Runtime::new().map_err(|e| e.to_string())?;
    let context = Context::custom::<super::sandbox::Intrinsics>(&rt).map_err(|e| e.to_string())?;
    context.with(|ctx| {
        Module::declare(ctx.clone(), GLUE_NAME, GLUE_JS)
            .catch(&ctx)
            .map_err(|e| e.to_string())?
            .write(WriteOptions::default())
            .map_err(|e| e.to_string())
    })
}

/// Load and evaluate the glue in `ctx`, returning its default export (the setup function).
fn setup_function<'js>(ctx: &Ctx<'js>) -> Result<Function<'js>, String> {
    let bytecode = GLUE_BYTECODE.get_or_init(compile).as_ref()?;
    load(ctx, bytecode).map_err(|e| e.to_string())
}

/// Evaluate the glue's bytecode and take its default export.
fn load<'js>(ctx: &Ctx<'js>, bytecode: &'static [u8]) -> rquickjs::Result<Function<'js>> {
    // SAFETY: the bytes were produced by `Module::write` from this same QuickJS build, and they live
    // in a static for the rest of the process (QuickJS may reference them as ROM data).
    let module = unsafe { Module::load(ctx.clone(), bytecode)? };
    let (module, evaluated) = module.eval()?;
    // The module has no top-level await: its evaluation promise settles in the job queue.
    while ctx.execute_pending_job() {}
    if let Some(Err(e)) = evaluated.result::<Value<'js>>() {
        return Err(e);
    }
    module.get("default")
}
