//! The recorded catalog (`testing/catalog/`): 42 public MCP servers' `tools/list`, 870 tools,
//! as discovery's search sees them, and the labelled user requests over them.

use std::path::PathBuf;

use ptc::discovery::rank::ToolDoc;
use serde_json::Value;

/// `testing/catalog/`.
pub fn dir() -> PathBuf {
    crate::repo().join("testing/catalog")
}

/// Every server's recorded list as `(server, tools)`, by server name (the file stem).
pub fn lists() -> Vec<(String, Vec<Value>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir().join("lists"))
        .expect("testing/catalog/lists is there")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let server = path.file_stem().unwrap().to_string_lossy().into_owned();
            let list: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let tools = list["tools"]
                .as_array()
                .expect("a tools/list answer")
                .clone();
            (server, tools)
        })
        .collect()
}

/// Every catalog tool as a search doc named `<server>__<tool>`.
pub fn tool_docs() -> Vec<ToolDoc> {
    lists()
        .into_iter()
        .flat_map(|(server, tools)| {
            tools.into_iter().map(move |tool| {
                ToolDoc::from_schema(
                    &format!("{server}__{}", tool["name"].as_str().unwrap()),
                    &server,
                    tool["description"].as_str().unwrap_or_default(),
                    &tool["inputSchema"],
                )
            })
        })
        .collect()
}

/// One labelled request of `queries.json`: a user's words and the tools that would serve it.
#[derive(Debug, serde::Deserialize)]
pub struct LabelledQuery {
    /// The request, as a user would write it.
    pub query: String,
    /// The `<server>__<tool>` names that serve it; any of them in the top five is a hit.
    pub expect: Vec<String>,
}

/// The labelled requests of `testing/catalog/queries.json`.
pub fn labelled_queries() -> Vec<LabelledQuery> {
    serde_json::from_slice(&std::fs::read(dir().join("queries.json")).unwrap())
        .expect("queries.json is a list of { query, expect }")
}
