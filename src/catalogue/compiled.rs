//! The compiled catalogue: the built-in files of `rules/` and users' files, read with the one
//! schema, checked for row ids, merged in order, the disabled rows left out, and the rows' name
//! lists joined into what the engine looks up.

use super::schema::*;
pub use crate::semantic::glob;
use std::collections::{HashMap, HashSet};

/// A catalogue that cannot be used, in one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogueError {
    /// Not TOML, or not the catalogue's shape (an unknown key, a wrong type).
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// An id that is not `<table>.<kebab-case>`.
    BadId {
        file: String,
        id: String,
        prefix: &'static str,
    },
    /// An id given to two rows (the second in `file`).
    DuplicateId {
        file: String,
        id: String,
        first: String,
    },
    /// A user's file that cannot be read.
    Unreadable { file: String, message: String },
    /// A row to disable that no file defines.
    UnknownRow {
        id: String,
        origin: String,
        nearest: Option<String>,
    },
}

impl std::fmt::Display for CatalogueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CatalogueError::Parse {
                file,
                line,
                column,
                message,
            } => write!(f, "bad catalogue file {file}:{line}:{column}: {message}"),
            CatalogueError::Unreadable { file, message } => {
                write!(f, "bad catalogue file {file}: cannot read: {message}")
            }
            CatalogueError::BadId { file, id, prefix } => write!(
                f,
                "bad catalogue file {file}: row id `{id}` must be `{prefix}.` followed by lowercase words joined by `-`"
            ),
            CatalogueError::DuplicateId { file, id, first } => write!(
                f,
                "bad catalogue file {file}: row id `{id}` is already used by a row of {first}"
            ),
            CatalogueError::UnknownRow {
                id,
                origin,
                nearest,
            } => {
                write!(f, "unknown catalogue row `{id}` ({origin})")?;
                match nearest {
                    Some(n) => write!(f, "; did you mean `{n}`? (see `retrylint catalogue`)"),
                    None => write!(f, "; `retrylint catalogue` lists the row ids"),
                }
            }
        }
    }
}

impl std::error::Error for CatalogueError {}

/// A row of the compiled catalogue, for listings: its id, its table and what it matches.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RowInfo {
    pub id: String,
    /// `sources.source`, `sinks.header`, …
    pub table: &'static str,
    pub label: String,
    /// The file the row comes from (`rules/sources.toml` for built-in rows).
    pub file: String,
}

/// A row of any table.
pub(super) trait Row {
    fn id(&self) -> &str;
    /// A short description for listings.
    fn label(&self) -> String;
}

/// Calls every `$apply!(top, table, "prefix")` for each table of the schema, in one order.
macro_rules! each_table {
    ($apply:ident) => {
        $apply!(regions, annotation, "region");
        $apply!(regions, callback, "region");
        $apply!(regions, pipeline, "region");
        $apply!(regions, implementation, "region");
        $apply!(regions, interceptor, "region");
        $apply!(regions, aspect, "region");
        $apply!(regions, recursion, "region");
        $apply!(regions, step, "region");
        $apply!(regions, function_bean, "region");
        $apply!(regions, function_call, "region");
        $apply!(regions, rethrow, "region");
        $apply!(regions, observability, "region");
        $apply!(regions, deferred, "region");
        $apply!(regions, item_failures, "region");
        $apply!(regions, ack_loop, "region");
        $apply!(regions, redelivery, "region");
        $apply!(sources, source, "source");
        $apply!(sources, counter, "source");
        $apply!(sources, parameter, "source");
        $apply!(sources, factory, "source");
        $apply!(sources, generic, "source");
        $apply!(sources, coarse, "source");
        $apply!(sources, stored, "source");
        $apply!(sources, same_object, "source");
        $apply!(sources, builder_default, "source");
        $apply!(sources, held_function, "source");
        $apply!(sinks, method, "sink");
        $apply!(sinks, header, "sink");
        $apply!(sinks, header_setter, "sink");
        $apply!(sinks, header_annotation, "sink");
        $apply!(sinks, constructor, "sink");
        $apply!(sinks, parameter, "sink");
        $apply!(sinks, container, "sink");
        $apply!(sinks, http_call, "sink");
        $apply!(sinks, http_client_method, "sink");
        $apply!(guards, absence, "guard");
        $apply!(guards, presence, "guard");
        $apply!(guards, absent_fallback, "guard");
        $apply!(guards, first_attempt, "guard");
        $apply!(guards, store, "guard");
        $apply!(guards, compute_once, "guard");
        $apply!(guards, persist, "guard");
        $apply!(guards, outbox, "guard");
        $apply!(guards, sweep, "guard");
        $apply!(guards, cluster_lock, "guard");
        $apply!(side_effects, call, "side-effect");
        $apply!(side_effects, key_carrier, "side-effect");
        $apply!(side_effects, endpoint, "side-effect");
        $apply!(side_effects, client_base, "side-effect");
    };
}

#[derive(Debug)]
pub struct Catalogue {
    pub regions: Regions,
    pub sources: Sources,
    pub sinks: Sinks,
    pub guards: Guards,
    pub side_effects: SideEffects,
    /// Every row left in, in file order.
    rows: Vec<RowInfo>,
    /// Method names that can make a call a source, for a cheap first test.
    source_names: NameSet,
    /// Method names whose call can make a region (a callback, a pipeline operator, an
    /// interceptor registration, a flow step), for a cheap first test of a body.
    region_call_names: NameSet,
}

#[derive(Debug, Default)]
pub struct Sources {
    pub source: Vec<SourceRow>,
    /// The methods of every `[[sources.counter]]` row.
    pub counter_methods: Vec<String>,
    /// The `updates` of every `[[sources.counter]]` row, with the row's `increments`.
    pub counter_updates: Vec<(Vec<String>, Vec<String>)>,
    pub parameter: Vec<ParameterSource>,
    pub factory: Vec<Factory>,
    pub generic: Vec<GenericMethod>,
    pub coarse: CoarseConversions,
    pub stored: Vec<StoredRead>,
    pub same_object: Vec<SameObject>,
    pub builder_default: Vec<BuilderDefault>,
    pub held_function: Vec<HeldFunction>,
}

/// The `[[sources.coarse]]` rows joined: a conversion of any row strips the kinds of all rows.
#[derive(Debug, Default)]
pub struct CoarseConversions {
    pub kinds: Vec<SourceKind>,
    pub instance: Vec<String>,
    pub static_methods: Vec<ClassMethods>,
    pub instance_args: Vec<MethodArgs>,
}

#[derive(Debug, Default)]
pub struct Sinks {
    pub methods: Vec<SinkMethod>,
    pub headers: SinkHeaders,
    pub constructor: Vec<SinkConstructor>,
    pub parameters: SinkParameters,
    /// Calls that send or start a request with a known HTTP method.
    pub http_calls: Vec<HttpCall>,
    /// The names of their methods, for a cheap first test.
    pub http_call_names: HashSet<String>,
    pub http_client_methods: Vec<HttpClientMethod>,
}

#[derive(Debug, Default)]
pub struct SinkHeaders {
    /// Methods that set a header (or a field of a header-like object).
    pub setters: Vec<String>,
    /// Methods that put an entry into a map or a JSON object.
    pub entry_setters: Vec<String>,
    /// The row of each setter method, for the rows a finding lists.
    pub setter_rows: HashMap<String, String>,
    pub names: KeyNames,
    pub annotations: Vec<String>,
    /// Annotations that name a field of a serialised body (`@JsonProperty`), with their rows.
    pub body_annotations: Vec<(String, String)>,
    /// (parameter annotation, the annotations holding the header templates it fills).
    pub templated: Vec<(String, Vec<String>)>,
    pub containers: Vec<KeyContainer>,
}

/// The `[[sinks.header]]` rows joined, normalized (lowercase, no `-` or `_`).
#[derive(Debug, Default)]
pub struct KeyNames {
    pub exact: Vec<String>,
    /// (stem, tails): ends with the stem, optionally followed by one of its row's tails.
    pub stems: Vec<(String, Vec<String>)>,
    pub suffixes: Vec<String>,
    /// Every word a key name must contain (the exact names, the stems and the suffixes), as
    /// written in the rows: the prefilter's words.
    pub words: Vec<String>,
    /// The rows of alert deduplication keys (`alert = true`), each with its own names.
    pub alert: Vec<(String, KeyNames)>,
}

impl KeyNames {
    fn add(&mut self, row: HeaderNames) {
        if row.alert {
            let mut own = KeyNames::default();
            own.add(HeaderNames {
                id: row.id.clone(),
                names: row.names.clone(),
                stems: row.stems.clone(),
                tails: row.tails.clone(),
                suffixes: row.suffixes.clone(),
                alert: false,
            });
            self.alert.push((row.id.clone(), own));
        }
        let tails: Vec<String> = row.tails.iter().map(|t| normalize(t)).collect();
        for n in &row.names {
            self.exact.push(normalize(n));
        }
        for st in &row.stems {
            self.stems.push((normalize(st), tails.clone()));
        }
        for sf in &row.suffixes {
            self.suffixes.push(normalize(sf));
        }
        self.words
            .extend(row.names.into_iter().chain(row.stems).chain(row.suffixes));
    }

    /// The row of an alert deduplication key named `name` (PagerDuty's `dedup_key`), if it is one.
    pub fn alert_row(&self, name: &str) -> Option<&str> {
        self.alert
            .iter()
            .find(|(_, names)| names.matches(name))
            .map(|(id, _)| id.as_str())
    }

    /// Is `name` a key name? Compared lowercase, without `-` and `_`.
    pub fn matches(&self, name: &str) -> bool {
        let n = normalize(name);
        if n.is_empty() {
            return false;
        }
        self.exact.contains(&n)
            || self.suffixes.iter().any(|s| n.ends_with(s.as_str()))
            || self.stems.iter().any(|(stem, tails)| {
                n.ends_with(stem.as_str())
                    || tails.iter().any(|t| {
                        n.strip_suffix(t.as_str())
                            .is_some_and(|rest| rest.ends_with(stem.as_str()))
                    })
            })
    }
}

/// Normalized (lowercase, no `-` or `_`).
#[derive(Debug, Default)]
pub struct SinkParameters {
    pub contains: Vec<String>,
    pub equals: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Guards {
    pub absence_methods: Vec<String>,
    pub absent_fallbacks: Vec<String>,
    pub presence_methods: Vec<String>,
    pub first_attempt: Vec<String>,
    pub store: Vec<Store>,
    pub compute_once: Vec<ComputeOnce>,
    pub persist: PersistCalls,
    pub outbox: Vec<Outbox>,
    pub sweep: Vec<Sweep>,
    pub cluster_locks: ClusterLocks,
}

#[derive(Debug, Default)]
pub struct PersistCalls {
    pub prefixes: Vec<String>,
}

#[derive(Debug, Default)]
pub struct ClusterLocks {
    pub annotations: Vec<String>,
    pub methods: Vec<String>,
    pub wrappers: Vec<String>,
    pub local_types: Vec<String>,
    /// Calls that claim items from a shared queue: (classes, methods) of one row.
    pub claims: Vec<(Vec<String>, Vec<String>)>,
    /// Atomic claims of a key in a shared store: (classes, methods, the key's argument).
    pub keyed_claims: Vec<(Vec<String>, Vec<String>, usize)>,
    /// Regions a clustered scheduler runs once per cluster: (region row ids, settings).
    pub clustered: Vec<(Vec<String>, Vec<String>)>,
    pub granted_events: Vec<String>,
    /// Lowercase fragments of SQL text.
    pub sql: Vec<String>,
    pub sql_all: Vec<Vec<String>>,
    /// SQL and query-method annotations (with their lock modes) that lock the rows read until
    /// the transaction ends.
    pub row_lock_sql: Vec<String>,
    pub lock_annotations: Vec<(Vec<String>, Vec<String>)>,
}

#[derive(Debug, Default)]
pub struct SideEffects {
    /// Types of request options that may carry a key (globs on the simple name).
    pub key_carriers: Vec<String>,
    pub side_effect: Vec<SideEffect>,
    pub endpoints: Vec<Endpoint>,
    pub client_bases: Vec<ClientBase>,
}

/// Exact names and `prefix*` / `*infix*` / `*suffix` patterns.
#[derive(Debug, Default)]
struct NameSet {
    exact: HashSet<String>,
    patterns: Vec<String>,
}

impl NameSet {
    fn add(&mut self, n: &str) {
        if n.contains('*') {
            self.patterns.push(n.to_string());
        } else {
            self.exact.insert(n.to_string());
        }
    }

    fn contains(&self, n: &str) -> bool {
        self.exact.contains(n) || self.patterns.iter().any(|p| glob(p, n))
    }
}

/// The built-in files, in the order their rows are merged.
const BUILTIN: [(&str, &str); 5] = [
    (
        "rules/regions.toml",
        include_str!("../../rules/regions.toml"),
    ),
    (
        "rules/sources.toml",
        include_str!("../../rules/sources.toml"),
    ),
    ("rules/sinks.toml", include_str!("../../rules/sinks.toml")),
    ("rules/guards.toml", include_str!("../../rules/guards.toml")),
    (
        "rules/side_effects.toml",
        include_str!("../../rules/side_effects.toml"),
    ),
];

/// One catalogue file read with the schema; an error names the file, line and column.
pub fn parse_file(file: &str, text: &str) -> Result<CatalogueFile, CatalogueError> {
    toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        CatalogueError::Parse {
            file: file.to_string(),
            line,
            column,
            message: e.message().trim().replace('\n', " "),
        }
    })
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = (0..=offset.min(text.len()))
        .rev()
        .find(|o| text.is_char_boundary(*o))
        .unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    (line, col)
}

/// Is `id` the table's prefix, a dot and kebab-case words?
fn well_formed(id: &str, prefix: &str) -> bool {
    let Some(rest) = id.strip_prefix(prefix).and_then(|r| r.strip_prefix('.')) else {
        return false;
    };
    !rest.is_empty()
        && rest.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Files merged so far, with where each row id comes from.
#[derive(Default)]
struct Merged {
    all: CatalogueFile,
    rows: Vec<RowInfo>,
    seen: HashMap<String, String>,
}

impl Merged {
    fn add(&mut self, file: &str, mut from: CatalogueFile) -> Result<(), CatalogueError> {
        macro_rules! check {
            ($top:ident, $table:ident, $prefix:literal) => {
                for row in &from.$top.$table {
                    let id = row.id();
                    if !well_formed(id, $prefix) {
                        return Err(CatalogueError::BadId {
                            file: file.to_string(),
                            id: id.to_string(),
                            prefix: $prefix,
                        });
                    }
                    if let Some(first) = self.seen.get(id) {
                        return Err(CatalogueError::DuplicateId {
                            file: file.to_string(),
                            id: id.to_string(),
                            first: first.clone(),
                        });
                    }
                    self.seen.insert(id.to_string(), file.to_string());
                    self.rows.push(RowInfo {
                        id: id.to_string(),
                        table: concat!(stringify!($top), ".", stringify!($table)),
                        label: row.label(),
                        file: file.to_string(),
                    });
                }
                self.all.$top.$table.append(&mut from.$top.$table);
            };
        }
        each_table!(check);
        Ok(())
    }

    /// Leaves out the rows named by `disabled` (id and where it was given); an id no row has is
    /// an error.
    fn disable(&mut self, disabled: &[(String, String)]) -> Result<(), CatalogueError> {
        if disabled.is_empty() {
            return Ok(());
        }
        for (id, origin) in disabled {
            if !self.seen.contains_key(id) {
                return Err(CatalogueError::UnknownRow {
                    id: id.clone(),
                    origin: origin.clone(),
                    nearest: nearest(id, self.seen.keys()),
                });
            }
        }
        let off: HashSet<&str> = disabled.iter().map(|(id, _)| id.as_str()).collect();
        macro_rules! drop_rows {
            ($top:ident, $table:ident, $prefix:literal) => {
                self.all.$top.$table.retain(|r| !off.contains(r.id()));
            };
        }
        each_table!(drop_rows);
        self.rows.retain(|r| !off.contains(r.id.as_str()));
        Ok(())
    }
}

/// The id closest to `id` by edit distance, when it is close enough to be a slip.
fn nearest<'a>(id: &str, ids: impl Iterator<Item = &'a String>) -> Option<String> {
    let limit = (id.chars().count() / 3).max(2);
    ids.map(|c| (edit_distance(id, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c.clone())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

impl Catalogue {
    /// The built-in catalogue. Its files are checked by a unit test, so compiling cannot fail in
    /// a released binary; should it ever, the error names the file.
    pub fn builtin() -> &'static Catalogue {
        static CAT: std::sync::OnceLock<Catalogue> = std::sync::OnceLock::new();
        CAT.get_or_init(|| Catalogue::parse().unwrap_or_else(|e| panic!("built-in catalogue: {e}")))
    }

    /// The built-in files alone.
    pub fn parse() -> Result<Catalogue, CatalogueError> {
        Catalogue::compile(&[], &[])
    }

    /// The built-in files with the rows of users' `files` (name, text) added, without the rows
    /// `disabled` names (id, and where it was given: `--disable-row`, a config file).
    pub fn compile(
        files: &[(String, String)],
        disabled: &[(String, String)],
    ) -> Result<Catalogue, CatalogueError> {
        let mut merged = Merged::default();
        let builtin = BUILTIN.iter().map(|(n, t)| (*n, *t));
        let users = files.iter().map(|(n, t)| (n.as_str(), t.as_str()));
        for (name, text) in builtin.chain(users) {
            merged.add(name, parse_file(name, text)?)?;
        }
        merged.disable(disabled)?;
        Ok(Catalogue::from_rows(merged.all, merged.rows))
    }

    /// The built-in catalogue with the rows of `files` added.
    pub fn with_extra(files: &[(String, String)]) -> Result<Catalogue, CatalogueError> {
        Catalogue::compile(files, &[])
    }

    fn from_rows(all: CatalogueFile, rows: Vec<RowInfo>) -> Catalogue {
        let CatalogueFile {
            regions,
            sources: s,
            sinks: k,
            guards: g,
            side_effects: e,
        } = all;
        let mut source_names = NameSet::default();
        for row in &s.source {
            for m in row.static_methods.iter().chain(&row.instance) {
                source_names.add(m);
            }
        }
        let mut region_call_names = NameSet::default();
        let region_calls = (regions.callback.iter().flat_map(|r| &r.methods))
            .chain(regions.pipeline.iter().flat_map(|r| &r.operators))
            .chain(regions.interceptor.iter().flat_map(|r| {
                // Through an accessor (`getInterceptors().add(…)`), by the accessor's rarer name.
                let register = match &r.accessor {
                    Some(a) => std::slice::from_ref(a),
                    None => &r.register[..],
                };
                register.iter().chain(r.no_resend.iter().map(|n| &n.method))
            }))
            .chain(regions.step.iter().flat_map(|r| &r.methods))
            .chain(regions.ack_loop.iter().flat_map(|r| &r.methods));
        for m in region_calls {
            region_call_names.add(m);
        }
        let mut coarse = CoarseConversions::default();
        for c in s.coarse {
            coarse.kinds.extend(c.kinds);
            coarse.instance.extend(c.instance);
            coarse.static_methods.extend(c.static_methods);
            coarse.instance_args.extend(c.instance_args);
        }
        let methods = |rows: Vec<MethodNames>| rows.into_iter().flat_map(|r| r.methods).collect();
        let mut locks = ClusterLocks::default();
        for l in g.cluster_lock {
            locks.annotations.extend(l.annotations);
            locks.methods.extend(l.methods);
            locks.wrappers.extend(l.wrappers);
            locks.local_types.extend(l.local_types);
            match l.key_arg {
                Some(k) if !l.claims.is_empty() => {
                    locks.keyed_claims.push((l.classes, l.claims, k))
                }
                _ if !l.claims.is_empty() => locks.claims.push((l.classes, l.claims)),
                _ => {}
            }
            locks.granted_events.extend(l.granted_events);
            if !l.settings.is_empty() {
                locks.clustered.push((l.regions, l.settings));
            }
            locks.sql.extend(l.sql);
            locks.sql_all.extend(l.sql_all);
            locks.row_lock_sql.extend(l.row_lock_sql);
            if !l.lock_annotations.is_empty() {
                locks
                    .lock_annotations
                    .push((l.lock_annotations, l.lock_modes));
            }
        }
        let mut parameters = SinkParameters::default();
        for p in k.parameter {
            parameters
                .contains
                .extend(p.contains.iter().map(|c| normalize(c)));
            parameters
                .equals
                .extend(p.equals.iter().map(|c| normalize(c)));
        }
        Catalogue {
            regions,
            sources: Sources {
                source: s.source,
                counter_methods: s.counter.iter().flat_map(|r| r.methods.clone()).collect(),
                counter_updates: (s.counter.into_iter())
                    .filter(|r| !r.updates.is_empty())
                    .map(|r| (r.updates, r.increments))
                    .collect(),
                parameter: s.parameter,
                factory: s.factory,
                generic: s.generic,
                coarse,
                stored: s.stored,
                same_object: s.same_object,
                builder_default: s.builder_default,
                held_function: s.held_function,
            },
            sinks: Sinks {
                methods: k.method,
                headers: SinkHeaders {
                    setters: k
                        .header_setter
                        .iter()
                        .filter(|h| !h.entry)
                        .flat_map(|h| h.methods.iter().cloned())
                        .collect(),
                    entry_setters: k
                        .header_setter
                        .iter()
                        .filter(|h| h.entry)
                        .flat_map(|h| h.methods.iter().cloned())
                        .collect(),
                    setter_rows: k
                        .header_setter
                        .iter()
                        .flat_map(|h| h.methods.iter().map(|m| (m.clone(), h.id.clone())))
                        .collect(),
                    names: {
                        let mut names = KeyNames::default();
                        for row in k.header {
                            names.add(row);
                        }
                        names
                    },
                    containers: k.container,
                    templated: k
                        .header_annotation
                        .iter()
                        .filter(|a| !a.templates.is_empty())
                        .flat_map(|a| {
                            a.annotations
                                .iter()
                                .map(|x| (x.clone(), a.templates.clone()))
                        })
                        .collect(),
                    body_annotations: k
                        .header_annotation
                        .iter()
                        .filter(|a| a.body)
                        .flat_map(|a| a.annotations.iter().map(|x| (x.clone(), a.id.clone())))
                        .collect(),
                    annotations: k
                        .header_annotation
                        .into_iter()
                        .filter(|a| a.templates.is_empty() && !a.body)
                        .flat_map(|a| a.annotations)
                        .collect(),
                },
                constructor: k.constructor,
                parameters,
                http_call_names: k
                    .http_call
                    .iter()
                    .flat_map(|r| r.reads.iter().chain(&r.writes).chain(&r.by_argument))
                    .cloned()
                    .collect(),
                http_calls: k.http_call,
                http_client_methods: k.http_client_method,
            },
            guards: Guards {
                absence_methods: methods(g.absence),
                absent_fallbacks: methods(g.absent_fallback),
                presence_methods: methods(g.presence),
                first_attempt: methods(g.first_attempt),
                store: g.store,
                compute_once: g.compute_once,
                persist: PersistCalls {
                    prefixes: g.persist.into_iter().flat_map(|p| p.prefixes).collect(),
                },
                outbox: g.outbox,
                sweep: g.sweep,
                cluster_locks: locks,
            },
            side_effects: SideEffects {
                key_carriers: e.key_carrier.into_iter().flat_map(|c| c.types).collect(),
                side_effect: e.call,
                endpoints: e.endpoint,
                client_bases: e.client_base,
            },
            rows,
            source_names,
            region_call_names,
        }
    }

    /// Every row of the catalogue (the disabled ones left out), in file order.
    pub fn rows(&self) -> &[RowInfo] {
        &self.rows
    }

    /// Can a call of a method with this name make a region: a callback, a pipeline operator,
    /// an interceptor registration, a flow step?
    pub fn may_make_region(&self, method: &str) -> bool {
        self.region_call_names.contains(method)
    }

    /// Can a call of a method with this name be a source (constructors aside)?
    pub fn may_be_source(&self, method: &str) -> bool {
        self.source_names.contains(method)
    }

    /// The key's argument when a method of this name is a key sink on any receiver.
    pub fn key_sink_arg(&self, method: &str) -> Option<usize> {
        self.sinks
            .methods
            .iter()
            .find(|m| m.names.iter().any(|n| n == method))
            .map(|m| m.arg)
    }

    /// Is `param` (a parameter or record component name) a deduplication key by its name?
    pub fn is_key_param(&self, param: &str) -> bool {
        let n = normalize(param);
        self.sinks
            .parameters
            .contains
            .iter()
            .any(|c| n.contains(c.as_str()))
            || self.sinks.parameters.equals.contains(&n)
    }

    /// Is `row` (a key sink's) the row of an alert deduplication key? An alert is not a side
    /// effect: the key matters to RL005 only where it is new on every run.
    pub fn is_alert_key(&self, row: &str) -> bool {
        self.sinks
            .headers
            .names
            .alert
            .iter()
            .any(|(id, _)| id == row)
    }

    /// Is `name` (of a header, a body field, a map entry) an idempotency key's name?
    pub fn is_idempotency_header(&self, name: &str) -> bool {
        self.sinks.headers.names.matches(name)
    }
}

/// Lowercase, without `-` and `_`: how header and parameter names are compared.
pub fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(|c| c.to_lowercase())
        .collect()
}
