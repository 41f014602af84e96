// ptc code-mode glue: the built-ins the lazily loaded parts (json.js, inspect.js, web.js,
// url.js, console.js, missing.js) use,
// captured when a sandbox is set up, before any program code runs.
//
// The parts are loaded on first use, which may be after the program has replaced
// `JSON.stringify`, `Array.isArray` or `Set.prototype.has`: each part takes what it relies on
// from this object, never from the globals, so what it does cannot be bent by what the program
// did first. Names follow Node's primordials: `ObjectKeys` is `Object.keys`,
// `SetPrototypeHas` is `Set.prototype.has` (to `apply`), `MapPrototypeGetSize` the `size`
// getter; `uncurryThis(method)` turns a method into a function of (receiver, ...args).

function capturePrimordials() {
  const { freeze, getOwnPropertyDescriptor } = Object;
  const call = Function.prototype.call;
  const uncurryThis = Function.prototype.bind.bind(call);
  return freeze({
    uncurryThis,
    ReflectApply: Reflect.apply,
    Object,
    ObjectGetOwnPropertyDescriptor: getOwnPropertyDescriptor,
    ObjectGetPrototypeOf: Object.getPrototypeOf,
    ObjectKeys: Object.keys,
    ObjectCreate: Object.create,
    ObjectDefineProperty: Object.defineProperty,
    ObjectEntries: Object.entries,
    ObjectIs: Object.is,
    MathMax: Math.max,
    MathMin: Math.min,
    MathFloor: Math.floor,
    MathTrunc: Math.trunc,
    SymbolIterator: Symbol.iterator,
    ObjectPrototypeToString: Object.prototype.toString,
    ArrayIsArray: Array.isArray,
    ArrayBufferIsView: ArrayBuffer.isView,
    Number,
    NumberIsFinite: Number.isFinite,
    String,
    StringFromCharCode: String.fromCharCode,
    StringPrototypeToWellFormed: String.prototype.toWellFormed,
    StringPrototypeIncludes: String.prototype.includes,
    StringPrototypeToLowerCase: String.prototype.toLowerCase,
    Proxy,
    JSONStringify: JSON.stringify,
    FunctionPrototypeToString: Function.prototype.toString,
    TypeError,
    Uint8Array,
    Date,
    DatePrototypeGetTime: Date.prototype.getTime,
    DatePrototypeToISOString: Date.prototype.toISOString,
    RegExp,
    RegExpPrototypeTest: RegExp.prototype.test,
    RegExpPrototypeExec: RegExp.prototype.exec,
    RegExpPrototypeToString: RegExp.prototype.toString,
    Map,
    MapPrototypeEntries: Map.prototype.entries,
    MapPrototypeGetSize: getOwnPropertyDescriptor(Map.prototype, 'size').get,
    Set,
    SetPrototypeAdd: Set.prototype.add,
    SetPrototypeDelete: Set.prototype.delete,
    SetPrototypeHas: Set.prototype.has,
    SetPrototypeValues: Set.prototype.values,
    SetPrototypeGetSize: getOwnPropertyDescriptor(Set.prototype, 'size').get,
    encodeURIComponent,
    decodeURIComponent,
  });
}
