//! `ptc trust`: record that the operator vouches for a workspace configuration's exact content.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use ptc_cli::config::trust::sha256_hex;
use ptc_cli::config::{Config, TrustStore, FILE_NAME};
use ptc_packs::skills::{self, Origin};

/// `ptc trust` options.
#[derive(Args, Debug)]
pub struct TrustArgs {
    /// The configuration to trust (default: ptc.toml in the workspace root).
    #[arg(long, value_name = "FILE", conflicts_with = "root")]
    config: Option<PathBuf>,
    /// The workspace root whose ptc.toml to trust (default: the current directory).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Forget the file instead (it may then be deleted without ptc refusing to start).
    #[arg(long)]
    forget: bool,
    /// Trust (or with --forget, forget) the workspace's skills as their files are now,
    /// instead of its ptc.toml.
    #[arg(long, conflicts_with = "config")]
    skills: bool,
}

/// `ptc trust`.
pub fn main(args: TrustArgs) -> Result<ExitCode, String> {
    let store = TrustStore::default_location()
        .ok_or("neither XDG_CONFIG_HOME nor HOME is set: ptc has no trust store")?;
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    if args.skills {
        return trust_skills(&store, args.root.as_deref().unwrap_or(&cwd), args.forget);
    }
    let path = match (&args.config, &args.root) {
        (Some(file), _) => file.clone(),
        (None, Some(root)) => root.join(FILE_NAME),
        (None, None) => cwd.join(FILE_NAME),
    };
    // The workspace as `ptc run` would see it from here: a path inside it is read through no
    // symbolic link, as `ptc run` reads it.
    let workspace = args.root.as_deref().unwrap_or(&cwd);
    let workspace =
        std::fs::canonicalize(workspace).map_err(|e| format!("{}: {e}", workspace.display()))?;
    let (canonical, text) = if args.forget {
        let parent = path.parent().unwrap_or(std::path::Path::new("."));
        let dir =
            std::fs::canonicalize(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        (
            dir.join(path.file_name().unwrap_or_default()),
            String::new(),
        )
    } else {
        let file = Config::read_file(&path, &workspace)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("{}: no such file", path.display()))?;
        (file.real, file.text)
    };
    let root = match &args.root {
        Some(_) => workspace,
        None => canonical.parent().map(PathBuf::from).unwrap_or_default(),
    };
    if store.is_inside(&root) {
        return Err(format!(
            "the trust store {} is inside the workspace {}, where a program could forge it; \
             set XDG_CONFIG_HOME to a directory outside the workspace",
            store.path().display(),
            root.display()
        ));
    }
    if args.forget {
        store.set(&canonical, None)?;
        crate::output::stderr_line(&format!("ptc: forgot {}", canonical.display()));
        return Ok(ExitCode::SUCCESS);
    }
    // Refuse to trust what ptc could not load anyway.
    let config = Config::parse(&text, Some(&canonical)).map_err(|e| e.to_string())?;
    let hash = sha256_hex(text.as_bytes());
    store.set(&canonical, Some(&hash))?;
    crate::output::stderr_line(&format!(
        "ptc: trusted {} (sha256 {}) in {}",
        canonical.display(),
        &hash[..16],
        store.path().display()
    ));
    for server in &config.mcp {
        crate::output::stderr_line(&format!(
            "ptc:   it starts [[mcp]] `{}`: {} {}",
            server.name,
            server.command,
            server.args.join(" ")
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// `ptc trust --skills`: record (or forget) the digest of each skill in the workspace, found
/// where `ptc run` would look with the workspace's configuration.
fn trust_skills(store: &TrustStore, root: &Path, forget: bool) -> Result<ExitCode, String> {
    let root = std::fs::canonicalize(root).map_err(|e| format!("{}: {e}", root.display()))?;
    if store.is_inside(&root) {
        return Err(format!(
            "the trust store {} is inside the workspace {}, where a program could forge it",
            store.path().display(),
            root.display()
        ));
    }
    let loaded = Config::discover_trusted(None, &root, Some(store)).map_err(|e| e.to_string())?;
    let found = skills::discover(
        &loaded.config.skills.sources(&root),
        std::slice::from_ref(&root),
    );
    for problem in &found.problems {
        crate::output::stderr_line(&format!("ptc: {problem}"));
    }
    let workspace: Vec<_> = found
        .skills
        .iter()
        .filter(|s| s.origin == Origin::Workspace)
        .collect();
    if workspace.is_empty() {
        return Err(format!(
            "no skill found in the workspace {}",
            root.display()
        ));
    }
    for skill in workspace {
        let digest = (!forget).then_some(skill.digest.as_str());
        store.set(&skill.dir, digest)?;
        let verb = if forget { "forgot" } else { "trusted" };
        crate::output::stderr_line(&format!(
            "ptc: {verb} skill `{}` ({}): {}",
            skill.name, skill.shown, skill.description
        ));
    }
    Ok(ExitCode::SUCCESS)
}
