//! Behaviour 39 on the real catalog: the SDK generated from the `testkit` registry is
//! valid TypeScript, and the example programs type-check against it (with the discovery
//! tools) with `tsc --strict`.

use ptc_testing::tsc as tsc_support;

use std::path::Path;

use ptc::{CodeExecutor, ToolRegistry};
use tsc_support::TsProject;

#[test]
fn b39_testkit_sdk_and_example_programs_typecheck() {
    let registry = ToolRegistry::new();
    ptc::testkit::register(&registry).unwrap();
    // The discovery tools, which `examples/programs/discover.ts` calls.
    ptc::discovery::register(&registry).unwrap();
    let sdk = CodeExecutor::declarations(&registry.view(None, None).executable_definitions());
    let mut project = TsProject::new(&sdk);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/programs");
    for entry in std::fs::read_dir(&examples).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ts") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            project.add_program(&name, &std::fs::read_to_string(&path).unwrap());
        }
    }
    assert!(project.file_count() >= 6, "the example programs are there");
    let (ok, diagnostics) = project.check();
    assert!(
        ok,
        "tsc rejected the SDK or an example:\n{diagnostics}\n--- sdk.ts ---\n{sdk}"
    );

    // and it is not vacuous: a wrong argument type is rejected, and so is an unknown key
    // (the argument types are closed, as the pipeline is)
    for program in [
        "await tools.add({ a: 'one', b: 2 });",
        "await tools.echo({ text: 'hi', loud: true });",
    ] {
        let mut wrong = TsProject::new(&sdk);
        wrong.add_program("wrong.ts", program);
        let (ok, diagnostics) = wrong.check();
        assert!(
            !ok && diagnostics.contains("wrong.ts"),
            "{program}: {diagnostics}"
        );
    }
}
