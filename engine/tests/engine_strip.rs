//! Type stripping: positions kept, non-erasable syntax rejected with its position.

#[macro_use]
mod common;

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
