//! Long approvals of durable runs that are MCP tasks: a run waits on an `ask`; its question is
//! kept in the PostgreSQL store and shown by `tasks/get` as `input_required` on any instance;
//! after `--park-after-ms` the run gives up its lease and sandbox; its instance is killed; the
//! answer (`tasks/update`) arrives at another instance, which resumes the run by replay: the
//! approved call runs exactly once and the run completes. An answer given to another instance
//! while the asking one still waits reaches it through the store. "Allow for this run" holds
//! on the instance that continues a run after its first one died. A client that declared no
//! elicitation capability is never sent an input request: its run's approvals are unanswered.

use std::time::{Duration, Instant};

use ptc::journal::Entry;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    GetTaskParams, GetTaskRequest, GetTaskResult, Implementation, InitializeRequest,
    ProtocolVersion, ServerResult, TaskPayload, TaskStatus, UpdateTaskParams, UpdateTaskRequest,
};
use serde_json::{json, Value};

use crate::durable_takeover::{psql, Store};
use crate::durable_tasks::{client_with, get, start, Client};

/// Ask before every witness call.
const ASK: &str = r#"
[[policy]]
tool = "witness__record"
action = "ask"
reason = "records an effect"
"#;

const PROGRAM: &str = r#"
const seen = await tools.sleep({ ms: 1 });
const done = await tools.witness__record({ label: "approved effect" });
return ["done", done];
"#;

/// Poll `tasks/get` on `client` until `ready` takes the task.
async fn until(
    client: &Client,
    id: &str,
    what: &str,
    ready: impl Fn(&GetTaskResult) -> bool,
) -> GetTaskResult {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let task = get(client, id).await;
        if ready(&task) {
            return task;
        }
        assert!(
            Instant::now() < deadline,
            "task {id} never {what}: {task:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The key of the one open question of `task`, and its message.
fn question(task: &GetTaskResult) -> (String, String) {
    let TaskPayload::InputRequired { input_requests } = &task.task.payload else {
        panic!("not waiting for input: {task:?}");
    };
    assert_eq!(input_requests.len(), 1, "{input_requests:?}");
    let (key, request) = input_requests.iter().next().unwrap();
    let request = serde_json::to_value(request).unwrap();
    assert_eq!(request["method"], "elicitation/create", "{request}");
    (
        key.clone(),
        request["params"]["message"].as_str().unwrap().to_string(),
    )
}

async fn update(client: &Client, id: &str, responses: Value) -> Result<ServerResult, String> {
    let responses = serde_json::from_value(responses).unwrap();
    let request = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(UpdateTaskParams::new(
        id, responses,
    )));
    client
        .peer()
        .send_request(request)
        .await
        .map_err(|e| e.to_string())
}

fn allow_once() -> Value {
    json!({ "action": "accept", "content": { "decision": "allow_once" } })
}

/// The run's completed result text.
fn completed(task: &GetTaskResult) -> String {
    let TaskPayload::Completed { result } = &task.task.payload else {
        panic!("{task:?}");
    };
    assert_eq!(result["isError"], false, "{result:?}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

fn ended(task: &GetTaskResult) -> bool {
    !matches!(
        task.task.status(),
        TaskStatus::Working | TaskStatus::InputRequired
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parked_approval_answered_on_another_instance_runs_the_call_once() {
    let Some(store) = Store::start() else { return };
    std::fs::write(store.dir.path().join("ask.toml"), ASK).unwrap();
    let args = ["--config", "ask.toml", "--park-after-ms", "300"];
    let (first, pid) = client_with(&store, &args).await;
    let id = start(&first, PROGRAM).await;
    let task = until(&first, &id, "asked", |t| {
        t.task.status() == TaskStatus::InputRequired
    })
    .await;
    let (key, message) = question(&task);
    assert_eq!(key, format!("{id}:ptc:2"));
    assert!(
        message.contains("records an effect") && message.contains("witness__record"),
        "{message}"
    );
    // Parked: the instance gave its lease up while it lives on.
    let lapsed = || {
        psql(
            &store.url,
            &format!(
                "SELECT count(*) FROM leases WHERE run_id = '{id}' AND expires_ms < \
                 (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
            ),
        )
        .trim()
            == "1"
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while !lapsed() {
        assert!(Instant::now() < deadline, "run {id} was never parked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // SAFETY: kill(2) on the instance this test's client started.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);

    let (second, _) = client_with(&store, &args).await;
    // The question is in the store: another instance shows it, and takes answers only to it.
    assert_eq!(question(&get(&second, &id).await).0, key);
    let refused = update(&second, &id, json!({ "nope": allow_once() }))
        .await
        .unwrap_err();
    assert!(
        refused.contains(&format!("task {id} has no open question \"nope\"")),
        "{refused}"
    );
    assert_eq!(store.rows("attempts", &id), (0, 0));
    update(&second, &id, json!({ key.clone(): allow_once() }))
        .await
        .unwrap();
    let task = until(&second, &id, "ended", ended).await;
    let text = completed(&task);
    assert!(
        text.contains("done") && text.contains("approved effect"),
        "{text}"
    );
    assert_eq!(store.rows("witness", &id), (1, 1));
    assert_eq!(
        store.rows("attempts", &id),
        (1, 1),
        "the approved call ran once"
    );
    let calls = store
        .journal(&id)
        .iter()
        .filter(|e| matches!(e, Entry::Call { name, .. } if name == "witness__record"))
        .count();
    assert_eq!(calls, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_given_to_another_instance_reaches_the_run_still_waiting() {
    let Some(store) = Store::start() else { return };
    std::fs::write(store.dir.path().join("ask.toml"), ASK).unwrap();
    let args = ["--config", "ask.toml"];
    let (asking, _) = client_with(&store, &args).await;
    let (other, _) = client_with(&store, &args).await;
    let id = start(&asking, PROGRAM).await;
    let task = until(&other, &id, "asked", |t| {
        t.task.status() == TaskStatus::InputRequired
    })
    .await;
    let (key, _) = question(&task);
    let deny = json!({ "action": "accept", "content": { "decision": "deny" } });
    update(&other, &id, json!({ key.clone(): deny }))
        .await
        .unwrap();
    let task = until(&asking, &id, "ended", ended).await;
    let text = completed_or_error(&task);
    assert!(text.contains("denied"), "{text}");
    assert_eq!(store.rows("attempts", &id), (0, 0));
    // A second answer to the same question is refused: it is not open any more.
    let again = update(&other, &id, json!({ key: allow_once() }))
        .await
        .unwrap_err();
    assert!(again.contains("has no open question"), "{again}");
}

/// The run's result text, an error or not.
fn completed_or_error(task: &GetTaskResult) -> String {
    let TaskPayload::Completed { result } = &task.task.payload else {
        panic!("{task:?}");
    };
    result["content"][0]["text"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_for_this_run_holds_on_the_instance_that_takes_the_run_over() {
    let Some(store) = Store::start() else { return };
    std::fs::write(store.dir.path().join("ask.toml"), ASK).unwrap();
    let args = ["--config", "ask.toml"];
    let (first, pid) = client_with(&store, &args).await;
    // The second call does its effect, then waits for the hold file to go: the first
    // instance dies there, with the grant only in its memory and the store.
    let hold = store.dir.path().join("hold");
    std::fs::write(&hold, "held").unwrap();
    let program = r#"
const a = await tools.witness__record({ label: "granted" });
const b = await tools.witness__record({ label: "held" });
return ["done", a, b];
"#;
    let id = start(&first, program).await;
    let task = until(&first, &id, "asked", |t| {
        t.task.status() == TaskStatus::InputRequired
    })
    .await;
    let (key, _) = question(&task);
    let for_the_run = json!({ "action": "accept", "content": { "decision": "allow_session" } });
    update(&first, &id, json!({ key: for_the_run }))
        .await
        .unwrap();
    let reached = store.dir.path().join("hold.reached");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !reached.exists() {
        assert!(Instant::now() < deadline, "the held call never ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // SAFETY: kill(2) on the instance this test's client started.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    std::fs::remove_file(&hold).unwrap();

    // The other instance replays the first call, runs the second again (it is in doubt, and
    // idempotent) and does not ask: the run was allowed that tool.
    let (second, _) = client_with(&store, &args).await;
    let task = until(&second, &id, "ended", |t| {
        assert_ne!(
            t.task.status(),
            TaskStatus::InputRequired,
            "asked again after the takeover: {t:?}"
        );
        ended(t)
    })
    .await;
    let text = completed(&task);
    assert!(text.contains("granted") && text.contains("held"), "{text}");
    assert_eq!(store.rows("witness", &id), (2, 2));
}

/// A client on stdio that writes its JSON-RPC itself, so that it can hold
/// `notifications/initialized` back: the MCP spec lets a server take requests before it, and
/// rmcp does.
struct Raw {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Raw {
    /// A new `ptc serve --durable` of `store` with `args` more, initialized by a client that
    /// declares the tasks extension and nothing else; not yet told `initialized`.
    fn start(store: &Store, args: &[&str]) -> Raw {
        use std::process::Stdio;
        let args = [&["serve", "--durable"], args].concat();
        let mut child = store
            .ptc(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (input, output) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        let output = std::io::BufReader::new(output);
        let mut raw = Raw {
            child,
            input,
            output,
            next: 0,
        };
        let capabilities = ClientCapabilities::builder().enable_tasks().build();
        let mut info = ClientConfig::new(capabilities, Implementation::new("raw", "1.0.0"));
        info.protocol_version = ProtocolVersion::V_2025_06_18;
        raw.request(ClientRequest::InitializeRequest(InitializeRequest::new(
            info,
        )));
        raw
    }

    fn send(&mut self, message: Value) {
        use std::io::Write;
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    /// The result of `request`, skipping whatever else the server sends meanwhile.
    fn request(&mut self, request: ClientRequest) -> Value {
        use std::io::BufRead;
        self.next += 1;
        let mut message = serde_json::to_value(request).unwrap();
        message["jsonrpc"] = json!("2.0");
        message["id"] = json!(self.next);
        self.send(message);
        loop {
            let mut line = String::new();
            assert_ne!(
                self.output.read_line(&mut line).unwrap(),
                0,
                "the server left"
            );
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == json!(self.next) && reply.get("method").is_none() {
                assert!(reply.get("error").is_none(), "{reply}");
                return reply["result"].clone();
            }
        }
    }

    fn get(&mut self, id: &str) -> GetTaskResult {
        let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(id)));
        serde_json::from_value(self.request(request)).unwrap()
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The client's first message after its handshake is the task call; `initialized` follows.
#[test]
fn a_task_client_without_elicitation_is_never_asked_and_its_run_is_told_why() {
    let Some(store) = Store::start() else { return };
    std::fs::write(store.dir.path().join("ask.toml"), ASK).unwrap();
    let mut client = Raw::start(&store, &["--config", "ask.toml"]);
    let arguments = json!({ "code": PROGRAM, "description": "a run with an ask" });
    let params = CallToolRequestParams::new("run_code")
        .with_arguments(arguments.as_object().unwrap().clone());
    let created = client.request(ClientRequest::CallToolRequest(CallToolRequest::new(params)));
    client.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    let Some(id) = created["taskId"].as_str().map(str::to_string) else {
        panic!("not a task: {created}");
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    let task = loop {
        let task = client.get(&id);
        assert_ne!(
            task.task.status(),
            TaskStatus::InputRequired,
            "asked: {task:?}"
        );
        if ended(&task) {
            break task;
        }
        assert!(Instant::now() < deadline, "task {id} never ended");
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = completed_or_error(&task);
    assert!(
        text.contains("did not declare the elicitation capability"),
        "{text}"
    );
    assert_eq!(store.rows("attempts", &id), (0, 0));
}
