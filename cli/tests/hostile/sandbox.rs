//! `bash`'s kernel sandbox and configuration a program cannot forge: real processes on the
//! real kernel (Landlock, seccomp, namespaces), through the pipeline and through the CLI.

use std::net::TcpListener;
use std::path::{Path, PathBuf};

use ptc::{ToolExecutionInput, ToolExecutionResult, ToolRegistry};
use ptc_packs::builtin::Builtin;
use ptc_packs::sandbox::{SandboxConfig, SandboxMode};
use ptc_packs::PackContext;
use serde_json::{json, Value};

use crate::trust::{ptc, stderr, Workspace};

/// `<tmp>/root` (the workspace) beside `<tmp>/outside`, with a registry holding the builtin
/// pack under `sandbox`.
struct Sandboxed {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    registry: ToolRegistry,
}

impl Sandboxed {
    fn new(configure: impl FnOnce(&Path, &mut SandboxConfig)) -> Sandboxed {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let (root, outside) = (base.join("root"), base.join("outside"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let mut ctx = PackContext::new(root.clone());
        configure(&base, &mut ctx.sandbox);
        let registry = ToolRegistry::new();
        Builtin::new(&ctx).unwrap().register(&registry).unwrap();
        Sandboxed {
            _tmp: tmp,
            root,
            outside,
            registry,
        }
    }

    async fn call(&self, name: &str, args: Value) -> ToolExecutionResult {
        self.registry
            .dispatch(ToolExecutionInput::new("c1", name, args))
            .await
    }

    async fn bash(&self, command: &str) -> (Value, String) {
        let r = self
            .call("bash", json!({"command": command, "description": "test"}))
            .await;
        assert!(!r.is_error(), "{}", text(&r));
        (Value::clone(r.value().unwrap()), text(&r))
    }
}

fn text(r: &ToolExecutionResult) -> String {
    ptc::content_text(&r.content)
}

#[tokio::test]
async fn sandbox_blocks_writes_outside_the_root_and_says_so() {
    let s = Sandboxed::new(|_, _| {});
    let target = s.outside.join("escaped");
    let (value, text) = s.bash(&format!("touch {}", target.display())).await;
    assert!(!target.exists());
    assert_ne!(value["exit_code"], 0);
    assert!(
        text.ends_with("[sandbox: file access denied under workspace-write mode]"),
        "{text}"
    );
    // Inside the root and in $TMPDIR, writes work; the temp dir is private to its owner (mode
    // 0700) and kept for the owner's next call.
    let (value, _) = s
        .bash("echo ok > inside && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo \"$TMPDIR\"")
        .await;
    assert!(s.root.join("inside").exists());
    let stdout = value["stdout"].as_str().unwrap();
    let tmpdir = stdout.lines().nth(1).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(tmpdir).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "{tmpdir}");
    let (value, _) = s.bash("cat \"$TMPDIR/t\"").await;
    assert_eq!(value["stdout"], "t\n");
}

#[tokio::test]
async fn sandbox_read_only_mode_blocks_writes_in_the_root_too() {
    let s = Sandboxed::new(|_, c| c.mode = SandboxMode::ReadOnly);
    let (_, text) = s.bash("echo x > file").await;
    assert!(!s.root.join("file").exists());
    assert!(
        text.ends_with("[sandbox: file access denied under read-only mode]"),
        "{text}"
    );
    let (value, _) = s.bash("echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"").await;
    assert_eq!(value["stdout"], "t\n");
}

#[tokio::test]
async fn sandbox_hides_configured_deny_paths() {
    let s = Sandboxed::new(|base, c| c.deny_read = vec![base.join("outside/secrets")]);
    std::fs::create_dir_all(s.outside.join("secrets")).unwrap();
    std::fs::write(s.outside.join("secrets/key"), "TOP-SECRET-KEY").unwrap();
    std::fs::write(s.outside.join("public"), "public text").unwrap();
    // The sandbox is prepared per call, so the deny path made after setup is masked too.
    let (value, text) = s
        .bash(&format!(
            "cat {0}/public; cat {0}/secrets/key; ls {0}/secrets",
            s.outside.display()
        ))
        .await;
    assert!(!text.contains("TOP-SECRET-KEY"), "{text}");
    assert_eq!(value["stdout"], "public text");
    assert!(text.contains("[sandbox: file access denied"), "{text}");
}

#[tokio::test]
async fn sandbox_denies_tcp_to_a_local_listener_unless_full_access() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let s = Sandboxed::new(|_, _| {});
    let (value, text) = s.bash(&probe).await;
    assert_ne!(value["stdout"], "connected\n");
    assert!(
        text.ends_with("[sandbox: network access denied under workspace-write mode]"),
        "{text}"
    );
    let open = Sandboxed::new(|_, c| c.mode = SandboxMode::DangerFullAccess);
    let (value, _) = open.bash(&probe).await;
    assert_eq!(value["stdout"], "connected\n");
    listener.accept().unwrap();
    // `network = true` allows it under the sandbox.
    let net = Sandboxed::new(|_, c| c.network = true);
    let (value, _) = net.bash(&probe).await;
    assert_eq!(value["stdout"], "connected\n");
}

#[tokio::test]
async fn sandbox_kills_setsid_descendants_with_the_call() {
    let s = Sandboxed::new(|_, _| {});
    let marker = format!("ptc-setsid-{}", std::process::id());
    // The survivor would touch `marker` once its sleep ends; readiness is the `ready` file.
    let (value, _) = s
        .bash(&format!(
            "setsid bash -c 'echo > ready; exec -a {marker} sh -c \"sleep 2; touch marker\"' & \
             while [ ! -e ready ]; do :; done; echo started"
        ))
        .await;
    assert_eq!(value["stdout"], "started\n");
    // The call has ended and no process of it is left (the namespace died with its init
    // before the call returned), so nothing will ever touch the marker.
    assert!(
        processes_with(&marker).is_empty(),
        "a setsid process survived"
    );
    assert!(!s.root.join("marker").exists());
}

#[tokio::test]
async fn sandbox_keeps_normal_commands_working() {
    let s = Sandboxed::new(|_, _| {});
    std::fs::write(s.root.join("a.txt"), "a").unwrap();
    let (value, text) = s
        .bash(
            "git init -q . && git status --short && ls && cargo --version >/dev/null && \
             printf 'int main(void){return 7;}' > \"$TMPDIR/m.c\" && cc \"$TMPDIR/m.c\" -o m && \
             { ./m; echo \"built $?\"; }",
        )
        .await;
    assert_eq!(value["exit_code"], 0, "{text}");
    assert_eq!(value["stdout"], "?? a.txt\na.txt\nbuilt 7\n", "{text}");
}

#[tokio::test]
async fn sandbox_protects_the_active_config_from_write_edit_and_bash() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let config = root.join("ptc.toml");
    std::fs::write(&config, "mode = \"code\"\n").unwrap();
    let mut ctx = PackContext::new(root.clone());
    ctx.sandbox = SandboxConfig {
        protected: vec![config.clone()],
        ..SandboxConfig::default()
    };
    let registry = ToolRegistry::new();
    Builtin::new(&ctx).unwrap().register(&registry).unwrap();
    let call = |name: &str, args: Value| {
        registry.dispatch(ToolExecutionInput::new("c1", name.to_string(), args))
    };
    let r = call(
        "write",
        json!({"file_path": "ptc.toml", "content": "[[mcp]]\n"}),
    )
    .await;
    assert_eq!(
        r.error_code(),
        Some(ptc::codes::TOOL_DENIED),
        "{}",
        text(&r)
    );
    let r = call(
        "edit",
        json!({"file_path": "./ptc.toml", "old_string": "code", "new_string": "native"}),
    )
    .await;
    assert_eq!(
        r.error_code(),
        Some(ptc::codes::TOOL_DENIED),
        "{}",
        text(&r)
    );
    let r = call(
        "bash",
        json!({"command": "echo '[[mcp]]' >> ptc.toml; rm -f ptc.toml; mv ptc.toml x", "description": "t"}),
    )
    .await;
    assert!(
        text(&r).contains("[sandbox: file access denied"),
        "{}",
        text(&r)
    );
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "mode = \"code\"\n"
    );
    // A symlink to it is the same file for write.
    std::os::unix::fs::symlink(&config, root.join("link")).unwrap();
    let r = call("write", json!({"file_path": "link", "content": "x"})).await;
    assert_eq!(
        r.error_code(),
        Some(ptc::codes::TOOL_DENIED),
        "{}",
        text(&r)
    );
}

/// Host pids of live processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat.rsplit(") ").next().unwrap_or("").starts_with('Z');
        if !zombie && String::from_utf8_lossy(&cmdline).contains(marker) {
            out.push(pid);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Through the CLI: the full run path (the helpers live with the trust cases, `crate::trust`).
// ---------------------------------------------------------------------------------------

#[test]
fn sandbox_cli_run_confines_bash_and_protects_the_config() {
    let w = Workspace::new();
    std::fs::write(w.root.join("ptc.toml"), "mode = \"code\"\n").unwrap();
    let outside = w.root.parent().unwrap().join("outside-file");
    let program = format!(
        "const a = await tools.bash({{command: 'touch {}', description: 'escape'}});\n\
         const b = await tools.bash({{command: 'echo x >> ptc.toml', description: 'forge'}});\n\
         let c; try {{ await tools.write({{file_path: 'ptc.toml', content: 'x'}}); c = 'written'; }}\n\
         catch (e) {{ c = e.message; }}\n\
         return [a.sandbox, b.sandbox, c];",
        outside.display()
    );
    let o = ptc(
        &w.xdg,
        &[
            "run",
            "--tools",
            "builtin",
            "--root",
            w.root.to_str().unwrap(),
            "--json",
            "-",
        ],
        &program,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(!outside.exists());
    assert!(
        out.matches("file access denied under workspace-write mode")
            .count()
            >= 2,
        "{out}"
    );
    assert!(out.contains("active configuration"), "{out}");
    assert_eq!(
        std::fs::read_to_string(w.root.join("ptc.toml")).unwrap(),
        "mode = \"code\"\n"
    );
    // --sandbox danger-full-access lifts the sandbox (the operator's explicit choice).
    let o = ptc(
        &w.xdg,
        &[
            "run",
            "--tools",
            "builtin",
            "--root",
            w.root.to_str().unwrap(),
            "--sandbox",
            "danger-full-access",
            "-",
        ],
        &format!(
            "return (await tools.bash({{command: 'touch {}', description: 'x'}})).exit_code",
            outside.display()
        ),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(outside.exists());
}
