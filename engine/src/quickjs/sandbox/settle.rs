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
    NoteKind, Reply, RunFailure, UnlessRead,
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
                subject: None,
            };
            self.unhandled.expect(promise, call);
            let rejected = reject.call((error,));
            self.unhandled.done();
            rejected
        };
        let outcome = match result {
            Ok(_) if matches!(kind, Kind::Timer) => resolve.call(()),
            Ok(Reply {
                value,
                note,
                remark,
                unless_read,
            }) => {
                self.tool_notes(&kind, note, remark);
                match plain_json::to_js(&self.ctx, value) {
                    Ok(value) => {
                        let value = self.typed(glue, &kind, value)?;
                        if let Some(unless_read) = unless_read {
                            self.watch(glue, &kind, &value, unless_read)?;
                        }
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
        let failed = |e| self.js_failure(glue, e);
        let known = self
            .shapes_given
            .borrow()
            .iter()
            .position(|(n, _)| n == name);
        let Some(key) = known else {
            // The first result: the glue parses the shape and keeps it under this index.
            let key = self.shapes_given.borrow().len() as u32;
            let value = glue
                .typed_result
                .call((key, value, shape.as_str()))
                .map_err(failed)?;
            let proto: Value<'js> = glue.flat_proto.call((key,)).map_err(failed)?;
            let proto = proto.into_object();
            self.shapes_given.borrow_mut().push((name.as_str(), proto));
            return Ok(value);
        };
        let proto = self.shapes_given.borrow()[key].1.clone();
        match (proto, value.as_object()) {
            // A closed object with nothing typed inside: its prototype is all it takes.
            (Some(proto), Some(object)) if !value.is_array() && !value.is_function() => {
                object.set_prototype(Some(&proto)).map_err(failed)?;
                Ok(value)
            }
            (Some(_), _) => Ok(value),
            (None, _) => glue
                .typed_result
                .call((key as u32, value, rquickjs::Undefined))
                .map_err(failed),
        }
    }

    /// Record a tool's cut-short `note` and its `remark` with the call's site (read only when
    /// there is one, so a call without one costs nothing more).
    fn tool_notes(&self, kind: &Kind<'js>, note: Option<String>, remark: Option<String>) {
        let Kind::Tool { name, .. } = kind else {
            return;
        };
        if note.is_none() && remark.is_none() {
            return;
        }
        let site = kind.site(self.source.filename);
        let mut output = self.output.borrow_mut();
        if let Some(note) = note {
            output.note(NoteKind::CutShort, &site, name, &note);
        }
        if let Some(remark) = remark {
            output.note(NoteKind::Note, &site, name, &remark);
        }
    }

    /// Note `unless_read` with the call's site, and have the glue take it back at the
    /// program's first read of one of its fields of `value`.
    fn watch(
        &self,
        glue: &Glue<'js>,
        kind: &Kind<'js>,
        value: &Value<'js>,
        unless_read: UnlessRead,
    ) -> Result<(), RunFailure> {
        let Kind::Tool { name, .. } = kind else {
            return Ok(());
        };
        let site = kind.site(self.source.filename);
        let text = unless_read.text;
        self.output
            .borrow_mut()
            .note(NoteKind::Note, &site, name, &text);
        glue.watch
            .call::<_, Value<'js>>((
                value.clone(),
                unless_read.fields,
                site.as_str(),
                name.as_str(),
                text.as_str(),
            ))
            .map(drop)
            .map_err(|e| self.js_failure(glue, e))
    }
}
