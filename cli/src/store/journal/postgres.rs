//! Journals and leases in a PostgreSQL run store: many instances on many hosts. Its clock is
//! the database's (`clock_timestamp()`), so hosts whose clocks differ agree on when a lease
//! lapses; claims lock the lease row (`FOR UPDATE`), and instances looking for orphans skip
//! the rows another is taking (`SKIP LOCKED`).
//!
//! The connection lives on a thread of its own with its own runtime: appends come from the
//! engine's thread and from async tasks alike, and each waits for its transaction there.

use std::sync::mpsc::{self, Sender};
use std::sync::Mutex;

use tokio::runtime::Runtime;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config};

use super::{sql, Claim, Fence, JournalDb, Refused};
use crate::store::postgres::{config, connect, ensure_schema, runtime};

/// PostgreSQL's clock in milliseconds since the Unix epoch.
const NOW_MS: &str = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/// A shared statement in PostgreSQL's words.
fn postgres(statement: &str) -> String {
    statement
        .replace("NOW_MS", NOW_MS)
        .replace("SKIP_LOCKED", "FOR UPDATE SKIP LOCKED")
        .replace("FOR_SHARE", "FOR SHARE")
}

/// Work for the connection's thread.
type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// The connection, made again after it was lost.
struct Connection {
    runtime: Runtime,
    config: Config,
    name: String,
    client: Option<Client>,
}

impl Connection {
    /// Run `work` on a live client; a failure drops the client, so the next job connects
    /// again.
    fn run<R>(
        &mut self,
        work: impl AsyncFnOnce(&mut Client) -> Result<R, tokio_postgres::Error>,
    ) -> Result<R, String> {
        let Connection {
            runtime,
            config,
            name,
            client,
        } = self;
        runtime.block_on(async {
            if client.as_ref().is_none_or(|c| c.is_closed()) {
                let mut fresh = connect(config, name).await?;
                ensure_schema(&mut fresh, name, &sql::SCHEMA).await?;
                *client = Some(fresh);
            }
            let live = client.as_mut().expect("connected above");
            let done = work(live).await;
            if done.as_ref().is_err_and(|e| e.code().is_none()) {
                *client = None;
            }
            done.map_err(|e| format!("{name}: {e}"))
        })
    }
}

/// The journals of a PostgreSQL run store.
pub(super) struct PostgresJournal {
    jobs: Mutex<Sender<Job>>,
    name: String,
}

impl PostgresJournal {
    /// Connect (making the tables if absent) on a thread of the journal's own.
    pub(super) fn open(url: &str) -> Result<PostgresJournal, String> {
        let (config, name) = config(url)?;
        let mut connection = Connection {
            runtime: runtime()?,
            config,
            name: name.clone(),
            client: None,
        };
        let (jobs, receive) = mpsc::channel::<Job>();
        let (ready, connected) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("ptc-journal".into())
            .spawn(move || {
                // The caller may be on a runtime: the first connection is made here too.
                let _ = ready.send(connection.run(async |_| Ok(())));
                for job in receive {
                    job(&mut connection);
                }
            })
            .map_err(|e| format!("cannot start the journal's thread: {e}"))?;
        connected
            .recv()
            .map_err(|_| format!("{name}: the journal's thread has ended"))??;
        Ok(PostgresJournal {
            jobs: Mutex::new(jobs),
            name,
        })
    }

    /// The store's name for messages (its URL without the password).
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Run `job` on the connection's thread and wait for what it returns.
    fn with<R: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Connection) -> R + Send + 'static,
    ) -> Result<R, String> {
        let (done, answer) = mpsc::sync_channel(1);
        let sent = self
            .jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(Box::new(move |c| {
                let _ = done.send(job(c));
            }));
        sent.map_err(|_| format!("{}: the journal's thread has ended", self.name))?;
        answer
            .recv()
            .map_err(|_| format!("{}: the journal's thread has ended", self.name))
    }
}

impl JournalDb for PostgresJournal {
    fn append(&self, run: &str, from: i64, body: &str, fence: Fence<'_>) -> Result<(), Refused> {
        let (run, body) = (run.to_string(), body.to_string());
        let (owner, lease_ms, epoch, ends, new) = match fence {
            Fence::New {
                owner,
                lease_ms,
                ends,
            } => (owner.to_string(), lease_ms, 0, ends, true),
            Fence::Held {
                owner,
                epoch,
                lease_ms,
                ends,
            } => (owner.to_string(), lease_ms, epoch, ends, false),
        };
        let done = self.with(move |c| {
            c.run(async |client| {
                let tx = client.transaction().await?;
                let leased = if new {
                    tx.execute(&postgres(sql::LEASE_NEW), &[&run, &owner, &lease_ms, &ends])
                        .await?
                } else if !ends {
                    let held = postgres(sql::LEASE_HELD);
                    let row = tx.query_opt(&held, &[&run, &owner, &epoch]).await?;
                    u64::from(row.is_some())
                } else {
                    let keep = postgres(sql::LEASE_KEEP);
                    tx.execute(&keep, &[&run, &owner, &lease_ms, &epoch, &ends])
                        .await?
                };
                if leased == 0 {
                    return Ok(Err(if new { Refused::Taken } else { Refused::Fenced }));
                }
                match tx.execute(sql::ENTRY, &[&run, &from, &body]).await {
                    Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                        return Ok(Err(Refused::Taken))
                    }
                    other => other?,
                };
                tx.commit().await?;
                Ok(Ok(()))
            })
        });
        done.map_err(Refused::Db)?.map_err(Refused::Db)?
    }

    fn load(&self, run: &str) -> Result<Vec<(i64, String)>, String> {
        let run = run.to_string();
        self.with(move |c| {
            c.run(async |client| {
                let rows = client.query(sql::LOAD, &[&run]).await?;
                Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
            })
        })?
    }

    fn runs(&self) -> Result<Vec<String>, String> {
        self.with(move |c| {
            c.run(async |client| {
                let rows = client
                    .query(
                        "SELECT run_id FROM journal WHERE seq = 0 \
                         ORDER BY (body::jsonb -> 0 ->> 'at_ms')::bigint, run_id",
                        &[],
                    )
                    .await?;
                Ok(rows.iter().map(|r| r.get(0)).collect())
            })
        })?
    }

    fn claim(
        &self,
        run: &str,
        owner: &str,
        lease_ms: i64,
        dead: Option<&str>,
    ) -> Result<Claim, String> {
        let (run, owner, dead) = (run.to_string(), owner.to_string(), dead.map(str::to_string));
        self.with(move |c| {
            c.run(async |client| {
                let tx = client.transaction().await?;
                let get = format!("{} FOR UPDATE", postgres(sql::LEASE_GET));
                let claim = match tx.query_opt(&get, &[&run]).await? {
                    None => {
                        let new = postgres(sql::LEASE_NEW);
                        tx.execute(&new, &[&run, &owner, &lease_ms, &false]).await?;
                        Claim::Taken(1)
                    }
                    Some(row) if row.get::<_, bool>(3) => Claim::Ended,
                    Some(row) => {
                        let (holder, left_ms) = (row.get::<_, String>(0), row.get::<_, i64>(2));
                        if super::held_by_another(&holder, left_ms, &owner, dead.as_deref()) {
                            Claim::Held {
                                owner: holder,
                                left_ms,
                            }
                        } else {
                            let take = postgres(sql::LEASE_TAKE);
                            let row = tx.query_one(&take, &[&run, &owner, &lease_ms]).await?;
                            Claim::Taken(row.get(0))
                        }
                    }
                };
                tx.commit().await?;
                Ok(claim)
            })
        })?
    }

    fn orphans(
        &self,
        owner: &str,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<(String, i64)>, String> {
        let owner = owner.to_string();
        self.with(move |c| {
            c.run(async |client| {
                let take = postgres(sql::ORPHANS);
                let rows = client.query(&take, &[&owner, &lease_ms, &limit]).await?;
                Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
            })
        })?
    }

    fn renew(
        &self,
        run: &str,
        owner: &str,
        epoch: i64,
        lease_ms: i64,
    ) -> Result<Option<bool>, String> {
        let (run, owner) = (run.to_string(), owner.to_string());
        self.with(move |c| {
            c.run(async |client| {
                let renew = postgres(sql::LEASE_RENEW);
                let row = client
                    .query_opt(&renew, &[&run, &owner, &lease_ms, &epoch])
                    .await?;
                Ok(row.map(|r| r.get(0)))
            })
        })?
    }

    fn lease(&self, run: &str) -> Result<Option<(String, bool, bool)>, String> {
        let run = run.to_string();
        self.with(move |c| {
            c.run(async |client| {
                let row = client.query_opt(&postgres(sql::LEASE_GET), &[&run]).await?;
                Ok(row.map(|r| (r.get(0), r.get(3), r.get(4))))
            })
        })?
    }

    fn last(&self, run: &str) -> Result<Option<String>, String> {
        let run = run.to_string();
        self.with(move |c| {
            c.run(async |client| {
                let row = client.query_opt(sql::LAST, &[&run]).await?;
                Ok(row.map(|r| r.get(0)))
            })
        })?
    }

    fn cancel(&self, run: &str) -> Result<bool, String> {
        let run = run.to_string();
        self.with(move |c| {
            c.run(async |client| Ok(client.execute(sql::CANCEL, &[&run]).await? > 0))
        })?
    }

    fn release(&self, run: &str, owner: &str, epoch: i64) -> Result<(), String> {
        let (run, owner) = (run.to_string(), owner.to_string());
        self.with(move |c| {
            c.run(async |client| {
                let release = postgres(sql::LEASE_RELEASE);
                client.execute(&release, &[&run, &owner, &epoch]).await?;
                Ok(())
            })
        })?
    }

    fn ask(&self, run: &str, key: &str, request: &str) -> Result<(Option<String>, i64), String> {
        let (run_id, key_id, request) = (run.to_string(), key.to_string(), request.to_string());
        self.with(move |c| {
            c.run(async |client| {
                client
                    .execute(&postgres(sql::ASK), &[&run_id, &key_id, &request])
                    .await?;
                Ok(())
            })
        })??;
        Ok(self.asked(run, key)?.unwrap_or((None, 0)))
    }

    fn asked(&self, run: &str, key: &str) -> Result<Option<(Option<String>, i64)>, String> {
        let (run, key) = (run.to_string(), key.to_string());
        self.with(move |c| {
            c.run(async |client| {
                let row = client
                    .query_opt(&postgres(sql::ASKED), &[&run, &key])
                    .await?;
                Ok(row.map(|r| (r.get(0), r.get(1))))
            })
        })?
    }

    fn open_questions(&self, run: &str) -> Result<Vec<(String, String)>, String> {
        let run = run.to_string();
        self.with(move |c| {
            c.run(async |client| {
                let rows = client.query(sql::OPEN, &[&run]).await?;
                Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
            })
        })?
    }

    fn answer(&self, run: &str, key: &str, answer: &str) -> Result<bool, String> {
        let (run, key, answer) = (run.to_string(), key.to_string(), answer.to_string());
        self.with(move |c| {
            c.run(async |client| Ok(client.execute(sql::ANSWER, &[&run, &key, &answer]).await? > 0))
        })?
    }

    fn remember(&self, run: &str, key: &str, request: &str, answer: &str) -> Result<(), String> {
        let values = [run, key, request, answer].map(str::to_string);
        self.with(move |c| {
            c.run(async |client| {
                let [run, key, request, answer] = &values;
                client
                    .execute(&postgres(sql::REMEMBER), &[run, key, request, answer])
                    .await?;
                Ok(())
            })
        })?
    }

    fn secret(&self, name: &str, fresh: &str) -> Result<String, String> {
        let (name, fresh) = (name.to_string(), fresh.to_string());
        self.with(move |c| {
            c.run(async |client| {
                client.execute(sql::SECRET_NEW, &[&name, &fresh]).await?;
                Ok(client.query_one(sql::SECRET, &[&name]).await?.get(0))
            })
        })?
    }
}
