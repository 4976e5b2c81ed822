//! The questions the engine asks about frameworks and libraries, in the spirit of CodeQL's
//! `ConfigSig`: which calls are sources, key sinks, barriers (guards), flow steps, side effects
//! and cluster-wide locks. The engine knows no framework: it describes a call in its own neutral
//! terms ([`Site`]) and a [`Model`] answers. The compiled catalogue is one model; a unit test
//! drives the engine with a tiny model of its own.

use serde::{Deserialize, Serialize};

pub use crate::semantic::Factories;

/// What makes a value differ between attempts.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    Random,
    Clock,
    Attempt,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Random => "random",
            SourceKind::Clock => "clock",
            SourceKind::Attempt => "attempt",
        }
    }
}

/// How a call (or what stands for one) is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `name(…)`, unqualified.
    Bare,
    /// `Type.name(…)`.
    Static,
    /// `value.name(…)`.
    Instance,
    /// `new Type(…)`; the name is the type as written.
    New,
    /// `Type::name` (`Type::new` for a constructor).
    StaticRef,
    /// `value::name`.
    InstanceRef,
}

/// A call as the engine sees it. The model asks only what it needs; each answer is computed
/// when asked.
pub trait Site {
    fn name(&self) -> &str;
    fn form(&self) -> Form;
    fn arg_count(&self) -> usize;
    /// Is the receiver's type (the class of a static call or reference, the class created, the
    /// static type of a value) resolved: neither unresolvable nor what a library call returns?
    fn receiver_known(&self) -> bool;
    /// Is the receiver's type `class` or a subtype of it (an unresolvable type by its simple
    /// name)? False when there is no receiver or its type cannot be told.
    fn receiver_is(&self, class: &str) -> bool;
    /// Like [`Site::receiver_is`], and also when a project type declares `class` (a library
    /// type) among its supertypes (`interface Payments extends JpaRepository<…>`).
    fn receiver_inherits(&self, class: &str) -> bool;
    /// Is the receiver's type declared in the scanned code?
    fn receiver_in_project(&self) -> bool;
    /// Argument `i` as written: a string literal's contents or a dotted name.
    fn arg_text(&self, i: usize) -> Option<String>;
    /// Argument `i`'s compile-time constant value.
    fn arg_constant(&self, i: usize) -> Option<String>;
    /// For a bare call not shadowed by a project method: the classes its name is statically
    /// imported from.
    fn static_import_owners(&self) -> Vec<String>;
    /// For an instance call whose receiver is itself a call (`client.charges().create(…)`): the
    /// name of that call.
    fn receiver_call(&self) -> Option<&str>;
    /// For an instance call whose receiver is itself a call (`client.v1().charges()` in
    /// `client.v1().charges().create(…)`): is that call's own receiver (`client.v1()`) of type
    /// `class`?
    fn receiver_call_on(&self, class: &str) -> bool;
    /// Is the root of the receiver's call chain (`client` in `client.v1().charges()`) of type
    /// `class`?
    fn chain_root_is(&self, class: &str) -> bool;
    /// Is the class the call is written in `class` or a subtype of it, library supertypes
    /// included (a bare call of an inherited method)?
    fn enclosing_is(&self, class: &str) -> bool;
    /// Is argument `i`'s static type `class` or a subtype of it?
    fn arg_is(&self, i: usize, class: &str) -> bool;
    /// Is argument `i` an object this method builds with one `builder()…build()` chain (written
    /// there, or held by a local declared with it and never assigned again) that never sets
    /// `property`?
    fn arg_lacks(&self, _i: usize, _property: &str) -> bool {
        false
    }
}

/// A source the model recognized, and the id of the row that says so (empty when the row has
/// none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceMatch<'m> {
    pub kind: SourceKind,
    pub row: &'m str,
}

/// An argument that is an idempotency key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySink<'m> {
    pub arg: usize,
    pub row: &'m str,
    /// The key name the call gives it (`new BasicHeader("Idempotency-Key", k)`), if any.
    pub name: Option<String>,
}

/// What a named key is written into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyField {
    /// A request or message header.
    Header,
    /// A field of a request body or message payload (a map entry, a JSON field).
    BodyField,
}

/// A call that writes a value under a key name (`headers.set("Idempotency-Key", k)`,
/// `body.put("idempotency_key", k)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedKey {
    pub name: String,
    pub field: KeyField,
    /// The argument that holds the key.
    pub value_arg: usize,
    /// The id of the row that makes the call a key sink: the key name's row for an alert's
    /// deduplication key (the rules ask the model what it is), the setter's row otherwise.
    pub row: String,
}

impl NamedKey {
    /// How a finding names the sink: "the `Idempotency-Key` header", "body field `key`".
    pub fn label(&self) -> String {
        match self.field {
            KeyField::Header => format!("the `{}` header", self.name),
            KeyField::BodyField => format!("body field `{}`", self.name),
        }
    }
}

/// The kind of request a call sends, by its HTTP method: a key on a read (GET, HEAD, OPTIONS)
/// deduplicates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verb {
    Read,
    Write,
}

/// An annotation of a method: its type test, and an attribute's text as written (a string
/// literal's contents or a dotted name; `value` for the only argument).
pub struct MethodAnnotation<'a> {
    pub is: &'a dyn Fn(&str) -> bool,
    pub attr: &'a dyn Fn(&str) -> Option<String>,
}

/// A known non-idempotent call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideEffectMatch<'m> {
    pub label: &'m str,
    pub row: &'m str,
}

/// A condition call that tests a key (barriers of a generate-once guard).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// `key.isEmpty()`, `StringUtils.isBlank(key)`: true when the key is absent.
    Absent,
    /// `key.isPresent()`, `map.containsKey(k)`: true when it is present.
    Present,
    /// `ctx.getRetryCount()`: tells the first attempt from the others.
    FirstAttempt,
}

/// A call on durable storage that outlives an attempt (`ctx.setAttribute("key", v)`); with a
/// `property`, the entries live in that property of the receiver (`template.headers()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreAccess {
    /// `key_arg`: the argument naming the entry; `None`, a holder with one slot.
    Write {
        key_arg: Option<usize>,
        value_arg: usize,
        property: Option<String>,
    },
    Read {
        key_arg: Option<usize>,
        property: Option<String>,
    },
}

/// An annotation of a parameter: its type test and its value (`value`, `name` or the only one)
/// as written: a string literal's contents or a dotted name.
pub struct AnnotationUse<'a> {
    pub is: &'a dyn Fn(&str) -> bool,
    pub value: Option<String>,
}

/// A generate-once call of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputeOnce {
    pub arg: usize,
    pub retry_state: bool,
    pub tests_param: bool,
    /// The merge function's argument, which must return its first parameter.
    pub keeps_first: Option<usize>,
}

/// What the engine asks. One method per question; the arguments are the engine's own terms.
pub trait Model: Factories + Sync {
    // Sources.
    /// Can a call of a method named so be a source (constructors aside)? A cheap first test.
    fn may_be_source(&self, method: &str) -> bool;
    /// Is the call (or constructor, or method reference) a per-attempt source?
    fn source(&self, call: &dyn Site) -> Option<SourceMatch<'_>>;
    /// A parameter the framework fills with a per-attempt value, by its annotations.
    fn parameter_source(&self, annotations: &[AnnotationUse<'_>]) -> Option<SourceMatch<'_>>;
    /// A method that increments a counter object and returns the new count.
    fn is_counter_increment(&self, method: &str) -> bool;
    /// `updateAndGet(f)`, `accumulateAndGet(x, f)`: a call on a counter object that increments
    /// it when its last argument, a function, does; with the method references that do
    /// (`Integer::sum`).
    fn counter_update(&self, _method: &str) -> Option<&[String]> {
        None
    }
    /// Recursive retries: the row that makes a method calling itself from its failure path a
    /// retry (its stepped parameters are attempt counters), and whether an operator's function
    /// arguments run only on failure.
    fn recursion_row(&self) -> Option<&str>;
    fn is_failure_handler(&self, method: &str) -> bool;

    // Flow steps (library factories are in [`Factories`]).
    /// A library call whose result keeps its operands' values except the per-attempt kinds
    /// returned (a coarse clock that only keeps the date, say).
    fn coarse_step(&self, call: &dyn Site) -> Option<&[SourceKind]>;
    /// A read from storage (a repository finder, `EntityManager`, `JdbcTemplate.query…`): it
    /// returns stored values, stable even when a per-attempt value bounds the query.
    fn stored_read(&self, call: &dyn Site) -> bool;
    /// A call that returns its argument at this index itself, fields and all
    /// (`repository.save(entity)`).
    fn returned_argument(&self, call: &dyn Site) -> Option<usize>;

    // Key sinks.
    /// The arguments of the call (or constructor) that are idempotency keys.
    fn key_sinks(&self, call: &dyn Site) -> Vec<KeySink<'_>>;
    /// A call that writes a key under a key name: a header, a body field. A logging context
    /// or a tracing attribute is not one.
    fn named_key(&self, call: &dyn Site) -> Option<NamedKey>;
    /// Is a parameter (or record component) a key by its name?
    fn is_key_param(&self, name: &str) -> bool;
    /// Is a parameter a key by its header annotation (`@RequestHeader("Idempotency-Key")`)? The
    /// annotation's value is given as its constant value.
    fn is_key_header_param(&self, annotation: &AnnotationUse<'_>) -> bool;
    /// The row, when the annotation names a field of a serialised body with a key name
    /// (`@JsonProperty("idempotency_key")`). The value is given as its constant value.
    fn key_body_field(&self, annotation: &AnnotationUse<'_>) -> Option<String>;
    /// The annotations holding header templates (`@Headers("Idempotency-Key: {key}")`) that a
    /// parameter annotation of this kind fills by its value; empty for any other annotation.
    fn header_templates(&self, annotation_is: &dyn Fn(&str) -> bool) -> Vec<String>;
    /// Is this header name a key name?
    fn is_key_header_name(&self, name: &str) -> bool;
    /// Does a value of this type (request options received from a caller) carry a key?
    fn is_key_carrier(&self, type_is: &dyn Fn(&str) -> bool) -> bool;

    // Requests.
    /// The HTTP method of the request a call sends or starts (`restTemplate.exchange(url,
    /// HttpMethod.GET, entity, …)`, `restClient.get()`), when the call decides one.
    fn http_call(&self, call: &dyn Site) -> Option<Verb> {
        let _ = call;
        None
    }
    /// The HTTP method of the request an abstract client method sends, by its annotations.
    fn client_method_verb(&self, annotations: &[MethodAnnotation<'_>]) -> Option<Verb> {
        let _ = annotations;
        None
    }

    // Barriers and guards.
    fn check(&self, method: &str) -> Option<Check>;
    /// `Optional.ofNullable(x).orElseGet(…)`: the supplier runs only when `x` is absent.
    fn is_absent_fallback(&self, method: &str) -> bool;
    /// `receiver_may_be(class)`: whether the call's receiver may be of that class.
    fn store(&self, method: &str, receiver_may_be: &dyn Fn(&str) -> bool) -> Option<StoreAccess>;
    /// A generate-once holder (`computeIfAbsent`, `updateAndGet`): the argument that runs only
    /// when the key is absent, and how the receiver and the argument must look.
    fn compute_once(&self, method: &str) -> Option<ComputeOnce>;
    /// A call that persists an entity (`save…`).
    fn is_persist(&self, method: &str) -> bool;
    /// Does a class annotated so hold rows of the database (`@Entity`)? `is(name)`: whether the
    /// annotation is that class.
    fn is_entity_annotation(&self, is: &dyn Fn(&str) -> bool) -> bool;
    /// The transaction a method annotated so runs in (`@Transactional(propagation = …)`, the
    /// propagation by its constant's simple name); `None` when the annotation is not one.
    fn transaction(&self, is: &dyn Fn(&str) -> bool, propagation: Option<&str>) -> Option<Tx>;
    /// The properties a derived query method selects by (`findByStatusAndDueAtBefore`: `status`,
    /// `dueAt`), each lowercased without underscores; empty when the name derives no query.
    fn selected_by(&self, finder: &str) -> Vec<String> {
        let _ = finder;
        Vec::new()
    }
    /// Does an annotation of a field so (`@Builder.Default`) give it its initializer when a
    /// generated builder leaves it unset?
    fn is_builder_default(&self, is: &dyn Fn(&str) -> bool) -> bool {
        let _ = is;
        false
    }
    /// Is an annotation so the query text of a repository method (`@Query`)?
    fn is_query_annotation(&self, is: &dyn Fn(&str) -> bool) -> bool {
        let _ = is;
        false
    }
    /// The property a call of a method named so sets (`setStatus`: `status`), lowercased
    /// without underscores.
    fn set_property(&self, method: &str) -> Option<String> {
        let _ = method;
        None
    }

    // Side effects.
    fn side_effect(&self, call: &dyn Site) -> Option<SideEffectMatch<'_>>;
    /// The money-moving endpoint a request to this URL reaches, if it is one
    /// (`https://api.stripe.com/v1/charges`; a `{placeholder}` segment matches any).
    fn money_endpoint(&self, url: &str) -> Option<SideEffectMatch<'_>>;
    /// The attributes that hold a declarative client's base URL, when the annotation on its
    /// interface is one of the clients that have one (`@FeignClient(url = …)`).
    fn client_base_attributes(&self, annotation_is: &dyn Fn(&str) -> bool) -> Option<&[String]>;

    // Cluster-wide locks.
    /// Code passed to this call runs under a cluster-wide lock.
    fn is_lock_wrapper(&self, method: &str) -> bool;
    /// Does a call of a method named so say whether a lock is held: `Some(true)` a cluster-wide
    /// one, `Some(false)` one of this replica only; `None`: not a lock method.
    fn lock_method(&self, call: &dyn Site) -> Option<bool>;
    /// Does the call take items off a shared queue or subscription, each item going to one
    /// consumer (`sqs.receiveMessage(…)`, `queueDAO.pop(…)`, `consumer.poll(…)`)?
    fn is_claim(&self, call: &dyn Site) -> bool;
    /// Does the call atomically claim a key of a shared store (`SET … NX`:
    /// `redis.opsForValue().setIfAbsent(key, v)`), answering whether this instance claimed it
    /// first? The argument that is the key.
    fn claim_key(&self, call: &dyn Site) -> Option<usize>;
    /// Events published to the instance that won a leader election.
    fn granted_events(&self) -> &[String];
    /// Does SQL text take a cluster-wide lock or claim rows?
    fn is_lock_sql(&self, sql: &str) -> bool;
    /// Does SQL text lock the rows it reads until the transaction ends (`for update`)?
    fn is_row_lock_sql(&self, sql: &str) -> bool;
    /// Does an annotation of a query method (its type answered by `is`) with this constant
    /// value (`PESSIMISTIC_WRITE`) lock the rows the query reads until the transaction ends?
    fn is_row_lock_annotation(&self, is: &dyn Fn(&str) -> bool, mode: &str) -> bool;
}

/// How a transaction annotation runs its method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tx {
    /// The method body runs inside a transaction (its caller's or a new one).
    pub inside: bool,
    /// What the method writes commits apart from its caller's transaction (`REQUIRES_NEW`, or
    /// no transaction at all: each write commits by itself).
    pub apart: bool,
}
