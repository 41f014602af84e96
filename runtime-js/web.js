// ptc code-mode glue, part: the web-platform globals a model reaches for, in plain JavaScript
// (the engine has none of its own): TextEncoder and TextDecoder (UTF-8), atob and btoa, and
// structuredClone (URL and URLSearchParams are url.js). None of them reaches outside the
// sandbox.
//
// This file is a module of its own, loaded the first time a program reads one of these globals
// (see primordials.js). makeWeb(primordials) returns the globals to install.

export default function makeWeb(primordials) {
  const {
    String: StringCtor,
    StringFromCharCode: fromCharCode,
    TypeError: TypeErrorCtor,
    Uint8Array: Uint8ArrayCtor,
    ArrayIsArray: isArray,
    Map: MapCtor,
    Set: SetCtor,
    Date: DateCtor,
    RegExp: RegExpCtor,
    ObjectGetPrototypeOf: getPrototypeOf,
    ObjectKeys: keys,
  } = primordials;

  // ---- TextEncoder / TextDecoder (UTF-8) ------------------------------------------------------

  const utf8Encode = (input) => {
    const text = StringCtor(input).toWellFormed();
    const bytes = [];
    for (let i = 0; i < text.length; i++) {
      let code = text.codePointAt(i);
      if (code > 0xffff) i++;
      if (code < 0x80) bytes.push(code);
      else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
      else if (code < 0x10000) {
        bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
      } else {
        bytes.push(
          0xf0 | (code >> 18),
          0x80 | ((code >> 12) & 63),
          0x80 | ((code >> 6) & 63),
          0x80 | (code & 63),
        );
      }
    }
    return new Uint8ArrayCtor(bytes);
  };

  const asBytes = (input) => {
    if (input instanceof Uint8ArrayCtor) return input;
    if (input instanceof ArrayBuffer) return new Uint8ArrayCtor(input);
    if (ArrayBuffer.isView(input)) {
      return new Uint8ArrayCtor(input.buffer, input.byteOffset, input.byteLength);
    }
    if (input === undefined) return new Uint8ArrayCtor(0);
    throw new TypeErrorCtor('TextDecoder.decode takes a Uint8Array, an ArrayBuffer or a view');
  };

  // WHATWG's UTF-8 decoder: a byte order mark at the start is dropped unless `ignoreBOM`; an
  // invalid sequence is U+FFFD, or a TypeError when `fatal` (how a program tells whether bytes
  // are UTF-8 at all).
  const utf8Decode = (input, fatal, ignoreBOM) => {
    const bytes = asBytes(input);
    const invalid = () => {
      if (fatal) throw new TypeErrorCtor('The encoded data was not valid for encoding utf-8');
      return '\ufffd';
    };
    let out = '';
    let i = !ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    while (i < bytes.length) {
      const b = bytes[i];
      let need = 0;
      let code = 0;
      if (b < 0x80) {
        code = b;
      } else if (b >= 0xc2 && b < 0xe0) {
        need = 1;
        code = b & 31;
      } else if (b >= 0xe0 && b < 0xf0) {
        need = 2;
        code = b & 15;
      } else if (b >= 0xf0 && b < 0xf5) {
        need = 3;
        code = b & 7;
      } else {
        out += invalid();
        i++;
        continue;
      }
      let j = 1;
      for (; j <= need && i + j < bytes.length; j++) {
        const next = bytes[i + j];
        if ((next & 0xc0) !== 0x80) break;
        code = (code << 6) | (next & 63);
      }
      if (j <= need || (need === 2 && code < 0x800) || (need === 3 && code < 0x10000)
          || (code >= 0xd800 && code < 0xe000) || code > 0x10ffff) {
        out += invalid();
        i += j;
        continue;
      }
      out += StringCtor.fromCodePoint(code);
      i += need + 1;
    }
    return out;
  };

  class TextEncoder {
    get encoding() {
      return 'utf-8';
    }
    encode(input = '') {
      return utf8Encode(input);
    }
  }

  class TextDecoder {
    #fatal;
    #ignoreBOM;
    constructor(label = 'utf-8', options = {}) {
      const name = StringCtor(label).trim().toLowerCase();
      if (name !== 'utf-8' && name !== 'utf8' && name !== 'unicode-1-1-utf-8') {
        throw new RangeError(`TextDecoder supports only utf-8, not ${label} (to tell whether \
bytes are UTF-8, decode with { fatal: true }; to convert others, bash iconv -f ${label} -t utf-8)`);
      }
      this.#fatal = !!(options && options.fatal);
      this.#ignoreBOM = !!(options && options.ignoreBOM);
    }
    get encoding() {
      return 'utf-8';
    }
    get fatal() {
      return this.#fatal;
    }
    get ignoreBOM() {
      return this.#ignoreBOM;
    }
    decode(input, options) {
      if (options && options.stream) {
        throw new TypeErrorCtor('TextDecoder: { stream: true } is not supported in this sandbox \
(decode the whole byte sequence at once)');
      }
      return utf8Decode(input, this.#fatal, this.#ignoreBOM);
    }
  }

  // ---- atob / btoa -----------------------------------------------------------------------------

  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

  const btoa = (input) => {
    const text = StringCtor(input);
    let out = '';
    for (let i = 0; i < text.length; i += 3) {
      const a = text.charCodeAt(i);
      const b = text.charCodeAt(i + 1);
      const c = text.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) {
        throw new TypeErrorCtor(
          'btoa takes Latin-1 text; encode other text first (btoa(String.fromCharCode(...new TextEncoder().encode(s))))',
        );
      }
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63];
      out += i + 1 < text.length ? ALPHABET[(n >> 6) & 63] : '=';
      out += i + 2 < text.length ? ALPHABET[n & 63] : '=';
    }
    return out;
  };

  const atob = (input) => {
    const text = StringCtor(input).replace(/[\t\n\f\r ]/g, '');
    if (text.length % 4 === 1 || /[^A-Za-z0-9+/=]/.test(text) || /=[^=]/.test(text)) {
      throw new TypeErrorCtor('atob: the text is not valid base64');
    }
    let out = '';
    let bits = 0;
    let value = 0;
    for (let i = 0; i < text.length && text[i] !== '='; i++) {
      value = (value << 6) | ALPHABET.indexOf(text[i]);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += fromCharCode((value >> bits) & 255);
      }
    }
    return out;
  };

  // ---- structuredClone -------------------------------------------------------------------------

  const structuredClone = (value) => {
    const seen = new MapCtor();
    const clone = (v) => {
      if (v === null || (typeof v !== 'object' && typeof v !== 'function')) {
        if (typeof v === 'symbol') throw new TypeErrorCtor('structuredClone: a symbol cannot be cloned');
        return v;
      }
      if (typeof v === 'function') throw new TypeErrorCtor('structuredClone: a function cannot be cloned');
      if (seen.has(v)) return seen.get(v);
      let out;
      if (isArray(v)) {
        out = [];
        seen.set(v, out);
        for (let i = 0; i < v.length; i++) out[i] = clone(v[i]);
        return out;
      }
      if (v instanceof DateCtor) out = new DateCtor(v.getTime());
      else if (v instanceof RegExpCtor) out = new RegExpCtor(v.source, v.flags);
      else if (v instanceof MapCtor) {
        out = new MapCtor();
        seen.set(v, out);
        for (const [k, x] of v) out.set(clone(k), clone(x));
        return out;
      } else if (v instanceof SetCtor) {
        out = new SetCtor();
        seen.set(v, out);
        for (const x of v) out.add(clone(x));
        return out;
      } else if (ArrayBuffer.isView(v)) out = new v.constructor(v);
      else if (v instanceof ArrayBuffer) out = v.slice(0);
      else if (v instanceof Error) {
        out = new Error(v.message);
        out.name = v.name;
      } else if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet) {
        throw new TypeErrorCtor(`structuredClone: a ${getPrototypeOf(v).constructor.name} cannot be cloned`);
      } else {
        out = {};
        seen.set(v, out);
        for (const k of keys(v)) out[k] = clone(v[k]);
        return out;
      }
      seen.set(v, out);
      return out;
    };
    return clone(value);
  };

  return { TextEncoder, TextDecoder, atob, btoa, structuredClone };
}
