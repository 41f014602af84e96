//! CLDR 48's time patterns (what V8 writes through ICU 78) for each supported locale: ICU4X's
//! data is CLDR 49, whose times differ (es `HH:mm:ss` against CLDR 48's `H:mm:ss`, de's 12-hour
//! `h 'Uhr' B` against `h a`, tr's `h a` against `a h`), and its time zone glue is not ICU's.
//! Written by `engine/tests/intl_v8/tables.mjs times` from Node's ICU: each locale's default
//! hour cycle, its patterns for an hour, with minutes and with seconds in the 12- and 24-hour
//! cycles as ICU's generator fits CLDR's `h`, `hm`, `hms`, `H`, `Hm`, `Hms` (numeric hour), the
//! same with 2-digit minutes and seconds (whose skeleton, `Hmm`, ICU matches as well to the
//! timeFormats pattern `HH:mm` and fits its hour: de's `8:05` against `08:05`), all again with a
//! zone name (`z`, from CLDR's `hmv` and kin), and `timeStyle`'s short, medium, long and full
//! patterns. A region's row is left out where it equals its language's.

/// `(locale, patterns)`, the patterns joined by `|` in the order [`Kind`] reads them.
const TIMES: &[(&str, &str)] = &[
    ("ar", "h12|h\u{202f}a|h:mm a|h:mm:ss a|h:mm a|h:mm:ss a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm a z|h:mm:ss a z|h:mm a z|h:mm:ss a z|HH'h 'z|HH:mm z|HH:mm:ss z|HH:mm z|HH:mm:ss z|h:mm a|h:mm:ss a|h:mm:ss a z|h:mm:ss a zzzz"),
    ("bn", "h12|h\u{202f}a|h:mm a|h:mm:ss a|h:mm a|h:mm:ss a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm a z|h:mm:ss a z|h:mm a z|h:mm:ss a z|HH'h 'z|HH:mm z|HH:mm:ss z|HH:mm z|HH:mm:ss z|h:mm a|h:mm:ss a|h:mm:ss a z|h:mm:ss a zzzz"),
    ("cs", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|H|H:mm|H:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|H' h 'z|H:mm z|H:mm:ss z|H:mm z|H:mm:ss z|H:mm|H:mm:ss|H:mm:ss z|H:mm:ss, zzzz"),
    ("da", "h23|h\u{202f}a|h.mm\u{202f}a|h.mm.ss\u{202f}a|h.mm\u{202f}a|h.mm.ss\u{202f}a|HH|HH.mm|HH.mm.ss|H.mm|H.mm.ss|h\u{202f}a z|h.mm\u{202f}a z|h.mm.ss\u{202f}a z|h.mm\u{202f}a z|h.mm.ss\u{202f}a z|HH'h 'z|HH.mm z|H.mm.ss z|HH.mm z|H.mm.ss z|HH.mm|HH.mm.ss|HH.mm.ss z|HH.mm.ss zzzz"),
    ("de", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH' Uhr'|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH' Uhr 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("el", "h12|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h ('z)|HH:mm (z)|HH:mm:ss (z)|HH:mm (z)|HH:mm:ss (z)|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm:ss\u{202f}a z|h:mm:ss\u{202f}a zzzz"),
    ("en", "h12|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|HH:mm z|HH:mm:ss z|HH:mm z|HH:mm:ss z|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm:ss\u{202f}a z|h:mm:ss\u{202f}a zzzz"),
    ("en-GB", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("en-IE", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("en-ZA", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("es", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|H|H:mm|H:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|H' h 'z|H:mm z|H:mm:ss z|H:mm z|H:mm:ss z|H:mm|H:mm:ss|H:mm:ss z|H:mm:ss (zzzz)"),
    ("es-AR", "h12|h\u{202f}a|h:mm\u{202f}a|hh:mm:ss|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|H' h 'z|HH:mm z|HH:mm:ss z|HH:mm z|HH:mm:ss z|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm:ss\u{202f}a z|h:mm:ss\u{202f}a zzzz"),
    ("es-MX", "h12|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|H' h 'z|HH:mm z|HH:mm:ss z|HH:mm z|HH:mm:ss z|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm:ss\u{202f}a z|h:mm:ss\u{202f}a zzzz"),
    ("es-US", "h12|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|H' h 'z|HH:mm z|HH:mm:ss z|HH:mm z|HH:mm:ss z|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm:ss\u{202f}a z|h:mm:ss\u{202f}a zzzz"),
    ("fa", "h23|h\u{202f}a|h:mm a|h:mm:ss a|h:mm a|h:mm:ss a|H|H:mm|H:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm a (z)|h:mm:ss a (z)|h:mm a (z)|h:mm:ss a (z)|'س'HH z|H:mm (z)|H:mm:ss (z)|H:mm (z)|H:mm:ss (z)|H:mm|H:mm:ss|H:mm:ss (z)|H:mm:ss (zzzz)"),
    ("fi", "h23|h\u{202f}a|h.mm\u{202f}a|h.mm.ss\u{202f}a|h.mm\u{202f}a|h.mm.ss\u{202f}a|H|H.mm|H.mm.ss|H.mm|H.mm.ss|h\u{202f}a z|h.mm\u{202f}a z|h.mm.ss\u{202f}a z|h.mm\u{202f}a z|h.mm.ss\u{202f}a z|H' h 'z|H.mm z|H.mm.ss z|H.mm z|H.mm.ss z|H.mm|H.mm.ss|H.mm.ss z|H.mm.ss zzzz"),
    ("fr", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH' h'|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH' h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("fr-BE", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH' h'|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH' h 'z|HH:mm z|H' h 'mm' min 'ss' s 'z|HH:mm z|H' h 'mm' min 'ss' s 'z|HH:mm|HH:mm:ss|HH:mm:ss z|H' h 'mm' min 'ss' s 'zzzz"),
    ("fr-CA", "h23|h' h 'a|h' h 'mm\u{202f}a|h' h 'mm' min 'ss' s 'a|h' h 'mm\u{202f}a|h' h 'mm' min 'ss' s 'a|HH' h'|HH' h 'mm|HH' h 'mm' min 'ss' s'|H' h 'mm|H' h 'mm' min 'ss' s'|h' h\u{202f}'a z|h' h 'mm\u{202f}a z|h' h 'mm' min 'ss' s 'a z|h' h 'mm\u{202f}a z|h' h 'mm' min 'ss' s 'a z|H' h 'z|HH' h 'mm z|H' h 'mm' min 'ss' s 'z|HH' h 'mm z|H' h 'mm' min 'ss' s 'z|HH' h 'mm|HH' h 'mm' min 'ss' s'|HH' h 'mm' min 'ss' s 'z|HH' h 'mm' min 'ss' s 'zzzz"),
    ("fr-CH", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH' h'|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH' h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH.mm:ss' h 'zzzz"),
    ("he", "h23|\u{200f}h a|h:mm a|h:mm:ss a|h:mm a|h:mm:ss a|H|H:mm|H:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm a z|h:mm:ss a z|h:mm a z|h:mm:ss a z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|H:mm|H:mm:ss|H:mm:ss z|H:mm:ss zzzz"),
    ("hi", "h12|h\u{202f}a|h:mm a|h:mm:ss a|h:mm a|h:mm:ss a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm a z|h:mm:ss a z|h:mm a z|h:mm:ss a z|HH'h 'z|HH:mm z|HH:mm:ss z|HH:mm z|HH:mm:ss z|h:mm a|h:mm:ss a|h:mm:ss a z|h:mm:ss a zzzz"),
    ("hu", "h23|a\u{202f}h|a\u{202f}h:mm|a\u{202f}h:mm:ss|a\u{202f}h:mm|a\u{202f}h:mm:ss|H|H:mm|H:mm:ss|H:mm|H:mm:ss|a\u{202f}h z|a\u{202f}h:mm z|a\u{202f}h:mm:ss z|a\u{202f}h:mm z|a\u{202f}h:mm:ss z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|H:mm|H:mm:ss|H:mm:ss z|H:mm:ss zzzz"),
    ("id", "h23|h\u{202f}a|h.mm\u{202f}a|h.mm.ss\u{202f}a|h.mm\u{202f}a|h.mm.ss\u{202f}a|HH|HH.mm|HH.mm.ss|H.mm|H.mm.ss|h\u{202f}a z|h.mm\u{202f}a z|h.mm.ss. a z|h.mm\u{202f}a z|h.mm.ss. a z|HH'h 'z|HH.mm z|H.mm.ss z|HH.mm z|H.mm.ss z|HH.mm|HH.mm.ss|HH.mm.ss z|HH.mm.ss zzzz"),
    ("it", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|H|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|'h'HH z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("ja", "h23|ah'時'|ah:mm|ah:mm:ss|ah:mm|ah:mm:ss|H'時'|H:mm|H:mm:ss|H:mm|H:mm:ss|ah'時 'z|ah:mm z|ah:mm:ss z|ah:mm z|ah:mm:ss z|H'時 'z|H:mm z|H:mm:ss z|H:mm z|H:mm:ss z|H:mm|H:mm:ss|H:mm:ss z|H'時'mm'分'ss'秒 'zzzz"),
    ("ko", "h12|a h'시'|a h:mm|a h:mm:ss|a h:mm|a h:mm:ss|H'시'|HH:mm|H'시 'm'분 's'초'|HH:mm|H:mm:ss|a h'시 'z|a h:mm z|a h'시 'm'분 's'초 'z|a h:mm z|a h'시 'm'분 's'초 'z|H'시 'z|HH:mm z|H'시 'm'분 's'초 'z|HH:mm z|H'시 'm'분 's'초 'z|a h:mm|a h:mm:ss|a h'시 'm'분 's'초 'z|a h'시 'm'분 's'초 'zzzz"),
    ("ms", "h12|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|HH:mm z|HH:mm:ss z|HH:mm z|HH:mm:ss z|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm:ss\u{202f}a z|h:mm:ss\u{202f}a zzzz"),
    ("nb", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("nl", "h23|h\u{202f}a|h:mm a|h:mm:ss a|h:mm a|h:mm:ss a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm a z|h:mm:ss a z|h:mm a z|h:mm:ss a z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("no", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("pl", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("pt", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a, z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h, 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("ro", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|'h 'HH z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("ru", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|H|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a, z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH' ч. 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("sk", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|H|H:mm|H:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|H:mm z|H:mm:ss z|H:mm z|H:mm:ss z|H:mm|H:mm:ss|H:mm:ss z|H:mm:ss zzzz"),
    ("sv", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("th", "h23|h\u{202f}a|h:mm a|h:mm:ss a|h:mm a|h:mm:ss a|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm a z|h:mm:ss a z|h:mm a z|h:mm:ss a z|HH'h 'z|HH:mm z|H' นาฬิกา 'mm' นาที 'ss' วินาที 'z|H:mm z|H' นาฬิกา 'mm' นาที 'ss' วินาที 'z|HH:mm|HH:mm:ss|H' นาฬิกา 'mm' นาที 'ss' วินาที 'z|H' นาฬิกา 'mm' นาที 'ss' วินาที 'zzzz"),
    ("tr", "h23|a\u{202f}h|a\u{202f}h:mm|a\u{202f}h:mm:ss|a\u{202f}h:mm|a\u{202f}h:mm:ss|HH|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|a\u{202f}h:mm z|a\u{202f}h:mm:ss z|a\u{202f}h:mm z|a\u{202f}h:mm:ss z|HH z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("uk", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|H|HH:mm|HH:mm:ss|H:mm|H:mm:ss|h\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH' год 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("vi", "h23|h\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|h:mm\u{202f}a|h:mm:ss\u{202f}a|HH' giờ'|H:mm|HH:mm:ss|H:mm|H:mm:ss|h'\u{202f}giờ 'a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|h:mm\u{202f}a z|h:mm:ss\u{202f}a z|HH'h 'z|HH:mm z|H:mm:ss z|HH:mm z|H:mm:ss z|HH:mm|HH:mm:ss|HH:mm:ss z|HH:mm:ss zzzz"),
    ("zh", "h23|ah'时'|ah:mm|ah:mm:ss|ah:mm|ah:mm:ss|H'时'|HH:mm|HH:mm:ss|H:mm|H:mm:ss|zah'时'|zah:mm|zah:mm:ss|zah:mm|zah:mm:ss|zH'时'|z HH:mm|z H:mm:ss|z HH:mm|z H:mm:ss|HH:mm|HH:mm:ss|z HH:mm:ss|zzzz HH:mm:ss"),
    ("zh-Hant", "h12|ah'時'|ah:mm|ah:mm:ss|ah:mm|ah:mm:ss|H'時'|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|ah z|ah:mm [z]|ah:mm:ss [z]|ah:mm [z]|ah:mm:ss [z]|HH'h 'z|HH:mm [z]|HH:mm:ss [z]|HH:mm [z]|HH:mm:ss [z]|Bh:mm|Bh:mm:ss|Bh:mm:ss [z]|Bh:mm:ss [zzzz]"),
    ("zh-HK", "h12|ah'時'|ah:mm|ah:mm:ss|ah:mm|ah:mm:ss|H'時'|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|zah'時'|ah:mm [z]|ah:mm:ss [z]|ah:mm [z]|ah:mm:ss [z]|zH'時'|HH:mm [z]|HH:mm:ss [z]|HH:mm [z]|HH:mm:ss [z]|ah:mm|ah:mm:ss|ah:mm:ss [z]|ah:mm:ss [zzzz]"),
    ("zh-SG", "h12|ah'时'|ah:mm|ah:mm:ss|ah:mm|ah:mm:ss|H'时'|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|zah'时'|zah:mm|z ah:mm:ss|zah:mm|z ah:mm:ss|zH'时'|z HH:mm|zHH:mm:ss|z HH:mm|zHH:mm:ss|ah:mm|ah:mm:ss|z ah:mm:ss|zzzz ah:mm:ss"),
    ("zh-TW", "h12|ah'時'|ah:mm|ah:mm:ss|ah:mm|ah:mm:ss|H'時'|HH:mm|HH:mm:ss|HH:mm|HH:mm:ss|ah z|ah:mm [z]|ah:mm:ss [z]|ah:mm [z]|ah:mm:ss [z]|HH'h 'z|HH:mm [z]|HH:mm:ss [z]|HH:mm [z]|HH:mm:ss [z]|Bh:mm|Bh:mm:ss|Bh:mm:ss [z]|Bh:mm:ss [zzzz]"),
];

/// Which of a locale's time patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The time fields' pattern.
    Fields {
        /// 0, 1 or 2: the hour, with minutes, with seconds.
        precision: usize,
        /// Minutes asked `2-digit`, and seconds too where shown.
        two_digit: bool,
        /// In the 12-hour cycle.
        twelve: bool,
        /// With a zone name, written `z`.
        zoned: bool,
    },
    /// `timeStyle`'s pattern: 0 short, 1 medium, 2 long, 3 full.
    Style(usize),
}

/// The locale's row (empty where the table lacks it).
fn row(tag: &str) -> &'static str {
    super::locale::row(TIMES, tag).copied().unwrap_or("")
}

/// The locale's default hour cycle (`h12`, `h23`), if the table has the locale.
pub(crate) fn default_cycle(tag: &str) -> Option<&'static str> {
    row(tag).split('|').next().filter(|c| !c.is_empty())
}

/// CLDR 48's time pattern of a kind for the locale, if the table has the locale.
pub(crate) fn pattern(tag: &str, kind: Kind) -> Option<&'static str> {
    let index = match kind {
        Kind::Fields {
            precision,
            two_digit,
            twelve,
            zoned,
        } => {
            let variant = match (precision.min(2), two_digit) {
                (0, _) => 0,
                (precision, false) => precision,
                (precision, true) => 2 + precision,
            };
            1 + 10 * usize::from(zoned) + 5 * usize::from(!twelve) + variant
        }
        Kind::Style(style) => 21 + style.min(3),
    };
    row(tag).split('|').nth(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_falls_back_to_its_language_and_the_kinds_read_their_columns() {
        let fields = |precision, twelve, zoned| Kind::Fields {
            precision,
            two_digit: false,
            twelve,
            zoned,
        };
        assert_eq!(default_cycle("es-ES"), Some("h23"));
        assert_eq!(default_cycle("es-MX"), Some("h12"));
        assert_eq!(pattern("es-ES", fields(2, false, false)), Some("H:mm:ss"));
        assert_eq!(pattern("it-IT", fields(0, false, false)), Some("H"));
        assert_eq!(pattern("it-IT", fields(1, false, false)), Some("HH:mm"));
        assert_eq!(pattern("tr-TR", fields(0, true, false)), Some("a\u{202f}h"));
        assert_eq!(pattern("zh-CN", fields(1, false, true)), Some("z HH:mm"));
        assert_eq!(pattern("es-ES", Kind::Style(3)), Some("H:mm:ss (zzzz)"));
        assert_eq!(pattern("xx", Kind::Style(0)), None);
        let two_digit = Kind::Fields {
            precision: 1,
            two_digit: true,
            twelve: false,
            zoned: false,
        };
        assert_eq!(pattern("de-DE", two_digit), Some("H:mm"));
        // Every row has its 25 columns.
        assert!(TIMES.iter().all(|(_, row)| row.split('|').count() == 25));
    }
}
