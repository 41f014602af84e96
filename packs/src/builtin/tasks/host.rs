//! The thread background processes belong to.
//!
//! A sandboxed process is started with `PR_SET_PDEATHSIG`, which fires when the *thread*
//! that forked it ends. Calls run on whatever thread polls them (a code-mode program's
//! sub-calls may be polled on the engine's short-lived thread), so background work is
//! forked from one thread that lives as long as ptc, and its output is read on that
//! thread's runtime, which does not depend on the runtime of the call that started it.
//! When ptc dies, that thread dies with it, and so do the processes.

use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use ptc::ToolError;

fn handle() -> &'static Handle {
    static HOST: OnceLock<Handle> = OnceLock::new();
    HOST.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("ptc-background".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("the background runtime starts");
                let _ = tx.send(runtime.handle().clone());
                runtime.block_on(std::future::pending::<()>());
            })
            .expect("the background thread starts");
        rx.recv()
            .expect("the background runtime reports its handle")
    })
}

/// Run `future` on the background thread, detached.
pub(crate) fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    handle().spawn(future)
}

/// Run `future` on the background thread and wait for its output.
pub(crate) async fn run<F, T>(future: F) -> Result<T, ToolError>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    spawn(future)
        .await
        .map_err(|e| ToolError::new(format!("the background worker failed: {e}")))
}
