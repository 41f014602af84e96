//! Instances: a `ptc serve` among several that serve one deployment has an id, which every
//! `tools/call` result carries (`_meta["ptc/instance"]`) and every handle of its work ends
//! with (`…@<id>`), so that a load balancer routes on it and a miss says where to go.

use rmcp::model::CallToolResponse;
use serde_json::Value;

use crate::PtcServer;

/// The instance id of a server nobody named.
pub const DEFAULT_INSTANCE: &str = "local";

/// Whether `id` may name an instance: 1 to 64 of `A-Z a-z 0-9 . _ : -` (it travels in
/// handles, headers and load-balancer rules); the error says what is wrong.
pub fn check_instance(id: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-');
    match id.chars().find(|c| !allowed(*c)) {
        _ if id.is_empty() || id.len() > 64 => Err(format!(
            "an instance id has 1 to 64 characters, `{id}` has {}",
            id.chars().count()
        )),
        Some(c) => Err(format!(
            "an instance id may hold only A-Z a-z 0-9 . _ : -, `{id}` holds {c:?}"
        )),
        None => Ok(()),
    }
}

/// The `_meta` key of a `tools/call` result that names the instance that ran it.
pub const INSTANCE_META: &str = "ptc/instance";

impl PtcServer {
    /// `response` with `_meta["ptc/instance"]`.
    pub(crate) fn stamped(&self, mut response: CallToolResponse) -> CallToolResponse {
        let meta = match &mut response {
            CallToolResponse::Complete(result) => &mut result.meta,
            CallToolResponse::InputRequired(result) => &mut result.meta,
            _ => return response,
        };
        meta.get_or_insert_with(Default::default).0.insert(
            INSTANCE_META.into(),
            Value::String(self.instance.to_string()),
        );
        response
    }
}
