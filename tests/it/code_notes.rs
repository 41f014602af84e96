//! Issue 22 §1 and §2 through the whole pipeline: a tool's note that a cap cut its result
//! short (`ToolRunContext::cut_short`) reaches the program's result with the call's site, on
//! success and on failure, and a read of a field the tool's output type lacks is noted.

use ptc_testing::code as code_support;

use code_support::*;
use ptc::schema::ValueSpec;
use ptc::ToolDefinition;
use serde_json::json;

/// A registry with `capped`: three numbers, and a note that a cap cut them short.
fn registry() -> ptc::ToolRegistry {
    let registry = code_registry();
    registry
        .register(
            ToolDefinition::builder("capped")
                .output(
                    ValueSpec::object(false)
                        .required_property("items", ValueSpec::array(ValueSpec::integer())),
                )
                .execute_raw(|_, ctx| async move {
                    ctx.cut_short("3 of 9 items (page with offset)");
                    Ok(json!({ "items": [1, 2, 3] }))
                }),
        )
        .unwrap();
    registry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_short_result_is_named_after_the_output_with_the_call_site() {
    let code =
        "const { items } = await tools.capped({});\nconsole.log(items.length);\nreturn 'done'";
    let r = run(&registry(), code).await;
    assert_eq!(
        r.text(),
        "3\ndone\n[cut short] run_code.ts:1:31 capped: 3 of 9 items (page with offset)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_run_names_what_was_cut_short_and_what_was_misread() {
    let code = "const r = await tools.capped({});\nreturn r.item.length";
    let r = run(&registry(), code).await;
    let text = r.text();
    assert!(
        text.contains("(r.item is undefined, so .length cannot be read)"),
        "{text}"
    );
    assert!(
        text.contains("\n[cut short] run_code.ts:1:23 capped: 3 of 9 items (page with offset)"),
        "{text}"
    );
    assert!(
        text.contains(
            "\n[note] run_code.ts:2:8 r.item: a capped result has no field item (it has items)"
        ),
        "{text}"
    );
}
