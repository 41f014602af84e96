//! Behaviour 39: the generated SDK is valid TypeScript, checked with the
//! real compiler (`npm ci` at the repository root installs it).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{decls, realistic_catalog, stress_catalog};
use ptc_sdk_gen::declarations;

/// The compiler pinned in the root `package.json`.
fn tsc() -> PathBuf {
    let tsc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../node_modules/.bin/tsc");
    assert!(
        tsc.exists(),
        "TypeScript compiler not found at {}: run `npm ci` at the repository root first",
        tsc.display()
    );
    tsc
}

/// Runs `tsc --noEmit --strict --target es2022 --lib es2022
/// --erasableSyntaxOnly --pretty false <files>` in `dir`; returns (success, diagnostics).
fn run_tsc(dir: &Path, files: &[&str]) -> (bool, String) {
    let out = Command::new(tsc())
        .current_dir(dir)
        .args([
            "--noEmit",
            "--strict",
            "--target",
            "es2022",
            "--lib",
            "es2022",
            "--erasableSyntaxOnly",
            "--pretty",
            "false",
        ])
        .args(files)
        .output()
        .expect("failed to start tsc (is node installed?)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// A program body wrapped the way the runtime runs it: the body of an async
/// function. The runtime provides `console`; `lib es2022` does not.
fn program(body: &str) -> String {
    format!(
        "declare const console: {{ log(...args: unknown[]): void }};\n\
         async function program(): Promise<unknown> {{\n{body}\n}}\n\
         void program;\n"
    )
}

const REALISTIC_USAGE: &str = r#"
  const echoed: string = await tools.echo({ text: "hi" });
  const sum: number = await tools.add({ a: 1, b: 2 });
  const slept: number = (await tools.sleep({ ms: 5 })).slept;
  const count: number = await tools.counter({});
  const [x, y] = await Promise.all([tools.add({ a: 1, b: 1 }), tools["echo"]({ text: "x", extra: [1, { k: null }] })]);
  try {
    const nothing: null = await tools.fail({ message: "boom" });
    console.log(nothing);
  } catch (e) {
    if (e instanceof ToolCallError) {
      const name: string = e.toolName;
      console.log(name, e.message);
    } else {
      throw e;
    }
  }
  const name: ToolName = "sleep";
  const anyArgs: ToolArgsMap[ToolName] = { a: 1, b: 2 };
  const json: JsonValue = { list: [1, "a", null, true, { nested: [] }] };
  console.log(echoed, sum, slept, count, x, y, name, anyArgs, json);

  // Wrong usage must be rejected; an unused directive is itself an error.
  // @ts-expect-error a is a number
  await tools.add({ a: "1", b: 2 });
  // @ts-expect-error b is required
  await tools.add({ a: 1 });
  // @ts-expect-error add's arguments are closed
  await tools.add({ a: 1, b: 2, c: 3 });
  // @ts-expect-error no such tool
  await tools.nope({});
  // @ts-expect-error echo resolves to a string
  const wrong: number = await tools.echo({ text: "hi" });
  // @ts-expect-error open objects still only take JSON values
  await tools.echo({ text: "x", f: () => 1 });
  // @ts-expect-error counter takes an argument object
  await tools.counter();
  // @ts-expect-error slept is a number
  const s: string = (await tools.sleep({ ms: 1 })).slept;
  // @ts-expect-error run_code is never bound
  await tools.run_code({ code: "", description: "" });
  // @ts-expect-error toolName is readonly
  new ToolCallError().toolName = "x";
  return { wrong, s };
"#;

const STRESS_USAGE: &str = r#"
  const a: string = await tools["my-tool"]({ x: 1 });
  const b: number = await tools.__proto__({ a: "x" });
  const b2: number = await tools["__proto__"]({ a: "y" });
  const c: string = await tools.constructor({});
  const d: null = await tools.then({});
  const e: boolean = await tools["a.b"]({});
  const f: "a" | "b\"c" | "*/" | "x\ny" | "\u2028" = await tools.default({});
  const g = await tools.new({});
  const h = await tools.delete({});
  const i: string = await tools["café"]({}) + await tools[""]({}) + await tools["1st"]({}) + await tools["with space"]({});
  const j: string = await tools["quote\"back\\slash\nnewline"]({}) + await tools["*/ evil /*"]({});
  const k = await tools.weird_props({ "my-key": "v", "*/": "w", "a b": [1, null], constructor: "c" });
  const l = await tools.deep_object({ x: { x: { x: {} } } } as ToolArgsMap["deep_object"]);
  const m = await tools.deep_array({ list: [[[[]]]] });
  const n = await tools.deep_one_of({ v: true });
  const o = await tools.unsupported({ ref: 1, pattern: "a", bool_true: { any: "thing" } });
  const p = await tools.bool_schemas(undefined as unknown);
  const q = await tools.variants({ kind: "a" });
  const r = await tools.big_enum({ pick: "v1999" });
  console.log(a, b, b2, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r);

  // @ts-expect-error x is a number
  await tools["my-tool"]({ x: "1" });
  // @ts-expect-error then takes a closed empty object
  await tools.then({ extra: 1 });
  // @ts-expect-error __proto__ needs a string
  await tools.__proto__({ a: 1 });
  // @ts-expect-error not in the enum
  await tools.big_enum({ pick: "v2000" });
  // @ts-expect-error my-key is required
  await tools.weird_props({ "*/": "w", constructor: "c" });
  // @ts-expect-error kind b needs n
  await tools.variants({ kind: "b" });
  return null;
"#;

/// Writes `sdk.ts` and `usage.ts`, then checks them together.
fn check_catalog(tools: &[common::Tool], usage: &str) {
    check_sdk(&declarations(&decls(tools)), usage);
}

/// Writes `sdk` as `sdk.ts` and the program `usage` as `usage.ts`, then checks them together.
pub fn check_sdk(sdk: &str, usage: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("sdk.ts"), sdk).unwrap();
    std::fs::write(dir.path().join("usage.ts"), program(usage)).unwrap();
    let (ok, diagnostics) = run_tsc(dir.path(), &["sdk.ts", "usage.ts"]);
    assert!(
        ok,
        "tsc rejected the generated SDK or its usage:\n{diagnostics}"
    );
}

#[test]
fn b39_sdk_typechecks_with_tsc() {
    // Realistic catalog: valid usage passes and every `@ts-expect-error`
    // line is really rejected.
    check_catalog(&realistic_catalog(), REALISTIC_USAGE);

    // The same SDK with one plainly wrong call fails, and the error points at
    // the call, so the check above cannot pass vacuously.
    let tools = realistic_catalog();
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("sdk.ts"), declarations(&decls(&tools))).unwrap();
    std::fs::write(
        dir.path().join("wrong.ts"),
        program("  return await tools.add({ a: \"1\", b: 2 });"),
    )
    .unwrap();
    let (ok, diagnostics) = run_tsc(dir.path(), &["sdk.ts", "wrong.ts"]);
    assert!(!ok, "tsc accepted a wrong argument type:\n{diagnostics}");
    assert!(
        diagnostics.contains("wrong.ts(3,") && diagnostics.contains("TS2322"),
        "expected a type error at the wrong call, got:\n{diagnostics}"
    );
    assert!(
        !diagnostics.contains("sdk.ts"),
        "the SDK itself has errors:\n{diagnostics}"
    );

    // No tools at all is still valid TypeScript, and nothing is callable.
    check_catalog(
        &[],
        "  const n: never = null as unknown as ToolName;\n  // @ts-expect-error nothing to call\n  await tools.echo({});\n  return n;",
    );

    // Hostile names, descriptions and schemas.
    check_catalog(&stress_catalog(), STRESS_USAGE);
}
