//! Discovery's ranking (`ptc::discovery::rank`): on the recorded catalog (870 tools of 42 MCP
//! servers), each labelled user request finds a tool that serves it in the top five; and the
//! index's rules, on small tool sets: how names are cut, stemming, name matches first, the
//! server filter, junk queries.

use ptc::discovery::rank::{
    Hit, SearchIndex, ToolDoc, MAX_QUERY_CHARS, MAX_QUERY_TERMS, NAME_MATCH_SCORE,
};
use ptc_testing::catalog;
use serde_json::json;

fn names(index: &SearchIndex, hits: &[Hit]) -> Vec<String> {
    hits.iter()
        .map(|hit| index.docs()[hit.index].name.clone())
        .collect()
}

fn top(index: &SearchIndex, query: &str) -> Vec<String> {
    names(index, &index.search(query, None))
}

fn doc(name: &str, server: &str, description: &str) -> ToolDoc {
    ToolDoc::from_schema(name, server, description, &json!({}))
}

#[test]
fn catalog_user_requests_find_their_tool_in_the_top_five() {
    let index = SearchIndex::new(catalog::tool_docs());
    assert_eq!(index.docs().len(), 870);
    let queries = catalog::labelled_queries();
    assert!(queries.len() >= 120);
    let (mut found, mut reciprocal) = (0usize, 0f64);
    let mut misses = Vec::new();
    for labelled in &queries {
        let ranked = top(&index, &labelled.query);
        let rank = ranked
            .iter()
            .position(|name| labelled.expect.contains(name));
        if let Some(rank) = rank {
            reciprocal += 1.0 / (rank + 1) as f64;
        }
        match rank {
            Some(rank) if rank < 5 => found += 1,
            _ => misses.push(format!(
                "  {:?} (rank {}) expected {:?}, got {:?}",
                labelled.query,
                rank.map_or("-".to_owned(), |r| (r + 1).to_string()),
                labelled.expect,
                &ranked[..ranked.len().min(5)]
            )),
        }
    }
    let recall = found as f64 / queries.len() as f64;
    let mrr = reciprocal / queries.len() as f64;
    println!(
        "discovery ranking on {} labelled requests over {} tools: recall@5 {recall:.3}, MRR {mrr:.3}",
        queries.len(),
        index.docs().len()
    );
    println!("misses ({}):\n{}", misses.len(), misses.join("\n"));
    assert!(recall >= 0.85, "recall@5 {recall:.3} < 0.85");
}

#[test]
fn names_are_cut_at_snake_kebab_camel_and_digits() {
    let index = SearchIndex::new(vec![
        doc("a__create_pull_request", "a", ""),
        doc("b__get-feature-flag", "b", ""),
        doc("c__ForwardGeocodeTool", "c", ""),
        doc("d__listS3Buckets", "d", ""),
    ]);
    assert_eq!(top(&index, "pull"), ["a__create_pull_request"]);
    assert_eq!(top(&index, "feature"), ["b__get-feature-flag"]);
    assert_eq!(top(&index, "geocode"), ["c__ForwardGeocodeTool"]);
    assert_eq!(top(&index, "buckets"), ["d__listS3Buckets"]);
    assert_eq!(top(&index, "s3"), ["d__listS3Buckets"]);
}

#[test]
fn words_match_across_inflections() {
    let index = SearchIndex::new(vec![
        doc("k__get_pod", "k", "Get one pod"),
        doc("k__run_pipeline", "k", "Trigger a pipeline"),
        doc("k__list_nodes", "k", "Nodes of the cluster"),
    ]);
    assert_eq!(top(&index, "pods"), ["k__get_pod"]);
    assert_eq!(top(&index, "running"), ["k__run_pipeline"]);
    assert_eq!(top(&index, "pipelines triggered"), ["k__run_pipeline"]);
    assert_eq!(top(&index, "node"), ["k__list_nodes"]);
}

#[test]
fn a_word_as_written_ranks_above_its_inflections() {
    let index = SearchIndex::new(vec![
        doc("k__get_pod", "k", "Get one pod"),
        doc("k__list_pods", "k", "List pods"),
    ]);
    assert_eq!(top(&index, "pods"), ["k__list_pods", "k__get_pod"]);
    assert_eq!(top(&index, "pod"), ["k__get_pod", "k__list_pods"]);
}

#[test]
fn a_word_also_finds_its_synonyms_below_itself() {
    let index = SearchIndex::new(vec![
        doc(
            "fs__list_directory",
            "fs",
            "List the entries of a directory",
        ),
        doc("ui__open_folder", "ui", "Open a folder in the file manager"),
        doc("db__drop_table", "db", "Remove a table"),
    ]);
    let hits = index.search("folder", None);
    assert_eq!(
        names(&index, &hits),
        ["ui__open_folder", "fs__list_directory"]
    );
    assert!(hits[1].score > 0.0);
    assert_eq!(top(&index, "delete"), ["db__drop_table"]);
}

#[test]
fn a_query_that_is_a_tool_name_ranks_that_tool_first() {
    let index = SearchIndex::new(vec![
        doc(
            "github__list_issues",
            "github",
            "List issues; create issue comments",
        ),
        doc(
            "github__create_issue",
            "github",
            "Open a new issue, the issue is created in the repository",
        ),
        doc(
            "gitlab__create_issue_note",
            "gitlab",
            "Create issue note on an issue",
        ),
        doc(
            "slack__slack_post_message",
            "slack",
            "Post a message to a channel",
        ),
        doc("mapbox__ForwardGeocodeTool", "mapbox", "Geocode an address"),
    ]);
    for query in [
        "github__create_issue",
        "GitHub__Create_Issue",
        "create_issue",
        "create issue",
        "createIssue",
        "github create issue",
        "  create-issue ",
    ] {
        let hits = index.search(query, None);
        assert_eq!(names(&index, &hits)[0], "github__create_issue", "{query:?}");
        assert!(hits[0].score >= NAME_MATCH_SCORE, "{query:?}");
    }
    // a name is a whole query, not a word of one
    assert!(index.search("create issue note", None)[0].score >= NAME_MATCH_SCORE);
    assert!(index.search("please create an issue", None)[0].score < NAME_MATCH_SCORE);
    // the server's word leading the tool's own name may be left out
    assert_eq!(top(&index, "post message")[0], "slack__slack_post_message");
    assert_eq!(
        top(&index, "forward geocode tool")[0],
        "mapbox__ForwardGeocodeTool"
    );
    // the exact name outranks the same words
    let exact = index.search("create_issue", None)[0].score;
    let near = index.search("create issue", None)[0].score;
    assert!(exact > near);
}

#[test]
fn the_server_filter_keeps_only_that_servers_tools() {
    let index = SearchIndex::new(vec![
        doc("github__create_issue", "github", "Create a new issue"),
        doc("gitlab__create_issue", "gitlab", "Create a new issue"),
        doc("gitlab__list_issues", "gitlab", "List issues"),
    ]);
    let mut gitlab = names(&index, &index.search("issue", Some("gitlab")));
    gitlab.sort();
    assert_eq!(gitlab, ["gitlab__create_issue", "gitlab__list_issues"]);
    assert_eq!(
        names(&index, &index.search("create_issue", Some("github"))),
        ["github__create_issue"]
    );
    assert!(index.search("issue", Some("nope")).is_empty());
    // no terms: the server's listing, in order
    assert_eq!(
        names(&index, &index.search("", Some("gitlab"))),
        ["gitlab__create_issue", "gitlab__list_issues"]
    );
}

#[test]
fn junk_queries_never_panic_and_stay_bounded() {
    let index = SearchIndex::new(catalog::tool_docs());
    let all = index.docs().len();
    // nothing to match: every tool, in order, score 0
    for query in [
        "",
        "   ",
        "?!.,;:-_/\\",
        "the of what",
        "\u{0}\u{7f}\u{1b}",
        "🦀🚀",
    ] {
        let hits = index.search(query, None);
        assert_eq!(
            hits.len(),
            all,
            "{query:?}: {:?}",
            &hits[..3.min(hits.len())]
        );
        assert!(hits
            .iter()
            .enumerate()
            .all(|(i, hit)| hit.index == i && hit.score == 0.0));
    }
    // words no tool has
    assert!(index.search("xyzzyplugh", None).is_empty());
    assert!(index.search("東京の天気", None).is_empty());
    // huge and many-worded queries are read only so far: a word past the cap is not looked for
    let huge = "kubernetes pod ".repeat(100_000);
    let hits = index.search(&huge, None);
    assert!(!hits.is_empty() && hits[0].score > 0.0);
    let late = format!("{}kubernetes", "? ".repeat(MAX_QUERY_CHARS / 2));
    assert!(index.search(&late, None).iter().all(|hit| hit.score == 0.0));
    let letter = |i: usize| char::from(b'a' + (i % 26) as u8);
    let words: String = (0..5_000)
        .map(|i| format!("zz{}{} ", letter(i / 26), letter(i)))
        .collect();
    assert!(index.search(&words, None).is_empty());
    let late = format!("{} kubernetes", &words[..MAX_QUERY_TERMS * 6]);
    assert!(index.search(&late, None).is_empty());
    for query in [
        "ünïcödé tïme",
        "ＴＩＭＥ zone",
        "time\u{200b}zone",
        "İstanbul time",
        "ǅungla",
    ] {
        index.search(query, Some("time"));
    }
    assert!(top(&index, "İstanbul TIME zone")[0].starts_with("time__"));
    // an empty index answers too
    let empty = SearchIndex::new(Vec::new());
    assert!(empty.search("anything", None).is_empty());
    assert!(empty.search("", None).is_empty());
}

#[test]
fn from_schema_reads_top_level_parameters() {
    let doc = ToolDoc::from_schema(
        "s__t",
        "s",
        "d",
        &json!({
            "type": "object",
            "properties": {
                "owner": { "type": "string", "description": "Repository owner" },
                "page": { "type": "integer", "title": "Page" },
                "raw": true
            }
        }),
    );
    assert_eq!(
        doc.params,
        [
            ("owner".to_owned(), "Repository owner".to_owned()),
            ("page".to_owned(), "Page".to_owned()),
            ("raw".to_owned(), String::new())
        ]
    );
    assert!(ToolDoc::from_schema("t", "", "", &json!("not a schema"))
        .params
        .is_empty());
    assert_eq!(doc.tool_name(), "t");
    assert_eq!(
        ToolDoc::from_schema("t", "s", "", &json!({})).tool_name(),
        "t"
    );
}

#[test]
fn an_index_is_shared_across_threads() {
    fn shared<T: Send + Sync + 'static>() {}
    shared::<SearchIndex>();
    let index = std::sync::Arc::new(SearchIndex::new(vec![doc("a__b", "a", "c")]));
    let other = std::sync::Arc::clone(&index);
    let hits = std::thread::spawn(move || other.search("b", None))
        .join()
        .unwrap();
    assert_eq!(names(&index, &hits), ["a__b"]);
}
