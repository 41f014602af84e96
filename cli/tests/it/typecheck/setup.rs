//! Finding the compiler, `[code]` in ptc.toml, and `--typecheck` on `ptc run` and `ptc serve`.

use std::fs;
use std::path::Path;

use ptc::typecheck::{Tsc, TypecheckMode};

use super::node_modules;

#[test]
fn the_typescript_7_compiler_is_found_through_node_modules() {
    // `node_modules/typescript7` (the alias) is a node shim: resolved to the native binary.
    let found = Tsc::at(&node_modules().join("typescript7/bin/tsc")).unwrap();
    assert!(found.version().starts_with("7."), "{found:?}");
    let native = node_modules()
        .join("@typescript")
        .join(format!("typescript-linux-{}", "x64"))
        .join("lib/tsc");
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        assert_eq!(found.path(), native.canonicalize().unwrap());
    }
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn an_npm_install_of_typescript_7_is_resolved_from_bin_to_the_native_binary() {
    // `npm i typescript@7`: node_modules/.bin/tsc → ../typescript/bin/tsc (a node shim), whose
    // native compiler is the optional package @typescript/typescript-linux-x64.
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let modules = dir.path().join("node_modules");
    fs::create_dir_all(modules.join(".bin")).unwrap();
    fs::create_dir_all(modules.join("typescript/bin")).unwrap();
    fs::write(
        modules.join("typescript/package.json"),
        r#"{ "name": "typescript", "version": "7.0.2", "bin": { "tsc": "./bin/tsc" } }"#,
    )
    .unwrap();
    fs::write(
        modules.join("typescript/bin/tsc"),
        "#!/usr/bin/env node\nimport \"../lib/tsc.js\";\n",
    )
    .unwrap();
    symlink("../typescript/bin/tsc", modules.join(".bin/tsc")).unwrap();
    let platform = modules.join("@typescript/typescript-linux-x64/lib");
    fs::create_dir_all(&platform).unwrap();
    let native = node_modules().join("@typescript/typescript-linux-x64/lib/tsc");
    symlink(native.canonicalize().unwrap(), platform.join("tsc")).unwrap();
    let found = Tsc::at(&modules.join(".bin/tsc")).unwrap();
    assert_eq!(found.version(), "7.0.2");
    assert_eq!(
        found.path(),
        modules
            .canonicalize()
            .unwrap()
            .join("@typescript/typescript-linux-x64/lib/tsc")
    );
    // Without the platform package, it says which one is missing.
    fs::remove_file(platform.join("tsc")).unwrap();
    let err = Tsc::at(&modules.join(".bin/tsc")).unwrap_err();
    assert!(
        err.contains("@typescript/typescript-linux-x64 is not installed"),
        "{err}"
    );
}

#[test]
fn a_compiler_that_is_not_typescript_7_is_refused_with_its_version() {
    // TypeScript 5's `bin/tsc` is a node script of another package layout: not a 7.x compiler.
    let five = node_modules().join("typescript/bin/tsc");
    let err = Tsc::at(&five).unwrap_err();
    assert!(err.contains("is not TypeScript 7"), "{err}");
}

#[test]
fn config_code_section_sets_the_mode_and_a_compiler_relative_to_the_file() {
    let file = Path::new("/etc/ptc/ptc.toml");
    let config = ptc_cli::config::Config::parse(
        "[code]\ntypecheck = \"error\"\ntsc = \"ts7/bin/tsc\"\n",
        Some(file),
    )
    .unwrap();
    assert_eq!(config.code.typecheck, Some(TypecheckMode::Error));
    assert_eq!(
        config.code.tsc.as_deref(),
        Some(Path::new("/etc/ptc/ts7/bin/tsc"))
    );
    let bad = |text: &str| {
        ptc_cli::config::Config::parse(text, Some(Path::new("ptc.toml")))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        bad("[code]\n\ntypecheck = \"strict\"\n"),
        "ptc.toml:3: code.typecheck: unknown typecheck mode `strict` (expected off, warn or error)"
    );
    let e = bad("[code]\ntypechek = \"warn\"\n");
    assert!(
        e.starts_with("ptc.toml:2:") && e.contains("typechek"),
        "{e}"
    );
    let e = bad("[code]\ntsc = \"\"\n");
    assert_eq!(e, "ptc.toml:2: code.tsc must not be empty");
}

#[test]
fn config_an_untrusted_workspace_file_sets_no_type_check() {
    // The check runs a compiler outside the sandbox: a file a program may have written (and
    // the `node_modules` it would find) must not turn it on.
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = ptc_cli::config::TrustStore::new(home.path().join("trusted.toml"));
    fs::write(
        root.path().join("ptc.toml"),
        "[code]\ntypecheck = \"warn\"\ntsc = \"node_modules/.bin/tsc\"\n",
    )
    .unwrap();
    let loaded =
        ptc_cli::config::Config::discover_trusted(None, root.path(), Some(&store)).unwrap();
    assert_eq!(loaded.config.code, Default::default());
    assert!(
        loaded.notices.iter().any(|n| n.contains("[code]")),
        "{:?}",
        loaded.notices
    );
}

/// `ptc run` in `dir` with `env` set, PATH emptied and PTC_TSC unset unless `env` sets them.
fn ptc_run(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ptc"));
    command
        .arg("run")
        .args(args)
        .current_dir(dir)
        .env("PATH", "")
        .env_remove(ptc::typecheck::TSC_ENV)
        .stdin(std::process::Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("ptc runs")
}

#[test]
fn cli_without_a_compiler_the_check_is_off_with_one_line_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("p.ts"), "const n: number = 'x';\nreturn n;").unwrap();
    let o = ptc_run(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--typecheck",
            "error",
            "--repeat",
            "3",
            "p.ts",
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("typecheck")).collect();
    assert_eq!(
        said,
        [
            "ptc: warning: typecheck = \"error\" is off: no TypeScript 7 compiler: install \
          `typescript@7` (npm), or set PTC_TSC or `[code] tsc`"
        ],
        "{stderr}"
    );
}

#[test]
fn cli_typecheck_flag_and_config_reach_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let program = "const r = await tools.echo({ text: 1 });\nreturn r;";
    fs::write(dir.path().join("p.ts"), program).unwrap();
    let shim = node_modules().join("typescript7/bin/tsc");
    // --typecheck error, the compiler from PTC_TSC: refused, exit 1.
    let o = ptc_run(
        dir.path(),
        &["--tools", "testkit", "--typecheck", "error", "p.ts"],
        &[("PTC_TSC", &shim)],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with(
            "Error: The program did not run: 1 type error (typecheck = \"error\"); fix and run \
             again.\nrun_code.ts:1:30 TS2322: Type 'number' is not assignable to type 'string'."
        ),
        "{stdout}"
    );
    // `[code]` of an explicit (operator's) file: warn, with its own compiler.
    let etc = tempfile::tempdir().unwrap();
    let config = etc.path().join("ptc.toml");
    fs::write(
        &config,
        format!(
            "[code]\ntypecheck = \"warn\"\ntsc = {:?}\n",
            shim.to_str().unwrap()
        ),
    )
    .unwrap();
    let o = ptc_run(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--config",
            config.to_str().unwrap(),
            "p.ts",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("[typecheck] 1 type error (the program ran):\nrun_code.ts:1:30 TS2322"),
        "{stdout}"
    );
    // The flag wins over the file.
    let o = ptc_run(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--config",
            config.to_str().unwrap(),
            "--typecheck",
            "off",
            "p.ts",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("typecheck"), "{stdout}");
}

#[test]
fn serve_typecheck_flag_refuses_a_program_over_mcp() {
    use crate::mcp_support::serve::StdioPeer;
    let dir = tempfile::tempdir().unwrap();
    let shim = node_modules().join("typescript7/bin/tsc");
    let mut peer = StdioPeer::start_with_env(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--mode",
            "code",
            "--typecheck",
            "error",
        ],
        &[("PTC_TSC", shim.to_str().unwrap())],
    );
    let result = peer.call(
        1,
        "run_code",
        serde_json::json!({
            "code": "return await tools.add({ a: 1, b: \"2\" });",
            "description": "add two numbers",
        }),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("run_code.ts:1:32 TS2322: Type 'string' is not assignable to type 'number'."),
        "{text}"
    );
    assert_eq!(peer.finish(), Some(0));
}
