//! Discovery's search at 1,000 tools: the recorded catalog's 870 plus 130 of them again under
//! another server, queried with a user's request, a tool's exact name, and a long query.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use ptc::discovery::rank::{SearchIndex, ToolDoc};

/// The 870 catalog tools, then copies of the first ones as server `mirror` up to 1,000.
fn thousand_docs() -> Vec<ToolDoc> {
    let mut docs = ptc_testing::catalog::tool_docs();
    let copies: Vec<ToolDoc> = docs
        .iter()
        .take(1_000 - docs.len())
        .map(|doc| ToolDoc {
            name: format!("mirror__{}", doc.tool_name()),
            server: "mirror".to_owned(),
            ..doc.clone()
        })
        .collect();
    docs.extend(copies);
    assert_eq!(docs.len(), 1_000);
    docs
}

fn bench(c: &mut Criterion) {
    let docs = thousand_docs();
    c.bench_function("search/build_1000", |b| {
        b.iter(|| SearchIndex::new(black_box(docs.clone())))
    });
    let index = SearchIndex::new(docs);
    let long = "list every open merge request in the staging project that has failing pipelines \
                and show the jobs with their logs and artifacts from the last week please";
    for (name, query) in [
        ("request", "open a pull request for my branch"),
        ("name", "github__create_pull_request"),
        ("long", long),
    ] {
        c.bench_function(&format!("search/1000_tools/{name}"), |b| {
            b.iter(|| index.search(black_box(query), None))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
