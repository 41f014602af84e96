// ptc code-mode glue: engine-neutral JavaScript that runs inside every sandbox.
//
// This ES module's default export is ONE setup function. The engine calls it once per fresh
// sandbox, before the program runs, with two raw host functions, the tool names and, optionally,
// a third raw function:
//
//   hostCall(name, argsJson) -> Promise   settles with the tool's JSON value, or rejects with
//                                         `toolCallError(name, message)` (see below); may throw
//                                         synchronously when the run is over (e.g. a call cap),
//                                         which ends the run.
//   hostLog(level, line)                  records one console line; level is "log" | "info" |
//                                         "warn" | "error" | "debug"; throws when output is over the cap.
//   hostCallPlain(name, args)             optional (QuickJS has it): like hostCall, but takes the
//     -> Promise | undefined              arguments as they are when the engine can read them as
//                                         plain JSON data without running any program code; returns
//                                         undefined for anything else, which the strict JSON check
//                                         below then handles as usual. A fast path, never a way around
//                                         the check: it accepts only values the check would accept,
//                                         and it cannot observe the difference (no getters, no traps).
//
// The raw functions stay captured in this closure: the program can never reach them, so every call
// goes through the strict JSON check below (or the engine's equivalent). Setup installs `tools`, `ToolCallError` and `console`
// on globalThis and returns helpers for the engine:
//
//   encodeResult(value, maxLength)              strict JSON text of the returned value, undefined
//     -> string | undefined | false             for undefined, false when the text would be longer
//                                               than maxLength (throws a TypeError naming the
//                                               offending path when not JSON)
//   describeError(error) -> string              "Name: message" plus the stack, for uncaught errors
//   toolCallError(name, message) -> Error       the ToolCallError a failed host call rejects with
//   messageOf(error) -> string                  an error's message, never throwing (for host glue
//                                               such as runtime-js/deno.js that builds those errors)
export default function ptcGlue(hostCall, hostLog, toolNames, hostCallPlain = null) {

  // Primordials, captured before any program code runs.
  const {
    create,
    defineProperty,
    freeze,
    getOwnPropertySymbols,
    getPrototypeOf,
    keys,
    prototype: ObjectPrototype,
  } = Object;
  const objectToString = Object.prototype.toString;
  const apply = Reflect.apply;
  const isArray = Array.isArray;
  const arrayJoin = Array.prototype.join;
  const isFinite = Number.isFinite;
  const stringify = JSON.stringify;
  const StringCtor = String;
  const ErrorCtor = Error;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setDelete = Set.prototype.delete;
  const PromiseCtor = Promise;
  const reject = (error) => apply(PromiseCtor.reject, PromiseCtor, [error]);

  // ---- strict JSON ------------------------------------------------------------------------------

  /** Describe a value that is not JSON, for error messages. */
  const describe = (value) => {
    switch (typeof value) {
      case 'undefined':
        return 'undefined';
      case 'function':
        return 'a function';
      case 'symbol':
        return 'a symbol';
      case 'bigint':
        return 'a BigInt';
      case 'number':
        return StringCtor(value);
      default: {
        let tag = 'a non-plain object';
        try {
          tag = apply(objectToString, value, []);
          tag = tag.slice(8, -1);
          if (tag === 'Object') {
            const name = getPrototypeOf(value)?.constructor?.name;
            if (typeof name === 'string' && name) tag = name;
          }
          tag = `a ${tag} object`;
        } catch {
          // keep the generic description
        }
        return tag;
      }
    }
  };

  /** The path of the value being opened, from the frames above it, e.g. `$.items[2].name`. */
  const pathOf = (frames) => {
    let path = '$';
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i];
      if (frame.keys === null) {
        path += `[${frame.i - 1}]`;
      } else {
        const key = frame.keys[frame.i - 1];
        path += /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${stringify(key)}]`;
      }
    }
    return path;
  };

  // JSON.stringify is costly per call in QuickJS; most strings (and keys) need no escaping.
  const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;
  const testEscape = Function.prototype.call.bind(RegExp.prototype.test, needsEscape);
  // Lone surrogates (not text in any encoding) become U+FFFD, as a UTF-8 host can carry them.
  const wellFormed = Function.prototype.call.bind(String.prototype.toWellFormed);
  const quote = (string) =>
    testEscape(string) ? stringify(wellFormed(string)) : `"${string}"`;

  /** Thrown by encodeJson when the text passes its maximum length. */
  class TooLong {}

  /** A TypeError saying what is not JSON and where. */
  const notJson = (what, frames) => new TypeError(`${what} at ${pathOf(frames)} is not JSON`);

  /** Open containers are compared one by one while shallow; deeper than this, a Set tracks them. */
  const SCAN_DEPTH = 32;

  /** The deepest nesting a value may have (ptc_schema::value::MAX_DEPTH on the Rust side). */
  const MAX_DEPTH = 1000;

  /**
   * Strict, iterative JSON encoding: null, booleans, strings, finite numbers, arrays without holes
   * and plain objects (prototype Object.prototype or null, no symbol keys), without cycles, at most
   * MAX_DEPTH containers deep. Anything else throws a TypeError naming its path; nothing is silently
   * dropped or turned into null. Each
   * property is read exactly once, so a getter cannot show the check one value and the output another.
   */
  const encodeJson = (root, maxLength = Infinity) => {
    let out = '';
    const frames = [];
    let active = null;
    let value = root;
    for (;;) {
      if (out.length > maxLength) throw new TooLong();
      const type = typeof value;
      if (type === 'string') {
        out += quote(value);
      } else if (type === 'number') {
        if (!isFinite(value)) throw notJson(describe(value), frames);
        // Finite numbers print the same in JSON as in String().
        out += value;
      } else if (type === 'boolean') {
        out += value ? 'true' : 'false';
      } else if (value === null) {
        out += 'null';
      } else if (type !== 'object') {
        throw notJson(describe(value), frames);
      } else {
        if (active === null) {
          for (let d = 0; d < frames.length; d++) {
            if (frames[d].value === value) throw notJson('a cycle', frames);
          }
        } else if (apply(setHas, active, [value])) {
          throw notJson('a cycle', frames);
        }
        let frame;
        if (isArray(value)) {
          out += '[';
          frame = { value, keys: null, i: 0, n: value.length };
        } else {
          const proto = getPrototypeOf(value);
          if (proto !== ObjectPrototype && proto !== null) throw notJson(describe(value), frames);
          if (getOwnPropertySymbols(value).length !== 0) {
            throw notJson('an object with symbol keys', frames);
          }
          const ownKeys = keys(value);
          out += '{';
          frame = { value, keys: ownKeys, i: 0, n: ownKeys.length };
        }
        if (frames.length === MAX_DEPTH) {
          throw new TypeError(`the value at ${pathOf(frames)} nests deeper than ${MAX_DEPTH} levels`);
        }
        frames[frames.length] = frame;
        if (active !== null) {
          apply(setAdd, active, [value]);
        } else if (frames.length > SCAN_DEPTH) {
          active = new SetCtor();
          for (let d = 0; d < frames.length; d++) apply(setAdd, active, [frames[d].value]);
        }
      }
      // Move to the next value, closing finished containers.
      for (;;) {
        if (frames.length === 0) return out;
        const frame = frames[frames.length - 1];
        const i = frame.i;
        if (i < frame.n) {
          frame.i = i + 1;
          if (frame.keys === null) {
            if (i !== 0) out += ',';
            if (!(i in frame.value)) throw notJson('an array hole', frames);
            value = frame.value[i];
          } else {
            const key = frame.keys[i];
            out += (i !== 0 ? ',' : '') + quote(key) + ':';
            value = frame.value[key];
          }
          break;
        }
        out += frame.keys === null ? ']' : '}';
        if (active !== null) apply(setDelete, active, [frame.value]);
        frames.length -= 1;
      }
    }
  };

  // ---- errors and formatting ----------------------------------------------------------------------

  /** A tool call failed: `toolName` names the tool, `message` says why. */
  class ToolCallError extends ErrorCtor {
    constructor(toolName, message) {
      super(message);
      defineProperty(this, 'toolName', {
        value: toolName,
        writable: true,
        enumerable: true,
        configurable: true,
      });
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

  const isErrorLike = (value) =>
    value instanceof ErrorCtor ||
    (value !== null && typeof value === 'object' && typeof value.stack === 'string');

  /** "Name: message" followed by the stack, as well-formed text. */
  const describeError = (error) => wellFormed(describeRaw(error));

  /** "Name: message" followed by the stack (V8 stacks already start with that line). */
  const describeRaw = (error) => {
    try {
      if (!isErrorLike(error)) return format(error);
      const name = StringCtor(error.name ?? 'Error');
      const message = StringCtor(error.message ?? '');
      const head = message === '' ? name : `${name}: ${message}`;
      const stack = typeof error.stack === 'string' ? error.stack.trimEnd() : '';
      if (stack === '') return head;
      if (stack.startsWith(head)) return stack;
      return `${head}\n${stack}`;
    } catch {
      return 'unprintable error';
    }
  };

  /** One console argument as text: strings raw, errors with their stack, other values as JSON. */
  const format = (value) => {
    switch (typeof value) {
      case 'string':
        return value;
      case 'undefined':
        return 'undefined';
      case 'function':
        return `[Function: ${value.name || 'anonymous'}]`;
      case 'bigint':
        return `${value}n`;
      case 'symbol':
      case 'number':
      case 'boolean':
        return StringCtor(value);
      default:
        break;
    }
    if (value === null) return 'null';
    if (isErrorLike(value)) return describeError(value);
    try {
      const json = stringify(value);
      if (typeof json === 'string') return json;
    } catch {
      // cycles, BigInt values, deep nesting: fall back to String()
    }
    try {
      return StringCtor(value);
    } catch {
      return '[unprintable]';
    }
  };

  // ---- tools --------------------------------------------------------------------------------------

  // A tool returns the raw host promise itself (no extra async hop): the engine rejects it with
  // `toolCallError(name, message)` from the helpers below. It never throws synchronously.
  const makeTool = (name) => {
    const tool = function (args) {
      if (args === undefined) args = {};
      if (hostCallPlain !== null) {
        try {
          const call = hostCallPlain(name, args);
          if (call !== undefined) return call;
        } catch (error) {
          return reject(new ToolCallError(name, messageOf(error)));
        }
      }
      let json;
      try {
        json = encodeJson(args);
      } catch (error) {
        return reject(new ToolCallError(name, `arguments are not JSON: ${messageOf(error)}`));
      }
      try {
        return hostCall(name, json);
      } catch (error) {
        return reject(new ToolCallError(name, messageOf(error)));
      }
    };
    defineProperty(tool, 'name', { value: name });
    return freeze(tool);
  };

  const tools = create(null);
  for (let i = 0; i < toolNames.length; i++) {
    const name = toolNames[i];
    // No recursion: a program never gets a run_code binding.
    if (name === 'run_code') continue;
    defineProperty(tools, name, {
      value: makeTool(name),
      enumerable: true,
      writable: false,
      configurable: false,
    });
  }
  freeze(tools);

  // ---- console ------------------------------------------------------------------------------------

  const makeLog = (level) =>
    function (...args) {
      let line = '';
      for (let i = 0; i < args.length; i++) {
        if (i !== 0) line += ' ';
        line += format(args[i]);
      }
      hostLog(level, wellFormed(line));
    };
  const console = create(ObjectPrototype);
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    defineProperty(console, level, {
      value: makeLog(level),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }

  for (const [name, value] of [
    ['tools', tools],
    ['ToolCallError', ToolCallError],
    ['console', console],
  ]) {
    defineProperty(globalThis, name, {
      value,
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }

  return freeze({
    encodeResult: (value, maxLength) => {
      if (value === undefined) return undefined;
      try {
        const text = encodeJson(value, maxLength);
        return text.length > maxLength ? false : text;
      } catch (error) {
        if (error instanceof TooLong) return false;
        throw error;
      }
    },
    describeError,
    messageOf,
    toolCallError: (name, message) => new ToolCallError(name, message),
  });
}
