//! One call's identity: the input an executor hands the pipeline, the immutable
//! execution the pipeline builds from it, and the run context a tool body receives.

use std::fmt;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::content::UserMessage;
use crate::definition::ToolDefinition;
use crate::hooks::guard::CallGuards;
use crate::registry::{ResolvedToolSet, ToolRegistry};
use crate::scope::Agent;

/// Model arguments as they arrive: already-parsed JSON, or the raw text a model emitted.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolArguments {
    /// Parsed JSON.
    Json(Value),
    /// Raw JSON text, parsed once by the pipeline (any depth parses; deeper than
    /// [`ptc_schema::value::MAX_DEPTH`] is refused).
    Text(String),
}

impl From<Value> for ToolArguments {
    fn from(v: Value) -> Self {
        ToolArguments::Json(v)
    }
}
impl From<String> for ToolArguments {
    fn from(s: String) -> Self {
        ToolArguments::Text(s)
    }
}
impl From<&str> for ToolArguments {
    fn from(s: &str) -> Self {
        ToolArguments::Text(s.to_string())
    }
}

impl ToolArguments {
    /// Materialise once into frozen lossless JSON. Text that is not one JSON value is rejected,
    /// and so are values nested deeper than [`ptc_schema::value::MAX_DEPTH`] (dropped without
    /// recursion), so nothing downstream walks an unboundedly deep value.
    pub fn materialise(self) -> Result<Arc<Value>, String> {
        let value = match self {
            ToolArguments::Json(v) => v,
            ToolArguments::Text(text) => crate::json::parse_unbounded(&text)
                .map_err(|e| format!("arguments are not valid JSON: {e}"))?,
        };
        if let Err(deep) = ptc_schema::value::check_depth(&value) {
            ptc_schema::value::drop_deep(value);
            return Err(format!("arguments {deep}"));
        }
        Ok(Arc::new(value))
    }
}

/// Opaque identity of one execution; compare only for equality.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExecutionToken(NonZeroU64);

static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

impl ExecutionToken {
    pub(crate) fn fresh() -> Self {
        let n = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        ExecutionToken(NonZeroU64::new(n).expect("token counter overflow"))
    }
}

impl fmt::Debug for ExecutionToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ExecutionToken(..)")
    }
}

/// Parsed input to the pipeline. The pipeline adds the token; callers never choose it.
#[derive(Debug, Clone)]
pub struct ToolExecutionInput {
    /// The call id (for sub-dispatches, `<callId>:ptc:<n>`).
    pub call_id: String,
    /// Root model-requested call; `None` for a root execution.
    pub root_call_id: Option<String>,
    /// Tool name as called.
    pub name: String,
    /// Arguments.
    pub arguments: ToolArguments,
    /// The calling agent.
    pub agent: Option<Agent>,
    /// Step admission for conditional tools.
    pub tool_set: Option<ResolvedToolSet>,
    /// Token of the enclosing transport execution (marks a sub-dispatch).
    pub parent: Option<ExecutionToken>,
    /// Caller-owned cancellation.
    pub signal: CancellationToken,
}

impl ToolExecutionInput {
    /// A root call with no agent, admission set or parent.
    pub fn new(
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<ToolArguments>,
    ) -> Self {
        ToolExecutionInput {
            call_id: call_id.into(),
            root_call_id: None,
            name: name.into(),
            arguments: arguments.into(),
            agent: None,
            tool_set: None,
            parent: None,
            signal: CancellationToken::new(),
        }
    }

    /// Set the caller's cancellation signal.
    pub fn with_signal(mut self, signal: CancellationToken) -> Self {
        self.signal = signal;
        self
    }

    /// Set the calling agent.
    pub fn with_agent(mut self, agent: Agent) -> Self {
        self.agent = Some(agent);
        self
    }

    /// Set the step's admitted tool set.
    pub fn with_tool_set(mut self, set: ResolvedToolSet) -> Self {
        self.tool_set = Some(set);
        self
    }
}

/// One call inside the pipeline: identity, frozen arguments and caller signal are
/// immutable; the token is pipeline-assigned. Shared as `Arc<ToolExecution>`.
pub struct ToolExecution {
    pub(crate) token: ExecutionToken,
    pub(crate) call_id: String,
    pub(crate) root_call_id: String,
    pub(crate) name: String,
    pub(crate) arguments: Arc<Value>,
    pub(crate) agent: Option<Agent>,
    pub(crate) tool_set: Option<ResolvedToolSet>,
    pub(crate) parent: Option<ExecutionToken>,
    pub(crate) signal: CancellationToken,
    pub(crate) definition: Option<Arc<ToolDefinition>>,
    pub(crate) started_at: std::time::Instant,
    /// The call's span while it runs (see [`crate::telemetry`]).
    pub(crate) span: crate::telemetry::span::CallSpan,
}

impl ToolExecution {
    /// When the pipeline prepared this call.
    pub fn started_at(&self) -> std::time::Instant {
        self.started_at
    }
    /// Opaque identity, passed to nested calls only as their `parent`.
    pub fn token(&self) -> ExecutionToken {
        self.token
    }
    /// Call id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }
    /// Root call id of this execution tree.
    pub fn root_call_id(&self) -> &str {
        &self.root_call_id
    }
    /// Tool name as called.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Frozen arguments.
    pub fn arguments(&self) -> &Arc<Value> {
        &self.arguments
    }
    /// The calling agent.
    pub fn agent(&self) -> Option<&Agent> {
        self.agent.as_ref()
    }
    /// The step's admitted tool set.
    pub fn tool_set(&self) -> Option<&ResolvedToolSet> {
        self.tool_set.as_ref()
    }
    /// The enclosing transport execution, for sub-dispatches.
    pub fn parent(&self) -> Option<ExecutionToken> {
        self.parent
    }
    /// The caller's cancellation signal.
    pub fn signal(&self) -> &CancellationToken {
        &self.signal
    }
    /// The resolved definition (absent only for unknown tools).
    pub fn definition(&self) -> Option<&Arc<ToolDefinition>> {
        self.definition.as_ref()
    }
    /// The same call with other arguments, as a question to ask policies: it opens no span.
    pub(crate) fn with_arguments(&self, args: Value) -> ToolExecution {
        ToolExecution {
            token: self.token,
            call_id: self.call_id.clone(),
            root_call_id: self.root_call_id.clone(),
            name: self.name.clone(),
            arguments: Arc::new(args),
            agent: self.agent.clone(),
            tool_set: self.tool_set.clone(),
            parent: self.parent,
            signal: self.signal.clone(),
            definition: self.definition.clone(),
            started_at: self.started_at,
            span: Default::default(),
        }
    }

    pub(crate) fn scope_id(&self) -> Option<u64> {
        self.agent.as_ref().map(|a| a.scope().id())
    }
}

impl fmt::Debug for ToolExecution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolExecution")
            .field("call_id", &self.call_id)
            .field("root_call_id", &self.root_call_id)
            .field("name", &self.name)
            .field("arguments", &self.arguments)
            .field("parent", &self.parent.is_some())
            .finish_non_exhaustive()
    }
}

/// Effects a tool body requests: deferred context, concluding the turn, notes on its result.
#[derive(Default)]
pub(crate) struct RunEffects {
    pub(crate) contexts: Mutex<Vec<UserMessage>>,
    pub(crate) conclude: AtomicBool,
    pub(crate) invoked: AtomicBool,
    pub(crate) cut_short: Mutex<Option<String>>,
    pub(crate) note: Mutex<Option<String>>,
    pub(crate) unless_read: Mutex<Option<crate::result::UnlessRead>>,
}

impl RunEffects {
    /// Whether the tool body was invoked.
    pub(crate) fn invoked(&self) -> bool {
        self.invoked.load(Ordering::Acquire)
    }

    pub(crate) fn take_contexts(&self) -> Vec<UserMessage> {
        std::mem::take(&mut *self.contexts.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub(crate) fn take_cut_short(&self) -> Option<String> {
        self.take(&self.cut_short)
    }

    /// What one of the effects' slots holds, taken.
    pub(crate) fn take<T>(&self, slot: &Mutex<Option<T>>) -> Option<T> {
        slot.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// What a tool body receives beside its arguments.
#[derive(Clone)]
pub struct ToolRunContext {
    pub(crate) registry: ToolRegistry,
    pub(crate) exec: Arc<ToolExecution>,
    pub(crate) signal: CancellationToken,
    pub(crate) effects: Arc<RunEffects>,
}

impl ToolRunContext {
    /// The execution being run.
    pub fn execution(&self) -> &Arc<ToolExecution> {
        &self.exec
    }

    /// The registry running this call, for composite tools that dispatch nested calls.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// Cancellation for the body: fires on caller cancellation and on any wrapper's
    /// replacement signal (e.g. the timeout policy).
    pub fn signal(&self) -> &CancellationToken {
        &self.signal
    }

    /// Defer a context message until this call's result reaches the agent loop.
    pub fn defer_context(&self, message: UserMessage) {
        self.effects
            .contexts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(message);
    }

    /// Mark a successful result as concluding the turn.
    pub fn conclude_turn(&self) {
        self.effects.conclude.store(true, Ordering::Relaxed);
    }

    /// Whether this call is a sub-call of a `run_code` program (`<callId>:ptc:<n>`): its
    /// result is data the program works on, not text for the model's context, so a tool's
    /// context caps become data caps.
    pub fn in_program(&self) -> bool {
        self.exec.call_id.contains(":ptc:")
    }

    /// The key under which a tool with an effect records it once: the call's id, which a
    /// durable run's replay gives the same call again (`<runId>:ptc:<n>`), so a call that was
    /// in flight when its instance died and runs again presents the same key. MCP upstreams
    /// get it as `_meta["ptc/idempotencyKey"]`.
    pub fn idempotency_key(&self) -> &str {
        &self.exec.call_id
    }

    /// Say that a cap still cut this call's result short, e.g. `10,000 of 23,456 matches
    /// (narrow the pattern, or page with offset)`: in a program the run's result then names it
    /// with the call site (`[cut short] run_code.ts:3:15 grep: …`). The last note wins.
    pub fn cut_short(&self, note: impl Into<String>) {
        *self
            .effects
            .cut_short
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(note.into());
    }

    /// Say something else of this call's result that a program should not miss, e.g. that a
    /// pattern's slashes were searched for as characters: in a program the run's result names
    /// it with the call site (`[note] run_code.ts:3:15 grep: …`). The last note wins.
    pub fn note(&self, note: impl Into<String>) {
        *self.effects.note.lock().unwrap_or_else(|e| e.into_inner()) = Some(note.into());
    }

    /// Say `note` of this call's result unless the program reads one of `fields` of the value
    /// (e.g. a failed command's `exit_code` or `stderr`): in a program the run's result names it
    /// with the call site (`[note] run_code.ts:3:15 bash: …`) only if the program never did.
    pub fn note_unless_read(&self, fields: &[&str], note: impl Into<String>) {
        *self
            .effects
            .unless_read
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(crate::result::UnlessRead {
            fields: fields.iter().map(|f| f.to_string()).collect(),
            text: note.into(),
        });
    }

    /// The guards that apply to this call, to ask whether the same call with other arguments
    /// would be denied (e.g. a search over a directory asking, per file, whether a search of
    /// just that file would be); `None` when no guard applies.
    pub fn guards(&self) -> Option<CallGuards> {
        let hooks = self.registry.inner.hooks.snapshot();
        if hooks.guards.is_empty() {
            return None;
        }
        Some(CallGuards::new(hooks, self.exec.clone()))
    }
}

impl fmt::Debug for ToolRunContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRunContext")
            .field("exec", &self.exec)
            .finish_non_exhaustive()
    }
}
