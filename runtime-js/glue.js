// ptc code-mode glue: engine-neutral JavaScript that runs inside every sandbox.
//
// The engine evaluates this file after primordials.js (one module: capturePrimordials is in
// scope) and calls its default export ONCE per fresh sandbox, before the program runs, with the
// raw host functions and the run's facts. json.js, inspect.js, web.js, url.js, console.js,
// missing.js and intl.js are modules of their own, loaded the first time a run needs them (many runs need
// none: a fresh sandbox then reads about a third of the glue's code):
//
//   host.call(name, argsJson, trace) -> Promise  settles with the tool's JSON value, or rejects
//                                               with `toolCallError(name, message, site)`; may
//                                               throw synchronously when the run is over (e.g.
//                                               a call cap), which ends the run.
//   host.callPlain(name, args, trace)            optional (QuickJS has it): like call, but takes
//     -> Promise | undefined                     the arguments as they are when the engine can
//                                               read them as plain JSON data without running any
//                                               program code; undefined for anything else, which
//                                               the JSON encoder then handles. A fast path, never
//                                               a way around the encoder's rules.
//   host.traceText                               optional (QuickJS has it): true when call and
//                                               callPlain take a trace as its stack text.
//   host.log(level, line)                        records one console line; throws when output is
//                                               over the cap.
//   host.note(kind, site, subject, text)         records a note on the run ('cut short' or
//                                               'note') at site ("line:col" or ""), shown
//                                               after its output; 'unsaid' takes back one
//                                               such 'note' made before.
//   host.sleep(ms) -> Promise                    resolves after ms (timers end with the run).
//   host.now() -> number                         the host's clock: milliseconds since the Unix
//                                               epoch (Date, performance.now(), console.time).
//   host.random(n) -> number[]                   n bytes from the run's generator (crypto).
//   host.seed() -> number[]                      four 32-bit words seeding Math.random.
//   host.intl(op, spec, a, b) -> string          optional: Intl's formatting (engine/src/intl/),
//                                               given by engines with no working Intl of their
//                                               own; intl.js is its only user.
//   host.part(name) -> function                  the default export of a part ('json',
//                                               'inspect', 'web', 'url', 'console', 'missing',
//                                               'typed', 'intl'):
//                                               called once with the primordials (and what
//                                               else of the glue's that part needs).
//   host.note(kind, site, subject, text)         (see above)
//   facts: { toolNames, filename, shapes? }     shapes: tool name -> result shape JSON (typed.js)
//
// `trace` records where the program called the tool: for a call the engine marked before the run
// (`tools.x(args)` written in the program, see engine/src/program/sites.rs) the mark it passed,
// the number -(line * 2^24 + col); otherwise the frames below the tool, as their stack text when
// `host.traceText` (QuickJS formats frames as it takes them), else as an object whose `stack`
// formats them when read (V8 formats lazily). `siteOf(trace)` is "line:col" of the call (or ""),
// so failures and work left behind can point at the program's own line; nothing reads a call's
// site unless one of those needs it.
//
// The raw functions stay captured in this closure: the program can never reach them. Setup
// installs `tools`, `ToolCallError`, `console`, the web-platform globals (web.js), timers,
// `performance`, `crypto`, and stand-ins that explain what programs cannot use (`fetch`,
// `require`, `process`, `Buffer`, `Deno`, `Bun`), and returns helpers for the engine:
//
//   encodeResult(value, maxLength)               JSON text of the returned value (json.js
//     -> string | undefined | false              rules), undefined for undefined, false when
//                                               longer than maxLength; throws a TypeError
//                                               listing what is not JSON
//   describeError(error) -> string               JSON: { name, message, frames: [[line, col]],
//                                               tool, site } for the engine's diagnostic
//   toolCallError(name, message, site) -> Error  the ToolCallError a failed host call rejects with
//   messageOf(error) -> string                   an error's message, never throwing
//   siteOf(trace) -> string                      a call's site ("line:col" or "") from its trace
//   flatProto(key) -> object?                    the prototype alone typing that tool's results
//   typedResult(key, value, shape?) -> value     a tool's result typed by its shape (the
//                                               JSON text of typed.js's shapes): reads of
//                                               fields the type does not declare are noted
//   watch(value, fields, site, subject, text)    takes back the note `text` (made at site on
//                                               subject) at the program's first read of one
//                                               of `fields` of value (typed.js)
export default function ptcGlue(host, facts) {
  // Primordials, captured before any program code runs.
  const { create, defineProperty, freeze, getOwnPropertyDescriptor, keys } = Object;
  const ObjectPrototype = Object.prototype;
  const StringCtor = String;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const PromiseCtor = Promise;
  const ProxyCtor = Proxy;
  const MapCtor = Map;
  const apply = Reflect.apply;
  const bind = Function.prototype.bind;
  const stringify = JSON.stringify;
  const reject = (error) => apply(PromiseCtor.reject, PromiseCtor, [error]);
  const then = PromiseCtor.prototype.then;
  const toolNames = [...facts.toolNames].filter((name) => name !== 'run_code');
  const filename = StringCtor(facts.filename);

  // The clock and random numbers are the host's (engine/src/observed.rs), so that a recorded
  // run replays them; installed before the primordials are captured, so the parts read them too.
  installClock(host.now);
  installRandom(host.seed());
  const primordials = capturePrimordials();
  /** A lazily loaded part: its make function's result, made the first time it is asked for
   * (with the glue's own values it needs, `extra`). */
  const part = (name, extra) => {
    let made;
    return () => (made ??= host.part(name)(primordials, extra));
  };
  const json = part('json');
  // Marks the getters typed.js's `watch` puts on a result: they stand for plain fields, so
  // inspect.js reads through them (a program cannot reach this symbol).
  const watched = Symbol('watched');
  const inspector = part('inspect', { watched });
  const web = part('web');
  const url = part('url');

  // ---- errors -------------------------------------------------------------------------------------

  /** A tool call failed: `toolName` names the tool, `message` says why. */
  class ToolCallError extends ErrorCtor {
    constructor(toolName, message, site = '') {
      super(message);
      defineProperty(this, 'toolName', {
        value: toolName,
        writable: true,
        enumerable: true,
        configurable: true,
      });
      defineProperty(this, 'callSite', { value: site, writable: true, configurable: true });
    }
  }
  defineProperty(ToolCallError.prototype, 'name', {
    value: 'ToolCallError',
    writable: true,
    enumerable: false,
    configurable: true,
  });

  const messageOf = (error) => {
    try {
      if (error !== null && typeof error === 'object' && 'message' in error) {
        return StringCtor(error.message);
      }
      return StringCtor(error);
    } catch {
      return 'unprintable error';
    }
  };

  // `run_code.ts:12:5` in a stack line, for the program's own frames (compiled when first
  // needed: most runs never describe an error).
  let framePattern;
  const frameRegExp = () => {
    const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`${escaped}:(\\d+):(\\d+)`, 'g');
  };

  /** The program's own frames in a stack text, innermost first: [[line, col], ...]. */
  const framesOf = (stack) => {
    const frames = [];
    if (typeof stack !== 'string') return frames;
    framePattern ??= frameRegExp();
    for (const match of stack.matchAll(framePattern)) {
      frames.push([Number(match[1]), Number(match[2])]);
    }
    return frames;
  };

  /** "line:col" of the program's first frame in a stack text, or "". */
  const firstSite = (stack) => {
    const [frame] = framesOf(stack);
    return frame === undefined ? '' : `${frame[0]}:${frame[1]}`;
  };

  // Where a tool call comes from. Every call takes a trace of the frames below the tool
  // (`traceOf`), never a whole `new Error().stack` scanned in JavaScript: that made a sub-call
  // twice as slow. QuickJS formats the trace as it takes it and its host finds the site in
  // Rust; V8 formats only if `siteOf` reads it, when a call fails or is left behind.
  //
  // Error.stackTraceLimit and Error.prepareStackTrace as the engine reads them, with the
  // program's values set aside while a trace is taken or read, so that a program can neither
  // break traces nor see them being taken. QuickJS keeps both behind accessors on Error, whose
  // original functions reach the engine's own slots whatever the program does to the
  // properties; V8 reads plain properties of Error.
  const errorSetting = (key) => {
    const own = getOwnPropertyDescriptor(ErrorCtor, key);
    if (own !== undefined && typeof own.get === 'function' && typeof own.set === 'function') {
      return { get: apply(bind, own.get, [ErrorCtor]), set: apply(bind, own.set, [ErrorCtor]) };
    }
    // A program may make these throw; a trace then keeps whatever the engine gives it.
    return {
      get: () => {
        try {
          return ErrorCtor[key];
        } catch {
          return undefined;
        }
      },
      set: (value) => {
        try {
          if (value === undefined) delete ErrorCtor[key];
          else ErrorCtor[key] = value;
        } catch {}
      },
    };
  };
  const stackTraceLimit = errorSetting('stackTraceLimit');
  const prepareStackTrace = errorSetting('prepareStackTrace');
  const captureStackTrace = ErrorCtor.captureStackTrace;
  // The frames a trace keeps below the tool: the engines' default limit, so that most calls
  // leave the limit alone.
  const TRACE_FRAMES = 10;

  // A host that reads traces as text gets the text: QuickJS formats frames when they are taken,
  // so one holder serves every call. Elsewhere a trace is its own holder, formatted if read.
  const traceText = host.traceText === true;
  const holder = create(null);

  /** The frames below `callee`, a running tool function (see `trace` above). */
  const traceOf = (callee) => {
    const trace = traceText ? holder : create(null);
    const limit = stackTraceLimit.get();
    const prepare = prepareStackTrace.get();
    if (limit !== TRACE_FRAMES) stackTraceLimit.set(TRACE_FRAMES);
    if (prepare !== undefined) prepareStackTrace.set(undefined);
    captureStackTrace(trace, callee);
    if (limit !== TRACE_FRAMES) stackTraceLimit.set(limit);
    if (prepare !== undefined) prepareStackTrace.set(prepare);
    return traceText ? trace.stack : trace;
  };

  // Whether a tool's second argument is the engine's mark of where the call is written,
  // -(line * MARK_BASE + col) (tested inline where a call is made: a function call there costs a
  // tenth of a sub-call).
  const MARK_BASE = 16777216;
  const isMark = (site) => typeof site === 'number' && site < -MARK_BASE;

  /** "line:col" of a call from its trace (a mark, or a trace from `traceOf`), or "". */
  const siteOf = (trace) => {
    if (isMark(trace)) {
      const mark = -trace;
      if (mark % 1 !== 0 || mark >= 2 ** 53) return '';
      const col = mark % MARK_BASE;
      return `${(mark - col) / MARK_BASE}:${col}`;
    }
    if (typeof trace === 'string') return firstSite(trace);
    // V8 formats the frames now, with whatever `prepareStackTrace` is set.
    const prepare = prepareStackTrace.get();
    if (prepare !== undefined) prepareStackTrace.set(undefined);
    let stack;
    try {
      stack = trace.stack;
    } catch {}
    if (prepare !== undefined) prepareStackTrace.set(prepare);
    return firstSite(stack);
  };

  /** An uncaught error, as data for the engine's diagnostic. */
  const describeError = (error) => {
    try {
      const isError = error instanceof ErrorCtor
        || (error !== null && typeof error === 'object' && typeof error.stack === 'string');
      if (!isError) {
        const shown = typeof error === 'string' ? error : inspector().inspect(error);
        return stringify({ name: null, message: shown.toWellFormed(), frames: [] });
      }
      return stringify({
        name: StringCtor(error.name ?? 'Error').toWellFormed(),
        message: StringCtor(error.message ?? '').toWellFormed(),
        frames: framesOf(error.stack),
        tool: error instanceof ToolCallError ? StringCtor(error.toolName) : null,
        site: error instanceof ToolCallError ? StringCtor(error.callSite ?? '') : null,
      });
    } catch {
      return stringify({ name: null, message: 'an error that could not be described', frames: [] });
    }
  };

  // ---- typed results ------------------------------------------------------------------------------

  /** "line:col" of the program's frame that is running now (below the glue's), or "". */
  const siteHere = () => siteOf(traceOf(siteHere));
  const typed = part('typed', { note: host.note, siteHere, watched });
  const parseJson = JSON.parse;
  // Each tool's typer, by the key the engine gives it (QuickJS: a number; deno: the name).
  const typers = create(null);
  // `shape` comes with a tool's first result only (the engine sends each once).
  const typedResult = (key, value, shape) => {
    let type = typers[key];
    if (type === undefined) type = typers[key] = typed()(parseJson(shape));
    return type(value);
  };
  // The prototype that alone types the tool's results, if its shape is that simple.
  const flatProto = (key) => typers[key]?.proto;

  // ---- tools --------------------------------------------------------------------------------------

  const callPlain = host.callPlain;
  const makeTool = (name) => {
    const tool = function (args, site) {
      if (args === undefined) args = {};
      const trace = typeof site === 'number' && site < -MARK_BASE ? site : traceOf(tool);
      if (callPlain !== undefined) {
        try {
          const call = callPlain(name, args, trace);
          if (call !== undefined) return call;
        } catch (error) {
          return reject(new ToolCallError(name, messageOf(error), siteOf(trace)));
        }
      }
      let text;
      try {
        text = json().encode(args);
      } catch (error) {
        const message = `arguments are not JSON: ${messageOf(error)}`;
        return reject(new ToolCallError(name, message, siteOf(trace)));
      }
      try {
        return host.call(name, text, trace);
      } catch (error) {
        return reject(new ToolCallError(name, messageOf(error), siteOf(trace)));
      }
    };
    defineProperty(tool, 'name', { value: name });
    return freeze(tool);
  };

  // Names a program looks up on objects without meaning a tool (awaiting, printing,
  // converting): they are absent, not unknown tools.
  const PROTOCOL = new Set(['then', 'toJSON', 'toString', 'valueOf', 'constructor', 'inspect',
    'asymmetricMatch', 'nodeType', '$$typeof', '@@__IMMUTABLE_ITERABLE__@@']);
  const setHas = Set.prototype.has;
  const isProtocol = (key) => apply(setHas, PROTOCOL, [key]);
  // Unknown tools' messages and the stand-ins for Node's globals: missing.js.
  const missing = part('missing', { toolNames, isProtocol });
  // A program's `tools.ls(...)`: a function that rejects naming the tools there are.
  const unknownTools = new ProxyCtor(create(null), {
    get(_, prop) {
      if (typeof prop !== 'string' || isProtocol(prop)) return undefined;
      const unknown = function (_args, site) {
        const message = missing().unknownToolMessage(prop);
        return reject(new ToolCallError(prop, message, siteOf(isMark(site) ? site : traceOf(unknown))));
      };
      defineProperty(unknown, 'name', { value: prop });
      return unknown;
    },
  });
  const tools = create(unknownTools);
  for (const name of toolNames) {
    defineProperty(tools, name, {
      value: makeTool(name),
      enumerable: true,
      writable: false,
      configurable: false,
    });
  }
  freeze(tools);

  // ---- console ------------------------------------------------------------------------------------

  // `console` and `emit(level, line)` (also for errors in timer callbacks): console.js.
  const consoleKit = part('console', { log: host.log, now: host.now, inspector });

  // ---- timers, clock, randomness ------------------------------------------------------------------

  let nextTimer = 1;
  const liveTimers = new MapCtor();
  const runCallback = (callback, args) => {
    try {
      apply(callback, undefined, args);
    } catch (error) {
      consoleKit().emit('error', `Uncaught ${inspector().inspect(error)} (in a timer callback)`);
    }
  };
  const schedule = (callback, ms, args, repeat) => {
    if (typeof callback !== 'function') {
      throw new TypeErrorCtor('setTimeout and setInterval take a function (not a string of code)');
    }
    const id = nextTimer++;
    const delay = Math.max(0, Number(ms) || 0);
    liveTimers.set(id, true);
    const tick = () => {
      apply(then, host.sleep(delay), [() => {
        if (!liveTimers.has(id)) return;
        if (!repeat) liveTimers.delete(id);
        runCallback(callback, args);
        if (repeat && liveTimers.has(id)) tick();
      }]);
    };
    tick();
    return id;
  };
  const clear = (id) => {
    liveTimers.delete(id);
  };

  const randomBytes = (n) => Array.from(host.random(n));
  const crypto = freeze({
    randomUUID: () => {
      const b = randomBytes(16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const hex = b.map((x) => x.toString(16).padStart(2, '0')).join('');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
    getRandomValues: (array) => {
      if (!ArrayBuffer.isView(array) || array instanceof Float32Array || array instanceof Float64Array) {
        throw new TypeErrorCtor('crypto.getRandomValues takes an integer typed array');
      }
      if (array.byteLength > 65536) {
        throw new RangeError('crypto.getRandomValues fills at most 65536 bytes at a time');
      }
      const bytes = randomBytes(array.byteLength);
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(bytes);
      return array;
    },
  });
  // The first reading of the clock is the time origin.
  let timeOrigin;
  const origin = () => (timeOrigin ??= host.now());
  const performance = freeze({
    now: () => {
      const start = origin();
      return host.now() - start;
    },
    get timeOrigin() {
      return origin();
    },
  });

  // ---- install ------------------------------------------------------------------------------------

  const globals = {
    tools,
    ToolCallError,
    setTimeout: (callback, ms, ...args) => schedule(callback, ms, args, false),
    setInterval: (callback, ms, ...args) => schedule(callback, ms, args, true),
    clearTimeout: clear,
    clearInterval: clear,
    queueMicrotask: (callback) => {
      apply(then, PromiseCtor.resolve(), [() => runCallback(callback, [])]);
    },
    performance,
    crypto,
  };
  const install = (name, value) => {
    defineProperty(globalThis, name, { value, enumerable: false, writable: true, configurable: true });
  };
  for (const name of keys(globals)) install(name, globals[name]);
  // Globals made when first read: `console`, the stand-ins, and the web-platform globals (what
  // makeWeb and makeUrl return: web.js or url.js loads then). Each is an accessor until a
  // program reads it, and then a plain value; assigning one first never makes it.
  const lazyGlobals = { console: () => consoleKit().console };
  for (const name of ['fetch', 'require', 'process', 'Buffer', 'Deno', 'Bun']) {
    lazyGlobals[name] = () => missing().standIn(name);
  }
  for (const name of ['TextEncoder', 'TextDecoder', 'atob', 'btoa', 'structuredClone']) {
    lazyGlobals[name] = () => web()[name];
  }
  for (const name of ['URL', 'URLSearchParams']) lazyGlobals[name] = () => url()[name];
  // `Intl` and the locale methods where the engine has no working Intl of its own (the host then
  // gives `intl`): intl.js, on first use.
  if (host.intl !== undefined) {
    const intl = part('intl', { intl: host.intl });
    lazyGlobals.Intl = () => intl().Intl;
    const locale = [[Number.prototype, 'toLocaleString', 'number'],
      [BigInt.prototype, 'toLocaleString', 'number'], [Date.prototype, 'toLocaleString', 'date'],
      [Date.prototype, 'toLocaleDateString', 'dateOnly'],
      [Date.prototype, 'toLocaleTimeString', 'timeOnly'], [String.prototype, 'localeCompare', 'compare'],
      [String.prototype, 'toLocaleUpperCase', 'upper'], [String.prototype, 'toLocaleLowerCase', 'lower']];
    for (const [proto, name, kind] of locale) {
      const value = { [name](...args) { return intl()[kind](this, args[0], args[1], args[2]); } }[name];
      defineProperty(proto, name, { value, writable: true, enumerable: false, configurable: true });
    }
  }
  for (const name of keys(lazyGlobals)) {
    const make = lazyGlobals[name];
    defineProperty(globalThis, name, {
      get() {
        const value = make();
        install(name, value);
        return value;
      },
      set(value) {
        install(name, value);
      },
      enumerable: false,
      configurable: true,
    });
  }

  return freeze({
    encodeResult: (value, maxLength) => {
      if (value === undefined) return undefined;
      try {
        const nonFinite = [];
        const text = json().encode(value, maxLength, nonFinite);
        if (nonFinite.length > 0) {
          // JSON.stringify's null, said: a mean of nothing is not a 0 or a missing value.
          const said = `${nonFinite.join(', ')}, returned as null (JSON has no NaN or Infinity: \
return String(x), or check Number.isFinite(x))`;
          host.note('note', '', 'return', said);
        }
        return text.length > maxLength ? false : text;
      } catch (error) {
        if (error instanceof json().TooLong) return false;
        throw error;
      }
    },
    describeError,
    messageOf,
    siteOf,
    typedResult,
    flatProto,
    // A note on a result taken back when the program reads one of `fields` (typed.js).
    watch: (value, fields, site, subject, text) => typed().watch(value, fields, site, subject, text),
    toolCallError: (name, message, site) => new ToolCallError(name, message, site),
  });
}

/** Make `Date` read `now()` (milliseconds since the Unix epoch) wherever it reads the clock:
 * `new Date()`, `Date()` and `Date.now()`. Everything else is the built-in's: the prototype
 * (so `instanceof Date` holds both ways), `Date.UTC`, `Date.parse`, subclasses. */
function installClock(now) {
  const BuiltinDate = Date;
  const construct = Reflect.construct;
  const toString = Date.prototype.toString;
  const DateOfClock = function Date(...args) {
    if (new.target === undefined) return Reflect.apply(toString, construct(BuiltinDate, [now()]), []);
    return construct(BuiltinDate, args.length === 0 ? [now()] : args, new.target);
  };
  const define = (object, name, value, enumerable = false) => {
    Object.defineProperty(object, name, { value, writable: true, enumerable, configurable: true });
  };
  Object.defineProperty(DateOfClock, 'prototype', { value: BuiltinDate.prototype, writable: false });
  Object.defineProperty(DateOfClock, 'length', { value: 7, configurable: true });
  define(DateOfClock, 'now', function now_() {
    return Math.floor(now());
  });
  Object.defineProperty(DateOfClock.now, 'name', { value: 'now', configurable: true });
  define(DateOfClock, 'parse', BuiltinDate.parse);
  define(DateOfClock, 'UTC', BuiltinDate.UTC);
  define(BuiltinDate.prototype, 'constructor', DateOfClock);
  define(globalThis, 'Date', DateOfClock);
}

/** Make `Math.random` draw from a generator seeded with `seed` (four 32-bit words): sfc32,
 * two draws a number, for the 53 bits a double holds. */
function installRandom(seed) {
  let [a, b, c, d] = seed;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // The first draws of a fresh sfc32 state are weak: discard them, as its author advises.
  for (let i = 0; i < 12; i++) next();
  Object.defineProperty(Math, 'random', {
    value: function random() {
      return ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992;
    },
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

