//! A spinner on stderr while registry requests take longer than a moment.
//!
//! Off unless the command line turned it on (stderr is a terminal and output is not `--quiet`):
//! `cli` makes one [`ProgressHandle::on`] and hands it down inside the HTTP clients' `Network`
//! settings, so a pipe, a log file, a test or a library caller never sees it and nothing reaches
//! for a global. Requests mark themselves with [`ProgressHandle::start`]; when some are still
//! running [`DELAY`] after the first of a burst
//! started, a spinner shows how many files are done, how many are in flight and the one asked
//! for last. It is cleared as soon as no request is in flight, so it never stays among the
//! command's own lines.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long requests run before the spinner shows.
pub const DELAY: Duration = Duration::from_millis(400);

/// The spinner's state: the burst of requests in flight, if any.
pub struct Progress {
    state: Mutex<Option<Burst>>,
}

/// A spinner to report requests to, or none: small and `Copy`, so it travels inside the network
/// settings every HTTP client is given.
#[derive(Clone, Copy, Default)]
pub struct ProgressHandle(Option<&'static Progress>);

impl ProgressHandle {
    /// A spinner for this process (the caller checked that stderr is a terminal). Made once, at
    /// the edge; it lives as long as the process.
    pub fn on() -> ProgressHandle {
        let progress: &'static Progress = Box::leak(Box::new(Progress {
            state: Mutex::new(None),
        }));
        ProgressHandle(Some(progress))
    }

    /// No spinner.
    pub const fn off() -> ProgressHandle {
        ProgressHandle(None)
    }
}

impl PartialEq for ProgressHandle {
    fn eq(&self, other: &Self) -> bool {
        match (self.0, other.0) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for ProgressHandle {}

impl std::fmt::Debug for ProgressHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "on" } else { "off" })
    }
}

/// Requests running together: one spinner, shown after [`DELAY`].
struct Burst {
    bar: ProgressBar,
    in_flight: usize,
    done: usize,
    last: String,
    /// Set when the burst ends, so its delayed start does not show a spinner for nothing.
    over: Arc<AtomicBool>,
}

impl Burst {
    fn message(&self) -> String {
        format!(
            "{} file{} fetched, {} in flight: {}",
            self.done,
            if self.done == 1 { "" } else { "s" },
            self.in_flight,
            self.last
        )
    }
}

/// One request in flight; dropping it marks it done.
pub struct Request {
    progress: Option<&'static Progress>,
}

impl ProgressHandle {
    /// Marks a request for `what` (a URL without credentials) as started.
    pub fn start(&self, what: &str) -> Request {
        let Some(progress) = self.0 else {
            return Request { progress: None };
        };
        let Ok(mut state) = progress.state.lock() else {
            return Request { progress: None };
        };
        let burst = state.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            let over = Arc::new(AtomicBool::new(false));
            show_later(progress, bar.clone(), Arc::clone(&over));
            Burst {
                bar,
                in_flight: 0,
                done: 0,
                last: String::new(),
                over,
            }
        });
        burst.in_flight += 1;
        burst.last = what.to_string();
        burst.bar.set_message(burst.message());
        Request {
            progress: Some(progress),
        }
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        let Some(progress) = self.progress else {
            return;
        };
        let Ok(mut state) = progress.state.lock() else {
            return;
        };
        let Some(burst) = state.as_mut() else {
            return;
        };
        burst.in_flight = burst.in_flight.saturating_sub(1);
        burst.done += 1;
        if burst.in_flight > 0 {
            burst.bar.set_message(burst.message());
            return;
        }
        burst.over.store(true, Ordering::SeqCst);
        burst.bar.finish_and_clear();
        *state = None;
    }
}

/// After [`DELAY`], draws `bar` on stderr unless its burst is already over.
fn show_later(progress: &'static Progress, bar: ProgressBar, over: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        std::thread::sleep(DELAY);
        // Under the lock the burst's end takes, so a burst that just ended is never drawn.
        let Ok(_state) = progress.state.lock() else {
            return;
        };
        if over.load(Ordering::SeqCst) {
            return;
        }
        let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.enable_steady_tick(Duration::from_millis(120));
    });
}
