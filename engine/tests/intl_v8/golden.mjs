// Compares ptc's `Intl` with V8's (Node's full-ICU `Intl`) over a table of expressions a model
// would write, and keeps V8's answers as the golden table engine/tests/it/intl_v8.rs tests
// against on both engines (no Node needed there).
//
//   node engine/tests/intl_v8/golden.mjs write           # (re)write golden.json from this Node
//   node engine/tests/intl_v8/golden.mjs compare <ptc>   # run the table in `ptc run`, print diffs
//
// The CLDR 48 tables of engine/src/intl are written from Node by tables.mjs, beside this file.
//
// Every expression sees `d` (Sunday 5 January 2025, 14:07:09.045 UTC) and `j` (Monday 14 July
// 2025, 09:05:03 UTC); Node runs with TZ=UTC so its defaults match the sandbox's (en-US, UTC).
// An entry ptc cannot match keeps V8's text in `v8` and ptc's in `ptc`, with the reason in `why`
// (kept across rewrites); the test expects `ptc` where present, else `v8`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const goldenPath = join(here, 'golden.json');
const prelude = 'const d = new Date(Date.UTC(2025, 0, 5, 14, 7, 9, 45)); const j = new Date(Date.UTC(2025, 6, 14, 9, 5, 3));';

const locales = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'ja-JP', 'ko-KR', 'zh-CN', 'pt-BR', 'ru-RU', 'tr-TR', 'hi-IN'];
const perLocale = [
  (l) => `d.toLocaleDateString('${l}')`,
  (l) => `d.toLocaleTimeString('${l}')`,
  (l) => `d.toLocaleString('${l}')`,
  (l) => `d.toLocaleDateString('${l}', { year: 'numeric', month: 'short', day: 'numeric' })`,
  (l) => `d.toLocaleDateString('${l}', { year: 'numeric', month: 'long', day: 'numeric' })`,
  (l) => `d.toLocaleDateString('${l}', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' })`,
  (l) => `d.toLocaleDateString('${l}', { weekday: 'short', month: 'short', day: 'numeric' })`,
  (l) => `d.toLocaleDateString('${l}', { weekday: 'short', year: 'numeric', month: 'long', day: 'numeric' })`,
  (l) => `d.toLocaleDateString('${l}', { weekday: 'short', year: 'numeric', month: 'numeric', day: 'numeric' })`,
  (l) => `d.toLocaleDateString('${l}', { weekday: 'long', month: 'numeric', day: 'numeric' })`,
  (l) => `d.toLocaleDateString('${l}', { year: 'numeric', month: '2-digit', day: '2-digit' })`,
  (l) => `d.toLocaleDateString('${l}', { month: 'long', year: 'numeric' })`,
  (l) => `d.toLocaleDateString('${l}', { month: 'short', day: 'numeric' })`,
  (l) => `d.toLocaleTimeString('${l}', { hour: '2-digit', minute: '2-digit' })`,
  (l) => `new Intl.DateTimeFormat('${l}', { dateStyle: 'medium', timeStyle: 'short' }).format(d)`,
  (l) => `new Intl.ListFormat('${l}').format(['a', 'b', 'c'])`,
  (l) => `new Intl.RelativeTimeFormat('${l}', { numeric: 'auto' }).format(-1, 'day')`,
  (l) => `new Intl.RelativeTimeFormat('${l}').format(3, 'hour')`,
];
// Two-digit fields pad only themselves (an hour's `2-digit` left a day or month alone), in the
// locales a tester compared; a date whose day, month and hour all have one digit.
const early = 'new Date(Date.UTC(2024, 2, 5, 7, 4, 9))';
const twoDigit = ['en-US', 'de-DE', 'ja-JP', 'fr-FR'].flatMap((l) => [
  `${early}.toLocaleString('${l}', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })`,
  `${early}.toLocaleString('${l}', { year: 'numeric', month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit' })`,
  `${early}.toLocaleDateString('${l}', { month: 'numeric', day: '2-digit' })`,
  `${early}.toLocaleDateString('${l}', { year: 'numeric', month: '2-digit', day: 'numeric' })`,
  `${early}.toLocaleString('${l}', { day: 'numeric', hour: '2-digit' })`,
  `${early}.toLocaleTimeString('${l}', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })`,
]);
// Where ICU4X's data (CLDR 49) is not V8's (CLDR 48), or ICU's rules are not ICU4X's (the
// fourteenth fresh pass): time patterns (es `H:mm`, it's hour alone `H`, de's and tr's 12-hour
// ones), hour cycles, a zone name after a date, short month skeletons written with numbers,
// plural rules, currency symbols and spacing. `morning` and `midnight` have one-digit hours.
// `style: "unit"`: widths, plural categories (ru's few and many, ar's one without a number,
// fr's one below 2), compound units, digits, signs, a region's own narrow form, and the parts.
const unit = (l, options, n) => `new Intl.NumberFormat('${l}', { style: 'unit', ${options} }).format(${n})`;
const units = [
  unit('en-US', "unit: 'kilometer'", 12.5),
  unit('en-US', "unit: 'kilometer', unitDisplay: 'long'", 1),
  unit('en-US', "unit: 'kilometer', unitDisplay: 'long', minimumFractionDigits: 1", 1),
  unit('en-US', "unit: 'byte', unitDisplay: 'narrow', signDisplay: 'always'", 512),
  unit('de-DE', "unit: 'megabyte', maximumFractionDigits: 1", 2212.009),
  unit('de-DE', "unit: 'kilometer-per-hour', unitDisplay: 'long'", 120),
  unit('de-AT', "unit: 'kilometer', unitDisplay: 'narrow'", 7),
  unit('fr-FR', "unit: 'kilometer', unitDisplay: 'long'", 1.5),
  unit('ja-JP', "unit: 'gigabyte'", 3.25),
  unit('ru-RU', "unit: 'hour', unitDisplay: 'long'", 5),
  unit('ru-RU', "unit: 'hour', unitDisplay: 'long'", 21),
  unit('ar-EG', "unit: 'acre', unitDisplay: 'long'", 1),
  unit('en-IN', "unit: 'liter', unitDisplay: 'narrow'", 1234567),
  unit('pt-BR', "unit: 'celsius'", -3.5),
  unit('es-ES', "unit: 'percent'", 45),
  unit('pl-PL', "unit: 'second', unitDisplay: 'long'", 2),
  unit('zh-CN', "unit: 'mile-per-hour', unitDisplay: 'long'", 60),
  unit('ko-KR', "unit: 'megabyte-per-second'", 85.3),
  unit('hi-IN', "unit: 'day', unitDisplay: 'long'", 3),
  `(1234.5).toLocaleString('de-DE', { style: 'unit', unit: 'kilobyte', unitDisplay: 'long' })`,
  `JSON.stringify(new Intl.NumberFormat('en-US', { style: 'unit', unit: 'megabyte', unitDisplay: 'long', maximumFractionDigits: 1 }).formatToParts(-1234.56))`,
  `new Intl.NumberFormat('en-US', { style: 'unit', unit: 'kilometer-per-hour' }).resolvedOptions().unit`,
  unit('en-US', "unit: 'furlong'", 1),
];
const morning = 'new Date(Date.UTC(2024, 0, 5, 8, 5, 9))';
const midnight = 'new Date(Date.UTC(2024, 0, 5, 0, 30, 9))';
const cldr48 = [
  `${morning}.toLocaleString('es-ES', { timeZone: 'Europe/Madrid' })`,
  `${morning}.toLocaleString('es-ES')`,
  `${morning}.toLocaleTimeString('es-MX')`,
  `${morning}.toLocaleTimeString('es-AR')`,
  `new Intl.DateTimeFormat('es-ES', { timeStyle: 'short' }).format(${morning})`,
  `new Intl.DateTimeFormat('es-ES', { timeStyle: 'full', timeZone: 'Europe/Madrid' }).format(${morning})`,
  `new Intl.DateTimeFormat('it-IT', { hour: 'numeric' }).format(${morning})`,
  `new Intl.DateTimeFormat('ru-RU', { hour: 'numeric' }).format(${morning})`,
  `new Intl.DateTimeFormat('fr-FR', { hour: 'numeric' }).format(${morning})`,
  `new Intl.DateTimeFormat('vi-VN', { hour: 'numeric', minute: 'numeric' }).format(${morning})`,
  ...['de-DE', 'en-GB'].map((l) => `new Intl.DateTimeFormat('${l}', { hour: 'numeric', minute: '2-digit' }).format(${morning})`),
  ...['de-DE', 'de-CH', 'tr-TR', 'it-IT'].map((l) => `new Intl.DateTimeFormat('${l}', { hour: 'numeric', hour12: true }).format(${morning})`),
  `new Intl.DateTimeFormat('tr-TR', { hour: '2-digit', minute: '2-digit', hour12: true }).format(${morning})`,
  `new Intl.DateTimeFormat('de-DE', { timeStyle: 'short', hour12: true }).format(${morning})`,
  `new Intl.DateTimeFormat('de-DE', { hour: 'numeric', minute: 'numeric', hour12: true }).format(${midnight})`,
  `new Intl.DateTimeFormat('de-DE', { hour: 'numeric', hour12: true }).resolvedOptions().hourCycle`,
  `${midnight}.toLocaleTimeString('en-US', { hour12: false })`,
  `new Intl.DateTimeFormat('en-US', { timeStyle: 'short', hour12: false }).format(${midnight})`,
  `new Intl.DateTimeFormat('en-US', { hour: 'numeric', hour12: false }).resolvedOptions().hourCycle`,
  `new Intl.DateTimeFormat('ja-JP', { hour: 'numeric', hour12: true }).format(${midnight})`,
  ...['fr-FR', 'ja-JP', 'zh-CN', 'ko-KR', 'sv-SE', 'tr-TR', 'cs-CZ', 'fi-FI', 'fr-CA'].map((l) => `new Intl.DateTimeFormat('${l}', { timeZoneName: 'long' }).format(${morning})`),
  `new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', timeZoneName: 'short' }).format(${morning})`,
  `new Intl.DateTimeFormat('zh-CN', { timeStyle: 'long', timeZone: 'Asia/Kolkata' }).format(${morning})`,
  `new Intl.DateTimeFormat('zh-CN', { dateStyle: 'short', timeStyle: 'long', timeZone: 'Asia/Kolkata' }).format(${morning})`,
  `new Intl.DateTimeFormat('zh-CN', { hour: 'numeric', minute: 'numeric', timeZoneName: 'short', timeZone: 'Asia/Kolkata' }).format(${morning})`,
  `new Intl.DateTimeFormat('pt-BR', { timeStyle: 'long', timeZone: 'Asia/Kolkata' }).format(${morning})`,
  `new Intl.DateTimeFormat('vi-VN', { timeZoneName: 'short', timeZone: 'Asia/Kolkata' }).format(${morning})`,
  `${morning}.toLocaleString('vi-VN', { timeZoneName: 'short', timeZone: 'Asia/Kolkata' })`,
  ...['cs-CZ', 'fi-FI', 'sk-SK'].map((l) => `new Intl.DateTimeFormat('${l}', { weekday: 'short', month: 'short', day: 'numeric' }).format(${morning})`),
  `new Intl.DateTimeFormat('cs-CZ', { year: 'numeric', month: 'short', day: 'numeric' }).format(${morning})`,
  `new Intl.DateTimeFormat('cs-CZ', { year: 'numeric', month: 'short' }).format(${morning})`,
  `new Intl.DateTimeFormat('pt-PT', { month: 'short', day: 'numeric' }).format(${morning})`,
  `new Intl.DateTimeFormat('en-IN', { year: 'numeric', month: 'short', day: 'numeric' }).format(${morning})`,
  `[0, 1, 0.5, 2].map((n) => new Intl.PluralRules('vi').select(n)).join(' ')`,
  `new Intl.PluralRules('vi').resolvedOptions().pluralCategories.join(' ')`,
  `[1, 3, 21].map((n) => new Intl.PluralRules('es', { type: 'ordinal' }).select(n)).join(' ')`,
  `new Intl.PluralRules('ru').resolvedOptions().pluralCategories.join(' ')`,
  ...['de-CH', 'en-US', 'fr-FR'].map((l) => `new Intl.NumberFormat('${l}', { style: 'currency', currency: 'CHF', currencyDisplay: 'narrowSymbol' }).format(5)`),
  ...['fr-FR', 'es-ES', 'it-IT', 'pl-PL', 'sv-SE', 'nb-NO'].map((l) => `new Intl.NumberFormat('${l}', { style: 'currency', currency: 'JPY' }).format(5)`),
  `new Intl.NumberFormat('es-MX', { style: 'currency', currency: 'JPY' }).format(0)`,
  `new Intl.NumberFormat('it-IT', { style: 'currency', currency: 'USD' }).format(5)`,
  `new Intl.NumberFormat('fi-FI', { style: 'currency', currency: 'AUD', currencyDisplay: 'narrowSymbol' }).format(5)`,
  `new Intl.NumberFormat('en-ZA', { style: 'currency', currency: 'CHF' }).format(-5)`,
  `new Intl.NumberFormat('de-CH', { style: 'currency', currency: 'CHF' }).format(-5)`,
  `new Intl.NumberFormat('ar-EG', { style: 'percent' }).format(-0.256)`,
];
const extra = [
  ...twoDigit,
  // A currency with fraction digits of the program's own (ICU4X's currency formatter rounds to
  // the currency's).
  `new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 }).format(184142.4)`,
  `new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 0 }).format(1234.5)`,
  `new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'JPY', minimumFractionDigits: 2 }).format(1234.5)`,
  `new Intl.NumberFormat('ar-EG', { style: 'currency', currency: 'EGP', maximumFractionDigits: 0 }).format(1234.5)`,
  `new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR', currencyDisplay: 'name', maximumFractionDigits: 1 }).format(1234.56)`,
  `(-1234.5).toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 })`,
  `new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL', maximumSignificantDigits: 2 }).format(1234.5)`,
  // Rounding: modes, increments, priorities, trailing zeros; compact notation with digits
  // (found silently ignored by the tenth fresh pass).
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, roundingMode: 'ceil' }).format(2.01)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, roundingMode: 'trunc' }).format(-2.7)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, roundingMode: 'floor' }).format(-2.2)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, roundingMode: 'ceil' }).format(-2.7)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, roundingMode: 'halfEven' }).format(2.5)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, roundingMode: 'halfCeil' }).format(-2.5)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, roundingMode: 'halfFloor' }).format(2.5)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, roundingMode: 'halfTrunc' }).format(1.25)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, roundingMode: 'expand' }).format(1.1)`,
  `new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2, roundingMode: 'floor' }).format(1299)`,
  `new Intl.NumberFormat('en-US', { roundingMode: 'sideways' }).format(1)`,
  `new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2, roundingIncrement: 5 }).format(1.234)`,
  `new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2, roundingIncrement: 25 }).format(1.3)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, roundingIncrement: 50 }).format(1234)`,
  `new Intl.NumberFormat('en-US', { roundingIncrement: 5 }).format(12)`,
  `new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1, roundingIncrement: 2500 }).format(1234)`,
  `new Intl.NumberFormat('en-US', { roundingIncrement: 3 }).format(1)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 2, roundingIncrement: 5 }).format(1)`,
  `new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2, roundingIncrement: 5 }).format(1)`,
  `new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, trailingZeroDisplay: 'stripIfInteger' }).format(5)`,
  `new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, trailingZeroDisplay: 'stripIfInteger' }).format(5.1)`,
  `new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, trailingZeroDisplay: 'stripIfInteger' }).format(4.98)`,
  `new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', trailingZeroDisplay: 'stripIfInteger' }).format(5)`,
  `new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2, maximumFractionDigits: 2, roundingPriority: 'morePrecision' }).format(1.234)`,
  `new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2, maximumFractionDigits: 2, roundingPriority: 'lessPrecision' }).format(1.234)`,
  `new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2, maximumFractionDigits: 2, roundingPriority: 'morePrecision' }).format(123.456)`,
  `new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2, maximumFractionDigits: 2, roundingPriority: 'lessPrecision' }).format(123.456)`,
  `[10432, 5312, 159812, 11526, 3815, 999960, 1234, 0.5, 0, -1550].map((n) => new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(n)).join(' ')`,
  `[10432, 1234, 999499, 999500, 0.0123, 1e15].map((n) => new Intl.NumberFormat('en-US', { notation: 'compact' }).format(n)).join(' ')`,
  `new Intl.NumberFormat('de-DE', { notation: 'compact', maximumFractionDigits: 2 }).format(12345.678)`,
  `new Intl.NumberFormat('de-DE', { notation: 'compact', compactDisplay: 'long', maximumFractionDigits: 2 }).format(12345678)`,
  `new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: 4 }).format(1234567)`,
  `new Intl.NumberFormat('en-US', { notation: 'compact', minimumFractionDigits: 2 }).format(1500)`,
  `new Intl.NumberFormat('ja-JP', { notation: 'compact', maximumFractionDigits: 1 }).format(123456)`,
  `new Intl.NumberFormat('en-IN', { notation: 'compact', maximumFractionDigits: 1 }).format(1234567)`,
  `new Intl.NumberFormat('en-US', { notation: 'compact', roundingMode: 'floor' }).format(1299)`,
  `new Intl.NumberFormat('en-US', { notation: 'compact', signDisplay: 'always', maximumFractionDigits: 1 }).format(1550)`,
  `new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', notation: 'compact', maximumFractionDigits: 2 }).format(1234567)`,
  `new Intl.NumberFormat('en-US', { notation: 'compact' }).resolvedOptions().maximumSignificantDigits`,
  `new Intl.NumberFormat('en-US', { notation: 'compact' }).resolvedOptions().roundingPriority`,
  `new Intl.NumberFormat('en-US', { roundingMode: 'ceil' }).resolvedOptions().roundingMode`,
  `new Intl.NumberFormat('en-US', { trailingZeroDisplay: 'stripIfInteger' }).resolvedOptions().trailingZeroDisplay`,
  `new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1, roundingIncrement: 5 }).resolvedOptions().roundingIncrement`,
  `new Intl.PluralRules('en-US', { maximumFractionDigits: 0, roundingMode: 'floor' }).select(1.9)`,
  // A time without its hour.
  `d.toLocaleTimeString('en-US', { minute: '2-digit', second: '2-digit' })`,
  `d.toLocaleTimeString('en-US', { minute: 'numeric' })`,
  // What this sandbox's Intl lacks is a clear error, never a silent other format.
  `new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', currencySign: 'accounting' }).format(-1234.5)`,
  `new Intl.NumberFormat('en-US', { currencySign: 'accounting' }).format(-1234.5)`,
  `new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', currencySign: 'standard' }).format(-1234.5)`,
  `new Intl.NumberFormat('en-US').formatToParts(-1234.5).map((p) => p.type + ':' + p.value).join('|')`,
  // formatToParts of numbers: each style, separators of several locales, signs and symbols.
  ...[
    ['de-DE', `{ style: 'currency', currency: 'EUR' }`, '1234.5'],
    ['en-US', `{ style: 'currency', currency: 'USD' }`, '-1234.5'],
    ['fr-FR', `{}`, '-1234567.891'],
    ['en-IN', `{}`, '12345678.9'],
    ['ja-JP', `{ style: 'currency', currency: 'JPY' }`, '1234'],
    ['pt-BR', `{ style: 'percent', maximumFractionDigits: 1 }`, '0.1234'],
    ['fr-FR', `{ style: 'percent' }`, '0.5'],
    ['en-US', `{ notation: 'compact' }`, '1234567'],
    ['de-DE', `{ notation: 'compact', compactDisplay: 'long' }`, '1234567'],
    ['en-US', `{ signDisplay: 'always' }`, '42'],
    ['nl-NL', `{ style: 'currency', currency: 'EUR' }`, '-1234.5'],
    ['es-ES', `{}`, '1234.5'],
    ['en-US', `{ style: 'currency', currency: 'USD', currencyDisplay: 'name' }`, '2.5'],
    ['ar-EG', `{}`, '-1234.5'],
    ['en-US', `{}`, 'NaN'],
  ].map(([tag, options, value]) =>
    `new Intl.NumberFormat('${tag}', ${options}).formatToParts(${value}).map((p) => p.type + ':' + p.value).join('|')`),
  `new Intl.NumberFormat('en-US').formatRange(1, 5)`,
  `new Intl.DateTimeFormat('en-US').formatToParts(d).map((p) => p.type + ':' + p.value).join('|')`,
  // formatToParts to read a date's fields in a time zone, the way models convert zones.
  `new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).formatToParts(d).map((p) => p.type + ':' + p.value).join('|')`,
  `new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Kolkata', weekday: 'long', day: 'numeric', month: 'long', hour: 'numeric', minute: '2-digit' }).formatToParts(j).map((p) => p.type + ':' + p.value).join('|')`,
  `new Intl.DateTimeFormat('de-DE', { dateStyle: 'full', timeStyle: 'short', timeZone: 'Europe/Berlin' }).formatToParts(j).map((p) => p.type + ':' + p.value).join('|')`,
  `new Intl.DateTimeFormat('ja-JP', { year: 'numeric', month: 'long', day: 'numeric', weekday: 'short' }).formatToParts(d).map((p) => p.type + ':' + p.value).join('|')`,
  `new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).formatToParts(j).map((p) => p.type + ':' + p.value).join('|')`,
  `Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney', year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(d).filter((p) => p.type !== 'literal').map((p) => [p.type, p.value])).day`,
  `new Intl.DateTimeFormat('en-US').formatRange(d, j)`,
  `new Intl.PluralRules('en-US').selectRange(1, 2)`,
  `d.toLocaleDateString('en-US', { month: 'narrow' })`,
  `d.toLocaleDateString('en-US', { weekday: 'narrow' })`,
  `d.toLocaleDateString('en-US', { year: '2-digit', month: 'numeric', day: 'numeric' })`,
  `d.toLocaleDateString('en-US', { month: 'numeric', day: 'numeric' })`,
  `d.toLocaleDateString('de-DE', { month: '2-digit', year: 'numeric' })`,
  `d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: '2-digit' })`,
  `d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', hour12: false })`,
  `d.toLocaleTimeString('de-DE', { hour: 'numeric', minute: '2-digit', hour12: true })`,
  `d.toLocaleTimeString('en-US', { hour: 'numeric' })`,
  `d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' })`,
  `d.toLocaleString('en-US', { timeZone: 'America/New_York' })`,
  `d.toLocaleString('en-US', { timeZone: 'America/New_York', timeZoneName: 'short' })`,
  `j.toLocaleString('en-US', { timeZone: 'America/New_York', timeZoneName: 'short' })`,
  `d.toLocaleString('en-US', { timeZone: 'America/New_York', timeZoneName: 'long' })`,
  `d.toLocaleTimeString('de-DE', { timeZone: 'Europe/Berlin', timeZoneName: 'short' })`,
  `d.toLocaleTimeString('en-US', { timeZone: 'Asia/Kolkata', timeZoneName: 'short' })`,
  `d.toLocaleTimeString('en-GB', { timeZone: 'Europe/London', timeZoneName: 'long' })`,
  `new Intl.DateTimeFormat('en-US', { timeStyle: 'long', timeZone: 'America/Los_Angeles' }).format(j)`,
  `new Intl.DateTimeFormat('en-US', { dateStyle: 'full' }).format(d)`,
  `new Intl.DateTimeFormat('de-DE', { dateStyle: 'long' }).format(d)`,
  `new Intl.DateTimeFormat('ja-JP', { dateStyle: 'short' }).format(d)`,
  `'i'.toLocaleUpperCase('tr-TR')`,
  `'I'.toLocaleLowerCase('tr-TR')`,
  `'istanbul'.toLocaleUpperCase('tr')`,
  `'DİYARBAKIR'.toLocaleLowerCase('tr-TR')`,
  `'i'.toLocaleUpperCase('az')`,
  `'i'.toLocaleUpperCase('en-US')`,
  `'straße'.toLocaleUpperCase('de-DE')`,
  `'ΌΣΟΣ'.toLocaleLowerCase('el')`,
  `'I'.toLocaleLowerCase()`,
  `new Intl.ListFormat('en-US', { type: 'disjunction' }).format(['a', 'b', 'c'])`,
  `new Intl.ListFormat('en-US', { style: 'short', type: 'unit' }).format(['1 h', '2 min'])`,
  `new Intl.ListFormat('en-GB').format(['a', 'b', 'c'])`,
  `new Intl.ListFormat('en-US').format(['a', 'b'])`,
  `new Intl.ListFormat('en-US').format([])`,
  `new Intl.ListFormat('es-ES', { type: 'disjunction' }).format(['uno', 'ocho'])`,
  `new Intl.RelativeTimeFormat('en-US').format(-2, 'days')`,
  `new Intl.RelativeTimeFormat('en-US').format(1, 'month')`,
  `new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' }).format(0, 'day')`,
  `new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' }).format(1, 'week')`,
  `new Intl.RelativeTimeFormat('en-US', { style: 'short' }).format(-5, 'minute')`,
  `new Intl.RelativeTimeFormat('en-US').format(1.5, 'hour')`,
  `new Intl.RelativeTimeFormat('en-US').format(-1000, 'year')`,
  `new Intl.RelativeTimeFormat('de-DE', { numeric: 'auto' }).format(-2, 'day')`,
  `new Intl.RelativeTimeFormat('en-US').formatToParts(10, 'second').map((p) => p.type + ':' + p.value).join('|')`,
  `new Intl.ListFormat('en-US').formatToParts(['x', 'y']).map((p) => p.type + ':' + p.value).join('|')`,
  `new Intl.RelativeTimeFormat('en-US').resolvedOptions().numeric`,
  `new Intl.ListFormat('fr-FR').resolvedOptions().locale`,
  `new Intl.RelativeTimeFormat('en-US').format(-0, 'second')`,
  `new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' }).format(-0, 'day')`,
  `JSON.stringify(new Intl.RelativeTimeFormat('en-US').formatToParts(-1234.5, 'days'))`,
  `JSON.stringify(new Intl.RelativeTimeFormat('en-US').resolvedOptions())`,
  `JSON.stringify(new Intl.ListFormat('en-US').resolvedOptions())`,
  `'i\u0307'.toLocaleUpperCase('lt')`,
  `d.toLocaleString('en-US', { weekday: 'long', hour: 'numeric' })`,
  `d.toLocaleDateString('en-US', { era: 'short', year: 'numeric' })`,
  `d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', second: '2-digit', hour12: true })`,
  `d.toLocaleTimeString('fr-FR', { hour: '2-digit', minute: '2-digit' })`,
  `d.toLocaleDateString('pt-BR', { weekday: 'long', day: 'numeric', month: 'long' })`,
  `d.toLocaleDateString('zh-CN', { weekday: 'short', year: 'numeric', month: 'long', day: 'numeric' })`,
  `d.toLocaleDateString('en-US', { timeZone: 'Asia/Tokyo', timeZoneName: 'short' })`,
  `d.toLocaleTimeString('en-US', { timeZone: 'Europe/Paris', timeZoneName: 'shortOffset' })`,
  // Calendars other than Gregorian (a locale's default, -u-ca-, the calendar option).
  `d.toLocaleDateString('th-TH')`,
  `new Intl.DateTimeFormat('th-TH', { dateStyle: 'long' }).format(d)`,
  `new Intl.DateTimeFormat('th-TH-u-ca-buddhist').resolvedOptions().calendar`,
  `new Intl.DateTimeFormat('th-TH', { calendar: 'gregory', dateStyle: 'long' }).format(d)`,
  `new Intl.DateTimeFormat('th-TH-u-ca-gregory', { dateStyle: 'medium' }).format(d)`,
  `new Intl.DateTimeFormat('fa-IR', { dateStyle: 'long' }).format(d)`,
  `d.toLocaleDateString('fa-IR')`,
  `d.toLocaleDateString('fa-IR', { calendar: 'gregory' })`,
  `d.toLocaleDateString('en-US', { calendar: 'japanese' })`,
  `new Intl.DateTimeFormat('ar-SA').resolvedOptions().calendar`,
  // Numbering systems: locales whose default is not latn, -u-nu-, the numberingSystem option.
  `new Intl.NumberFormat('bn-IN').format(1234567.891)`,
  `new Intl.NumberFormat('bn-IN').resolvedOptions().numberingSystem`,
  `d.toLocaleDateString('bn-IN')`,
  `new Intl.DateTimeFormat('bn-IN', { dateStyle: 'medium' }).format(d)`,
  `new Intl.NumberFormat('bn').format(1234567.891)`,
  `(1234.5).toLocaleString('ar-EG')`,
  `new Intl.NumberFormat('ar-SA', { style: 'currency', currency: 'SAR' }).format(1234.5)`,
  `d.toLocaleDateString('ar-EG')`,
  `new Intl.NumberFormat('ar').format(1234567.891)`,
  `new Intl.NumberFormat('ar').resolvedOptions().numberingSystem`,
  `new Intl.NumberFormat('fa-IR').format(1234567.891)`,
  `new Intl.NumberFormat('fa-IR', { style: 'percent' }).format(0.25)`,
  `new Intl.NumberFormat('en-US', { numberingSystem: 'deva' }).format(1234.5)`,
  `new Intl.NumberFormat('hi-IN-u-nu-deva').format(1234567.891)`,
  `new Intl.NumberFormat('th-TH-u-nu-thai').format(1234.5)`,
  `new Intl.NumberFormat('en-US', { numberingSystem: 'roman' }).format(5)`,
  `new Intl.NumberFormat('en-US', { numberingSystem: 'deva' }).resolvedOptions().numberingSystem`,
  `new Intl.DateTimeFormat('en-US', { numberingSystem: 'arab' }).format(d)`,
  `new Intl.RelativeTimeFormat('bn-IN').format(3, 'day')`,
  `new Intl.NumberFormat('ar-SA', { style: 'percent' }).format(0.256)`,
  `new Intl.NumberFormat('en-US-u-nu-arab').format(1234567.891)`,
  `new Intl.NumberFormat('de-DE-u-nu-arab').format(1234567.891)`,
  `new Intl.NumberFormat('en-US', { numberingSystem: 'arabext', style: 'currency', currency: 'USD' }).format(1234.5)`,
  `new Intl.NumberFormat('ar-EG', { style: 'percent' }).format(0.256)`,
  `d.toLocaleTimeString('th-TH')`,
  `d.toLocaleTimeString('fa-IR')`,
  `new Intl.DateTimeFormat('th-TH', { timeStyle: 'short' }).resolvedOptions().calendar`,
  `new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'USD', currencyDisplay: 'name' }).format(2)`,
  `new Intl.NumberFormat('zh-CN', { style: 'currency', currency: 'CNY', currencyDisplay: 'name' }).format(2)`,
  `new Intl.NumberFormat('zh-TW', { style: 'currency', currency: 'USD', currencyDisplay: 'name' }).format(2)`,
  // Currencies and separators where ICU4X's data is older than CLDR 48.
  `new Intl.NumberFormat('fr-CH', { style: 'currency', currency: 'CHF' }).format(69.93)`,
  `new Intl.NumberFormat('fr-CH').format(1234567.891)`,
  `new Intl.NumberFormat('de-AT', { style: 'currency', currency: 'EUR' }).format(1234.5)`,
  `new Intl.NumberFormat('de-CH', { style: 'currency', currency: 'CHF' }).format(1234.5)`,
  `new Intl.NumberFormat('uk-UA', { style: 'currency', currency: 'EUR' }).format(69.93)`,
  `new Intl.NumberFormat('ro-RO', { style: 'currency', currency: 'EUR' }).format(69.93)`,
  `new Intl.NumberFormat('hu-HU', { style: 'currency', currency: 'EUR' }).format(69.93)`,
  `new Intl.NumberFormat('de-CH', { style: 'currency', currency: 'EUR' }).format(69.93)`,
  `new Intl.NumberFormat('es-MX', { style: 'currency', currency: 'EUR' }).format(69.93)`,
  `new Intl.NumberFormat('uk-UA', { style: 'currency', currency: 'EUR', currencyDisplay: 'narrowSymbol' }).format(69.93)`,
  // dateStyle / timeStyle across locales.
  `new Intl.DateTimeFormat('ko-KR', { dateStyle: 'medium' }).format(d)`,
  `new Intl.DateTimeFormat('ko-KR', { dateStyle: 'short' }).format(d)`,
  `new Intl.DateTimeFormat('vi-VN', { dateStyle: 'long' }).format(d)`,
  `new Intl.DateTimeFormat('da-DK', { dateStyle: 'full' }).format(d)`,
  `new Intl.DateTimeFormat('pt-PT', { dateStyle: 'full' }).format(d)`,
  `new Intl.DateTimeFormat('en-CA', { dateStyle: 'short' }).format(d)`,
  `new Intl.DateTimeFormat('de-DE', { timeStyle: 'medium' }).format(d)`,
  `new Intl.DateTimeFormat('de-DE', { timeStyle: 'long', timeZone: 'Europe/Berlin' }).format(j)`,
  `new Intl.DateTimeFormat('en-IN', { dateStyle: 'medium', timeStyle: 'short' }).format(d)`,
  `new Intl.DateTimeFormat('es-MX', { timeStyle: 'short' }).format(d)`,
  `new Intl.DateTimeFormat('ko-KR', { timeStyle: 'short' }).format(d)`,
  ...cldr48,
  ...units,
];

const expressions = [...locales.flatMap((l) => perLocale.map((f) => f(l))), ...extra];

/** What one expression gives (an error as `Name: message`, as the test's runner reports it). */
const v8 = (expr) => {
  try {
    return String(new Function(`${prelude} return (${expr});`)());
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};

const mode = process.argv[2];
if (mode === 'write') {
  if (process.env.TZ !== 'UTC') {
    console.error('run with TZ=UTC (the sandbox formats in UTC by default)');
    process.exit(2);
  }
  let old = [];
  try { old = JSON.parse(readFileSync(goldenPath, 'utf8')); } catch { /* first run */ }
  const kept = new Map(old.filter((e) => e.ptc !== undefined).map((e) => [e.expr, e]));
  const table = expressions.map((expr) => {
    const entry = { expr, v8: v8(expr) };
    const k = kept.get(expr);
    if (k) { entry.ptc = k.ptc; entry.why = k.why; }
    return entry;
  });
  writeFileSync(goldenPath, JSON.stringify(table, null, 1) + '\n');
  console.log(`${table.length} entries (Node ${process.version}, ICU ${process.versions.icu}, CLDR ${process.versions.cldr})`);
} else if (mode === 'compare') {
  const ptc = process.argv[3];
  const table = JSON.parse(readFileSync(goldenPath, 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'intl-v8-'));
  /** The texts a program of these entries gives, or null when the run itself fails. */
  const run = (entries) => {
    const body = entries.map((e) => `t(() => ${e.expr});`).join('\n');
    writeFileSync(join(dir, 'table.ts'), `${prelude}\nconst out = []; const t = (f) => { try { out.push(String(f())); } catch (e) { out.push(e.name + ': ' + e.message); } };\n${body}\nreturn out;`);
    try {
      return JSON.parse(execFileSync(ptc, ['run', join(dir, 'table.ts')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    } catch (e) {
      return null;
    }
  };
  // One run for the table; entry by entry when it fails, so a crash names its expression.
  const got = run(table) ?? table.map((e) => run([e])?.[0] ?? '(the run failed)');
  let differ = 0;
  table.forEach((e, i) => {
    if (got[i] === e.v8) return;
    differ++;
    const note = e.ptc === got[i] ? `  (accepted: ${e.why})` : e.ptc !== undefined ? '  (NOT the accepted text)' : '';
    console.log(`${e.expr}\n  v8:  ${JSON.stringify(e.v8)}\n  ptc: ${JSON.stringify(got[i])}${note}`);
  });
  console.log(`${differ} of ${table.length} differ from V8`);
} else {
  console.error('usage: golden.mjs write | compare <ptc binary>');
  process.exit(2);
}
