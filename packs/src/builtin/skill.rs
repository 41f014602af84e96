//! `skill`: the seed's tool for loading a skill's instructions, its description the catalog of
//! skills ([`crate::skills`]); `file` (not in the seed) opens one of the skill's other files,
//! which may lie outside the workspace `read` is confined to.

use ptc_schema::{ParameterSpec, ValueSpec};
use serde::{Deserialize, Serialize};

use crate::skills::{self, SkillCatalog, SKILL_FILE};
use ptc::ContentBlock;
use ptc::ToolDefinition;
use ptc::ToolError;

#[derive(Deserialize)]
struct Args {
    name: String,
    file: Option<String>,
}

#[derive(Serialize)]
struct Output {
    name: String,
    description: String,
    path: String,
    text: String,
    files: Vec<String>,
}

/// The seed's description, then the catalog.
const SEED_DESCRIPTION: &str = "Load the full instructions for an available skill. Call this \
    with the exact skill name from the session skill catalog before acting on a task that names \
    or clearly matches that skill.";

fn listing(catalog: &SkillCatalog) -> String {
    catalog
        .skills()
        .iter()
        .map(|s| format!("\n- {}: {}", s.name, s.description))
        .collect()
}

/// The `skill` tool over `catalog` (the pack registers it only when there is a skill).
pub(crate) fn tool(catalog: SkillCatalog) -> ToolDefinition {
    let skills = listing(&catalog);
    ToolDefinition::builder("skill")
        .description(format!(
            "{SEED_DESCRIPTION} With `file`, returns that file of the skill instead.\n\
             Skills:{skills}"
        ))
        .code_description(format!(
            "A skill's instructions (`file`: one of its `files`); load one before a task \
             it matches. Skills:{skills}"
        ))
        .parameters(
            ParameterSpec::new()
                .required(
                    "name",
                    ValueSpec::string()
                        .describe("The exact skill name from the available skills list."),
                )
                .optional(
                    "file",
                    ValueSpec::string().describe("One of the skill's `files`, to read it."),
                ),
        )
        .output(
            ValueSpec::object(false)
                .required_property("name", ValueSpec::string())
                .required_property("description", ValueSpec::string())
                .required_property("path", ValueSpec::string())
                .required_property("text", ValueSpec::string())
                .required_property("files", ValueSpec::array(ValueSpec::string())),
        )
        .concurrency_safe(true)
        .execute(move |args: Args, _ctx| {
            let catalog = catalog.clone();
            async move { super::shared::blocking(move || load(&catalog, args)).await }
        })
        .render(|_, value| vec![ContentBlock::text(render(value))])
        .build()
        .expect("the skill definition is valid")
}

fn load(catalog: &SkillCatalog, args: Args) -> Result<Output, ToolError> {
    let Some(skill) = catalog.get(&args.name) else {
        let names = catalog.skills().iter().map(|s| s.name.as_str());
        let hint = match ptc::suggest::closest(&args.name, names.clone()) {
            Some(close) => format!("did you mean `{close}`? "),
            None => String::new(),
        };
        let all: Vec<&str> = names.collect();
        return Err(super::shared::invalid_args(format!(
            "no skill is named `{}`; {hint}the skills are: {}",
            args.name,
            all.join(", ")
        )));
    };
    let folder = skill.read().map_err(ToolError::new)?;
    let files = folder.others();
    let wanted = args.file.as_deref().unwrap_or(SKILL_FILE);
    let content = folder.file(wanted).ok_or_else(|| {
        super::shared::invalid_args(format!(
            "skill `{}` has no file `{wanted}`; its files are: {}",
            skill.name,
            files.join(", ")
        ))
    })?;
    let text = std::str::from_utf8(content).map_err(|_| {
        ToolError::new(format!(
            "`{wanted}` of skill `{}` is binary ({} bytes), not text",
            skill.name,
            content.len()
        ))
    })?;
    let text = match args.file {
        None => skills::body(text).map_err(ToolError::new)?,
        Some(_) => text,
    };
    Ok(Output {
        name: skill.name.clone(),
        description: skill.description.clone(),
        path: skill.shown.clone(),
        text: text.to_string(),
        files,
    })
}

fn render(value: &serde_json::Value) -> String {
    let text = value["text"].as_str().unwrap_or_default();
    let files: Vec<&str> = value["files"]
        .as_array()
        .map(|f| f.iter().filter_map(|f| f.as_str()).collect())
        .unwrap_or_default();
    let mut out = format!(
        "Skill `{}` ({}):\n\n{text}",
        value["name"].as_str().unwrap_or_default(),
        value["path"].as_str().unwrap_or_default()
    );
    if !files.is_empty() {
        out.push_str(&format!(
            "\n\nIts files (open one with `skill` and `file`): {}",
            files.join(", ")
        ));
    }
    out
}
