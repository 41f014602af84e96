//! One running language server: started in the pack's sandbox on the background thread
//! (as background tasks are), initialized, then driven by three tasks there: a writer, a
//! reader that routes responses to their requests and notifications to the [`Inbox`], and
//! a driver that waits for the process and kills its process group when the server is
//! dropped, its owner ends, or it exits (a crash fails every pending request, and the
//! next call starts a new server).

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lsp_types::notification::Notification;
use lsp_types::request::Request;
use lsp_types::{ServerCapabilities, Url};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::config::LspServerConfig;
use super::documents::Documents;
use super::inbox::{self, Inbox};
use super::rpc;
use crate::builtin::background::Caller;
use crate::builtin::tasks::run_on_host;
use crate::sandbox::Sandbox;

/// How long `initialize` may take.
const INIT_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a new server is given to start reporting progress before the first query.
const START_SETTLE: Duration = Duration::from_secs(1);
/// The stderr kept to say why a server failed.
const STDERR_TAIL: usize = 4 * 1024;

type Pending = Mutex<HashMap<i64, oneshot::Sender<Result<Value, String>>>>;

/// One running server for one owner, root and language.
pub(crate) struct Server {
    /// The configured name (e.g. `typescript`).
    pub(crate) name: String,
    /// What it said it can do.
    pub(crate) capabilities: ServerCapabilities,
    /// Notifications it sent: progress and diagnostics.
    pub(crate) inbox: Arc<Inbox>,
    /// The documents it was told about.
    pub(crate) documents: tokio::sync::Mutex<Documents>,
    out: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Pending>,
    next_id: AtomicI64,
    /// Fires when the process is gone.
    gone: CancellationToken,
    /// Ends the process when the server is dropped.
    stop: CancellationToken,
    stderr: Arc<Mutex<String>>,
    /// The children of the spawned process (with namespaces, the namespace's init), waited
    /// for once it is killed.
    inits: Arc<Mutex<Vec<i32>>>,
    pid: Option<i32>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Server {
    /// Start `config`'s server in `root` for `owner`, confined by `sandbox`, and initialize it.
    pub(crate) async fn start(
        config: &LspServerConfig,
        root: &Path,
        sandbox: &Arc<Sandbox>,
        owner: &Caller,
    ) -> Result<Arc<Server>, String> {
        if let Some(why) = sandbox.unavailable() {
            return Err(why);
        }
        let (out, outgoing) = mpsc::unbounded_channel::<Vec<u8>>();
        let pending: Arc<Pending> = Arc::default();
        let inbox: Arc<Inbox> = Arc::default();
        let (gone, stop) = (CancellationToken::new(), CancellationToken::new());
        let stderr: Arc<Mutex<String>> = Arc::default();
        let inits: Arc<Mutex<Vec<i32>>> = Arc::default();
        let root_uri = Url::from_directory_path(root)
            .map_err(|()| format!("the root `{}` is not an absolute path", root.display()))?;
        let (isolated, pid) = {
            let (config, root, sandbox) = (config.clone(), root.to_path_buf(), sandbox.clone());
            let (pending, inbox, gone, stop) =
                (pending.clone(), inbox.clone(), gone.clone(), stop.clone());
            let (stderr, out, root_uri) = (stderr.clone(), out.clone(), root_uri.clone());
            let inits = inits.clone();
            let (ended, hold) = (owner.owner.ended(), owner.hold());
            run_on_host(async move {
                let confinement = sandbox
                    .prepare()
                    .map_err(|e| format!("cannot set up the sandbox: {e}"))?;
                let isolated = confinement.as_ref().is_some_and(|c| c.isolated());
                let mut command = std::process::Command::new(&config.command);
                command
                    .args(&config.args)
                    .current_dir(&root)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                crate::sandbox::detach(&mut command);
                if let Some(confinement) = &confinement {
                    confinement.apply(&mut command);
                }
                let mut child = tokio::process::Command::from(command)
                    .kill_on_drop(true)
                    .spawn()
                    .map_err(|e| format!("cannot start `{}`: {e}", config.command))?;
                let (stdin, stdout, err) =
                    (child.stdin.take(), child.stdout.take(), child.stderr.take());
                let (Some(mut stdin), Some(stdout), Some(mut err)) = (stdin, stdout, err) else {
                    return Err("the server's streams were not piped".to_string());
                };
                tokio::spawn(async move {
                    let mut outgoing = outgoing;
                    while let Some(bytes) = outgoing.recv().await {
                        if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                            break;
                        }
                    }
                });
                let tail = stderr.clone();
                let errors = tokio::spawn(async move {
                    let mut chunk = vec![0u8; 4096];
                    while let Ok(n @ 1..) = err.read(&mut chunk).await {
                        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                        tail.push_str(&String::from_utf8_lossy(&chunk[..n]));
                        let cut = tail.len().saturating_sub(STDERR_TAIL);
                        let cut = (cut..tail.len())
                            .find(|&i| tail.is_char_boundary(i))
                            .unwrap_or(0);
                        tail.drain(..cut);
                    }
                });
                tokio::spawn(read_loop(
                    BufReader::new(stdout),
                    pending.clone(),
                    inbox,
                    out,
                    root_uri,
                ));
                let pgid = child
                    .id()
                    .and_then(|id| i32::try_from(id).ok())
                    .map(Pid::from_raw);
                tokio::spawn(async move {
                    tokio::select! {
                        _ = child.wait() => {}
                        _ = stop.cancelled() => {}
                        _ = ended.cancelled() => {}
                    }
                    // Whatever it started goes with it (its group; with namespaces, its init).
                    if let Some(pgid) = pgid {
                        let _ = killpg(pgid, Signal::SIGKILL);
                    }
                    let _ = child.kill().await;
                    // What it wrote last says why it failed.
                    let _ = tokio::time::timeout(Duration::from_secs(2), errors).await;
                    // Its namespace is gone only once its init has exited.
                    let inits =
                        std::mem::take(&mut *inits.lock().unwrap_or_else(|e| e.into_inner()));
                    for init in inits {
                        exited(init).await;
                    }
                    gone.cancel();
                    fail_pending(&pending, "it exited");
                    drop(confinement);
                    drop(hold);
                });
                Ok::<_, String>((isolated, pgid.map(Pid::as_raw)))
            })
            .await
            .map_err(|e| e.to_string())??
        };
        let mut server = Server {
            name: config.name.clone(),
            capabilities: ServerCapabilities::default(),
            inbox,
            documents: tokio::sync::Mutex::new(Documents::new(config.extensions.clone())),
            out,
            pending,
            next_id: AtomicI64::new(1),
            gone,
            stop,
            stderr,
            inits,
            pid,
        };
        // In its own PID namespace our pid means nothing to it (a server that watches its
        // client's pid would see it gone and exit): it ends with its namespace instead.
        let options = super::config::initialization_options(config);
        let init = server.initialize(root_uri, (!isolated).then(std::process::id), options);
        let result = match tokio::time::timeout(INIT_TIMEOUT, init).await {
            Ok(result) => result,
            Err(_) => Err(format!(
                "it did not initialize within {} s",
                INIT_TIMEOUT.as_secs()
            )),
        };
        match result {
            Ok(capabilities) => server.capabilities = capabilities,
            Err(why) => return Err(server.failure(&why)),
        }
        server.notify::<lsp_types::notification::Initialized>(lsp_types::InitializedParams {});
        // A server that reports its indexing starts doing so right after `initialized`; a
        // first query must not slip in before (bounded: some servers never report).
        server.inbox.wait_reports_progress(START_SETTLE).await;
        if let Some(pid) = server.pid {
            *server.inits.lock().unwrap_or_else(|e| e.into_inner()) = children(pid);
        }
        Ok(Arc::new(server))
    }

    async fn initialize(
        &self,
        root: Url,
        pid: Option<u32>,
        options: Option<Value>,
    ) -> Result<ServerCapabilities, String> {
        #[allow(deprecated)] // `root_uri`: older servers read only it.
        let params = lsp_types::InitializeParams {
            process_id: pid,
            initialization_options: options,
            root_uri: Some(root.clone()),
            workspace_folders: Some(vec![lsp_types::WorkspaceFolder {
                uri: root,
                name: "root".into(),
            }]),
            capabilities: super::capabilities::client(),
            client_info: Some(lsp_types::ClientInfo {
                name: "ptc".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..Default::default()
        };
        let result = self
            .request::<lsp_types::request::Initialize>(params)
            .await?;
        Ok(result.capabilities)
    }

    /// Whether the process is gone (a crash, a kill, its owner's end).
    pub(crate) fn is_gone(&self) -> bool {
        self.gone.is_cancelled()
    }

    /// Send request `R` and wait for its result (a gone server fails it).
    pub(crate) async fn request<R: Request>(&self, params: R::Params) -> Result<R::Result, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, tx);
        if self.is_gone() {
            fail_pending(&self.pending, "it exited");
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": R::METHOD, "params": params});
        let _ = self.out.send(rpc::frame(&message));
        let guard = CancelOnDrop { server: self, id };
        let answer = rx.await.unwrap_or_else(|_| Err("it exited".into()));
        // Answered: nothing to cancel.
        std::mem::forget(guard);
        serde_json::from_value(answer?)
            .map_err(|e| format!("its answer to {} is not what LSP says: {e}", R::METHOD))
    }

    /// Send notification `N`.
    pub(crate) fn notify<N: Notification>(&self, params: N::Params) {
        let message = json!({"jsonrpc": "2.0", "method": N::METHOD, "params": params});
        let _ = self.out.send(rpc::frame(&message));
    }

    /// `why` the server failed, with the end of what it wrote to stderr.
    pub(crate) fn failure(&self, why: &str) -> String {
        let tail = self
            .stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let tail = tail.trim();
        match tail.is_empty() {
            true => format!("the {} language server failed: {why}", self.name),
            false => format!(
                "the {} language server failed: {why}; its stderr ends:\n{tail}",
                self.name
            ),
        }
    }
}

/// Tells the server a request is no longer awaited when its call was dropped.
struct CancelOnDrop<'a> {
    server: &'a Server,
    id: i64,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let pending = &self.server.pending;
        pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
        self.server
            .notify::<lsp_types::notification::Cancel>(lsp_types::CancelParams {
                id: lsp_types::NumberOrString::Number(self.id as i32),
            });
    }
}

/// The processes whose parent is `pid`.
fn children(pid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            // `pid (comm) state ppid …`: the fields after the last `)`.
            let fields = stat
                .rsplit_once(')')
                .map(|(_, rest)| rest)
                .unwrap_or_default();
            fields.split_whitespace().nth(1) == Some(&pid.to_string())
        })
        .collect()
}

/// Wait (at most 5 s) until process `pid` has exited: gone, or a zombie.
async fn exited(pid: i32) {
    for _ in 0..250 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = status
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next());
        if matches!(state, None | Some("Z" | "X")) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn fail_pending(pending: &Pending, why: &str) {
    let waiting: Vec<_> = pending
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .drain()
        .collect();
    for (_, tx) in waiting {
        let _ = tx.send(Err(why.to_string()));
    }
}

/// Route every message of `input` until it ends.
async fn read_loop(
    mut input: BufReader<tokio::process::ChildStdout>,
    pending: Arc<Pending>,
    inbox: Arc<Inbox>,
    out: mpsc::UnboundedSender<Vec<u8>>,
    root: Url,
) {
    while let Ok(Some(message)) = rpc::read(&mut input).await {
        let method = message["method"].as_str();
        match (method, message.get("id")) {
            (Some(method), Some(id)) => {
                if method == "window/workDoneProgress/create" {
                    inbox.created(&message["params"]);
                }
                let reply = match inbox::answer(method, &message["params"], &root) {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err(()) => json!({"jsonrpc": "2.0", "id": id, "error": {
                        "code": -32601, "message": format!("{method} is not handled")}}),
                };
                let _ = out.send(rpc::frame(&reply));
            }
            (Some(method), None) => inbox.notification(method, message["params"].clone()),
            (None, Some(id)) => {
                let Some(id) = id.as_i64() else { continue };
                let tx = pending
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                let result = match message.get("error") {
                    Some(error) => Err(format!(
                        "it answered with an error: {}",
                        error["message"].as_str().unwrap_or("no message")
                    )),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                if let Some(tx) = tx {
                    let _ = tx.send(result);
                }
            }
            (None, None) => {}
        }
    }
}
