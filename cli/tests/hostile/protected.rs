//! The trust store (and the active configuration) in a tree `bash` may write: no ancestor can
//! be moved aside and replaced, and a store that does not exist yet cannot be made.

use std::path::{Path, PathBuf};

use ptc::{ToolExecutionInput, ToolRegistry};
use ptc_packs::builtin::Builtin;
use ptc_packs::sandbox::SandboxConfig;
use ptc_packs::PackContext;
use serde_json::json;

/// A workspace root that is a fake `$HOME`, the trust store `.config/ptc/trusted.toml` in it
/// (written with `store` when given) protected, as `ptc` protects it.
struct Home {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
    registry: ToolRegistry,
}

impl Home {
    fn new(store: Option<&str>) -> Home {
        Home::at(".", store)
    }

    /// The workspace root at `root` under the fake `$HOME`, which is writable too.
    fn at(root: &str, store: Option<&str>) -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let home = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(home.join(".config")).unwrap();
        let store_path = home.join(".config/ptc/trusted.toml");
        let root = home.join(root);
        std::fs::create_dir_all(&root).unwrap();
        let root = std::fs::canonicalize(root).unwrap();
        if let Some(text) = store {
            std::fs::create_dir_all(store_path.parent().unwrap()).unwrap();
            std::fs::write(&store_path, text).unwrap();
        }
        let mut ctx = PackContext::new(root.clone());
        ctx.sandbox = SandboxConfig {
            protected: vec![store_path.clone()],
            writable: vec![home],
            ..SandboxConfig::default()
        };
        let registry = ToolRegistry::new();
        Builtin::new(&ctx).unwrap().register(&registry).unwrap();
        Home {
            _tmp: tmp,
            root,
            store: store_path,
            registry,
        }
    }

    /// Run `command` in sandboxed bash: its exit code and output.
    async fn bash(&self, command: &str) -> (i64, String) {
        let r = self
            .registry
            .dispatch(ToolExecutionInput::new(
                "c1",
                "bash",
                json!({"command": command, "description": "t"}),
            ))
            .await;
        let text = ptc::content_text(&r.content);
        assert!(!r.is_error(), "{text}");
        (r.value().unwrap()["exit_code"].as_i64().unwrap(), text)
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[tokio::test]
async fn hostile_trust_store_ancestors_cannot_be_renamed_and_replaced() {
    let home = Home::new(Some("# the operator's\n"));
    for attack in [
        "mv .config/ptc .config/x && mkdir .config/ptc && echo forged > .config/ptc/trusted.toml",
        "mv .config .cfg && mkdir -p .config/ptc && echo forged > .config/ptc/trusted.toml",
        "echo forged > .config/ptc/new && mv .config/ptc/new .config/ptc/trusted.toml",
        "rm -rf .config",
        "echo forged > .config/ptc/trusted.toml",
    ] {
        let (code, text) = home.bash(attack).await;
        assert_ne!(code, 0, "{attack}: {text}");
        assert_eq!(
            read(&home.store).as_deref(),
            Some("# the operator's\n"),
            "{attack}: {text}"
        );
    }
    assert!(home.root.join(".config/ptc").is_dir());
    // The rest of the tree stays writable.
    let (code, text) = home
        .bash("echo ok > .config/other && mkdir -p .config/app && echo ok > .config/app/x")
        .await;
    assert_eq!(code, 0, "{text}");
}

#[tokio::test]
async fn hostile_missing_trust_store_in_a_writable_tree_cannot_be_made() {
    let home = Home::new(None);
    for attack in [
        "mkdir -p .config/ptc; echo forged > .config/ptc/trusted.toml",
        "mv .config/ptc .config/x; mkdir -p .config/ptc && echo forged > .config/ptc/trusted.toml",
        "mv .config .cfg && mkdir -p .config/ptc && echo forged > .config/ptc/trusted.toml",
    ] {
        let (code, text) = home.bash(attack).await;
        assert_ne!(code, 0, "{attack}: {text}");
        assert_eq!(read(&home.store), None, "{attack}: {text}");
    }
}

#[tokio::test]
async fn hostile_trust_store_is_kept_in_the_outermost_writable_tree() {
    // The root is `~/.config` itself, and `~` is writable too: the root cannot be moved aside.
    let home = Home::at(".config", Some("# the operator's\n"));
    for attack in [
        "cd .. && mv .config .cfg && mkdir -p .config/ptc && echo forged > .config/ptc/trusted.toml",
        "mv ptc x && mkdir ptc && echo forged > ptc/trusted.toml",
    ] {
        let (code, text) = home.bash(attack).await;
        assert_ne!(code, 0, "{attack}: {text}");
        assert_eq!(
            read(&home.store).as_deref(),
            Some("# the operator's\n"),
            "{attack}: {text}"
        );
    }
}
