// ptc code-mode glue, part: what a program reaches for that is not there: a tool name that does
// not exist ("did you mean"), and Node's, Deno's and the browser's globals a sandboxed program
// cannot use (`fetch`, `require`, `process`, `Buffer`, `Deno`, `Bun`), each a stand-in that
// throws a TypeError saying what to do instead.
//
// This file is a module of its own, loaded the first time a run needs it (see primordials.js).
// makeMissing(primordials, { toolNames, isProtocol }) returns { unknownToolMessage(name),
// standIn(name) }; `isProtocol(key)` says whether a property is one a program reads without
// meaning anything by it (awaiting, printing, converting).

export default function makeMissing(primordials, { toolNames, isProtocol }) {
  const {
    JSONStringify: stringify,
    MathFloor: floor,
    MathMax: max,
    MathMin: min,
    Proxy: ProxyCtor,
    ReflectApply: apply,
    RegExpPrototypeTest: regExpTest,
    StringPrototypeIncludes,
    StringPrototypeToLowerCase,
    TypeError: TypeErrorCtor,
    uncurryThis,
  } = primordials;
  const includes = uncurryThis(StringPrototypeIncludes);
  const toLowerCase = uncurryThis(StringPrototypeToLowerCase);

  /** Edit distance with adjacent swaps counted once (for "did you mean"). */
  const distance = (a, b) => {
    const d = [];
    for (let i = 0; i <= a.length; i++) d[i] = [i];
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
          d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length][b.length];
  };

  /** What the shell and other harnesses call what a builtin tool does: `tools.ls` is `glob`,
   * not `lsp`, which is only a few letters away. */
  const ALIASES = {
    __proto__: null,
    ls: 'glob', find: 'glob', list_files: 'glob', list_directory: 'glob',
    cat: 'read', head: 'read', tail: 'read', view: 'read', open: 'read', read_file: 'read',
    rg: 'grep', ripgrep: 'grep', search: 'grep', search_text: 'grep', find_in_files: 'grep',
    sh: 'bash', shell: 'bash', exec: 'bash', run: 'bash', run_command: 'bash', execute: 'bash',
    write_file: 'write', create_file: 'write', save: 'write',
    edit_file: 'edit', str_replace: 'edit', replace: 'edit', patch: 'edit',
    fetch: 'web_fetch', curl: 'web_fetch', http_get: 'web_fetch',
  };

  /** Names the message lists; beyond them it counts the rest (hundreds of tools). */
  const MAX_LISTED = 40;

  /** Why `tools[name]` is no tool, with the closest name there is and the list of all (the
   * first `MAX_LISTED`, then how many more and, with discovery, how to find them). */
  const unknownToolMessage = (name) => {
    const wanted = toLowerCase(name);
    let best = null;
    let bestScore = Infinity;
    let list = '';
    let searchable = false;
    for (let i = 0; i < toolNames.length; i++) {
      const candidate = toolNames[i];
      if (candidate === 'search_tools') searchable = true;
      if (i < MAX_LISTED) list += `${list === '' ? '' : ', '}${candidate}`;
      const other = toLowerCase(candidate);
      const score = distance(wanted, other);
      const allowed = min(3, max(1, floor(max(wanted.length, other.length) / 3)));
      const related = wanted.length >= 3 && (includes(other, wanted) || includes(wanted, other));
      if ((score <= allowed || related) && score < bestScore) {
        best = candidate;
        bestScore = score;
      }
    }
    const alias = ALIASES[wanted];
    for (let i = 0; alias !== undefined && i < toolNames.length; i++) {
      if (toolNames[i] === alias) best = alias;
    }
    const hint = best === null ? '' : ` (did you mean ${stringify(best)}?)`;
    const more = toolNames.length - MAX_LISTED;
    if (more > 0) {
      const find = searchable ? '; find tools with tools.search_tools({ query })' : '';
      list += ` and ${more} more${find}`;
    }
    return `no tool named ${stringify(name)}${hint}; available: ${list === '' ? 'none' : list}`;
  };

  /** `call tools.a or tools.b instead` for the tools whose names match `pattern`, else `otherwise`. */
  const suggest = (pattern, otherwise) => {
    let calls = '';
    for (let i = 0; i < toolNames.length; i++) {
      const name = toolNames[i];
      if (apply(regExpTest, pattern, [name])) calls += `${calls === '' ? '' : ' or '}tools.${name}`;
    }
    return calls === '' ? otherwise : `call ${calls} instead`;
  };
  const fileTools = () => suggest(/^(read|write|edit|glob|grep|bash)$/, 'call tools.* directly');
  const STAND_INS = {
    fetch: ['a program has no network access',
      () => suggest(/fetch|http|web|url|curl|request|browse/i, 'only tools.* reach outside the program')],
    require: ['a program is not a module and loads no packages', fileTools],
    process: ['there is no environment, argv or exit',
      () => 'return a value to finish, and print with console.log'],
    Buffer: ['it is Node-only', () => 'use TextEncoder/TextDecoder, or atob/btoa for base64'],
    Deno: ['this is a sandboxed program, not Deno', fileTools],
    Bun: ['this is a sandboxed program, not Bun', fileTools],
  };

  /** The stand-in for the global `name` (one of STAND_INS). */
  const standIn = (name) => {
    const [why, instead] = STAND_INS[name];
    const fail = () => {
      throw new TypeErrorCtor(`${name} is not available in programs: ${why}; ${instead()}`);
    };
    // What a program calls (`fetch(url)`, `require(x)`, `new Buffer(n)`) is a function; the
    // others are objects, as in Node (`typeof process === "object"`).
    const target = name === 'fetch' || name === 'require' || name === 'Buffer' ? function () {} : {};
    return new ProxyCtor(target, {
      apply: fail,
      construct: fail,
      get(_, prop) {
        if (typeof prop !== 'string' || isProtocol(prop)) return undefined;
        return fail();
      },
    });
  };

  return { unknownToolMessage, standIn };
}
