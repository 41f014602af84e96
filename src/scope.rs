//! Agent scopes: the parent chain registrations, restrictions and hooks attach to.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::owner::Owner;
use crate::policy::approval::ApprovalService;
use crate::policy::question::QuestionService;
use crate::progress::ProgressSink;
use crate::session::SessionLog;

static NEXT_SCOPE: AtomicU64 = AtomicU64::new(1);

/// Identity of one agent scope. Scopes form a parent chain ending at the global layer.
///
/// Cloning is cheap; equality is identity.
#[derive(Clone)]
pub struct ScopeKey(Arc<ScopeNode>);

struct ScopeNode {
    id: u64,
    name: String,
    parent: Option<ScopeKey>,
}

impl ScopeKey {
    /// A top-level scope (its parent is the global layer).
    pub fn root(name: impl Into<String>) -> Self {
        Self::make(name.into(), None)
    }

    /// A child scope of `self`: it inherits what `self` sees.
    pub fn child(&self, name: impl Into<String>) -> Self {
        Self::make(name.into(), Some(self.clone()))
    }

    fn make(name: String, parent: Option<ScopeKey>) -> Self {
        ScopeKey(Arc::new(ScopeNode {
            id: NEXT_SCOPE.fetch_add(1, Ordering::Relaxed),
            name,
            parent,
        }))
    }

    /// A process-unique id.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The name given at creation.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The parent scope, `None` for a top-level scope.
    pub fn parent(&self) -> Option<&ScopeKey> {
        self.0.parent.as_ref()
    }

    /// This scope, then its ancestors, nearest first.
    pub fn chain(&self) -> impl Iterator<Item = &ScopeKey> {
        std::iter::successors(Some(self), |s| s.parent())
    }
}

impl PartialEq for ScopeKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for ScopeKey {}
impl Hash for ScopeKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.id.hash(state)
    }
}
impl fmt::Debug for ScopeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ScopeKey({}#{})", self.0.name, self.0.id)
    }
}

/// The agent on whose behalf calls run: its scope and, optionally, the session its
/// root calls are logged to and the [`Owner`] of the background work its calls start.
#[derive(Clone)]
pub struct Agent {
    scope: ScopeKey,
    session: Option<Arc<dyn SessionLog>>,
    owner: Option<Owner>,
    progress: Option<Arc<dyn ProgressSink>>,
    approval: Option<Arc<dyn ApprovalService>>,
    questions: Option<Arc<dyn QuestionService>>,
}

impl Agent {
    /// An agent acting in `scope`, without a session.
    pub fn new(scope: ScopeKey) -> Self {
        Agent {
            scope,
            session: None,
            owner: None,
            progress: None,
            approval: None,
            questions: None,
        }
    }

    /// Attach the session that receives this agent's root call events.
    pub fn with_session(mut self, session: Arc<dyn SessionLog>) -> Self {
        self.session = Some(session);
        self
    }

    /// Attach the owner of the background work (tasks, terminals) this agent's calls start.
    pub fn with_owner(mut self, owner: Owner) -> Self {
        self.owner = Some(owner);
        self
    }

    /// Attach the approval service that answers this agent's `ask` decisions, before the
    /// registry's (e.g. one MCP session's client).
    pub fn with_approval(mut self, service: Arc<dyn ApprovalService>) -> Self {
        self.approval = Some(service);
        self
    }

    /// This agent's own approval service, if any.
    pub fn approval(&self) -> Option<&Arc<dyn ApprovalService>> {
        self.approval.as_ref()
    }

    /// Attach who answers this agent's `ask_user_question` calls.
    pub fn with_questions(mut self, service: Arc<dyn QuestionService>) -> Self {
        self.questions = Some(service);
        self
    }

    /// Who answers this agent's questions, if the host said.
    pub fn questions(&self) -> Option<&Arc<dyn QuestionService>> {
        self.questions.as_ref()
    }

    /// Attach where the progress of this agent's calls goes (see [`ProgressSink`](crate::ProgressSink)).
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Where the progress of this agent's calls goes, if anywhere.
    pub fn progress(&self) -> Option<&Arc<dyn ProgressSink>> {
        self.progress.as_ref()
    }

    /// The owner of this agent's background work, if the host set one.
    pub fn owner(&self) -> Option<&Owner> {
        self.owner.as_ref()
    }

    /// The agent's scope.
    pub fn scope(&self) -> &ScopeKey {
        &self.scope
    }

    /// The agent's session, if any.
    pub fn session(&self) -> Option<&Arc<dyn SessionLog>> {
        self.session.as_ref()
    }
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("scope", &self.scope)
            .field("session", &self.session.is_some())
            .field("owner", &self.owner)
            .field("progress", &self.progress.is_some())
            .field("approval", &self.approval.is_some())
            .field("questions", &self.questions.is_some())
            .finish()
    }
}
