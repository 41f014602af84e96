//! Own properties of ordinary objects and arrays, read without running program code: no getter,
//! no proxy trap, no prototype lookup (what [`super::plain_json`] builds on).

use rquickjs::{qjs, Ctx, Object, Value};

use super::plain_json::NotPlain;

/// The value of `object`'s own data property `atom` (an accessor or a missing property is
/// [`NotPlain`]). Only for arrays and ordinary objects, where this runs no program code.
pub(super) fn own_data<'js>(
    object: &Object<'js>,
    atom: qjs::JSAtom,
) -> Result<Value<'js>, NotPlain> {
    let ctx = object.ctx();
    let raw_ctx = ctx.as_raw().as_ptr();
    let mut desc = qjs::JSPropertyDescriptor {
        flags: 0,
        value: qjs::JS_UNDEFINED,
        getter: qjs::JS_UNDEFINED,
        setter: qjs::JS_UNDEFINED,
    };
    // SAFETY: `object` is live; on success the descriptor's three values are owned by us and
    // each is handed to `Value::from_raw` exactly once (freed on drop).
    let (value, accessors) = unsafe {
        let found = qjs::JS_GetOwnProperty(raw_ctx, &mut desc, object.as_raw(), atom);
        if found <= 0 {
            if found < 0 {
                // Only out of memory, for these classes; leave no exception pending.
                let _ = ctx.catch();
            }
            return Err(NotPlain);
        }
        (
            Value::from_raw(ctx.clone(), desc.value),
            [
                Value::from_raw(ctx.clone(), desc.getter),
                Value::from_raw(ctx.clone(), desc.setter),
            ],
        )
    };
    drop(accessors);
    if desc.flags & qjs::JS_PROP_GETSET as i32 != 0 {
        return Err(NotPlain);
    }
    Ok(value)
}

/// Whether the object at `object` (a live object of `ctx`'s context) has an own `toJSON`.
pub(super) fn has_to_json(ctx: &Ctx<'_>, object: *mut std::ffi::c_void) -> bool {
    // SAFETY: `object` is a live object of this context, borrowed for the lookup (no reference is
    // taken or released); with no descriptor, QuickJS only reports whether the property exists.
    let found = unsafe {
        let value = qjs::JS_MKPTR(qjs::JS_TAG_OBJECT, object);
        qjs::JS_GetOwnProperty(
            ctx.as_raw().as_ptr(),
            std::ptr::null_mut(),
            value,
            qjs::JS_ATOM_toJSON as qjs::JSAtom,
        )
    };
    if found < 0 {
        let _ = ctx.catch();
    }
    found != 0
}

/// The own property keys of an object (strings and symbols), freed on drop.
pub(super) struct OwnKeys<'js> {
    ctx: Ctx<'js>,
    table: *mut qjs::JSPropertyEnum,
    len: u32,
}

impl<'js> OwnKeys<'js> {
    pub(super) fn of(ctx: &Ctx<'js>, object: &Object<'js>) -> Result<Self, NotPlain> {
        let mut table = std::ptr::null_mut();
        let mut len = 0;
        let flags = (qjs::JS_GPN_STRING_MASK | qjs::JS_GPN_SYMBOL_MASK) as i32;
        // SAFETY: `object` is a live ordinary object, whose keys are listed without running code.
        let status = unsafe {
            qjs::JS_GetOwnPropertyNames(
                ctx.as_raw().as_ptr(),
                &mut table,
                &mut len,
                object.as_raw(),
                flags,
            )
        };
        if status != 0 {
            let _ = ctx.catch();
            return Err(NotPlain);
        }
        Ok(OwnKeys {
            ctx: ctx.clone(),
            table,
            len,
        })
    }

    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &qjs::JSPropertyEnum> {
        // SAFETY: QuickJS filled `len` entries at `table` (or left it null when `len` is 0).
        let entries: &[qjs::JSPropertyEnum] = if self.len == 0 || self.table.is_null() {
            &[]
        } else {
            unsafe { std::slice::from_raw_parts(self.table, self.len as usize) }
        };
        entries.iter()
    }
}

impl Drop for OwnKeys<'_> {
    fn drop(&mut self) {
        if !self.table.is_null() {
            // SAFETY: the table came from `JS_GetOwnPropertyNames` on this context, freed once.
            unsafe { qjs::JS_FreePropertyEnum(self.ctx.as_raw().as_ptr(), self.table, self.len) };
        }
    }
}
