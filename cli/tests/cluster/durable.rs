//! A durable cluster (`ptc serve --durable`, one PostgreSQL store): a 2026-07-28 client's
//! `run_code` waits for an approval; the instance running it is `kill -9`ed before the answer
//! comes; the client's retry (the answer and the `requestState`) reaches another instance
//! through HAProxy, which opens the state with the key the instances share in the store; the
//! run resumes there by replay and the approved command runs exactly once.

use serde_json::{json, Value};

use crate::support::{parts, text, Cluster};
use ptc_testing::postgres::{psql, Server};

#[test]
fn an_approval_answered_after_its_instance_died_resumes_elsewhere_and_runs_once() {
    let Some(python) = parts() else { return };
    let Some(pg) = Server::start() else { return };
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("ptc.toml");
    std::fs::write(
        &config,
        "[[policy]]\ntool = \"bash\"\naction = \"ask\"\nreason = \"a command needs a person\"\n",
    )
    .unwrap();
    let serve = [
        "--config",
        config.to_str().unwrap(),
        "--durable",
        "--lease-ms",
        "1000",
    ];
    let cluster = Cluster::start(Some(python), &["--store", &url, "--keep-going"], &serve);
    let code = "const r = await tools.bash({ command: 'echo ran >> effects.txt', description: 'Record one effect' });\n\
                return ['done', r.exit_code];";
    let args = json!({ "code": code, "description": "an approval that outlives its instance" });

    let asked = cluster.client("auto", None, json!([{ "once": "run_code", "args": args }]));
    let asked = &asked[1]["inputRequired"];
    let state = asked["state"].as_str().unwrap_or_else(|| panic!("{asked}"));
    let requests = asked["requests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let (key, request) = requests.iter().next().unwrap();
    let message = request["params"]["message"].as_str().unwrap();
    assert!(message.contains("a command needs a person"), "{message}");

    // The instance holding the run dies before anyone answers.
    let owner = psql(&url, "SELECT owner FROM leases");
    let pid: i32 = owner.trim().split('/').nth(1).unwrap().parse().unwrap();
    // SAFETY: kill(2) on an instance of the cluster this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);

    let mut responses = serde_json::Map::new();
    responses.insert(
        key.clone(),
        json!({ "action": "accept", "content": { "decision": "allow_once" } }),
    );
    // A state altered on the way is refused, on whichever instance it reaches.
    let mut forged = state.to_string().into_bytes();
    forged[8] = if forged[8] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    let refused =
        json!([{ "once": "run_code", "args": args, "state": forged, "responses": responses }]);
    let refused = cluster.client("auto", None, refused);
    let error = refused[1]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{refused:?}"));
    assert!(error.contains("forged or altered"), "{error}");
    let retry =
        json!([{ "once": "run_code", "args": args, "state": state, "responses": responses }]);
    let answered = cluster.client("auto", None, retry);
    let result: &Value = &answered[1];
    assert_eq!(result["isError"], false, "{result}\n{}", cluster.log());
    assert!(text(result).contains("done"), "{result}");
    let effects = std::fs::read_to_string(cluster.root.join("effects.txt")).unwrap();
    assert_eq!(effects, "ran\n", "the approved command ran once");
}
