//! The recorded catalog (42 public MCP servers, 870 tools, `testing/catalog/lists/`): how
//! many tools stay untyped, and the SDK of all of them under the real `tsc`.

use std::path::Path;

use crate::common::{decls, Tool};
use crate::typescript::check_sdk;
use ptc_schema::{
    assert_object_schema, assert_supported, foreign_input_schema, foreign_output_schema,
};
use serde_json::{json, Value};

/// Every tool of every recorded list, as the MCP pack registers it: `<server>__<tool>`,
/// parameters through [`foreign_input_schema`], an output schema outside the subset as `{}`,
/// no output schema as `string`; closed when validated and `additionalProperties` is not
/// `true` or a schema.
/// With the names of the tools whose input schema stays outside the subset.
/// Also the names of the tools whose output schema stays outside the subset (typed `unknown`).
fn catalog() -> (Vec<Tool>, Vec<String>, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testing/catalog/lists");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the recorded catalog")
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut tools, mut untyped, mut untyped_output) = (Vec::new(), Vec::new(), Vec::new());
    for file in files {
        let server = file.file_stem().unwrap().to_str().unwrap().to_owned();
        let list: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for tool in list["tools"].as_array().unwrap() {
            let name = format!("{server}__{}", tool["name"].as_str().unwrap());
            let parameters = foreign_input_schema(tool["inputSchema"].as_object().unwrap());
            let validated = assert_object_schema(&parameters).is_ok();
            if !validated {
                untyped.push(name.clone());
            }
            let output = match tool.get("outputSchema").and_then(Value::as_object) {
                Some(schema) => {
                    let schema = foreign_output_schema(schema);
                    if assert_supported(&schema).is_ok() {
                        schema
                    } else {
                        untyped_output.push(name.clone());
                        json!({})
                    }
                }
                None => json!({"type": "string"}),
            };
            let closed = validated
                && !matches!(
                    parameters.get("additionalProperties"),
                    Some(Value::Bool(true) | Value::Object(_))
                );
            let description = tool["description"].as_str().unwrap_or_default();
            let mut decl = Tool::new(&name, description, parameters, output);
            decl.closed = closed;
            tools.push(decl);
        }
    }
    (tools, untyped, untyped_output)
}

#[test]
fn catalog_tools_are_typed_and_their_sdk_compiles() {
    let (tools, untyped, untyped_output) = catalog();
    assert_eq!(tools.len(), 870, "the recorded catalog holds 870 tools");
    println!(
        "{} of {} catalog tools have untyped arguments: {untyped:?}",
        untyped.len(),
        tools.len()
    );
    assert!(
        untyped.len() * 10 <= tools.len(),
        "{} of {} tools untyped (more than 10%): {untyped:?}",
        untyped.len(),
        tools.len()
    );
    let with_output = tools
        .iter()
        .filter(|t| t.output != json!({"type": "string"}))
        .count();
    println!(
        "{} of {with_output} output schemas stay untyped: {untyped_output:?}",
        untyped_output.len()
    );
    assert!(
        untyped_output.len() * 10 <= with_output,
        "{untyped_output:?}"
    );
    let sdk = ptc_sdk_gen::declarations(&decls(&tools));
    check_sdk(&sdk, "return null;");
}
