// ptc code-mode glue: typed result access. A tool result notes a read of a field the tool's
// output type does not declare (`m.file` on a grep match), with the site where it was read,
// instead of leaving the model with a silent `undefined`.
//
// This file is a module of its own, loaded the first time a tool with a result shape answers
// (see primordials.js). makeTyped(primordials, { note, siteHere }) returns `typer(shape)`: a
// function that types a delivered result of that shape in place and returns it (made once per
// tool, so a result costs a call and a prototype change).
//
// A shape (built by ptc from the tool's output schema, see src/code/shapes.rs) is JSON:
//   0                                   open: any read is fine (records, unknown, any)
//   { n: "grep result", f: { k: S } }   a closed object named n, whose fields are k
//   { n: "grep matches", p: 1, f: ... }   the same, named in the plural (array items)
//   { i: S }                            an array whose items are S
// Each closed object of a result gets its shape's prototype (one per shape, made once): an
// object answering the names `await` and JSON.stringify look up, over a Proxy over an empty
// object whose prototype is Object.prototype. A read of a field the object
// has never reaches it (so reading declared fields costs nothing); a read that misses does:
// Object.prototype's members answer as usual; a field no shape declares is noted (`length` as
// what an object is not: an array); protocol names (then, toJSON, constructor, inspect, ...)
// and declared optional fields stay plain `undefined`. A result object turned into text (a
// template string, `String(x)`, `join`, a regex test) is noted too: it reads
// "[object Object]", never what the program meant. Nothing
// else changes: own keys, identity and array-ness are the data's, so JSON.stringify,
// console.log, spread, Object.keys, Array methods and structuredClone see plain data.

export default function makeTyped(primordials, extra) {
  const { Proxy: ProxyCtor, ArrayIsArray: isArray, ObjectKeys: keys, ReflectApply: apply } =
    primordials;
  const { note, siteHere, watched } = extra;
  const hasOwn = Object.hasOwn;
  const get = Reflect.get;
  const create = Object.create;
  const setPrototypeOf = Object.setPrototypeOf;
  const ObjectPrototype = Object.prototype;
  const join = Array.prototype.join;
  const filter = Array.prototype.filter;
  const PROTOCOL = new Set(['then', 'toJSON', 'toString', 'valueOf', 'constructor', 'inspect',
    'asymmetricMatch', 'nodeType', '$$typeof', '@@__IMMUTABLE_ITERABLE__@@']);
  const setHas = Set.prototype.has;
  const QUIET = ['then', 'toJSON', 'inspect', 'asymmetricMatch', 'nodeType', '$$typeof'];
  const defineProperty = Object.defineProperty;
  // Cached on a shape: its prototype, and its fields whose values have shapes of their own.
  const PROTO = Symbol('proto');
  const NESTED = Symbol('nested');

  /** "grep matches have no field file (they have path, line, text)"; a `length` read says the
   * object is no array ("a grep result is an object, not an array: it has no length (...)"). */
  const missing = (shape, key) => {
    const fields = apply(join, keys(shape.f), [', ']);
    const has = fields === '' ? 'no fields' : fields;
    if (key === 'length') {
      return shape.p === 1
        ? `${shape.n} are objects, not arrays: they have no length (they have ${has})`
        : `a ${shape.n} is an object, not an array: it has no length (it has ${has})`;
    }
    return shape.p === 1
      ? `${shape.n} have no field ${key} (they have ${has})`
      : `a ${shape.n} has no field ${key} (it has ${has})`;
  };

  const toPrimitive = Symbol.toPrimitive;
  /** What a result object turned into text reads as, noted: `${line}` or `String(m)` of a
   * read line or grep match gives "[object Object]" (the program meant one of its fields). */
  const asText = (shape) => {
    const fields = apply(join, keys(shape.f), [', ']);
    const said = `turned into text reads "[object Object]" (use a field: ${fields})`;
    return function () {
      note('note', siteHere(), shape.n, said);
      return '[object Object]';
    };
  };

  /** The prototype of `shape`'s objects: reached only by reads the object itself misses. */
  const makeProto = (shape) => {
    const fields = shape.f;
    const handler = {
      get(target, key, receiver) {
        const inherited = get(ObjectPrototype, key, receiver);
        if (inherited !== undefined) return inherited;
        if (typeof key !== 'string') return key === toPrimitive ? asText(shape) : undefined;
        if (!hasOwn(fields, key) && !apply(setHas, PROTOCOL, [key])) {
          // The subject `.key`: the engine names the expression read from the program's line.
          note('note', siteHere(), `.${key}`, missing(shape, key));
        }
        return undefined;
      },
    };
    // Names every `await` and JSON.stringify look up answer before the trap (as plain
    // `undefined`, writable, not enumerable): a delivered result costs no trap call.
    const proto = create(new ProxyCtor(create(ObjectPrototype), handler));
    for (let i = 0; i < QUIET.length; i++) {
      defineProperty(proto, QUIET[i], { value: undefined, writable: true, configurable: true });
    }
    return proto;
  };

  const protoOf = (shape) => (shape[PROTO] ??= makeProto(shape));
  /** The fields of `shape` whose values have shapes of their own. */
  const nestedOf = (shape) =>
    (shape[NESTED] ??= apply(filter, keys(shape.f), [(k) => shape.f[k] !== 0]));

  /** `value` typed in place by `shape` (and returned): its closed objects get their shape's
   * prototype, at every depth the shape describes. */
  const wrap = (value, shape) => {
    if (shape === 0 || shape === undefined || value === null || typeof value !== 'object') {
      return value;
    }
    if (isArray(value)) {
      const items = shape.i;
      if (items !== undefined && items !== 0) {
        for (let i = 0; i < value.length; i++) wrap(value[i], items);
      }
      return value;
    }
    const fields = shape.f;
    // A result just parsed from JSON: its objects are plain and extensible.
    if (fields === undefined) return value;
    setPrototypeOf(value, protoOf(shape));
    const nested = nestedOf(shape);
    for (let i = 0; i < nested.length; i++) {
      const key = nested[i];
      if (hasOwn(value, key)) wrap(value[key], fields[key]);
    }
    return value;
  };

  /** A function typing a delivered result of `shape` in place: for a closed object with no
   * typed values inside, just its prototype (also given as the function's `proto`). */
  const typer = (shape) => {
    if (shape === 0 || shape === undefined) return (value) => value;
    if (shape.f !== undefined && nestedOf(shape).length === 0) {
      const proto = protoOf(shape);
      const flat = (value) => {
        if (value !== null && typeof value === 'object' && !isArray(value)) {
          setPrototypeOf(value, proto);
        }
        return value;
      };
      // An engine may set it itself, without a call (see flatProto in glue.js).
      flat.proto = proto;
      return flat;
    }
    return (value) => wrap(value, shape);
  };

  /** Take back the note `text` (made at `site` on `subject` as `value` arrived) at the first
   * read of one of `fields` of `value`: each becomes an accessor until then (reading, printing,
   * spreading or serializing the object all read it), and a plain field again after. */
  const watch = (value, fields, site, subject, text) => {
    if (value === null || typeof value !== 'object') return value;
    const kept = [];
    for (let i = 0; i < fields.length; i++) {
      if (hasOwn(value, fields[i])) kept[kept.length] = [fields[i], value[fields[i]]];
    }
    let open = true;
    const read = () => {
      if (!open) return;
      open = false;
      for (let i = 0; i < kept.length; i++) {
        const field = { value: kept[i][1], writable: true, enumerable: true, configurable: true };
        defineProperty(value, kept[i][0], field);
      }
      note('unsaid', site, subject, text);
    };
    for (let i = 0; i < kept.length; i++) {
      const key = kept[i][0];
      const get = function () {
        read();
        return value[key];
      };
      // inspect.js reads through it: console.log shows the field, and counts as its read.
      defineProperty(get, watched, { value: true });
      const set = function (x) {
        read();
        value[key] = x;
      };
      defineProperty(value, key, { get, set, enumerable: true, configurable: true });
    }
    return value;
  };
  typer.watch = watch;

  return typer;
}
