//! Progress bars on stderr (indicatif) for long actions; hidden when stderr is not a terminal
//! or when `--json` is given. Item failures are printed as they happen unless `--json` is on
//! (then they are in the JSON summary).

use std::sync::Mutex;

use factdesk_core::{ProgressUnit, Reporter};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct BarReporter {
    bar: Mutex<Option<ProgressBar>>,
    json: bool,
}

impl BarReporter {
    pub fn new(json: bool) -> BarReporter {
        BarReporter { bar: Mutex::new(None), json }
    }

    fn with_bar(&self, action: impl FnOnce(&ProgressBar)) {
        if let Ok(guard) = self.bar.lock()
            && let Some(bar) = guard.as_ref()
        {
            action(bar);
        }
    }
}

impl Reporter for BarReporter {
    fn phase(&self, name: &str, total: Option<u64>, unit: ProgressUnit) {
        let bar = match total {
            Some(total) => ProgressBar::new(total),
            None => ProgressBar::new_spinner(),
        };
        let template = match unit {
            ProgressUnit::Bytes => {
                "{prefix:>10} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta}) {wide_msg}"
            }
            ProgressUnit::Items => "{prefix:>10} [{bar:30}] {pos}/{len} ({eta}) {wide_msg}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(name.to_owned());
        if self.json {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        } else {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        if let Ok(mut guard) = self.bar.lock()
            && let Some(previous) = guard.replace(bar)
        {
            previous.finish_and_clear();
        }
    }

    fn advance(&self, amount: u64) {
        self.with_bar(|bar| bar.inc(amount));
    }

    fn working_on(&self, item: &str) {
        let short: String =
            item.chars().rev().take(60).collect::<Vec<_>>().into_iter().rev().collect();
        self.with_bar(|bar| bar.set_message(short));
    }

    fn item_failed(&self, item: &str, message: &str) {
        if self.json {
            return;
        }
        let line = format!("failed: {item}: {message}");
        let mut printed = false;
        self.with_bar(|bar| {
            bar.suspend(|| eprintln!("{line}"));
            printed = true;
        });
        if !printed {
            eprintln!("{line}");
        }
    }

    fn finish(&self) {
        if let Ok(mut guard) = self.bar.lock()
            && let Some(bar) = guard.take()
        {
            bar.finish_and_clear();
        }
    }
}
