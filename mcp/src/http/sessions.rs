//! MCP sessions over HTTP, capped: rmcp's in-memory session manager with at most
//! `max_sessions` sessions at once, each closed after `session_idle_timeout` without a
//! request.
//!
//! Choice: an `initialize` beyond the cap is refused (HTTP 503 with a JSON-RPC error
//! body), rather than evicting an idle session: eviction would let a flood of
//! `initialize` calls cut off the clients already working. A slot frees when a client
//! ends its session (`DELETE`), when the session idles out, or when its worker ends.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::SessionManager;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::ServeLimits;

tokio::task_local! {
    /// Set when a request handled in this task was refused a session.
    static REFUSED: Cell<bool>;
}

/// Run `handle` (one HTTP request through rmcp); whether it was refused a session.
pub(super) async fn admit<T>(handle: impl std::future::Future<Output = T>) -> (T, bool) {
    REFUSED
        .scope(Cell::new(false), async {
            let out = handle.await;
            (out, REFUSED.with(Cell::get))
        })
        .await
}

/// A session manager holding at most `max_sessions` sessions.
pub(super) struct CappedSessions {
    inner: LocalSessionManager,
    slots: Arc<Semaphore>,
    held: Mutex<HashMap<SessionId, OwnedSemaphorePermit>>,
}

impl CappedSessions {
    /// Sessions capped and idled out as `limits` say.
    pub(super) fn new(limits: &ServeLimits) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(limits.session_idle_timeout);
        CappedSessions {
            inner,
            slots: Arc::new(Semaphore::new(limits.max_sessions)),
            held: Mutex::new(HashMap::new()),
        }
    }
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum SessionError {
    /// `max_sessions` sessions are open.
    #[error("too many MCP sessions are open (max_sessions)")]
    Full,
    /// rmcp's manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl SessionManager for CappedSessions {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let Ok(slot) = self.slots.clone().try_acquire_owned() else {
            let _ = REFUSED.try_with(|refused| refused.set(true));
            return Err(SessionError::Full);
        };
        let (id, transport) = self.inner.create_session().await?;
        if let Ok(mut held) = self.held.lock() {
            held.insert(id.clone(), slot);
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        if let Ok(mut held) = self.held.lock() {
            held.remove(id);
        }
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
