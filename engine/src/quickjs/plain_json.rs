//! Plain JSON data between QuickJS values and `serde_json`, without JSON text where it can be
//! avoided: tool arguments read straight out of the program's values ([`PlainJson::read`]), and
//! scalar results made directly ([`to_js`]).
//!
//! The glue's strict JSON check (`encodeJson` in `runtime-js/glue.js`) walks the arguments in
//! JavaScript and hands the host JSON text, which costs more than the rest of a sub-call. Most
//! arguments are plain data, though: primitives, arrays and plain objects made of data properties.
//! [`PlainJson::read`] converts exactly those in Rust and reports anything else as
//! [`NotPlain`], *without running any program code* (no getter, no proxy trap, no `toJSON`, no
//! prototype lookup). The glue then checks the same value itself, with the messages and semantics
//! it always had. Because this reader never runs program code, trying it first is unobservable:
//! the program sees one check either way, and a value it accepts is the value the glue's check
//! would have produced (same keys, same order, same numbers).
//!
//! The reader accounts for what it builds: shared references count every time they are expanded
//! (`a = [a, a]` twenty times over is a million leaves). A value that would take more than the
//! run's heap cap once expanded is refused ([`Unread::TooLarge`]: the call rejects), and one still
//! being read when the wall clock runs out (or the run is cancelled) ends the run with that
//! failure ([`Unread::Failed`]), instead of exhausting the host's memory or time.
//!
//! Left to the glue: proxies, accessors, array holes, non-plain prototypes, a `toJSON` anywhere
//! JSON would look for one (own, or on `Object.prototype` / `Array.prototype`), symbol keys,
//! non-JSON values (functions, `undefined`, symbols, BigInts, non-finite numbers), strings with
//! lone surrogates, integers beyond 2^53 (whose JSON text has rounded digits), and nesting deeper
//! than [`MAX_DEPTH`] (which also covers cycles).

use std::time::{Duration, Instant};

use rquickjs::{qjs, Ctx, Object, Value};
use serde_json::{Map, Number};
use tokio_util::sync::CancellationToken;

use super::own::{has_to_json, own_data, OwnKeys};
use crate::RunFailure;

/// How deep the reader follows nested containers before leaving the value to the glue (which
/// handles any depth iteratively and names cycles).
pub(super) const MAX_DEPTH: usize = 64;

/// The largest magnitude up to which every integer is a double, so the JSON text of an integral
/// double is its exact digits.
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// From here on, JavaScript writes numbers in exponent form (`1e+21`), which JSON reads as a float.
const EXPONENT_FORM: f64 = 1e21;

/// How many values the reader converts between looks at the clock and the cancellation token.
const CHECK_EVERY: u32 = 4096;

/// The value is not plain JSON data that can be read without running program code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NotPlain;

/// Why [`PlainJson::read`] produced no value.
#[derive(Debug)]
pub(super) enum Unread {
    /// Leave the value to the glue's check.
    NotPlain,
    /// The expanded value is over the size budget: the call is refused.
    TooLarge,
    /// The run must end: the wall clock ran out (or the run was cancelled) while reading.
    Failed(RunFailure),
}

impl From<NotPlain> for Unread {
    fn from(_: NotPlain) -> Self {
        Unread::NotPlain
    }
}

/// What a run allows its reads to take.
pub(super) struct Bounds {
    /// Bytes counted per value on top of its text: [`VALUE_BYTES`] to approximate memory, 2 for
    /// a lower bound of its JSON text (a value and its separator).
    pub(super) per_value: usize,
    /// The run's deadline, and its wall clock for the message.
    pub(super) deadline: Instant,
    pub(super) wall_clock: Duration,
    pub(super) cancel: CancellationToken,
}

/// The running count of one read.
struct Tally<'a> {
    bounds: &'a Bounds,
    max_bytes: usize,
    bytes: usize,
    until_check: u32,
}

impl Tally<'_> {
    /// Count one value of `text` bytes.
    fn count(&mut self, text: usize) -> Result<(), Unread> {
        self.bytes = self.bytes.saturating_add(self.bounds.per_value + text);
        if self.bytes > self.max_bytes {
            return Err(Unread::TooLarge);
        }
        self.until_check = self.until_check.saturating_sub(1);
        if self.until_check == 0 {
            self.until_check = CHECK_EVERY;
            if self.bounds.cancel.is_cancelled() {
                return Err(Unread::Failed(RunFailure::aborted()));
            }
            if Instant::now() >= self.bounds.deadline {
                return Err(Unread::Failed(RunFailure::timed_out(
                    self.bounds.wall_clock,
                )));
            }
        }
        Ok(())
    }
}

/// Reads plain JSON data out of the values of one context.
///
/// It holds no JavaScript value (it lives in a host function's closure, where the garbage
/// collector could not see one): only the identity of `Object.prototype` and a class id.
pub(super) struct PlainJson {
    /// The address of the context's own `Object.prototype` (a program cannot replace it, and it
    /// lives as long as the context).
    object_prototype: *mut std::ffi::c_void,
    /// The same for `Array.prototype`.
    array_prototype: *mut std::ffi::c_void,
    /// The class of ordinary objects (`{}`).
    object_class: qjs::JSClassID,
    bounds: Bounds,
}

impl PlainJson {
    /// A reader for the values of `ctx`, within `bounds`.
    pub(super) fn new(ctx: &Ctx<'_>, bounds: Bounds) -> rquickjs::Result<Self> {
        let probe = Object::new(ctx.clone())?;
        let object_prototype = probe.get_prototype().ok_or(rquickjs::Error::Unknown)?;
        let array = rquickjs::Array::new(ctx.clone())?;
        let array_prototype = array.get_prototype().ok_or(rquickjs::Error::Unknown)?;
        // SAFETY: these are live objects of this context; only their class and address are read.
        unsafe {
            Ok(PlainJson {
                object_prototype: qjs::JS_VALUE_GET_PTR(object_prototype.as_raw()),
                array_prototype: qjs::JS_VALUE_GET_PTR(array_prototype.as_raw()),
                object_class: qjs::JS_GetClassID(probe.as_raw()),
                bounds,
            })
        }
    }

    /// `value` as JSON and the bytes it counted, at most `max_bytes` (see [`Bounds::per_value`]);
    /// [`Unread::NotPlain`] when the glue has to check it.
    pub(super) fn read(
        &self,
        value: &Value<'_>,
        max_bytes: usize,
    ) -> Result<(serde_json::Value, usize), Unread> {
        let ctx = value.ctx();
        // JSON looks up `toJSON` through the prototype chain: one the program put on a shared
        // prototype applies to every value.
        if has_to_json(ctx, self.object_prototype) || has_to_json(ctx, self.array_prototype) {
            return Err(Unread::NotPlain);
        }
        let mut tally = Tally {
            bounds: &self.bounds,
            max_bytes,
            bytes: 0,
            until_check: CHECK_EVERY,
        };
        let json = self.read_at(value, 0, &mut tally)?;
        Ok((json, tally.bytes))
    }

    fn read_at(
        &self,
        value: &Value<'_>,
        depth: usize,
        tally: &mut Tally<'_>,
    ) -> Result<serde_json::Value, Unread> {
        use serde_json::Value as Json;
        if let Some(int) = value.as_int() {
            tally.count(0)?;
            return Ok(Json::Number(int.into()));
        }
        if let Some(float) = value.as_float() {
            tally.count(0)?;
            return Ok(Json::Number(number(float)?));
        }
        if let Some(string) = value.as_string() {
            // Fails on lone surrogates (not UTF-8), which the glue reports.
            let string = string.to_string().map_err(|_| NotPlain)?;
            tally.count(string.len())?;
            return Ok(Json::String(string));
        }
        if let Some(bool) = value.as_bool() {
            return Ok(Json::Bool(bool));
        }
        if value.is_null() {
            tally.count(0)?;
            return Ok(Json::Null);
        }
        let object = value.as_object().ok_or(NotPlain)?;
        if depth >= MAX_DEPTH {
            return Err(Unread::NotPlain);
        }
        tally.count(0)?;
        let raw = object.as_raw();
        // SAFETY: `raw` is a live object of this context; these calls only read its class.
        let (is_array, class) = unsafe { (qjs::JS_IsArray(raw), qjs::JS_GetClassID(raw)) };
        if is_array {
            self.read_array(object, depth, tally)
        } else if class == self.object_class {
            self.read_object(object, depth, tally)
        } else {
            Err(Unread::NotPlain)
        }
    }

    /// A real array (not a proxy) whose elements are all own data properties.
    fn read_array(
        &self,
        array: &Object<'_>,
        depth: usize,
        tally: &mut Tally<'_>,
    ) -> Result<serde_json::Value, Unread> {
        match array.get_prototype() {
            // SAFETY: a live object; only its address is read.
            Some(proto)
                if unsafe { qjs::JS_VALUE_GET_PTR(proto.as_raw()) } == self.array_prototype => {}
            _ => return Err(Unread::NotPlain),
        }
        // SAFETY: a live array; only its address is read.
        if has_to_json(array.ctx(), unsafe {
            qjs::JS_VALUE_GET_PTR(array.as_raw())
        }) {
            return Err(Unread::NotPlain);
        }
        // An array's `length` is its own data property: reading it runs no code.
        let len: u32 = array.get("length").map_err(|_| NotPlain)?;
        if len > i32::MAX as u32 {
            // Index atoms this large would need freeing; no dense array is this long anyway.
            return Err(Unread::NotPlain);
        }
        let mut items = Vec::with_capacity(len.min(1024) as usize);
        for index in 0..len {
            // SAFETY: a context's atom for an index; tagged, so it needs no freeing.
            let atom = unsafe { qjs::JS_NewAtomUInt32(array.ctx().as_raw().as_ptr(), index) };
            let item = own_data(array, atom)?;
            items.push(self.read_at(&item, depth + 1, tally)?);
        }
        Ok(serde_json::Value::Array(items))
    }

    /// An ordinary object with the original `Object.prototype` (or none), no symbol keys, and only
    /// data properties among its enumerable string keys.
    fn read_object(
        &self,
        object: &Object<'_>,
        depth: usize,
        tally: &mut Tally<'_>,
    ) -> Result<serde_json::Value, Unread> {
        match object.get_prototype() {
            None => {}
            // SAFETY: a live object; only its address is read.
            Some(proto)
                if unsafe { qjs::JS_VALUE_GET_PTR(proto.as_raw()) } == self.object_prototype => {}
            Some(_) => return Err(Unread::NotPlain),
        }
        let ctx = object.ctx();
        let keys = OwnKeys::of(ctx, object)?;
        let mut map = Map::with_capacity(keys.len());
        for key in keys.iter() {
            // SAFETY: the atom belongs to the table, which outlives this use; the returned value
            // is owned and handed to `Value::from_raw` once.
            let name = unsafe {
                let raw = qjs::JS_AtomToValue(ctx.as_raw().as_ptr(), key.atom);
                Value::from_raw(ctx.clone(), raw)
            };
            // Symbol keys (enumerable or not) make the glue throw; so does a lone surrogate.
            let name = name.as_string().ok_or(NotPlain)?;
            if key.atom == qjs::JS_ATOM_toJSON as qjs::JSAtom {
                // Enumerable or not, JSON calls it.
                return Err(Unread::NotPlain);
            }
            if !key.is_enumerable {
                continue;
            }
            let name = name.to_string().map_err(|_| NotPlain)?;
            tally.count(name.len())?;
            let value = own_data(object, key.atom)?;
            map.insert(name, self.read_at(&value, depth + 1, tally)?);
        }
        Ok(serde_json::Value::Object(map))
    }
}

/// A tool's JSON value as a QuickJS value: scalars directly, containers through `JSON.parse` (its
/// C parser builds them fast, defines rather than sets properties, and handles any depth).
pub(super) fn to_js<'js>(ctx: &Ctx<'js>, value: serde_json::Value) -> rquickjs::Result<Value<'js>> {
    use serde_json::Value as Json;
    match value {
        Json::Null => Ok(Value::new_null(ctx.clone())),
        Json::Bool(bool) => Ok(Value::new_bool(ctx.clone(), bool)),
        Json::Number(number) => Ok(match number.as_i64() {
            Some(int) if i32::try_from(int).is_ok() => Value::new_int(ctx.clone(), int as i32),
            // As JSON.parse reads it: the nearest double (keeping -0).
            _ => Value::new_float(ctx.clone(), number.as_f64().unwrap_or(f64::NAN)),
        }),
        Json::String(string) => rquickjs::String::from_str(ctx.clone(), &string).map(|s| s.into()),
        container => {
            let text = crate::json::to_string(&container);
            crate::json::drop_deep(container);
            ctx.json_parse(text)
        }
    }
}

/// The JSON number the glue's JSON text of `float` would be read back as.
fn number(float: f64) -> Result<Number, NotPlain> {
    if !float.is_finite() {
        return Err(NotPlain);
    }
    if float.fract() == 0.0 {
        if float.abs() < EXACT_INTEGERS {
            // Written as its digits (`-0` as `0`), read back as an integer.
            return Ok(Number::from(float as i64));
        }
        if float.abs() < EXPONENT_FORM {
            // Written as shortest digits padded with zeros: leave it to the text.
            return Err(NotPlain);
        }
    }
    Number::from_f64(float).ok_or(NotPlain)
}

#[cfg(test)]
mod tests {
    use super::{number, NotPlain};
    use serde_json::Number;

    /// What the glue's JSON text of `float` reads back as.
    fn via_text(float: f64) -> Number {
        serde_json::from_str(&format!("{float}")).unwrap()
    }

    #[test]
    fn numbers_read_back_as_their_json_text_would() {
        for float in [
            0.0,
            1.0,
            -7.0,
            2.5,
            0.1,
            -1e-7,
            1e300,
            9_007_199_254_740_991.0,
        ] {
            assert_eq!(number(float), Ok(via_text(float)), "{float}");
        }
        // JavaScript writes -0 as `0`.
        assert_eq!(number(-0.0), Ok(Number::from(0)));
        assert_eq!(number(1e21), Ok(Number::from_f64(1e21).unwrap()));
        assert_eq!(number(2f64.powi(60)), Err(NotPlain));
        assert_eq!(number(f64::NAN), Err(NotPlain));
        assert_eq!(number(f64::INFINITY), Err(NotPlain));
    }
}
