//! Terminals and the operator's terminal: no sandboxed process can type into a terminal it does
//! not own (`TIOCSTI`, the operator's tty, another session's PTY), a `bash` policy holds
//! for what is typed into a terminal too, and `terminal_signal` reaches no process outside the
//! terminal (not one that took the number of a job that ended).

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use ptc::{Agent, Owner, ScopeKey, ToolExecutionInput, ToolExecutionResult, ToolRegistry};
use ptc_cli::config::Config;
use ptc_packs::builtin::Builtin;
use ptc_packs::sandbox::{SandboxConfig, SandboxMode};
use ptc_packs::PackContext;
use serde_json::{json, Value};

/// A workspace with the builtin pack, calls made as one of several owners.
struct Terminals {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    registry: ToolRegistry,
    pack: Builtin,
    owners: Vec<Owner>,
}

impl Terminals {
    fn new(owners: &[&str]) -> Terminals {
        Terminals::with(owners, SandboxConfig::default())
    }

    fn with(owners: &[&str], sandbox: SandboxConfig) -> Terminals {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let registry = ToolRegistry::new();
        let mut ctx = PackContext::new(root.clone());
        ctx.sandbox = sandbox;
        let pack = Builtin::new(&ctx).unwrap();
        pack.register(&registry).unwrap();
        Terminals {
            _tmp: tmp,
            root,
            registry,
            pack,
            owners: owners.iter().map(|o| Owner::new(*o)).collect(),
        }
    }

    async fn call(&self, owner: usize, name: &str, args: Value) -> ToolExecutionResult {
        let agent = Agent::new(ScopeKey::root("agent")).with_owner(self.owners[owner].clone());
        let input = ToolExecutionInput::new("call-1", name, args).with_agent(agent);
        self.registry.dispatch(input).await
    }

    /// `bash` as `owner`: its stdout.
    async fn bash(&self, owner: usize, command: &str) -> String {
        let r = self
            .call(
                owner,
                "bash",
                json!({"command": command, "description": "t"}),
            )
            .await;
        assert!(!r.is_error(), "{}", text(&r));
        r.value().unwrap()["stdout"].as_str().unwrap().to_string()
    }

    /// Open a terminal of `kind` as `owner`: its session id.
    async fn open(&self, owner: usize, kind: &str) -> String {
        let r = self
            .call(owner, "terminal_open", json!({"type": kind}))
            .await;
        assert!(!r.is_error(), "{}", text(&r));
        r.value().unwrap()["sessionId"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Type `line` into `owner`'s terminal `id`: the output it answers with.
    async fn send(&self, owner: usize, id: &str, line: &str) -> String {
        let r = self
            .call(
                owner,
                "terminal_send",
                json!({"sessionId": id, "text": line}),
            )
            .await;
        assert!(!r.is_error(), "{}", text(&r));
        r.value().unwrap()["output"].as_str().unwrap().to_string()
    }
}

impl Drop for Terminals {
    fn drop(&mut self) {
        futures::executor::block_on(async {
            for owner in &self.owners {
                owner.close().await;
            }
            self.pack.owner().close().await;
        });
    }
}

fn text(r: &ToolExecutionResult) -> String {
    ptc::content_text(&r.content)
}

/// A program pushes a line into "its" terminal with `TIOCSTI` on `/dev/tty` and on fds 0-2,
/// from `bash` and from a background task, and lists bash's descriptors; the line, if it got through, would run in the operator's shell
/// after ptc exits (or answer ptc's own approval prompt).
const INJECT: &str = r#"
const inject = "import fcntl, os, termios\n" +
  "line = ('echo ' + 'PW' + 'NED' + chr(10)).encode()\n" +
  "targets = ['/dev/tty', 0, 1, 2]\n" +
  "for t in targets:\n" +
  "    try:\n" +
  "        fd = os.open(t, os.O_RDWR) if isinstance(t, str) else t\n" +
  "        for c in line: fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n" +
  "        print(t, 'injected')\n" +
  "    except OSError as e:\n" +
  "        print(t, 'refused', e.errno)\n";
const command = "python3 -c \"$P\"".replace("$P", inject.replaceAll('"', '\\"'));
const a = await tools.bash({command, description: "inject"});
const task = await tools.bash({command, description: "inject", run_in_background: true});
const t = await tools.task_output({task_id: task.task_id, wait: true, timeout_ms: 20000});
const b = await tools.bash({command: "ls -l /proc/self/fd/", description: "fds"});
return a.stdout + t.output + "--- fds\n" + b.stdout;
"#;

#[test]
fn hostile_sandboxed_bash_cannot_type_into_the_operators_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::write(root.join("inject.ts"), INJECT).unwrap();
    // `script` gives ptc a PTY as its controlling terminal and standard streams, as an
    // operator's shell would; after ptc, a reader takes whatever waits in that PTY's input.
    let reader = "import os; os.set_blocking(0, False)\n\
                  try: print('LEFT:', os.read(0, 4096))\n\
                  except BlockingIOError: print('NOTHING LEFT')";
    let inner = format!(
        "{} run --tools builtin --root {} inject.ts; python3 -c \"{reader}\"",
        env!("CARGO_BIN_EXE_ptc"),
        root.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script runs");
    // Standard input stays open (and silent) until the session ends.
    let _stdin = child.stdin.take();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(child.wait().unwrap().success(), "{out}");
    for target in ["/dev/tty", "0", "1", "2"] {
        assert_eq!(
            out.matches(&format!("{target} refused")).count(),
            2,
            "{target} was not refused in bash and in a background task: {out}"
        );
    }
    assert!(!out.contains("injected"), "{out}");
    assert!(
        !out.contains("PWNED"),
        "the injected line reached the terminal: {out}"
    );
    assert!(out.contains("NOTHING LEFT"), "{out}");
    let fds = out.split("--- fds").nth(1).unwrap_or_default();
    assert!(
        !fds.contains("/dev/pts") && !fds.contains("tty"),
        "a terminal descriptor reached bash: {fds}"
    );
}

#[tokio::test]
async fn hostile_tiocsti_is_refused_in_every_sandbox_mode_even_on_a_terminals_own_pty() {
    // A terminal's PTY is its controlling terminal, where the kernel alone would allow
    // TIOCSTI: only the seccomp filter refuses it.
    let inject = "python3 -c \"import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b'#')\" \
                  && echo INJECT-OK || echo INJECT-REFUSED";
    let modes = [
        (SandboxMode::WorkspaceWrite, false),
        (SandboxMode::WorkspaceWrite, true),
        (SandboxMode::ReadOnly, false),
    ];
    for (mode, network) in modes {
        let t = Terminals::with(
            &["a"],
            SandboxConfig {
                mode,
                network,
                ..SandboxConfig::default()
            },
        );
        let term = t.open(0, "bash").await;
        let mut out = t.send(0, &term, inject).await;
        // A loaded machine may answer before the verdict is printed: read on until it is.
        let decided = |out: &str| out.lines().any(|l| l.trim().starts_with("INJECT-"));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !decided(&out) && std::time::Instant::now() < deadline {
            let read = t
                .call(0, "terminal_read", json!({"sessionId": term, "wait": true}))
                .await;
            out.push_str(read.value().unwrap()["output"].as_str().unwrap_or_default());
        }
        assert!(
            out.lines().any(|l| l.trim() == "INJECT-REFUSED")
                && !out.lines().any(|l| l.trim().ends_with("INJECT-OK")),
            "{mode} network={network}: {out}"
        );
    }
}

#[tokio::test]
async fn hostile_a_terminal_is_invisible_to_other_sessions() {
    let t = Terminals::new(&["a", "b"]);
    let b_term = t.open(1, "bash").await;
    let b_tty = t.send(1, &b_term, "tty").await;
    let path = b_tty
        .lines()
        .find(|l| l.starts_with("/dev/pts/"))
        .unwrap_or_else(|| panic!("no tty: {b_tty}"))
        .trim()
        .to_string();
    // Owner a's bash sees no PTY but the sandbox's own `ptmx`, and cannot open b's.
    let listed = t.bash(0, "ls /dev/pts").await;
    assert_eq!(listed, "ptmx\n", "another session's PTY is visible");
    let probe = format!(
        "for p in {path} /dev/pts/0 /dev/pts/1 /dev/pts/2 /dev/pts/3; do \
         python3 -c \"import os, sys; os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY); \
         print('opened', sys.argv[1])\" $p 2>/dev/null; done; echo probed"
    );
    let out = t.bash(0, &probe).await;
    assert_eq!(out, "probed\n", "another session's PTY could be opened");
    // a's own terminal has a PTY of its own (the first of its own devpts), and b's still works.
    let a_term = t.open(0, "bash").await;
    let a_out = t.send(0, &a_term, "ls /dev/pts").await;
    assert!(a_out.lines().any(|l| l.trim() == "0  ptmx"), "{a_out}");
    let b_out = t.send(1, &b_term, "echo still-here; tty").await;
    assert!(b_out.contains("still-here"), "{b_out}");
    assert!(b_out.contains(&path), "{b_out}");
}

#[tokio::test]
async fn hostile_bash_deny_rule_also_refuses_the_same_command_typed_into_a_terminal() {
    let t = Terminals::new(&["a"]);
    let config = Config::parse(
        r#"
# Allowing the terminal tool by name does not lift bash's rules: the stricter decision holds.
[[policy]]
tool = "terminal_send"
action = "allow"

[[policy]]
tool = "bash"
action = "deny"
match = { command = "rm\\s+-rf" }

[[policy]]
tool = "bash"
action = "deny"
match = { command = "^node" }
"#,
        None,
    )
    .unwrap();
    let typed = json!({"sessionId": "term-1", "text": "rm -rf x"});
    let rule = config.policies.decide("terminal_send", &typed).unwrap();
    assert_eq!(rule.action, ptc_cli::config::PolicyAction::Deny);
    let _lift = config.policies.install(&t.registry);
    std::fs::create_dir(t.root.join("x")).unwrap();
    let denied = t
        .call(
            0,
            "bash",
            json!({"command": "rm -rf x", "description": "t"}),
        )
        .await;
    assert_eq!(denied.error_code(), Some(ptc::codes::TOOL_DENIED));
    let term = t.open(0, "bash").await;
    let r = t
        .call(
            0,
            "terminal_send",
            json!({"sessionId": term, "text": "rm -rf x"}),
        )
        .await;
    assert_eq!(
        r.error_code(),
        Some(ptc::codes::TOOL_DENIED),
        "{}",
        text(&r)
    );
    assert!(text(&r).contains("denied by policy"), "{}", text(&r));
    assert!(
        t.root.join("x").is_dir(),
        "the terminal ran the denied command"
    );
    // Other text still goes through; a backend whose command line a rule denies does not open.
    assert!(t.send(0, &term, "echo fine").await.contains("fine"));
    let r = t.call(0, "terminal_open", json!({"type": "node"})).await;
    assert_eq!(
        r.error_code(),
        Some(ptc::codes::TOOL_DENIED),
        "{}",
        text(&r)
    );
}

/// A program makes a short-lived child the terminal's foreground process group and lets it
/// end (the tty keeps naming the ended group); a host process then takes that group's number.
const ENDED_FOREGROUND: &str = r#"
import os, signal, sys, time
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
c = os.fork()
if c == 0:
    os.setpgid(0, 0)
    os.execvp('sh', ['sh', '-c', 'read x < go.fifo', sys.argv[1] + '-job'])
try:
    os.setpgid(c, c)
except OSError:
    pass
os.tcsetpgrp(0, c)
open('fg-set', 'w').close()
os.waitpid(c, 0)
time.sleep(1000)
"#;

/// Host pids of live processes whose command line contains `marker`.
fn with_marker(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_str()?.parse::<i32>().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let live = !stat.rsplit(") ").next()?.starts_with('Z');
            (live && String::from_utf8_lossy(&cmdline).contains(marker)).then_some(pid)
        })
        .collect()
}

/// Whether `ready` came true within 30 s (polled).
async fn wait_for(mut ready: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    while !ready() {
        if start.elapsed().as_secs() >= 30 {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    true
}

#[tokio::test]
async fn hostile_terminal_signal_never_reaches_a_host_process_that_took_an_ended_jobs_number() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let t = Terminals::new(&["a"]);
    let term = t.open(0, "bash").await;
    let marker = format!("ended-fg-{}", std::process::id());
    std::fs::write(t.root.join("fg.py"), ENDED_FOREGROUND).unwrap();
    assert!(Command::new("mkfifo")
        .arg(t.root.join("go.fifo"))
        .status()
        .unwrap()
        .success());
    let started = t
        .call(
            0,
            "terminal_send",
            json!({"sessionId": term, "text": format!("python3 fg.py {marker}"), "run_in_background": true}),
        )
        .await;
    assert!(!started.is_error(), "{}", text(&started));
    let job_marker = format!("{marker}-job");
    let ready = || t.root.join("fg-set").exists() && with_marker(&job_marker).len() == 1;
    if !wait_for(ready).await {
        let read = t.call(0, "terminal_read", json!({"sessionId": term})).await;
        panic!("the job did not take the foreground: {}", text(&read));
    }
    let job = with_marker(&job_marker)[0];
    // End the job (its group); the terminal's foreground group is now an ended one.
    let mut go = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(t.root.join("go.fifo"))
        .unwrap();
    std::io::Write::write_all(&mut go, b"\n").unwrap();
    let reaped = || !std::path::Path::new(&format!("/proc/{job}")).exists();
    assert!(wait_for(reaped).await, "the job did not end");
    // A host process group takes the number (root: the next pid is the one after
    // `ns_last_pid`; another process may take it first, so try again).
    let mut victim = None;
    for _ in 0..100 {
        if std::fs::write("/proc/sys/kernel/ns_last_pid", (job - 1).to_string()).is_err() {
            eprintln!("skipped: cannot write ns_last_pid (not root?)");
            return;
        }
        let mut host = Command::new("sleep")
            .arg("1000")
            .process_group(0)
            .spawn()
            .unwrap();
        if host.id() as i32 == job {
            victim = Some(host);
            break;
        }
        host.kill().unwrap();
        host.wait().unwrap();
    }
    let mut victim = victim.expect("a host process took the ended job's number");
    let sent = t
        .call(
            0,
            "terminal_signal",
            json!({"sessionId": term, "signal": "SIGINT"}),
        )
        .await;
    // A fatal signal sets the exit status when it is sent: only this kill ends it.
    victim.kill().unwrap();
    let status = victim.wait().unwrap();
    drop(go);
    assert_eq!(
        status.signal(),
        Some(libc::SIGKILL),
        "the host process was signalled"
    );
    assert!(!sent.is_error(), "{}", text(&sent));
    let value = sent.value().unwrap();
    // No host pid in the answer (it named the ended group's number).
    assert!(!value.to_string().contains(&job.to_string()), "{value}");
}
