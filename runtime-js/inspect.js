// ptc code-mode glue, part: console output formatted as Node's util.inspect formats the
// common cases, so what a model expects to print is what it sees.
//
// - strings print raw at the top level and 'quoted' inside containers;
// - objects and arrays as `{ a: 1, b: [ 1, 2 ] }` (one line when short, indented lines when
//   not), nesting beyond two levels as [Object] / [Array], cycles as [Circular];
// - Map(2) { 'a' => 1 }, Set(1) { 1 }, Uint8Array(2) [ 1, 2 ], dates as ISO strings, errors
//   as "Name: message", functions as [Function: name], class instances with their name;
// - getters are shown as [Getter], never called (but those that stand for plain fields, marked
//   with `extra.watched` by typed.js's watch, are read);
// - format directives in a first string argument: %s %d %i %f %j %o %O %c %%.
//
// This file is a module of its own, loaded the first time a run needs it (see primordials.js).
// makeInspect(primordials, { watched }) returns { inspect, formatArgs, table }: inspect(value) as a nested value,
// formatArgs(args) as console.log joins its arguments, table(data, columns) as
// console.table draws a table.

export default function makeInspect(primordials, extra) {
  // The mark of getters that stand for plain fields (typed.js's `watch`): read, not shown as
  // [Getter/Setter].
  const watched = extra?.watched;
  const {
    ObjectGetOwnPropertyDescriptor: getOwnPropertyDescriptor,
    ObjectGetPrototypeOf: getPrototypeOf,
    ObjectKeys: keys,
    Object: { prototype: ObjectPrototype },
    ObjectEntries: objectEntries,
    ObjectIs: objectIs,
    MathMax: max,
    MathMin: min,
    MathTrunc: trunc,
    ReflectApply: apply,
    ArrayIsArray: isArray,
    ObjectPrototypeToString: objectToString,
    FunctionPrototypeToString: functionToString,
    String: StringCtor,
    Number: NumberCtor,
    JSONStringify: stringify,
    ArrayBufferIsView: isView,
    DatePrototypeToISOString: toISOString,
    DatePrototypeGetTime: getTime,
    RegExpPrototypeToString: regexpToString,
    MapPrototypeEntries: mapEntries,
    MapPrototypeGetSize: mapSize,
    SetPrototypeValues: setValues,
    SetPrototypeGetSize: setSize,
    uncurryThis,
    StringPrototypeToWellFormed,
  } = primordials;
  const wellFormed = uncurryThis(StringPrototypeToWellFormed);

  /** How deep containers are shown before [Object] / [Array]. */
  const DEPTH = 2;
  /** Items of an array, Map or Set shown before "... n more items". */
  const MAX_ITEMS = 100;
  /** Longest single-line form of a container before it breaks into lines. */
  const BREAK = 72;

  const classOf = (value) => {
    try {
      return apply(objectToString, value, []).slice(8, -1);
    } catch {
      return 'Object';
    }
  };

  /** The constructor name a value shows with, or null for plain objects. */
  const constructorName = (value) => {
    try {
      const proto = getPrototypeOf(value);
      if (proto === null) return '[Object: null prototype]';
      if (proto === ObjectPrototype) return null;
      const name = proto.constructor?.name;
      return typeof name === 'string' && name !== '' && name !== 'Object' ? name : null;
    } catch {
      return null;
    }
  };

  const quoteString = (text) => {
    if (!text.includes("'")) return `'${text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}'`;
    return stringify(text);
  };

  const keyText = (key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : quoteString(key));

  const functionText = (fn) => {
    let source = '';
    try {
      source = apply(functionToString, fn, []);
    } catch {
      // a proxy or an exotic function: keep the generic form
    }
    const name = fn.name || '';
    if (source.startsWith('class')) return `[class ${name || '(anonymous)'}]`;
    const kind = classOf(fn) === 'AsyncFunction' ? 'AsyncFunction' : 'Function';
    return name ? `[${kind}: ${name}]` : `[${kind} (anonymous)]`;
  };

  /** Join parts as `open a, b close`, on one line when short, else indented lines. */
  const wrap = (open, parts, close, indent) => {
    if (parts.length === 0) return `${open}${close}`;
    const single = `${open} ${parts.join(', ')} ${close}`;
    if (single.length <= BREAK && !parts.some((p) => p.includes('\n'))) return single;
    const pad = '  '.repeat(indent + 1);
    return `${open}\n${pad}${parts.join(`,\n${pad}`)}\n${'  '.repeat(indent)}${close}`;
  };

  const inspectValue = (value, depth, seen, indent) => {
    switch (typeof value) {
      case 'string':
        return quoteString(value);
      case 'number':
        return objectIs(value, -0) ? '-0' : StringCtor(value);
      case 'bigint':
        return `${value}n`;
      case 'symbol':
        return StringCtor(value);
      case 'undefined':
        return 'undefined';
      case 'boolean':
        return StringCtor(value);
      case 'function':
        return functionText(value);
      default:
        break;
    }
    if (value === null) return 'null';
    if (seen.includes(value)) return '[Circular]';
    const kind = classOf(value);
    if (kind === 'Date') {
      const time = apply(getTime, value, []);
      return NumberCtor.isNaN(time) ? 'Invalid Date' : apply(toISOString, value, []);
    }
    if (kind === 'RegExp') return apply(regexpToString, value, []);
    if (kind === 'Error' || value instanceof Error) {
      const name = StringCtor(value.name ?? 'Error');
      const message = StringCtor(value.message ?? '');
      return message === '' ? `[${name}]` : `${name}: ${message}`;
    }
    if (kind === 'Promise') return 'Promise { <pending or settled> } (await it to see its value)';
    if (kind === 'WeakMap' || kind === 'WeakSet') return `${kind} { <items unknown> }`;
    const inner = [...seen, value];
    const deeper = (v) => inspectValue(v, depth + 1, inner, indent + 1);
    if (kind === 'Map') {
      const size = apply(mapSize, value, []);
      if (depth > DEPTH) return "[Map]";
      const parts = [];
      for (const [k, v] of apply(mapEntries, value, [])) {
        if (parts.length === MAX_ITEMS) {
          parts.push(`... ${size - MAX_ITEMS} more items`);
          break;
        }
        parts.push(`${deeper(k)} => ${deeper(v)}`);
      }
      return wrap(`Map(${size}) {`, parts, '}', indent);
    }
    if (kind === 'Set') {
      const size = apply(setSize, value, []);
      if (depth > DEPTH) return "[Set]";
      const parts = [];
      for (const v of apply(setValues, value, [])) {
        if (parts.length === MAX_ITEMS) {
          parts.push(`... ${size - MAX_ITEMS} more items`);
          break;
        }
        parts.push(deeper(v));
      }
      return wrap(`Set(${size}) {`, parts, '}', indent);
    }
    if (isArray(value) || isView(value)) {
      const label = isArray(value) ? '' : `${kind}(${value.length}) `;
      if (depth > DEPTH) return isArray(value) ? "[Array]" : `[${kind}]`;
      const parts = [];
      let holes = 0;
      const flushHoles = () => {
        if (holes !== 0) parts.push(`<${holes} empty item${holes === 1 ? '' : 's'}>`);
        holes = 0;
      };
      const shown = min(value.length, MAX_ITEMS);
      for (let i = 0; i < shown; i++) {
        if (!(i in value)) {
          holes += 1;
          continue;
        }
        flushHoles();
        parts.push(deeper(value[i]));
      }
      flushHoles();
      if (value.length > MAX_ITEMS) parts.push(`... ${value.length - MAX_ITEMS} more items`);
      return label + wrap('[', parts, ']', indent);
    }
    const name = constructorName(value);
    if (depth > DEPTH) return name === null ? "[Object]" : `[${name}]`;
    const parts = [];
    for (const key of keys(value)) {
      const descriptor = getOwnPropertyDescriptor(value, key);
      if (descriptor === undefined) continue;
      let shown;
      if ('value' in descriptor) shown = deeper(descriptor.value);
      else if (watched !== undefined && descriptor.get?.[watched] === true) shown = deeper(value[key]);
      else if (descriptor.get && descriptor.set) shown = '[Getter/Setter]';
      else shown = descriptor.get ? '[Getter]' : '[Setter]';
      parts.push(`${keyText(key)}: ${shown}`);
    }
    const open = name === null ? '{' : `${name} {`;
    return wrap(open, parts, '}', indent);
  };

  /** A value as console.log shows it nested in other output (strings quoted). */
  const inspect = (value) => {
    try {
      return inspectValue(value, 0, [], 0);
    } catch {
      return '[unprintable]';
    }
  };

  /** A top-level console argument: strings raw, everything else inspected. */
  const shown = (value) => (typeof value === 'string' ? value : inspect(value));

  /** console.log's line for `args`: format directives in a first string, then the rest. */
  const formatArgs = (args) => {
    let rest = args;
    let line = '';
    if (typeof args[0] === 'string' && args[0].includes('%') && args.length > 1) {
      let i = 1;
      line = args[0].replace(/%[sdifjoOc%]/g, (directive) => {
        if (directive === '%%') return '%';
        if (i >= args.length) return directive;
        const arg = args[i++];
        switch (directive) {
          case '%s':
            return typeof arg === 'string' ? arg : typeof arg === 'bigint' ? `${arg}n` : inspect(arg);
          case '%d':
            return typeof arg === 'bigint' ? `${arg}n` : StringCtor(NumberCtor(arg));
          case '%i':
            return typeof arg === 'bigint' ? `${arg}n` : StringCtor(trunc(NumberCtor(arg)));
          case '%f':
            return StringCtor(NumberCtor.parseFloat(arg));
          case '%j':
            try {
              return stringify(arg);
            } catch {
              return '[Circular]';
            }
          case '%c':
            return '';
          default:
            return inspect(arg);
        }
      });
      rest = args.slice(i);
      for (const arg of rest) line += ` ${shown(arg)}`;
      return wellFormed(line);
    }
    for (let i = 0; i < rest.length; i++) line += (i === 0 ? '' : ' ') + shown(rest[i]);
    return wellFormed(line);
  };

  /** console.table's text: an index column and one column per key (or `columns`). */
  const table = (data, columns) => {
    if (data === null || typeof data !== 'object') return formatArgs([data]);
    const rows = [];
    const heads = [];
    const addHead = (h) => {
      if (!heads.includes(h)) heads.push(h);
    };
    let hasValues = false;
    const entries = classOf(data) === 'Map' ? [...apply(mapEntries, data, [])] : objectEntries(data);
    for (const [index, row] of entries) {
      const cells = new Map();
      if (row !== null && typeof row === 'object') {
        for (const k of keys(row)) {
          if (columns === undefined || columns.includes(k)) {
            addHead(k);
            cells.set(k, inspect(row[k]));
          }
        }
      } else {
        hasValues = true;
        cells.set('\0values', inspect(row));
      }
      rows.push([StringCtor(index), cells]);
    }
    const names = ['(index)', ...(columns ?? heads), ...(hasValues ? ['Values'] : [])];
    const cellOf = ([index, cells], name) =>
      name === '(index)' ? index : name === 'Values' ? cells.get('\0values') ?? '' : cells.get(name) ?? '';
    const widths = names.map((name) => max(name.length, ...rows.map((row) => cellOf(row, name).length)) + 2);
    const H = '\u2500';
    const line = (left, mid, right) => left + widths.map((w) => H.repeat(w)).join(mid) + right;
    const row = (cells) => `\u2502${cells.map((c, i) => ` ${c}${' '.repeat(widths[i] - c.length - 1)}`).join('\u2502')}\u2502`;
    const out = [line('\u250c', '\u252c', '\u2510'), row(names), line('\u251c', '\u253c', '\u2524')];
    for (const r of rows) out.push(row(names.map((name) => cellOf(r, name))));
    out.push(line('\u2514', '\u2534', '\u2518'));
    return out.join('\n');
  };

  return { inspect, formatArgs, table };
}
