//! The real side: where the files are, reading them back in the model's terms, and the edits a
//! person makes by hand (independent of dotpack's own editing code).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::reference::{Declared, Dep, Entries, FileId, HOSTS, HostDecl, Lock, Owner, Scope, Val};

/// The hand-written entry `mine`, byte for byte, in a JSON file and in codex's TOML file.
pub const MINE_JSON: &str = r#""mine": {"command": "node", "args": ["mine.js"]}"#;
pub const MINE_TOML: &str = "[mcp_servers.mine]\ncommand = \"node\"\nargs = [\"mine.js\"]\n";

/// The marker a hand edit leaves in an entry.
const EDITED: &str = "hand-edited";

/// Where everything of one test case lives.
pub struct Paths {
    pub home: PathBuf,
    pub a: PathBuf,
    pub b: PathBuf,
}

impl Paths {
    pub fn dotpack_home(&self) -> PathBuf {
        self.home.join(".dotpack")
    }

    /// A project-scope file relative to its project, a user-scope one relative to HOME.
    pub fn relative(file: FileId) -> &'static str {
        match (file.scope, HOSTS[file.host]) {
            (Scope::Project, "claude-code") => ".mcp.json",
            (Scope::User, "claude-code") => ".claude.json",
            (_, "codex") => ".codex/config.toml",
            (_, _) => ".cursor/mcp.json",
        }
    }

    pub fn path(&self, file: FileId) -> PathBuf {
        match file.scope {
            Scope::Project => self.a.join(Self::relative(file)),
            Scope::User => self.home.join(Self::relative(file)),
        }
    }

    fn owner(&self, path: &str) -> Result<Owner, String> {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let given = canon(Path::new(path));
        if given == canon(&self.a) {
            Ok(Owner::A)
        } else if given == canon(&self.b) {
            Ok(Owner::B)
        } else {
            Err(format!("claims.toml names an unknown owner {path}"))
        }
    }

    fn user_file(&self, path: &str) -> Result<FileId, String> {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        (0..HOSTS.len())
            .map(|host| FileId {
                host,
                scope: Scope::User,
            })
            .find(|f| canon(&self.path(*f)) == canon(Path::new(path)))
            .ok_or_else(|| format!("claims.toml names an unknown file {path}"))
    }
}

fn is_toml(file: FileId) -> bool {
    HOSTS[file.host] == "codex"
}

fn container(file: FileId) -> &'static str {
    if is_toml(file) {
        "mcp_servers"
    } else {
        "mcpServers"
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A project's dotpack.toml in the model's terms (`None`: there is none).
pub fn declared(path: &Path) -> Result<Option<Declared>, String> {
    let Some(text) = read(path) else {
        return Ok(None);
    };
    let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("{path:?}: {e}"))?;
    let strings = |v: Option<&toml::Value>| -> BTreeSet<String> {
        v.and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let scope = |v: Option<&toml::Value>| v.and_then(toml::Value::as_str).and_then(Scope::parse);
    let mut out = Declared::default();
    if let Some(project) = doc.get("project").and_then(toml::Value::as_table) {
        out.scope = scope(project.get("scope"));
        out.exclude = strings(project.get("exclude"));
        for h in project
            .get("hosts")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
        {
            let (id, decl) = match h {
                toml::Value::String(id) => (id.as_str(), None),
                toml::Value::Table(t) => (
                    t.get("host").and_then(|v| v.as_str()).unwrap_or(""),
                    Some(t),
                ),
                other => return Err(format!("a host is {other}")),
            };
            let host = HOSTS
                .iter()
                .position(|h| *h == id)
                .ok_or_else(|| format!("unexpected host {id} in {path:?}"))?;
            out.hosts.push(HostDecl {
                host,
                scope: decl.and_then(|t| scope(t.get("scope"))),
                exclude: decl.map(|t| strings(t.get("exclude"))).unwrap_or_default(),
            });
        }
    }
    if let Some(deps) = doc.get("dependencies").and_then(toml::Value::as_table) {
        for (name, spec) in deps {
            let dep = match spec {
                toml::Value::Table(t) => Dep {
                    scope: scope(t.get("scope")),
                    port: t
                        .get("set")
                        .and_then(|s| s.get("port"))
                        .and_then(|p| p.as_str())
                        .and_then(|p| p.parse().ok()),
                },
                _ => Dep::default(),
            };
            out.deps.insert(name.clone(), dep);
        }
    }
    Ok(Some(out))
}

/// dotpack.lock as it is on disk.
#[derive(Debug, PartialEq, Eq)]
pub enum LockSeen {
    Absent,
    Conflicted,
    Clean(Lock),
}

pub fn lock(path: &Path) -> Result<LockSeen, String> {
    let Some(text) = read(path) else {
        return Ok(LockSeen::Absent);
    };
    if text.contains("<<<<<<<") {
        return Ok(LockSeen::Conflicted);
    }
    let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("dotpack.lock: {e}"))?;
    let tables = |key: &str| -> Vec<toml::Table> {
        doc.get(key)
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_table().cloned())
            .collect()
    };
    let field =
        |t: &toml::Table, k: &str| t.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let mut out = Lock::default();
    for p in tables("package") {
        out.packages.insert(field(&p, "name"));
    }
    for c in tables("claim") {
        let file = field(&c, "file");
        let host = (0..HOSTS.len())
            .map(|host| FileId {
                host,
                scope: Scope::Project,
            })
            .find(|f| Paths::relative(*f) == file && HOSTS[f.host] == field(&c, "host"))
            .ok_or_else(|| format!("dotpack.lock claims an unexpected file {file}"))?;
        // The model records claims without their hashes; the status check covers those.
        out.claims.insert((host, field(&c, "server")), 0);
    }
    Ok(LockSeen::Clean(out))
}

/// `$DOTPACK_HOME/claims.toml`: file and server -> owners.
pub fn user_claims(paths: &Paths) -> Result<BTreeMap<(FileId, String), BTreeSet<Owner>>, String> {
    let Some(text) = read(&paths.dotpack_home().join("claims.toml")) else {
        return Ok(BTreeMap::new());
    };
    let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("claims.toml: {e}"))?;
    let mut out = BTreeMap::new();
    for c in doc
        .get("claim")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_table())
    {
        let file = paths.user_file(c.get("file").and_then(|v| v.as_str()).unwrap_or(""))?;
        let server = c
            .get("server")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string();
        let mut owners = BTreeSet::new();
        for o in c
            .get("owners")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
        {
            owners.insert(paths.owner(o.as_str().unwrap_or(""))?);
        }
        out.insert((file, server), owners);
    }
    Ok(out)
}

/// The entries of a host file (none when it does not exist).
pub fn entries(paths: &Paths, file: FileId) -> Result<Entries, String> {
    let path = paths.path(file);
    let Some(text) = read(&path) else {
        return Ok(Entries::new());
    };
    let values: Vec<(String, String)> = if is_toml(file) {
        let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("{path:?}: {e}"))?;
        doc.get(container(file))
            .and_then(toml::Value::as_table)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.to_string()))
            .collect()
    } else {
        let doc: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{path:?}: {e}"))?;
        doc.get(container(file))
            .and_then(serde_json::Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.to_string()))
            .collect()
    };
    let mut out = Entries::new();
    for (name, value) in values {
        let val = if name == "mine" {
            Val::Mine
        } else if value.contains(EDITED) {
            Val::Edited(port(&value))
        } else {
            Val::Clean(port(&value))
        };
        out.insert(name, val);
    }
    Ok(out)
}

/// The port of a `url` in an entry's text, 0 when it has none.
fn port(value: &str) -> u16 {
    let Some(at) = value.find("url") else {
        return 0;
    };
    let rest = &value[at..];
    let Some(scheme) = rest.find("://") else {
        return 0;
    };
    let rest = &rest[scheme + 3..];
    let Some(colon) = rest.find(':') else {
        return 0;
    };
    rest[colon + 1..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(0)
}

/// Whether the file holds `mine` with exactly the bytes it was written with.
pub fn mine_intact(paths: &Paths, file: FileId) -> bool {
    let text = read(&paths.path(file)).unwrap_or_default();
    text.contains(if is_toml(file) { MINE_TOML } else { MINE_JSON })
}

/// B's dependencies.
pub fn b_deps(paths: &Paths) -> Result<BTreeSet<String>, String> {
    Ok(declared(&paths.b.join("dotpack.toml"))?
        .map(|d| d.deps.into_keys().collect())
        .unwrap_or_default())
}

/// Adds `mine` to a host file, creating the file when there is none.
pub fn add_mine(paths: &Paths, file: FileId) {
    let path = paths.path(file);
    let text = read(&path);
    let out = match (is_toml(file), text) {
        (true, None) => MINE_TOML.to_string(),
        (true, Some(mut t)) => {
            if !t.is_empty() && !t.ends_with('\n') {
                t.push('\n');
            }
            t.push('\n');
            t.push_str(MINE_TOML);
            t
        }
        (false, None) => format!("{{\n  \"mcpServers\": {{\n    {MINE_JSON}\n  }}\n}}\n"),
        (false, Some(t)) => {
            let key = "\"mcpServers\": {";
            let at = t.find(key).expect("a JSON host file has mcpServers") + key.len();
            let empty = t[at..].trim_start().starts_with('}');
            let comma = if empty { "" } else { "," };
            format!("{}\n    {MINE_JSON}{comma}{}", &t[..at], &t[at..])
        }
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create host folder");
    }
    std::fs::write(&path, out).expect("write host file");
}

/// Changes a value inside entry `name`: its command, or the host of its url.
pub fn change_entry(paths: &Paths, file: FileId, name: &str) {
    let path = paths.path(file);
    let text = read(&path).expect("the file of an entry exists");
    let (start, end) = span(&text, file, name).expect("the entry is in its file");
    let entry = &text[start..end];
    let changed = if entry.contains("127.0.0.1") {
        entry.replacen("127.0.0.1", "hand-edited.example", 1)
    } else if is_toml(file) {
        entry.replacen("command = \"npx\"", "command = \"hand-edited\"", 1)
    } else {
        entry.replacen("\"command\": \"npx\"", "\"command\": \"hand-edited\"", 1)
    };
    assert_ne!(changed, entry, "{name} in {path:?} has no value to change");
    std::fs::write(
        &path,
        format!("{}{changed}{}", &text[..start], &text[end..]),
    )
    .expect("write host file");
}

/// Deletes entry `name`, with the comma that separated it from its neighbour.
pub fn delete_entry(paths: &Paths, file: FileId, name: &str) {
    let path = paths.path(file);
    let text = read(&path).expect("the file of an entry exists");
    let (mut start, mut end) = span(&text, file, name).expect("the entry is in its file");
    if !is_toml(file) {
        let after = &text[end..];
        if after.starts_with(',') {
            end += 1;
        } else {
            // The last entry: take the comma before it, or the line break when it is alone.
            let before = text[..start].trim_end();
            if before.ends_with(',') {
                start = before.len() - 1;
            } else {
                start = text[..start].trim_end_matches([' ', '\t']).len();
                start = start.saturating_sub(1);
            }
        }
    }
    std::fs::write(&path, format!("{}{}", &text[..start], &text[end..])).expect("write host file");
}

/// Where entry `name` is in `text`: for JSON from the start of its line to its closing brace;
/// for TOML its table (and subtables) up to the next other table.
fn span(text: &str, file: FileId, name: &str) -> Option<(usize, usize)> {
    if is_toml(file) {
        let header = format!("[mcp_servers.{name}]");
        let sub = format!("[mcp_servers.{name}.");
        let start = text
            .match_indices(&header)
            .map(|(i, _)| i)
            .find(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n')?;
        let mut end = start + header.len();
        loop {
            match text[end..].find("\n[") {
                Some(i) if text[end + i + 1..].starts_with(&sub) => end += i + 1,
                Some(i) => return Some((start, end + i + 1)),
                None => return Some((start, text.len())),
            }
        }
    } else {
        let key = format!("\"{name}\": {{");
        let at = text.find(&key)?;
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let open = at + key.len() - 1;
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        for (i, c) in text[open..].char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '{' if !in_string => depth += 1,
                '}' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        return Some((line_start, open + i + 1));
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// A git-style conflict of `ours` and `theirs`: the lines they share stay, each region that
/// differs becomes `<<<<<<<` ours `=======` theirs `>>>>>>>`.
pub fn conflict_text(ours: &str, theirs: &str) -> String {
    let diff = similar::TextDiff::from_lines(ours, theirs);
    let mut out = String::new();
    let (mut mine, mut other) = (String::new(), String::new());
    let flush = |out: &mut String, mine: &mut String, other: &mut String| {
        if !mine.is_empty() || !other.is_empty() {
            out.push_str("<<<<<<< HEAD\n");
            out.push_str(mine);
            out.push_str("=======\n");
            out.push_str(other);
            out.push_str(">>>>>>> other-branch\n");
            mine.clear();
            other.clear();
        }
    };
    for change in diff.iter_all_changes() {
        let line = change.value();
        let line = if line.ends_with('\n') {
            line.to_string()
        } else {
            format!("{line}\n")
        };
        match change.tag() {
            similar::ChangeTag::Equal => {
                flush(&mut out, &mut mine, &mut other);
                out.push_str(&line);
            }
            similar::ChangeTag::Delete => mine.push_str(&line),
            similar::ChangeTag::Insert => other.push_str(&line),
        }
    }
    flush(&mut out, &mut mine, &mut other);
    out
}

/// Every file under `dir` whose bytes contain `needle`.
pub fn files_containing(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    crate::support::snapshot(dir)
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(needle.len()).any(|w| w == needle))
        .map(|(p, _)| p)
        .collect()
}

/// Every file under `dir`.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    crate::support::snapshot(dir)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}
