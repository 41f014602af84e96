// ptc code-mode glue, part: the `console` global (log, info, debug, warn, error, trace, dir, table,
// assert, count, time, group and their companions), printed the way Node prints.
//
// This file is a module of its own, loaded the first time a run prints (see primordials.js).
// makeConsole(primordials, { log, now, inspector }) returns { console, emit }: `emit(level, line)`
// records one line through the raw `log(level, line)` with the group indent and the level's
// prefix; `now()` is the run's clock in milliseconds; `inspector()` is the inspect part.

export default function makeConsole(primordials, { log, now, inspector }) {
  const {
    Map: MapCtor,
    Object: { prototype: ObjectPrototype },
    ObjectCreate: create,
    ObjectDefineProperty: defineProperty,
    ObjectKeys: keys,
  } = primordials;

  let groupIndent = '';
  const emit = (level, line) => {
    const prefix = level === 'warn' ? 'warn: ' : level === 'error' ? 'error: ' : '';
    const text = groupIndent === '' ? line : line.split('\n').map((l) => groupIndent + l).join('\n');
    log(level, prefix + text);
  };
  const counts = new MapCtor();
  const timers = new MapCtor();
  const consoleMethods = {
    log: (...args) => emit('log', inspector().formatArgs(args)),
    info: (...args) => emit('info', inspector().formatArgs(args)),
    debug: (...args) => emit('debug', inspector().formatArgs(args)),
    warn: (...args) => emit('warn', inspector().formatArgs(args)),
    error: (...args) => emit('error', inspector().formatArgs(args)),
    trace: (...args) => emit('error', `Trace: ${inspector().formatArgs(args)}`),
    dir: (value) => emit('log', inspector().inspect(value)),
    table: (data, columns) => emit('log', inspector().table(data, columns)),
    assert: (condition, ...args) => {
      if (!condition) emit('error', `Assertion failed${args.length ? `: ${inspector().formatArgs(args)}` : ''}`);
    },
    count: (label = 'default') => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      emit('log', `${label}: ${n}`);
    },
    countReset: (label = 'default') => counts.delete(label),
    time: (label = 'default') => timers.set(label, now()),
    timeLog: (label = 'default', ...args) => {
      const start = timers.get(label);
      const extra = args.length ? ` ${inspector().formatArgs(args)}` : '';
      if (start !== undefined) emit('log', `${label}: ${(now() - start).toFixed(3)}ms${extra}`);
    },
    timeEnd: (label = 'default') => {
      const start = timers.get(label);
      if (start !== undefined) emit('log', `${label}: ${(now() - start).toFixed(3)}ms`);
      timers.delete(label);
    },
    group: (...args) => {
      if (args.length) emit('log', inspector().formatArgs(args));
      groupIndent += '  ';
    },
    groupCollapsed: (...args) => consoleMethods.group(...args),
    groupEnd: () => {
      groupIndent = groupIndent.slice(2);
    },
  };
  const console = create(ObjectPrototype);
  const names = keys(consoleMethods);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    defineProperty(console, name, {
      value: consoleMethods[name],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { console, emit };
}
