//! Finding the TypeScript 7 native compiler (`typescript@7` from npm, the Go port).
//!
//! In order: the path the operator gave (`PTC_TSC`, then `[code] tsc`), else `tsc` on `PATH`.
//! Never a `node_modules` of the working directory: the compiler runs outside the sandbox, and
//! a program could have written one there for a later run to start. The npm package's `bin/tsc` is a node
//! shim that execs a native binary from its platform package
//! (`@typescript/typescript-<os>-<arch>/lib/tsc`): a shim is resolved to that binary, which is
//! then called directly, with no node. Whatever is found must say `Version 7.` to `--version`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming the compiler (wins over `[code] tsc`).
pub const TSC_ENV: &str = "PTC_TSC";

/// The TypeScript 7 native compiler, found and its version checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tsc {
    path: PathBuf,
    version: String,
}

impl Tsc {
    /// The compiler at `path`: a native `tsc` 7.x, or the npm package's `bin/tsc` shim (or a
    /// link to it) whose native binary is installed. `Err` says why not.
    pub fn at(path: &Path) -> Result<Tsc, String> {
        let native = native_of(path)?;
        let output = Command::new(&native)
            .arg("--version")
            .output()
            .map_err(|e| format!("{} does not run: {e}", native.display()))?;
        let text = String::from_utf8_lossy(&output.stdout);
        let version = text.trim().strip_prefix("Version ").unwrap_or(text.trim());
        if !output.status.success() || !version.starts_with("7.") {
            return Err(format!(
                "{} is not TypeScript 7 (`--version` says {:?}); install `typescript@7`",
                native.display(),
                text.trim()
            ));
        }
        Ok(Tsc {
            path: native,
            version: version.to_string(),
        })
    }

    /// Find the compiler (see the module docs): `explicit` is `[code] tsc`; `PTC_TSC` wins over
    /// it, and either one given is the only one tried. `Err` says why there is none, in one
    /// sentence.
    pub fn find(explicit: Option<&Path>) -> Result<Tsc, String> {
        let env = std::env::var_os(TSC_ENV).filter(|v| !v.is_empty());
        if let Some(path) = env.as_deref().map(Path::new).or(explicit) {
            return Tsc::at(path);
        }
        let candidates: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|paths| {
                std::env::split_paths(&paths)
                    .map(|p| p.join("tsc"))
                    .collect()
            })
            .unwrap_or_default();
        let mut seen = Vec::new();
        for candidate in candidates.into_iter().filter(|c| c.is_file()) {
            match Tsc::at(&candidate) {
                Ok(tsc) => return Ok(tsc),
                Err(why) => seen.push(why),
            }
        }
        Err(match seen.is_empty() {
            true => "no TypeScript 7 compiler: install `typescript@7` (npm), or set PTC_TSC or \
                     `[code] tsc`"
                .to_string(),
            false => format!("no TypeScript 7 compiler: {}", seen.join("; ")),
        })
    }

    /// The native binary that runs.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its version, e.g. `7.0.2`.
    pub fn version(&self) -> &str {
        &self.version
    }
}

/// `path` itself, or the native binary of the npm package whose `bin/tsc` shim `path` is (or
/// links to).
fn native_of(path: &Path) -> Result<PathBuf, String> {
    let real = path
        .canonicalize()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let Some((package, version)) = shim_package(&real) else {
        return Ok(real);
    };
    if !version.starts_with("7.") {
        return Err(format!(
            "{} is not TypeScript 7 (its npm package says {version}); install `typescript@7`",
            path.display()
        ));
    }
    let name = platform_package();
    // Node resolves the platform package from the package's folder upwards.
    package
        .ancestors()
        .map(|dir| {
            dir.join("node_modules")
                .join("@typescript")
                .join(&name)
                .join("lib")
                .join("tsc")
        })
        .find(|exe| exe.is_file())
        .ok_or_else(|| {
            format!(
                "{} is the npm shim of {}, whose native compiler @typescript/{name} is not \
                 installed (an optional dependency: install without --no-optional)",
                path.display(),
                package.display()
            )
        })
}

/// The npm package folder and its version when `real` is the `bin/tsc` script of the
/// `typescript` package (a node shim, not a binary).
fn shim_package(real: &Path) -> Option<(PathBuf, String)> {
    let bin = real.parent()?;
    let package = bin.parent()?;
    if bin.file_name()? != "bin" || !std::fs::read(real).ok()?.starts_with(b"#!") {
        return None;
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).ok()?).ok()?;
    if manifest["name"] != "typescript" {
        return None;
    }
    let version = manifest["version"]
        .as_str()
        .unwrap_or("unknown")
        .to_string();
    Some((package.to_path_buf(), version))
}

/// `typescript-<os>-<arch>` in npm's names for this machine.
fn platform_package() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "ia32",
        "powerpc64" => "ppc64",
        other => other,
    };
    format!("typescript-{os}-{arch}")
}
