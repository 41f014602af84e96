//! The run store in PostgreSQL (`postgres://…`): one database for many instances. The writer
//! thread drives an async client (tokio-postgres) on a runtime of its own; a lost connection is
//! made again on the next batch, the batch kept meanwhile ([`super::writer`]). The tables are
//! made if absent under a transaction-scoped advisory lock, so instances starting at once do not
//! race.

use std::time::Duration;

use ptc::session::SessionEvent;
use tokio::runtime::Runtime;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, NoTls, Statement};

use super::query::{sql, Filter, Param, RunRow};
use super::record::{parse_rows, FetchedBlobs, Record, RunUpdate};
use super::writer::Backend;

/// The tables and their indexes (made if absent).
const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, instance TEXT NOT NULL, \
     process TEXT NOT NULL, tool TEXT NOT NULL, started_ms BIGINT NOT NULL, ended_ms BIGINT, \
     status TEXT)",
    "CREATE INDEX IF NOT EXISTS runs_started ON runs (started_ms)",
    "CREATE INDEX IF NOT EXISTS runs_instance ON runs (instance, started_ms)",
    "CREATE TABLE IF NOT EXISTS events (seq BIGSERIAL PRIMARY KEY, run_id TEXT NOT NULL, \
     at_ms BIGINT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS events_run ON events (run_id, seq)",
    "CREATE INDEX IF NOT EXISTS events_at ON events (at_ms)",
    "CREATE TABLE IF NOT EXISTS blobs (hash TEXT NOT NULL, json BOOLEAN NOT NULL, \
     bytes BYTEA NOT NULL, PRIMARY KEY (hash, json))",
];

/// The advisory lock key held while the schema is made ("ptc-runs" in ASCII).
const SCHEMA_LOCK: i64 = 0x7074_632d_7275_6e73;

/// A parsed PostgreSQL URL, and its name for messages (without the password).
pub(crate) fn config(url: &str) -> Result<(Config, String), String> {
    let mut config: Config = url
        .parse()
        .map_err(|e| format!("bad PostgreSQL URL `{}`: {e}", redacted(url)))?;
    config.application_name("ptc");
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    Ok((config, redacted(url)))
}

/// `url` with its password replaced by `***`.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{name}:***@{host}{path}")
        }
        _ => url.to_string(),
    }
}

/// The writer's connection, made again after it was lost.
pub(crate) struct Postgres {
    runtime: Runtime,
    config: Config,
    name: String,
    client: Option<(Client, Statements)>,
}

struct Statements {
    blob: Statement,
    start: Statement,
    end: Statement,
    touch: Statement,
    event: Statement,
}

impl Postgres {
    /// Connect, make the tables if absent, and prepare the writer's statements.
    pub(crate) fn open(url: &str) -> Result<Postgres, String> {
        let (config, name) = config(url)?;
        let runtime = runtime()?;
        let mut store = Postgres {
            runtime,
            config,
            name,
            client: None,
        };
        store.connect()?;
        Ok(store)
    }

    fn connect(&mut self) -> Result<(), String> {
        let (config, name) = (&self.config, &self.name);
        let ready = self.runtime.block_on(async {
            let mut client = connect(config, name).await?;
            ensure_schema(&mut client, name, SCHEMA).await?;
            let named = |e: tokio_postgres::Error| format!("{name}: {e}");
            let statements = Statements {
                blob: client.prepare(sql::BLOB).await.map_err(named)?,
                start: client.prepare(sql::RUN_START).await.map_err(named)?,
                end: client.prepare(sql::RUN_END).await.map_err(named)?,
                touch: client.prepare(sql::RUN_TOUCH).await.map_err(named)?,
                event: client.prepare(sql::EVENT).await.map_err(named)?,
            };
            Ok::<_, String>((client, statements))
        });
        let (client, statements) = ready?;
        self.client = Some((client, statements));
        Ok(())
    }
}

impl Backend for Postgres {
    fn write(&mut self, batch: &[Record]) -> Result<(), String> {
        if self.client.as_ref().is_none_or(|(c, _)| c.is_closed()) {
            self.client = None;
            self.connect()?;
        }
        let Some((client, s)) = self.client.as_mut() else {
            return Err(format!("{}: not connected", self.name));
        };
        let written = self.runtime.block_on(async {
            let tx = client.transaction().await?;
            for r in batch {
                for (hash, json, bytes) in &r.blobs {
                    tx.execute(&s.blob, &[hash, json, bytes]).await?;
                }
                let (run, instance, process) = (&r.run_id, &*r.instance, r.process);
                let head: [&(dyn ToSql + Sync); 5] = [run, &instance, &process, &r.tool, &r.at_ms];
                match r.run_update() {
                    RunUpdate::Start => tx.execute(&s.start, &head).await?,
                    RunUpdate::End(status) => {
                        let mut all = head.to_vec();
                        all.extend([&r.at_ms as &(dyn ToSql + Sync), &status]);
                        tx.execute(&s.end, &all).await?
                    }
                    RunUpdate::Touch => tx.execute(&s.touch, &head).await?,
                };
                tx.execute(&s.event, &[run, &r.at_ms, &r.kind, &r.body])
                    .await?;
            }
            tx.commit().await
        });
        written.map_err(|e| {
            // The connection may be gone: the next attempt makes a new one.
            self.client = None;
            format!("{}: {e}", self.name)
        })
    }
}

/// The events of the runs `filter` selects, in the order they were written.
pub(crate) async fn read(url: &str, filter: &Filter) -> Result<Vec<SessionEvent>, String> {
    let (config, name) = config(url)?;
    let client = connect(&config, &name).await?;
    let named = |e: tokio_postgres::Error| format!("{name}: {e}");
    let (sql, params) = filter.events_query();
    let rows = client
        .query(&sql, &refs(&params))
        .await
        .map_err(named)?
        .into_iter()
        .map(|row| (row.get::<_, String>(0), row.get::<_, String>(1)))
        .collect::<Vec<_>>();
    let stored = parse_rows(rows)?;
    let mut blobs = FetchedBlobs::default();
    for (hash, json) in &stored.wanted {
        if let Some(row) = client
            .query_opt(sql::BLOB_GET, &[hash, json])
            .await
            .map_err(named)?
        {
            blobs.0.insert((hash.clone(), *json), row.get(0));
        }
    }
    stored.into_events(&blobs)
}

/// The runs `filter` selects, oldest first.
pub(crate) async fn list(url: &str, filter: &Filter) -> Result<Vec<RunRow>, String> {
    let (config, name) = config(url)?;
    let client = connect(&config, &name).await?;
    let (sql, params) = filter.runs_query();
    let rows = client
        .query(&sql, &refs(&params))
        .await
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(rows
        .into_iter()
        .map(|row| RunRow {
            run_id: row.get(0),
            instance: row.get(1),
            process: row.get(2),
            tool: row.get(3),
            started_ms: row.get(4),
            ended_ms: row.get(5),
            status: row.get(6),
        })
        .collect())
}

/// A connection whose driving task runs on the current runtime.
pub(super) async fn connect(config: &Config, name: &str) -> Result<Client, String> {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|e| format!("cannot reach the run store {name}: {e}"))?;
    tokio::spawn(async move {
        // Ends when the connection does: the client then reports itself closed.
        let _ = connection.await;
    });
    Ok(client)
}

/// Make the tables of `schema` if absent, one instance at a time.
pub(super) async fn ensure_schema(
    client: &mut Client,
    name: &str,
    schema: &[&str],
) -> Result<(), String> {
    let named =
        |e: tokio_postgres::Error| format!("{name}: cannot make the run store's tables: {e}");
    let tx = client.transaction().await.map_err(named)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
        .await
        .map_err(named)?;
    for statement in schema {
        tx.batch_execute(statement).await.map_err(named)?;
    }
    tx.commit().await.map_err(named)
}

fn refs(params: &[Param]) -> Vec<&(dyn ToSql + Sync)> {
    params
        .iter()
        .map(|p| match p {
            Param::Text(s) => s as &(dyn ToSql + Sync),
            Param::Int(n) => n as &(dyn ToSql + Sync),
        })
        .collect()
}

pub(super) fn runtime() -> Result<Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the run store's runtime: {e}"))
}
