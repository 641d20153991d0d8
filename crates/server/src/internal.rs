//! Lode's own log, indexed into `_internal` like any other data (Splunk's `splunkd.log`).
//!
//! [`InternalLayer`] is a tracing layer installed by the binary at start. It does nothing until a
//! server calls [`start`], which connects it to the node: from then on every log record at INFO or
//! above becomes one line, sent through a bounded queue to a forwarder thread that ingests batches
//! into `_internal` (sourcetype `lode:log`). Records logged by the forwarder itself are not
//! forwarded, so logging cannot feed on itself. When the queue is full a record is dropped and
//! counted; the count is logged with the next batch.

use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::Layer;

/// Log lines queued for indexing before new ones are dropped.
const QUEUE_LINES: usize = 10_000;
/// Longest a log line waits before its batch is indexed.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

static SENDER: OnceLock<Mutex<Option<SyncSender<String>>>> = OnceLock::new();
static DROPPED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static FORWARDING: Cell<bool> = const { Cell::new(false) };
}

/// The tracing layer; install it once in the binary's subscriber.
#[derive(Debug, Default)]
pub struct InternalLayer;

struct Message<'a>(&'a mut String);

impl Visit for Message<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, " {value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            let _ = write!(self.0, " {value}");
        } else if value.contains(' ') {
            let _ = write!(self.0, " {}=\"{value}\"", field.name());
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}

impl<S: Subscriber> Layer<S> for InternalLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        if *event.metadata().level() > Level::INFO || FORWARDING.with(|f| f.get()) {
            return;
        }
        let Some(lock) = SENDER.get() else { return };
        let Ok(guard) = lock.lock() else { return };
        let Some(tx) = guard.as_ref() else { return };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros() as i64)
            .unwrap_or(0);
        let mut line =
            lode_time::strptime::strftime(now, "%Y-%m-%dT%H:%M:%S.%3N%:z", lode_time::Zone::Utc);
        let _ = write!(
            line,
            " {} {}:",
            event.metadata().level(),
            event.metadata().target()
        );
        event.record(&mut Message(&mut line));
        line.push('\n');
        if let Err(TrySendError::Full(_)) = tx.try_send(line) {
            DROPPED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Connects the layer to `node`: log records from now on are indexed into `_internal`.
/// Returns the forwarder thread; it ends after [`stop`].
pub fn start(node: Arc<lode_node::Node>, host: String) -> Option<std::thread::JoinHandle<()>> {
    if !node.has_index("_internal") {
        return None;
    }
    let (tx, rx) = mpsc::sync_channel::<String>(QUEUE_LINES);
    let slot = SENDER.get_or_init(|| Mutex::new(None));
    if let Ok(mut s) = slot.lock() {
        *s = Some(tx);
    }
    let source = node
        .home()
        .root()
        .join("var/log/lode/lode.log")
        .display()
        .to_string();
    Some(std::thread::spawn(move || {
        FORWARDING.with(|f| f.set(true));
        let mut open = true;
        while open {
            let mut batch = String::new();
            match rx.recv_timeout(FLUSH_EVERY) {
                Ok(line) => batch.push_str(&line),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            }
            loop {
                match rx.try_recv() {
                    Ok(line) => batch.push_str(&line),
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
            let dropped = DROPPED.swap(0, Ordering::Relaxed);
            if dropped > 0 {
                let _ = writeln!(
                    batch,
                    "lode: {dropped} internal log records were dropped (queue full)"
                );
            }
            let meta = lode_ingest::SourceMeta {
                host: host.clone(),
                source: source.clone(),
                sourcetype: "lode:log".into(),
                index: "_internal".into(),
            };
            if let Err(e) = node.ingest(meta, &mut batch.as_bytes(), &mut |_| {}) {
                eprintln!("lode: indexing the internal log failed: {e}");
            }
        }
    }))
}

/// Disconnects the layer; the forwarder indexes what is queued and ends.
pub fn stop() {
    if let Some(slot) = SENDER.get() {
        if let Ok(mut s) = slot.lock() {
            *s = None;
        }
    }
}
