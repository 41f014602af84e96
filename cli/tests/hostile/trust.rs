//! Configuration a program cannot forge: trust by content, never by path. A workspace
//! `ptc.toml` reached through a symbolic link, or that is not a regular file, is refused; an
//! untrusted one only narrows; a trusted one that changed or vanished stops ptc.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

// ---------------------------------------------------------------------------------------
// The CLI's helpers (shared with `crate::sandbox`).
// ---------------------------------------------------------------------------------------

/// `ptc ARGS` with its trust store under `xdg`, reading `stdin`.
pub(crate) fn ptc(xdg: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(args)
        .env("XDG_CONFIG_HOME", xdg)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ptc runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A workspace whose `ptc.toml` declares an `[[mcp]]` server that, if started, leaves a
/// marker file (and then fails the MCP handshake); the trust store beside it.
pub(crate) struct Workspace {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub xdg: PathBuf,
    pub marker: PathBuf,
}

impl Workspace {
    pub fn new() -> Workspace {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let (root, xdg) = (base.join("root"), base.join("xdg"));
        std::fs::create_dir_all(&root).unwrap();
        let marker = base.join("mcp-started");
        std::fs::write(root.join("ptc.toml"), evil_config(&marker)).unwrap();
        Workspace {
            _tmp: tmp,
            root,
            xdg,
            marker,
        }
    }

    pub fn tools(&self) -> Output {
        ptc(
            &self.xdg,
            &["tools", "--root", self.root.to_str().unwrap()],
            "",
        )
    }

    /// `ptc tools` in the workspace `root` with the configuration `config`.
    pub fn tools_with(&self, root: &Path, config: &Path) -> Output {
        let (root, config) = (root.to_str().unwrap(), config.to_str().unwrap());
        ptc(
            &self.xdg,
            &["tools", "--root", root, "--config", config],
            "",
        )
    }

    pub fn trust(&self) -> Output {
        ptc(
            &self.xdg,
            &["trust", "--root", self.root.to_str().unwrap()],
            "",
        )
    }
}

#[test]
fn sandbox_untrusted_workspace_config_starts_no_mcp_server_until_trusted() {
    let w = Workspace::new();
    let o = w.tools();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!w.marker.exists(), "an untrusted [[mcp]] command ran");
    let err = stderr(&o);
    assert!(
        err.contains("not trusted") && err.contains("[[mcp]] `evil`") && err.contains("ptc trust"),
        "{err}"
    );
    // Its `tools` were ignored too: no builtin tools listed.
    assert!(!String::from_utf8_lossy(&o.stdout).contains("bash"));
    let o = w.trust();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(w.xdg.join("ptc/trusted.toml").is_file());
    // Trusted: the server is started (and, not being an MCP server, fails the setup).
    let o = w.tools();
    assert!(
        w.marker.exists(),
        "the trusted [[mcp]] command did not run: {}",
        stderr(&o)
    );
}

#[test]
fn sandbox_trusted_config_that_changed_or_vanished_is_an_error() {
    let w = Workspace::new();
    std::fs::write(w.root.join("ptc.toml"), "tools = [\"builtin\"]\n").unwrap();
    assert_eq!(w.trust().status.code(), Some(0));
    assert_eq!(w.tools().status.code(), Some(0));
    // A program drops a rule (here: adds a line); the next start refuses.
    std::fs::write(w.root.join("ptc.toml"), "tools = [\"builtin\"]\n# edited\n").unwrap();
    let o = w.tools();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("changed since you trusted it"),
        "{}",
        stderr(&o)
    );
    // Deleting it is no way out either.
    std::fs::remove_file(w.root.join("ptc.toml")).unwrap();
    let o = w.tools();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("trusted but is gone"), "{}", stderr(&o));
    let o = ptc(
        &w.xdg,
        &["trust", "--forget", "--root", w.root.to_str().unwrap()],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(w.tools().status.code(), Some(0));
}

/// An `[[mcp]]` configuration whose command leaves `marker` if it is ever started.
fn evil_config(marker: &Path) -> String {
    format!(
        "tools = [\"builtin\"]\n\n[[mcp]]\nname = \"evil\"\ncommand = \"sh\"\nargs = [\"-c\", \"touch {}\"]\n",
        marker.display()
    )
}

#[test]
fn hostile_symlinked_workspace_config_pointing_outside_is_refused() {
    // A program wrote its configuration outside the root (its $TMPDIR, a sibling folder) and
    // linked the workspace's ptc.toml to it: read as the operator's own, it would start the
    // program's [[mcp]] command as the operator.
    let w = Workspace::new();
    let evil = w.root.parent().unwrap().join("evil.toml");
    std::fs::write(&evil, evil_config(&w.marker)).unwrap();
    std::fs::remove_file(w.root.join("ptc.toml")).unwrap();
    std::os::unix::fs::symlink(&evil, w.root.join("ptc.toml")).unwrap();
    let o = w.tools();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!w.marker.exists(), "the linked [[mcp]] command ran");
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));

    // The same from a sub-folder the operator later works in (`../evil.toml`), and through a
    // linked directory on the way (`sub/ptc.toml` where `sub` links outside).
    let sub = w.root.join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::os::unix::fs::symlink("../../evil.toml", sub.join("ptc.toml")).unwrap();
    let o = ptc(&w.xdg, &["tools", "--root", sub.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = w.tools_with(&w.root, &w.root.join("sub/ptc.toml"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let linked_dir = w.root.join("linked");
    std::os::unix::fs::symlink(w.root.parent().unwrap(), &linked_dir).unwrap();
    let o = w.tools_with(&w.root, &linked_dir.join("evil.toml"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!w.marker.exists(), "a linked [[mcp]] command ran");

    // `ptc trust` will not vouch for a link either.
    let o = w.trust();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!w.xdg.join("ptc/trusted.toml").exists());

    // The operator's own file outside the workspace, named by path, still applies in full.
    let o = w.tools_with(&sub, &evil);
    assert!(
        w.marker.exists(),
        "the operator's --config did not apply: {}",
        stderr(&o)
    );
}

#[test]
fn hostile_workspace_config_that_is_a_fifo_or_huge_is_refused_without_hanging() {
    let w = Workspace::new();
    std::fs::remove_file(w.root.join("ptc.toml")).unwrap();
    let fifo = std::ffi::CString::new(w.root.join("ptc.toml").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let o = w.tools();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));

    std::fs::remove_file(w.root.join("ptc.toml")).unwrap();
    let big = std::fs::File::create(w.root.join("ptc.toml")).unwrap();
    big.set_len(64 << 30).unwrap();
    let o = w.tools();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("larger than"), "{}", stderr(&o));
}

#[test]
fn hostile_trust_store_replaced_by_a_link_is_refused_not_followed() {
    // A program that can write beside the store plants a link in its place, pointing at a
    // store of its own that vouches for its workspace configuration.
    let w = Workspace::new();
    let text = std::fs::read_to_string(w.root.join("ptc.toml")).unwrap();
    let forged = w.root.parent().unwrap().join("forged.toml");
    std::fs::write(
        &forged,
        format!(
            "[trusted]\n{:?} = {:?}\n",
            w.root.join("ptc.toml").to_str().unwrap(),
            ptc_cli::config::trust::sha256_hex(text.as_bytes())
        ),
    )
    .unwrap();
    std::fs::create_dir_all(w.xdg.join("ptc")).unwrap();
    std::os::unix::fs::symlink(&forged, w.xdg.join("ptc/trusted.toml")).unwrap();
    let o = w.tools();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!w.marker.exists(), "the forged store was believed");
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    // `ptc trust` neither reads nor writes through it.
    let o = w.trust();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&forged)
        .unwrap()
        .contains("[trusted]"));
}

#[test]
fn hostile_mcp_servers_of_an_operator_config_start_in_its_folder_not_the_workspace() {
    // `npx` prefers the current directory's node_modules, `python -m` its modules: a server
    // started in the workspace would run what a program planted there, outside the sandbox.
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let (root, operator) = (base.join("root"), base.join("operator"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&operator).unwrap();
    let marker = base.join("started-in");
    let config = operator.join("op.toml");
    std::fs::write(
        &config,
        format!(
            "[[mcp]]\nname = \"probe\"\ncommand = \"sh\"\nargs = [\"-c\", \"pwd > {}\"]\n",
            marker.display()
        ),
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(["tools", "--root", ".", "--config", config.to_str().unwrap()])
        .current_dir(&root)
        .env("XDG_CONFIG_HOME", base.join("xdg"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let started_in = std::fs::read_to_string(&marker)
        .unwrap_or_else(|_| panic!("the server did not start: {}", stderr(&o)));
    assert_eq!(started_in.trim(), operator.to_str().unwrap());
}
