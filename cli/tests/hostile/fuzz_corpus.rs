//! Every input in the fuzz corpus (`fuzz/corpus/<target>/`), replayed through the same
//! surface functions the fuzz targets call: what the fuzzer once found interesting keeps
//! being checked on every CI run. Fuzz for new inputs with `cargo fuzz run <target>` in
//! `fuzz/` (see its README).

#[path = "../../../fuzz/surfaces.rs"]
mod surfaces;

/// Feed each file of `fuzz/corpus/<target>` to `surface`; how many there were.
fn replay(target: &str, surface: fn(&[u8])) -> usize {
    let dir = ptc_testing::repo().join("fuzz/corpus").join(target);
    let mut inputs = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| surface(&data));
        assert!(outcome.is_ok(), "{} failed", path.display());
        inputs += 1;
    }
    assert!(inputs > 0, "no corpus in {}", dir.display());
    inputs
}

#[test]
fn fuzz_corpus_program() {
    replay("program", surfaces::program);
}

#[test]
fn fuzz_corpus_arguments() {
    replay("arguments", surfaces::arguments);
}

#[test]
fn fuzz_corpus_config() {
    replay("config", surfaces::config);
}

#[test]
fn fuzz_corpus_mcp_stdio() {
    replay("mcp_stdio", |data| {
        surfaces::mcp_stdio(data);
    });
    // The harness really serves: the seed session's program answers.
    let seed = ptc_testing::repo().join("fuzz/corpus/mcp_stdio/seed-session.jsonl");
    let replies = surfaces::mcp_stdio(&std::fs::read(seed).unwrap());
    let answer = replies
        .iter()
        .find(|r| r["id"] == 3)
        .expect("the run_code reply");
    assert_eq!(answer["result"]["content"][0]["text"], "3", "{replies:?}");
}

#[test]
fn fuzz_corpus_config_loader() {
    replay("config_loader", surfaces::config_loader);
}

#[test]
fn fuzz_corpus_paths() {
    replay("paths", surfaces::paths);
}
