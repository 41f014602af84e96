// Writes the CLDR 48 tables of engine/src/intl (the data V8 formats with, through ICU 78, where
// ICU4X's compiled data is CLDR 49 or lacks a pattern), read off Node's own `Intl`:
//
//   node engine/tests/intl_v8/tables.mjs ymd             # engine/src/intl/ymd.rs: yMd
//   node engine/tests/intl_v8/tables.mjs ymed            # ymd.rs's weekday table: yMEd, MEd
//   node engine/tests/intl_v8/tables.mjs styles de:full  # engine/src/intl/styles.rs's rows
//   node engine/tests/intl_v8/tables.mjs times           # engine/src/intl/times.rs
//   node engine/tests/intl_v8/tables.mjs months          # engine/src/intl/months.rs
//   node engine/tests/intl_v8/tables.mjs currencies      # engine/src/intl/currencies.rs
//   node engine/tests/intl_v8/tables.mjs units > engine/src/intl/units.txt
//
// Each prints Rust rows to paste over the table's. A pattern is rebuilt from V8's
// formatToParts: each part's type gives its field letters, the rest are literals.
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The tags of engine/src/intl/locale.rs's SUPPORTED list. */
function supportedTags() {
  const source = readFileSync(join(here, '../../src/intl/locale.rs'), 'utf8');
  const list = source.slice(source.indexOf('pub(crate) const SUPPORTED'));
  return list.slice(0, list.indexOf('];')).match(/"[^"]*"/g).map((t) => t.slice(1, -1));
}

/** CLDR pattern text of V8's parts: `letters[type](value)` for a field, a literal otherwise
 * (quoted where it holds letters, `quote`). */
function patternOf(parts, letters, quote = /[A-Za-z\u00c0-\uffff]/) {
  return parts.map(({ type, value }) => letters[type]?.(value)
    ?? (quote.test(value) ? `'${value.replace(/'/g, "''")}'` : value)).join('');
}

/** A pattern as a Rust string literal's contents (invisible characters escaped). */
const rust = (pattern) => pattern.replace(/"/g, '\\"')
  .replace(/[\u00a0\u061c\u200e\u200f\u202f]/g, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
/** Letters: the literals a pattern quotes (ASCII ones would be fields). */
const letter = /\p{L}/u;

/** Rows `[tag, text]` without those equal to the row of the tag's language (the table's lookup
 * falls back to it). */
function deduplicated(rows) {
  const byTag = new Map(rows);
  return rows.filter(([tag, text]) => !tag.includes('-') || byTag.get(tag.split('-')[0]) !== text);
}

const day = new Date(Date.UTC(2025, 0, 5));
/** ECMA-402's sanctioned single units, and the compound units a report most often shows. */
const UNITS = [
  'acre', 'bit', 'byte', 'celsius', 'centimeter', 'day', 'degree', 'fahrenheit', 'fluid-ounce',
  'foot', 'gallon', 'gigabit', 'gigabyte', 'gram', 'hectare', 'hour', 'inch', 'kilobit',
  'kilobyte', 'kilogram', 'kilometer', 'liter', 'megabit', 'megabyte', 'meter', 'microsecond',
  'mile', 'mile-scandinavian', 'milliliter', 'millimeter', 'millisecond', 'minute', 'month',
  'nanosecond', 'ounce', 'percent', 'petabyte', 'pound', 'second', 'stone', 'terabit',
  'terabyte', 'week', 'yard', 'year',
  'kilometer-per-hour', 'mile-per-hour', 'meter-per-second', 'foot-per-second',
  'kilobit-per-second', 'megabit-per-second', 'gigabit-per-second', 'kilobyte-per-second',
  'megabyte-per-second', 'gigabyte-per-second', 'liter-per-kilometer', 'mile-per-gallon',
];
const numeric = { year: () => 'y', month: (v) => 'M'.repeat(v.length), day: (v) => 'd'.repeat(v.length) };
const mode = process.argv[2];
if (mode === 'ymd') {
  // CLDR's yMd pattern of each supported locale: what V8 writes for a date of numbers.
  for (const tag of supportedTags()) {
    const parts = new Intl.DateTimeFormat(tag, { timeZone: 'UTC', year: 'numeric', month: 'numeric', day: 'numeric', numberingSystem: 'latn', calendar: 'gregory' }).formatToParts(day);
    console.log(`    ("${tag}", "${rust(patternOf(parts, numeric, /[A-Za-z\u3000-\uffff]/))}"),`);
  }
} else if (mode === 'ymed') {
  // CLDR's yMEd, yMEEEEd, MEd and MEEEEd patterns of each supported locale.
  for (const tag of supportedTags()) {
    const patterns = [[true, 'short'], [true, 'long'], [false, 'short'], [false, 'long']].map(([year, weekday]) => {
      const options = { timeZone: 'UTC', weekday, month: 'numeric', day: 'numeric', numberingSystem: 'latn', calendar: 'gregory' };
      if (year) options.year = 'numeric';
      const letters = { ...numeric, weekday: () => (weekday === 'long' ? 'EEEE' : 'EEE') };
      return `"${rust(patternOf(new Intl.DateTimeFormat(tag, options).formatToParts(day), letters))}"`;
    });
    console.log(`    ("${tag}", [${patterns.join(', ')}]),`);
  }
} else if (mode === 'styles') {
  // CLDR's dateFormats pattern of a locale and dateStyle, for each `locale:style` given (those
  // where ICU4X's data differs).
  for (const arg of process.argv.slice(3)) {
    const [tag, style] = arg.split(':');
    const names = (month) => new Intl.DateTimeFormat(tag, { timeZone: 'UTC', month, day: 'numeric', numberingSystem: 'latn' }).formatToParts(day).find((p) => p.type === 'month')?.value;
    const parts = new Intl.DateTimeFormat(tag, { timeZone: 'UTC', dateStyle: style, numberingSystem: 'latn' }).formatToParts(day);
    const letters = {
      ...numeric,
      weekday: () => 'EEEE',
      era: () => 'G',
      year: (v) => (v.length === 2 ? 'yy' : 'y'),
      month: (v) => (/^\d+$/.test(v) ? 'M'.repeat(v.length) : v === names('long') ? 'MMMM' : 'MMM'),
    };
    console.log(`    ("${tag}", "${style}", "${rust(patternOf(parts, letters))}"),`);
  }
} else if (mode === 'times') {
  // Each locale's default hour cycle and its time patterns: an hour, with minutes, with
  // seconds, with 2-digit minutes, with 2-digit minutes and seconds, in the 12- and 24-hour
  // cycles, without and with a zone name (CLDR's h, hm, hms, H, Hm, Hms and their `v` forms, or
  // its timeFormats, as ICU's generator fits them), then the timeFormats of timeStyle short,
  // medium, long and full, joined by `|`.
  const at = (h, m) => new Date(Date.UTC(2024, 0, 5, h, m, 9));
  const timePattern = (tag, options) => {
    const full = { timeZone: 'UTC', numberingSystem: 'latn', ...options };
    const format = new Intl.DateTimeFormat(tag, full);
    const period = (date) => format.formatToParts(date).find((p) => p.type === 'dayPeriod')?.value;
    // A flexible day period (B) names the morning otherwise than the night; AM/PM (a) does not.
    const flexible = new Set([period(at(0, 30)), period(at(8, 5)), period(at(11, 30))]).size > 1;
    const hour = { h12: 'h', h11: 'K', h23: 'H', h24: 'k' }[format.resolvedOptions().hourCycle];
    const zone = options.timeStyle === 'full' ? 'zzzz' : 'z';
    return patternOf(format.formatToParts(at(8, 5)), {
      hour: (v) => hour.repeat(v.length),
      minute: (v) => 'm'.repeat(v.length),
      second: (v) => 's'.repeat(v.length),
      dayPeriod: () => (flexible ? 'B' : 'a'),
      timeZoneName: () => zone,
    }, letter);
  };
  const fields = [{ hour: 'numeric' }, { hour: 'numeric', minute: 'numeric' }, { hour: 'numeric', minute: 'numeric', second: 'numeric' },
    { hour: 'numeric', minute: '2-digit' }, { hour: 'numeric', minute: '2-digit', second: '2-digit' }];
  const rows = supportedTags().map((tag) => {
    const cycle = new Intl.DateTimeFormat(tag, { hour: 'numeric' }).resolvedOptions().hourCycle;
    const patterns = [{}, { timeZoneName: 'short' }].flatMap((zone) => ['h12', 'h23']
      .flatMap((hourCycle) => fields.map((f) => timePattern(tag, { ...f, ...zone, hourCycle }))));
    const styles = ['short', 'medium', 'long', 'full'].map((timeStyle) => timePattern(tag, { timeStyle }));
    return [tag, [cycle, ...patterns, ...styles].join('|')];
  });
  for (const [tag, text] of deduplicated(rows)) console.log(`    ("${tag}", "${rust(text)}"),`);
} else if (mode === 'months') {
  // Each locale's patterns for a date with a short month name (CLDR's yMMMd, yMMMEd, MMMd,
  // MMMEd and yMMM), joined by `|`: some write the month as a number (cs `d. M. y`) or its
  // stand-alone long name (cs `LLLL y`).
  const rows = supportedTags().map((tag) => {
    const name = (month, withDay) => new Intl.DateTimeFormat(tag, { timeZone: 'UTC', month, ...(withDay ? { day: 'numeric' } : {}), numberingSystem: 'latn', calendar: 'gregory' }).formatToParts(day).find((p) => p.type === 'month').value;
    const names = [[name('short', true), 'MMM'], [name('short', false), 'LLL'], [name('long', true), 'MMMM'], [name('long', false), 'LLLL']];
    const letters = {
      ...numeric,
      weekday: () => 'EEE',
      month: (v) => (/^\d+$/.test(v) ? 'M'.repeat(v.length) : names.find(([n]) => n === v)?.[1] ?? 'MMM'),
    };
    const skeletons = [{ year: 'numeric', day: 'numeric' }, { year: 'numeric', day: 'numeric', weekday: 'short' }, { day: 'numeric' }, { day: 'numeric', weekday: 'short' }, { year: 'numeric' }];
    const patterns = skeletons.map((s) => patternOf(new Intl.DateTimeFormat(tag, { timeZone: 'UTC', month: 'short', ...s, numberingSystem: 'latn', calendar: 'gregory' }).formatToParts(day), letters, letter));
    return [tag, patterns.join('|')];
  });
  for (const [tag, text] of deduplicated(rows)) console.log(`    ("${tag}", "${rust(text)}"),`);
} else if (mode === 'currencies') {
  // The common currencies CLDR 48 writes as their ISO code for `symbol` or `narrowSymbol`, with
  // the locales where it does: listed, or (`true`) every supported locale but those listed.
  const tags = supportedTags();
  const codes = ['USD', 'EUR', 'GBP', 'JPY', 'CNY', 'CHF', 'INR', 'CAD', 'AUD', 'KRW', 'BRL', 'MXN', 'RUB', 'SEK', 'NOK', 'DKK', 'PLN', 'TRY', 'ZAR', 'SGD', 'HKD', 'NZD', 'ILS', 'TWD', 'THB', 'VND', 'PHP', 'IDR', 'CZK', 'HUF', 'AED', 'SAR'];
  const symbol = (tag, code, display) => new Intl.NumberFormat(tag, { style: 'currency', currency: code, currencyDisplay: display }).formatToParts(1).find((p) => p.type === 'currency').value;
  for (const display of ['symbol', 'narrowSymbol']) {
    for (const code of codes) {
      const [as, other] = [true, false].map((is) => tags.filter((tag) => (symbol(tag, code, display) === code) === is));
      if (as.length === 0) continue;
      const [but, listed] = other.length < as.length ? [true, other] : [false, as];
      console.log(`    ("${code}", ${display === 'narrowSymbol'}, ${but}, &[${listed.map((t) => `"${t}"`).join(', ')}]),`);
    }
  }
} else if (mode === 'units') {
  // The pattern of each unit ECMA-402 sanctions (and the common compounds), per supported
  // locale, width and plural category: `tag<TAB>unit<TAB>width<TAB>other|category=pattern|...`
  // (`other`'s pattern, then the categories whose pattern is another), the number as `{0}`. A region's row equal to its language's is left out, and so is a narrow row
  // equal to the short one (the lookup falls back to them).
  const numberParts = ['integer', 'group', 'decimal', 'fraction', 'minusSign', 'plusSign'];
  const pattern = (tag, unit, unitDisplay, n) => {
    let out = '';
    let number = false;
    for (const { type, value } of new Intl.NumberFormat(tag, { style: 'unit', unit, unitDisplay }).formatToParts(n)) {
      if (!numberParts.includes(type)) out += value;
      else if (!number) [out, number] = [`${out}{0}`, true];
    }
    return out;
  };
  const rows = [];
  for (const tag of supportedTags()) {
    const rules = new Intl.PluralRules(tag);
    const sample = {};
    for (const n of [...Array(201).keys(), 0.5, 1.5, 2.5, 7.5]) sample[rules.select(n)] ??= n;
    const categories = rules.resolvedOptions().pluralCategories;
    for (const unit of UNITS) {
      // `other`'s pattern, then `|category=pattern` for each category whose pattern is not it.
      const text = (width) => {
        const other = pattern(tag, unit, width, sample.other);
        const differing = categories.filter((c) => c !== 'other')
          .map((c) => [c, pattern(tag, unit, width, sample[c])]).filter(([, p]) => p !== other);
        return [other, ...differing.map(([c, p]) => `${c}=${p}`)].join('|');
      };
      const short = text('short');
      const narrow = text('narrow');
      rows.push([`${tag}\t${unit}\ts`, short], [`${tag}\t${unit}\tl`, text('long')]);
      rows.push([`${tag}\t${unit}\tn`, narrow === short ? '=s' : narrow]);
    }
  }
  const byKey = new Map(rows);
  for (const [key, text] of rows) {
    const [tag, ...rest] = key.split('\t');
    const language = [tag.split('-')[0], ...rest].join('\t');
    if (tag.includes('-') && byKey.get(language) === text) continue;
    console.log(`${key}\t${text}`);
  }
} else {
  console.error('usage: tables.mjs ymd | ymed | styles <locale:style>... | times | months | currencies | units');
  process.exit(2);
}
