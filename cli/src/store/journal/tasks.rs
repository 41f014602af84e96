//! The run store as MCP's task store (`ptc_mcp::TaskStore`): what `tasks/get` reads of a run
//! (its end, its open questions, its owner), `tasks/cancel` and `tasks/update` on any
//! instance, and parking a run that waits for a person.
//!
//! A parked run gives up its lease and stops here; it is not an orphan while a question of
//! it is open (`sql::ORPHANS`), and once one is answered any instance claims and resumes it.

use ptc::journal::Entry;
use ptc_mcp::{Asked, TaskState, TaskStore};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::RunJournals;

/// A question's row as what the store holds of it.
fn asked(row: (Option<String>, i64)) -> Result<Asked, String> {
    let (answer, age_ms) = row;
    let answer = answer
        .map(|a| serde_json::from_str(&a).map_err(|e| format!("a kept answer: {e}")))
        .transpose()?;
    Ok(Asked {
        answer,
        waited: std::time::Duration::from_millis(u64::try_from(age_ms).unwrap_or(0)),
    })
}

impl TaskStore for RunJournals {
    fn begun(&self, id: &str) -> bool {
        self.begun
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(id)
    }

    fn begun_changes(&self) -> watch::Receiver<u64> {
        self.begun_count.subscribe()
    }

    fn state(&self, id: &str) -> Result<Option<TaskState>, String> {
        // Clients poll this: the lease says whether the run ended, and only then is the last
        // row read for its output.
        let Some((owner, ended, cancelled)) = self.db.lease(id)? else {
            return Ok(None);
        };
        if ended {
            let last = self.db.last(id)?.unwrap_or_default();
            let entries =
                super::row_entries(&last).map_err(|e| format!("run {id}'s last entries: {e}"))?;
            if let Some(Entry::End { output, is_error }) = entries.last() {
                return Ok(Some(TaskState::Ended {
                    output: output.clone(),
                    is_error: *is_error,
                    cancelled,
                }));
            }
        }
        let open = self.db.open_questions(id)?;
        if !open.is_empty() {
            let open = open
                .into_iter()
                .filter_map(|(key, request)| Some((key, serde_json::from_str(&request).ok()?)))
                .collect();
            return Ok(Some(TaskState::InputRequired { open }));
        }
        Ok(Some(TaskState::Working { owner }))
    }

    fn cancel(&self, id: &str) -> Result<bool, String> {
        let cancelled = self.db.cancel(id)?;
        if cancelled {
            self.cancel_here(id);
        }
        Ok(cancelled)
    }

    fn watch(&self, id: &str, signal: CancellationToken) {
        self.watched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_string(), signal);
    }

    fn ask(&self, id: &str, key: &str, request: &Value) -> Result<Asked, String> {
        let request = serde_json::to_string(request).map_err(|e| e.to_string())?;
        asked(self.db.ask(id, key, &request)?)
    }

    fn asked(&self, id: &str, key: &str) -> Result<Asked, String> {
        asked(self.db.asked(id, key)?.unwrap_or((None, 0)))
    }

    fn answer(&self, id: &str, key: &str, answer: &Value) -> Result<bool, String> {
        let answer = serde_json::to_string(answer).map_err(|e| e.to_string())?;
        let answered = self.db.answer(id, key, &answer)?;
        if answered {
            self.answered.notify_waiters();
        }
        Ok(answered)
    }

    fn remember(&self, id: &str, key: &str, request: &Value, answer: &Value) -> Result<(), String> {
        let request = serde_json::to_string(request).map_err(|e| e.to_string())?;
        let answer = serde_json::to_string(answer).map_err(|e| e.to_string())?;
        self.db.remember(id, key, &request, &answer)
    }

    fn park(&self, id: &str) -> Result<(), String> {
        let epoch = self.held().remove(id).map(|h| h.epoch);
        if let Some(epoch) = epoch {
            self.db.release(id, &self.lease.owner, epoch)?;
        }
        self.cancel_here(id);
        eprintln!(
            "ptc: run {id} waits for an answer: parked (its sandbox is dropped; it resumes by \
             replay where the answer arrives)"
        );
        Ok(())
    }

    fn shared_key(&self, fresh: &[u8; 32]) -> Result<Vec<u8>, String> {
        let fresh = ptc::digest::hex(fresh);
        Ok(self.db.secret("request-state-key", &fresh)?.into_bytes())
    }
}
