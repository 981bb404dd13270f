//! From a lock to host files: which files are targeted, which servers belong in each (with the
//! values of their inputs), and the plan that makes the files match.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::Result;

use crate::model::claims::Claim;
use crate::model::hosts::{HostEnv, Scope};
use crate::model::lock::{LockedPackage, Lockfile};
use crate::model::manifest::{DependencySpec, Launcher, LoadedManifest, Manifest};
use crate::plan::targets::{Layout, TargetSet};
use crate::plan::{
    self, Desired, LossyPolicy, Mode, ParsedFile, Plan, PlanInput, Target, TargetInput,
};
use crate::resolve::RegistrySet;
use crate::template::Props;
use crate::util::error::Error;
use crate::util::text::Text;

/// One server of the project: of a locked package, or of the project's own `[servers]`.
#[derive(Clone, Debug)]
pub struct Slot {
    pub package: String,
    pub version: semver::Version,
    /// The entry's name in the hosts (what claims, `exclude` and `status` name).
    pub server: String,
    /// The server's name in its package, when the dependency's `entries` gives the entry
    /// another (`entries = { mcp = "notion" }`): its definition is looked up by this one.
    pub defined_as: Option<String>,
}

impl Slot {
    /// The server's key in its package's (or the project's) `[servers]`.
    pub fn definition(&self) -> &str {
        self.defined_as.as_deref().unwrap_or(&self.server)
    }
}

/// Where every server of a project goes: the target files, and for each the servers it takes.
#[derive(Clone, Debug, Default)]
pub struct Placed {
    pub targets: Vec<Target>,
    /// `(target index, slot index)` for every server a target takes.
    pub assignments: Vec<(usize, usize)>,
    /// `(target index, slot index)` for every server a target's host would load from a shared
    /// file it also reads, though the project keeps the server from that host: its entry there
    /// only switches the server off ([`Layout::switched_off_in`]).
    pub overrides: Vec<(usize, usize)>,
    pub slots: Vec<Slot>,
    /// User-scope claims of `$DOTPACK_HOME/claims.toml` that name a file dotpack does not write
    /// for that host now (its location moved, as with `CODEX_HOME`): ignored, and said. A lock's
    /// claims never get here: reading the lock set aside any that does not name its host's
    /// project file, and warned once (see [`crate::model::lock::read`]).
    pub ignored_claims: Vec<String>,
    /// `[project] gateway` is on: the one slot is the gateway's entry, for the manifest at this
    /// path (see [`crate::model::gateway`]).
    pub gateway: Option<PathBuf>,
}

impl Placed {
    /// Only the targets at `scope`, with the servers they take.
    pub fn at_scope(mut self, scope: Scope) -> Placed {
        self.retain_targets(|t| t.scope == scope);
        self
    }

    /// Keeps the targets `keep` accepts, with their assignments renumbered.
    pub fn retain_targets(&mut self, keep: impl Fn(&Target) -> bool) {
        let keep: Vec<bool> = self.targets.iter().map(keep).collect();
        let index: Vec<usize> = keep
            .iter()
            .scan(0, |next, &k| {
                let i = *next;
                *next += usize::from(k);
                Some(i)
            })
            .collect();
        let renumber = |pairs: Vec<(usize, usize)>| -> Vec<(usize, usize)> {
            pairs
                .into_iter()
                .filter(|(t, _)| keep[*t])
                .map(|(t, s)| (index[t], s))
                .collect()
        };
        self.assignments = renumber(std::mem::take(&mut self.assignments));
        self.overrides = renumber(std::mem::take(&mut self.overrides));
        let mut kept = keep.iter();
        self.targets
            .retain(|_| kept.next().copied().unwrap_or(false));
    }
}

/// What decides where entries go: the manifest as the command leaves it, the lock whose
/// packages belong in the hosts, and the claims that say where entries are now.
pub struct Where<'a> {
    pub manifest: &'a LoadedManifest,
    pub lock: &'a Lockfile,
    /// The project's claims (from `dotpack.lock`) and every owner's user-scope claims.
    pub claims: &'a [Claim],
    pub owner: &'a str,
    pub env: &'a HostEnv,
    /// The user-level manifest: every host at user scope.
    pub global: bool,
}

/// Places every server of the project into its target files: the declared hosts first, then
/// every file this project's claims name (so entries are found wherever they are).
pub fn place(w: &Where<'_>) -> Result<Placed> {
    let layout = Layout::new(&w.manifest.manifest, Some(w.lock), w.global)?;
    let root = w.manifest.root();
    let mut set = TargetSet::default();
    let mut placed = Placed::default();
    for locked in &w.lock.packages {
        for server in &locked.servers {
            let entry = w.manifest.manifest.entry_name(&locked.name, server);
            placed.slots.push(Slot {
                package: locked.name.clone(),
                version: locked.version.clone(),
                server: entry.to_string(),
                defined_as: (entry != server).then(|| server.clone()),
            });
        }
    }
    let own_version = own_version(&w.manifest.manifest);
    for server in w.manifest.manifest.servers.keys() {
        placed.slots.push(Slot {
            package: LOCAL_PACKAGE.to_string(),
            version: own_version.clone(),
            server: server.clone(),
            defined_as: None,
        });
    }
    // With the gateway on, the hosts get its one entry instead of one per server; the servers'
    // entries, no longer placed, leave the files their claims name.
    if w.manifest.manifest.gateway().installs() {
        placed.slots = vec![Slot {
            package: crate::model::gateway::PACKAGE.to_string(),
            version: own_version,
            server: crate::model::gateway::ENTRY.to_string(),
            defined_as: None,
        }];
        placed.gateway = Some(std::path::absolute(&w.manifest.path)?);
    }
    for (i, slot) in placed.slots.iter().enumerate() {
        let places = layout.places_of(&slot.package, &slot.server);
        for &(host, scope) in &places {
            let t = set.place(host, scope, root, w.env)?;
            placed.assignments.push((t, i));
        }
        for (host, scope) in layout.switched_off_in(&slot.package, &slot.server, &places) {
            let t = set.place(host, scope, root, w.env)?;
            placed.overrides.push((t, i));
        }
    }
    for claim in w.claims.iter().filter(|c| c.is_owned_by(w.owner)) {
        if !set.add_claimed(claim, root, w.env) {
            placed
                .ignored_claims
                .push(format!("{}#{}", claim.file, claim.server));
        }
    }
    placed.targets = set.targets;
    Ok(placed)
}

/// The version claims record for the project's own servers: `[package] version`, else 0.0.0.
fn own_version(manifest: &Manifest) -> semver::Version {
    manifest
        .package
        .as_ref()
        .map_or_else(|| semver::Version::new(0, 0, 0), |p| p.version.clone())
}

/// Keeps only the targets of `hosts` (when given) at `scope` (when given), for commands that
/// look at part of the project.
pub fn filter_targets(placed: &mut Placed, hosts: &[String], scope: Option<Scope>) {
    placed.retain_targets(|t| {
        (hosts.is_empty() || hosts.iter().any(|h| h == t.host.id))
            && scope.is_none_or(|s| s == t.scope)
    });
}

/// Bump when translation writes different entries for the same package and inputs, so entries
/// written by an older dotpack are translated again instead of being taken as current.
const TRANSLATION_REVISION: u32 = 1;

/// The fingerprint of what, besides the package version, decides a package's entries: the inputs
/// set in `dotpack.toml`, whether its servers start through the launcher, and the translation
/// revision.
pub fn inputs_fingerprint(spec: Option<&DependencySpec>, launcher: &Launcher) -> String {
    let set = match spec {
        Some(DependencySpec::Detailed(d)) => d.set.clone(),
        _ => BTreeMap::new(),
    };
    let mut what = serde_json::json!({ "rev": TRANSLATION_REVISION, "set": set });
    // Only when asked for, so the fingerprints written before the launcher stay the same.
    if let Some(launcher) = launcher.fingerprint() {
        what["launcher"] = launcher;
    }
    crate::model::claims::entry_hash(&what)
}

/// The fingerprint of a server of the project's own `[servers]`: its definition and the
/// manifest's `[inputs]`, with the translation revision. Its claims record it, so an entry is
/// current until the definition changes (see [`Desired::keep_current`]).
pub fn own_fingerprint(manifest: &Manifest, server: &crate::model::manifest::Server) -> String {
    // Where the server goes (`hosts`) is not what it is: adding a host leaves the entries in
    // the others as they are.
    let what = crate::model::manifest::Server {
        hosts: Vec::new(),
        ..server.clone()
    };
    let mut fingerprint = serde_json::json!({
        "rev": TRANSLATION_REVISION,
        "server": what,
        "inputs": manifest.inputs,
    });
    if let Some(launcher) = manifest.launcher_for(LOCAL_PACKAGE).fingerprint() {
        fingerprint["launcher"] = launcher;
    }
    crate::model::claims::entry_hash(&fingerprint)
}

/// The inputs fingerprint of server `server` of `package` (see [`inputs_fingerprint`] and
/// [`own_fingerprint`]).
pub fn fingerprint_of(manifest: &Manifest, package: &str, server: &str) -> String {
    if package == crate::model::gateway::PACKAGE {
        return gateway_fingerprint();
    }
    match manifest.servers.get(server) {
        Some(def) if package == LOCAL_PACKAGE => own_fingerprint(manifest, def),
        _ => inputs_fingerprint(
            manifest.dependencies.get(package),
            &manifest.launcher_for(package),
        ),
    }
}

/// Every server of `placed` with its inputs' values: what `dependencies.NAME.set` gives, else
/// the input's default. Each package's manifest comes from the archive the lock pinned (checked
/// against the lock's checksum), except where `is_current(package, inputs)` says every target
/// already holds its entries as claimed: then only the names are needed (from the lock), and the
/// archive is not read. Every input problem of every package is reported at once.
pub fn desired(
    placed: &Placed,
    lock: &Lockfile,
    manifest: &Manifest,
    registries: &RegistrySet,
    is_current: impl Fn(&LockedPackage, &str) -> bool,
) -> Result<Vec<Desired>> {
    let mut defs: BTreeMap<&str, (Option<crate::model::manifest::Manifest>, Props)> =
        BTreeMap::new();
    let mut problems = Vec::new();
    let placed_packages: BTreeSet<&str> = placed
        .assignments
        .iter()
        .map(|(_, s)| placed.slots[*s].package.as_str())
        .collect();
    for locked in &lock.packages {
        let spec = manifest.dependencies.get(&locked.name);
        if !placed_packages.contains(locked.name.as_str())
            || is_current(
                locked,
                &inputs_fingerprint(spec, &manifest.launcher_for(&locked.name)),
            )
        {
            continue;
        }
        let Some(source) = registries.by_source(&locked.source) else {
            crate::bail_help!(
                help = format!(
                    "run `dotpack update {}` to pick it from the current registries",
                    locked.name
                ),
                "dotpack.lock pins {} {} from `{}`, which is not a configured registry",
                locked.name,
                locked.version,
                locked.source
            );
        };
        let package =
            crate::registry::load_locked(source, &locked.name, &locked.version, &locked.checksum)?;
        match input_props(&locked.name, &package, spec) {
            Ok(props) => {
                defs.insert(&locked.name, (Some(package), props));
            }
            Err(mut more) => problems.append(&mut more),
        }
    }
    let own_props = if manifest.servers.is_empty() {
        Props::new()
    } else {
        match input_props(LOCAL_PACKAGE, manifest, None) {
            Ok(props) => props,
            Err(mut more) => {
                problems.append(&mut more);
                Props::new()
            }
        }
    };
    if let Some(problems) = Error::all(problems) {
        return Err(problems.into());
    }
    check_own_servers(manifest, lock)?;
    let mut out = Vec::with_capacity(placed.slots.len());
    for slot in &placed.slots {
        if let Some(manifest_path) = placed
            .gateway
            .as_ref()
            .filter(|_| slot.package == crate::model::gateway::PACKAGE)
        {
            out.push(gateway_desired(slot, manifest_path));
            continue;
        }
        let own = slot.package == LOCAL_PACKAGE;
        let spec = (!own)
            .then(|| manifest.dependencies.get(&slot.package))
            .flatten();
        let (def, props) = if own {
            (
                manifest.servers.get(&slot.server).cloned(),
                own_props.clone(),
            )
        } else {
            match defs.get(slot.package.as_str()) {
                Some((Some(package), props)) => (
                    package.servers.get(slot.definition()).cloned(),
                    props.clone(),
                ),
                _ => (None, Props::new()),
            }
        };
        let owner = || {
            if own {
                "dotpack.toml".to_string()
            } else {
                format!("package `{}`", slot.package)
            }
        };
        // What `dotpack validate` refuses in a server, install refuses too, in the same words.
        if let Some(server) = &def
            && let Some((field, issue)) =
                crate::model::validate::host_values::server_problems(server)
                    .into_iter()
                    .next()
        {
            crate::bail_help!(
                help = issue.help,
                "{}: `servers.{}.{field}`: {}",
                owner(),
                slot.server,
                issue.message
            );
        }
        if let Some(server) = &def
            && let Some((field, reason)) = crate::model::validate::secrets::server_secrets(server)
                .into_iter()
                .next()
        {
            let owner = owner();
            crate::bail_help!(
                help = crate::model::validate::secrets::LITERAL_SECRET_HELP,
                "{owner}: `servers.{}.{field}` looks like a literal secret ({reason}); dotpack does not write it into host files",
                slot.server
            );
        }
        // A server with `bridge` stays as declared here: it is written as `dotpack bridge URL`
        // per target, with the command that target's scope needs (see
        // `crate::model::bridge_server`), and its fingerprint never holds where dotpack lives.
        let inputs = match (own, &def) {
            (true, Some(server)) => own_fingerprint(manifest, server),
            _ => inputs_fingerprint(spec, &manifest.launcher_for(&slot.package)),
        };
        out.push(Desired {
            server: slot.server.clone(),
            package: slot.package.clone(),
            version: slot.version.clone(),
            def,
            props,
            inputs,
            allow_lossy: match own {
                true => manifest.own_allow_lossy().to_vec(),
                false => spec.map(|s| s.allow_lossy().to_vec()).unwrap_or_default(),
            },
            keep_current: own,
            switched_off: false,
            launcher: manifest.launcher_for(&slot.package),
        });
    }
    Ok(out)
}

/// The gateway's entry (`dotpack serve`) for the manifest at `manifest_path`.
fn gateway_desired(slot: &Slot, manifest_path: &std::path::Path) -> Desired {
    let def = crate::model::gateway::entry(manifest_path);
    Desired {
        server: slot.server.clone(),
        package: slot.package.clone(),
        version: slot.version.clone(),
        inputs: gateway_fingerprint(),
        def: Some(def),
        props: Props::new(),
        allow_lossy: Vec::new(),
        keep_current: false,
        switched_off: false,
        launcher: Default::default(),
    }
}

/// The inputs fingerprint of the gateway's entry: only the translation shapes it.
fn gateway_fingerprint() -> String {
    serde_json::json!({ "rev": TRANSLATION_REVISION, "gateway": true }).to_string()
}

/// The package name claims record for servers declared in the project's own `dotpack.toml`.
pub const LOCAL_PACKAGE: &str = "dotpack.toml";

/// A server of the project's own `[servers]` that a locked package also declares is an error:
/// both would write the same entry.
fn check_own_servers(manifest: &Manifest, lock: &Lockfile) -> Result<()> {
    for server in manifest.servers.keys() {
        if let Some(other) = lock
            .packages
            .iter()
            .find(|p| manifest.entry_names(&p.name, &p.servers).contains(server))
        {
            crate::bail_help!(
                help = format!(
                    "rename the server in [servers.{server}], give the package's entry another name (`entries = {{ SERVER = \"OTHER\" }}` on `{}` in [dependencies]), or remove `{}` from [dependencies]",
                    other.name, other.name
                ),
                "dotpack.toml declares a server named `{server}`, and so does package `{}`",
                other.name
            );
        }
    }
    Ok(())
}

/// Input values of `name`: `set` from the dependency, else defaults. Every problem is returned:
/// a required input without a value (saying how to set it), a secret input given a value (secrets
/// come from the environment and are never stored), an input the package does not have.
pub fn props_for(
    name: &str,
    package: &Manifest,
    spec: Option<&DependencySpec>,
) -> Result<Props, Vec<String>> {
    input_props(name, package, spec)
        .map_err(|problems| problems.iter().map(ToString::to_string).collect())
}

/// [`props_for`], each problem an [`Error`] with its fix.
pub fn input_props(
    name: &str,
    package: &Manifest,
    spec: Option<&DependencySpec>,
) -> Result<Props, Vec<Error>> {
    let set = spec
        .and_then(DependencySpec::set)
        .cloned()
        .unwrap_or_default();
    let mut props = Props::new();
    let mut problems = Vec::new();
    for (input, def) in &package.inputs {
        if def.secret && set.contains_key(input) {
            problems.push(secret_input(name, input, package, "dotpack.toml sets"));
            continue;
        }
        let value = match set.get(input).map(|v| crate::model::inputs::coerce(def, v)) {
            Some(Ok(v)) => Some(v),
            Some(Err(why)) => {
                problems.push(input_value(name, input, &why));
                continue;
            }
            None => def.default.clone(),
        };
        match value {
            Some(v) => {
                let broken = crate::model::inputs::check(def, &v);
                if !broken.is_empty() {
                    problems.push(input_value(name, input, &broken.join("; ")));
                    continue;
                }
                props.insert(input.clone(), toml_to_json(&v));
            }
            None if def.required && !def.secret => problems.push(
                Error::new(format!(
                    "{} needs a value for input `{input}`{}",
                    owner_of(name),
                    def.description
                        .as_deref()
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                ))
                .help(how_to_set(name, input, def)),
            ),
            None => {}
        }
    }
    for key in set.keys() {
        if !package.inputs.contains_key(key) {
            let declared: Vec<&str> = package.inputs.keys().map(String::as_str).collect();
            problems.push(
                Error::new(format!(
                    "dotpack.toml sets input `{key}` of `{name}`, but the package has no such input"
                ))
                .help(if declared.is_empty() {
                    format!("{name} declares no inputs; remove `set.{key}`")
                } else {
                    format!("{name} declares: {}", declared.join(", "))
                }),
            );
        }
    }
    if problems.is_empty() {
        Ok(props)
    } else {
        Err(problems)
    }
}

/// Who declares the inputs of `name`, for messages.
fn owner_of(name: &str) -> String {
    if name == LOCAL_PACKAGE {
        "dotpack.toml".to_string()
    } else {
        format!("package `{name}`")
    }
}

/// How the user gives input `input` of `name` a value. A package's inputs are set on its
/// dependency (`add --set` records `set`); the project's own inputs have no dependency to carry a
/// `set`, so their value is the declaration's own `default`.
fn how_to_set(name: &str, input: &str, def: &crate::model::manifest::Input) -> String {
    use crate::model::inputs::InputType;
    if name != LOCAL_PACKAGE {
        return format!("dotpack add {name} --set {input}=VALUE");
    }
    let example = match crate::model::inputs::type_of(def) {
        InputType::String => "\"VALUE\"",
        InputType::Number => "30",
        InputType::Bool => "true",
        InputType::Array => "[\"VALUE\"]",
        InputType::Object => "{ KEY = \"VALUE\" }",
    };
    format!(
        "give it a value in dotpack.toml: `default = {example}` under [inputs.{input}] (`--set` \
         sets the inputs of packages in [dependencies], not the project's own)"
    )
}

/// [`input_value`] as text.
pub fn input_value_error(name: &str, input: &str, why: &str) -> String {
    input_value(name, input, why).to_string()
}

/// The error for a value of input `input` of package `name` that breaks its rules.
pub fn input_value(name: &str, input: &str, why: &str) -> Error {
    let help = if name == LOCAL_PACKAGE {
        format!("fix `default` under [inputs.{input}] in dotpack.toml")
    } else {
        format!("dotpack add {name} --set {input}=VALUE (`dotpack info {name}` shows its inputs)")
    };
    Error::new(format!("input `{input}` of `{name}`: {why}")).help(help)
}

/// [`secret_input`] as text.
pub fn secret_input_error(name: &str, input: &str, package: &Manifest, what: &str) -> String {
    secret_input(name, input, package, what).to_string()
}

/// The error for a value given to secret input `input` of package `name`: it names the
/// environment variables the package reads instead.
pub fn secret_input(name: &str, input: &str, package: &Manifest, what: &str) -> Error {
    let vars = package.env_vars();
    let help = if vars.is_empty() {
        "set it in the environment the host starts the server in, never in a file".to_string()
    } else {
        format!(
            "export {} in the environment the host starts the server in (the package reads {})",
            vars.iter()
                .map(|v| format!("{v}=…"))
                .collect::<Vec<_>>()
                .join(" "),
            vars.join(", ")
        )
    };
    Error::new(format!("{what} a value for `{input}` of `{name}`, which is a secret: dotpack never writes secrets into files")).help(help)
}

/// A TOML value as the typed value templates read.
pub fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        toml::Value::String(s) => Value::from(s.as_str()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => {
            serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
        }
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::from(d.to_string()),
        toml::Value::Array(items) => Value::Array(items.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

/// What to plan: the lock whose packages belong in the targets, for the manifest's inputs.
pub struct PlanRequest<'a> {
    pub placed: &'a Placed,
    pub lock: &'a Lockfile,
    pub manifest: &'a Manifest,
    pub registries: &'a RegistrySet,
    /// The project's claims and every owner's user-scope claims.
    pub claims: &'a [Claim],
    pub owner: &'a str,
    pub force: bool,
    pub keep_edited: bool,
    /// See [`crate::plan::PlanInput::keep_adopted`].
    pub keep_adopted: bool,
    /// See [`crate::plan::Originals`].
    pub originals: &'a crate::plan::Originals,
    pub lossy: &'a LossyPolicy,
    /// The current `dotpack.lock`, which the entries on disk were written from: a package it
    /// pinned at the same version with another checksum (`dotpack update` took a republished
    /// archive) is translated again, since claims record versions, not checksums.
    pub previous: Option<&'a Lockfile>,
    pub mode: Mode,
    /// `--resolve-env` (see [`crate::model::resolved_env`]).
    pub resolve_env: bool,
    /// Host files `dotpack merge` settled: the text each is planned from instead of the
    /// conflicted bytes on disk.
    pub starts: BTreeMap<PathBuf, String>,
}

/// Reads the current bytes of every target, loads the packages whose entries may change, and
/// plans.
pub fn plan_targets(request: PlanRequest<'_>) -> Result<Plan> {
    let placed = request.placed;
    let mut files = read_targets(&placed.targets)?;
    for (path, start) in &request.starts {
        if let Some(text) = files.get_mut(path) {
            *text = Some(start.as_str().into());
        }
    }
    redact_resolved(&placed.targets, &mut files, request.claims);
    // A large file's snapshot hash is computed on a spare core while it is parsed and planned
    // (see `Text::digest_ahead`); the transaction that writes it needs that hash.
    files.values().flatten().for_each(|t| t.digest_ahead(None));
    let parsed = parse_targets(&placed.targets, &files);
    let sync = matches!(request.mode, Mode::Sync);
    let by_entry: BTreeMap<(&str, &str), &Claim> = request
        .claims
        .iter()
        .map(|c| ((c.file.as_str(), c.server.as_str()), c))
        .collect();
    let same_archive = |locked: &LockedPackage| {
        request
            .previous
            .and_then(|l| l.get(&locked.name))
            .is_none_or(|was| was.version != locked.version || was.checksum == locked.checksum)
    };
    // Each package's assignments, so checking one package costs its own entries.
    let mut by_package: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    for (t, s) in &placed.assignments {
        by_package
            .entry(placed.slots[*s].package.as_str())
            .or_default()
            .push((*t, *s));
    }
    let is_current = |locked: &LockedPackage, inputs: &str| {
        !sync
            || by_package
                .get(locked.name.as_str())
                .into_iter()
                .flatten()
                .all(|(t, s)| {
                    let target = &placed.targets[*t];
                    let server = placed.slots[*s].server.as_str();
                    let Some(entries) = parsed.get(&target.path).map(|p| &p.entries) else {
                        return false;
                    };
                    by_entry
                        .get(&(target.claim_file.as_str(), server))
                        .is_some_and(|c| {
                            c.is_owned_by(request.owner)
                                && plan::is_current(
                                    c,
                                    &locked.name,
                                    &locked.version,
                                    inputs,
                                    entries.get(server),
                                )
                        })
                })
    };
    let desired = desired(
        placed,
        request.lock,
        request.manifest,
        request.registries,
        |locked: &LockedPackage, inputs: &str| {
            is_current(locked, inputs) && (!sync || same_archive(locked))
        },
    )?;
    let mut inputs: Vec<TargetInput<'_>> = placed
        .targets
        .iter()
        .map(|t| TargetInput {
            target: t.clone(),
            desired: Vec::new(),
        })
        .collect();
    let switched_off: Vec<Desired> = placed
        .overrides
        .iter()
        .map(|(_, s)| Desired {
            switched_off: true,
            ..desired[*s].clone()
        })
        .collect();
    for (t, s) in &placed.assignments {
        inputs[*t].desired.push(&desired[*s]);
    }
    for ((t, _), d) in placed.overrides.iter().zip(&switched_off) {
        inputs[*t].desired.push(d);
    }
    let input = PlanInput {
        targets: &inputs,
        files: &files,
        parsed: &parsed,
        claims: request.claims,
        owner: request.owner,
        force: request.force,
        keep_edited: request.keep_edited,
        keep_adopted: request.keep_adopted,
        originals: request.originals,
        lossy: request.lossy,
        mode: request.mode,
        resolve_env: request.resolve_env,
    };
    let mut plan = plan::plan(&input)?;
    for f in plan.files.iter().filter(|f| f.is_changed()) {
        if let Some(after) = &f.after {
            after.digest_ahead(f.before.as_ref());
        }
    }
    plan.warnings.extend(shadowed_on_disk(&inputs));
    // A file that changes would copy the values `--resolve-env` wrote into the history unless
    // they are recognised; a file that does not change needs nothing.
    let changed: Vec<Target> = plan
        .files
        .iter()
        .filter(|f| f.is_changed())
        .map(|f| f.target.clone())
        .collect();
    check_resolved(&changed, &parsed, request.claims)?;
    Ok(plan)
}

/// A warning for each target whose host will not read it because a file it reads first is on
/// disk already, one no target of this plan writes (a `.mcp.json` made by hand or by another
/// tool); the planner warns about the files it plans itself.
fn shadowed_on_disk(inputs: &[TargetInput<'_>]) -> Vec<String> {
    let mut warnings = Vec::new();
    for t in inputs {
        let Some(shadow) =
            crate::model::hosts::precedence::shadow_of(t.target.host, t.target.scope)
        else {
            continue;
        };
        let planned = inputs
            .iter()
            .any(|o| o.target.scope == Scope::Project && o.target.claim_file == shadow.by);
        let depth = std::path::Path::new(shadow.file).components().count();
        let Some(root) = t.target.path.ancestors().nth(depth) else {
            continue;
        };
        if t.desired.is_empty()
            || planned
            || std::fs::symlink_metadata(root.join(shadow.by)).is_err()
        {
            continue;
        }
        warnings.push(format!(
            "{host} reads `{by}` instead of `{file}` whenever `{by}` exists, and this project has one: the entries written for {host} in `{file}` take no effect while it is there. To have {host} read them, remove `{by}`, or declare {host} at user scope (`{{ host = \"{id}\", scope = \"user\" }}`)",
            host = t.target.host.name(),
            by = shadow.by,
            file = shadow.file,
            id = t.target.host.id,
        ));
    }
    warnings
}

/// Each target file that parses, parsed once for its entries and its first edit (files that do
/// not are left out; planning reports them).
fn parse_targets<'f>(
    targets: &[Target],
    files: &'f BTreeMap<PathBuf, Option<Text>>,
) -> BTreeMap<PathBuf, ParsedFile<'f>> {
    let mut out = BTreeMap::new();
    for t in targets {
        let text = files
            .get(&t.path)
            .and_then(Option::as_deref)
            .unwrap_or_default();
        if let Ok(parsed) = ParsedFile::parse(t, text) {
            out.insert(t.path.clone(), parsed);
        }
    }
    out
}

/// The variables whose values `claims` say `target`'s file holds (`--resolve-env`).
pub fn resolved_vars(target: &Target, claims: &[Claim]) -> Vec<String> {
    let mut vars: Vec<String> = claims
        .iter()
        .filter(|c| c.file == target.claim_file && !c.resolved_env.is_empty())
        .flat_map(|c| c.resolved_env.iter().cloned())
        .collect();
    vars.sort();
    vars.dedup();
    vars
}

/// Replaces, in the text of every target, the values `--resolve-env` wrote (as its claims say)
/// with their markers: dotpack plans, compares, prints and snapshots the marker form only.
pub fn redact_resolved(
    targets: &[Target],
    files: &mut BTreeMap<PathBuf, Option<Text>>,
    claims: &[Claim],
) {
    for t in targets {
        let vars = resolved_vars(t, claims);
        if vars.is_empty() {
            continue;
        }
        if let Some(text) = files.get_mut(&t.path).and_then(Option::as_mut) {
            *text = crate::model::resolved_env::redact(text, &vars).into();
        }
    }
}

/// An entry written with `--resolve-env` that no longer matches its claim once the current
/// values are replaced by markers holds values dotpack cannot recognise (the variable changed or
/// is unset, or the entry was edited): changing the file would copy them into the history, so
/// the command stops and says how to go on.
fn check_resolved(
    targets: &[Target],
    parsed: &BTreeMap<PathBuf, ParsedFile<'_>>,
    claims: &[Claim],
) -> Result<()> {
    for t in targets {
        let Some(file) = parsed.get(&t.path) else {
            continue;
        };
        for c in claims
            .iter()
            .filter(|c| c.file == t.claim_file && !c.resolved_env.is_empty())
        {
            let Some(entry) = file.entries.get(&c.server) else {
                continue;
            };
            if crate::model::claims::entry_hash(entry) != c.entry {
                let vars = c.resolved_env.join(", ");
                crate::bail_help!(
                    help = format!(
                        "export {vars} with the values the entry was written with, or delete the entry from the file by hand"
                    ),
                    "{}: entry `{}` holds values `--resolve-env` wrote from {vars}, and they are not the current values of {vars}; dotpack will not change the file, since that would copy them into its history",
                    t.claim_file,
                    c.server
                );
            }
        }
    }
    Ok(())
}

/// The current text of every target (`None` when absent). A folder where the file should be, or
/// a file that is not UTF-8, is an error naming it.
pub fn read_targets(targets: &[Target]) -> Result<BTreeMap<PathBuf, Option<Text>>> {
    let mut files = BTreeMap::new();
    for t in targets {
        if t.path.is_dir() {
            crate::bail_help!(
                help = format!(
                    "move the folder away, or leave {} out with --host",
                    t.host.id
                ),
                file = &t.path,
                "{} is a folder, but {} keeps its config in a file there",
                t.path.display(),
                t.host.name()
            );
        }
        let text = t.read()?;
        tracing::debug!(
            host = t.host.id,
            path = %t.path.display(),
            bytes = text.as_ref().map(String::len),
            "read host file"
        );
        files.insert(t.path.clone(), text.map(Text::from));
    }
    Ok(files)
}
