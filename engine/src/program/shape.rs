//! The program shapes a model writes, turned into the body of one async function.
//!
//! Accepted, with the same result as the plain statement-body form:
//!
//! | written | becomes |
//! |---|---|
//! | one markdown fence around the program (```` ```ts ```` … ```` ``` ````), prose before and after it allowed; never a fence JavaScript reads inside a comment, string or template | the fence lines (and the prose) blanked |
//! | `import type …`, `export type …`, `export interface …` | erased |
//! | `export` / `export { a, b }` on local declarations | the keyword (or statement) blanked |
//! | `export default async function main() {…}` | the declaration, called if the program never calls it |
//! | `export default <expression>` (an anonymous function included) | bound, then returned (called if a function) |
//! | `export default class {…}` | bound (a class is never called) |
//! | a final `async () => {…}` or `function () {…}` expression | `return await (…)()` |
//! | an uncalled top-level `function main()` or `function run()` | a final `return await main();` |
//! | a final bare expression (`1 + 1`, `result`, `main()`) | `return …`, as a REPL shows it |
//!
//! The last three apply only to a program with no top-level `return` of its own. A value
//! `import`, `export … from`, `export =` or `import x = require(…)` is refused: programs are
//! not modules. Replacements keep the text's length and newlines; insertions are recorded in a
//! [`PositionMap`], so diagnostics point at the model's own lines and columns. Shaping also marks
//! each direct `tools.<name>(…)` call with where it is ([`super::sites`]).
//!
//! The program is parsed as a TypeScript module only to find these shapes (a module allows
//! `import`, `export` and top-level `await`; the `return`s it reports are expected). When it
//! does not parse, nothing is changed and the stripper reports the syntax error.

use swc_common::{sync::Lrc, BytePos, SourceMap, Spanned, GLOBALS};
use swc_ecma_ast::{DefaultDecl, Expr, ImportSpecifier, ModuleDecl, ModuleItem, Stmt, TsModuleRef};
use swc_ecma_parser::{lexer::Lexer, Parser, StringInput, Syntax, TsSyntax};

use super::{
    edit::{self, Edit},
    escapes,
    positions::PositionMap,
    sites,
};
use crate::{notes::Notes, FailureKind, RunFailure};

/// The name an `export default <expression>` is bound to (as long as `export default`).
const DEFAULT_BINDING: &str = "const __ptcd =";

/// A program in the plain statement-body form, and where its positions came from.
#[derive(Debug)]
pub(crate) struct Shaped {
    /// The program to strip and run.
    pub(crate) text: String,
    /// Its positions in terms of the program as written.
    pub(crate) map: PositionMap,
    /// What the program's text gets wrong that it runs anyway ([`escapes`]; none unmarked).
    pub(crate) notes: Notes,
}

/// Shape `source` (see the module docs), which runs after `lead` characters of the engine's
/// wrapper on its first line.
pub(crate) fn shape(source: &str, lead: usize) -> Result<Shaped, RunFailure> {
    shape_with(source, Some(lead))
}

/// Shape `source` for a static checker: the same shape, types kept and no call marked (a mark
/// is one more argument than a tool's declaration takes).
pub(crate) fn shape_unmarked(source: &str) -> Result<Shaped, RunFailure> {
    shape_with(source, None)
}

/// [`shape`] with the calls marked for a wrapper of `lead` characters, or none marked.
fn shape_with(source: &str, lead: Option<usize>) -> Result<Shaped, RunFailure> {
    let text = unfence(source);
    let mut map = PositionMap::new(source);
    let Some(module) = parse_module(&text) else {
        let notes = Notes::default();
        return Ok(Shaped { text, map, notes });
    };
    let mut edits = Vec::new();
    let mut appended = String::new();
    let mut default_entry = false;
    let mut statements = Vec::new();
    for item in &module.items {
        match item {
            ModuleItem::Stmt(stmt) => statements.push(stmt),
            ModuleItem::ModuleDecl(decl) => {
                module_decl(decl, &module, &text, &mut edits, &mut default_entry)?
            }
        }
    }
    let returns = statements.iter().any(|stmt| returns(stmt));
    if !returns {
        if default_entry {
            appended
                .push_str("\nreturn await (typeof __ptcd === \"function\" ? __ptcd() : __ptcd);");
        } else if let Some(call) = uncalled_entry(&module, &statements) {
            appended.push_str(&format!("\nreturn await {call}();"));
        } else if let Some(Stmt::Expr(last)) = statements.last() {
            let at = module.offset(last.expr.span().lo);
            let end = module.offset(last.expr.span().hi);
            if is_function(&last.expr) {
                edits.push(Edit::Insert(at, "return await ("));
                edits.push(Edit::Insert(end, ")()"));
            } else {
                edits.push(Edit::Insert(at, "return "));
            }
        }
    }
    let (sites, notes) = match lead {
        Some(_) => {
            let offset = |pos| module.offset(pos);
            let (notes, more) = escapes::notes(&module.items, &text, offset);
            let sites = sites::find(&module.items, offset);
            (sites, Notes::written(notes, more))
        }
        None => (Vec::new(), Notes::default()),
    };
    let mut text = edit::apply(&text, &mut map, edits, &sites, lead.unwrap_or(0));
    text.push_str(&appended);
    Ok(Shaped { text, map, notes })
}

/// Blank one markdown fence around the whole program (its opening and closing lines), or
/// else, when the program is prose around exactly one fenced block (```` ```ts ```` alone on
/// a line … ```` ``` ```` alone on a line), everything but the block's code. Blanking keeps
/// every position. A fence whose opening line JavaScript reads inside a comment, a string or a
/// template literal is left alone: the program is what its text says, and a fence in a
/// comment is commented out ([`super::nesting::starts_in_code`]).
fn unfence(source: &str) -> String {
    let lines: Vec<&str> = source.split('\n').collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return source.to_string();
    };
    let opens = lines[first].trim_start().starts_with("```");
    let (open, close) = if first != last && opens && lines[last].trim() == "```" {
        (first, last)
    } else {
        let fences: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].trim_start().starts_with("```"))
            .collect();
        let opening = |l: &str| {
            let info = l.trim().trim_start_matches("```");
            info.chars().all(|c| c.is_ascii_alphanumeric())
        };
        match fences[..] {
            [open, close] if opening(lines[open]) && lines[close].trim() == "```" => (open, close),
            _ => return source.to_string(),
        }
    };
    let open_at: usize = lines[..open].iter().map(|line| line.len() + 1).sum();
    if !super::nesting::starts_in_code(source, open_at) {
        return source.to_string();
    }
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| match i <= open || i >= close {
            true => " ".repeat(line.len()),
            false => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The parsed module and the offset of its text in swc's source map.
struct Parsed {
    items: Vec<ModuleItem>,
    start: BytePos,
}

impl Parsed {
    /// The byte offset in the text of `pos`.
    fn offset(&self, pos: BytePos) -> usize {
        (pos - self.start).0 as usize
    }
}

fn parse_module(text: &str) -> Option<Parsed> {
    GLOBALS.set(&Default::default(), || {
        let cm: Lrc<SourceMap> = Default::default();
        let file = cm.new_source_file(Lrc::new(swc_common::FileName::Anon), text.to_string());
        let lexer = Lexer::new(
            Syntax::Typescript(TsSyntax::default()),
            Default::default(),
            StringInput::from(&*file),
            None,
        );
        let mut parser = Parser::new_from(lexer);
        let module = parser.parse_module().ok()?;
        Some(Parsed {
            items: module.body,
            start: file.start_pos,
        })
    })
}

/// The edits for one `import` or `export`; `Err` for those a program cannot have.
fn module_decl(
    decl: &ModuleDecl,
    module: &Parsed,
    text: &str,
    edits: &mut Vec<Edit>,
    default_entry: &mut bool,
) -> Result<(), RunFailure> {
    let span = decl.span();
    let (start, end) = (module.offset(span.lo), module.offset(span.hi));
    let not_a_module = |what: &str| {
        let (line, col) = line_col(text, start);
        RunFailure::new(
            FailureKind::Syntax,
            format!(
                "{line}:{col} {what} cannot run: a program is not a module and loads nothing; \
                 call tools.* directly (type-only imports are fine)"
            ),
        )
    };
    match decl {
        ModuleDecl::Import(import) => {
            let types_only = import.type_only
                || (!import.specifiers.is_empty()
                    && import
                        .specifiers
                        .iter()
                        .all(|s| matches!(s, ImportSpecifier::Named(n) if n.is_type_only)));
            if !types_only {
                return Err(not_a_module("this import"));
            }
            edits.push(Edit::Blank(start, end));
        }
        ModuleDecl::ExportDecl(export) => {
            edits.push(Edit::Blank(start, module.offset(export.decl.span().lo)));
        }
        ModuleDecl::ExportNamed(named) if named.src.is_none() || named.type_only => {
            edits.push(Edit::Blank(start, end));
        }
        ModuleDecl::ExportDefaultDecl(export) => {
            let body = module.offset(export.decl.span().lo);
            match &export.decl {
                DefaultDecl::Fn(f) if f.ident.is_none() => {
                    edits.push(Edit::Replace(start, body, DEFAULT_BINDING));
                    *default_entry = true;
                }
                // A class needs a name to be a statement; bound, it is an ordinary value.
                DefaultDecl::Class(c) if c.ident.is_none() => {
                    edits.push(Edit::Replace(start, body, DEFAULT_BINDING));
                }
                _ => edits.push(Edit::Blank(start, body)),
            }
        }
        ModuleDecl::ExportDefaultExpr(export) => {
            let body = module.offset(export.expr.span().lo);
            edits.push(Edit::Replace(start, body, DEFAULT_BINDING));
            *default_entry = true;
        }
        ModuleDecl::TsImportEquals(import) if import.is_type_only => {
            edits.push(Edit::Blank(start, end))
        }
        ModuleDecl::TsImportEquals(import) => {
            return Err(not_a_module(match import.module_ref {
                TsModuleRef::TsExternalModuleRef(_) => "this require",
                TsModuleRef::TsEntityName(_) => "this import",
            }))
        }
        ModuleDecl::TsNamespaceExport(_) => edits.push(Edit::Blank(start, end)),
        ModuleDecl::ExportNamed(_) | ModuleDecl::ExportAll(_) => {
            return Err(not_a_module("this re-export"))
        }
        ModuleDecl::TsExportAssignment(_) => return Err(not_a_module("`export =`")),
    }
    Ok(())
}

/// Whether `stmt` returns from the program (a `return` not inside a nested function).
fn returns(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Return(_) => true,
        Stmt::Block(b) => b.stmts.iter().any(returns),
        Stmt::If(s) => returns(&s.cons) || s.alt.as_deref().is_some_and(returns),
        Stmt::Labeled(s) => returns(&s.body),
        Stmt::While(s) => returns(&s.body),
        Stmt::DoWhile(s) => returns(&s.body),
        Stmt::For(s) => returns(&s.body),
        Stmt::ForIn(s) => returns(&s.body),
        Stmt::ForOf(s) => returns(&s.body),
        Stmt::With(s) => returns(&s.body),
        Stmt::Switch(s) => s.cases.iter().any(|c| c.cons.iter().any(returns)),
        Stmt::Try(s) => {
            s.block.stmts.iter().any(returns)
                || s.handler
                    .as_ref()
                    .is_some_and(|h| h.body.stmts.iter().any(returns))
                || s.finalizer
                    .as_ref()
                    .is_some_and(|f| f.stmts.iter().any(returns))
        }
        _ => false,
    }
}

/// The entry function to call at the end: a top-level `main` or `run` declaration the program
/// never mentions again (its name is used nowhere but in its declaration), when the program
/// does nothing after declaring it.
fn uncalled_entry(module: &Parsed, statements: &[&Stmt]) -> Option<String> {
    let last_is_expression = matches!(statements.last(), Some(Stmt::Expr(_)));
    if last_is_expression {
        return None;
    }
    let declared = module.items.iter().filter_map(|item| match item {
        ModuleItem::Stmt(Stmt::Decl(swc_ecma_ast::Decl::Fn(f))) => Some(f.ident.sym.to_string()),
        ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(e)) => match &e.decl {
            swc_ecma_ast::Decl::Fn(f) => Some(f.ident.sym.to_string()),
            _ => None,
        },
        ModuleItem::ModuleDecl(ModuleDecl::ExportDefaultDecl(e)) => match &e.decl {
            DefaultDecl::Fn(f) => f.ident.as_ref().map(|i| i.sym.to_string()),
            _ => None,
        },
        _ => None,
    });
    declared
        .filter(|name| name == "main" || name == "run")
        .find(|name| uses(&module.items, name) == 1)
}

/// How often the identifier `name` occurs in `items` (its declaration included; property
/// names and strings are not identifiers).
fn uses(items: &[ModuleItem], name: &str) -> usize {
    struct Count<'a> {
        name: &'a str,
        seen: usize,
    }
    impl swc_ecma_visit::Visit for Count<'_> {
        fn visit_ident(&mut self, ident: &swc_ecma_ast::Ident) {
            if &*ident.sym == self.name {
                self.seen += 1;
            }
        }
    }
    let mut count = Count { name, seen: 0 };
    for item in items {
        swc_ecma_visit::VisitWith::visit_with(item, &mut count);
    }
    count.seen
}

/// Whether `expr` (parentheses aside) is a function or arrow function expression.
fn is_function(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => is_function(&p.expr),
        Expr::Arrow(_) | Expr::Fn(_) => true,
        _ => false,
    }
}

/// The 1-based line and column (in characters) of byte offset `at` in `text`.
pub(crate) fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::shape;

    fn shaped(source: &str) -> String {
        shape(source, 0).unwrap().text
    }

    #[test]
    fn shapes_become_a_function_body() {
        assert_eq!(shaped("1 + 1"), "return 1 + 1");
        assert_eq!(shaped("return 1;\n2"), "return 1;\n2");
        assert_eq!(shaped("async () => 1;"), "return await (async () => 1)();");
        assert_eq!(
            shaped("async function main() { return 1 }"),
            "async function main() { return 1 }\nreturn await main();"
        );
        assert_eq!(
            shaped("async function main() { return 1 }\nawait main();"),
            "async function main() { return 1 }\nreturn await main();"
        );
        assert_eq!(
            shaped("export const a = 1;\nexport default a"),
            "       const a = 1;\nconst __ptcd = a\nreturn await (typeof __ptcd === \"function\" ? __ptcd() : __ptcd);"
        );
        assert_eq!(
            shaped("import type { A } from 'x';\nreturn 1"),
            "                           \nreturn 1"
        );
        assert_eq!(shaped("```ts\nreturn 1\n```"), "     \nreturn 1\n   ");
        assert_eq!(
            shaped("Here:\n```ts\nreturn 1\n```\nDone."),
            "     \n     \nreturn 1\n   \n     "
        );
        // Two fenced blocks, or backticks inside the code, are left alone.
        let two = "```ts\nreturn 1\n```\nor\n```ts\nreturn 2\n```\nok";
        assert!(
            shaped(two).starts_with("```ts\nreturn 1\n```\nor\n```ts"),
            "{two}"
        );
        assert!(shape("import fs from 'fs'", 0).is_err());
        assert_eq!(
            shaped("export default class { x = 1 }"),
            "const __ptcd = class { x = 1 }"
        );
        assert_eq!(
            shaped("async function main() { return 'main ran' }"),
            "async function main() { return 'main ran' }\nreturn await main();"
        );
    }
}
