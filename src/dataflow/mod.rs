//! Data flow inside one method, and the method summaries that carry it across methods.
//!
//! A method is interpreted once over its statements with an environment from places (locals,
//! `this` fields, entity properties, stored attributes) to the origins of their values. A
//! per-attempt source creates a `Fresh` origin at the place it is evaluated; parameters and
//! `this` fields start as symbolic origins so that a summary can say "parameter 2 reaches a key
//! sink" or "the return value is per-attempt". Summaries are iterated to a fixpoint over the
//! whole project; the final pass records every source-to-sink event with the lambda scopes
//! of both ends, which the region check then reads. Regions themselves are found elsewhere
//! (`crate::regions`): the interpreter does not know them.

mod calls;
mod conds;
mod cx;
mod expr;
mod guards;
mod held;
mod interp;
mod locks;
mod method_refs;
pub mod model;
#[cfg(test)]
mod model_tests;
mod objects;
mod place;
mod records;
mod sends;
mod shapes;
mod site;
mod sql;
mod summaries;
mod sweeps;
mod unsent;

pub use conds::{Cond, Fact, Test};
pub use cx::{MAX_STEPS, analyze};
pub use model::{Model, SourceKind};
pub use place::FieldPath;
pub use summaries::{BodyFiles, Read, Reuse, summarize};
pub use sweeps::{Sweep, property_key};

use crate::java::ir::*;
pub use crate::semantic::Loc;
use crate::semantic::MethodId;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct SinkRef {
    pub loc: Loc,
    pub label: String,
    /// A key parameter by its name or header annotation: reported at the argument of each call.
    pub at_argument: bool,
    /// The model's row that makes it a sink (empty when it is not one row).
    pub row: String,
    /// The key is written into a row of the database: a field of a persistent entity (its
    /// constructor, setter or builder), not a header, body field or SDK option (SPEC 7.4, a
    /// transactional outbox).
    pub row_write: bool,
    /// Conditions on parameters of the method that records it under which the sink runs
    /// (`if (level == CRITICAL) pager.trigger(alert)`): a caller whose arguments make one false
    /// does not reach it. Empty: unconditional.
    pub when: Vec<Cond>,
    /// The stores (repositories, by type) a record was saved through, committed, before the
    /// sink runs, on every path of the method that records it — and of its callers, before the
    /// call (see `records`). `true`: the save commits apart from any transaction of the callers
    /// (through a `REQUIRES_NEW` method).
    pub after_saves: BTreeMap<String, bool>,
}

/// A sink that runs only after the message or request is on record, behind a check that ends
/// the attempt when it is (SPEC 7.4, "an entity saved before the sink"): `if
/// (repo.existsByMessageId(id)) return; repo.save(record(id)); pager.trigger(UUID…)`. A later
/// attempt finds the record the first one committed and stops before the sink.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Recorded {
    /// Parameters of the method the check looks the record up by: the check holds only for a
    /// region that passes them values that are the same on every attempt.
    pub params: BTreeSet<u16>,
    /// The save commits apart from any transaction of the callers (`REQUIRES_NEW`); otherwise
    /// it holds only where no transaction is open around it (it would roll back with a failed
    /// attempt).
    pub apart: bool,
}

/// A per-attempt value as a summary remembers it: what it is and where it is evaluated.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct SourceDesc {
    pub kind: SourceKind,
    /// The model's row that makes it a source (empty when the engine knows it itself).
    pub row: String,
    pub label: String,
    pub loc: Loc,
    /// The tests on the method's parameters it is evaluated under (`key == null` in `key !=
    /// null ? key : UUID.randomUUID().toString()`): a caller whose arguments fail one does not
    /// get it (see `conds`).
    pub when: Vec<Cond>,
    /// Saved as a record in the method's own transaction (find-or-create): committed when the
    /// method returns, so stable for a caller outside any transaction of its own.
    pub committed: bool,
}

impl SourceDesc {
    /// Kept for a summary that already has `self` for the same slot: a value made under
    /// either's tests, so under the tests both have.
    pub(crate) fn widen(&mut self, other: &SourceDesc) {
        if self.when != other.when {
            self.when.retain(|c| other.when.contains(c));
        }
        self.committed &= other.committed;
    }
}

/// [`Summary::join`] for maps of sources: the smaller description (by what it names), under
/// the tests both sides have, so that a cycle's summaries only lose tests and converge.
fn keep_min_source<K: Ord>(into: &mut BTreeMap<K, SourceDesc>, from: BTreeMap<K, SourceDesc>) {
    let named = |d: &SourceDesc| (d.kind, d.row.clone(), d.label.clone(), d.loc.clone());
    for (k, v) in from {
        match into.get_mut(&k) {
            Some(old) => {
                let mut when = old.when.clone();
                when.retain(|c| v.when.contains(c));
                let committed = old.committed && v.committed;
                if named(&v) < named(old) {
                    *old = v;
                }
                old.when = when;
                old.committed = committed;
            }
            None => {
                into.insert(k, v);
            }
        }
    }
}

/// Puts `d` in `slot` of a summary's map of sources, or widens what is there (see
/// [`SourceDesc::widen`]).
pub(crate) fn keep_source<K: Ord>(map: &mut BTreeMap<K, SourceDesc>, slot: K, d: SourceDesc) {
    match map.entry(slot) {
        std::collections::btree_map::Entry::Occupied(mut e) => e.get_mut().widen(&d),
        std::collections::btree_map::Entry::Vacant(e) => {
            e.insert(d);
        }
    }
}

/// What the callers of a method need to know of it ([`SummaryData`]). Most are empty, and
/// every kept flow holds one emptied ([`summaries::summarize`] takes its summary out): an empty
/// summary is one null pointer, not the few hundred bytes of [`SummaryData`]'s empty sets.
/// Reads through an empty one see an empty [`SummaryData`]; the first write makes room for it.
#[derive(Clone, Default)]
pub struct Summary(Option<Box<SummaryData>>);

impl Summary {
    /// Its contents, moved out.
    pub fn into_data(self) -> SummaryData {
        self.0.map(|b| *b).unwrap_or_default()
    }

    /// Whether nothing was ever written into it (an empty one may also have been written to).
    pub fn is_unwritten(&self) -> bool {
        self.0.is_none()
    }
}

static EMPTY_SUMMARY: SummaryData = SummaryData {
    ret_sources: BTreeMap::new(),
    ret_params: BTreeSet::new(),
    ret_fields: BTreeSet::new(),
    param_sinks: BTreeMap::new(),
    field_sinks: BTreeMap::new(),
    field_sources: BTreeMap::new(),
    param_field_sources: BTreeMap::new(),
    param_added_sources: BTreeMap::new(),
    field_params: BTreeMap::new(),
    ret_this: false,
    ret_shape: None,
    ret_keyed: false,
    ret_lock: false,
    guarded_params: BTreeSet::new(),
    param_sends: BTreeMap::new(),
    ret_container: false,
    claim_params: BTreeSet::new(),
    store_key_params: BTreeSet::new(),
    ret_key_params: BTreeSet::new(),
    ret_found: BTreeSet::new(),
    saves: BTreeMap::new(),
    endpoint: None,
};

impl std::ops::Deref for Summary {
    type Target = SummaryData;
    fn deref(&self) -> &SummaryData {
        self.0.as_deref().unwrap_or(&EMPTY_SUMMARY)
    }
}

impl std::ops::DerefMut for Summary {
    fn deref_mut(&mut self) -> &mut SummaryData {
        self.0.get_or_insert_with(Box::default)
    }
}

impl From<SummaryData> for Summary {
    fn from(d: SummaryData) -> Summary {
        Summary(Some(Box::new(d)))
    }
}

/// By contents: an emptied summary equals one never written.
impl PartialEq for Summary {
    fn eq(&self, other: &Summary) -> bool {
        **self == **other
    }
}

impl Eq for Summary {}

impl std::fmt::Debug for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// Encoded as its contents (the summary cache's format).
impl serde::Serialize for Summary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Summary {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Summary, D::Error> {
        let data = SummaryData::deserialize(d)?;
        Ok(if data == EMPTY_SUMMARY {
            Summary(None)
        } else {
            Summary::from(data)
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename = "Summary")]
pub struct SummaryData {
    pub ret_sources: BTreeMap<SourceKind, SourceDesc>,
    /// The parameters, or properties of parameters (`context.getServiceName()`), the return
    /// value is made of: a caller passes only that part of its argument on.
    pub ret_params: BTreeSet<ParamPath>,
    pub ret_fields: BTreeSet<String>,
    /// The parameters, or properties of parameters (`command.dedupeKey()`), that reach a key
    /// sink: a caller passes only that part of its argument.
    pub param_sinks: BTreeMap<ParamPath, SinkRef>,
    pub field_sinks: BTreeMap<String, SinkRef>,
    pub field_sources: BTreeMap<String, SourceDesc>,
    /// Per-attempt values the method stores into properties of the objects its parameters
    /// refer to (`envelope.setRequestReference(UUID…)` on parameter 0): the caller's object
    /// holds them after the call.
    #[serde(default)]
    pub param_field_sources: BTreeMap<(u16, String), SourceDesc>,
    /// Per-attempt values the method adds to the objects its parameters refer to as a whole
    /// (`sb.append(Instant.now())` on a `StringBuilder` parameter): the caller's object holds
    /// them after the call.
    #[serde(default)]
    pub param_added_sources: BTreeMap<u16, SourceDesc>,
    /// The parameters (or fields of parameters) each `this` field is set from: a constructor's
    /// fields, a setter's or a builder method's property.
    pub field_params: BTreeMap<String, BTreeSet<ParamPath>>,
    /// The method returns `this` (a builder's fluent method).
    pub ret_this: bool,
    /// The fields of the returned object and where each comes from, one level deep.
    pub ret_shape: Option<RetShape>,
    /// The return value carries an idempotency key (a built request options object).
    pub ret_keyed: bool,
    /// The return value says whether a cluster-wide lock is held.
    pub ret_lock: bool,
    /// Functional parameters the method runs only under a cluster-wide lock or on items it
    /// claimed (`if (!ids.isEmpty()) handler.accept(ids)` after `queueDAO.pop(…)`): a lambda
    /// passed there is guarded.
    pub guarded_params: BTreeSet<u16>,
    /// The requests each parameter goes out on, by HTTP method (a header container handed
    /// over is sent only with them).
    pub param_sends: BTreeMap<u16, Sends>,
    /// The method returns a header container holding a key it wrote (or got from a callee):
    /// where the key goes out is the caller's to tell.
    pub ret_container: bool,
    /// Parameters the method's claim is keyed by (`setIfAbsent("job:" + key, …)`): its lock
    /// result, and the guard of its functional parameters, hold only where the caller's key is
    /// the same on every run. A claim by a random key is won by every replica.
    pub claim_params: BTreeSet<u16>,
    /// Parameters that name a record of the application's own store: a claim's key or a
    /// storage read's (`repository.findByIdempotencyKey(key)`), not a key sent to another
    /// system. RL005 counts such a key only where it is new on every run.
    pub store_key_params: BTreeSet<u16>,
    /// The parts of parameters the method copies into the key of the object it returns
    /// (`Result.builder().idempotencyKey(record.getIdempotencyKey())`): it hands a key it was
    /// given back, and each caller's use of the result decides what the key is.
    pub ret_key_params: BTreeSet<ParamPath>,
    /// The method returns `true` whenever one of these stores (repositories, by type) holds a
    /// record for its arguments (`isDuplicate(topic, partition, offset)` returning
    /// `repo.findBy…(…).isPresent()`): a check of the application's own store.
    pub ret_found: BTreeSet<String>,
    /// Stores a record is saved through, committed, on every normal return of the method
    /// (`true`: apart from any caller's transaction).
    pub saves: BTreeMap<String, bool>,
    /// The method is a declarative client's request to a provider's money-moving endpoint with
    /// no key header parameter: its label and row. Each call of it is a side effect.
    pub endpoint: Option<(String, String)>,
}

impl Summary {
    /// The least upper bound of `self` and `other`, for recursive cycles: sets and flags are
    /// united, and where both name a value for the same key (a source of a kind, the sink of a
    /// parameter) the smaller one is kept, so that a cycle's summaries only grow and converge
    /// whatever order its members are analysed in.
    pub fn join(&mut self, other: Summary) {
        let other = other.into_data();
        fn keep_min<K: Ord, V: Ord>(into: &mut BTreeMap<K, V>, from: BTreeMap<K, V>) {
            for (k, v) in from {
                match into.get_mut(&k) {
                    Some(old) if *old <= v => {}
                    Some(old) => *old = v,
                    None => {
                        into.insert(k, v);
                    }
                }
            }
        }
        keep_min_source(&mut self.ret_sources, other.ret_sources);
        self.ret_params.extend(other.ret_params);
        self.ret_fields.extend(other.ret_fields);
        join_sinks(&mut self.param_sinks, other.param_sinks);
        join_sinks(&mut self.field_sinks, other.field_sinks);
        keep_min_source(&mut self.field_sources, other.field_sources);
        keep_min_source(&mut self.param_field_sources, other.param_field_sources);
        keep_min_source(&mut self.param_added_sources, other.param_added_sources);
        for (k, v) in other.field_params {
            self.field_params.entry(k).or_default().extend(v);
        }
        self.ret_this |= other.ret_this;
        self.ret_keyed |= other.ret_keyed;
        self.ret_lock |= other.ret_lock;
        self.guarded_params.extend(other.guarded_params);
        for (p, x) in other.param_sends {
            let into = self.param_sends.entry(p).or_default();
            into.read |= x.read;
            into.write |= x.write;
        }
        self.ret_container |= other.ret_container;
        self.claim_params.extend(other.claim_params);
        self.store_key_params.extend(other.store_key_params);
        self.ret_key_params.extend(other.ret_key_params);
        self.ret_found.extend(other.ret_found);
        for (k, apart) in other.saves {
            *self.saves.entry(k).or_insert(apart) &= apart;
        }
        if other.endpoint.is_some() && (self.endpoint.is_none() || other.endpoint < self.endpoint) {
            self.endpoint = other.endpoint;
        }
        match (&mut self.ret_shape, other.ret_shape) {
            (Some(mine), Some(theirs)) => {
                mine.map |= theirs.map;
                mine.builder |= theirs.builder;
                mine.complete &= theirs.complete;
                for (k, f) in theirs.fields {
                    let into = mine.fields.entry(k).or_default();
                    into.params.extend(f.params);
                    into.this_fields.extend(f.this_fields);
                    keep_min(&mut into.sources, f.sources);
                }
            }
            (None, Some(theirs)) => self.ret_shape = Some(theirs),
            (_, None) => {}
        }
        self.coarsen();
    }
}

/// Sinks joined per key: the smaller sink is kept, unconditional unless both are reached under
/// the same conditions (a sink reached under two different conditions may be reached under
/// either).
fn join_sinks<K: Ord>(into: &mut BTreeMap<K, SinkRef>, from: BTreeMap<K, SinkRef>) {
    for (k, v) in from {
        match into.get_mut(&k) {
            Some(old) => {
                let when = if old.when == v.when {
                    v.when.clone()
                } else {
                    Vec::new()
                };
                let saves = records::meet(&old.after_saves, &v.after_saves);
                if v < *old {
                    *old = v;
                }
                old.when = when;
                old.after_saves = saves;
            }
            None => {
                into.insert(k, v);
            }
        }
    }
}

/// Where a field's value comes from, in the callee's parameters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum ParamPath {
    /// The whole argument.
    Whole(u16),
    /// A part of the argument (`builder.orderId` in `new Request(builder)`,
    /// `task.getInputData().get("idempotencyKey")`).
    Field(u16, FieldPath),
}

impl ParamPath {
    /// The parameter the path starts at.
    pub fn param(&self) -> u16 {
        match self {
            ParamPath::Whole(i) | ParamPath::Field(i, _) => *i,
        }
    }
}

/// One field of a returned object: the parameters, `this` fields and sources it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldFlow {
    pub params: BTreeSet<ParamPath>,
    pub this_fields: BTreeSet<String>,
    pub sources: BTreeMap<SourceKind, SourceDesc>,
}

/// The fields of a method's returned object (`buildRequest(now)` returns a DTO whose
/// `timestamp` holds its parameter, and nothing else).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RetShape {
    pub fields: BTreeMap<String, FieldFlow>,
    /// Map entries rather than properties.
    pub map: bool,
    /// A builder: its one-argument calls set properties.
    pub builder: bool,
    /// Every field written into the returned object is listed (every `return` gives an object
    /// a builder chain started in the method made): a field it does not list was never set.
    pub complete: bool,
}

/// A per-attempt value evaluated in this method.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SourceSite {
    pub kind: SourceKind,
    /// The model's row that makes it a source; for a value returned by a callee, `via` has it.
    pub row: String,
    /// The primary location: the source call itself, or the call that returns the value.
    pub span: Span,
    pub scope: ScopeId,
    pub label: String,
    /// For a value returned by a callee: the source inside it.
    pub via: Option<SourceDesc>,
    /// For a counter: where it is declared. `Some(None)`: a field, outside every region;
    /// `Some(Some(s))`: a local of scope `s`. A counter is per-attempt only for a region
    /// that increments it without declaring it.
    pub counter_decl: Option<Option<ScopeId>>,
    /// Generated once per holder (`map.computeIfAbsent(…)` on a local map): per-attempt only
    /// for a region that also runs the holder's declaration, in this scope.
    pub holder_decl: Option<ScopeId>,
    /// Generated once per object the method is handed (a guard storing into a parameter's
    /// place, `if (!template.headers().containsKey(…)) template.header(…)`): stable for the
    /// regions that hand the same object to every attempt, per-attempt where the object is made
    /// anew for each request (an interceptor a region enters through a client call).
    pub param_held: bool,
    /// Conditions on the method's parameters under which it is evaluated (`key != null ? key :
    /// UUID…` mints only for a caller passing no key). Empty: unconditional.
    pub when: Vec<Cond>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Event {
    pub source: u32,
    pub sink: SinkRef,
    pub scope: ScopeId,
    /// The call or `new` in this method through which the sink is reached.
    pub at: Span,
    /// Conditions on the method's parameters under which the sink runs (with the source's own,
    /// [`SourceSite::when`], both must hold for the event). Empty: unconditional.
    pub when: Vec<Cond>,
    /// The sink runs only after the operation is on record, behind a check that stops a later
    /// attempt: stable where the check's parameters are (see [`Recorded`]).
    pub recorded: Option<Recorded>,
}

/// The flows kept for the rules, by method: boxed, as a flow is most of a kilobyte and the
/// table leaves up to half its slots empty.
pub type Flows = std::collections::HashMap<MethodId, Box<MethodFlow>>;

#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct MethodFlow {
    pub summary: Summary,
    pub sources: Vec<SourceSite>,
    pub events: Vec<Event>,
    /// Call graph edges: the scope of the call and the project method it may run.
    pub calls: Vec<(ScopeId, MethodId)>,
    /// What each call passes, one entry per call of a project method (also method references
    /// and constructors, with no facts): the callee and the facts of its arguments, for the
    /// conditions of the callee's events.
    pub call_facts: Vec<(MethodId, Vec<Fact>)>,
    /// The method was too large for the analysis budget and was analysed only in part.
    pub truncated: bool,
    /// Key sinks and known side effects executed here.
    pub effects: Vec<Effect>,
    /// Calls not under a cluster-wide lock (RL005 follows only these).
    pub unguarded_calls: Vec<(ScopeId, MethodId)>,
    /// Methods called on `this`: a proxy-based lock annotation on them does not apply.
    pub self_calls: Vec<MethodId>,
    /// Header containers holding a key, made here or returned by a callee, and the requests
    /// this method sends them on.
    pub containers: Vec<Container>,
    /// What the method's storage queries select by and what it sets (a sweep's marks).
    pub sweep: Sweep,
}

impl MethodFlow {
    /// Gives back the spare room of its vectors (the analysis grows them a push at a time):
    /// the flows of every analysed method are kept until the rules have run.
    pub fn shrink_to_fit(&mut self) {
        self.sources.shrink_to_fit();
        self.events.shrink_to_fit();
        for e in &mut self.events {
            e.when.shrink_to_fit();
        }
        self.calls.shrink_to_fit();
        self.call_facts.shrink_to_fit();
        for (_, facts) in &mut self.call_facts {
            facts.shrink_to_fit();
        }
        self.effects.shrink_to_fit();
        self.unguarded_calls.shrink_to_fit();
        self.self_calls.shrink_to_fit();
        self.containers.shrink_to_fit();
    }
}

/// A header container holding an idempotency key (`HttpHeaders` with an `Idempotence-Key`): the
/// key goes out only on the requests the container is sent with.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Container {
    /// The project method that returned it to this one (`None`: made here).
    pub from: Option<MethodId>,
    /// The key header writes into it in this method (the sink spans).
    pub sinks: Vec<Span>,
    pub sends: Sends,
}

/// The requests a container (or a parameter) goes out on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sends {
    /// A read: GET, HEAD, OPTIONS.
    pub read: bool,
    /// Any other request, or one whose method cannot be told.
    pub write: bool,
    /// Returned to the caller.
    pub returned: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EffectKind {
    KeySink,
    /// A known non-idempotent call; `keyed` when it carries an idempotency key.
    SideEffect {
        keyed: bool,
    },
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Effect {
    pub kind: EffectKind,
    pub span: Span,
    pub label: String,
    /// The model's row (a side effect's, a key sink's) when it is one.
    pub row: String,
    pub scope: ScopeId,
    /// Under a cluster-wide lock taken in this method.
    pub guarded: bool,
    /// A key sink that names a record of the application's own store (a claim or lookup key
    /// parameter of a project method, an entity's key field), not a key sent to another system.
    pub own_key: bool,
    /// A key the method only copies from its parameters into what it returns: it is a key
    /// sink at each call of the method, where the caller's use of the result decides
    /// (`Summary::ret_key_params`), not here.
    pub handed_back: bool,
    /// A side effect unkeyed only when these hold: the request objects it sends that the
    /// caller made, unless the caller keyed them (`Test::Unkeyed` on their parameters).
    pub when: Vec<Cond>,
}

/// Summaries of the methods analysed so far; every other method has the empty summary.
/// Sparse, since the analysis summarizes only the methods a region reaches (a few thousand of a
/// project's hundred thousand) and a summary is a few hundred bytes.
/// A summary is itself one pointer ([`Summary`]), to its contents where it has any.
#[derive(Debug, Default)]
pub struct Summaries(
    std::collections::HashMap<MethodId, Summary>,
    /// The methods whose summaries are still to come (see [`summaries::watching`]).
    std::collections::HashSet<MethodId>,
);

impl Summaries {
    /// The summary of method `m` (empty when it was not summarized).
    pub fn of(&self, m: MethodId) -> &Summary {
        static EMPTY: std::sync::OnceLock<Summary> = std::sync::OnceLock::new();
        summaries::read_summary(m);
        self.0.get(&m).unwrap_or_else(|| {
            if self.1.contains(&m) {
                summaries::read_unsettled();
            }
            EMPTY.get_or_init(Summary::default)
        })
    }

    /// Whether the summary of `m` is still to come (it reads as empty until then).
    pub fn pending(&self, m: MethodId) -> bool {
        self.1.contains(&m)
    }

    /// Record `summary` for `m`; whether it differs from what was recorded.
    pub fn set(&mut self, m: MethodId, summary: Summary) -> bool {
        if summary == Summary::default() {
            return self.0.remove(&m).is_some();
        }
        match self.0.get_mut(&m) {
            Some(old) if *old == summary => false,
            Some(old) => {
                *old = summary;
                true
            }
            None => {
                self.0.insert(m, summary);
                true
            }
        }
    }
}
