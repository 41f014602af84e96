//! Starting every declared server: in parallel (at most [`StartOptions::parallel`] at once),
//! registered in declaration order whatever finishes first, warm from the tools cache where
//! it can be, and tolerant of failures unless strict.
//!
//! - **Cold**: a server without a usable cache entry is started (spawn, `initialize`,
//!   `tools/list`, within its startup timeout) and its list is cached.
//! - **Warm**: a server whose list is cached registers those tools without starting; the
//!   first call starts it ([`McpClient::warm`]), or [`start_warm`] does in the
//!   background, and its real list then replaces the cached one (`tools/list_changed`
//!   follows for `ptc serve`'s clients).
//! - **Tolerant** (the default): a server that fails is left out, with its error in
//!   [`Servers::failed`]; the others are registered. **Strict**: the first failure abandons
//!   the starts in progress, every started server is shut down and reaped, and the error is
//!   returned; strict starts every server now (a cached list would vouch for nothing).
//!
//! When `stop` fires (ptc is shutting down), starts in progress are abandoned (their processes
//! killed and reaped), started servers are shut down, and [`McpError::Cancelled`] returns.

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::cache::{CacheEntry, Cached, ToolsCache};
use super::pack::register_client;
use super::{McpClient, McpError, McpPack, McpServerSpec};
use ptc::ToolRegistry;

/// Servers starting at once by default. Starting is mostly waiting (an interpreter loading,
/// a package manager resolving, a handshake), so overlap pays well past the core count; but
/// each start also spawns an interpreter taking tens of MB and a burst of CPU, so a catalog
/// of dozens is started in waves of this many rather than all at once.
pub const DEFAULT_PARALLEL: usize = 8;

/// How the declared servers start.
#[derive(Debug, Clone)]
pub struct StartOptions {
    /// Servers starting at once (at least 1).
    pub parallel: usize,
    /// One failed server stops them all (all-or-nothing; no warm start).
    pub strict: bool,
    /// Where the servers' lists are kept (`None`: no cache; every server starts now).
    pub cache: Option<ToolsCache>,
}

impl Default for StartOptions {
    fn default() -> Self {
        StartOptions {
            parallel: DEFAULT_PARALLEL,
            strict: false,
            cache: None,
        }
    }
}

/// The declared servers, registered.
#[derive(Debug, Default)]
pub struct Servers {
    /// The registered servers, in declaration order.
    pub packs: Vec<McpPack>,
    /// The servers that failed, in declaration order; their tools are absent.
    pub failed: Vec<McpError>,
    /// What the cache said: a file ignored and why, a list not written.
    pub notes: Vec<String>,
}

/// One declared server on its way to the registry.
struct Plan {
    spec: McpServerSpec,
    entry: Option<CacheEntry>,
    cached: Option<Cached>,
}

/// Start (or warm) every server of `specs` and register their tools in declaration order;
/// see the module documentation for what `options` and `stop` change.
pub async fn start_servers(
    registry: &ToolRegistry,
    specs: Vec<McpServerSpec>,
    options: &StartOptions,
    stop: &CancellationToken,
) -> Result<Servers, McpError> {
    let mut notes = Vec::new();
    let plans: Vec<Plan> = specs
        .into_iter()
        .map(|spec| plan(spec, options, &mut notes))
        .collect();
    let abort = stop.child_token();
    let mut outcomes: Vec<Option<Result<McpClient, McpError>>> =
        plans.iter().map(|_| None).collect();
    let mut starts = futures::stream::iter(plans.iter().enumerate().map(|(i, plan)| {
        let abort = abort.clone();
        async move { (i, open(plan, stop, &abort).await) }
    }))
    .buffer_unordered(options.parallel.max(1));
    while let Some((i, (outcome, note))) = starts.next().await {
        notes.extend(note);
        if options.strict && outcome.is_err() {
            abort.cancel();
        }
        outcomes[i] = Some(outcome);
    }
    drop(starts);
    let outcomes: Vec<Result<McpClient, McpError>> = outcomes.into_iter().flatten().collect();
    let stopping = stop.is_cancelled() && !outcomes.is_empty();
    if stopping || (options.strict && outcomes.iter().any(Result::is_err)) {
        return Err(abandon(outcomes, stop).await);
    }
    let mut servers = Servers {
        notes,
        ..Servers::default()
    };
    for (plan, outcome) in plans.into_iter().zip(outcomes) {
        let registered = match outcome {
            Ok(client) => register_client(registry, client, plan.entry, stop).await,
            Err(e) => Err(e),
        };
        match registered {
            Ok(pack) => servers.packs.push(pack),
            Err(e) if options.strict => {
                for pack in servers.packs {
                    pack.client.shutdown().await;
                    pack.dispose();
                }
                return Err(e);
            }
            Err(e) => servers.failed.push(e),
        }
    }
    Ok(servers)
}

/// Start the warm `clients` (registered from the cache, not started yet) now, `parallel` at
/// a time, each refreshing its list when it answers; `failed` hears each that fails (a start
/// abandoned because ptc stops is not a failure). Abort the task to abandon the starts in
/// progress (their processes are killed and reaped).
pub fn start_warm(
    clients: &[McpClient],
    parallel: usize,
    failed: impl Fn(McpError) + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    let warm: Vec<McpClient> = clients
        .iter()
        .filter(|c| c.starts() == 0)
        .cloned()
        .collect();
    tokio::spawn(async move {
        let mut starts = futures::stream::iter(warm)
            .map(|client| async move { client.connect().await.err() })
            .buffer_unordered(parallel.max(1));
        while let Some(error) = starts.next().await {
            match error {
                Some(McpError::Cancelled { .. }) | None => {}
                Some(e) => failed(e),
            }
        }
    })
}

/// Decide how `spec` starts: warm from its cache entry when there is a usable one (never when
/// strict); a file that cannot be believed is noted and ignored.
fn plan(spec: McpServerSpec, options: &StartOptions, notes: &mut Vec<String>) -> Plan {
    let entry = options.cache.as_ref().map(|cache| cache.entry(&spec));
    let cached = match &entry {
        Some(entry) if !options.strict => match entry.read() {
            Ok(cached) => cached,
            Err(reason) => {
                notes.push(format!(
                    "MCP server `{}`: tools cache {} ignored ({reason}); starting it",
                    spec.name,
                    entry.path().display()
                ));
                None
            }
        },
        _ => None,
    };
    Plan {
        spec,
        entry,
        cached,
    }
}

/// The client of `plan`: warm from its cached tools, else started now (until `abort`) and its
/// list cached; with a note when the list could not be written.
async fn open(
    plan: &Plan,
    stop: &CancellationToken,
    abort: &CancellationToken,
) -> (Result<McpClient, McpError>, Option<String>) {
    if let Some(cached) = &plan.cached {
        let warm = McpClient::warm(
            plan.spec.clone(),
            cached.tools.clone(),
            cached.server.clone(),
            stop,
        );
        return (warm, None);
    }
    let started = McpClient::start_until(plan.spec.clone(), abort).await;
    let note = match (&started, &plan.entry) {
        (Ok(client), Some(entry)) => entry
            .write(client.tools(), client.server_info().as_ref())
            .err()
            .map(|e| {
                format!(
                    "MCP server `{}`: tools cache {} not written: {e}",
                    plan.spec.name,
                    entry.path().display()
                )
            }),
        _ => None,
    };
    (started, note)
}

/// Shut down every started client of `outcomes` (one at least; reaping their processes) and
/// return the error to report: the first that is not a cancellation ours caused, unless ptc
/// is stopping.
async fn abandon(outcomes: Vec<Result<McpClient, McpError>>, stop: &CancellationToken) -> McpError {
    let mut first: Option<McpError> = None;
    let mut cancelled: Option<McpError> = None;
    for outcome in outcomes {
        match outcome {
            Ok(client) => {
                if cancelled.is_none() && stop.is_cancelled() {
                    cancelled = Some(McpError::Cancelled {
                        server: client.spec().name.clone(),
                    });
                }
                client.shutdown().await;
            }
            Err(e @ McpError::Cancelled { .. }) => {
                cancelled.get_or_insert(e);
            }
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    match (stop.is_cancelled(), first, cancelled) {
        (true, _, Some(c)) => c,
        (_, Some(e), _) => e,
        (_, None, Some(c)) => c,
        (_, None, None) => McpError::Cancelled {
            server: String::new(),
        },
    }
}
