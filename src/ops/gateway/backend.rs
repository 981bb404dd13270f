//! One server behind the gateway: started on its first call (not before), its tools checked
//! against their pins when it connects and again whenever it says they changed
//! (`notifications/tools/list_changed`), its calls made side by side (each matched to its
//! answer by id, each cancellable), and started again on the next call after it failed.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::mcp::bridge::ToolFilter;
use crate::mcp::serve::Notifier;
use crate::mcp::{Cancel, McpError, Notices, SharedClient, Timeouts, Tool};
use crate::model::gateway::{Lifecycle, Surface};
use crate::model::lock::ToolPin;
use crate::ops::connect::Located;
use crate::ops::tool_pins::{diff, pins_of};

/// The notification a server sends when its tools changed, and the gateway sends its client.
const LIST_CHANGED: &str = "notifications/tools/list_changed";

/// How to start a server, or why it may not be started.
pub enum Start {
    /// Its definition: rendered, with its secrets read, only when it starts.
    Ready(Box<Located>, Timeouts),
    /// Not approved: the message.
    Refused(String),
}

pub struct Backend {
    pub name: String,
    pub surface: Surface,
    pub lifecycle: Lifecycle,
    pub filter: ToolFilter,
    /// The tools pinned in dotpack.lock, if any.
    pins: Option<BTreeMap<String, ToolPin>>,
    start: Start,
    home: PathBuf,
    /// The gateway's client, told when a direct server's tools change.
    notifier: Notifier,
    /// Set when the server said its tools changed: they are listed again before they are used.
    changed: Arc<AtomicBool>,
    live: Mutex<Live>,
}

#[derive(Default)]
struct Live {
    client: Option<Arc<SharedClient>>,
    /// The tools served: the cache's for a pinned server until it connects, then the server's
    /// own that match their pins.
    tools: Option<Vec<Tool>>,
    /// Tools the server offers that differ from their pins: why each is refused.
    refused: BTreeMap<String, String>,
    /// When its last call ended (or it started).
    last_used: Option<Instant>,
    /// Calls in flight.
    calls: usize,
}

/// What the gateway tells every server it starts.
pub struct Context {
    pub home: PathBuf,
    pub notifier: Notifier,
}

impl Backend {
    pub fn new(
        name: String,
        (surface, lifecycle): (Surface, Lifecycle),
        filter: ToolFilter,
        pins: Option<BTreeMap<String, ToolPin>>,
        start: Start,
        Context { home, notifier }: Context,
    ) -> Backend {
        // A pinned server's tools come from the cache when it holds every one of them.
        let cached = pins.as_ref().and_then(|pins| {
            pins.values()
                .map(|pin| crate::ops::tool_cache::load(&home, &pin.tool))
                .collect::<Option<Vec<Tool>>>()
        });
        Backend {
            name,
            surface,
            lifecycle,
            filter,
            pins,
            start,
            home,
            notifier,
            changed: Arc::default(),
            live: Mutex::new(Live {
                tools: cached,
                ..Live::default()
            }),
        }
    }

    fn live(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The served tools known without starting the server, if any.
    pub fn known_tools(&self) -> Option<Vec<Tool>> {
        self.relist_if_changed();
        let tools = self.live().tools.clone()?;
        Some(self.filtered(tools))
    }

    /// The served tools, starting the server when they are not known yet.
    pub fn tools(&self) -> Result<Vec<Tool>, String> {
        self.relist_if_changed();
        let mut live = self.live();
        if live.tools.is_none() {
            self.connect(&mut live)?;
        }
        Ok(self.filtered(live.tools.clone().unwrap_or_default()))
    }

    fn filtered(&self, tools: Vec<Tool>) -> Vec<Tool> {
        tools
            .into_iter()
            .filter(|t| self.filter.allows(&t.name))
            .collect()
    }

    /// Starts the server now, unless it runs or cannot be started (a call will say why).
    pub fn start(&self) {
        let mut live = self.live();
        if live.client.is_none() {
            let _ = self.connect(&mut live);
        }
    }

    /// Calls `tool` with `arguments`: the server's result, or why it failed as text for a tool
    /// error. Calls run side by side. A server that fails during a call is stopped (its process
    /// ended, failing the calls in flight with it), and the next call starts it again; one that
    /// does not answer a call in time is only told to cancel it while other calls to it are in
    /// flight, as it is serving them. `cancel` cancels the call at the server too.
    pub fn call(&self, tool: &str, arguments: Value, cancel: &Cancel) -> Result<Value, String> {
        if !self.filter.allows(tool) {
            return Err(format!(
                "the tool `{tool}` of server `{}` is not enabled: the gateway serves only the tools its `enabled_tools` and `disabled_tools` allow",
                self.name
            ));
        }
        self.relist_if_changed();
        let client = self.client_for(tool)?;
        let result = client.call_tool(tool, arguments, Some(cancel));
        let mut live = self.live();
        live.calls -= 1;
        live.last_used = Some(Instant::now());
        let current = live
            .client
            .as_ref()
            .is_some_and(|c| Arc::ptr_eq(c, &client));
        match result {
            Ok(result) => Ok(result),
            Err(e @ (McpError::Rpc { .. } | McpError::Cancelled { .. })) => Err(e.to_string()),
            // The server was told to stop working on it; its other calls go on.
            Err(e @ McpError::TimedOut { .. }) if current && live.calls > 0 => Err(format!(
                "{e}\n(the gateway cancelled the call at server `{}` and keeps it running for its other calls)",
                self.name
            )),
            Err(e) => {
                if current {
                    live.client = None;
                }
                drop(live);
                // The process is ended now, not when the last call holding it ends.
                client.kill();
                Err(format!(
                    "{e}\n(the gateway stopped server `{}`; the next call starts it again)",
                    self.name
                ))
            }
        }
    }

    /// The running client to call `tool` on (starting the server if it is not running),
    /// counted as a call in flight; or why `tool` is not served.
    fn client_for(&self, tool: &str) -> Result<Arc<SharedClient>, String> {
        let mut live = self.live();
        if live.client.is_none() {
            self.connect(&mut live)?;
        }
        if let Some(why) = live.refused.get(tool) {
            return Err(why.clone());
        }
        if !live.tools.iter().flatten().any(|t| t.name == tool) {
            return Err(format!(
                "server `{}` has no tool `{tool}`; `search` or `describe` with server `{}` lists its tools",
                self.name, self.name
            ));
        }
        let Some(client) = live.client.clone() else {
            return Err(format!("server `{}` is not connected", self.name));
        };
        live.calls += 1;
        Ok(client)
    }

    /// Starts the server, lists its tools, and keeps those that match their pins.
    fn connect(&self, live: &mut Live) -> Result<(), String> {
        let (located, timeouts) = match &self.start {
            Start::Ready(located, timeouts) => (located, *timeouts),
            Start::Refused(why) => return Err(why.clone()),
        };
        let endpoint = crate::ops::connect::endpoint(located, &super::secret_or_env)
            .map_err(|e| format!("{e:#}"))?;
        let client = SharedClient::connect(&self.name, &endpoint, timeouts, self.notices())
            .map_err(|e| e.to_string())?;
        self.changed.store(false, Ordering::SeqCst);
        let tools = client.list_tools().map_err(|e| e.to_string())?;
        (live.tools, live.refused) = self.admit(tools);
        live.client = Some(Arc::new(client));
        live.last_used = Some(Instant::now());
        Ok(())
    }

    /// What the server's notifications do: a changed tool list is listed again before its
    /// next use, and a direct server's change is passed on to the gateway's client.
    fn notices(&self) -> Notices {
        let changed = Arc::clone(&self.changed);
        let notifier = (self.surface == Surface::Direct).then(|| self.notifier.clone());
        Arc::new(move |method: &str| {
            if method == LIST_CHANGED {
                changed.store(true, Ordering::SeqCst);
                if let Some(notifier) = &notifier {
                    notifier.notify(LIST_CHANGED);
                }
            }
        })
    }

    /// The tools to serve of those the server lists (cached for `search`), and why each tool
    /// that differs from its pin is refused.
    fn admit(&self, tools: Vec<Tool>) -> (Option<Vec<Tool>>, BTreeMap<String, String>) {
        crate::ops::tool_cache::store(&self.home, &tools);
        let mut refused = BTreeMap::new();
        if let Some(pins) = &self.pins {
            for change in diff(pins, &pins_of(&tools)) {
                refused.insert(
                    change.tool().to_string(),
                    format!(
                        "server `{}`: {change} since it was pinned in dotpack.lock, so the gateway does not serve it; review it with `dotpack verify {}` and accept it with `dotpack verify --update`",
                        self.name, self.name
                    ),
                );
            }
        }
        let served = tools
            .into_iter()
            .filter(|t| !refused.contains_key(&t.name))
            .collect();
        (Some(served), refused)
    }

    /// Lists the tools again when the running server said they changed; its pins are checked
    /// as when it started. A server that cannot list them keeps the tools it had.
    fn relist_if_changed(&self) {
        if !self.changed.swap(false, Ordering::SeqCst) {
            return;
        }
        let Some(client) = self.live().client.clone() else {
            return;
        };
        match client.list_tools() {
            Ok(tools) => {
                let admitted = self.admit(tools);
                let mut live = self.live();
                if live
                    .client
                    .as_ref()
                    .is_some_and(|c| Arc::ptr_eq(c, &client))
                {
                    (live.tools, live.refused) = admitted;
                }
            }
            Err(e) => tracing::warn!(
                "dotpack serve: the changed tools of server `{}` could not be listed: {e}",
                self.name
            ),
        }
    }

    /// Stops the server when it has run `idle` since its last call; a call in progress is
    /// never interrupted. Its tools stay known, and the next call starts it.
    pub fn stop_if_idle(&self, idle: Duration) {
        if self.lifecycle == Lifecycle::KeepAlive {
            return;
        }
        let mut live = match self.live.try_lock() {
            Ok(live) => live,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return,
        };
        if live.calls == 0
            && live.last_used.is_none_or(|t| t.elapsed() >= idle)
            && let Some(client) = live.client.take()
        {
            client.close();
        }
    }
}
