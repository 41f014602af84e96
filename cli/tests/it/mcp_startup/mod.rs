//! Starting many MCP servers (issue 20 §2) on the recorded catalog: in parallel and in
//! declaration order, warm from the tools/list cache, one failure leaving the others working
//! (`cli.rs`: through the `ptc` command).

mod cli;
mod support;

use std::time::{Duration, Instant};

use ptc::discovery::{Discovery, DiscoveryMode};
use ptc::ToolRegistry;
use ptc_mcp::{start_servers, McpClient, McpError, Servers, StartOptions, ToolsCache};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use support::{catalog, catalog_names, catalog_tools, spread, wrapped};

/// The registry's tool names (sorted).
fn names(registry: &ToolRegistry) -> Vec<String> {
    registry
        .view(None, None)
        .definitions()
        .iter()
        .map(|d| d.name().to_string())
        .collect()
}

/// Start options that keep tool lists in `cache`.
fn cached_in(cache: impl Into<std::path::PathBuf>) -> StartOptions {
    StartOptions {
        cache: Some(ToolsCache::new(cache)),
        ..StartOptions::default()
    }
}

/// Wait until `done` (10 s at most); the panic says what `state` was then.
async fn eventually(done: impl Fn() -> bool, state: impl Fn() -> String) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "{}", state());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn shutdown(servers: Servers) {
    for pack in servers.packs {
        pack.client.shutdown().await;
        pack.dispose();
    }
}

/// Two servers that each wait, before they answer anything, until the other has been
/// spawned: they start only when their starts overlap. One at a time, the first hangs until
/// its startup timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_startup_overlaps_two_servers_that_wait_for_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let mark = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (a, b) = (mark("a.spawned"), mark("b.spawned"));
    let wait = r#"touch "$1"; while [ ! -e "$2" ]; do sleep 0.01; done"#;
    let pair = |first: bool, timeout_ms| {
        let (name, me, other) = match first {
            true => ("time", &a, &b),
            false => ("fetch", &b, &a),
        };
        let mut spec = wrapped(catalog(name, 0), wait, &[me, other]);
        spec.startup_timeout_ms = Some(timeout_ms);
        spec
    };
    let registry = ToolRegistry::new();
    let stop = CancellationToken::new();
    let specs = vec![pair(true, 20_000), pair(false, 20_000)];
    let servers = start_servers(&registry, specs, &StartOptions::default(), &stop)
        .await
        .unwrap();
    assert!(servers.failed.is_empty(), "{:?}", servers.failed);
    assert_eq!(servers.packs.len(), 2);
    shutdown(servers).await;

    // One at a time (what ptc did before), the first never gets its partner.
    for mark in [&a, &b] {
        std::fs::remove_file(mark).unwrap();
    }
    let serial = StartOptions {
        parallel: 1,
        ..StartOptions::default()
    };
    let specs = vec![pair(true, 1_500), pair(false, 20_000)];
    let servers = start_servers(&ToolRegistry::new(), specs, &serial, &stop)
        .await
        .unwrap();
    assert!(
        matches!(&servers.failed[..], [McpError::StartupTimeout { server, .. }] if server == "time"),
        "{:?}",
        servers.failed
    );
    shutdown(servers).await;
}

/// Servers declared slowest first finish in the reverse order, and still register in the
/// declared one; together they take at most 0.6 of starting each alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_cold_start_registers_in_declaration_order_within_0_6_of_single_starts() {
    const N: usize = 14;
    let declared: Vec<String> = catalog_names().into_iter().take(N).collect();
    let specs: Vec<_> = declared
        .iter()
        .enumerate()
        .map(|(i, name)| catalog(name, spread(N - 1 - i, N)))
        .collect();
    let mut alone = Duration::ZERO;
    for spec in &specs {
        let started = Instant::now();
        let client = McpClient::start(spec.clone()).await.unwrap();
        alone += started.elapsed();
        client.shutdown().await;
    }
    let registry = ToolRegistry::new();
    let started = Instant::now();
    let servers = start_servers(
        &registry,
        specs,
        &StartOptions::default(),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    let together = started.elapsed();
    assert!(servers.failed.is_empty(), "{:?}", servers.failed);
    // Declaration order: the servers, and each one's tools in the order it lists them.
    let packs: Vec<(String, Vec<String>)> = servers
        .packs
        .iter()
        .map(|p| (p.client.spec().name.clone(), p.tools.clone()))
        .collect();
    let expected: Vec<(String, Vec<String>)> = declared
        .iter()
        .map(|server| {
            let tools = catalog_tools(server);
            let tools = tools.iter().map(|t| format!("{server}__{t}")).collect();
            (server.clone(), tools)
        })
        .collect();
    assert_eq!(packs, expected);
    let mut all: Vec<String> = expected.into_iter().flat_map(|(_, tools)| tools).collect();
    all.sort();
    assert_eq!(names(&registry), all);
    let ratio = together.as_secs_f64() / alone.as_secs_f64();
    println!(
        "cold start of {N} catalog servers: {together:.2?} together, {alone:.2?} one after another: ratio {ratio:.2}"
    );
    assert!(ratio <= 0.6, "ratio {ratio:.2} > 0.6");
    shutdown(servers).await;
}

/// A warm start registers the cached tools without starting the server; its first start
/// lists it again and the real list replaces the cached one (in the registry and the cache).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_warm_start_uses_the_cached_list_until_the_server_answers() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("time.log");
    let mut spec = catalog("time", 0);
    spec.env
        .insert("CATALOG_LOG".into(), log.to_str().unwrap().into());
    let options = cached_in(dir.path().join("cache"));
    let stop = CancellationToken::new();
    let cold = start_servers(&ToolRegistry::new(), vec![spec.clone()], &options, &stop)
        .await
        .unwrap();
    shutdown(cold).await;
    // The cache now says the server has one tool, `ghost`.
    let file = std::fs::read_dir(dir.path().join("cache"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut cached: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(cached["server"]["name"], "catalog-time", "{cached}");
    cached["tools"] = json!([{ "name": "ghost", "inputSchema": { "type": "object" } }]);
    std::fs::write(&file, cached.to_string()).unwrap();
    std::fs::remove_file(&log).unwrap();

    let registry = ToolRegistry::new();
    let warm = start_servers(&registry, vec![spec], &options, &stop)
        .await
        .unwrap();
    assert_eq!(names(&registry), ["time__ghost"]);
    assert!(!log.exists(), "the server was started");
    let client = warm.packs[0].client.clone();
    assert_eq!(client.starts(), 0);
    client.connect().await.unwrap();
    let real = ["time__convert_time", "time__get_current_time"];
    let cached_first = || {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        serde_json::from_str::<Value>(&text).unwrap_or_default()["tools"][0]["name"].clone()
    };
    eventually(
        || names(&registry) == real && cached_first() == "get_current_time",
        || {
            format!(
                "not refreshed: {:?}, cache {}",
                names(&registry),
                cached_first()
            )
        },
    )
    .await;
    shutdown(warm).await;
}

/// A warm server that cannot start any more: its first start fails, and its cached tools are
/// withdrawn from the registry and forgotten by the cache (the next start is a cold one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_warm_server_that_cannot_start_loses_its_cached_tools() {
    let dir = tempfile::tempdir().unwrap();
    // While the directory `broken` exists, the server exits before its handshake.
    let broken = dir.path().join("broken");
    let fail = r#"if [ -d "$1" ]; then exit 3; fi"#;
    let spec = wrapped(catalog("time", 0), fail, &[broken.to_str().unwrap()]);
    let cache = dir.path().join("cache");
    let options = cached_in(&cache);
    let stop = CancellationToken::new();
    let cold = start_servers(&ToolRegistry::new(), vec![spec.clone()], &options, &stop)
        .await
        .unwrap();
    shutdown(cold).await;
    std::fs::create_dir(&broken).unwrap();
    let registry = ToolRegistry::new();
    let warm = start_servers(&registry, vec![spec], &options, &stop)
        .await
        .unwrap();
    assert_eq!(names(&registry).len(), 2);
    let err = warm.packs[0]
        .client
        .connect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("MCP server `time` could not be started"),
        "{err}"
    );
    let cached = || std::fs::read_dir(&cache).unwrap().count();
    eventually(
        || names(&registry).is_empty() && cached() == 0,
        || format!("still {:?}, {} cache files", names(&registry), cached()),
    )
    .await;
    shutdown(warm).await;
}

/// A server's `instructions` say what it is for on its line of discovery's overview, from its
/// handshake on a cold start and from the cache on a warm one (nothing started).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_instructions_head_its_overview_line_cold_and_warm() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("time.log");
    let mut spec = catalog("time", 0);
    spec.env.insert(
        "CATALOG_INSTRUCTIONS".into(),
        "Tells the time in any timezone.".into(),
    );
    spec.env
        .insert("CATALOG_LOG".into(), log.to_str().unwrap().into());
    let options = cached_in(dir.path().join("cache"));
    let stop = CancellationToken::new();
    let overview = |registry: &ToolRegistry| {
        std::mem::forget(registry.set_discovery(Discovery {
            mode: DiscoveryMode::On,
            ..Discovery::default()
        }));
        let listed = registry.view(None, None).listed_tools().unwrap();
        listed
            .iter()
            .map(|t| t.schema.description.as_str())
            .collect::<String>()
    };
    let line = "\n- time (2): Tells the time in any timezone.\n";
    let registry = ToolRegistry::new();
    ptc::discovery::register(&registry).unwrap();
    let cold = start_servers(&registry, vec![spec.clone()], &options, &stop)
        .await
        .unwrap();
    assert!(
        overview(&registry).contains(line),
        "{}",
        overview(&registry)
    );
    shutdown(cold).await;
    assert!(
        !overview(&registry).contains("Tells the time"),
        "the group outlived its server"
    );

    std::fs::remove_file(&log).unwrap();
    let registry = ToolRegistry::new();
    ptc::discovery::register(&registry).unwrap();
    let warm = start_servers(&registry, vec![spec], &options, &stop)
        .await
        .unwrap();
    assert!(
        overview(&registry).contains(line),
        "{}",
        overview(&registry)
    );
    assert!(!log.exists(), "the server was started");
    shutdown(warm).await;
}
