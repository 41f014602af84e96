//! Line endings, byte order marks and final newlines across the file tools: `grep`'s `$`
//! before CRLF, `edit` refusing an edit that changes nothing, `write` keeping a file's form
//! and saying so in a program, `read` leaving a BOM out of line 1 with a note, and a file of
//! mixed line endings said to be one by read, write and edit.

use crate::builtin_support;

use builtin_support::{match_sites, Fixture};
use serde_json::{json, Value};

#[tokio::test]
async fn grep_anchors_dollar_before_crlf_and_drops_the_cr_from_the_text() {
    let f = Fixture::new();
    f.file("win.ts", "let a = 1;\r\nlet b = 2\r\nlet c = 3;\r\n");
    f.file("unix.ts", "let d = 4;\n");
    let v = f
        .call("grep", json!({"pattern": ";$"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["unix.ts:1", "win.ts:1", "win.ts:3"]);
    assert_eq!(v["matches"][1]["text"], "let a = 1;");
    let v = f
        .call("grep", json!({"pattern": r"^let \w = \d$"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["win.ts:2"]);
    // A pattern for the CR itself cannot match: the refusal says how to find CRLF files.
    let out = f.call("grep", json!({"pattern": r"\r$"})).await;
    assert!(
        out.error()
            .contains("to list the files with CRLF endings, run bash `grep -rlI $'\\r' .`"),
        "{}",
        out.error()
    );
}

#[tokio::test]
async fn edit_refuses_crlf_to_lf_as_a_change_that_changes_nothing() {
    let f = Fixture::new();
    f.file("app.ini", "a=1\r\nb=2\r\n");
    for old in ["\r\n", "a=1\r\n"] {
        let new = old.replace("\r\n", "\n");
        let out = f
            .call(
                "edit",
                json!({"file_path": "app.ini", "old_string": old, "new_string": new, "replace_all": true}),
            )
            .await;
        let err = out.error();
        assert!(
            err.contains("`app.ini` has CRLF line endings")
                && err.contains("would leave the file unchanged; nothing was changed")
                && err.contains("sed -i 's/\\r$//' FILE"),
            "{err}"
        );
        assert_eq!(out.code(), Some("INVALID_ARGS"));
    }
    assert_eq!(f.read("app.ini"), "a=1\r\nb=2\r\n");
}

#[tokio::test]
async fn write_in_a_program_says_what_the_replaced_file_kept() {
    let f = Fixture::new();
    f.file("app.ini", "a=1\r\nb=2\r\n");
    f.file("plain.txt", "x\n");
    let out = f
        .call_in_program(
            "run",
            1,
            "write",
            json!({"file_path": "app.ini", "content": "A=1\nB=2"}),
        )
        .await;
    assert_eq!(
        out.note(),
        Some(
            "`app.ini` kept its CRLF line endings (the content's \\n written as \\r\\n; exact: \
             true writes LF), final newline (one added)"
        )
    );
    assert_eq!(f.read("app.ini"), "A=1\r\nB=2\r\n");
    // Content in the file's own form: nothing to say.
    let out = f
        .call_in_program(
            "run",
            2,
            "write",
            json!({"file_path": "plain.txt", "content": "y\n"}),
        )
        .await;
    assert_eq!(out.note(), None);
    assert_eq!(f.read("plain.txt"), "y\n");
}

#[tokio::test]
async fn read_shows_line_one_without_its_bom_and_write_puts_it_back_once() {
    let f = Fixture::new();
    f.file("bom.csv", "\u{FEFF}id,name\n1,a\n");
    let out = f
        .call_in_program("run", 1, "read", json!({"file_path": "bom.csv"}))
        .await;
    let v = out.value();
    assert_eq!(v["lines"][0]["text"], "id,name");
    let said =
        "`bom.csv` starts with a UTF-8 byte order mark, not in line 1's text (write keeps it)";
    assert_eq!(out.note(), Some(said));
    assert_eq!(v["note"], said);
    let out = f
        .call_in_program(
            "run",
            2,
            "write",
            json!({"file_path": "bom.csv", "content": "ID,NAME\n1,a\n"}),
        )
        .await;
    assert_eq!(
        out.note(),
        Some("`bom.csv` kept its UTF-8 byte order mark (put back before the content; exact: true drops it)")
    );
    assert_eq!(f.read("bom.csv"), "\u{FEFF}ID,NAME\n1,a\n");
    // Content that has the BOM already: written as given, no second one.
    f.call_in_program("run", 3, "read", json!({"file_path": "bom.csv"}))
        .await;
    let out = f
        .call_in_program(
            "run",
            4,
            "write",
            json!({"file_path": "bom.csv", "content": "\u{FEFF}id\n"}),
        )
        .await;
    assert_eq!(out.note(), None);
    assert_eq!(f.read("bom.csv"), "\u{FEFF}id\n");
    // A window past line 1 says nothing of it.
    let out = f
        .call("read", json!({"file_path": "bom.csv", "offset": 2}))
        .await;
    assert_eq!(out.value()["note"], Value::Null);
}

/// A CSV as Python's csv module writes it: rows end in CRLF, a quoted field holds an LF.
const MIXED: &str = "id,note\r\n1,\"two\nlines\"\r\n2,plain\r\n";

#[tokio::test]
async fn a_file_of_mixed_line_endings_is_said_to_be_one_by_read_write_and_edit() {
    let f = Fixture::new();
    f.file("rows.csv", MIXED);
    let out = f
        .call_in_program("run", 1, "read", json!({"file_path": "rows.csv"}))
        .await;
    let said = "`rows.csv` has both CRLF (3) and LF (1) line endings, which read does not \
                show: write and edit keep only the endings written (`\\r\\n` where a line ends \
                in CRLF; or change the file with bash)";
    assert_eq!(out.note(), Some(said));
    assert_eq!(out.value()["note"], said);
    // An edit across a CRLF written as `\n` does not match, and says why.
    let out = f
        .call(
            "edit",
            json!({"file_path": "rows.csv", "old_string": "lines\"\n2,plain", "new_string": "x"}),
        )
        .await;
    assert!(
        out.error()
            .contains("Its lines end in CRLF (3) and LF (1), which read does not show"),
        "{}",
        out.error()
    );
    // Content with LF alone replaces it as given, and the write says what became of the CRLFs.
    let out = f
        .call_in_program(
            "run",
            2,
            "write",
            json!({"file_path": "rows.csv", "content": "id,note\n2,plain\n"}),
        )
        .await;
    assert_eq!(
        out.note(),
        Some(
            "`rows.csv` had both CRLF (3) and LF (1) line endings: written with the content's \
             LF alone (`\\r\\n` where a line should end in CRLF)"
        )
    );
    assert_eq!(f.read("rows.csv"), "id,note\n2,plain\n");
}

#[tokio::test]
async fn lines_ending_in_cr_alone_are_said_by_read_and_grep() {
    let f = Fixture::new();
    f.file("mac.csv", "sku,qty\rS1,0\rS2,2\rS3,0\r");
    let read = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "mac.csv"}))
        .await;
    assert_eq!(read.value()["total_lines"], 1);
    let said = read.note().unwrap_or_default();
    assert!(
        said.contains("`mac.csv` has 3 carriage return(s)") && said.contains("tr '\\r' '\\n'"),
        "{said}"
    );
    let grep = f
        .call_in_program(
            "run-1",
            2,
            "grep",
            json!({"pattern": "^S\\d+,0$", "path": "mac.csv"}),
        )
        .await;
    assert_eq!(grep.value()["total"], 1);
    let said = grep.note().unwrap_or_default();
    assert!(
        said.starts_with("1 file(s) have matching lines that hold carriage returns"),
        "{said}"
    );
    // A file of CRLF lines holds none inside its lines.
    f.file("win.csv", "sku,qty\r\nS1,0\r\n");
    let crlf = f
        .call_in_program("run-1", 3, "read", json!({"file_path": "win.csv"}))
        .await;
    assert_eq!(crlf.note(), None);
}

#[tokio::test]
async fn an_exact_write_changes_a_files_form_as_the_content_says() {
    let f = Fixture::new();
    f.file("app.ini", "\u{FEFF}[a]\r\nx=1\r\n");
    let read = f
        .call_in_program("run", 1, "read", json!({"file_path": "app.ini"}))
        .await;
    let text: Vec<&str> = read.value()["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    // The same text with LF and no BOM: kept as it was unless the write is exact.
    let content = format!("{}\n", text.join("\n"));
    let kept = f
        .call_in_program(
            "run",
            2,
            "write",
            json!({"file_path": "app.ini", "content": content}),
        )
        .await;
    assert!(kept.note().is_some_and(|n| n.contains("exact: true")));
    assert_eq!(f.read("app.ini"), "\u{FEFF}[a]\r\nx=1\r\n");
    let exact = f
        .call_in_program(
            "run",
            3,
            "write",
            json!({"file_path": "app.ini", "content": content, "exact": true}),
        )
        .await;
    assert!(!exact.result.is_error(), "{}", exact.error());
    assert_eq!(exact.note(), None);
    assert_eq!(f.read("app.ini"), "[a]\nx=1\n");
}
