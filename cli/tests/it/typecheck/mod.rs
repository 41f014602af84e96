//! The static type check with the real TypeScript 7 compiler (`npm ci` installs it as the
//! `typescript7` alias): `run_code` programs over the builtin pack, checked against the SDK of the
//! visible tools, in `warn` and `error` modes, with positions at the model's own line:col
//! through fences and shapes ([`runs`]); finding the compiler, `[code]`, `--typecheck` on
//! `ptc run` and `ptc serve` ([`setup`]).

mod runs;
mod setup;

use ptc_testing::code as code_support;

use std::fs;
use std::path::{Path, PathBuf};

use ptc::typecheck::{Tsc, Typecheck, TypecheckMode};
use ptc::{CodeExecutor, ToolMode, ToolRegistry};
use ptc_packs::{builtin, PackContext};

/// The repository's `node_modules`.
pub(crate) fn node_modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../node_modules")
}

/// The compiler `npm ci` installed.
pub(crate) fn tsc() -> Tsc {
    Tsc::at(&node_modules().join("typescript7/bin/tsc"))
        .expect("TypeScript 7 is installed (npm ci)")
}

/// testkit and builtin over a small workspace, code mode, the check in `mode`.
pub(crate) fn registry(mode: TypecheckMode) -> (tempfile::TempDir, ToolRegistry) {
    registry_with(mode, tsc())
}

/// [`registry`] with the compiler `tsc`.
pub(crate) fn registry_with(mode: TypecheckMode, tsc: Tsc) -> (tempfile::TempDir, ToolRegistry) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    fs::create_dir(root.join("src")).unwrap();
    fs::write(
        root.join("src/a.ts"),
        "// TODO: one\nlet a = 1;\n// TODO: two\n",
    )
    .unwrap();
    let registry = registry_over(&root, mode, tsc);
    (tmp, registry)
}

/// testkit and builtin over `root`, code mode, the check in `mode` with `tsc`.
pub(crate) fn registry_over(root: &Path, mode: TypecheckMode, tsc: Tsc) -> ToolRegistry {
    let registry = ToolRegistry::new();
    ptc::testkit::register(&registry).unwrap();
    builtin::register(&registry, &PackContext::new(root.to_path_buf())).unwrap();
    let config = code_support::config(|c| {
        c.typecheck = Some(Typecheck { mode, tsc });
    });
    CodeExecutor::new(config).install(&registry);
    registry.set_mode(ToolMode::Code);
    registry
}
