//! The database log: appends become records on a bounded queue, one writer thread commits
//! them in batches (every [`Options::batch_events`] records or [`Options::batch_interval`]),
//! retrying a failed batch with backoff (a database that went away), and [`DbLog::close`] (or
//! dropping the log) writes what is queued before returning.
//!
//! While the database cannot be written, the queue fills; past [`Options::buffer`] records an
//! append is dropped, counted ([`DbLog::dropped`]), and said once on stderr.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ptc::session::spill::Spill;
use ptc::session::{SessionError, SessionEvent, SessionLog};

use super::record::{record_of, PendingBlobs, Record};

/// A database the writer thread commits batches to.
pub(crate) trait Backend: Send + 'static {
    /// Write `batch` in one transaction; `Err` says why (the batch is retried).
    fn write(&mut self, batch: &[Record]) -> Result<(), String>;
}

/// How the writer batches and buffers.
#[derive(Debug, Clone)]
pub struct Options {
    /// Records queued at most while the database is slow or away; more are dropped.
    pub buffer: usize,
    /// Records per batch at most.
    pub batch_events: usize,
    /// How long a record waits at most for its batch to fill.
    pub batch_interval: Duration,
    /// On close, how long to keep retrying a database that cannot be written.
    pub close_retry: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            buffer: 100_000,
            batch_events: 500,
            batch_interval: Duration::from_millis(50),
            close_retry: Duration::from_secs(5),
        }
    }
}

enum Message {
    Record(Record),
    /// Write everything before this, then answer.
    Flush(SyncSender<()>),
}

#[derive(Debug, Default)]
struct Counters {
    dropped: AtomicU64,
    lost: AtomicU64,
    /// The last write error, for the message about missing events.
    last_error: Mutex<Option<String>>,
    closing: AtomicBool,
}

/// A session log in a database, written by its own thread.
pub struct DbLog {
    name: String,
    sender: Mutex<Option<SyncSender<Message>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    spill: Mutex<Spill<PendingBlobs>>,
    instance: RwLock<Arc<str>>,
    counters: Arc<Counters>,
}

impl DbLog {
    /// Start the writer thread: it makes its backend with `connect` (whose error is returned
    /// here) and then writes what is appended. `name` names the store in messages.
    pub(crate) fn start<B: Backend>(
        name: String,
        instance: &str,
        options: Options,
        connect: impl FnOnce() -> Result<B, String> + Send + 'static,
    ) -> Result<DbLog, String> {
        let (sender, receiver) = mpsc::sync_channel(options.buffer.max(1));
        let (ready, connected) = mpsc::sync_channel(1);
        let counters = Arc::new(Counters::default());
        let shared = counters.clone();
        let thread_name = name.clone();
        let thread = std::thread::Builder::new()
            .name("ptc-run-store".into())
            .spawn(move || {
                let backend = match connect() {
                    Ok(backend) => {
                        let _ = ready.send(Ok(()));
                        backend
                    }
                    Err(e) => {
                        let _ = ready.send(Err(e));
                        return;
                    }
                };
                Writer {
                    backend,
                    options,
                    counters: shared,
                    name: thread_name,
                    failing: false,
                    closing_since: None,
                }
                .run(receiver)
            })
            .map_err(|e| format!("cannot start the run store's writer: {e}"))?;
        match connected.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(format!("{name}: the writer stopped while connecting")),
        }
        Ok(DbLog {
            name,
            sender: Mutex::new(Some(sender)),
            thread: Mutex::new(Some(thread)),
            spill: Mutex::new(Spill::new(PendingBlobs::default())),
            instance: RwLock::new(instance.into()),
            counters,
        })
    }

    /// The store's name in messages (its URL without a password).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Set the instance recorded with the runs that start from now on.
    pub fn set_instance(&self, instance: &str) {
        *self.instance.write().unwrap_or_else(|e| e.into_inner()) = instance.into();
    }

    /// Events dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.counters.dropped.load(Ordering::Relaxed)
    }

    /// Events queued but never written (the database stayed away through close).
    pub fn lost(&self) -> u64 {
        self.counters.lost.load(Ordering::Relaxed)
    }

    /// Why events are missing from the store, if they are (a write that failed and then
    /// succeeded on retry lost nothing).
    pub fn failure(&self) -> Option<String> {
        let (dropped, lost) = (self.dropped(), self.lost());
        if dropped + lost == 0 {
            return None;
        }
        let last = self
            .counters
            .last_error
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let cause = last.as_deref().map(|e| format!(" (last error: {e})"));
        Some(format!(
            "{}: {dropped} events dropped (queue full), {lost} not written{}",
            self.name,
            cause.unwrap_or_default()
        ))
    }

    /// Wait until everything appended so far is written (or given up on at close).
    pub fn flush(&self) {
        let sender = self
            .sender
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(sender) = sender {
            let (done, wait) = mpsc::sync_channel(1);
            if sender.send(Message::Flush(done)).is_ok() {
                let _ = wait.recv();
            }
        }
    }

    /// Write what is queued and stop the writer; later appends fail. Says on stderr how many
    /// events were dropped or not written, if any.
    pub fn close(&self) {
        self.counters.closing.store(true, Ordering::Relaxed);
        drop(self.sender.lock().unwrap_or_else(|e| e.into_inner()).take());
        let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(thread) = thread {
            let _ = thread.join();
            if let Some(failure) = self.failure() {
                eprintln!("ptc: run store {failure}");
            }
        }
    }
}

impl Drop for DbLog {
    fn drop(&mut self) {
        self.close();
    }
}

impl SessionLog for DbLog {
    fn append(&self, event: &SessionEvent) -> Result<(), SessionError> {
        let instance = self
            .instance
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let record = {
            let mut spill = self.spill.lock().unwrap_or_else(|e| e.into_inner());
            record_of(event, &mut spill, instance)?
        };
        let sender = self
            .sender
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let Some(sender) = sender else {
            return Err(SessionError(format!("{}: closed", self.name)));
        };
        match sender.try_send(Message::Record(record)) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => {
                if self.counters.dropped.fetch_add(1, Ordering::Relaxed) == 0 {
                    eprintln!(
                        "ptc: run store {}: its queue is full (the database is slow or away): \
                         dropping events, counted until it drains",
                        self.name
                    );
                }
                Err(SessionError(format!(
                    "{}: queue full, event dropped",
                    self.name
                )))
            }
            Err(TrySendError::Disconnected(_)) => {
                Err(SessionError(format!("{}: the writer stopped", self.name)))
            }
        }
    }
}

struct Writer<B> {
    backend: B,
    options: Options,
    counters: Arc<Counters>,
    name: String,
    failing: bool,
    /// When a failing write first saw the log closing (it retries for `close_retry` from then).
    closing_since: Option<Instant>,
}

impl<B: Backend> Writer<B> {
    fn run(mut self, receiver: Receiver<Message>) {
        let mut batch = Vec::new();
        let mut waiters = Vec::new();
        let mut open = true;
        while open {
            // The first record of a batch is waited for; the rest for the batch interval.
            match receiver.recv() {
                Ok(message) => self.take(message, &mut batch, &mut waiters),
                Err(_) => open = false,
            }
            let deadline = Instant::now() + self.options.batch_interval;
            while open && waiters.is_empty() && batch.len() < self.options.batch_events {
                let left = deadline.saturating_duration_since(Instant::now());
                match receiver.recv_timeout(left) {
                    Ok(message) => self.take(message, &mut batch, &mut waiters),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => open = false,
                }
            }
            self.write(&mut batch);
            for waiter in waiters.drain(..) {
                let _ = waiter.send(());
            }
        }
    }

    fn take(&self, message: Message, batch: &mut Vec<Record>, waiters: &mut Vec<SyncSender<()>>) {
        match message {
            Message::Record(record) => batch.push(record),
            Message::Flush(done) => waiters.push(done),
        }
    }

    /// Write `batch`, retrying with backoff; once the log is closing, only for
    /// [`Options::close_retry`], after which it counts as lost.
    fn write(&mut self, batch: &mut Vec<Record>) {
        if batch.is_empty() {
            return;
        }
        let mut backoff = Duration::from_millis(50);
        loop {
            match self.backend.write(batch) {
                Ok(()) => {
                    if std::mem::take(&mut self.failing) {
                        eprintln!("ptc: run store {}: writing again", self.name);
                    }
                    batch.clear();
                    return;
                }
                Err(e) => {
                    *self
                        .counters
                        .last_error
                        .lock()
                        .unwrap_or_else(|e| e.into_inner()) = Some(e.clone());
                    if !std::mem::replace(&mut self.failing, true) {
                        eprintln!(
                            "ptc: run store {}: {e} (retrying; up to {} events are kept meanwhile)",
                            self.name, self.options.buffer
                        );
                    }
                    if self.counters.closing.load(Ordering::Relaxed) {
                        self.closing_since.get_or_insert_with(Instant::now);
                    }
                    let given_up = self
                        .closing_since
                        .is_some_and(|since| since.elapsed() >= self.options.close_retry);
                    if given_up {
                        self.counters
                            .lost
                            .fetch_add(batch.len() as u64, Ordering::Relaxed);
                        batch.clear();
                        return;
                    }
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// A database that refuses writes until `up`, keeping what it was given.
    struct Flaky {
        up: Arc<AtomicBool>,
        written: Arc<Mutex<Vec<String>>>,
    }

    impl Backend for Flaky {
        fn write(&mut self, batch: &[Record]) -> Result<(), String> {
            if !self.up.load(Ordering::SeqCst) {
                return Err("connection refused".into());
            }
            let mut written = self.written.lock().unwrap();
            written.extend(batch.iter().map(|r| r.run_id.clone()));
            Ok(())
        }
    }

    fn call(id: &str) -> SessionEvent {
        SessionEvent::ToolCall {
            at_ms: 1,
            turn: 0,
            step: 0,
            call_id: id.into(),
            name: "t".into(),
            arguments: Arc::new(serde_json::json!({})),
        }
    }

    #[test]
    fn a_full_queue_drops_and_counts_events_and_the_queued_ones_reach_the_database_later() {
        let up = Arc::new(AtomicBool::new(false));
        let written = Arc::new(Mutex::new(Vec::new()));
        let backend = Flaky {
            up: up.clone(),
            written: written.clone(),
        };
        let options = Options {
            buffer: 4,
            batch_events: 1,
            batch_interval: Duration::ZERO,
            close_retry: Duration::from_secs(30),
        };
        let log = DbLog::start("test".into(), "i", options, move || Ok(backend)).unwrap();
        // The writer holds one record (retrying it), the queue four more; the rest drop.
        let results: Vec<bool> = (0..10)
            .map(|n| log.append(&call(&format!("r{n}"))).is_ok())
            .collect();
        let accepted = results.iter().filter(|ok| **ok).count() as u64;
        assert!((4..=5).contains(&accepted), "{results:?}");
        assert_eq!(log.dropped(), 10 - accepted);
        assert!(log.failure().unwrap().contains("events dropped"));
        up.store(true, Ordering::SeqCst);
        log.close();
        assert_eq!(log.lost(), 0);
        // Which ones were dropped depends on when the writer took its first record.
        let expected: Vec<String> = (0..10)
            .filter(|n| results[*n])
            .map(|n| format!("r{n}"))
            .collect();
        assert_eq!(*written.lock().unwrap(), expected, "in order, none lost");
    }

    #[test]
    fn closing_gives_up_on_an_unreachable_database_in_time_and_counts_the_lost() {
        let backend = Flaky {
            up: Arc::new(AtomicBool::new(false)),
            written: Arc::default(),
        };
        let options = Options {
            close_retry: Duration::from_millis(200),
            ..Options::default()
        };
        let log = DbLog::start("test".into(), "i", options, move || Ok(backend)).unwrap();
        for n in 0..3 {
            log.append(&call(&format!("r{n}"))).unwrap();
        }
        log.close();
        assert_eq!((log.dropped(), log.lost()), (0, 3));
        let failure = log.failure().unwrap();
        assert!(
            failure.contains("3 not written") && failure.contains("connection refused"),
            "{failure}"
        );
        assert!(log.append(&call("late")).is_err(), "closed");
    }
}
