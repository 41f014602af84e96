//! Call sites known before a run: each `tools.<name>(…)` written in the program says where it is.
//!
//! An engine can tell where a running call was made only by taking a stack trace, which costs
//! more than the rest of a sub-call (QuickJS formats it as it takes it). So shaping marks the
//! direct calls: `tools.add(x)` runs as `tools.add(x,-<line × 2²⁴ + col>)`, one more argument, a
//! negative integer naming where `add` is in the running program (the position the engines report
//! for a call, with the column counted in characters), and the glue takes that as the call's trace
//! ([`MARK_BASE`]; a number is checked and kept for a fraction of what a string costs). A call that is not marked
//! (through an alias, `tools[name](…)`, `?.`, a spread or several arguments, past
//! [`MAX_MARKED`]) still takes a trace of the frames below the tool.
//!
//! A mark changes nothing else a program can see, because `tools` is the glue's frozen object
//! whose functions read one argument: a program that declares or assigns anything named `tools`
//! (or uses `with`) is not marked at all. A program may pass such a number itself; it then
//! only misplaces its own call's site.

use swc_common::Spanned;
use swc_ecma_ast::{
    BindingIdent, CallExpr, Callee, ClassDecl, ClassExpr, Expr, FnDecl, FnExpr, MemberProp,
    ModuleItem, UpdateExpr, WithStmt,
};
use swc_ecma_visit::{Visit, VisitWith};

/// The most calls one program has marked; the rest take traces. Each mark adds about a dozen
/// bytes to the running program.
pub(super) const MAX_MARKED: usize = 10_000;

/// A mark is `-(line × MARK_BASE + col)`: every mark is below `-MARK_BASE` (lines start at 1),
/// columns stay below it (a program is at most 10 MiB), and every mark is an exact double.
pub(crate) const MARK_BASE: u64 = 1 << 24;

/// The global a program calls tools through.
const TOOLS: &str = "tools";

/// One direct tool call, at byte offsets of the text it was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Site {
    /// Where the tool's name starts (`add` in `tools.add(x)`).
    pub(super) name: usize,
    /// Where the mark goes: after the argument, or before `)` when there is none.
    pub(super) mark: usize,
    /// Whether the call has no argument (the mark then follows `void 0,`).
    pub(super) bare: bool,
}

/// The text inserted at [`Site::mark`] for a call whose name is at `line:col` of the running
/// program.
pub(super) fn mark(site: &Site, line: usize, col: usize) -> String {
    let argument = if site.bare { "void 0" } else { "" };
    let mark = line as u64 * MARK_BASE + col as u64;
    format!("{argument},-{mark}")
}

/// The `line:col` a call's mark names, if `value` is one.
pub(crate) fn marked_site(value: f64) -> Option<String> {
    let mark = -value;
    if !(mark > MARK_BASE as f64 && mark < (1u64 << 53) as f64 && mark.fract() == 0.0) {
        return None;
    }
    let mark = mark as u64;
    Some(format!("{}:{}", mark / MARK_BASE, mark % MARK_BASE))
}

/// The direct tool calls in `items` (none when the program may mean another `tools`), with
/// `offset` turning a position into a byte offset of the text.
pub(super) fn find(
    items: &[ModuleItem],
    offset: impl Fn(swc_common::BytePos) -> usize,
) -> Vec<Site> {
    let mut finder = Finder {
        offset,
        sites: Vec::new(),
        own_tools: false,
    };
    for item in items {
        item.visit_with(&mut finder);
        if finder.own_tools {
            return Vec::new();
        }
    }
    finder.sites
}

struct Finder<F> {
    offset: F,
    sites: Vec<Site>,
    /// The program binds or assigns a `tools` of its own, or uses `with`.
    own_tools: bool,
}

impl<F: Fn(swc_common::BytePos) -> usize> Finder<F> {
    fn binds(&mut self, name: &str) {
        if name == TOOLS {
            self.own_tools = true;
        }
    }
}

impl<F: Fn(swc_common::BytePos) -> usize> Visit for Finder<F> {
    fn visit_call_expr(&mut self, call: &CallExpr) {
        call.visit_children_with(self);
        if self.sites.len() >= MAX_MARKED || call.args.len() > 1 {
            return;
        }
        let Callee::Expr(callee) = &call.callee else {
            return;
        };
        let Expr::Member(member) = &**callee else {
            return;
        };
        let (Expr::Ident(object), MemberProp::Ident(name)) = (&*member.obj, &member.prop) else {
            return;
        };
        if &*object.sym != TOOLS {
            return;
        }
        let mark = match call.args.first() {
            Some(arg) if arg.spread.is_some() => return,
            Some(arg) => (self.offset)(arg.expr.span().hi),
            // The call ends with its `)`.
            None => (self.offset)(call.span.hi) - 1,
        };
        self.sites.push(Site {
            name: (self.offset)(name.span.lo),
            mark,
            bare: call.args.is_empty(),
        });
    }

    fn visit_binding_ident(&mut self, ident: &BindingIdent) {
        self.binds(&ident.id.sym);
    }

    fn visit_fn_decl(&mut self, decl: &FnDecl) {
        self.binds(&decl.ident.sym);
        decl.visit_children_with(self);
    }

    fn visit_fn_expr(&mut self, expr: &FnExpr) {
        if let Some(ident) = &expr.ident {
            self.binds(&ident.sym);
        }
        expr.visit_children_with(self);
    }

    fn visit_class_decl(&mut self, decl: &ClassDecl) {
        self.binds(&decl.ident.sym);
        decl.visit_children_with(self);
    }

    fn visit_class_expr(&mut self, expr: &ClassExpr) {
        if let Some(ident) = &expr.ident {
            self.binds(&ident.sym);
        }
        expr.visit_children_with(self);
    }

    fn visit_update_expr(&mut self, expr: &UpdateExpr) {
        if let Expr::Ident(ident) = &*expr.arg {
            self.binds(&ident.sym);
        }
        expr.visit_children_with(self);
    }

    fn visit_with_stmt(&mut self, _: &WithStmt) {
        self.own_tools = true;
    }
}

#[cfg(test)]
mod tests {
    use super::{marked_site, MARK_BASE, MAX_MARKED};
    use crate::program::shape::shape;

    fn shaped(source: &str) -> String {
        shape(source, 0).unwrap().text
    }

    /// The mark of a call whose name runs at `line:col`.
    fn m(line: u64, col: u64) -> String {
        format!("-{}", line * MARK_BASE + col)
    }

    #[test]
    fn direct_calls_are_marked_with_where_their_name_runs() {
        assert_eq!(
            shaped("const r = await tools.add({ a: 1 })\nreturn r"),
            format!(
                "const r = await tools.add({{ a: 1 }},{})\nreturn r",
                m(1, 23)
            )
        );
        // A bare call gets `void 0` for its argument; a trailing comma stays after the mark; a
        // later call on the line is named where it runs, after the earlier mark.
        assert_eq!(
            shaped("await tools.a(), await tools.b(x,);"),
            format!(
                "return await tools.a(void 0,{}), await tools.b(x,{},);",
                m(1, 20),
                m(1, 53)
            )
        );
        // Nested calls are each marked; a final expression gets its `return` first.
        assert_eq!(
            shaped("tools.a(await tools.b(1))"),
            format!("return tools.a(await tools.b(1,{}),{})", m(1, 28), m(1, 14))
        );
        // Columns count characters.
        assert_eq!(
            shaped("const é = '日本'; await tools.a(1);\nreturn 1"),
            format!("const é = '日本'; await tools.a(1,{});\nreturn 1", m(1, 29))
        );
        // A mark reads back as its site; other numbers are not marks.
        assert_eq!(
            marked_site(-((3 * MARK_BASE + 7) as f64)).as_deref(),
            Some("3:7")
        );
        for other in [
            -1.0,
            0.0,
            5.0,
            -(MARK_BASE as f64),
            -1.5e300,
            f64::NAN,
            -((2 * MARK_BASE) as f64 + 0.5),
        ] {
            assert_eq!(marked_site(other), None, "{other}");
        }
    }

    #[test]
    fn calls_that_could_mean_something_else_are_not_marked() {
        for source in [
            "await t.a(1)",
            "await tools['a'](1)",
            "await tools?.a(1)",
            "await tools.a?.(1)",
            "await tools.a(...xs)",
            "await tools.a(1, 2)",
            "new tools.a(1)",
            "await tools.a.b(1)",
        ] {
            let source = format!("{source};\nreturn 1");
            assert_eq!(shaped(&source), source);
        }
        // A program with a `tools` of its own, anywhere, or a `with`, is not marked at all.
        for own in [
            "const tools = { a: (...x) => x.length };",
            "function f(tools) {}",
            "function tools() {}",
            "class tools {}",
            "(function tools() {});",
            "try {} catch (tools) {}",
            "tools = { a: () => 1 };",
            "({ tools } = globalThis);",
            "tools++;",
            "with ({}) {}",
        ] {
            let source = format!("{own}\nawait tools.a(1);\nreturn 1");
            assert_eq!(shaped(&source), source, "{own}");
        }
    }

    #[test]
    fn past_the_most_marked_calls_trace_the_rest() {
        let source = "tools.a(1);\n".repeat(MAX_MARKED + 1) + "return 1";
        let text = shaped(&source);
        assert_eq!(text.matches(",-").count(), MAX_MARKED);
        assert!(
            text.ends_with("\ntools.a(1);\nreturn 1"),
            "the last call is left as written"
        );
    }
}
