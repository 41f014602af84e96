//! What `bash` and the task and terminal tools share: the workspace, the sandbox, the stores
//! of tasks and terminals, and the owner of calls that carry none.

use std::sync::Arc;

use super::scratch::ScratchDirs;
use super::tasks::TaskStore;
use super::terminal::TerminalStore;
use super::workspace::Workspace;
use crate::sandbox::Sandbox;
use ptc::Agent;
use ptc::ToolRunContext;
use ptc::{Owner, OwnerHandle};

/// The pack's shared state for work that outlives a call.
#[derive(Clone)]
pub(crate) struct Background {
    pub(crate) ws: Arc<Workspace>,
    pub(crate) sandbox: Arc<Sandbox>,
    pub(crate) tasks: TaskStore,
    pub(crate) terminals: TerminalStore,
    /// Each owner's `bash` scratch directory (its `$TMPDIR`).
    pub(crate) scratch: ScratchDirs,
    /// Owns the work of calls whose agent has no owner; ends when the pack's tools are dropped.
    pub(crate) fallback: Owner,
}

impl Background {
    /// Who is calling: the owner of the call's background work (its agent's, else the
    /// pack's) and the run the call belongs to.
    pub(crate) fn owner(&self, ctx: &ToolRunContext) -> Caller {
        let owner = ctx
            .execution()
            .agent()
            .and_then(Agent::owner)
            .unwrap_or(&self.fallback)
            .handle();
        Caller {
            owner,
            root: ctx.execution().root_call_id().into(),
        }
    }
}

/// The owner a call's background work belongs to, and the root call of its run (a shared
/// owner lists to a run only what that run started).
#[derive(Clone)]
pub(crate) struct Caller {
    /// Whose work it is.
    pub(crate) owner: OwnerHandle,
    /// The id of the run's root call.
    pub(crate) root: Arc<str>,
}

impl Caller {
    /// See [`OwnerHandle::hold`].
    pub(crate) fn hold(&self) -> tokio_util::task::task_tracker::TaskTrackerToken {
        self.owner.hold()
    }
}
