//! One server behind the gateway: started on its first call (not before), its tools checked
//! against their pins when it connects, its calls made one at a time, and started again on the
//! next call after it failed.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::mcp::bridge::ToolFilter;
use crate::mcp::{Client, McpError, Timeouts, Tool};
use crate::model::gateway::{Lifecycle, Surface};
use crate::model::lock::ToolPin;
use crate::ops::connect::Located;
use crate::ops::tool_pins::{diff, pins_of};

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
    live: Mutex<Live>,
}

#[derive(Default)]
struct Live {
    client: Option<Client>,
    /// The tools served: the cache's for a pinned server until it connects, then the server's
    /// own that match their pins.
    tools: Option<Vec<Tool>>,
    /// Tools the server offers that differ from their pins: why each is refused.
    refused: BTreeMap<String, String>,
    /// When its last call ended (or it started).
    last_used: Option<Instant>,
}

impl Backend {
    pub fn new(
        name: String,
        (surface, lifecycle): (Surface, Lifecycle),
        filter: ToolFilter,
        pins: Option<BTreeMap<String, ToolPin>>,
        start: Start,
        home: PathBuf,
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
        let tools = self.live().tools.clone()?;
        Some(self.filtered(tools))
    }

    /// The served tools, starting the server when they are not known yet.
    pub fn tools(&self) -> Result<Vec<Tool>, String> {
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
    /// error. A server that fails during the call is dropped (its process ended), and the next
    /// call starts it again.
    pub fn call(&self, tool: &str, arguments: Value) -> Result<Value, String> {
        if !self.filter.allows(tool) {
            return Err(format!(
                "the tool `{tool}` of server `{}` is not enabled: the gateway serves only the tools its `enabled_tools` and `disabled_tools` allow",
                self.name
            ));
        }
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
        let Some(client) = live.client.as_mut() else {
            return Err(format!("server `{}` is not connected", self.name));
        };
        let result = client.call_tool(tool, arguments);
        live.last_used = Some(Instant::now());
        match result {
            Ok(result) => Ok(result),
            Err(e @ McpError::Rpc { .. }) => Err(e.to_string()),
            Err(e) => {
                // The process is ended and reaped when the client drops.
                live.client = None;
                Err(format!(
                    "{e}\n(the gateway stopped server `{}`; the next call starts it again)",
                    self.name
                ))
            }
        }
    }

    /// Starts the server, lists its tools, and keeps those that match their pins.
    fn connect(&self, live: &mut Live) -> Result<(), String> {
        let (located, timeouts) = match &self.start {
            Start::Ready(located, timeouts) => (located, *timeouts),
            Start::Refused(why) => return Err(why.clone()),
        };
        let endpoint = crate::ops::connect::endpoint(located, &super::secret_or_env)
            .map_err(|e| format!("{e:#}"))?;
        let mut client =
            Client::connect(&self.name, &endpoint, timeouts).map_err(|e| e.to_string())?;
        let tools = client.list_tools().map_err(|e| e.to_string())?;
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
        live.tools = Some(
            tools
                .into_iter()
                .filter(|t| !refused.contains_key(&t.name))
                .collect(),
        );
        live.refused = refused;
        live.client = Some(client);
        live.last_used = Some(Instant::now());
        Ok(())
    }

    /// Stops the server when it has run `idle` since its last call; a call in progress (the
    /// state locked) is never interrupted. Its tools stay known, and the next call starts it.
    pub fn stop_if_idle(&self, idle: Duration) {
        if self.lifecycle == Lifecycle::KeepAlive {
            return;
        }
        let mut live = match self.live.try_lock() {
            Ok(live) => live,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return,
        };
        if live.last_used.is_none_or(|t| t.elapsed() >= idle)
            && let Some(client) = live.client.take()
        {
            client.close();
        }
    }
}
