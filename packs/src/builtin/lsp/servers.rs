//! The running servers: one per owner and language (the pack has one root), started on
//! first use, kept warm, and started again on the next call after one is gone.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::config::{self, LspServerConfig};
use super::server::Server;
use crate::builtin::background::{Background, Caller};
use ptc::OwnerHandle;

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Server>>>>;
/// Each (owner id, server name)'s slot, with the owner's handle.
type Slots = HashMap<(u64, String), (OwnerHandle, Slot)>;

/// Every owner's language servers. Cloning shares them.
#[derive(Clone, Default)]
pub(crate) struct Servers {
    configured: Arc<Vec<LspServerConfig>>,
    slots: Arc<Mutex<Slots>>,
}

impl Servers {
    /// No server running yet; `configured` come before the defaults.
    pub(crate) fn new(configured: Vec<LspServerConfig>) -> Self {
        Servers {
            configured: Arc::new(configured),
            slots: Arc::default(),
        }
    }

    /// `owner`'s running server for `path`, started (again) if there is none.
    pub(crate) async fn for_file(
        &self,
        bg: &Background,
        owner: &Caller,
        path: &Path,
    ) -> Result<Arc<Server>, String> {
        let config = config::server_for(&self.configured, path)?;
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            // An ended owner's servers are already killed: forget them.
            slots.retain(|_, (handle, _)| !handle.is_ended());
            let key = (owner.owner.id(), config.name.clone());
            slots
                .entry(key)
                .or_insert_with(|| (owner.owner.clone(), Slot::default()))
                .1
                .clone()
        };
        let mut slot = slot.lock().await;
        if let Some(server) = slot.as_ref().filter(|s| !s.is_gone()) {
            return Ok(server.clone());
        }
        if owner.owner.is_ended() {
            return Err(format!(
                "no {} language server: its owner has ended",
                config.name
            ));
        }
        let server = Server::start(&config, bg.ws.root(), &bg.sandbox, owner)
            .await
            .map_err(|why| format!("cannot start the {} language server: {why}", config.name))?;
        *slot = Some(server.clone());
        Ok(server)
    }
}
