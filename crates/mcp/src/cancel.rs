//! A request's cancellation, shared between the thread that reads the client's messages (which
//! cancels it when `notifications/cancelled` names it) and the thread answering it (which
//! registers what cancelling must do: tell the server behind it, stop waiting).

use std::sync::Mutex;

type Hook = Box<dyn FnOnce(&str) + Send>;

/// Whether a request was cancelled, and what to run when it is.
#[derive(Default)]
pub struct Cancel(Mutex<State>);

#[derive(Default)]
struct State {
    /// The reason, once cancelled.
    reason: Option<String>,
    hooks: Vec<Hook>,
}

impl Cancel {
    /// Cancels the request with `reason`: runs every hook registered, once; a second cancel
    /// does nothing.
    pub fn cancel(&self, reason: &str) {
        let hooks = {
            let mut state = crate::lock(&self.0);
            if state.reason.is_some() {
                return;
            }
            state.reason = Some(reason.to_string());
            std::mem::take(&mut state.hooks)
        };
        for hook in hooks {
            hook(reason);
        }
    }

    pub fn is_cancelled(&self) -> bool {
        crate::lock(&self.0).reason.is_some()
    }

    /// Runs `hook` with the reason when the request is cancelled, at once if it already is.
    pub fn on_cancel(&self, hook: impl FnOnce(&str) + Send + 'static) {
        let mut state = crate::lock(&self.0);
        match state.reason.clone() {
            Some(reason) => {
                drop(state);
                hook(&reason);
            }
            None => state.hooks.push(Box::new(hook)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cancel;
    use std::sync::{Arc, Mutex};

    #[test]
    fn hooks_run_once_with_the_reason_even_when_registered_after_the_cancel() {
        let cancel = Cancel::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let before = Arc::clone(&seen);
        cancel.on_cancel(move |why| before.lock().unwrap().push(format!("before: {why}")));
        assert!(!cancel.is_cancelled());
        cancel.cancel("user stopped it");
        cancel.cancel("again");
        let after = Arc::clone(&seen);
        cancel.on_cancel(move |why| after.lock().unwrap().push(format!("after: {why}")));
        assert!(cancel.is_cancelled());
        assert_eq!(
            *seen.lock().unwrap(),
            ["before: user stopped it", "after: user stopped it"]
        );
    }
}
