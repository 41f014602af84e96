//! The model-facing prose around the declarations.

use crate::sdk::declarations;
use crate::ToolDecl;

/// How to write a program; shared by both modes.
const PROGRAM_RULES: &str = "\
- The `code` argument is the body of an async function: use `await` and `return` at the top level.
- Call a tool with `await tools.name(args)`; a name that is not an identifier is called as `tools[\"my-tool\"](args)`. Argument and result types are in the declarations.
- A failed call rejects with a `ToolCallError` whose `toolName` names the tool. Use try/catch to recover from it or to report it; an uncaught error fails the whole run.
- Only what the program prints with `console.log` or returns reaches you. Print or return just what you need, not whole raw results.
- Run independent read-only calls in parallel with `Promise.all`.
- Types are stripped before the program runs, so use erasable syntax only: type annotations, interfaces and type aliases are fine; `enum`, `namespace` and constructor parameter properties are not.
- `description` is required: 5-10 words saying what the program does.
";

/// See [`crate::sdk_section`].
pub(crate) fn sdk_section(tools: &[ToolDecl<'_>]) -> String {
    format!(
        "## Calling tools from code\n\n\
         Besides calling tools directly, you can call `run_code` with a TypeScript program that calls \
         several of them and combines the results, so only the outcome comes back to you. \
         Prefer it for loops, many calls, or results you would otherwise have to copy between calls.\n\n\
         {PROGRAM_RULES}\n\
         The tools available to programs:\n\n\
         ```ts\n{}```\n",
        declarations(tools)
    )
}

/// See [`crate::code_only_guidance`].
pub(crate) fn code_only_guidance() -> String {
    format!(
        "## Calling tools\n\n\
         Your only tool is `run_code`. Every other capability is a function on the `tools` object \
         (declared in TypeScript in the SDK section) that you reach by calling `run_code` with a \
         TypeScript program; calling those tools directly fails.\n\n\
         {PROGRAM_RULES}"
    )
}
