//! What an MCP server tells ptc on its own: progress of the calls ptc forwards to it, and
//! that its tool list changed.
//!
//! Both are taken off the wire by [`Tap`], a transport wrapper, in the order they arrive:
//! a progress notification reaches its call's route before the call's response reaches
//! rmcp, so a call relays every report its server sent before it ends (rmcp hands
//! notifications to handlers on tasks of their own, where they could overtake the
//! response). rmcp puts a `progressToken` of its own on every request, so a call names
//! its route in `_meta` ([`ROUTE_KEY`]); [`Tap`] moves the route to that token (and
//! drops the key) as the request goes out, before any answer can come back.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    GetMeta, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, NumberOrString,
    ProgressNotificationParam, ProgressToken, RequestMetaObject, ServerNotification,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::sync::{mpsc, Notify};

/// The routes of one server's progress and its list-change signal (shared by every
/// connection to it, restarts included).
#[derive(Default)]
pub(crate) struct Upstream {
    routes: Mutex<HashMap<Arc<str>, Reports>>,
    next: AtomicU64,
    /// Notified (one stored permit) when the server says its tool list changed.
    pub(crate) tools_changed: Notify,
}

/// The `_meta` key naming a call's route until [`Tap`] binds it to the call's token.
const ROUTE_KEY: &str = "ptc/progressRoute";

type Reports = mpsc::UnboundedSender<ProgressNotificationParam>;

/// A progress route for one call; removed when dropped.
pub(crate) struct Route {
    upstream: Arc<Upstream>,
    key: Arc<str>,
    send: Reports,
    /// The call's reports, in arrival order.
    pub(crate) reports: mpsc::UnboundedReceiver<ProgressNotificationParam>,
}

impl Route {
    /// The `_meta` to send with the call.
    pub(crate) fn meta(&self) -> RequestMetaObject {
        let mut meta = RequestMetaObject::new();
        meta.insert(ROUTE_KEY.into(), self.key.to_string().into());
        meta
    }
}

impl Drop for Route {
    fn drop(&mut self) {
        self.upstream
            .lock()
            .retain(|_, send| !send.same_channel(&self.send));
    }
}

/// A progress token as a route key.
fn key_of(token: &ProgressToken) -> Arc<str> {
    match &token.0 {
        NumberOrString::String(s) => s.clone(),
        NumberOrString::Number(n) => Arc::from(n.to_string()),
    }
}

impl Upstream {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Reports>> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A route with a fresh token.
    pub(crate) fn route(self: &Arc<Self>) -> Route {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let key: Arc<str> = Arc::from(format!("ptc-route-{n}"));
        let (send, reports) = mpsc::unbounded_channel();
        self.lock().insert(key.clone(), send.clone());
        Route {
            upstream: self.clone(),
            key,
            send,
            reports,
        }
    }

    /// An outgoing request's `_meta`: a route it names is moved to its progress token.
    fn bind(&self, meta: &mut RequestMetaObject) {
        let Some(serde_json::Value::String(route)) = meta.remove(ROUTE_KEY) else {
            return;
        };
        let Some(token) = meta.get_progress_token() else {
            return;
        };
        let mut routes = self.lock();
        if let Some(send) = routes.remove(route.as_str()) {
            routes.insert(key_of(&token), send);
        }
    }

    /// Take `message` off the wire when it is for ptc itself.
    fn intercept(&self, message: &RxJsonRpcMessage<RoleClient>) -> bool {
        let JsonRpcMessage::Notification(JsonRpcNotification { notification, .. }) = message else {
            return false;
        };
        match notification {
            ServerNotification::ProgressNotification(n) => {
                // A report for a call that has ended (or that nobody follows) is dropped.
                if let Some(route) = self.lock().get(&key_of(&n.params.progress_token)) {
                    let _ = route.send(n.params.clone());
                }
                true
            }
            ServerNotification::ToolListChangedNotification(_) => {
                self.tools_changed.notify_one();
                true
            }
            _ => false,
        }
    }
}

/// A client transport that hands progress and list changes to [`Upstream`].
pub(crate) struct Tap<T> {
    inner: T,
    upstream: Arc<Upstream>,
}

impl<T> Tap<T> {
    /// Wrap `inner`.
    pub(crate) fn new(inner: T, upstream: Arc<Upstream>) -> Self {
        Tap { inner, upstream }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Tap<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        mut item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(JsonRpcRequest { request, .. }) = &mut item {
            self.upstream.bind(request.get_meta_mut());
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.inner.receive().await?;
            if !self.upstream.intercept(&message) {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}
