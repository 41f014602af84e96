//! `ptc serve`: the registry offered to any MCP client.
//!
//! `tools/list` presents the tools as the registry's mode does for a model: `native`
//! lists the native tools, `code` only `run_code`, `both` the native tools plus
//! `run_code`. Wherever `run_code` is listed its description carries the generated SDK
//! section, since an MCP client passes tool descriptions, not system prompts, to its
//! model. `tools/call` runs one batch of one call through the registry's executor (the
//! full guarded pipeline), logged like any other batch; `notifications/cancelled`
//! fires the batch's signal. rmcp runs each request in its own task, so calls from one
//! client overlap, up to `max_concurrent_runs` ([`ServeLimits`]); later calls wait in a
//! bounded queue, and beyond it get a "busy" tool error. [`PtcServer::shutdown`] cancels
//! every run and waits for them to wind down (their tools reap their own processes).
//!
//! A client that sends a `progressToken` with `tools/call` gets the progress of that call
//! and its sub-calls ([`notify::Relay`]); every session is told
//! `notifications/tools/list_changed` when the tools it would list change, which includes
//! the tools its `search_tools` calls found when discovery is on (they join that session's
//! list, see [`ptc::discovery`]).
//!
//! Each MCP session is an [`Owner`] of background work (tasks, terminals): the server's
//! own for stdio, a fresh one per session over HTTP ([`PtcServer::for_session`]). A
//! session's owner ends when its last handle is dropped (the session closed or expired),
//! and [`PtcServer::shutdown`] ends every owner the server made and waits for their
//! processes to be gone.
//!
//! Both protocol eras are served: a request of the 2026-07-28 revision carries no session
//! ([`crate::stateless`]): its background work belongs to the instance's shared owner and
//! is reached by handle, and its questions (approvals, `ask_user_question`) go back to the
//! client as input-required results while the run waits here. Every `tools/call` result
//! names the instance that ran it in `_meta["ptc/instance"]` ([`PtcServer::with_instance`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as McpContent,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::approve::ElicitationApproval;
use super::ask::ElicitationQuestions;
use super::elicit::{Asker, ClientSlot};
use super::instance::DEFAULT_INSTANCE;
use super::limits::{Refused, RunGate};
use super::notify;
use super::stateless::{progress_of, sessionless, Stateless};
use super::ServeLimits;
use ptc::Agent;
use ptc::ContentBlock;
use ptc::ProgressSink;
use ptc::ToolExecutionResult;
use ptc::{ListedTool, ToolRegistry};
use ptc::{LogStep, ToolBatchExecutionError, ToolBatchInput, ToolCallBlock};
use ptc::{Owner, OwnerHandle};

/// An MCP server over a registry. Cheap to clone: clones share the registry, the agent
/// (and its owner), the call counter, the run gate and the shutdown signal (the HTTP
/// transport makes one per session with [`PtcServer::for_session`]).
#[derive(Clone)]
pub struct PtcServer {
    pub(crate) registry: ToolRegistry,
    pub(crate) agent: Agent,
    pub(crate) calls: Arc<AtomicU64>,
    pub(crate) runs: Arc<RunGate>,
    pub(crate) shutdown: CancellationToken,
    pub(crate) owners: Arc<Mutex<Vec<OwnerHandle>>>,
    /// Counts registry changes (see [`notify::changes`]).
    pub(crate) changes: Arc<watch::Sender<u64>>,
    /// This session's client, for approvals asked through it (when `elicit`).
    pub(crate) client: ClientSlot,
    /// Whether `ask` approvals go to the client (the host gave the agent no service).
    pub(crate) elicit: bool,
    /// Whether `ask_user_question` goes to the client (the host gave the agent no service).
    pub(crate) ask: bool,
    pub(crate) approval_timeout: std::time::Duration,
    /// This instance's id (`ptc/instance`; handles end in `@<instance>`).
    pub(crate) instance: Arc<str>,
    /// What requests without a session share on this instance.
    pub(crate) stateless: Arc<Stateless>,
    pub(crate) handle_idle: std::time::Duration,
    /// The tools whose parameters route (see [`crate::routed`]).
    pub(crate) routed: Arc<super::routed::RoutedTools>,
    /// Where `run_code` runs are kept as MCP tasks, if they are ([`crate::tasks`]).
    pub(crate) tasks: Option<Arc<dyn super::TaskStore>>,
    /// How long a task's run waits for a person before it is parked, if ever.
    pub(crate) park_after: Option<std::time::Duration>,
}

impl PtcServer {
    /// Serve `registry` as `agent` (its scope picks the executor and mode; its session,
    /// if any, logs every call as a batch `turn = n, step = 1` for the n-th call), with
    /// the default [`ServeLimits`].
    ///
    /// Background work of its calls belongs to `agent`'s owner, or to a new one when it has
    /// none.
    pub fn new(registry: ToolRegistry, agent: Agent) -> Self {
        let agent = match agent.owner() {
            Some(_) => agent,
            None => agent.with_owner(Owner::new("mcp")),
        };
        let elicit = agent.approval().is_none();
        let ask = agent.questions().is_none();
        let limits = ServeLimits::default();
        let instance: Arc<str> = DEFAULT_INSTANCE.into();
        let stateless = Arc::new(Stateless::new(
            instance.clone(),
            limits.handle_idle_timeout,
            limits.approval_timeout,
        ));
        let owners = agent
            .owner()
            .map(Owner::handle)
            .into_iter()
            .chain([stateless.owner.handle()])
            .collect();
        let server = PtcServer {
            changes: notify::changes(&registry),
            registry,
            agent,
            calls: Arc::new(AtomicU64::new(0)),
            runs: Arc::new(RunGate::new(&limits)),
            shutdown: CancellationToken::new(),
            owners: Arc::new(Mutex::new(owners)),
            client: ClientSlot::default(),
            elicit,
            ask,
            approval_timeout: limits.approval_timeout,
            stateless,
            instance,
            handle_idle: limits.handle_idle_timeout,
            routed: Arc::default(),
            tasks: None,
            park_after: None,
        };
        server.with_client()
    }

    /// This server as instance `id` (see [`crate::check_instance`] for what an id may be):
    /// every `tools/call` result says so in `_meta["ptc/instance"]`, and the handles of its
    /// tasks and terminals end in `@<id>`. Call it before serving.
    pub fn with_instance(mut self, id: &str) -> Self {
        self.instance = id.into();
        self.with_stateless()
    }

    /// The instance id.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// A fresh [`Stateless`] for this instance, its owner ended with the server's others.
    fn with_stateless(mut self) -> Self {
        self.stateless = Arc::new(Stateless::new(
            self.instance.clone(),
            self.handle_idle,
            self.approval_timeout,
        ));
        let mut owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        owners.retain(|o| !o.is_ended());
        owners.push(self.stateless.owner.handle());
        drop(owners);
        self
    }

    /// This server with a client slot of its own and, unless the host chose its own
    /// services, approvals (with an empty session memory) and `ask_user_question` asked
    /// through that client.
    fn with_client(mut self) -> Self {
        self.client = ClientSlot::default();
        self.agent = self.asking(self.agent.clone(), Asker::Session(self.client.clone()));
        self
    }

    /// `agent` asking approvals and questions through `asker`, unless the host chose its
    /// own services.
    pub(crate) fn asking(&self, mut agent: Agent, asker: Asker) -> Agent {
        if self.elicit {
            agent = agent.with_approval(ElicitationApproval::new(
                asker.clone(),
                self.approval_timeout,
            ));
        }
        if self.ask {
            agent = agent.with_questions(Arc::new(ElicitationQuestions {
                asker,
                timeout: self.approval_timeout,
            }));
        }
        agent
    }

    /// The server for one more MCP session: the same registry, agent scope, log, gate and
    /// shutdown, but a new [`Owner`] of background work, which ends when the last clone of
    /// the returned server is dropped (or at [`PtcServer::shutdown`]).
    pub fn for_session(&self) -> Self {
        let holding = ptc::Holding {
            instance: Some(self.instance.clone()),
            shared_idle: None,
        };
        let owner = Owner::holding("mcp-session", holding);
        let mut owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        owners.retain(|o| !o.is_ended());
        owners.push(owner.handle());
        drop(owners);
        PtcServer {
            agent: self.agent.clone().with_owner(owner),
            ..self.clone()
        }
        .with_client()
    }

    /// The owner of this server's (or session's) background work.
    pub fn owner(&self) -> Option<&Owner> {
        self.agent.owner()
    }

    /// Admit runs by `limits` (`max_concurrent_runs`, `max_queued_runs`), and ask approvals with its `approval_timeout`.
    pub fn with_limits(mut self, limits: &ServeLimits) -> Self {
        self.runs = Arc::new(RunGate::new(limits));
        self.approval_timeout = limits.approval_timeout;
        self.handle_idle = limits.handle_idle_timeout;
        self.with_client().with_stateless()
    }

    /// Offer `run_code` runs as MCP tasks (SEP-2663) to clients that declare the tasks
    /// extension, kept in `store` (a durable run store; see [`crate::tasks`]).
    pub fn with_tasks(mut self, store: Arc<dyn super::TaskStore>) -> Self {
        self.tasks = Some(store);
        self
    }

    /// Park a task's run that has waited `after` for a person (an approval, a question):
    /// it gives up its sandbox and lease, and resumes by replay once answered
    /// ([`TaskStore::park`](super::TaskStore::park)).
    pub fn with_park_after(mut self, after: std::time::Duration) -> Self {
        self.park_after = Some(after);
        self
    }

    /// The agent for task run `run`: its approvals and questions go through the task store
    /// (`tasks/get`, `tasks/update`) unless the host chose its own services. For a run
    /// resumed from the store, as for one begun as a task.
    pub fn task_agent(&self, run: &str) -> Agent {
        match &self.tasks {
            Some(store) => {
                let questions = super::task_questions::TaskQuestions {
                    store: store.clone(),
                    run: run.to_string(),
                    park_after: self.park_after,
                };
                self.asking(self.agent.clone(), Asker::Task(Arc::new(questions)))
            }
            None => self.agent.clone(),
        }
    }

    /// Cancel every run (running or waiting) and refuse new ones, then wait for the runs
    /// to wind down, at most `grace`; then end every owner this server made and wait (at
    /// most `grace` again) until their background processes are gone.
    pub async fn shutdown(&self, grace: std::time::Duration) {
        self.shutdown.cancel();
        self.runs.drain(grace).await;
        let owners = std::mem::take(&mut *self.owners.lock().unwrap_or_else(|e| e.into_inner()));
        let closing = futures::future::join_all(owners.iter().map(OwnerHandle::close));
        let _ = tokio::time::timeout(grace, closing).await;
    }

    /// Fires when [`PtcServer::shutdown`] is called.
    pub fn shutdown_signal(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// The tools as an MCP client sees them: [`ToolView::listed_tools`](ptc::ToolView::listed_tools) (`run_code`'s
    /// description carries the guidance and the SDK).
    pub fn tools(&self) -> Result<Vec<Tool>, ToolBatchExecutionError> {
        Ok(notify::mcp_tools(self.view().listed_tools()?))
    }

    /// The registry as this session sees it: its scope, and (with discovery on) the tools
    /// its searches found.
    fn view(&self) -> ptc::ToolView<'_> {
        let view = self.registry.view(Some(self.agent.scope()), None);
        match self.agent.owner() {
            Some(owner) => view.for_owner(owner.id()),
            None => view,
        }
    }

    /// Run one call through the registry as its own batch, once the run gate admits it.
    /// `caller` is the client's cancellation; shutting the server down cancels too.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        caller: CancellationToken,
    ) -> Result<CallToolResult, ToolBatchExecutionError> {
        self.call_reporting(name, arguments, caller, None).await
    }

    /// [`PtcServer::call`], its progress (and its sub-calls') going to `progress`.
    pub async fn call_reporting(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        caller: CancellationToken,
        progress: Option<Arc<dyn ProgressSink>>,
    ) -> Result<CallToolResult, ToolBatchExecutionError> {
        let id = self.next_call_id();
        self.call_with_id(id, name, arguments, caller, progress)
            .await
    }

    /// [`PtcServer::call_reporting`] as call `(id, n)` ([`PtcServer::next_call_id`]).
    pub(crate) async fn call_with_id(
        &self,
        id: (String, u64),
        name: &str,
        arguments: Option<JsonObject>,
        caller: CancellationToken,
        progress: Option<Arc<dyn ProgressSink>>,
    ) -> Result<CallToolResult, ToolBatchExecutionError> {
        let signal = self.shutdown.child_token();
        let admitted = {
            let enter = self.runs.enter(&signal);
            tokio::pin!(enter);
            loop {
                tokio::select! {
                    admitted = &mut enter => break admitted,
                    _ = caller.cancelled(), if !signal.is_cancelled() => signal.cancel(),
                }
            }
        };
        let _permit = match admitted {
            Ok(permit) => permit,
            Err(Refused::Busy) => {
                return Ok(CallToolResult::error(vec![McpContent::text(
                    self.runs.busy_message(),
                )]))
            }
            Err(Refused::Cancelled) => {
                return Ok(CallToolResult::error(vec![McpContent::text(
                    "cancelled before it started",
                )]))
            }
        };
        self.run(&id, name, arguments, caller, signal, progress)
            .await
    }

    /// A new call's id, `mcp-<process>-<n>`, and its number.
    pub(crate) fn next_call_id(&self) -> (String, u64) {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        (format!("mcp-{}-{n}", ptc::session::process_tag()), n)
    }

    /// One admitted call `(id, n)`; `caller` firing cancels `signal`, the batch's.
    async fn run(
        &self,
        (id, n): &(String, u64),
        name: &str,
        arguments: Option<JsonObject>,
        caller: CancellationToken,
        signal: CancellationToken,
        progress: Option<Arc<dyn ProgressSink>>,
    ) -> Result<CallToolResult, ToolBatchExecutionError> {
        let n = *n;
        let arguments = Value::Object(arguments.unwrap_or_default());
        let mut batch = ToolBatchInput::new(vec![ToolCallBlock::new(id.clone(), name, arguments)]);
        batch.signal = signal.clone();
        let agent = self.agent.clone();
        batch.agent = Some(match progress {
            Some(sink) => agent.with_progress(sink),
            None => agent,
        });
        batch.log = Some(LogStep { turn: n, step: 1 });
        let execute = self.registry.execute(batch);
        tokio::pin!(execute);
        let executed = loop {
            tokio::select! {
                executed = &mut execute => break executed,
                _ = caller.cancelled(), if !signal.is_cancelled() => signal.cancel(),
            }
        };
        let mut batch = executed?;
        // The call ran; only writing its events failed. Report the result anyway.
        if let Some(error) = &batch.log_error {
            tracing::error!("{error}");
        }
        let result = batch.results.remove(0).result;
        let structured = self
            .registry
            .view(Some(self.agent.scope()), None)
            .get(name)
            .is_some_and(|d| is_object_schema(d.output().schema()));
        Ok(to_mcp(&result, structured))
    }
}

/// `tool` as MCP's `tools/list` entry: `name`, `description`, `inputSchema` and, for an
/// object output, `outputSchema`.
pub fn mcp_tool(tool: &ListedTool) -> Value {
    let mut json = serde_json::json!({
        "name": tool.schema.name,
        "description": tool.schema.description,
        "inputSchema": tool.schema.parameters,
    });
    if let Some(output) = &tool.output_schema {
        json["outputSchema"] = output.clone();
    }
    json
}

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

fn to_mcp(result: &ToolExecutionResult, structured: bool) -> CallToolResult {
    let content = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => McpContent::text(text.clone()),
            ContentBlock::Image { data, mime_type } => {
                McpContent::image(data.clone(), mime_type.clone())
            }
        })
        .collect();
    if result.is_error() {
        return CallToolResult::error(content);
    }
    let mut out = CallToolResult::success(content);
    if structured {
        out.structured_content = result.value().map(|v| (**v).clone());
    }
    out
}

impl ServerHandler for PtcServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed();
        let capabilities = match self.tasks {
            Some(_) => capabilities.enable_tasks().build(),
            None => capabilities.build(),
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("ptc", env!("CARGO_PKG_VERSION")))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let _ = self.client.set(context.peer.clone());
        let ended = match self.agent.owner() {
            Some(owner) => owner.handle().ended(),
            None => CancellationToken::new(),
        };
        let follow = notify::ListFollower {
            registry: self.registry.clone(),
            scope: self.agent.scope().clone(),
            owner: self.agent.owner().map(|o| o.id()),
            changes: self.changes.subscribe(),
            ended,
            shutdown: self.shutdown.clone(),
        };
        tokio::spawn(notify::follow_tool_list(follow, context.peer));
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let version = *self.changes.borrow();
        self.routed
            .get(name, version, || self.tools().unwrap_or_default())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Without a session, the tools searches found belong to the instance's shared owner.
        let listed = if sessionless(&context) {
            let view = self.registry.view(Some(self.agent.scope()), None);
            view.for_owner(self.stateless.owner.id()).listed_tools()
        } else {
            self.view().listed_tools()
        };
        let tools = listed
            .map(notify::mcp_tools)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        self.task_state(request.task_id).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.update_task_run(request.task_id, request.input_responses)
            .await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.cancel_task_run(request.task_id).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let as_task = self.tasks.is_some()
            && request.name == ptc::RUN_CODE
            && super::tasks::client_wants_tasks(&context);
        let response = if as_task {
            self.call_as_task(&request.name, request.arguments, &context.peer)
                .await?
        } else if sessionless(&context) {
            self.call_stateless(request, context).await?
        } else {
            let _ = self.client.set(context.peer.clone());
            let progress = progress_of(&context);
            let result = self
                .call_reporting(
                    &request.name,
                    request.arguments,
                    context.ct.clone(),
                    progress,
                )
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            CallToolResponse::from(result)
        };
        Ok(self.stamped(response))
    }
}

/// How long a stopping server waits for cancelled runs to wind down.
pub const RUN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);
