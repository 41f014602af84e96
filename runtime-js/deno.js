// ptc code-mode glue, deno_core adapter: the extension's ESM entry point (`ext:ptc/deno.js`).
//
// Evaluated once when a sandbox (a fresh JsRuntime) is created, before any program exists. It
//  1. turns deno_core's ops into the raw host functions that `glue.js` expects (`call`, `log`,
//     `note`, `sleep`, `now`, `random`; see glue.js), and keeps what the engine reports as work left
//     behind: tool calls still pending, and failed calls whose rejection nothing handled;
//  2. takes away everything deno_core puts on globalThis that is not the language itself (the
//     `Deno` namespace with `Deno.core.ops`, `__bootstrap`, ...), so a program has no ambient
//     authority and no way to reach any op;
//  3. hands the engine one function, through `op_ptc_ready`, that a run calls with its facts
//     ({ toolNames, filename }): it runs the shared glue's setup and returns the glue's helpers
//     plus `leftBehind() -> JSON [{ tool, site, failed? }]`.
// The ops stay in this module's scope; a program cannot import `ext:` modules.

import {
  op_ptc_host_call,
  op_ptc_host_log,
  op_ptc_note,
  op_ptc_intl,
  op_ptc_intl_wanted,
  op_ptc_now,
  op_ptc_random,
  op_ptc_seed,
  op_ptc_ready,
  op_ptc_sleep,
} from 'ext:core/ops';
import ptcGlue from 'ext:ptc/glue.js';
import makeInspect from 'ext:ptc/inspect.js';
import makeJson from 'ext:ptc/json.js';
import makeWeb from 'ext:ptc/web.js';
import makeUrl from 'ext:ptc/url.js';
import makeConsole from 'ext:ptc/console.js';
import makeMissing from 'ext:ptc/missing.js';
import makeTyped from 'ext:ptc/typed.js';
import makeIntl from 'ext:ptc/intl.js';

// Primordials, captured before any program code runs.
const { deleteProperty, ownKeys } = Reflect;
const parseJson = JSON.parse;
const StringCtor = String;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const apply = Reflect.apply;
const { charCodeAt, indexOf, slice, split } = String.prototype;

// An unhandled rejection is the program's business (an un-awaited failed tool call, say), not a
// reason for deno_core to end the run: only the program's own promise decides.
// Failed tool calls whose rejection nothing handled, until something does.
const unhandled = new Map();
globalThis.Deno.core.setUnhandledPromiseRejectionHandler((promise, reason) => {
  if (reason !== null && typeof reason === 'object' && reason.name === 'ToolCallError') {
    unhandled.set(promise, { tool: StringCtor(reason.toolName), site: StringCtor(reason.callSite ?? ''), failed: messageOf(reason) });
  } else {
    unhandled.set(promise, { rejected: nameOf(reason) + messageOf(reason) });
  }
  return true;
});
/** `Name: ` of a rejection reason that is an error, else nothing. */
function nameOf(reason) {
  try {
    if (reason !== null && typeof reason === 'object' && typeof reason.name === 'string') {
      return reason.name + ': ';
    }
  } catch {}
  return '';
}
globalThis.Deno.core.setHandledPromiseRejectionHandler((promise) => {
  unhandled.delete(promise);
});

// The language's own globals (ECMA-262 and ECMA-402). Everything else goes.
const LANGUAGE = new Set([
  'globalThis', 'Infinity', 'NaN', 'undefined',
  'eval', 'isFinite', 'isNaN', 'parseFloat', 'parseInt',
  'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape',
  'AggregateError', 'Array', 'ArrayBuffer', 'AsyncDisposableStack', 'Atomics', 'BigInt',
  'BigInt64Array', 'BigUint64Array', 'Boolean', 'DataView', 'Date', 'DisposableStack', 'Error',
  'EvalError', 'FinalizationRegistry', 'Float16Array', 'Float32Array', 'Float64Array', 'Function',
  'Int8Array', 'Int16Array', 'Int32Array', 'Intl', 'Iterator', 'JSON', 'Map', 'Math', 'Number',
  'Object', 'Promise', 'Proxy', 'RangeError', 'ReferenceError', 'Reflect', 'RegExp', 'Set',
  'SharedArrayBuffer', 'String', 'SuppressedError', 'Symbol', 'SyntaxError', 'TypeError',
  'Uint8Array', 'Uint8ClampedArray', 'Uint16Array', 'Uint32Array', 'URIError', 'WeakMap',
  'WeakRef', 'WeakSet',
]);
const kept = [];
for (const key of ownKeys(globalThis)) {
  if (typeof key === 'string' && LANGUAGE.has(key)) continue;
  if (!deleteProperty(globalThis, key)) kept.push(StringCtor(key));
}
if (kept.length !== 0) {
  throw new Error(`ptc: could not remove host globals: ${kept.join(', ')}`);
}
// A sandbox never blocks its thread (the engine also disallows Atomics.wait; this keeps the
// error the same on every engine).
if (getOwnPropertyDescriptor(Atomics, 'wait') !== undefined) {
  const wait = () => {
    throw new TypeError('Atomics.wait cannot be called in this context');
  };
  Object.defineProperty(Atomics, 'wait', { value: wait, writable: true, configurable: true });
}

// All come from the glue's helpers once it is set up (before any tool can be called).
let toolCallError = null;
let messageOf = null;
let siteOf = null;
let typedResult = null;
let watch = null;
// The run's result shapes by tool name (facts.shapes), if any.
let shapes;
const hasOwn = Object.hasOwn;

// Tool calls not yet settled (a run's own sandbox, so one run's calls), with their traces: a
// call's site is only read when it fails or is left behind.
const pending = new Map();
let nextCall = 0;

/** The raw `call`: the op answers with JSON text or throws the failure's message. */
const hostCall = async (name, argsJson, trace) => {
  const id = nextCall++;
  pending.set(id, { tool: name, trace });
  let text;
  try {
    text = await op_ptc_host_call(name, argsJson);
  } catch (error) {
    throw toolCallError(name, messageOf(error), siteOf(trace));
  } finally {
    pending.delete(id);
  }
  // Notes from the host come first, each `\0<kind><text>`, then `\0\0` (JSON text never
  // starts with NUL): c a cut, n a note, w a note taken back when the program reads one of the
  // fields listed on its first line.
  let watched;
  if (apply(charCodeAt, text, [0]) === 0) {
    let at = 0;
    for (;;) {
      const end = apply(indexOf, text, ['\0', at + 1]);
      const segment = apply(slice, text, [at + 1, end]);
      at = end;
      if (segment === '' || end < 0) break;
      const kind = segment[0];
      const body = apply(slice, segment, [1]);
      if (kind === 'w') watched = body;
      else op_ptc_note(kind === 'c' ? 'cut short' : 'note', siteOf(trace), name, body);
    }
    text = apply(slice, text, [at + 1]);
  }
  let value = parseJson(text);
  if (shapes !== undefined && hasOwn(shapes, name)) value = typedResult(name, value, shapes[name]);
  if (watched !== undefined) {
    const line = apply(indexOf, watched, ['\n']);
    const note = apply(slice, watched, [line + 1]);
    const site = siteOf(trace);
    op_ptc_note('note', site, name, note);
    watch(value, apply(split, apply(slice, watched, [0, line]), [',']), site, name, note);
  }
  return value;
};

const PARTS = {
  json: makeJson,
  inspect: makeInspect,
  web: makeWeb,
  url: makeUrl,
  console: makeConsole,
  missing: makeMissing,
  typed: makeTyped,
  intl: makeIntl,
};

const host = {
  call: hostCall,
  log: op_ptc_host_log,
  note: op_ptc_note,
  sleep: (ms) => op_ptc_sleep(ms),
  now: () => op_ptc_now(),
  random: (n) => op_ptc_random(n),
  seed: () => op_ptc_seed(),
  // ptc's Intl replaces the QuickJS facade's stub; V8 keeps its own (no `intl` then).
  intl: op_ptc_intl_wanted() ? (op, spec, a, b) => op_ptc_intl(op, spec, a, b) : undefined,
  // V8 compiles a function when it first runs: the parts are imported with the rest.
  part: (name) => PARTS[name],
};

op_ptc_ready((facts) => {
  const helpers = ptcGlue(host, facts);
  toolCallError = helpers.toolCallError;
  messageOf = helpers.messageOf;
  siteOf = helpers.siteOf;
  typedResult = helpers.typedResult;
  watch = helpers.watch;
  shapes = facts.shapes;
  const leftBehind = () => {
    const calls = [...pending.values()].map(({ tool, trace }) => ({ tool, site: siteOf(trace) }));
    return JSON.stringify([...calls, ...unhandled.values()]);
  };
  return Object.freeze({ ...helpers, leftBehind });
});
