//! The parser-facing surfaces of ptc, as functions of arbitrary bytes that must never panic,
//! abort or hang. The fuzz targets (`fuzz_targets/*.rs`, run with `cargo fuzz`) call them on
//! generated input; `cli/tests/hostile/fuzz_corpus.rs` calls them on the kept corpus, so CI
//! replays every input the fuzzer found interesting.
//!
//! - [`program`]: program text through type stripping and the QuickJS engine;
//! - [`arguments`]: tool-argument text through materialisation, schema validation and the
//!   conversions between the engine and the host;
//! - [`config`]: `ptc.toml` text through parsing and policy checks;
//! - [`config_loader`]: workspace layouts (links, FIFOs, hard links) through configuration
//!   discovery and trust;
//! - [`paths`]: path arguments and glob patterns through the builtin file tools' workspace
//!   confinement and deny paths;
//! - [`mcp_stdio`]: bytes on `ptc serve`'s standard input through its line transport and
//!   rmcp, in code mode.
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ptc::schema::{ParameterSpec, ValueSpec};
use ptc::{CodeConfig, CodeExecutor, ToolDefinition, ToolError, ToolExecutionInput, ToolRegistry};
use ptc_engine::{Engine, Host, HostCall, Limits, Program, QuickJsEngine, RunFailure};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// One runtime for every input (a fuzzer calls the target millions of times).
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

/// Limits small enough that each input runs in milliseconds.
fn limits() -> Limits {
    Limits {
        wall_clock: Duration::from_millis(200),
        max_heap_bytes: 16 * 1024 * 1024,
        max_output_bytes: 256 * 1024,
    }
}

/// Text of the input (fuzzers produce any bytes; the surfaces take text).
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// A host whose `echo` returns its arguments and whose `value` returns a fixed value.
struct FuzzHost {
    value: Value,
}

impl Host for FuzzHost {
    fn call_tool(&self, name: &str, args: Value) -> Result<HostCall, RunFailure> {
        let value = match name {
            "value" => self.value.clone(),
            _ => args,
        };
        Ok(Box::pin(async move { Ok(value.into()) }))
    }
}

/// Run `source` in a fresh QuickJS sandbox; whatever it does, a report comes back.
fn run_program(source: String, value: Value) {
    let program = Program {
        source,
        tool_names: vec!["echo".into(), "value".into()],
        result_shapes: Default::default(),
        filename: "run_code.ts".into(),
    };
    let host = Arc::new(FuzzHost { value });
    let report = runtime().block_on(QuickJsEngine::new().run(
        program,
        host,
        limits(),
        CancellationToken::new(),
    ));
    if let Ok(Some(value)) = &report.outcome {
        let depth = ptc::schema::value::depth_up_to(value, usize::MAX);
        assert!(
            depth <= ptc::schema::value::MAX_DEPTH,
            "returned {depth} deep"
        );
    }
    if let Ok(Some(value)) = report.outcome {
        ptc::schema::value::drop_deep(value);
    }
}

/// Program text: strip it, then run it.
pub fn program(data: &[u8]) {
    let source = text(data);
    let _ = ptc_engine::strip_types(&source);
    run_program(source, Value::Null);
}

/// A tool whose parameters use every construct of the schema subset.
fn rich_tool() -> ToolDefinition {
    ToolDefinition::builder("rich")
        .description("Accepts a little of everything.")
        .parameters(
            ParameterSpec::new()
                .required("pattern", ValueSpec::string())
                .optional("limit", ValueSpec::integer())
                .optional("ratio", ValueSpec::number())
                .optional("flag", ValueSpec::boolean())
                .optional(
                    "mode",
                    ValueSpec::string().enum_values(["fast".into(), "slow".into()]),
                )
                .optional("tags", ValueSpec::array(ValueSpec::string()))
                .optional(
                    "either",
                    ValueSpec::one_of([ValueSpec::string(), ValueSpec::integer()]),
                )
                .optional(
                    "nested",
                    ValueSpec::object(false)
                        .required_property("a", ValueSpec::array(ValueSpec::json())),
                )
                .optional("any", ValueSpec::json()),
        )
        .output(ValueSpec::json())
        .execute_raw(|args, _| async move { Ok::<_, ToolError>(Value::clone(&args)) })
        .build()
        .expect("the rich tool is valid")
}

fn rich_registry() -> &'static ToolRegistry {
    static REGISTRY: OnceLock<ToolRegistry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let registry = ToolRegistry::new();
        registry.register(rich_tool()).expect("registers");
        registry
    })
}

/// Argument text: through the pipeline (materialise, depth, validation, body, output), and,
/// when it is JSON, as a tool result into a program and back out as its returned value.
pub fn arguments(data: &[u8]) {
    let text = text(data);
    let input = ToolExecutionInput::new("fuzz", "rich", text.clone());
    let result = runtime().block_on(rich_registry().dispatch(input));
    if let Some(code) = result.error().and_then(|e| e.code()) {
        assert!(
            [ptc::codes::INVALID_ARGS, ptc::codes::INVALID_TOOL_OUTPUT].contains(&code),
            "unexpected failure {code}"
        );
    }
    if let Ok(value) = ptc::schema::value::parse_unbounded(&text) {
        run_program(
            "const v = await tools.value({});\nawait tools.echo({ v });\nreturn v".into(),
            value,
        );
    }
}

/// `ptc.toml` text: parse it; if it parses, check its policies against some tool names.
pub fn config(data: &[u8]) {
    let text = text(data);
    if let Ok(config) = ptc_cli::config::Config::parse(&text, None) {
        let _ = config.policies.check_tools(["read", "bash", "run_code"]);
        let mut code = CodeConfig::quickjs();
        config.limits.apply(&mut code);
    }
}

/// Bytes on `ptc serve`'s standard input (code mode, testkit tools): every line gets its
/// answer or is dropped as JSON-RPC says, and the server ends when the input does. The
/// replies, in order.
pub fn mcp_stdio(data: &[u8]) -> Vec<Value> {
    let registry = ToolRegistry::new();
    ptc::testkit::register(&registry).expect("testkit registers");
    let mut code = CodeConfig::quickjs();
    code.limits = limits();
    code.default_mode = ptc::ToolMode::Code;
    CodeExecutor::new(code).install(&registry);
    let agent = ptc::Agent::new(ptc::ScopeKey::root("fuzz"));
    let serve_limits = ptc_mcp::ServeLimits {
        max_request_bytes: 64 * 1024,
        ..Default::default()
    };
    let server = ptc_mcp::PtcServer::new(registry, agent).with_limits(&serve_limits);
    let input = data.to_vec();
    let (output, mut reader) = tokio::io::duplex(1 << 20);
    runtime().block_on(async move {
        let served = ptc_mcp::serve_lines(
            server,
            std::io::Cursor::new(input),
            output,
            &serve_limits,
            CancellationToken::new(),
        );
        let drained = async {
            let mut replies = Vec::new();
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut reader, &mut replies).await;
            replies
        };
        let (served, replies) = tokio::time::timeout(Duration::from_secs(20), async {
            tokio::join!(served, drained)
        })
        .await
        .expect("ptc serve ends when its input ends");
        let _ = served;
        String::from_utf8_lossy(&replies)
            .lines()
            .map(|line| {
                serde_json::from_str::<Value>(line)
                    .unwrap_or_else(|e| panic!("a reply that is not JSON ({e}): {line}"))
            })
            .collect()
    })
}

/// A workspace laid out from `data` (links, FIFOs, directories and files at the places a
/// configuration is looked for) and a `ptc.toml` found in it: whatever the layout, a
/// configuration ptc reads from the workspace, or through a link from it, never applies in full
/// while nothing is trusted, and the loader neither panics nor blocks (a FIFO, a loop).
///
/// Each pair of bytes places one thing: the first picks the slot (`ptc.toml` of the root or of
/// its sub-folder, the sub-folder itself, a `link` entry), the second what goes there.
pub fn config_loader(data: &[u8]) {
    use std::os::unix::fs::symlink;
    use std::path::Path;
    use std::sync::atomic::{AtomicU64, Ordering};
    static CASE: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir().join(format!(
        "ptc-fuzz-loader-{}-{}",
        std::process::id(),
        CASE.fetch_add(1, Ordering::Relaxed)
    ));
    let (root, out) = (base.join("root"), base.join("out"));
    let sub = root.join("sub");
    for dir in [&root, &out, &sub] {
        std::fs::create_dir_all(dir).expect("a scratch directory");
    }
    let evil = "tools = [\"builtin\"]\n[[mcp]]\nname = \"evil\"\ncommand = \"true\"\n";
    std::fs::write(out.join("evil.toml"), evil).expect("a scratch file");
    std::fs::write(root.join("real.toml"), evil).expect("a scratch file");
    let slots = [
        root.join("ptc.toml"),
        sub.join("ptc.toml"),
        sub.clone(),
        root.join("link"),
    ];
    for pair in data.chunks(2).take(8) {
        let slot = &slots[pair[0] as usize % slots.len()];
        let what = pair.get(1).copied().unwrap_or(0) % 10;
        let _ = std::fs::remove_file(slot).or_else(|_| std::fs::remove_dir_all(slot));
        let _ = match what {
            0 => std::fs::write(slot, evil),
            1 => symlink(out.join("evil.toml"), slot),
            2 => symlink("../out/evil.toml", slot),
            3 => symlink(&out, slot),
            4 => symlink(root.join("real.toml"), slot),
            5 => mkfifo(slot),
            6 => std::fs::create_dir(slot),
            7 => symlink(slot, slot),
            8 => symlink(base.join("missing"), slot),
            _ => std::fs::hard_link(out.join("evil.toml"), slot),
        };
    }
    let (choice, explicit) = match data.len() % 4 {
        0 => (root.clone(), None),
        1 => (sub.clone(), None),
        2 => (root.clone(), Some(sub.join("ptc.toml"))),
        _ => (root.clone(), Some(root.join("link").join("evil.toml"))),
    };
    let store = ptc_cli::config::TrustStore::new(base.join("store/trusted.toml"));
    let loaded =
        ptc_cli::config::Config::discover_trusted(explicit.as_deref(), &choice, Some(&store));
    if let Ok(loaded) = loaded {
        assert!(
            loaded.config.mcp.is_empty(),
            "a workspace configuration applied in full with nothing trusted: {:?}",
            Path::new(&choice)
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// `mkfifo(3)`.
fn mkfifo(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: a valid NUL-terminated path; mkfifo reads nothing else.
    match unsafe { libc::mkfifo(path.as_ptr(), 0o600) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// The builtin file tools over a workspace with links in and out of it, a credential
/// directory and a `deny_read` path, each holding a secret: a path argument (or glob pattern)
/// from `data` may reach any of them, but no result ever shows a secret, and nothing outside
/// the workspace or under a denied path changes. The first byte picks the tool (`read`,
/// `glob`, `grep`, `write`, `edit`); the rest is the path.
pub fn paths(data: &[u8]) {
    use std::path::PathBuf;
    struct Tree {
        registry: ToolRegistry,
        guarded: Vec<PathBuf>,
    }
    const SECRET: &str = "SECRET-8d1f";
    static TREE: OnceLock<Tree> = OnceLock::new();
    let tree = TREE.get_or_init(|| {
        use std::os::unix::fs::symlink;
        let base = std::env::temp_dir().join(format!("ptc-fuzz-paths-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (root, outside) = (base.join("root"), base.join("outside"));
        for dir in ["root/dir", "root/.ssh", "root/private", "outside"] {
            std::fs::create_dir_all(base.join(dir)).expect("a scratch directory");
        }
        let secret = |path: PathBuf| std::fs::write(path, SECRET).expect("a scratch file");
        secret(outside.join("secret.txt"));
        secret(root.join(".ssh/id_rsa"));
        secret(root.join("private/key"));
        std::fs::write(root.join("dir/b.txt"), "x\n").expect("a scratch file");
        let _ = symlink(root.join("dir"), root.join("link-in"));
        let _ = symlink("../outside", root.join("link-out"));
        let _ = symlink(".ssh/id_rsa", root.join("link-secret"));
        let _ = symlink("private", root.join("link-private"));
        let mut ctx = ptc_packs::PackContext::new(root.clone());
        ctx.sandbox.deny_read.push(root.join("private"));
        let registry = ToolRegistry::new();
        ptc_packs::builtin::Builtin::new(&ctx)
            .expect("the builtin pack")
            .register(&registry)
            .expect("registers");
        Tree {
            registry,
            guarded: vec![
                outside.join("secret.txt"),
                root.join(".ssh/id_rsa"),
                root.join("private/key"),
            ],
        }
    });
    let Some((&tool, rest)) = data.split_first() else {
        return;
    };
    let path = text(rest);
    let (name, args) = match tool % 5 {
        0 => ("read", serde_json::json!({ "file_path": path })),
        1 => ("glob", serde_json::json!({ "pattern": path })),
        2 => (
            "grep",
            serde_json::json!({ "pattern": "SECRET|x", "path": path }),
        ),
        3 => (
            "write",
            serde_json::json!({ "file_path": path, "content": "w" }),
        ),
        _ => (
            "edit",
            serde_json::json!({ "file_path": path, "old_string": SECRET, "new_string": "e" }),
        ),
    };
    let result = runtime().block_on(
        tree.registry
            .dispatch(ToolExecutionInput::new("fuzz", name, args)),
    );
    let shown = format!("{:?} {:?}", result.content, result.value());
    assert!(
        !shown.contains(SECRET),
        "{name} {path:?} showed a secret: {shown}"
    );
    for file in &tree.guarded {
        let content = std::fs::read_to_string(file).unwrap_or_default();
        assert_eq!(
            content,
            SECRET,
            "{name} {path:?} changed {}",
            file.display()
        );
    }
}
