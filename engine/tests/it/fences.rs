//! Markdown fences: a program that is one fenced block (prose around it allowed) runs its
//! code; a fence inside a comment, a string or a template literal is what the program says
//! and stays inert, so code a reader sees commented out never runs.

use crate::common;

use common::{failure, run, value};
use ptc_engine::FailureKind;
use serde_json::json;

const FENCE: &str = "```";

engine_test! {
    async fn a_fenced_program_runs_its_code_with_prose_around_it() {
        let bare = format!("{FENCE}ts\nreturn 1\n{FENCE}");
        assert_eq!(value(&bare).await, Some(json!(1)));
        let prose = format!(
            "Here's the program (it calls `tools.read`):\n{FENCE}typescript\nreturn 2\n{FENCE}\nIt returns 2."
        );
        assert_eq!(value(&prose).await, Some(json!(2)));
    }
}

engine_test! {
    async fn a_fence_inside_a_comment_string_or_template_stays_inert() {
        let hidden = format!("{FENCE}ts\nreturn 'hidden'\n{FENCE}");
        // Commented out: the comment is ignored and the program runs as written.
        for program in [
            format!("/*\n{hidden}\n*/\nreturn 'visible'"),
            format!("// one\n/* two\n{hidden}\n*/\nreturn 'visible'"),
            format!("let r = /'/; /*\n{hidden}\n*/\nreturn 'visible'"),
        ] {
            assert_eq!(value(&program).await, Some(json!("visible")), "{program}");
        }
        // Fences on `//` lines were never fences; the lines stay comments.
        let commented = format!("// {FENCE}ts\n// return 'hidden'\n// {FENCE}\nreturn 'visible'");
        assert_eq!(value(&commented).await, Some(json!("visible")));
        // Inside a template literal or a continued string (whose backticks or line ends then
        // break it), or a comment left open: a syntax error, as written.
        for program in [
            format!("const s = `\n{hidden}\n`;\nreturn 'visible'"),
            format!("const s = `${{`\n{hidden}\n`}}`;\nreturn 'visible'"),
            format!("const s = 'a\\\n{hidden}\n';\nreturn 'visible'"),
            format!("/*\n{hidden}\nreturn 'visible'"),
        ] {
            let report = run(&program).await;
            assert_eq!(failure(&report).kind, FailureKind::Syntax, "{program}");
        }
    }
}
