//! A run's notes: a tool's note that a cap cut its result short, with the call's site as
//! written (types stripped, aliases, repeats, failed runs).

use crate::common;

use common::run;
use ptc_engine::{Note, NoteKind};
use serde_json::json;

/// The notes of a run as `(kind, site, subject, text, count)`.
fn notes(report: &ptc_engine::RunReport) -> Vec<(NoteKind, Option<(usize, usize)>, &str, usize)> {
    report
        .notes
        .iter()
        .map(
            |Note {
                 kind,
                 site,
                 subject,
                 text,
                 count,
             }| {
                assert_eq!(text, "3 of 9 items (page with offset)");
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
