//! The proxy surface: three fixed tools (`search`, `describe`, `call`) whose definitions cost a
//! few hundred tokens however many servers stand behind them, and the word search `search` runs.

use serde_json::{Value, json};

use crate::mcp::Tool;

pub const SEARCH: &str = "search";
pub const DESCRIBE: &str = "describe";
pub const CALL: &str = "call";

/// The three proxy tools as `tools/list` gives them.
pub fn tools(servers: &[&str]) -> Vec<Value> {
    let servers = servers.join(", ");
    vec![
        json!({
            "name": SEARCH,
            "description": format!("Search the tools of this project's MCP servers ({servers}) by words; answers each match's server, name and summary. Then `describe` one, or `call` it."),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words to look for in tool names and descriptions"},
                    "server": {"type": "string", "description": "Only this server's tools"}
                },
                "required": ["query"]
            }
        }),
        json!({
            "name": DESCRIBE,
            "description": "The full definition of one tool (description and input schema), or without `tool` every tool of a server.",
            "inputSchema": {
                "type": "object",
                "properties": {"server": {"type": "string"}, "tool": {"type": "string"}},
                "required": ["server"]
            }
        }),
        json!({
            "name": CALL,
            "description": "Call one tool of one server with its arguments; answers the tool's own result.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "server": {"type": "string"},
                    "tool": {"type": "string"},
                    "arguments": {"type": "object", "description": "The tool's arguments, as its input schema says"}
                },
                "required": ["server", "tool"]
            }
        }),
    ]
}

/// At most this many matches are answered, best first.
const MAX_MATCHES: usize = 20;

/// The tools of `known` (server, tool) matching `query`, best first: a tool scores a point per
/// query word found in its name or description (case-insensitive), two when in its name; a tool
/// matching no word is left out. Ties keep the servers' and tools' order.
pub fn search<'a>(query: &str, known: &[(&'a str, &'a Tool)]) -> Vec<(&'a str, &'a Tool)> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut scored: Vec<(usize, usize, (&str, &Tool))> = known
        .iter()
        .enumerate()
        .filter_map(|(i, &(server, tool))| {
            let name = format!("{server} {}", tool.name).to_lowercase();
            let text = tool.description.as_deref().unwrap_or("").to_lowercase();
            let score: usize = words
                .iter()
                .map(|w| {
                    if name.contains(w.as_str()) {
                        2
                    } else {
                        usize::from(text.contains(w.as_str()))
                    }
                })
                .sum();
            (score > 0 || words.is_empty()).then_some((score, i, (server, tool)))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(MAX_MATCHES)
        .map(|(_, _, m)| m)
        .collect()
}

/// One match as `search` answers it: `server tool(arg, ...): summary`, `?` after an optional
/// argument.
pub fn line(server: &str, tool: &Tool) -> String {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let args: Vec<String> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, _)| match required.contains(&name.as_str()) {
            true => name.clone(),
            false => format!("{name}?"),
        })
        .collect();
    format!(
        "{server} {}({}): {}",
        tool.name,
        args.join(", "),
        tool.summary()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> Tool {
        Tool {
            name: name.into(),
            description: Some(description.into()),
            input_schema: json!({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"]}),
        }
    }

    #[test]
    fn search_ranks_name_matches_first_and_leaves_out_tools_matching_nothing() {
        let add = tool("add", "Add two integers");
        let greet = tool("greet", "Say hello to someone");
        let sum = tool("total", "Add up a column");
        let known = [("py", &add), ("py", &greet), ("svc", &sum)];
        let found: Vec<&str> = search("add", &known)
            .iter()
            .map(|(_, t)| t.name.as_str())
            .collect();
        assert_eq!(found, ["add", "total"]);
        let found = search("HELLO", &known);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.name, "greet");
        assert!(search("nothing-here", &known).is_empty());
        assert_eq!(line("py", &add), "py add(a, b?): Add two integers");
    }

    #[test]
    fn the_proxy_tools_cost_the_same_whatever_the_number_of_tools() {
        let text = serde_json::to_string(&tools(&["a", "b"])).unwrap();
        assert!(text.len() < 2000, "{}", text.len());
    }
}
