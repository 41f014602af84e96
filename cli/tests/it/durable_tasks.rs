//! Long runs as MCP tasks (SEP-2663) on a PostgreSQL store shared by instances: a client that
//! declares the tasks extension (rmcp, the official Rust SDK) gets a handle for `run_code`
//! once the run is on record; its instance is `kill -9`ed mid-run; a client of another
//! instance reads the task, which another instance finished, each effect once; `tasks/cancel`
//! on one instance stops a run on another; an instance stopped by SIGTERM (a deploy) hands its
//! runs over instead of ending them.

use std::time::{Duration, Instant};

use ptc::journal::Entry;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelTaskParams, CancelTaskRequest,
    ClientCapabilities, ClientConfig, ClientRequest, ElicitationCapability, GetTaskParams,
    GetTaskRequest, GetTaskResult, Implementation, ProtocolVersion, ServerResult, TaskPayload,
    TaskStatus,
};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

use crate::durable_takeover::{has_result, Store};

pub(crate) type Client = RunningService<RoleClient, ClientConfig>;

/// A client declaring the tasks extension and elicitation, on a new `ptc serve --durable` of
/// `store` over stdio; and the instance's process id.
async fn client(store: &Store) -> (Client, u32) {
    client_with(store, &[]).await
}

/// [`client`] of an instance started with `args` more.
pub(crate) async fn client_with(store: &Store, args: &[&str]) -> (Client, u32) {
    let args = [&["serve", "--durable"], args].concat();
    let command = tokio::process::Command::from(store.ptc(&args));
    let transport = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
        .0;
    let pid = transport.id().unwrap();
    let mut capabilities = ClientCapabilities::builder().enable_tasks().build();
    capabilities.elicitation = Some(ElicitationCapability::default());
    let mut info = ClientConfig::new(capabilities, Implementation::new("ptc-tasks-test", "1.0.0"));
    info.protocol_version = ProtocolVersion::V_2025_06_18;
    (info.serve(transport).await.unwrap(), pid)
}

/// `tools/call` of `run_code` with `code`: the task's id.
pub(crate) async fn start(client: &Client, code: &str) -> String {
    let arguments = json!({ "code": code, "description": "a long run as an MCP task" });
    let params = CallToolRequestParams::new("run_code")
        .with_arguments(arguments.as_object().unwrap().clone());
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    match client.peer().send_request(request).await.unwrap() {
        ServerResult::CreateTaskResult(created) => {
            assert_eq!(created.task.status, TaskStatus::Working);
            created.task.task_id
        }
        other => panic!("not a task: {other:?}"),
    }
}

pub(crate) async fn get(client: &Client, id: &str) -> GetTaskResult {
    let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(id)));
    match client.peer().send_request(request).await.unwrap() {
        ServerResult::GetTaskResult(task) => task,
        other => panic!("not a task: {other:?}"),
    }
}

/// Poll `tasks/get` until the task leaves `working`.
async fn settled(client: &Client, id: &str) -> GetTaskResult {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let task = get(client, id).await;
        if task.task.status() != TaskStatus::Working {
            return task;
        }
        assert!(Instant::now() < deadline, "task {id} still working");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_survives_its_instance_and_its_result_reaches_tasks_get_on_another() {
    let Some(store) = Store::start() else { return };
    let code = std::fs::read_to_string(store.dir.path().join("record.ts")).unwrap();
    let (first, pid) = client(&store).await;
    let id = start(&first, &code).await;
    // The handle came once the run was on record.
    assert!(
        matches!(store.journal(&id).first(), Some(Entry::Start(_))),
        "{:?}",
        store.journal(&id)
    );
    tokio::task::block_in_place(|| store.wait_for(&id, "its third effect", has_result(3)));
    // SAFETY: kill(2) on the instance this test's client started.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);

    let (second, _) = client(&store).await;
    let task = settled(&second, &id).await;
    let TaskPayload::Completed { result } = &task.task.payload else {
        panic!("{task:?}");
    };
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("recorded effect 5"), "{text}");
    assert_eq!(result["isError"], false);
    assert_eq!(store.rows("witness", &id), (5, 5));
    assert_eq!(
        store.rows("attempts", &id),
        (5, 5),
        "calls 1-3 were replayed"
    );

    // tasks/cancel on one instance stops a run on another.
    let long = "await tools.sleep({ ms: 60000 }); return 'slept'";
    let id = start(&second, long).await;
    let (third, _) = client(&store).await;
    let request =
        ClientRequest::CancelTaskRequest(CancelTaskRequest::new(CancelTaskParams::new(&id)));
    third.peer().send_request(request).await.unwrap();
    let task = settled(&third, &id).await;
    assert_eq!(task.task.status(), TaskStatus::Cancelled, "{task:?}");
    let unknown = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new("nope")));
    let refused = third.peer().send_request(unknown).await.unwrap_err();
    assert!(refused.to_string().contains("no task nope"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_instance_hands_its_runs_over_and_another_finishes_them() {
    let Some(store) = Store::start() else { return };
    let code = std::fs::read_to_string(store.dir.path().join("record.ts")).unwrap();
    let (first, pid) = client(&store).await;
    let (second, _) = client(&store).await;
    let id = start(&first, &code).await;
    tokio::task::block_in_place(|| store.wait_for(&id, "its third effect", has_result(3)));
    // A deploy: SIGTERM. The run is not ended here as cancelled; the other instance goes on.
    // SAFETY: kill(2) on the instance this test's client started.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGTERM) }, 0);
    let task = settled(&second, &id).await;
    let TaskPayload::Completed { result } = &task.task.payload else {
        panic!("{task:?}");
    };
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(result["isError"], false, "{text}");
    assert!(text.contains("recorded effect 5"), "{text}");
    assert_eq!(store.rows("witness", &id), (5, 5));
    assert_eq!(store.rows("attempts", &id), (5, 5));
}
