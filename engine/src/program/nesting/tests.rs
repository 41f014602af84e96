//! The nesting estimate on the shapes it must count, and the text it must not.

use super::estimate;

fn depth(source: &str) -> usize {
    estimate(source).depth
}

#[test]
fn flat_programs_stay_shallow() {
    let lines: String = (0..2_000)
        .map(|i| format!("const x{i} = await tools.add({{ a: {i}, b: x{i} + 1 }})\n"))
        .collect();
    assert!(depth(&lines) < 20, "{}", depth(&lines));
    let semis: String = (0..2_000).map(|i| format!("x = a{i} + b * c;")).collect();
    assert!(depth(&semis) < 10, "{}", depth(&semis));
    let list = format!("return [{}]", vec!["1 + 2"; 5_000].join(", "));
    assert!(depth(&list) < 10, "{}", depth(&list));
    let blocks: String = (0..2_000)
        .map(|i| format!("if (a{i} > 1) {{ b = 2 }}\nfor (const x of y) {{ z(x) }}\n"))
        .collect();
    assert!(depth(&blocks) < 20, "{}", depth(&blocks));
    let comparisons = format!("return {}", vec!["a === 1 || b !== 2"; 100].join(" || "));
    assert!(depth(&comparisons) < 1_000, "{}", depth(&comparisons));
    let generics = "let m: Map<string, Array<{ a: number }>> = new Map();\n".repeat(1_000);
    assert!(depth(&generics) < 20, "{}", depth(&generics));
}

#[test]
fn every_kind_of_nesting_counts() {
    let n = 2_000;
    for program in [
        format!("return {}1{}", "(".repeat(n), ")".repeat(n)),
        format!("return {}{}", "[".repeat(n), "]".repeat(n)),
        format!("return {}", "1+".repeat(n) + "1"),
        format!("return x{}", ".a".repeat(n)),
        format!("return f{}", "()".repeat(n)),
        format!("return x{}", "[0]".repeat(n)),
        format!("return {}1", "- ".repeat(n)),
        format!("return {}1", "a?b:".repeat(n)),
        format!("{}x", "if(a)".repeat(n)),
        format!("if(a){{}}{}", "else if(a){}".repeat(n)),
        format!("if(a) x;{}", "else if(a) x;".repeat(n)),
        format!("return {}1", "()=>".repeat(n)),
        format!("let x: {}number{} = 1", "Array<".repeat(n), ">".repeat(n)),
        format!("let x: {}number{} = 1", "A<x, ".repeat(n), ">".repeat(n)),
        format!("return {}1{}", "{a:".repeat(n), "}".repeat(n)),
        format!("return `{}{}`", "${`".repeat(n), "`}".repeat(n)),
        format!("{}{}", "{".repeat(n), "}".repeat(n)),
        format!("return a{}", "\n+ 1".repeat(n)),
        format!("return {}", "await ".repeat(n) + "1"),
        format!("{}x", "a: ".repeat(n)),
        format!("return {}", "new ".repeat(n) + "X"),
        // A run of operator characters holds one prefix operator per character.
        format!("return {}1", "!".repeat(n)),
        format!("return {}1", "~-+!".repeat(n)),
        format!("return x{}", "!".repeat(n)),
        format!("return [{}x]", "...".repeat(n)),
    ] {
        assert!(
            depth(&program) >= n,
            "{} … → {}",
            &program[..40],
            depth(&program)
        );
    }
}

#[test]
fn text_that_looks_like_brackets_is_not_code() {
    let n = 5_000;
    for program in [
        format!("return '{}'", "(".repeat(n)),
        format!("return \"{}\"", "[".repeat(n)),
        format!("// {}\nreturn 1", "{".repeat(n)),
        format!("/* {} */ return 1", "(".repeat(n)),
        format!("return `{}`", "{".repeat(n)),
        format!("return /{}/.test(s)", "\\(".repeat(n)),
        format!("if (x) /{}/.test(s)", "[(]".repeat(n)),
        format!(
            "x.y = 1; for (const m of s.match(/{}/g)) {{}}",
            "\\(".repeat(n)
        ),
    ] {
        let nesting = estimate(&program);
        assert!(
            nesting.depth < 10,
            "{} … → {}",
            &program[..30],
            nesting.depth
        );
        assert_eq!(nesting.ambiguous, None, "{}", &program[..30]);
    }
}

#[test]
fn a_slash_that_could_hide_structure_is_ambiguous() {
    for program in [
        "function f() {} /)))/.test(s)",
        "function* g() { yield /((/ }",
        "function f() { await / (1) / 2 }",
        "for (const x of /[(]/.exec(s)) {}",
    ] {
        assert!(estimate(program).ambiguous.is_some(), "{program}");
    }
    for program in [
        "function f() {} /abc/.test(s)",
        "x = {} / 2",
        "let of = 4; return of / 2",
        "x.if(a) / (b)",
        "this.#if(a) / (b)",
        "let as = 1; return as / (2)",
    ] {
        assert_eq!(estimate(program).ambiguous, None, "{program}");
    }
}

#[test]
fn closers_that_do_not_match_close_nothing() {
    let program = format!("{}{}{}", "(".repeat(600), "]".repeat(600), "(".repeat(600));
    assert!(depth(&program) >= 1_200, "{}", depth(&program));
}
