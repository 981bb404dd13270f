//! A spinner on stderr while registry requests take longer than a moment.
//!
//! Off unless the command line turned it on ([`enable`]: stderr is a terminal and output is not
//! `--quiet`), so a pipe, a log file or a test never sees it. Requests mark themselves with
//! [`Request::start`]; when some are still running [`DELAY`] after the first of a burst
//! started, a spinner shows how many files are done, how many are in flight and the one asked
//! for last. It is cleared as soon as no request is in flight, so it never stays among the
//! command's own lines.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long requests run before the spinner shows.
pub const DELAY: Duration = Duration::from_millis(400);

static ENABLED: AtomicBool = AtomicBool::new(false);
static STATE: Mutex<Option<Burst>> = Mutex::new(None);

/// Turns the spinner on for this process (the caller checked that stderr is a terminal).
pub fn enable(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
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
    active: bool,
}

impl Request {
    /// Marks a request for `what` (a URL without credentials) as started.
    pub fn start(what: &str) -> Request {
        if !ENABLED.load(Ordering::Relaxed) {
            return Request { active: false };
        }
        let Ok(mut state) = STATE.lock() else {
            return Request { active: false };
        };
        let burst = state.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            let over = Arc::new(AtomicBool::new(false));
            show_later(bar.clone(), Arc::clone(&over));
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
        Request { active: true }
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        if !self.active {
            return;
        }
        let Ok(mut state) = STATE.lock() else {
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
fn show_later(bar: ProgressBar, over: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        std::thread::sleep(DELAY);
        // Under the lock the burst's end takes, so a burst that just ended is never drawn.
        let Ok(_state) = STATE.lock() else {
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
