//! The `requestState` of an input-required result: which held run, which round, sealed.
//!
//! The value is `<sealed>@<instance>`: rmcp's [`RequestStateCodec`] (HMAC-SHA256 over the
//! payload, the tool name as associated data, a time to live) with a key drawn from the
//! OS when the server starts, then the instance that holds the run in the clear, so that a
//! load balancer can send the retry there. A forged, altered, expired or foreign state is
//! refused with a message that says which. The run itself never leaves this instance's
//! memory: the state only names it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};

/// What a state names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ticket {
    /// The held run.
    pub(crate) run: u64,
    /// How many input-required results it has returned so far (one answer per round).
    pub(crate) round: u64,
}

/// Seals and opens the states of one server instance.
pub(crate) struct StateSeal {
    codec: RequestStateCodec,
    instance: Arc<str>,
    ttl: Duration,
}

impl StateSeal {
    /// A seal with a fresh random key, naming `instance`, valid for `ttl`.
    pub(crate) fn new(instance: Arc<str>, ttl: Duration) -> Self {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the OS provides randomness");
        let codec = RequestStateCodec::try_new(key.to_vec()).expect("32 bytes is long enough");
        StateSeal {
            codec,
            instance,
            ttl,
        }
    }

    /// The state for `ticket`, bound to `tool`.
    pub(crate) fn seal(&self, ticket: Ticket, tool: &str) -> String {
        let options = SealOptions::new()
            .associated_data(tool.as_bytes())
            .ttl(self.ttl);
        let sealed = self
            .codec
            .seal_json_with(&ticket, &options)
            .expect("a ticket serializes");
        format!("{sealed}@{}", self.instance)
    }

    /// The ticket in `state` for a retry of `tool`, or why it is refused.
    pub(crate) fn open(&self, state: &str, tool: &str) -> Result<Ticket, String> {
        let not_issued = || "requestState refused: it is not one this server issued".to_string();
        let Some((sealed, instance)) = state.rsplit_once('@') else {
            return Err(not_issued());
        };
        if crate::check_instance(instance).is_err() {
            return Err(not_issued());
        }
        if instance != &*self.instance {
            return Err(format!(
                "requestState refused: the run waiting for this answer lives on instance \
                 {instance}; this request reached {} (route the retry to {instance})",
                self.instance
            ));
        }
        self.codec
            .open_json_with(sealed, tool.as_bytes())
            .map_err(|e| match e {
                RequestStateError::Expired => format!(
                    "requestState refused: it has expired (it is valid for {} s)",
                    self.ttl.as_secs()
                ),
                _ => format!(
                    "requestState refused: it was not issued by this server for a call of \
                     `{tool}` (forged or altered)"
                ),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seal() -> StateSeal {
        StateSeal::new("i1".into(), Duration::from_secs(60))
    }

    #[test]
    fn a_state_opens_only_for_its_tool_on_its_instance() {
        let seal = seal();
        let ticket = Ticket { run: 7, round: 2 };
        let state = seal.seal(ticket, "echo");
        assert!(state.ends_with("@i1"), "{state}");
        assert_eq!(seal.open(&state, "echo"), Ok(ticket));
        let other = seal.open(&state, "bash").unwrap_err();
        assert!(other.contains("forged or altered"), "{other}");
        let elsewhere = StateSeal::new("i2".into(), Duration::from_secs(60));
        let moved = elsewhere.open(&state, "echo").unwrap_err();
        assert!(
            moved.contains("lives on instance i1; this request reached i2"),
            "{moved}"
        );
    }

    #[test]
    fn forged_and_altered_states_are_refused() {
        let seal = seal();
        let state = seal.seal(Ticket { run: 1, round: 1 }, "echo");
        let mut altered = state.clone().into_bytes();
        altered[4] ^= 1;
        let altered = String::from_utf8(altered).unwrap();
        for forged in [
            altered.as_str(),
            "rs1.e30.AAAA@i1",
            "{\"run\":1}@i1",
            "nothing",
        ] {
            let refused = seal.open(forged, "echo").unwrap_err();
            assert!(
                refused.len() < 200,
                "the refusal does not echo the state: {refused}"
            );
        }
        // Another server's key, same instance name: refused too.
        let other = StateSeal::new("i1".into(), Duration::from_secs(60));
        assert!(other.open(&state, "echo").is_err());
    }
}
