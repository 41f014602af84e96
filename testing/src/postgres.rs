//! A throwaway PostgreSQL server for tests: Debian's `postgresql` binaries
//! (`/usr/lib/postgresql/<version>/bin`, or the directory in `PTC_PG_BIN`), a fresh cluster in a temp
//! dir, trust authentication, a free TCP port on 127.0.0.1 and the unix socket in the temp dir.
//!
//! PostgreSQL refuses to run as root, so as root the cluster is owned by and runs as the `postgres`
//! user (`runuser -u postgres`). [`Server::start`] returns `None`, after printing why, when the
//! binaries are absent: the caller skips its test. The server stops when the [`Server`] drops, on a
//! panic too.
//!
//! ```no_run
//! let Some(pg) = ptc_testing::postgres::Server::start() else { return };
//! let url = pg.url(); // postgres://postgres@127.0.0.1:PORT/postgres
//! let other = pg.create_database("cluster_a"); // a second, empty database on the same server
//! ```

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A running PostgreSQL server, stopped (fast, `-m immediate`) when dropped.
pub struct Server {
    bin: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    as_postgres: bool,
}

impl Server {
    /// Starts a fresh server and waits until it accepts connections, or prints why not and returns
    /// `None` when the PostgreSQL binaries are absent. Panics, naming the step and its output, when
    /// the binaries are there but the server does not come up.
    pub fn start() -> Option<Server> {
        let Some(bin) = binaries() else {
            // CI installs the server: there a missing one is a failure, not a skip.
            assert!(
                std::env::var_os("CI").is_none(),
                "PostgreSQL server binaries not found under CI (.ci/run installs `postgresql`)"
            );
            eprintln!(
                "skipped: PostgreSQL server binaries not found (Debian's `postgresql` package, \
                 /usr/lib/postgresql/*/bin, or PTC_PG_BIN)"
            );
            return None;
        };
        let as_postgres = is_root();
        let dir = tempfile::Builder::new()
            .prefix("ptc-pg-")
            .tempdir()
            .expect("a temp dir for the PostgreSQL cluster");
        if as_postgres {
            let (uid, gid) = postgres_ids();
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))
                .expect("the cluster's temp dir handed to the postgres user");
        }
        let mut server = Server {
            bin,
            dir,
            port: 0,
            as_postgres,
        };
        let data = server.data().to_string_lossy().into_owned();
        server.run(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        // A free port can be taken between asking and binding: try a few.
        let mut last = String::new();
        for _ in 0..5 {
            server.port = free_port();
            let options = format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
                server.port,
                server.dir.path().display()
            );
            let log = server.dir.path().join("server.log");
            let mut start = server.command("pg_ctl");
            start.args([
                "-D",
                &data,
                "-o",
                &options,
                "-l",
                &log.to_string_lossy(),
                "-w",
                "-t",
                "60",
                "start",
            ]);
            let output = output_of(start, "pg_ctl start");
            if output.status.success() {
                server.wait_ready();
                return Some(server);
            }
            last = format!(
                "{}{}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr),
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        panic!("PostgreSQL did not start:\n{last}");
    }

    /// The URL of the `postgres` database as the `postgres` superuser over TCP.
    pub fn url(&self) -> String {
        self.database_url("postgres")
    }

    /// The URL of `database` on this server (as the `postgres` superuser over TCP).
    pub fn database_url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// The TCP port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory of the PostgreSQL binaries in use (`psql`, `createdb`, ...).
    pub fn bin_dir(&self) -> &Path {
        &self.bin
    }

    /// The directory holding the server's unix socket (`.s.PGSQL.<port>`).
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Creates an empty database `name` and returns its URL.
    pub fn create_database(&self, name: &str) -> String {
        let port = self.port.to_string();
        let host = self.dir.path().to_string_lossy().into_owned();
        self.run(
            "createdb",
            &["-h", &host, "-p", &port, "-U", "postgres", name],
        );
        self.database_url(name)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Polls `pg_isready` until the server accepts connections (30 s deadline).
    fn wait_ready(&self) {
        let port = self.port.to_string();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let mut ready = self.command("pg_isready");
            ready.args(["-h", "127.0.0.1", "-p", &port, "-U", "postgres"]);
            if output_of(ready, "pg_isready").status.success() {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "PostgreSQL on port {port} did not accept connections within 30 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// `program` from the server's bin dir, as the `postgres` user when we are root.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        };
        command.current_dir(self.dir.path());
        command
    }

    /// Runs `program` with `args` and panics with its output when it fails.
    fn run(&self, program: &str, args: &[&str]) {
        let mut command = self.command(program);
        command.args(args);
        let output = output_of(command, program);
        assert!(
            output.status.success(),
            "{program} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let data = self.data().to_string_lossy().into_owned();
        let mut stop = self.command("pg_ctl");
        stop.args(["-D", &data, "-m", "immediate", "-w", "stop"]);
        // Best effort: a failed stop must not turn into a second panic during unwinding.
        let _ = stop.output();
    }
}

fn output_of(mut command: Command, what: &str) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"))
}

/// The newest `/usr/lib/postgresql/<version>/bin` holding `initdb`, `pg_ctl` and `postgres`, or
/// `PTC_PG_BIN`.
fn binaries() -> Option<PathBuf> {
    let complete = |dir: &Path| {
        ["initdb", "pg_ctl", "postgres", "pg_isready"]
            .iter()
            .all(|b| dir.join(b).is_file())
    };
    if let Some(dir) = std::env::var_os("PTC_PG_BIN") {
        let dir = PathBuf::from(dir);
        return complete(&dir).then_some(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, bin)| complete(bin))
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // The owner of a file we just created is our effective uid, without a libc call.
    let probe = tempfile::NamedTempFile::new().expect("a probe file in the temp dir");
    probe
        .as_file()
        .metadata()
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

fn postgres_ids() -> (u32, u32) {
    let id = |flag: &str| -> u32 {
        let output = Command::new("id")
            .args([flag, "postgres"])
            .output()
            .expect("`id` runs");
        assert!(
            output.status.success(),
            "running PostgreSQL as root needs a `postgres` user (Debian's package creates it)"
        );
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .expect("`id` prints a number")
    };
    (id("-u"), id("-g"))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free local port")
}

/// The rows `sql` returns from the database at `url`, unaligned (`|` between columns, one
/// row a line), through `psql` (Debian's postgresql-client); a failure fails the test.
pub fn psql(url: &str, sql: &str) -> String {
    let out = std::process::Command::new("psql")
        .args([
            url,
            "-X",
            "-q",
            "-A",
            "-t",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            sql,
        ])
        .output()
        .expect("psql (Debian's postgresql-client) runs");
    assert!(out.status.success(), "{sql}: {out:?}");
    String::from_utf8(out.stdout).expect("psql prints UTF-8")
}
