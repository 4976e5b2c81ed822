//! The framework catalogue: regions, sources, sinks and guards, read from `rules/*.toml`
//! (embedded in the binary). The analysis engine consults only this data.

mod model;

pub use crate::dataflow::SourceKind;
pub use crate::semantic::glob;
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regions {
    #[serde(default)]
    pub annotation: Vec<AnnotationRegion>,
    #[serde(default)]
    pub callback: Vec<CallbackRegion>,
    #[serde(default)]
    pub pipeline: Vec<PipelineRegion>,
    #[serde(default)]
    pub implementation: Vec<ImplementationRegion>,
}

/// Methods of classes (and lambdas) implementing a framework type, which the framework calls
/// again for every attempt or period.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImplementationRegion {
    pub id: String,
    /// Interfaces or classes whose implementations count.
    #[serde(default)]
    pub supertypes: Vec<String>,
    /// Or: project interfaces carrying one of these annotations.
    #[serde(default)]
    pub supertype_annotations: Vec<String>,
    /// The implemented methods that run again; `*` means every method the supertype declares.
    pub methods: Vec<String>,
    pub label: String,
    #[serde(default)]
    pub scheduler: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnotationRegion {
    pub id: String,
    pub annotations: Vec<String>,
    pub label: String,
    #[serde(default)]
    pub class_level: bool,
    /// Methods of an annotated class that carry one of these are not regions.
    #[serde(default)]
    pub class_level_except: Vec<String>,
    #[serde(default)]
    pub scheduler: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallbackRegion {
    pub id: String,
    pub receiver_types: Vec<String>,
    pub methods: Vec<String>,
    /// Index of the callback argument; negative counts from the end (-1: the last).
    pub callback_arg: i32,
    /// The call counts only with at least this many arguments.
    #[serde(default)]
    pub min_args: usize,
    /// The call counts only when this argument has one of these types.
    #[serde(default)]
    pub when_arg: Option<ArgType>,
    #[serde(default)]
    pub callback_methods: Vec<String>,
    #[serde(default)]
    pub receiver_name_contains: Option<String>,
    pub label: String,
    #[serde(default)]
    pub scheduler: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgType {
    pub index: usize,
    pub types: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineRegion {
    pub id: String,
    pub types: Vec<String>,
    pub operators: Vec<String>,
    pub label: String,
    #[serde(default)]
    pub factories: Vec<ClassMethods>,
    #[serde(default)]
    pub chain_methods: Vec<String>,
    #[serde(default)]
    pub eager: Vec<OperatorArgs>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassMethods {
    pub class: String,
    pub methods: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorArgs {
    #[serde(default)]
    pub class: Option<String>,
    pub method: String,
    pub args: Vec<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sources {
    /// Methods that increment a counter object and return the new count.
    #[serde(default)]
    pub counter_methods: Vec<String>,
    pub source: Vec<SourceRow>,
    #[serde(default)]
    pub factory: Vec<Factory>,
    #[serde(default)]
    pub parameter: Vec<ParameterSource>,
    pub coarse: Coarse,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceRow {
    /// The row's id, reported with the findings it makes.
    #[serde(default)]
    pub id: String,
    pub kind: SourceKind,
    pub classes: Vec<String>,
    #[serde(default, rename = "static")]
    pub static_methods: Vec<String>,
    #[serde(default)]
    pub instance: Vec<String>,
    #[serde(default)]
    pub constructor: bool,
    #[serde(default)]
    pub any_receiver: bool,
    /// When set, the call is a source only if one argument is written as one of these
    /// (a string literal's contents or a dotted constant name).
    #[serde(default)]
    pub args_any: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterSource {
    /// The row's id, reported with the findings it makes.
    #[serde(default)]
    pub id: String,
    pub kind: SourceKind,
    pub annotations: Vec<String>,
    /// The annotation's value, as a string or a dotted constant name.
    pub values: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Factory {
    pub class: String,
    pub method: String,
    pub returns: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coarse {
    pub kinds: Vec<SourceKind>,
    pub instance: Vec<String>,
    #[serde(rename = "static")]
    pub static_methods: Vec<ClassMethods>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sinks {
    pub methods: SinkMethods,
    pub headers: SinkHeaders,
    #[serde(default)]
    pub constructor: Vec<SinkConstructor>,
    pub parameters: SinkParameters,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkMethods {
    pub names: Vec<String>,
    pub arg: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkHeaders {
    pub setters: Vec<String>,
    pub names: Vec<String>,
    pub annotations: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkConstructor {
    /// The row's id, reported with the findings it makes.
    #[serde(default)]
    pub id: String,
    pub classes: Vec<String>,
    pub arg: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkParameters {
    pub contains: Vec<String>,
    pub equals: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guards {
    pub absence_methods: Vec<String>,
    #[serde(default)]
    pub absent_fallbacks: Vec<String>,
    pub presence_methods: Vec<String>,
    pub first_attempt: Vec<String>,
    pub store: Vec<Store>,
    pub compute_once: Vec<ComputeOnce>,
    pub persist: Persist,
    pub cluster_locks: ClusterLocks,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterLocks {
    pub annotations: Vec<String>,
    pub methods: Vec<String>,
    pub wrappers: Vec<String>,
    #[serde(default)]
    pub local_types: Vec<String>,
    /// Lowercase fragments of SQL text.
    pub sql: Vec<String>,
    #[serde(default)]
    pub sql_all: Vec<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideEffects {
    /// Types of request options that may carry a key (globs on the simple name).
    #[serde(default)]
    pub key_carriers: Vec<String>,
    #[serde(default)]
    pub side_effect: Vec<SideEffect>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideEffect {
    pub id: String,
    pub classes: Vec<String>,
    #[serde(default, rename = "static")]
    pub static_methods: Vec<String>,
    #[serde(default)]
    pub instance: Vec<String>,
    /// Accessors of a client (`classes`) that return a service whose `instance` methods count.
    #[serde(default)]
    pub services: Vec<String>,
    pub label: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Store {
    pub writes: Vec<String>,
    pub reads: Vec<String>,
    pub key_arg: usize,
    pub value_arg: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeOnce {
    pub methods: Vec<String>,
    pub arg: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persist {
    pub prefixes: Vec<String>,
}

#[derive(Debug)]
pub struct Catalogue {
    pub regions: Regions,
    pub sources: Sources,
    pub sinks: Sinks,
    pub guards: Guards,
    pub side_effects: SideEffects,
    /// Method names that can make a call a source, for a cheap first test.
    source_names: NameSet,
}

/// Exact names and `prefix*` / `*infix*` / `*suffix` patterns.
#[derive(Debug, Default)]
struct NameSet {
    exact: std::collections::HashSet<String>,
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

/// Extra catalogue rows from a user's file (`--catalogue FILE`), in the shape of `rules/`:
/// `[[regions.annotation]]`, `[[sources.source]]`, `[sinks] methods = […]`, ….
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extra {
    #[serde(default)]
    pub regions: Option<Regions>,
    #[serde(default)]
    pub sources: Option<ExtraSources>,
    #[serde(default)]
    pub sinks: Option<ExtraSinks>,
    /// Known non-idempotent calls, as in `rules/side_effects.toml`.
    #[serde(default)]
    pub side_effect: Vec<SideEffect>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraSources {
    #[serde(default)]
    pub source: Vec<SourceRow>,
    #[serde(default)]
    pub factory: Vec<Factory>,
    #[serde(default)]
    pub parameter: Vec<ParameterSource>,
    #[serde(default)]
    pub counter_methods: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraSinks {
    /// Key-sink method names, on any receiver (argument 0 is the key).
    #[serde(default)]
    pub methods: Vec<String>,
    /// Idempotency header names.
    #[serde(default)]
    pub headers: Vec<String>,
    #[serde(default)]
    pub header_setters: Vec<String>,
    #[serde(default)]
    pub header_annotations: Vec<String>,
    #[serde(default)]
    pub constructor: Vec<SinkConstructor>,
    /// Parameter names (normalized substrings) that make a parameter a key.
    #[serde(default)]
    pub parameter_contains: Vec<String>,
}

const REGIONS: &str = include_str!("../../rules/regions.toml");
const SOURCES: &str = include_str!("../../rules/sources.toml");
const SINKS: &str = include_str!("../../rules/sinks.toml");
const GUARDS: &str = include_str!("../../rules/guards.toml");
const SIDE_EFFECTS: &str = include_str!("../../rules/side_effects.toml");

impl Catalogue {
    /// The built-in catalogue. Its files are checked by a unit test, so parsing cannot fail in a
    /// released binary; should it ever, the error names the file.
    pub fn builtin() -> &'static Catalogue {
        static CAT: OnceLock<Catalogue> = OnceLock::new();
        CAT.get_or_init(|| Catalogue::parse().unwrap_or_else(|e| panic!("built-in catalogue: {e}")))
    }

    pub fn parse() -> Result<Catalogue, String> {
        let sources: Sources =
            toml::from_str(SOURCES).map_err(|e| format!("rules/sources.toml: {e}"))?;
        let mut source_names = NameSet::default();
        for row in &sources.source {
            for m in row.static_methods.iter().chain(&row.instance) {
                source_names.add(m);
            }
        }
        Ok(Catalogue {
            regions: toml::from_str(REGIONS).map_err(|e| format!("rules/regions.toml: {e}"))?,
            sources,
            sinks: toml::from_str(SINKS).map_err(|e| format!("rules/sinks.toml: {e}"))?,
            guards: toml::from_str(GUARDS).map_err(|e| format!("rules/guards.toml: {e}"))?,
            side_effects: toml::from_str(SIDE_EFFECTS)
                .map_err(|e| format!("rules/side_effects.toml: {e}"))?,
            source_names,
        })
    }

    /// The built-in catalogue with the rows of `extra` files added; an error names the file,
    /// line and column.
    pub fn with_extra(files: &[(String, String)]) -> Result<Catalogue, String> {
        let mut cat = Catalogue::parse()?;
        for (path, text) in files {
            let extra: Extra = toml::from_str(text).map_err(|e| format!("{path}: {e}"))?;
            if let Some(r) = extra.regions {
                cat.regions.annotation.extend(r.annotation);
                cat.regions.callback.extend(r.callback);
                cat.regions.pipeline.extend(r.pipeline);
                cat.regions.implementation.extend(r.implementation);
            }
            if let Some(s) = extra.sources {
                for row in &s.source {
                    for m in row.static_methods.iter().chain(&row.instance) {
                        cat.source_names.add(m);
                    }
                }
                cat.sources.source.extend(s.source);
                cat.sources.factory.extend(s.factory);
                cat.sources.parameter.extend(s.parameter);
                cat.sources.counter_methods.extend(s.counter_methods);
            }
            cat.side_effects.side_effect.extend(extra.side_effect);
            if let Some(k) = extra.sinks {
                cat.sinks.methods.names.extend(k.methods);
                cat.sinks.headers.names.extend(k.headers);
                cat.sinks.headers.setters.extend(k.header_setters);
                cat.sinks.headers.annotations.extend(k.header_annotations);
                cat.sinks.constructor.extend(k.constructor);
                cat.sinks
                    .parameters
                    .contains
                    .extend(k.parameter_contains.iter().map(|c| normalize(c)));
            }
        }
        Ok(cat)
    }

    /// Can a call of a method with this name be a source (constructors aside)?
    pub fn may_be_source(&self, method: &str) -> bool {
        self.source_names.contains(method)
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

    pub fn is_idempotency_header(&self, name: &str) -> bool {
        let n = normalize(name);
        self.sinks.headers.names.iter().any(|h| normalize(h) == n)
    }
}

/// Lowercase, without `-` and `_`: how header and parameter names are compared.
pub fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(|c| c.to_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalogue_parses() {
        let c = Catalogue::parse().expect("catalogue parses");
        assert!(!c.regions.annotation.is_empty());
        assert!(c.is_key_param("idempotencyKey"));
        assert!(c.is_key_param("dedup_id"));
        assert!(c.is_key_param("clientToken"));
        assert!(!c.is_key_param("operationId"));
        assert!(c.is_idempotency_header("idempotency-key"));
        assert!(c.is_idempotency_header("PAYPAL_REQUEST_ID"));
        assert!(!c.is_idempotency_header("X-Request-Id"));
    }

    #[test]
    fn globs() {
        assert!(glob("next*", "nextInt"));
        assert!(glob("*Snowflake*", "MySnowflakeGen"));
        assert!(glob("*IdWorker", "SnowIdWorker"));
        assert!(!glob("next*", "ints"));
        assert!(glob("ints", "ints"));
    }
}
