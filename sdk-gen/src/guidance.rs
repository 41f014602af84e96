//! The model-facing prose around the declarations: the runtime contract in a few lines, the
//! limits in force, and a five-line example.

use crate::sdk::declarations;
use crate::ToolDecl;

/// The limits a program runs under, as the guidance states them. Plain numbers, so the
/// generator does not depend on an engine; the integrator passes the values in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeLimits {
    /// Wall clock per run, in milliseconds.
    pub wall_clock_ms: u64,
    /// JavaScript heap cap per run, in bytes.
    pub max_heap_bytes: u64,
    /// Tool calls one run may make.
    pub max_calls: u64,
    /// Tool calls that may run at once.
    pub max_parallel: u64,
    /// Characters of the result the model gets; the text beyond is cut to head and tail.
    pub max_result_chars: u64,
}

impl Default for RuntimeLimits {
    /// ptc's defaults: 120 s, 256 MiB, 10,000 calls (10 at once), 50,000 characters.
    fn default() -> Self {
        RuntimeLimits {
            wall_clock_ms: 120_000,
            max_heap_bytes: 256 * 1024 * 1024,
            max_calls: 10_000,
            max_parallel: 10,
            max_result_chars: 50_000,
        }
    }
}

/// The runtime contract, shared by both modes, and the example.
fn rules(limits: &RuntimeLimits) -> String {
    format!(
        "\
- `code` is an async function body (top-level `await`/`return`; a final `async () => {{…}}`, uncalled \
`main()` or `export default` work too). Erasable types only (no `enum`); no value `import`/`require`.
- Result: `console.log` output, then the returned value (a string as is, else JSON; convert \
Map/Set/BigInt) or the last expression's. Return just what you need.
- A failed call rejects with `ToolCallError` (`toolName`, `message`); uncaught, it fails the run. Await \
all calls (not in `forEach`): at the end, pending ones stop and unfinished changes fail the run.
- Globals: timers, `URL`, `TextEncoder`/`Decoder`, `atob`/`btoa`, `structuredClone`, \
`crypto.randomUUID()`, `Intl` (Number/DateTime/List/RelativeTimeFormat, PluralRules, Collator: a \
subset, en-US/UTC default); no `fetch`, `process`, `Buffer`, files, network.
- Limits: {}, {} heap, {} calls ({} at once), results cut to head and tail past {} chars.
E.g.:
```ts
const [a, b] = await Promise.all([tools.x({{ id: 1 }}), tools.x({{ id: 2 }})]);
let c;
try {{ c = await tools.y({{ a, b }}); }}
catch (e) {{ console.log(e.message); }}
return {{ a, b, c }};
```
",
        duration(limits.wall_clock_ms),
        bytes(limits.max_heap_bytes),
        thousands(limits.max_calls),
        limits.max_parallel,
        thousands(limits.max_result_chars),
    )
}

/// See [`crate::sdk_section`].
pub(crate) fn sdk_section(tools: &[ToolDecl<'_>], limits: &RuntimeLimits) -> String {
    format!(
        "## Calling tools from code\n\
         Besides calling tools directly, you can call `run_code` with a TypeScript program that \
         calls them as `await tools.name(args)`: prefer it for loops, many calls, or results you \
         would otherwise copy between calls.\n\
         {}```ts\n{}```\n",
        rules(limits),
        declarations(tools)
    )
}

/// See [`crate::code_only_guidance`].
pub(crate) fn code_only_guidance(limits: &RuntimeLimits) -> String {
    format!(
        "## Calling tools\n\
         Your only tool is `run_code`: a TypeScript program calling the tools below as \
         `await tools.name(args)`.\n{}",
        rules(limits)
    )
}

/// See [`crate::code_section`].
pub(crate) fn code_section(tools: &[ToolDecl<'_>], limits: &RuntimeLimits) -> String {
    format!(
        "{}```ts\n{}```\n",
        code_only_guidance(limits),
        declarations(tools)
    )
}

/// `120 s`, `1.5 s` or `250 ms`.
fn duration(ms: u64) -> String {
    match ms {
        ms if ms >= 1000 && ms.is_multiple_of(1000) => format!("{} s", thousands(ms / 1000)),
        ms if ms >= 1000 && ms.is_multiple_of(100) => {
            format!("{}.{} s", ms / 1000, ms % 1000 / 100)
        }
        ms => format!("{} ms", thousands(ms)),
    }
}

/// `256 MiB`, `512 KiB` or `1,000 bytes`.
fn bytes(n: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    const GIB: u64 = 1024 * MIB;
    match n {
        n if n >= GIB && n.is_multiple_of(GIB) => format!("{} GiB", thousands(n / GIB)),
        n if n >= MIB && n.is_multiple_of(MIB) => format!("{} MiB", thousands(n / MIB)),
        n if n >= KIB && n.is_multiple_of(KIB) => format!("{} KiB", thousands(n / KIB)),
        n => format!("{} bytes", thousands(n)),
    }
}

/// `n` as the model-facing text writes numbers: `,` between groups of three digits (`50,000`).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(duration(120_000), "120 s");
        assert_eq!(duration(1_500), "1.5 s");
        assert_eq!(duration(250), "250 ms");
        assert_eq!(duration(1_234), "1,234 ms");
        assert_eq!(bytes(256 * 1024 * 1024), "256 MiB");
        assert_eq!(bytes(2 * 1024 * 1024 * 1024), "2 GiB");
        assert_eq!(bytes(512 * 1024), "512 KiB");
        assert_eq!(bytes(1_000), "1,000 bytes");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(50_000), "50,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
