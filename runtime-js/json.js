// ptc code-mode glue, part: program values as JSON, for tool arguments and returned values.
//
// The rules are JSON.stringify's wherever they keep the value's meaning: properties whose
// value is undefined are left out (and undefined, functions or symbols in arrays become
// null), toJSON is honoured (a Date becomes its ISO string), NaN and +-Infinity become null,
// array holes become null, symbol keys are ignored. Where JSON.stringify would silently
// corrupt a value (a Map or a Set becomes {}, a function property disappears, a Promise
// becomes {}), or cannot encode it (a BigInt, a cycle), the encoding fails instead, naming
// every offending path (up to 20) with a hint that fixes it. Values may nest at most
// MAX_DEPTH containers deep (ptc_schema::value::MAX_DEPTH on the Rust side).
//
// The walk is iterative (any depth is safe to look at) and reads each property once, so a
// getter cannot show the check one value and the output another.
//
// This file is a module of its own, loaded the first time a run needs it (see primordials.js).
// makeJson(primordials) returns { encode, TooLong }: encode(root, maxLength, nonFinite) gives the
// JSON text (undefined for an undefined root), throws TooLong once the text passes maxLength, and
// throws a TypeError "<path> is <what it is> (<hint>); ..." for values it refuses.

export default function makeJson(primordials) {
  const {
    ObjectGetPrototypeOf: getPrototypeOf,
    ObjectKeys: keys,
    Object: { prototype: ObjectPrototype },
    ReflectApply: apply,
    ArrayIsArray: isArray,
    NumberIsFinite: isFinite,
    JSONStringify: stringify,
    ObjectPrototypeToString: objectToString,
    String: StringCtor,
    Set: SetCtor,
    SetPrototypeHas: setHas,
    SetPrototypeAdd: setAdd,
    SetPrototypeDelete: setDelete,
    TypeError: TypeErrorCtor,
    ArrayBufferIsView: isView,
    uncurryThis,
    RegExpPrototypeTest,
    RegExpPrototypeExec,
    ObjectDefineProperty: defineProperty,
    MapPrototypeEntries: mapEntries,
    StringPrototypeToWellFormed,
  } = primordials;

  /** The deepest nesting a value may have. */
  const MAX_DEPTH = 1000;
  /** At most this many offending paths are named. */
  const MAX_ISSUES = 20;
  /** Open containers are compared one by one while shallow; deeper, a Set tracks them. */
  const SCAN_DEPTH = 32;

  /** Thrown when the text passes its maximum length. */
  class TooLong {}

  // JSON.stringify is costly per call in QuickJS; most strings (and keys) need no escaping.
  // Lone surrogates become U+FFFD: they are not text in any encoding.
  // The glue's own regular expressions run the original `exec` (`test` looks `exec` up on the
  // regex): a program's RegExp.prototype.exec cannot change what is escaped.
  const own = (regex) => defineProperty(regex, 'exec', { value: RegExpPrototypeExec });
  const needsEscape = own(/["\\\u0000-\u001f\ud800-\udfff]/);
  const identifier = own(/^[A-Za-z_$][\w$]*$/);
  const regexpTest = uncurryThis(RegExpPrototypeTest);
  const testEscape = (string) => regexpTest(needsEscape, string);
  const wellFormed = uncurryThis(StringPrototypeToWellFormed);
  const quote = (string) =>
    testEscape(string) ? stringify(wellFormed(string)) : `"${string}"`;

  /** The built-in class of an object ("Map", "Date", ...), read without running its code. */
  const classOf = (value) => {
    try {
      return apply(objectToString, value, []).slice(8, -1);
    } catch {
      return 'Object';
    }
  };

  /** 'Map' or 'Set' when one is among a Map's first values (a hint for both layers), else ''. */
  const nestedIn = (map) => {
    try {
      const entries = apply(mapEntries, map, []);
      for (let i = 0; i < 100; i++) {
        const step = entries.next();
        if (step.done) break;
        const inner = step.value[1];
        if (inner === null || typeof inner !== 'object') continue;
        const kind = classOf(inner);
        if (kind === 'Map' || kind === 'Set') return kind;
      }
    } catch {}
    return '';
  };

  /** Why a value cannot be JSON and how to fix it, or null when it can be encoded. */
  const refusal = (value) => {
    switch (typeof value) {
      case 'bigint':
        return 'a BigInt (use String(x) or Number(x))';
      case 'function':
        return 'a function (call it, or leave it out)';
      case 'symbol':
        return 'a symbol (use its description)';
      default:
        break;
    }
    if (value === null || typeof value !== 'object' || isArray(value)) return null;
    // A plain object is never one of the classes below (and a proxy's traps stay unread).
    const proto = getPrototypeOf(value);
    if (proto === ObjectPrototype || proto === null) return null;
    switch (classOf(value)) {
      case 'Map':
        switch (nestedIn(value)) {
          case 'Set':
            return 'a Map of Sets (use Object.fromEntries([...map].map(([k, v]) => [k, [...v]])))';
          case 'Map':
            return 'a Map of Maps (use Object.fromEntries([...map].map(([k, v]) => [k, Object.fromEntries(v)])))';
          default:
            return 'a Map (use Object.fromEntries(map))';
        }
      case 'Set':
        return 'a Set (use [...set])';
      case 'WeakMap':
      case 'WeakSet':
        return `a ${classOf(value)} (its entries cannot be listed; keep a Map or a Set)`;
      case 'Promise':
        return 'a Promise (await it)';
      case 'RegExp':
        return 'a RegExp (use re.source or String(re))';
      case 'Error':
        return 'an Error (use e.message)';
      case 'ArrayBuffer':
        return 'an ArrayBuffer (use Array.from(new Uint8Array(buffer)))';
      default:
        break;
    }
    if (isView(value)) return `a ${classOf(value)} (use Array.from(x))`;
    return null;
  };

  /** A path of more steps than this shows its first and last PATH_ENDS steps only. */
  const MAX_PATH_STEPS = 12;
  const PATH_ENDS = 4;

  /** The path of the value being opened, from the frames above it, e.g. `$.items[2].name`;
   * a deep one abbreviated: `$[0][0][0][0]...(992 more levels)...[0][0][0][0]`. */
  const pathOf = (frames, key) => {
    const keys = [];
    for (let i = 0; i < frames.length; i++) {
      if (frames[i].key !== undefined) keys[keys.length] = frames[i].key;
    }
    if (key !== undefined) keys[keys.length] = key;
    const step = (k) =>
      typeof k === 'number' ? `[${k}]` : regexpTest(identifier, k) ? `.${k}` : `[${stringify(k)}]`;
    let path = '$';
    const long = keys.length > MAX_PATH_STEPS;
    for (let i = 0; i < keys.length; i++) {
      if (long && i === PATH_ENDS) {
        path += `...(${keys.length - 2 * PATH_ENDS} more levels)...`;
        i = keys.length - PATH_ENDS;
      }
      path += step(keys[i]);
    }
    return path;
  };

  // nonFinite, when given, gets the path of each NaN or +-Infinity written as null (up to
  // MAX_ISSUES), e.g. `$.mean is NaN`: a returned value says so in a note.
  const encode = (root, maxLength = Infinity, nonFinite = null) => {
    if (root === undefined) return undefined;
    let out = '';
    const issues = [];
    const frames = [];
    let active = null;
    // The value to write next, and the key it sits at (undefined for the root).
    let value = root;
    let key = undefined;
    for (;;) {
      if (out.length > maxLength) throw new TooLong();
      // toJSON first, as JSON.stringify does (once per value).
      if (value !== null && typeof value === 'object' && typeof value.toJSON === 'function') {
        try {
          value = value.toJSON(key === undefined ? '' : StringCtor(key));
        } catch (error) {
          issues.push(`${pathOf(frames, key)}: its toJSON threw (${error?.message ?? error})`);
          value = null;
        }
      }
      const type = typeof value;
      const bad = refusal(value);
      if (bad !== null) {
        if (issues.length < MAX_ISSUES) issues.push(`${pathOf(frames, key)} is ${bad}`);
        out += 'null';
      } else if (type === 'string') {
        out += quote(value);
      } else if (type === 'number') {
        if (isFinite(value)) {
          out += value === 0 ? '0' : StringCtor(value);
        } else {
          out += 'null';
          if (nonFinite !== null && nonFinite.length < MAX_ISSUES) {
            nonFinite[nonFinite.length] = `${pathOf(frames, key)} is ${StringCtor(value)}`;
          }
        }
      } else if (type === 'boolean') {
        out += value ? 'true' : 'false';
      } else if (value === null || value === undefined) {
        out += 'null';
      } else {
        let cycle = false;
        if (active === null) {
          for (let d = 0; d < frames.length; d++) {
            if (frames[d].value === value) cycle = true;
          }
        } else {
          cycle = apply(setHas, active, [value]);
        }
        if (cycle) {
          if (issues.length < MAX_ISSUES) {
            issues.push(`${pathOf(frames, key)} is a cycle (the value contains itself)`);
          }
          out += 'null';
        } else if (frames.length === MAX_DEPTH) {
          throw new TypeErrorCtor(
            `the value at ${pathOf(frames, key)} nests deeper than ${MAX_DEPTH} levels`,
          );
        } else {
          let frame;
          if (isArray(value)) {
            out += '[';
            frame = { value, key, keys: null, i: 0, n: value.length, wrote: 0 };
          } else {
            const ownKeys = keys(value);
            out += '{';
            frame = { value, key, keys: ownKeys, i: 0, n: ownKeys.length, wrote: 0 };
          }
          frames[frames.length] = frame;
          if (active !== null) {
            apply(setAdd, active, [value]);
          } else if (frames.length > SCAN_DEPTH) {
            active = new SetCtor();
            for (let d = 0; d < frames.length; d++) apply(setAdd, active, [frames[d].value]);
          }
        }
      }
      // Move to the next value to write, closing finished containers.
      let next = false;
      while (!next) {
        if (frames.length === 0) {
          if (issues.length !== 0) {
            throw new TypeErrorCtor(issues.join('; '));
          }
          return out;
        }
        const frame = frames[frames.length - 1];
        while (frame.i < frame.n) {
          const i = frame.i;
          frame.i = i + 1;
          if (frame.keys === null) {
            // Arrays: every slot is written; undefined and symbols become null as
            // JSON.stringify does (a function is refused: it would be lost silently).
            if (frame.wrote !== 0) out += ',';
            frame.wrote += 1;
            value = frame.value[i];
            key = i;
            if (value === undefined || typeof value === 'symbol') value = null;
            next = true;
            break;
          }
          const k = frame.keys[i];
          const v = frame.value[k];
          // Objects: properties whose value is undefined are left out.
          if (v === undefined) continue;
          out += (frame.wrote !== 0 ? ',' : '') + quote(k) + ':';
          frame.wrote += 1;
          value = v;
          key = k;
          next = true;
          break;
        }
        if (next) break;
        out += frame.keys === null ? ']' : '}';
        if (active !== null) apply(setDelete, active, [frame.value]);
        frames.length -= 1;
      }
    }
  };

  return { encode, TooLong };
}
