// ptc code-mode glue, part `intl`: `Intl` and the `toLocaleString` family for engines that have
// no Intl of their own (QuickJS, deno_core's QuickJS facade), loaded the first time a program
// reads `Intl` or calls one of the locale methods.
//
// The formatting is Rust's (engine/src/intl/, ICU4X's CLDR data) behind one raw function,
// `intl(op, spec, a, b) -> string`: `spec` is the JSON of a formatter's locales and options (the
// known keys, copied as plain data), values cross as text (numbers as JavaScript prints them,
// BigInts as their digits, dates as epoch milliseconds), and a failure comes back as
// "\0RangeError\0message" (or TypeError), thrown here with the right constructor. Rust resolves
// each spec once and keeps the built formatter, so formatting again with the same options only
// formats. The default locale is en-US and the default time zone UTC; a locale outside the
// supported set throws a RangeError naming it.
//
// `Intl.ListFormat` and `Intl.RelativeTimeFormat` format (and formatToParts) in Rust too;
// `Intl.DisplayNames`, `Intl.Segmenter` and `Intl.Locale` are constructors that throw a TypeError
// naming what is missing and what to write instead (never a bare "not a function"), as do the
// members ECMA-402 has that this subset lacks (NumberFormat's and DateTimeFormat's formatToParts
// and formatRange, PluralRules' selectRange, Intl.supportedValuesOf).
//
// makeIntl(primordials, { intl }) -> { Intl, number, bigint, date, dateOnly, timeOnly, compare,
//   upper, lower }

export default function makeIntl(primordials, { intl: raw }) {
  const {
    ObjectCreate, ObjectDefineProperty, ObjectFreeze, ObjectIs, ArrayIsArray, JSONStringify,
    JSONParse, String: StringCtor, Number: NumberCtor, TypeError: TypeErrorCtor,
    RangeError: RangeErrorCtor, ReflectApply, StringPrototypeSlice, StringPrototypeIndexOf,
    DatePrototypeGetTime, DateNow, SymbolToStringTag, WeakMap: WeakMapCtor, WeakMapPrototypeGet,
    WeakMapPrototypeSet, ObjectPrototype,
  } = primordials;

  /** One raw operation; throws the error Rust describes. */
  const call = (op, spec, a = '', b = '') => {
    const out = raw(op, spec, a, b);
    if (out.length !== 0 && out[0] === '\0') {
      const cut = ReflectApply(StringPrototypeIndexOf, out, ['\0', 1]);
      const kind = ReflectApply(StringPrototypeSlice, out, [1, cut]);
      const message = ReflectApply(StringPrototypeSlice, out, [cut + 1]);
      throw kind === 'RangeError' ? new RangeErrorCtor(message) : new TypeErrorCtor(message);
    }
    return out;
  };

  /** The locales argument as plain data: null, a tag, or a list of tags. */
  const localesOf = (locales) => {
    if (locales === undefined) return null;
    if (typeof locales === 'string') return locales;
    if (locales === null) throw new TypeErrorCtor('Intl: locales must be a string or an array of strings, not null');
    if (ArrayIsArray(locales)) {
      const list = [];
      for (let i = 0; i < locales.length; i++) {
        const tag = locales[i];
        list[i] = typeof tag === 'string' ? tag : typeof tag === 'object' && tag !== null ? StringCtor(tag) : tag;
      }
      return list;
    }
    return [StringCtor(locales)];
  };

  const NUMBER_KEYS = ['style', 'currency', 'currencyDisplay', 'currencySign', 'unit', 'unitDisplay',
    'notation', 'compactDisplay', 'signDisplay', 'useGrouping', 'minimumIntegerDigits',
    'minimumFractionDigits', 'maximumFractionDigits', 'minimumSignificantDigits',
    'maximumSignificantDigits', 'roundingMode', 'roundingIncrement', 'roundingPriority',
    'trailingZeroDisplay', 'numberingSystem'];
  const PLURAL_KEYS = ['type', 'minimumIntegerDigits', 'minimumFractionDigits',
    'maximumFractionDigits', 'minimumSignificantDigits', 'maximumSignificantDigits'];
  const DATE_KEYS = ['dateStyle', 'timeStyle', 'weekday', 'era', 'year', 'month', 'day', 'hour',
    'minute', 'second', 'fractionalSecondDigits', 'hour12', 'hourCycle', 'timeZone',
    'timeZoneName', 'dayPeriod', 'calendar', 'numberingSystem'];
  const COLLATOR_KEYS = ['usage', 'sensitivity', 'ignorePunctuation', 'numeric', 'caseFirst',
    'collation'];
  const LIST_KEYS = ['type', 'style'];
  const RELATIVE_KEYS = ['style', 'numeric'];

  /** The spec text of a formatter: its locales and the known options, as plain data. */
  const specOf = (locales, options, names, extra) => {
    if (options === null) throw new TypeErrorCtor('Intl: options must be an object, not null');
    const copy = {};
    if (options !== undefined) {
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        const value = options[name];
        if (value === undefined) continue;
        copy[name] = typeof value === 'boolean' || typeof value === 'number' ? value : StringCtor(value);
      }
    }
    return JSONStringify({ locales: localesOf(locales), options: copy, ...extra });
  };

  /** JavaScript's text of a number or BigInt (keeping -0's sign). */
  const numberText = (value) => {
    if (typeof value === 'bigint') return StringCtor(value);
    const number = NumberCtor(value);
    return ObjectIs(number, -0) ? '-0' : StringCtor(number);
  };

  const supportedLocales = (locales) => JSONParse(call('supported', JSONStringify(localesOf(locales))));
  const method = (object, name, value) => {
    ObjectDefineProperty(object, name, { value, writable: true, enumerable: false, configurable: true });
  };
  const tag = (object, name) => {
    ObjectDefineProperty(object, SymbolToStringTag, { value: name, configurable: true });
  };
  /** A class's `format`/`compare` accessor: a function bound to the instance, as ECMA-402's. */
  const bound = (Class, name, make) => {
    ObjectDefineProperty(Class.prototype, name, {
      get() {
        const spec = specFor(this, Class);
        return (a, b) => make(spec, a, b);
      },
      enumerable: false,
      configurable: true,
    });
  };
  const specs = new WeakMapCtor();
  const specFor = (object, Class) => {
    const spec = ReflectApply(WeakMapPrototypeGet, specs, [object]);
    if (spec === undefined) throw new TypeErrorCtor('Method called on an object that is not an Intl.' + Class.name);
    return spec;
  };
  const dateMs = (date) => {
    if (date === undefined) return StringCtor(DateNow());
    return StringCtor(NumberCtor(date));
  };

  const formatNumber = (spec, value) => call('number.format', spec, numberText(value));
  const formatDate = (spec, date) => call('date.format', spec, dateMs(date));
  const compare = (spec, a, b) => NumberCtor(call('collator.compare', spec, StringCtor(a), StringCtor(b)));

  /** An Intl constructor (callable with or without `new`, as ECMA-402's are) for `kind`. */
  const formatterClass = (name, kind, keys, extra) => {
    const Ctor = {
      [name]: function (locales, options) {
        const self = new.target === undefined ? ObjectCreate(Ctor.prototype) : this;
        const spec = specOf(locales, options, keys, extra);
        call(kind + '.resolve', spec);
        ReflectApply(WeakMapPrototypeSet, specs, [self, spec]);
        return self;
      },
    }[name];
    method(Ctor.prototype, 'resolvedOptions', function resolvedOptions() {
      return JSONParse(call(kind + '.resolve', specFor(this, Ctor)));
    });
    method(Ctor, 'supportedLocalesOf', function supportedLocalesOf(locales) {
      return supportedLocales(locales);
    });
    tag(Ctor.prototype, 'Intl.' + name);
    return Ctor;
  };

  const NumberFormat = formatterClass('NumberFormat', 'number', NUMBER_KEYS);
  bound(NumberFormat, 'format', formatNumber);
  method(NumberFormat.prototype, 'formatToParts', function formatToParts(value) {
    return partsOf(call('number.parts', specFor(this, NumberFormat), numberText(value)));
  });
  const DateTimeFormat = formatterClass('DateTimeFormat', 'date', DATE_KEYS, { required: 'any', defaults: 'date' });
  bound(DateTimeFormat, 'format', formatDate);
  method(DateTimeFormat.prototype, 'formatToParts', function formatToParts(date) {
    return partsOf(call('date.parts', specFor(this, DateTimeFormat), dateMs(date)));
  });
  const PluralRules = formatterClass('PluralRules', 'plural', PLURAL_KEYS);
  method(PluralRules.prototype, 'select', function select(value) {
    return call('plural.select', specFor(this, PluralRules), numberText(NumberCtor(value)));
  });
  const Collator = formatterClass('Collator', 'collator', COLLATOR_KEYS);
  bound(Collator, 'compare', compare);

  /** `[[type, text], ...]` from Rust as ECMA-402's parts (`unit` on a relative time's number). */
  const partsOf = (json, unit) => {
    const list = JSONParse(json);
    const out = [];
    for (let i = 0; i < list.length; i++) {
      const part = { type: list[i][0], value: list[i][1] };
      if (unit !== undefined && part.type !== 'literal') part.unit = unit;
      out[i] = part;
    }
    return out;
  };
  /** A list argument as the JSON of its strings (ECMA-402: a TypeError for a non-string). */
  const listJson = (list) => {
    const items = [];
    if (list !== undefined) {
      for (const item of list) {
        if (typeof item !== 'string') throw new TypeErrorCtor('Intl.ListFormat: every element must be a string, not ' + typeof item);
        items[items.length] = item;
      }
    }
    return JSONStringify(items);
  };
  const ListFormat = formatterClass('ListFormat', 'list', LIST_KEYS);
  method(ListFormat.prototype, 'format', function format(list) {
    return call('list.format', specFor(this, ListFormat), listJson(list));
  });
  method(ListFormat.prototype, 'formatToParts', function formatToParts(list) {
    return partsOf(call('list.parts', specFor(this, ListFormat), listJson(list)));
  });
  const RelativeTimeFormat = formatterClass('RelativeTimeFormat', 'relative', RELATIVE_KEYS);
  method(RelativeTimeFormat.prototype, 'format', function format(value, unit) {
    return call('relative.format', specFor(this, RelativeTimeFormat), numberText(NumberCtor(value)), StringCtor(unit));
  });
  method(RelativeTimeFormat.prototype, 'formatToParts', function formatToParts(value, unit) {
    const spec = specFor(this, RelativeTimeFormat);
    const json = call('relative.parts', spec, numberText(NumberCtor(value)), StringCtor(unit));
    const text = StringCtor(unit);
    const singular = text.length > 1 && text[text.length - 1] === 's' ? ReflectApply(StringPrototypeSlice, text, [0, -1]) : text;
    return partsOf(json, singular);
  });

  /** A constructor this sandbox lacks: it throws, naming what to write instead. */
  const missing = (name, instead) => ({
    [name]: function () {
      throw new TypeErrorCtor('Intl.' + name + ' is not available in this sandbox (its Intl has NumberFormat, ' +
        'DateTimeFormat, PluralRules, Collator, ListFormat and RelativeTimeFormat); ' + instead);
    },
  }[name]);

  /** A member of ECMA-402 this sandbox lacks: it throws a TypeError naming it and what to write instead. */
  const unsupported = (object, owner, name, instead) => {
    method(object, name, {
      [name]: function () {
        throw new TypeErrorCtor(owner + '.' + name + ' is not supported in this sandbox\'s Intl subset; ' + instead);
      },
    }[name]);
  };
  const range = 'format both ends and join them, e.g. f.format(a) + "\u2013" + f.format(b)';
  unsupported(NumberFormat.prototype, 'Intl.NumberFormat.prototype', 'formatRange', range);
  unsupported(NumberFormat.prototype, 'Intl.NumberFormat.prototype', 'formatRangeToParts', range);
  unsupported(DateTimeFormat.prototype, 'Intl.DateTimeFormat.prototype', 'formatRange', range);
  unsupported(DateTimeFormat.prototype, 'Intl.DateTimeFormat.prototype', 'formatRangeToParts', range);
  unsupported(PluralRules.prototype, 'Intl.PluralRules.prototype', 'selectRange', 'select the end: rules.select(end)');

  const Intl = ObjectCreate(ObjectPrototype);
  method(Intl, 'NumberFormat', NumberFormat);
  method(Intl, 'DateTimeFormat', DateTimeFormat);
  method(Intl, 'PluralRules', PluralRules);
  method(Intl, 'Collator', Collator);
  method(Intl, 'ListFormat', ListFormat);
  method(Intl, 'RelativeTimeFormat', RelativeTimeFormat);
  method(Intl, 'DisplayNames', missing('DisplayNames',
    'write the names you need yourself, e.g. { DE: "Germany", FR: "France" }[code]'));
  method(Intl, 'Segmenter', missing('Segmenter',
    'for characters use [...text], for words text.split(/\\s+/), for sentences text.split(/(?<=[.!?])\\s+/)'));
  method(Intl, 'Locale', missing('Locale',
    'pass the tag string (e.g. "de-DE") where a locale is wanted, and read its parts with tag.split("-")'));
  unsupported(Intl, 'Intl', 'supportedValuesOf', 'write the list you need (e.g. ["EUR", "USD"])');
  method(Intl, 'getCanonicalLocales', (locales) => JSONParse(call('canonical', JSONStringify(localesOf(locales)))));
  tag(Intl, 'Intl');

  const thisDate = (date) => StringCtor(ReflectApply(DatePrototypeGetTime, date, []));
  const dateWith = (required, defaults) => (date, locales, options) => {
    const ms = thisDate(date);
    return call('date.format', specOf(locales, options, DATE_KEYS, { required, defaults }), ms);
  };

  return ObjectFreeze({
    Intl,
    number: (value, locales, options) => formatNumber(specOf(locales, options, NUMBER_KEYS), value),
    date: dateWith('any', 'all'),
    dateOnly: dateWith('date', 'date'),
    timeOnly: dateWith('time', 'time'),
    compare: (a, b, locales, options) => compare(specOf(locales, options, COLLATOR_KEYS), a, b),
    upper: (text, locales) => call('case.upper', JSONStringify(localesOf(locales)), StringCtor(text)),
    lower: (text, locales) => call('case.lower', JSONStringify(localesOf(locales)), StringCtor(text)),
  });
}
