// ptc code-mode glue, part: URL and URLSearchParams in plain JavaScript (the engine has none of
// its own), the common cases of the WHATWG parser: absolute and base-relative
// http(s)/file-style URLs, percent-encoded queries. Neither reaches outside the sandbox.
//
// This file is a module of its own, loaded the first time a program reads URL or
// URLSearchParams (see primordials.js). makeUrl(primordials) returns the two globals.

export default function makeUrl(primordials) {
  const {
    String: StringCtor,
    SymbolIterator: iterator,
    TypeError: TypeErrorCtor,
    ArrayIsArray: isArray,
    ObjectKeys: keys,
    encodeURIComponent: encodeComponent,
    decodeURIComponent: decodeComponent,
  } = primordials;

  // ---- URLSearchParams -------------------------------------------------------------------------

  const formDecode = (text) => {
    try {
      return decodeComponent(text.replace(/\+/g, ' '));
    } catch {
      return text;
    }
  };
  const formEncode = (text) => encodeComponent(text).replace(/%20/g, '+');

  class URLSearchParams {
    #list = [];
    #url = null;

    constructor(init = '') {
      if (typeof init === 'string') {
        this.#parse(init);
      } else if (init instanceof URLSearchParams) {
        this.#list = init.#list.map(([k, v]) => [k, v]);
      } else if (isArray(init) || (init && typeof init[iterator] === 'function')) {
        for (const pair of init) {
          const [k, v] = [...pair];
          this.#list.push([StringCtor(k), StringCtor(v)]);
        }
      } else if (init !== null && typeof init === 'object') {
        for (const k of keys(init)) this.#list.push([k, StringCtor(init[k])]);
      }
    }

    #parse(text) {
      this.#list = [];
      for (const part of StringCtor(text).replace(/^\?/, '').split('&')) {
        if (part === '') continue;
        const eq = part.indexOf('=');
        const k = eq < 0 ? part : part.slice(0, eq);
        const v = eq < 0 ? '' : part.slice(eq + 1);
        this.#list.push([formDecode(k), formDecode(v)]);
      }
    }

    static _attach(params, url, query) {
      params.#url = url;
      params.#parse(query);
    }

    #changed() {
      if (this.#url !== null) this.#url._setQuery(this.toString());
    }

    get size() {
      return this.#list.length;
    }
    append(name, value) {
      this.#list.push([StringCtor(name), StringCtor(value)]);
      this.#changed();
    }
    delete(name, value) {
      const n = StringCtor(name);
      this.#list = this.#list.filter(([k, v]) => k !== n || (value !== undefined && v !== StringCtor(value)));
      this.#changed();
    }
    get(name) {
      const hit = this.#list.find(([k]) => k === StringCtor(name));
      return hit === undefined ? null : hit[1];
    }
    getAll(name) {
      return this.#list.filter(([k]) => k === StringCtor(name)).map(([, v]) => v);
    }
    has(name, value) {
      return this.#list.some(([k, v]) => k === StringCtor(name) && (value === undefined || v === StringCtor(value)));
    }
    set(name, value) {
      const n = StringCtor(name);
      const at = this.#list.findIndex(([k]) => k === n);
      if (at < 0) {
        this.#list.push([n, StringCtor(value)]);
      } else {
        this.#list[at][1] = StringCtor(value);
        this.#list = this.#list.filter(([k], i) => k !== n || i === at);
      }
      this.#changed();
    }
    sort() {
      this.#list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      this.#changed();
    }
    forEach(callback, thisArg) {
      for (const [k, v] of this.#list) callback.call(thisArg, v, k, this);
    }
    *entries() {
      for (const [k, v] of this.#list) yield [k, v];
    }
    *keys() {
      for (const [k] of this.#list) yield k;
    }
    *values() {
      for (const [, v] of this.#list) yield v;
    }
    [iterator]() {
      return this.entries();
    }
    toString() {
      return this.#list.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&');
    }
  }

  // ---- URL -------------------------------------------------------------------------------------

  const SPECIAL = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21', 'file:': '' };
  const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*:)(\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/;

  /** Resolve `.` and `..` segments of an absolute path. */
  const normalizePath = (path) => {
    const out = [];
    const segments = path.split('/');
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i];
      const last = i === segments.length - 1;
      if (segment === '..' || segment.toLowerCase() === '%2e%2e') {
        if (out.length > 1) out.pop();
        if (last) out.push('');
      } else if (segment === '.' || segment.toLowerCase() === '%2e') {
        if (last) out.push('');
      } else {
        out.push(segment);
      }
    }
    const joined = out.join('/');
    return joined.startsWith('/') ? joined : `/${joined}`;
  };

  const encodeSet = (text, keep) =>
    text.replace(keep, (c) => encodeComponent(c));

  class URL {
    #protocol = '';
    #username = '';
    #password = '';
    #hostname = '';
    #port = '';
    #pathname = '';
    #search = '';
    #hash = '';
    #params = new URLSearchParams();

    constructor(input, base) {
      const text = StringCtor(input).trim();
      const absolute = ABSOLUTE.exec(text);
      if (absolute && (absolute[2] !== undefined || !(absolute[1].toLowerCase() in SPECIAL))) {
        this.#assign(absolute);
      } else if (base !== undefined) {
        const from = base instanceof URL ? base : new URL(base);
        this.#resolve(text, from);
      } else {
        throw new TypeErrorCtor(`Invalid URL: ${text} (a relative URL needs a base: new URL(path, base))`);
      }
      URLSearchParams._attach(this.#params, this, this.#search);
    }

    #assign(match) {
      this.#protocol = match[1].toLowerCase();
      const authority = match[3] ?? '';
      const at = authority.lastIndexOf('@');
      const credentials = at < 0 ? '' : authority.slice(0, at);
      const hostPort = at < 0 ? authority : authority.slice(at + 1);
      const colon = credentials.indexOf(':');
      this.#username = colon < 0 ? credentials : credentials.slice(0, colon);
      this.#password = colon < 0 ? '' : credentials.slice(colon + 1);
      const portMatch = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostPort);
      if (portMatch === null) throw new TypeErrorCtor(`Invalid URL: bad host in ${match[0]}`);
      this.#hostname = portMatch[1].toLowerCase();
      const port = portMatch[2] ?? '';
      this.#port = port === SPECIAL[this.#protocol] ? '' : port;
      const special = this.#protocol in SPECIAL;
      if (special && this.#hostname === '' && this.#protocol !== 'file:') {
        throw new TypeErrorCtor(`Invalid URL: ${match[0]} has no host`);
      }
      const path = match[4] ?? '';
      this.#pathname = special ? normalizePath(encodeSet(path, /[ "<>`{}]/g) || '/') : path;
      this.#search = match[5] && match[5] !== '?' ? encodeSet(match[5], /[ "<>`#]/g) : '';
      this.#hash = match[6] && match[6] !== '#' ? encodeSet(match[6], /[ "<>`]/g) : '';
    }

    #resolve(text, base) {
      if (text.startsWith('//')) {
        this.#assign(ABSOLUTE.exec(base.protocol + text));
        return;
      }
      this.#protocol = base.protocol;
      this.#username = base.username;
      this.#password = base.password;
      this.#hostname = base.hostname;
      this.#port = base.port;
      const parts = /^([^?#]*)(\?[^#]*)?(#.*)?$/.exec(text);
      const path = parts[1];
      if (path === '') {
        this.#pathname = base.pathname;
        this.#search = parts[2] !== undefined ? parts[2] : base.search;
      } else {
        const dir = path.startsWith('/') ? '' : base.pathname.replace(/[^/]*$/, '');
        this.#pathname = normalizePath(encodeSet(dir + path, /[ "<>`{}]/g));
        this.#search = parts[2] ?? '';
      }
      if (this.#search === '?') this.#search = '';
      this.#hash = parts[3] && parts[3] !== '#' ? parts[3] : '';
    }

    _setQuery(query) {
      this.#search = query === '' ? '' : `?${query}`;
    }

    get protocol() { return this.#protocol; }
    set protocol(value) { this.#protocol = StringCtor(value).replace(/:?$/, ':').toLowerCase(); }
    get username() { return this.#username; }
    set username(value) { this.#username = StringCtor(value); }
    get password() { return this.#password; }
    set password(value) { this.#password = StringCtor(value); }
    get hostname() { return this.#hostname; }
    set hostname(value) { this.#hostname = StringCtor(value).toLowerCase(); }
    get port() { return this.#port; }
    set port(value) { this.#port = StringCtor(value) === SPECIAL[this.#protocol] ? '' : StringCtor(value); }
    get host() { return this.#port === '' ? this.#hostname : `${this.#hostname}:${this.#port}`; }
    set host(value) {
      const [host, port = ''] = StringCtor(value).split(':');
      this.hostname = host;
      this.port = port;
    }
    get origin() {
      return this.#protocol in SPECIAL && this.#protocol !== 'file:'
        ? `${this.#protocol}//${this.host}`
        : 'null';
    }
    get pathname() { return this.#pathname; }
    set pathname(value) {
      const path = StringCtor(value);
      this.#pathname = normalizePath(path.startsWith('/') ? path : `/${path}`);
    }
    get search() { return this.#search; }
    set search(value) {
      const query = StringCtor(value).replace(/^\?/, '');
      this.#search = query === '' ? '' : `?${query}`;
      URLSearchParams._attach(this.#params, this, this.#search);
    }
    get searchParams() { return this.#params; }
    get hash() { return this.#hash; }
    set hash(value) {
      const hash = StringCtor(value).replace(/^#/, '');
      this.#hash = hash === '' ? '' : `#${hash}`;
    }
    get href() {
      const credentials = this.#username === '' && this.#password === ''
        ? ''
        : `${this.#username}${this.#password === '' ? '' : `:${this.#password}`}@`;
      const authority = this.#protocol in SPECIAL || this.#hostname !== ''
        ? `//${credentials}${this.host}`
        : '';
      return `${this.#protocol}${authority}${this.#pathname}${this.#search}${this.#hash}`;
    }
    set href(value) {
      const next = new URL(value);
      this.#assign(ABSOLUTE.exec(next.href));
      URLSearchParams._attach(this.#params, this, this.#search);
    }
    toString() { return this.href; }
    toJSON() { return this.href; }

    static canParse(input, base) {
      try {
        new URL(input, base);
        return true;
      } catch {
        return false;
      }
    }
  }

  return { URL, URLSearchParams };
}
