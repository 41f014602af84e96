//! A run's notes: a tool's note that a cap cut its result short, with the call's site as
//! written (types stripped, aliases, repeats, failed runs).

use crate::common;

use common::run;
use ptc_engine::{Note, NoteKind};
use serde_json::json;

/// A site as `(line, col)`.
type Site = Option<(usize, usize)>;

/// The cut-short notes of a run as `(kind, site, subject, count)`.
fn notes(report: &ptc_engine::RunReport) -> Vec<(NoteKind, Site, &str, usize)> {
    report
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::CutShort)
        .map(
            |Note {
                 kind,
                 site,
                 subject,
                 text,
                 count,
             }| {
                assert_eq!(
                    (*kind, text.as_str()),
                    (NoteKind::CutShort, "3 of 9 items (page with offset)")
                );
                (*kind, *site, subject.as_str(), *count)
            },
        )
        .collect()
}

engine_test! {
    async fn a_tool_note_is_reported_at_the_call_as_written() {
        let report = run(
            "type Page = { items: number[] };\nconst p: Page = await tools.capped({ items: [1] });\nreturn p",
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!({ "items": [1] }))));
        assert_eq!(notes(&report), [(NoteKind::CutShort, Some((2, 29)), "capped", 1)]);
    }
}

engine_test! {
    async fn calls_without_a_note_add_none() {
        let report = run("await tools.echo({});\nreturn await tools.add({ a: 1, b: 2 })").await;
        assert_eq!(report.outcome, Ok(Some(json!(3))));
        assert!(report.notes.is_empty(), "{:?}", report.notes);
    }
}

engine_test! {
    async fn the_same_note_at_one_site_is_counted_and_an_alias_call_has_its_site_too() {
        let report = run(
            "for (let i = 0; i < 3; i++) await tools.capped({});\nconst t = tools;\nawait t.capped({});",
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!({}))));
        assert_eq!(
            notes(&report),
            [
                (NoteKind::CutShort, Some((1, 41)), "capped", 3),
                (NoteKind::CutShort, Some((3, 9)), "capped", 1),
            ]
        );
    }
}

engine_test! {
    async fn a_failed_run_keeps_its_notes() {
        let report = run("await tools.capped({});\nthrow new Error('then it broke')").await;
        assert!(report.outcome.is_err());
        assert_eq!(notes(&report), [(NoteKind::CutShort, Some((1, 13)), "capped", 1)]);
    }
}

/// The typed-access notes of a run as `(site, subject, text, count)`.
fn reads(report: &ptc_engine::RunReport) -> Vec<(Site, &str, &str, usize)> {
    report
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::Note)
        .map(|n| (n.site, n.subject.as_str(), n.text.as_str(), n.count))
        .collect()
}

const NO_FILE: &str = "matches matches have no field file (they have path, line, text, note)";

engine_test! {
    async fn reading_a_field_the_result_type_lacks_is_noted_where_it_was_read() {
        let report = run(
            "const r = await tools.matches({});\nconst files: string[] = r.matches.map((m) => m.file);\nreturn files.length",
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!(2))));
        let notes = reads(&report);
        assert_eq!(notes.len(), 1, "{notes:?}");
        let (site, subject, text, count) = notes[0];
        assert_eq!((site.map(|s| s.0), subject, text, count), (Some(2), "m.file", NO_FILE, 2));
    }
}

engine_test! {
    async fn a_wrong_field_on_the_result_itself_is_noted_and_its_typeerror_names_it() {
        let report = run("const r = await tools.matches({});\nreturn r.match.length").await;
        let message = &common::failure(&report).message;
        assert!(message.contains("(r.match is undefined, so .length cannot be read)"), "{message}");
        let notes = reads(&report);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(notes[0].1, "r.match");
        assert_eq!(
            notes[0].2,
            "a matches result has no field match (it has matches, total, meta)"
        );
    }
}

engine_test! {
    async fn declared_fields_open_objects_and_protocol_reads_add_no_note() {
        let report = run(
            "const r = await tools.matches({});
const m = r.matches[0];
const seen = [m.note, r.meta.anything, r.then, r.toJSON, r.constructor === Object, String(r.total)];
const copy = structuredClone(r);
const keys = Object.keys(r).join();
const spread = { ...m };
const all = [...r.matches].map((x) => x.path).join();
console.log(r.matches[1]);
return [seen, JSON.stringify(r) === JSON.stringify(copy), keys, spread, all, Array.isArray(r.matches), r.matches === r.matches, r.matches.length]",
        )
        .await;
        assert_eq!(
            report.outcome,
            Ok(Some(json!([
                [null, null, null, null, true, "2"],
                true,
                "matches,total,meta",
                { "path": "a.rs", "line": 3, "text": "// TODO" },
                "a.rs,b.rs",
                true,
                true,
                2
            ])))
        );
        assert_eq!(report.logs, ["{ path: 'b.rs', line: 9, text: '// TODO too' }"]);
        assert!(report.notes.is_empty(), "{:?}", report.notes);
    }
}

engine_test! {
    async fn a_result_returned_or_passed_on_is_plain_data() {
        let report = run(
            "const r = await tools.matches({});\nconst e = await tools.echo({ first: r.matches[0] });\nreturn { r, e }",
        )
        .await;
        let value = report.outcome.unwrap().unwrap();
        assert_eq!(value["e"]["first"]["path"], json!("a.rs"));
        assert_eq!(value["r"]["total"], json!(2));
        assert!(report.notes.is_empty(), "{:?}", report.notes);
    }
}

engine_test! {
    async fn a_frozen_or_sorted_result_reads_as_before_and_notes_once() {
        let report = run(
            "const frozen = Object.freeze(await tools.matches({}));
const r = await tools.matches({});
const sorted = r.matches.sort((a, b) => b.line - a.line);
return [Object.isFrozen(frozen), frozen.matches.length, sorted[0].path, sorted[0].nope]",
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!([true, 2, "b.rs", null]))));
        let notes = reads(&report);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!((notes[0].1, notes[0].3), ("sorted[0].nope", 1));
    }
}

engine_test! {
    async fn an_escape_a_string_drops_is_noted_once_per_literal_where_it_was_written() {
        let report = run(
            r#"const pattern: string = "^export function\s+\w+\s";
const raw = String.raw`\s+`, regex = /\s+\./, doubled = "\\s\n\t\u0041\$";
const line = `${pattern}\b${raw}`;
[pattern, raw, regex.source, doubled, line.length, '\.']"#,
        )
        .await;
        assert_eq!(
            report.outcome,
            Ok(Some(json!([
                "^export functions+w+s",
                "\\s+",
                "\\s+\\.",
                "\\s\n\tA$",
                25,
                "."
            ])))
        );
        let pattern = "in a string these are just \"s\", \"w\", not a regex escape: write \"\\\\s\", \
                       \"\\\\w\" (or use String.raw`…`, or a regex literal /…/)";
        let boundary = "in a string this is just a backspace, not a regex escape: write \"\\\\b\" \
                        (or use String.raw`…`, or a regex literal /…/)";
        let dot = "in a string this is just \".\", not a regex escape: write \"\\\\.\" \
                   (or use String.raw`…`, or a regex literal /…/)";
        assert_eq!(
            reads(&report),
            [
                (Some((1, 25)), r#""\s", "\w""#, pattern, 1),
                (Some((3, 14)), r#""\b""#, boundary, 1),
                (Some((4, 52)), r#""\.""#, dot, 1),
            ]
        );
    }
}

engine_test! {
    async fn a_program_without_dropped_escapes_has_no_note_on_them() {
        let report = run(
            "const s = 'a\\\\d\\n' + `\\${x}\\`` + \"\\u{1F600}\\x41\\0\";\nreturn s.length",
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!(13))));
        assert!(report.notes.is_empty(), "{:?}", report.notes);
    }
}

engine_test! {
    async fn length_on_a_result_object_is_noted_as_no_array_and_on_its_array_field_is_fine() {
        let report = run(
            "const r = await tools.matches({});\nconst m = r.matches[0];\nreturn [r.length, r.matches.length, m.length]",
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!([null, 2, null]))));
        assert_eq!(
            reads(&report),
            [
                (
                    Some((3, 9)),
                    "r.length",
                    "a matches result is an object, not an array: it has no length (it has matches, total, meta)",
                    1
                ),
                (
                    Some((3, 37)),
                    "m.length",
                    "matches matches are objects, not arrays: they have no length (they have path, line, text, note)",
                    1
                ),
            ]
        );
    }
}

engine_test! {
    async fn nan_and_infinity_in_the_returned_value_are_returned_as_null_with_a_note() {
        let report = run(
            "const sizes: number[] = [];\nreturn { mean: sizes.reduce((a, b) => a + b, 0) / sizes.length, \
             top: [1, Infinity], ok: 2 }",
        )
        .await;
        assert_eq!(
            report.outcome,
            Ok(Some(json!({"mean": null, "top": [1, null], "ok": 2})))
        );
        assert_eq!(
            reads(&report),
            [(
                None,
                "return",
                "$.mean is NaN, $.top[1] is Infinity, returned as null (JSON has no NaN or \
                 Infinity: return String(x), or check Number.isFinite(x))",
                1
            )]
        );
        let fine = run("return { n: 1.5, list: [0, -0] }").await;
        assert!(reads(&fine).is_empty(), "{:?}", fine.notes);
    }
}
