//! The operator's terminal: `ptc run` on a real PTY (its controlling terminal), where a program
//! tries to answer ptc's approval prompt with typed-ahead input and to rewrite what the operator
//! reads with escape sequences in arguments, reasons, console lines, results and replays.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A `ptc` process whose standard streams and controlling terminal are the slave side of a
/// PTY; everything it writes to the terminal is collected from the master side.
struct OnTerminal {
    child: Child,
    master: File,
    screen: Arc<(Mutex<Vec<u8>>, Condvar)>,
}

impl OnTerminal {
    fn spawn(args: &[&str], xdg: &Path) -> OnTerminal {
        Self::spawn_typed_ahead(args, xdg, "")
    }

    /// [`OnTerminal::spawn`] with `typed` already waiting in the terminal's input when ptc
    /// starts (typed before any question could show, however the processes are scheduled).
    fn spawn_typed_ahead(args: &[&str], xdg: &Path, typed: &str) -> OnTerminal {
        let (mut master, mut slave) = (-1, -1);
        let opened = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        File::from(master.try_clone().unwrap())
            .write_all(typed.as_bytes())
            .unwrap();
        let stdio = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
        let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
        command
            .args(args)
            .env("XDG_CONFIG_HOME", xdg)
            .stdin(stdio(&slave))
            .stdout(stdio(&slave))
            .stderr(stdio(&slave));
        // A session of its own whose controlling terminal is the PTY, as in a shell.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("ptc runs");
        drop(slave);
        let master = File::from(master);
        let screen = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let (mut reader, collected) = (master.try_clone().unwrap(), screen.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the last slave descriptor is closed: the process is gone.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                collected.0.lock().unwrap().extend_from_slice(&buf[..n]);
                collected.1.notify_all();
            }
        });
        OnTerminal {
            child,
            master,
            screen,
        }
    }

    /// Type `text` on the terminal.
    fn type_in(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).unwrap();
    }

    /// Wait until the terminal shows `needle` (the process signals readiness by printing it).
    fn wait_for(&mut self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let (lock, ready) = &*self.screen;
        let mut shown = lock.lock().unwrap();
        while !String::from_utf8_lossy(&shown).contains(needle) {
            let gone = self.child.try_wait().unwrap().is_some();
            assert!(
                !gone && Instant::now() < deadline,
                "the terminal never showed {needle:?}; it shows:\n{}",
                String::from_utf8_lossy(&shown)
            );
            shown = ready
                .wait_timeout(shown, Duration::from_millis(100))
                .unwrap()
                .0;
        }
    }

    /// Wait for the process to exit (killed, and the test failed, if it has not within a
    /// minute: a prompt that never took its answer); everything it showed.
    fn finish(mut self) -> (i32, Vec<u8>) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "ptc did not exit; the terminal shows:\n{}",
                    String::from_utf8_lossy(&self.screen.0.lock().unwrap())
                );
            }
            self.wait_until_quiet();
        };
        let code = status.code().expect("ptc died of a signal");
        // The reader thread ends at EIO once the slave is closed; take what it has.
        self.wait_until_quiet();
        let shown = self.screen.0.lock().unwrap().clone();
        (code, shown)
    }

    fn wait_until_quiet(&self) {
        let (lock, ready) = &*self.screen;
        let mut shown = lock.lock().unwrap();
        loop {
            let before = shown.len();
            let (next, timeout) = ready
                .wait_timeout(shown, Duration::from_millis(200))
                .unwrap();
            shown = next;
            if timeout.timed_out() && shown.len() == before {
                return;
            }
        }
    }
}

/// Raw escape bytes: ESC, and U+009B (CSI as one C1 character) encoded in UTF-8.
fn raw_escapes(shown: &[u8]) -> usize {
    shown.iter().filter(|&&b| b == 0x1b).count()
        + shown.windows(2).filter(|w| w == &[0xc2, 0x9b]).count()
}

const PROGRAM: &str = r#"
let answer;
try {
  await tools.echo({ text: "ls -la\u009b2K\u009b1A\u009b8m" });
  answer = "allowed";
} catch (e) {
  answer = "refused: " + e.name;
}
console.log("console:\u001b]52;c;ZXZpbA==\u0007\u001b[2J");
return answer + " result:\u001b[1A\u001b[2K";
"#;

#[test]
fn hostile_approval_prompt_ignores_typed_ahead_input_and_shows_escapes() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let (root, xdg) = (base.join("root"), base.join("xdg"));
    std::fs::create_dir_all(&root).unwrap();
    let config = base.join("operator.toml");
    std::fs::write(
        &config,
        "tools = [\"testkit\"]\n\n[[policy]]\ntool = \"echo\"\naction = \"ask\"\n\
         reason = \"check\\u001b[2K\\u001b[1A this\"\n",
    )
    .unwrap();
    std::fs::write(root.join("program.ts"), PROGRAM).unwrap();
    let log = base.join("session.jsonl");
    let (root_arg, config_arg, log_arg) = (
        root.to_str().unwrap(),
        config.to_str().unwrap(),
        log.to_str().unwrap(),
    );
    let program = root.join("program.ts");
    let args = [
        "run",
        "--root",
        root_arg,
        "--config",
        config_arg,
        "--log",
        log_arg,
        program.to_str().unwrap(),
    ];

    // Typed ahead (as a program's TIOCSTI or a keystroke before the question would be):
    // discarded, never the answer.
    let mut run = OnTerminal::spawn_typed_ahead(&args, &xdg, "y\n");
    run.wait_for("[y/N] ");
    run.type_in("n\n");
    let (code, shown) = run.finish();
    let text = String::from_utf8_lossy(&shown);
    assert!(text.contains("refused: ToolCallError"), "{text:?}");
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        raw_escapes(&shown),
        0,
        "raw escapes reached the terminal:\n{text:?}"
    );
    for stand_in in [
        "check␛[2K␛[1A this",
        "<U+009B>2K<U+009B>1A",
        "console:␛]52;c;ZXZpbA==␇␛[2J",
        "result:␛[1A␛[2K",
    ] {
        assert!(
            text.contains(stand_in),
            "{stand_in:?} not shown in:\n{text}"
        );
    }

    // Answered after the question: allowed.
    let mut run = OnTerminal::spawn(&args, &xdg);
    run.wait_for("[y/N] ");
    run.type_in("y\n");
    let (code, shown) = run.finish();
    assert_eq!(code, 0);
    assert!(String::from_utf8_lossy(&shown).contains("allowed result:"));

    // The replay on a terminal shows the same stand-ins; into a pipe, the exact bytes.
    let replay = ["replay", "--tools", "testkit", log_arg];
    let (code, shown) = OnTerminal::spawn(&replay, &xdg).finish();
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&shown));
    assert_eq!(
        raw_escapes(&shown),
        0,
        "{:?}",
        String::from_utf8_lossy(&shown)
    );
    assert!(String::from_utf8_lossy(&shown).contains("␛[2K"));
    let piped = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(replay)
        .env("XDG_CONFIG_HOME", &xdg)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        raw_escapes(&piped.stdout) > 0,
        "the piped replay lost its bytes"
    );
}

#[test]
fn hostile_console_output_waits_while_the_approval_prompt_is_open() {
    // A program that prints while ptc asks could draw a look-alike prompt for a harmless call
    // under the real one, or scroll the real one away; its lines wait for the answer instead.
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let config = base.join("operator.toml");
    std::fs::write(
        &config,
        "tools = [\"testkit\"]\n\n[[policy]]\ntool = \"echo\"\naction = \"ask\"\nreason = \"asked\"\n",
    )
    .unwrap();
    let program = base.join("program.ts");
    std::fs::write(
        &program,
        r#"
let done = false;
const call = tools.echo({ text: "real" }).then(() => "allowed", () => "refused").finally(() => { done = true; });
for (let i = 0; !done && i < 400; i++) {
  console.log("FAKE-PROMPT " + i + "\nAllow this call once? [y/N] ");
  await new Promise((r) => setTimeout(r, 5));
}
return await call;
"#,
    )
    .unwrap();
    let root = base.join("root");
    std::fs::create_dir(&root).unwrap();
    let args = [
        "run",
        "--root",
        root.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        program.to_str().unwrap(),
    ];
    let mut run = OnTerminal::spawn(&args, &base.join("xdg"));
    run.wait_for("ptc: asked");
    // Nothing more reaches the terminal while the question is open.
    run.wait_until_quiet();
    run.type_in("n\n");
    let (code, shown) = run.finish();
    let text = String::from_utf8_lossy(&shown);
    let asked = text.find("ptc: asked").unwrap();
    let answered = asked + text[asked..].find("[y/N] n").expect("the answer echoed");
    assert!(
        !text[asked..answered].contains("FAKE-PROMPT"),
        "console output was shown under the open prompt:\n{text}"
    );
    assert!(text.contains("refused"), "{text}");
    assert_eq!(code, 0, "{text}");
}

#[test]
fn ptc_run_on_a_terminal_shows_each_console_line_once() {
    // Console lines stream live to the terminal; the result then shows only what they did not
    // (the returned value), on success and on failure alike.
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("root");
    std::fs::create_dir(&root).unwrap();
    for (name, program, code) in [
        (
            "ok.ts",
            "console.log('LINE-ONE');\nconsole.log('LINE-TWO');\nreturn 'VALUE';",
            0,
        ),
        (
            "fails.ts",
            "console.log('LINE-ONE');\nconsole.log('LINE-TWO');\nthrow new Error('BOOM');",
            1,
        ),
    ] {
        let program_path = base.join(name);
        std::fs::write(&program_path, program).unwrap();
        let args = [
            "run",
            "--root",
            root.to_str().unwrap(),
            program_path.to_str().unwrap(),
        ];
        let run = OnTerminal::spawn(&args, &base.join("xdg"));
        let (exit, shown) = run.finish();
        let text = String::from_utf8_lossy(&shown);
        assert_eq!(exit, code, "{text}");
        for once in ["LINE-ONE", "LINE-TWO"] {
            assert_eq!(text.matches(once).count(), 1, "{name}: {once}:\n{text}");
        }
        let last = if code == 0 { "VALUE" } else { "BOOM" };
        assert!(text.contains(last), "{name}:\n{text}");
    }
}
