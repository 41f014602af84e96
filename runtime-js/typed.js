// ptc code-mode glue: typed result access. A tool result is read through a Proxy that notes a
// read of a field the tool's output type does not declare (`m.file` on a grep match), with the
// site where it was read, instead of leaving the model with a silent `undefined`.
//
// This file is a module of its own, loaded the first time a tool with a result shape answers
// (see primordials.js). makeTyped(primordials, { note, siteHere }) returns `wrap(value, shape)`.
//
// A shape (built by ptc from the tool's output schema, see src/code/shapes.rs) is JSON:
//   0                                   open: any read is fine (records, unknown, any)
//   { n: "grep result", f: { k: S } }   a closed object named n, whose fields are k
//   { n: "grep matches", p: 1, f: ... }   the same, named in the plural (array items)
//   { i: S }                            an array whose items are S
// A result object turned into text (a template string, `String(x)`, `join`, a regex test) is
// noted too: it reads "[object Object]", never what the program meant.
// Only a read that finds nothing (`undefined`) of a field no shape declares is noted:
// declared optional fields, fields the data has anyway, symbols, protocol names (then,
// toJSON, constructor, inspect, ...) and Object.prototype's members pass untouched. Nothing
// else changes: the proxies have their targets' own keys, prototype and array-ness, so
// JSON.stringify, console.log, spread, Object.keys, Array methods and structuredClone see
// plain data. Each target gets one proxy (identity is kept across reads).

export default function makeTyped(primordials, extra) {
  const { Proxy: ProxyCtor, ArrayIsArray: isArray, ObjectKeys: keys, ReflectApply: apply } =
    primordials;
  const { note, siteHere } = extra;
  const hasOwn = Object.hasOwn;
  const get = Reflect.get;
  const ObjectPrototype = Object.prototype;
  const WeakMapCtor = WeakMap;
  const { get: weakGet, set: weakSet } = WeakMap.prototype;
  const join = Array.prototype.join;
  const PROTOCOL = new Set(['then', 'toJSON', 'toString', 'valueOf', 'constructor', 'inspect',
    'asymmetricMatch', 'nodeType', '$$typeof', '@@__IMMUTABLE_ITERABLE__@@', 'length']);
  const setHas = Set.prototype.has;
  const proxies = new WeakMapCtor();
  // The proxies made (a value the program stored back into a result, e.g. by sorting it, is
  // not wrapped twice).
  const made = new WeakMapCtor();
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;

  /** `value` read from `target[key]` through `shape`, unless the property is frozen (a proxy
   * must then answer its target's own value). */
  const read = (target, key, value, shape) => {
    const wrapped = wrap(value, shape);
    if (wrapped === value) return value;
    const own = getOwnPropertyDescriptor(target, key);
    return own !== undefined && !own.configurable && !own.writable ? value : wrapped;
  };

  /** "grep matches have no field file (they have path, line, text)". */
  const missing = (shape, key) => {
    const fields = apply(join, keys(shape.f), [', ']);
    const has = fields === '' ? 'no fields' : fields;
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

  const objectHandler = (shape) => ({
    get(target, key, receiver) {
      const value = get(target, key, receiver);
      if (key === toPrimitive && value === undefined) return asText(shape);
      if (typeof key !== 'string') return value;
      if (hasOwn(shape.f, key)) return read(target, key, value, shape.f[key]);
      if (value === undefined && !(key in ObjectPrototype) && !apply(setHas, PROTOCOL, [key])) {
        // The subject `.key`: the engine names the expression read from the program's line.
        note('note', siteHere(), `.${key}`, missing(shape, key));
      }
      return value;
    },
  });

  const arrayHandler = (items) => ({
    get(target, key, receiver) {
      const value = get(target, key, receiver);
      if (typeof key === 'string' && hasOwn(target, key) && key !== 'length') {
        return read(target, key, value, items);
      }
      return value;
    },
  });

  /** `value` read through its shape (itself when the shape says nothing or does not fit). */
  const wrap = (value, shape) => {
    if (shape === 0 || shape === undefined || value === null || typeof value !== 'object') {
      return value;
    }
    if (apply(weakGet, made, [value]) !== undefined) return value;
    const array = isArray(value);
    let handler;
    if (shape.i !== undefined && array) {
      if (shape.i === 0) return value;
      handler = arrayHandler(shape.i);
    } else if (shape.f !== undefined && !array) {
      handler = objectHandler(shape);
    } else {
      return value;
    }
    let proxy = apply(weakGet, proxies, [value]);
    if (proxy === undefined) {
      proxy = new ProxyCtor(value, handler);
      apply(weakSet, proxies, [value, proxy]);
      apply(weakSet, made, [proxy, true]);
    }
    return proxy;
  };

  return wrap;
}
