//! Progress and cancellation of the long actions started from the window: imports and batches
//! of checks. [`ChannelReporter`] is the core's [`Reporter`] over a Tauri IPC channel: it turns
//! each progress call into a [`TaskProgress`] message for the UI, sending the frequent ones
//! (bytes or claims done, the item being worked on) at most every [`PROGRESS_INTERVAL`] so that
//! a large import does not flood the webview. [`RunningTasks`] keeps the cancel token of each
//! action in flight under the id the UI gave it. What an action does, and where it may stop,
//! is the core's business.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use factdesk_core::{CancelToken, ProgressUnit, Reporter};
use serde::Serialize;
use tauri::ipc::Channel;

use crate::error::CommandError;

/// The shortest time between two `progress` messages.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// A message about a running action, as the UI receives it (tagged by `event`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TaskProgress {
    /// A phase begins (fetching URLs, importing, checking claims); `total` is in `unit`s when
    /// known.
    Phase { name: String, total: Option<u64>, unit: ProgressUnit },
    /// `done` units of the current phase are finished; `item` is being worked on now.
    Progress { done: u64, item: Option<String> },
    /// One file, line, row, URL or claim failed; the action goes on with the rest.
    ItemFailed { item: String, message: String },
    /// The action is over (its summary is the command's answer).
    Finished,
}

/// Sends an action's progress to the window over a channel.
pub struct ChannelReporter {
    channel: Channel<TaskProgress>,
    interval: Duration,
    state: Mutex<Pending>,
}

/// Progress not yet sent.
#[derive(Default)]
struct Pending {
    done: u64,
    item: Option<String>,
    unsent: bool,
    last_sent: Option<Instant>,
}

impl ChannelReporter {
    pub fn new(channel: Channel<TaskProgress>) -> ChannelReporter {
        ChannelReporter::with_interval(channel, PROGRESS_INTERVAL)
    }

    /// A reporter that sends `progress` messages at most every `interval`.
    pub fn with_interval(channel: Channel<TaskProgress>, interval: Duration) -> ChannelReporter {
        ChannelReporter { channel, interval, state: Mutex::new(Pending::default()) }
    }

    fn send(&self, message: TaskProgress) {
        // The window may have been closed; the action goes on regardless.
        if let Err(error) = self.channel.send(message) {
            tracing::debug!(%error, "a progress message was not delivered");
        }
    }

    /// Updates the pending progress, and sends it if the last message is old enough (or
    /// `now` is set).
    fn update(&self, now: bool, change: impl FnOnce(&mut Pending)) {
        let Ok(mut pending) = self.state.lock() else { return };
        change(&mut pending);
        let due = pending.last_sent.is_none_or(|sent| sent.elapsed() >= self.interval);
        if pending.unsent && (now || due) {
            pending.unsent = false;
            pending.last_sent = Some(Instant::now());
            let message = TaskProgress::Progress { done: pending.done, item: pending.item.clone() };
            drop(pending);
            self.send(message);
        }
    }
}

impl Reporter for ChannelReporter {
    fn phase(&self, name: &str, total: Option<u64>, unit: ProgressUnit) {
        self.update(true, |_| {});
        if let Ok(mut pending) = self.state.lock() {
            *pending = Pending::default();
        }
        self.send(TaskProgress::Phase { name: name.to_owned(), total, unit });
    }

    fn advance(&self, amount: u64) {
        self.update(false, |pending| {
            pending.done += amount;
            pending.unsent = true;
        });
    }

    fn working_on(&self, item: &str) {
        self.update(false, |pending| {
            pending.item = Some(item.to_owned());
            pending.unsent = true;
        });
    }

    fn item_failed(&self, item: &str, message: &str) {
        self.update(true, |_| {});
        self.send(TaskProgress::ItemFailed { item: item.to_owned(), message: message.to_owned() });
    }

    fn finish(&self) {
        self.update(true, |_| {});
        self.send(TaskProgress::Finished);
    }
}

/// The cancel tokens of the actions in flight (imports and batches of checks share one set of
/// ids), by the id the UI gave each.
#[derive(Debug, Default)]
pub struct RunningTasks {
    tokens: Mutex<HashMap<u32, CancelToken>>,
}

/// An action registered in [`RunningTasks`]; dropping it (when the action ends, however it
/// ends) takes it out again.
#[derive(Debug)]
pub struct RunningTask<'a> {
    tasks: &'a RunningTasks,
    id: u32,
    cancel: CancelToken,
}

impl RunningTasks {
    /// Registers an action under `id`, refusing an id that is in use.
    pub fn start(&self, id: u32) -> Result<RunningTask<'_>, CommandError> {
        let mut tokens = self.lock();
        if tokens.contains_key(&id) {
            return Err(CommandError {
                code: "invalid_input",
                message: format!("a task with id {id} is already running"),
            });
        }
        let cancel = CancelToken::new();
        tokens.insert(id, cancel.clone());
        Ok(RunningTask { tasks: self, id, cancel })
    }

    /// Cancels the action `id`; false if no such action is running.
    pub fn cancel(&self, id: u32) -> bool {
        match self.lock().get(&id) {
            Some(token) => {
                token.cancel();
                tracing::info!(task = id, "cancelled from the window");
                true
            }
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u32, CancelToken>> {
        // A panic while holding this lock cannot leave the map half-changed.
        self.tokens.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl RunningTask<'_> {
    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }
}

impl Drop for RunningTask<'_> {
    fn drop(&mut self) {
        self.tasks.lock().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tauri::ipc::InvokeResponseBody;

    /// A reporter whose channel collects the messages as JSON. Its interval is long enough
    /// that only the first update of a phase goes out before a flush, however slow the machine.
    fn collecting_reporter() -> (ChannelReporter, Arc<Mutex<Vec<serde_json::Value>>>) {
        let received = Arc::new(Mutex::new(Vec::new()));
        let sink = received.clone();
        let channel = Channel::new(move |body| {
            let InvokeResponseBody::Json(json) = body else { panic!("a JSON message") };
            sink.lock().unwrap().push(serde_json::from_str(&json).unwrap());
            Ok(())
        });
        (ChannelReporter::with_interval(channel, Duration::from_secs(3600)), received)
    }

    #[test]
    fn progress_is_sent_at_phase_starts_failures_and_the_end() {
        let (reporter, received) = collecting_reporter();
        reporter.phase("Importing", Some(300), ProgressUnit::Bytes);
        reporter.working_on("a.txt");
        reporter.advance(100);
        reporter.advance(100);
        reporter.item_failed("b.csv", "row 3: no text");
        reporter.advance(100);
        reporter.finish();

        let received = received.lock().unwrap();
        let events: Vec<&str> = received.iter().map(|m| m["event"].as_str().unwrap()).collect();
        // The first update after the phase goes out at once; the next ones wait for the
        // interval, and are flushed before the failure and before the end.
        assert_eq!(
            events,
            ["phase", "progress", "progress", "item_failed", "progress", "finished"],
            "{received:?}"
        );
        assert_eq!(received[0]["total"], 300);
        assert_eq!(received[0]["unit"], "bytes");
        assert_eq!(received[1]["item"], "a.txt");
        assert_eq!(received[2]["done"], 200);
        assert_eq!(received[3]["item"], "b.csv");
        assert_eq!(received[4]["done"], 300);
    }

    #[test]
    fn a_new_phase_counts_from_zero() {
        let (reporter, received) = collecting_reporter();
        reporter.phase("Fetching", Some(2), ProgressUnit::Items);
        reporter.advance(2);
        reporter.phase("Importing", Some(10), ProgressUnit::Bytes);
        reporter.advance(4);
        reporter.finish();
        let received = received.lock().unwrap();
        let progress: Vec<u64> = received
            .iter()
            .filter(|m| m["event"] == "progress")
            .map(|m| m["done"].as_u64().unwrap())
            .collect();
        assert_eq!(progress, [2, 4], "{received:?}");
    }

    #[test]
    fn tasks_are_cancelled_by_id_and_forgotten_when_they_end() {
        let tasks = RunningTasks::default();
        let running = tasks.start(7).unwrap();
        let other = tasks.start(8).unwrap();
        assert_eq!(tasks.start(7).unwrap_err().code, "invalid_input");
        assert!(!tasks.cancel(9));
        assert!(tasks.cancel(7));
        assert!(running.cancel_token().is_cancelled());
        assert!(!other.cancel_token().is_cancelled(), "only the named task is cancelled");
        drop(running);
        assert!(!tasks.cancel(7), "a finished task is no longer registered");
        assert!(tasks.start(7).is_ok(), "its id can be used again");
    }
}
