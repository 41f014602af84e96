//! Programs that nest without brackets: 2 MB of one construct (prefix operators, keyword
//! chains, right-associative operators, type operators, decorators …) whose syntax tree swc
//! would build by recursion. Each must end as a clear `syntax` failure or run; none may reach
//! swc deep enough to overflow a stack (which aborts the whole test binary).

use crate::common;

use common::{failure, run};
use ptc_engine::{strip_types, FailureKind};

/// About 2 MB of `unit`, between `head` and `tail`.
fn two_mb(head: &str, unit: &str, tail: &str) -> String {
    let n = 2 * 1024 * 1024 / unit.len();
    format!("{head}{}{tail}", unit.repeat(n))
}

/// Every construct swc's parser (or its visitors, or the drop of its tree) recurses on once
/// per repetition, 2 MB of each.
fn constructs() -> Vec<(&'static str, String)> {
    vec![
        ("!!!", two_mb("return ", "!", "1")),
        ("~~~", two_mb("return ", "~", "1")),
        ("+++", two_mb("return ", "+", "1")),
        ("---", two_mb("return ", "-", "1")),
        ("- - -", two_mb("return ", "- ", "1")),
        ("! ! !", two_mb("return ", "! ", "1")),
        ("!~+-", two_mb("return ", "!~+-", "1")),
        ("!-~+ spaced", two_mb("return ", "! - ~ + ", "1")),
        ("++ prefix", two_mb("return ", "++", "x")),
        ("...", two_mb("return [", "...", "x]")),
        ("... spaced", two_mb("return [", "... ", "x]")),
        ("typeof", two_mb("return ", "typeof ", "1")),
        ("void", two_mb("return ", "void ", "1")),
        ("await", two_mb("return ", "await ", "1")),
        ("delete", two_mb("return ", "delete ", "x")),
        ("typeof!void-", two_mb("return ", "typeof!void-", "1")),
        ("new", two_mb("return ", "new ", "X")),
        ("non-null x!!!", two_mb("return x", "!", "")),
        ("a ? b ? …", two_mb("return ", "a?", "1")),
        ("a ? b : c ? …", two_mb("return ", "a?b:", "1")),
        ("arrows", two_mb("return ", "a=>", "1")),
        ("async arrows", two_mb("return ", "async a=>", "1")),
        ("assignments", two_mb("let x; return ", "x=", "1")),
        ("compound assignments", two_mb("let x; return ", "x+=", "1")),
        ("exponents", two_mb("return ", "2**", "1")),
        ("ors", two_mb("return ", "a||", "1")),
        ("nullish", two_mb("return ", "a??", "1")),
        ("members", two_mb("return x", ".a", "")),
        ("optional members", two_mb("return x", "?.a", "")),
        ("calls", two_mb("return f", "()", "")),
        ("as", two_mb("return x", " as T", "")),
        ("satisfies", two_mb("return x", " satisfies T", "")),
        ("in", two_mb("return ", "a in ", "x")),
        ("instanceof", two_mb("return ", "a instanceof ", "x")),
        ("comma", two_mb("return (", "a,", "1)")),
        ("type assertions", two_mb("return ", "<T>", "x")),
        ("templates", two_mb("return `", "${`", "")),
        ("tagged templates", two_mb("return f", "``", "")),
        ("labels", two_mb("", "a:", "x")),
        ("ifs", two_mb("", "if(a)", "x")),
        ("else ifs", two_mb("if(a)x;", "else if(a)x;", "")),
        ("whiles", two_mb("", "while(a)", "x")),
        ("yield", two_mb("function* g() { ", "yield ", "1 }")),
        ("class extends", two_mb("return ", "class extends ", "X")),
        ("decorators", two_mb("", "@a ", "class X {}")),
        ("decorator calls", two_mb("", "@a() ", "class X {}")),
        ("keyof", two_mb("type T = ", "keyof ", "X")),
        ("readonly", two_mb("type T = ", "readonly ", "X[]")),
        ("typeof types", two_mb("let x: ", "typeof ", "y")),
        ("unions", two_mb("type T = ", "A|", "B")),
        ("leading unions", two_mb("type T = ", "|", "B")),
        ("intersections", two_mb("type T = ", "A&", "B")),
        ("function types", two_mb("type T = ", "()=>", "X")),
        ("array types", two_mb("let x: number", "[]", "")),
        (
            "conditional types",
            two_mb("type T = ", "A extends B ? ", "C : D"),
        ),
        (
            "infer",
            two_mb("type T = A extends ", "infer ", "U ? 1 : 2"),
        ),
        ("generic types", two_mb("let x: ", "A<", "1")),
        ("indexed types", two_mb("let x: T", "['a']", "")),
        ("object types", two_mb("let x: ", "{a:", "1")),
        ("regex division chain", two_mb("return 1", "/1", "")),
    ]
}

#[test]
fn two_megabytes_of_any_construct_end_as_a_syntax_failure_or_strip() {
    for (what, program) in constructs() {
        match strip_types(&program) {
            Ok(_) => {}
            Err(err) => assert_eq!(err.kind, FailureKind::Syntax, "{what}: {err:?}"),
        }
    }
}

engine_test! {
    async fn two_megabytes_of_unary_operators_are_a_syntax_failure_when_run() {
        // Shaping parses the program too; it must be bounded the same way.
        for (what, program) in constructs().into_iter().take(10) {
            let report = run(&program).await;
            let failure = failure(&report);
            assert_eq!(failure.kind, FailureKind::Syntax, "{what}: {failure:?}");
        }
    }
}
