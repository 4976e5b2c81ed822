//! The per-attempt value tables of the catalogue (`rules/sources.toml`).

use super::*;

pub use crate::dataflow::SourceKind;

/// Per-attempt values: `[[sources.source]]`, `[[sources.counter]]`, `[[sources.parameter]]`,
/// `[[sources.factory]]`, `[[sources.generic]]`, `[[sources.coarse]]`, `[[sources.stored]]`,
/// `[[sources.same_object]]`, `[[sources.builder_default]]`, `[[sources.held_function]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SourceTables {
    pub source: Vec<SourceRow>,
    /// Methods that increment a counter object and return the new count.
    pub counter: Vec<CounterRow>,
    pub parameter: Vec<ParameterSource>,
    pub factory: Vec<Factory>,
    pub generic: Vec<GenericMethod>,
    pub coarse: Vec<Coarse>,
    pub stored: Vec<StoredRead>,
    pub same_object: Vec<SameObject>,
    pub builder_default: Vec<BuilderDefault>,
    pub held_function: Vec<HeldFunction>,
}

/// Calls that increment a counter object (`AtomicInteger`, `LongAdder` …): `methods` always
/// do (`incrementAndGet()`); `updates` apply the function that is their last argument, and
/// increment only when it does — a lambda that adds to or subtracts from one of its
/// parameters (`v -> v + 1`, `(a, b) -> a + b`) or one of the method references `increments`
/// (`Integer::sum`, `Math::addExact`); `updateAndGet(v -> v == null ? fresh : v)` does not.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterRow {
    pub id: String,
    #[serde(default)]
    pub methods: Vec<String>,
    #[serde(default)]
    pub updates: Vec<String>,
    #[serde(default)]
    pub increments: Vec<String>,
}

/// Builders a code generator writes for a class annotated with one of `builders` (Lombok's
/// `@Builder`): `T.builder()` starts one, each one-argument call sets the property it names,
/// `build()` makes a `T`. A field annotated with one of `defaults` (`@Builder.Default`) that
/// the chain leaves unset gets its declared initializer, evaluated by that `build()`; other
/// fields' initializers are not used by the builder.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuilderDefault {
    pub id: String,
    pub builders: Vec<String>,
    pub defaults: Vec<String>,
}

/// Functions held in fields: a call of a field of a functional type runs what its initializer
/// or a constructor put there, or, for a field without an initializer, what a method annotated
/// with one of `annotations` (`@Bean`) returning the field's type returns.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeldFunction {
    pub id: String,
    pub annotations: Vec<String>,
}

/// Calls that return one of their arguments itself, with the fields it holds
/// (`repository.save(entity)` returns the entity it saved): instance methods (`*` globs) on a
/// receiver of one of `classes` (or a project type extending one); `arg` is the argument
/// returned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SameObject {
    pub id: String,
    pub classes: Vec<String>,
    pub methods: Vec<String>,
    #[serde(default)]
    pub arg: usize,
}

/// Reads from storage: what they return was stored before the attempt, even when a per-attempt
/// value bounds the query (`findByStatusAndDueBefore(PENDING, Instant.now())`). Instance
/// methods (`*` globs) on a receiver of one of `classes` (or a project type extending one);
/// `any_receiver`: also when the receiver's type is unknown.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredRead {
    pub id: String,
    pub classes: Vec<String>,
    pub methods: Vec<String>,
    #[serde(default)]
    pub any_receiver: bool,
    /// Only on a receiver whose type is not declared in the scanned code (a repository
    /// interface of a module outside the scan, known by its name alone).
    #[serde(default)]
    pub outside_scan: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceRow {
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
    pub id: String,
    pub kind: SourceKind,
    pub annotations: Vec<String>,
    /// The annotation's value, as a string or a dotted constant name.
    pub values: Vec<String>,
}

/// Library calls whose result type is known, so that a call on the result can be matched
/// (an SDK's accessors: `client.payments()` is a `PaymentService`, whose `create()` is a
/// `PaymentCreateRequest`). On `class` (or each of `classes`): `method` (a glob) returns
/// `returns`; each `accessors` entry, a method or a public field (`razorpay.payments`), returns
/// its type; a `fluent` method (a glob, `with*`) returns the receiver's own type.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Factory {
    pub id: String,
    #[serde(default)]
    pub class: Option<String>,
    #[serde(default)]
    pub classes: Vec<String>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub returns: Option<String>,
    #[serde(default)]
    pub accessors: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub fluent: Vec<String>,
}

impl Factory {
    /// The classes the row is about.
    pub fn owners(&self) -> impl Iterator<Item = &String> {
        self.class.iter().chain(&self.classes)
    }

    /// What a call of `method` on the class `owner` (one of [`Factory::owners`]) returns.
    pub fn returns_for(&self, owner: &str, method: &str) -> Option<String> {
        let glob = crate::semantic::glob;
        if let (Some(m), Some(r)) = (&self.method, &self.returns)
            && glob(m, method)
        {
            return Some(r.clone());
        }
        if let Some(r) = self.accessors.get(method) {
            return Some(r.clone());
        }
        self.fluent
            .iter()
            .any(|f| glob(f, method))
            .then(|| owner.to_string())
    }
}

/// Library generic methods, typed as javac types them from the receiver's type arguments:
/// instance methods (`*` globs) on a receiver of one of `classes`. `params`: the type argument
/// each parameter of a lambda argument gets (`Optional<T>.map(t -> …)`: `[0]`;
/// `Map<K, V>.forEach((k, v) -> …)`: `[0, 1]`). `returns_arg`: the call returns that type
/// argument (`Optional<T>.get()`: `0`). `returns` with `keeps`: the call returns that generic
/// type with those of the receiver's type arguments (`Collection<T>.stream()`:
/// `java.util.stream.Stream`, `[0]`). `returns` with `maps`: the call returns that generic type
/// of what the function passed as argument `maps` returns (`Stream<T>.map(f)`: a `Stream<R>`
/// for an `f` returning `R`), known where `f` is a method reference to a project method.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenericMethod {
    pub id: String,
    pub classes: Vec<String>,
    pub methods: Vec<String>,
    #[serde(default)]
    pub params: Vec<usize>,
    #[serde(default)]
    pub returns_arg: Option<usize>,
    #[serde(default)]
    pub returns: Option<String>,
    #[serde(default)]
    pub keeps: Vec<usize>,
    #[serde(default)]
    pub maps: Option<usize>,
}

/// Conversions that make a value of one of `kinds` coarse (stable within a period). The
/// compiled catalogue strips the kinds of every coarse row at every coarse conversion.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coarse {
    pub id: String,
    pub kinds: Vec<SourceKind>,
    #[serde(default)]
    pub instance: Vec<String>,
    #[serde(default, rename = "static")]
    pub static_methods: Vec<ClassMethods>,
    /// Instance methods that are coarse only with one of these arguments
    /// (`truncatedTo(ChronoUnit.DAYS)`).
    #[serde(default)]
    pub instance_args: Vec<MethodArgs>,
}

/// An instance method, coarse when an argument is written as one of `args_any` (a dotted
/// constant name, also matched by its last parts).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodArgs {
    pub method: String,
    pub args_any: Vec<String>,
}
