//! Settling a run's host calls: a tool's value (read through its result shape, its cut-short
//! note recorded with the call's site) or a `ToolCallError`.

use rquickjs::Value;

use super::{Glue, Run};
use crate::quickjs::{
    driver::{Kind, Settled},
    plain_json,
};
use crate::{
    left::{parse_site, Left, LeftBehind},
    NoteKind, Reply, RunFailure,
};

impl<'js> Run<'_, 'js> {
    /// Resolve one host call's promise, or reject it with a `ToolCallError`.
    pub(super) fn settle(&self, glue: &Glue<'js>, settled: Settled<'js>) -> Result<(), RunFailure> {
        // The value's share of the cap is given back once it is in the program's heap.
        let Settled {
            kind,
            promise,
            result,
            resolve,
            reject,
            share: _share,
        } = settled;
        let failed = |message: String| -> rquickjs::Result<()> {
            let Kind::Tool { name, .. } = &kind else {
                return resolve.call(());
            };
            let site = kind.site(self.source.filename);
            let error: Value<'js> =
                glue.tool_call_error
                    .call((name.as_str(), message.as_str(), site.as_str()))?;
            let call = LeftBehind {
                tool: name.clone(),
                site: parse_site(&site),
                left: Left::Failed(message),
            };
            self.unhandled.expect(promise, call);
            let rejected = reject.call((error,));
            self.unhandled.done();
            rejected
        };
        let outcome = match result {
            Ok(_) if matches!(kind, Kind::Timer) => resolve.call(()),
            Ok(Reply { value, note }) => {
                self.cut_short(&kind, note);
                match plain_json::to_js(&self.ctx, value) {
                    Ok(value) => {
                        let value = self.typed(glue, &kind, value)?;
                        resolve.call::<_, ()>((value,))
                    }
                    Err(e) => {
                        if matches!(e, rquickjs::Error::Exception) {
                            let _ = self.ctx.catch();
                        }
                        if let Some(failure) = self.stop.failure() {
                            return Err(failure.clone());
                        }
                        failed(format!("the result could not be read: {e}"))
                    }
                }
            }
            Err(message) => failed(message),
        };
        outcome.map_err(|e| self.js_failure(glue, e))
    }

    /// A tool's result read through the tool's result shape, if it has one.
    fn typed(
        &self,
        glue: &Glue<'js>,
        kind: &Kind<'js>,
        value: Value<'js>,
    ) -> Result<Value<'js>, RunFailure> {
        let Kind::Tool { name, .. } = kind else {
            return Ok(value);
        };
        let Some((name, shape)) = self.shapes.get_key_value(name.as_str()) else {
            return Ok(value);
        };
        // The glue keeps a shape once given: later results of the tool send only its name.
        let first = self.shapes_given.borrow_mut().insert(name.as_str());
        glue.typed_result
            .call((name.as_str(), value, first.then_some(shape.as_str())))
            .map_err(|e| self.js_failure(glue, e))
    }

    /// Record a tool's cut-short `note` with the call's site (read only when there is one, so
    /// a call without one costs nothing more).
    fn cut_short(&self, kind: &Kind<'js>, note: Option<String>) {
        if let (Some(note), Kind::Tool { name, .. }) = (note, kind) {
            let site = kind.site(self.source.filename);
            let mut output = self.output.borrow_mut();
            output.note(NoteKind::CutShort, &site, name, &note);
        }
    }
}
