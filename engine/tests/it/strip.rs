//! Type stripping: positions kept, non-erasable syntax rejected with its position.

use crate::common;

use common::{run, TestHost};
use ptc_engine::{strip_types, FailureKind};

#[test]
fn strip_keeps_every_line_and_column() {
    let ts = "const a: number = 1;\nfunction f<T>(x: T): T { return x }\nlet b = a as unknown as string;\ninterface I { x: number }\ntype U = I | null;\nreturn f<number>(a);";
    let js = strip_types(ts).unwrap();
    assert_eq!(js.len(), ts.len());
    assert_eq!(js.lines().count(), ts.lines().count());
    for (ts_line, js_line) in ts.lines().zip(js.lines()) {
        assert_eq!(ts_line.len(), js_line.len(), "{ts_line:?} vs {js_line:?}");
    }
    assert!(js.starts_with("const a         = 1;\n"), "{js}");
    assert!(!js.contains("interface"), "{js}");
}

#[test]
fn strip_allows_top_level_await_and_return() {
    let js = strip_types("const r: string = await tools.echo({});\nreturn r;").unwrap();
    assert_eq!(js, "const r         = await tools.echo({});\nreturn r;");
}

#[test]
fn enum_is_a_syntax_error_with_line_and_column() {
    let err = strip_types("const a = 1;\n\n   enum Color { Red }\nreturn a;").unwrap_err();
    assert_eq!(err.kind, FailureKind::Syntax);
    assert!(err.message.starts_with("3:4 "), "{}", err.message);
}

#[test]
fn enum_on_the_first_line_points_into_the_users_code() {
    let err = strip_types("enum E { A }").unwrap_err();
    assert_eq!(err.kind, FailureKind::Syntax);
    assert!(err.message.starts_with("1:1 "), "{}", err.message);
}

#[test]
fn namespaces_with_values_and_parameter_properties_are_syntax_errors() {
    let err = strip_types("namespace N { export const x = 1 }").unwrap_err();
    assert_eq!(err.kind, FailureKind::Syntax, "{err:?}");
    assert!(err.message.starts_with("1:"), "{}", err.message);
    let err = strip_types("class A {\n  constructor(private x: number) {}\n}").unwrap_err();
    assert_eq!(err.kind, FailureKind::Syntax, "{err:?}");
    assert!(err.message.starts_with("2:"), "{}", err.message);
}

#[test]
fn parse_errors_carry_their_position() {
    let err = strip_types("const a = 1;\nconst = 2;").unwrap_err();
    assert_eq!(err.kind, FailureKind::Syntax);
    assert!(err.message.starts_with("2:7 "), "{}", err.message);
}

#[test]
fn an_unterminated_program_points_at_its_own_last_line() {
    let err = strip_types("const a = [1,\n  2").unwrap_err();
    assert_eq!(err.kind, FailureKind::Syntax);
    let (line, _) = err.message.split_once(':').unwrap();
    assert_eq!(line, "2", "{}", err.message);
}

engine_test! {
    async fn a_program_that_does_not_strip_never_reaches_the_host() {
        // The integrator strips first; a failure there means no program and no call.
        let host = TestHost::new();
        let stripped = strip_types("await tools.echo({});\nenum E { A }");
        assert_eq!(stripped.unwrap_err().kind, FailureKind::Syntax);
        assert!(host.calls().is_empty());
        // And a stripped program keeps its positions at run time.
        let report = run("const x: number = 1;\n  throw new Error('boom: ' + x)").await;
        let failure = report.outcome.unwrap_err();
        assert!(
            failure.message.contains("run_code.ts:2:"),
            "{}",
            failure.message
        );
    }
}

/// Programs that nest each construct `n` levels deep.
fn nested(n: usize) -> Vec<(&'static str, String)> {
    vec![
        (
            "parens",
            format!("return {}1{}", "(".repeat(n), ")".repeat(n)),
        ),
        (
            "arrays",
            format!("return {}{}", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "objects",
            format!("return {}1{}", "{a:".repeat(n), "}".repeat(n)),
        ),
        ("blocks", format!("{}{}", "{".repeat(n), "}".repeat(n))),
        ("sums", format!("return {}1", "1+".repeat(n))),
        ("members", format!("return x{}", ".a".repeat(n))),
        ("calls", format!("return f{}", "()".repeat(n))),
        ("unary", format!("return {}1", "- ".repeat(n))),
        ("ternaries", format!("return {}1", "a?b:".repeat(n))),
        ("ifs", format!("{}x", "if(a)".repeat(n))),
        ("else ifs", format!("if(a){{}}{}", "else if(a){}".repeat(n))),
        ("arrows", format!("return {}1", "()=>".repeat(n))),
        (
            "generics",
            format!("let x: {}number{} = 1", "Array<".repeat(n), ">".repeat(n)),
        ),
        (
            "templates",
            format!("return `{}{}`", "${`".repeat(n), "`}".repeat(n)),
        ),
        ("awaits", format!("return {}1", "await ".repeat(n))),
    ]
}

#[test]
fn deeply_nested_programs_are_refused_before_they_reach_the_parser() {
    for n in [1_500, 5_000, 100_000] {
        for (what, program) in nested(n) {
            let err = strip_types(&program).unwrap_err();
            assert_eq!(err.kind, FailureKind::Syntax, "{what} × {n}: {err:?}");
            assert!(
                err.message.contains("nests deeper than 1000 levels"),
                "{what} × {n}: {}",
                err.message
            );
            assert!(err.message.starts_with("1:"), "{what}: {}", err.message);
        }
    }
}

#[test]
fn programs_nested_up_to_the_limit_still_strip() {
    // Deep enough to need the stripping thread's stack, shallow enough to pass the estimate.
    for (what, program) in nested(200) {
        if let Err(err) = strip_types(&program) {
            // A few constructs are not valid JavaScript this way round; they must fail cleanly.
            assert!(
                !err.message.contains("nests deeper"),
                "{what}: {}",
                err.message
            );
        }
    }
    let parens = format!("return {}1{}", "(".repeat(950), ")".repeat(950));
    assert_eq!(strip_types(&parens).unwrap(), parens);
}

#[test]
fn a_slash_that_could_hide_brackets_must_be_disambiguated() {
    let err = strip_types("function f() {}\nfunction g() {} /(((/.test(s)").unwrap_err();
    assert_eq!(err.kind, FailureKind::Syntax);
    assert!(
        err.message
            .starts_with("2:17 this `/` could start a regular expression"),
        "{}",
        err.message
    );
    // Regexes in ordinary places need nothing.
    strip_types("if (x) /[(]/.test(s);\nconst r = /\\(/g;\nreturn s.replace(/[{}]/g, '')").unwrap();
}

#[test]
fn programs_over_the_size_limit_are_refused() {
    let program = format!("return 1;{}", " ".repeat(ptc_engine::MAX_PROGRAM_BYTES));
    let err = strip_types(&program).unwrap_err();
    assert_eq!(err.kind, FailureKind::Syntax);
    assert!(
        err.message.contains("programs may be at most"),
        "{}",
        err.message
    );
}
