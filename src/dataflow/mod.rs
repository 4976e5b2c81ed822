//! Data flow inside one method, and the method summaries that carry it across methods.
//!
//! A method is interpreted once over its statements with an environment from places (locals,
//! `this` fields, entity properties, stored attributes) to the origins of their values. A
//! per-attempt source creates a `Fresh` origin at the place it is evaluated; parameters and
//! `this` fields start as symbolic origins so that a summary can say "parameter 2 reaches a key
//! sink" or "the return value is per-attempt". Summaries are iterated to a fixpoint over the
//! whole project; the final pass records every source-to-sink event with the lambda scopes
//! of both ends, which the region check then reads.

use crate::catalogue::{Catalogue, SourceKind, glob};
use crate::index::{ClassRef, MethodId, Project, TypeRef};
use crate::regions::{Region, Upstream, callback_parts, collect_defs};
use crate::syntax::ir::*;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: u32,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SinkRef {
    pub loc: Loc,
    pub label: String,
    /// A key parameter by its name or header annotation: reported at the argument of each call.
    pub at_argument: bool,
}

/// A per-attempt value as a summary remembers it: what it is and where it is evaluated.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceDesc {
    pub kind: SourceKind,
    pub label: String,
    pub loc: Loc,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub ret_sources: BTreeMap<SourceKind, SourceDesc>,
    pub ret_params: BTreeSet<u16>,
    pub ret_fields: BTreeSet<String>,
    pub param_sinks: BTreeMap<u16, SinkRef>,
    pub field_sinks: BTreeMap<String, SinkRef>,
    pub field_sources: BTreeMap<String, SourceDesc>,
    /// Constructors: the parameters each field is set from.
    pub field_params: BTreeMap<String, BTreeSet<u16>>,
    /// The return value carries an idempotency key (a built request options object).
    pub ret_keyed: bool,
    /// The return value says whether a cluster-wide lock is held.
    pub ret_lock: bool,
}

/// A per-attempt value evaluated in this method.
#[derive(Clone, Debug)]
pub struct SourceSite {
    pub kind: SourceKind,
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
}

#[derive(Clone, Debug)]
pub struct Event {
    pub source: u32,
    pub sink: SinkRef,
    pub scope: ScopeId,
    /// The call or `new` in this method through which the sink is reached.
    pub at: Span,
}

#[derive(Default)]
pub struct MethodFlow {
    pub summary: Summary,
    pub sources: Vec<SourceSite>,
    pub events: Vec<Event>,
    /// Call graph edges: the scope of the call and the project method it may run.
    pub calls: Vec<(ScopeId, MethodId)>,
    /// The method was too large for the analysis budget and was analysed only in part.
    pub truncated: bool,
    /// Regions made by calls in this method (callbacks, pipelines); final pass only.
    pub regions: Vec<Region>,
    /// Key sinks and known side effects executed here.
    pub effects: Vec<Effect>,
    /// Calls not under a cluster-wide lock (RL005 follows only these).
    pub unguarded_calls: Vec<(ScopeId, MethodId)>,
    /// Methods called on `this`: a proxy-based lock annotation on them does not apply.
    pub self_calls: Vec<MethodId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EffectKind {
    KeySink,
    /// A known non-idempotent call; `keyed` when it carries an idempotency key.
    SideEffect {
        keyed: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Effect {
    pub kind: EffectKind,
    pub span: Span,
    pub label: String,
    pub scope: ScopeId,
    /// Under a cluster-wide lock taken in this method.
    pub guarded: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Origin {
    Fresh(u32),
    Param(u16),
    Field(String),
    /// The value went through a key sink: a request that carries an idempotency key.
    Keyed,
    /// The value says whether this instance holds a cluster-wide lock.
    Lock,
}

type Taint = BTreeSet<Origin>;
type Env = HashMap<String, Taint>;

pub type Summaries = Vec<Vec<Summary>>;

/// Rounds of the summary fixpoint; call chains longer than this may lose precision.
const MAX_ROUNDS: usize = 64;
const MAX_LOOP_PASSES: usize = 3;

/// Summaries of the methods `ids` (callees included). Strongly connected components of the
/// call graph are summarized callees first, level by level in parallel, so every method is
/// interpreted once unless it is part of a recursion, which iterates to a fixpoint.
/// `calls` is the call graph among them (it does not depend on summaries).
pub fn summarize(
    project: &Project,
    cat: &Catalogue,
    ids: &[MethodId],
    calls: &HashMap<MethodId, Vec<MethodId>>,
) -> Summaries {
    let mut sums: Summaries = project
        .files
        .iter()
        .map(|f| vec![Summary::default(); f.facts.methods.len()])
        .collect();
    let (sccs, scc_of) = components(ids, calls);
    // Level of a component: one more than its deepest callee component.
    let mut level = vec![0usize; sccs.len()];
    for (c, members) in sccs.iter().enumerate() {
        for m in members {
            for callee in calls.get(m).into_iter().flatten() {
                if let Some(&d) = scc_of.get(callee)
                    && d != c
                {
                    level[c] = level[c].max(level[d] + 1);
                }
            }
        }
    }
    let depth = level.iter().copied().max().map_or(0, |x| x + 1);
    let mut by_level: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for (c, l) in level.iter().enumerate() {
        by_level[*l].push(c);
    }
    for comps in by_level {
        let recursive = |c: usize| {
            let members = &sccs[c];
            members.len() > 1
                || calls
                    .get(&members[0])
                    .is_some_and(|v| v.contains(&members[0]))
        };
        let (cyclic, single): (Vec<usize>, Vec<usize>) =
            comps.into_iter().partition(|c| recursive(*c));
        let done: Vec<(MethodId, Summary)> = single
            .par_iter()
            .map(|c| {
                let id = sccs[*c][0];
                (id, analyze(project, cat, &sums, id, false).summary)
            })
            .collect();
        for (id, summary) in done {
            sums[id.0 as usize][id.1 as usize] = summary;
        }
        for c in cyclic {
            for _ in 0..MAX_ROUNDS {
                let next: Vec<(MethodId, Summary)> = sccs[c]
                    .par_iter()
                    .map(|id| (*id, analyze(project, cat, &sums, *id, false).summary))
                    .collect();
                let mut changed = false;
                for (id, summary) in next {
                    let slot = &mut sums[id.0 as usize][id.1 as usize];
                    if *slot != summary {
                        *slot = summary;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
    }
    sums
}

/// Strongly connected components (Tarjan's algorithm with an explicit stack), callees'
/// components before their callers', each sorted; and the component of every method.
fn components(
    ids: &[MethodId],
    calls: &HashMap<MethodId, Vec<MethodId>>,
) -> (Vec<Vec<MethodId>>, HashMap<MethodId, usize>) {
    let index_of: HashMap<MethodId, usize> = ids.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let succ: Vec<Vec<usize>> = ids
        .iter()
        .map(|m| {
            let mut v: Vec<usize> = calls
                .get(m)
                .into_iter()
                .flatten()
                .filter_map(|c| index_of.get(c).copied())
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let n = ids.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next_index = 0usize;
    let mut sccs: Vec<Vec<MethodId>> = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, position in its successor list)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos < succ[v].len() {
                let w = succ[v][*pos];
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(ids[w]);
                    if w == v {
                        break;
                    }
                }
                comp.sort();
                sccs.push(comp);
            }
        }
    }
    let mut scc_of = HashMap::new();
    for (c, members) in sccs.iter().enumerate() {
        for m in members {
            scc_of.insert(*m, c);
        }
    }
    (sccs, scc_of)
}

/// Analyse one method with the given callee summaries.
pub fn analyze(
    project: &Project,
    cat: &Catalogue,
    sums: &Summaries,
    id: MethodId,
    collect: bool,
) -> MethodFlow {
    let method = project.method(id);
    let mut defs = HashMap::new();
    if let Some(b) = &method.body {
        collect_defs(b, &mut defs);
    }
    let mut cx = Cx {
        project,
        cat,
        sums,
        id,
        class: project.class_of(id),
        method,
        env: Env::new(),
        types: HashMap::new(),
        read_place: HashMap::new(),
        first_attempt_vars: BTreeSet::new(),
        stores: Vec::new(),
        pending: Vec::new(),
        persisted: Vec::new(),
        suppress: 0,
        lambda_rets: Vec::new(),
        ret: Taint::new(),
        out: MethodFlow::default(),
        steps: 0,
        defs,
        cur_scope: 0,
        decl_scope: HashMap::new(),
        last_new: None,
        guarded: false,
        keep_cond: false,
        collect,
    };
    for (i, p) in method.params.iter().enumerate() {
        let origin = match cx.parameter_source(p) {
            Some(kind) => {
                let label = format!("parameter `{}`", p.name);
                cx.fresh(kind, p.span, 0, label, None)
            }
            None => [Origin::Param(i as u16)].into(),
        };
        cx.env.insert(p.name.clone(), origin);
        cx.types.insert(p.name.clone(), p.ty.clone());
    }
    if let Some(body) = &method.body {
        cx.block(body);
        cx.finish_fields();
    }
    cx.static_param_sinks();
    if method.is_ctor {
        cx.constructor_fields();
    }
    let ret = std::mem::take(&mut cx.ret);
    for o in &ret {
        match o {
            Origin::Fresh(i) => {
                let s = &cx.out.sources[*i as usize];
                let desc = s.via.clone().unwrap_or_else(|| SourceDesc {
                    kind: s.kind,
                    label: s.label.clone(),
                    loc: Loc {
                        file: id.0,
                        span: s.span,
                    },
                });
                cx.out.summary.ret_sources.entry(s.kind).or_insert(desc);
            }
            Origin::Param(p) => {
                cx.out.summary.ret_params.insert(*p);
            }
            Origin::Field(f) => {
                cx.out.summary.ret_fields.insert(f.clone());
            }
            Origin::Keyed => cx.out.summary.ret_keyed = true,
            Origin::Lock => cx.out.summary.ret_lock = true,
        }
    }
    cx.out.truncated = cx.steps > MAX_STEPS;
    cx.out.calls.sort();
    cx.out.calls.dedup();
    cx.out.unguarded_calls.sort();
    cx.out.unguarded_calls.dedup();
    cx.out
}

#[derive(Clone)]
struct Store {
    /// Order of the write among this method's stores.
    seq: usize,
    place: String,
    value: Taint,
    call: Option<Span>,
}

struct Pending {
    owner: String,
    place: String,
    fresh: Taint,
    calls: Vec<Span>,
}

/// A guard on an `if`: which branch runs when the key is absent (or on the first attempt).
struct Guard {
    places: Vec<String>,
    first_attempt: bool,
    absent_in_then: bool,
}

struct Cx<'p> {
    project: &'p Project,
    cat: &'p Catalogue,
    sums: &'p Summaries,
    id: MethodId,
    class: ClassRef,
    method: &'p Method,
    env: Env,
    types: HashMap<String, String>,
    /// Local → the durable place its value was read from (`this.key`, `ctx@key`, `order#key`).
    read_place: HashMap<String, String>,
    first_attempt_vars: BTreeSet<String>,
    /// Values written to durable places, in order: (place, value, the storing call if any).
    stores: Vec<Store>,
    /// Generate-once values stored on a local entity, stable once the entity is persisted.
    pending: Vec<Pending>,
    /// Entities persisted so far: (entity local, number of stores made before).
    persisted: Vec<(String, usize)>,
    /// >0 while evaluating a lambda that runs only when a key is absent.
    suppress: u32,
    lambda_rets: Vec<Taint>,
    ret: Taint,
    out: MethodFlow,
    /// Work counter: bounds the cost of one method whatever its shape.
    steps: u32,
    defs: HashMap<String, (&'p str, &'p Expr)>,
    /// The lambda, anonymous-method or loop scope being interpreted.
    cur_scope: ScopeId,
    /// Scope each local is declared in, for counters declared outside a region.
    decl_scope: HashMap<String, ScopeId>,
    /// Inside code that runs only when a cluster-wide lock is held.
    guarded: bool,
    /// Evaluating an `if` condition: keep what comparisons and negations are made of.
    keep_cond: bool,
    /// Fields set by the last `new T(…)` evaluated, for the local it initializes.
    last_new: Option<(Span, Vec<(String, Taint)>)>,
    /// Record regions (the final pass).
    collect: bool,
}

/// Steps (statements and expressions interpreted) one method may take: a pathological method is
/// analysed in part, deterministically, and reported.
pub const MAX_STEPS: u32 = 200_000;

fn union(a: &mut Taint, b: &Taint) {
    for o in b {
        if !a.contains(o) {
            a.insert(o.clone());
        }
    }
}

fn join(a: &Env, b: &Env) -> Env {
    let mut out = a.clone();
    for (k, v) in b {
        union(out.entry(k.clone()).or_default(), v);
    }
    out
}

/// `getKey` → `key`, `isActive` → `active`.
fn property_of(method: &str, prefix: &str) -> Option<String> {
    let rest = method.strip_prefix(prefix)?;
    let mut cs = rest.chars();
    let first = cs.next()?;
    if !first.is_uppercase() {
        return None;
    }
    Some(first.to_lowercase().chain(cs).collect())
}

impl<'p> Cx<'p> {
    fn file(&self) -> u32 {
        self.id.0
    }

    fn is_local(&self, n: &str) -> bool {
        self.types.contains_key(n)
    }

    fn is_field(&self, n: &str) -> bool {
        !self.is_local(n) && self.project.field(self.class, n).is_some()
    }

    fn is_static_field(&self, n: &str) -> bool {
        self.project
            .field(self.class, n)
            .is_some_and(|(_, f)| f.modifiers.is_static)
    }

    /// A name that is neither a local, a parameter nor a field: a type (or package) name.
    fn is_type_name(&self, e: &Expr) -> bool {
        match e {
            Expr::Name(n, _) => !self.is_local(n) && !self.is_field(n) && !self.env.contains_key(n),
            Expr::Field(r, _, _) => self.is_type_name(r),
            _ => false,
        }
    }

    fn resolve(&self, written: &str) -> TypeRef {
        self.project
            .resolve_type(self.file(), Some(self.class.1 as usize), written)
    }

    fn type_of(&self, e: &Expr) -> Option<TypeRef> {
        self.type_of_at(e, 0)
    }

    fn type_of_at(&self, e: &Expr, depth: usize) -> Option<TypeRef> {
        if depth > 8 {
            return None;
        }
        match e.peel() {
            Expr::Name(n, _) => {
                if let Some(t) = self.types.get(n) {
                    if t == "var" {
                        // The initializer's type.
                        let (_, init) = self.defs.get(n)?;
                        return self.type_of_at(init, depth + 1);
                    }
                    if t.is_empty() {
                        return None;
                    }
                    return Some(self.resolve(t));
                }
                let (owner, f) = self.project.field(self.class, n)?;
                Some(
                    self.project
                        .resolve_type(owner.0, Some(owner.1 as usize), &f.ty),
                )
            }
            Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => {
                let (owner, f) = self.project.field(self.class, n)?;
                Some(
                    self.project
                        .resolve_type(owner.0, Some(owner.1 as usize), &f.ty),
                )
            }
            Expr::New(n) => Some(self.resolve(&n.ty)),
            Expr::Cast(t, _, _) => Some(self.resolve(t)),
            Expr::Call(c) => {
                let recv = c.recv.as_ref()?;
                if self.is_type_name(recv) {
                    let owner = self.resolve(&recv.dotted()?);
                    for f in &self.cat.sources.factory {
                        if glob(&f.method, &c.name) && self.project.type_is(&owner, &f.class) {
                            return Some(TypeRef::External(f.returns.clone()));
                        }
                    }
                    return match owner {
                        TypeRef::Project(k) => {
                            let m = *self
                                .project
                                .methods_in_hierarchy(k, &c.name, c.args.len())
                                .first()?;
                            Some(self.ret_type(m))
                        }
                        // A library's static method returns a library type: never a project one.
                        TypeRef::External(_) => Some(TypeRef::External(String::new())),
                        TypeRef::Unknown(_) => None,
                    };
                }
                let t = self.type_of_at(recv, depth + 1)?;
                match t {
                    TypeRef::Project(k) => {
                        let m = *self
                            .project
                            .methods_in_hierarchy(k, &c.name, c.args.len())
                            .first()?;
                        Some(self.ret_type(m))
                    }
                    // A fluent builder returns itself until `build()`.
                    TypeRef::External(f)
                        if f.ends_with("Builder") && !c.name.starts_with("build") =>
                    {
                        Some(TypeRef::External(f))
                    }
                    TypeRef::External(f) => Some(
                        self.cat
                            .sources
                            .factory
                            .iter()
                            .find(|row| row.class == f && glob(&row.method, &c.name))
                            .map(|row| TypeRef::External(row.returns.clone()))
                            // A library type's method returns a library type.
                            .unwrap_or(TypeRef::External(String::new())),
                    ),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn ret_type(&self, m: MethodId) -> TypeRef {
        let mm = self.project.method(m);
        self.project.resolve_type(m.0, Some(mm.class), &mm.ret)
    }

    // ---- places -------------------------------------------------------------------------

    /// The environment key of an expression that names a place, if it does.
    fn place_of(&self, e: &Expr) -> Option<String> {
        match e.peel() {
            Expr::Name(n, _)
                if self.is_local(n) || self.env.contains_key(n) && !self.is_field(n) =>
            {
                Some(n.clone())
            }
            Expr::Name(n, _) if self.is_field(n) && !self.is_static_field(n) => {
                Some(format!("this.{n}"))
            }
            Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => Some(format!("this.{n}")),
            Expr::Call(c) => self.place_of_call(c),
            _ => None,
        }
    }

    fn place_of_call(&self, c: &Call) -> Option<String> {
        let recv = c.recv.as_ref()?;
        let owner = self.place_of(recv)?;
        if let Some(p) = property_of(&c.name, "get").or_else(|| property_of(&c.name, "is"))
            && c.args.is_empty()
        {
            return Some(format!("{owner}#{p}"));
        }
        // A record accessor: `cmd.orderId()`.
        if c.args.is_empty() {
            let p = format!("{owner}#{}", c.name);
            if self.env.contains_key(&p) {
                return Some(p);
            }
        }
        for s in &self.cat.guards.store {
            if s.reads.contains(&c.name) {
                let key = c
                    .args
                    .get(s.key_arg)
                    .and_then(|k| self.project.constant(self.class, k))?;
                return Some(format!("{owner}@{key}"));
            }
        }
        None
    }

    /// Does a value stored at `place` outlive the attempt?
    fn is_durable(&self, place: &str) -> bool {
        if place.starts_with("this.") || place.contains('@') {
            return true;
        }
        if let Some((owner, _)) = place.split_once('#') {
            if owner.starts_with("this.") {
                return true;
            }
            // A parameter entity is held by the caller across attempts.
            return self.method.params.iter().any(|p| p.name == owner);
        }
        false
    }

    // ---- statements ---------------------------------------------------------------------

    fn block(&mut self, b: &Block) {
        // A lock taken by `if (!locked) return;` guards the rest of this block only.
        let guarded = self.guarded;
        for s in b {
            self.stmt(s);
        }
        self.guarded = guarded;
    }

    fn stmt(&mut self, s: &Stmt) {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return;
        }
        match s {
            Stmt::Local { ty, name, init, .. } => {
                self.types.insert(name.clone(), ty.clone());
                self.decl_scope.insert(name.clone(), self.cur_scope);
                let t = init.as_ref().map(|e| self.eval(e)).unwrap_or_default();
                self.note_read(name, init.as_ref());
                self.env.insert(name.clone(), t);
                self.object_fields(name, init.as_ref());
            }
            Stmt::Expr(e) => {
                self.eval(e);
            }
            Stmt::If { cond, then, els } => self.stmt_if(cond, then, els.as_ref()),
            Stmt::Loop {
                head,
                cond,
                update,
                body,
                each,
                scope,
                span,
            } => {
                self.block(head);
                let retry = each.is_none() && crate::regions::is_retry_loop(body);
                if retry && self.collect {
                    self.out.regions.push(Region {
                        label: "retry loop".into(),
                        owner: self.method.name.clone(),
                        loc: Loc {
                            file: self.file(),
                            span: *span,
                        },
                        scheduler: false,
                        parts: vec![crate::regions::Part::Scopes(self.id, vec![*scope])],
                    });
                }
                let outer_scope = std::mem::replace(&mut self.cur_scope, *scope);
                let outer_guard = self.guarded;
                if let Some((ty, name, coll)) = each {
                    let t = self.eval(coll);
                    // Rows this instance claimed (`for (id : repo.claimDue())`) are its own work.
                    if t.contains(&Origin::Lock) {
                        self.guarded = true;
                    }
                    self.types.insert(name.clone(), ty.clone());
                    self.env.insert(name.clone(), t);
                }
                for _ in 0..MAX_LOOP_PASSES {
                    let before = self.env.clone();
                    if let Some(c) = cond {
                        self.eval(c);
                    }
                    self.block(body);
                    for u in update {
                        self.eval(u);
                    }
                    self.env = join(&before, &self.env);
                    if self.env == before {
                        break;
                    }
                }
                self.cur_scope = outer_scope;
                self.guarded = outer_guard;
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                self.block(resources);
                let before = self.env.clone();
                self.block(body);
                let mut acc = self.env.clone();
                let at_catch = join(&before, &acc);
                for (_, c) in catches {
                    self.env = at_catch.clone();
                    self.block(c);
                    acc = join(&acc, &self.env);
                }
                self.env = acc;
                if let Some(f) = finally {
                    self.block(f);
                }
            }
            Stmt::Return(e, _) => {
                if let Some(e) = e {
                    let t = self.eval(e);
                    match self.lambda_rets.last_mut() {
                        Some(r) => union(r, &t),
                        None => {
                            union(&mut self.ret, &t);
                            self.note_exit_fields();
                        }
                    }
                } else if self.lambda_rets.is_empty() {
                    self.note_exit_fields();
                }
            }
            Stmt::Throw(e) => {
                self.eval(e);
            }
            Stmt::Block(b) => self.block(b),

            Stmt::Jump | Stmt::Break | Stmt::Continue => {}
        }
    }

    fn arms(&mut self, arms: &[Block]) {
        let before = self.env.clone();
        let mut acc = before.clone();
        for a in arms {
            self.env = before.clone();
            self.block(a);
            acc = join(&acc, &self.env);
        }
        self.env = acc;
    }

    /// Remember where a local's value was read from, for generate-once guards.
    fn note_read(&mut self, name: &str, init: Option<&Expr>) {
        self.read_place.remove(name);
        self.first_attempt_vars.remove(name);
        let Some(e) = init else { return };
        if let Some(p) = self.place_of(e)
            && self.is_durable(&p)
        {
            self.read_place.insert(name.to_string(), p);
        }
        if let Expr::Call(c) = e.peel()
            && self.cat.guards.first_attempt.contains(&c.name)
        {
            self.first_attempt_vars.insert(name.to_string());
        }
    }

    fn guard_of(&self, cond: &Expr) -> Option<Guard> {
        match cond.peel() {
            Expr::Binary(b) if b.op == "||" || b.op == "&&" => {
                let l = self.guard_of(&b.left);
                let r = self.guard_of(&b.right);
                match (l, r) {
                    (Some(mut l), Some(r)) if l.absent_in_then == r.absent_in_then => {
                        l.places.extend(r.places);
                        l.first_attempt |= r.first_attempt;
                        Some(l)
                    }
                    (Some(g), None) | (None, Some(g)) if b.op == "&&" && g.absent_in_then => {
                        Some(g)
                    }
                    (Some(g), None) | (None, Some(g)) if b.op == "||" && !g.absent_in_then => {
                        Some(g)
                    }
                    _ => None,
                }
            }
            Expr::Binary(b) if matches!(b.op.as_str(), "==" | "!=" | ">" | ">=" | "<=") => {
                let (x, other) = match (&b.left, &b.right) {
                    (x, o) if matches!(o.peel(), Expr::Null(_) | Expr::Lit(..)) => (x, o),
                    (o, x) if matches!(o.peel(), Expr::Null(_) | Expr::Lit(..)) => (x, o),
                    _ => return None,
                };
                if matches!(other.peel(), Expr::Null(_)) {
                    return Some(Guard {
                        places: self.place_of(x).into_iter().collect(),
                        first_attempt: false,
                        absent_in_then: b.op == "==",
                    });
                }
                let is_counter = match x.peel() {
                    Expr::Call(c) => self.cat.guards.first_attempt.contains(&c.name),
                    Expr::Name(n, _) => self.first_attempt_vars.contains(n),
                    _ => false,
                };
                let zero = matches!(other.peel(), Expr::Lit(t, _) if t == "0");
                let one = matches!(other.peel(), Expr::Lit(t, _) if t == "1");
                if !is_counter {
                    return None;
                }
                let first_in_then = match b.op.as_str() {
                    "==" if zero => true,
                    "!=" | ">" if zero => false,
                    ">=" if one => false,
                    "<=" if zero => true,
                    _ => return None,
                };
                Some(Guard {
                    places: Vec::new(),
                    first_attempt: true,
                    absent_in_then: first_in_then,
                })
            }
            Expr::Not(inner, _) => self.guard_of(inner).map(|mut g| {
                g.absent_in_then = !g.absent_in_then;
                g
            }),
            Expr::Call(c) => {
                let absent = self.cat.guards.absence_methods.contains(&c.name);
                let present = self.cat.guards.presence_methods.contains(&c.name);
                if !absent && !present {
                    return None;
                }
                // `x.isEmpty()` or `StringUtils.isEmpty(x)`
                let target = match (&c.recv, c.args.first()) {
                    (Some(r), Some(a)) if self.is_type_name(r) => a,
                    (Some(r), _) => r,
                    (None, Some(a)) => a,
                    _ => return None,
                };
                Some(Guard {
                    places: self.place_of(target).into_iter().collect(),
                    first_attempt: false,
                    absent_in_then: absent,
                })
            }
            _ => None,
        }
    }

    fn stmt_if(&mut self, cond: &Expr, then: &Block, els: Option<&Block>) {
        // The condition's own value is not data flow, but it tells whether a lock decides.
        self.keep_cond = true;
        let cond_t = self.eval(cond);
        self.keep_cond = false;
        let lock = cond_t.contains(&Origin::Lock);
        let bails_out = matches!(
            then.last(),
            Some(Stmt::Return(..) | Stmt::Throw(_) | Stmt::Continue)
        );
        let guard = self.guard_of(cond);
        let before = self.env.clone();
        let read_before = self.read_place.clone();
        let mark = self.stores.len();
        let outer_guard = self.guarded;
        if lock && !(bails_out && els.is_none()) {
            self.guarded = true;
        }
        self.block(then);
        self.guarded = outer_guard;
        let env_then = std::mem::replace(&mut self.env, before.clone());
        let then_stores: Vec<Store> = self.stores[mark..].to_vec();
        let mark2 = self.stores.len();
        if let Some(e) = els {
            self.block(e);
        }
        let env_else = std::mem::take(&mut self.env);
        let else_stores: Vec<Store> = self.stores[mark2..].to_vec();
        let (mut absent, other, stores) = match &guard {
            Some(g) if !g.absent_in_then => (env_else, env_then, else_stores),
            _ => (env_then, env_else, then_stores),
        };
        if let Some(g) = &guard {
            self.generate_once(g, &before, &read_before, &mut absent, &stores);
        }
        self.env = join(&absent, &other);
        if lock && bails_out && els.is_none() {
            // `if (!acquired) return;`: what follows runs only with the lock.
            self.guarded = true;
        }
    }

    /// Values generated on the absent branch and stored where the guard reads are stable; so is
    /// the storing call itself when it is a key sink (`entity.setIdempotencyKey(UUID…)`).
    fn generate_once(
        &mut self,
        g: &Guard,
        before: &Env,
        read_before: &HashMap<String, String>,
        absent: &mut Env,
        stores: &[Store],
    ) {
        let mut changed: Vec<String> = absent
            .iter()
            .filter(|(k, v)| before.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .collect();
        changed.sort();
        for k in changed {
            let v = absent[&k].clone();
            let read = read_before.get(&k).cloned();
            let relevant = g.first_attempt
                || g.places.contains(&k)
                || read.as_ref().is_some_and(|r| g.places.contains(r));
            if !relevant {
                continue;
            }
            let fresh: Taint = v
                .iter()
                .filter(|o| matches!(o, Origin::Fresh(_)))
                .cloned()
                .collect();
            let matching: Vec<&Store> = stores
                .iter()
                .filter(|st| {
                    let same_place = st.place == k
                        || read.as_deref() == Some(st.place.as_str())
                        || (g.first_attempt && st.place.contains('@'));
                    same_place && fresh.is_subset(&st.value)
                })
                .collect();
            if matching.is_empty() {
                continue;
            }
            let calls: Vec<Span> = matching.iter().filter_map(|st| st.call).collect();
            let stored_durably = self.is_durable(&k)
                || read.as_ref().is_some_and(|r| self.is_durable(r))
                || (g.first_attempt && matching.iter().any(|st| self.is_durable(&st.place)));
            if stored_durably {
                absent.insert(k.clone(), before.get(&k).cloned().unwrap_or_default());
                self.drop_store_events(&fresh, &calls);
            } else if let Some((owner, _)) = k.split_once('#') {
                // An entity of this attempt: stable only once persisted.
                let first_store = matching.iter().map(|st| st.seq).min().unwrap_or(0);
                if self
                    .persisted
                    .iter()
                    .any(|(o, n)| o == owner && *n > first_store)
                {
                    absent.insert(k.clone(), before.get(&k).cloned().unwrap_or_default());
                    self.drop_store_events(&fresh, &calls);
                    continue;
                }
                self.pending.push(Pending {
                    owner: owner.to_string(),
                    place: k.clone(),
                    fresh,
                    calls,
                });
            }
        }
    }

    fn drop_store_events(&mut self, fresh: &Taint, calls: &[Span]) {
        self.out
            .events
            .retain(|e| !(calls.contains(&e.at) && fresh.contains(&Origin::Fresh(e.source))));
    }

    /// At a normal exit, `this` fields holding per-attempt values are part of the summary.
    fn note_exit_fields(&mut self) {
        let mut found = Vec::new();
        for (k, v) in &self.env {
            if let Some(f) = k.strip_prefix("this.")
                && !f.contains('#')
                && !f.contains('@')
            {
                for o in v {
                    if let Origin::Fresh(i) = o {
                        found.push((f.to_string(), *i));
                    }
                }
            }
        }
        found.sort();
        for (f, i) in found {
            let s = &self.out.sources[i as usize];
            let desc = s.via.clone().unwrap_or_else(|| SourceDesc {
                kind: s.kind,
                label: s.label.clone(),
                loc: Loc {
                    file: self.id.0,
                    span: s.span,
                },
            });
            self.out.summary.field_sources.entry(f).or_insert(desc);
        }
    }

    fn finish_fields(&mut self) {
        self.note_exit_fields();
    }

    /// Key-named parameters and header-annotated parameters of client interfaces are sinks
    /// whatever the body does.
    fn static_param_sinks(&mut self) {
        let m = self.method;
        for (i, p) in m.params.iter().enumerate() {
            let i = i as u16;
            if self.out.summary.param_sinks.contains_key(&i) {
                continue;
            }
            let loc = Loc {
                file: self.id.0,
                span: m.name_span,
            };
            if self.cat.is_key_param(&p.name) {
                self.out.summary.param_sinks.insert(
                    i,
                    SinkRef {
                        loc: loc.clone(),
                        label: format!("parameter `{}` of `{}`", p.name, m.name),
                        at_argument: true,
                    },
                );
                continue;
            }
            if m.modifiers.is_abstract {
                for a in &p.annotations {
                    let t = self.resolve(&a.name);
                    if !self
                        .cat
                        .sinks
                        .headers
                        .annotations
                        .iter()
                        .any(|h| self.project.type_is(&t, h))
                    {
                        continue;
                    }
                    let header = a
                        .args
                        .iter()
                        .find(|(k, _)| {
                            k.is_none() || matches!(k.as_deref(), Some("value" | "name"))
                        })
                        .and_then(|(_, v)| self.project.constant(self.class, v));
                    if header.is_some_and(|h| self.cat.is_idempotency_header(&h)) {
                        self.out.summary.param_sinks.insert(
                            i,
                            SinkRef {
                                loc: loc.clone(),
                                label: format!("header parameter `{}` of `{}`", p.name, m.name),
                                at_argument: true,
                            },
                        );
                    }
                }
            }
        }
    }

    // ---- expressions --------------------------------------------------------------------

    fn fresh(
        &mut self,
        kind: SourceKind,
        span: Span,
        scope: ScopeId,
        label: String,
        via: Option<SourceDesc>,
    ) -> Taint {
        if self.suppress > 0 {
            return Taint::new();
        }
        let i = self.out.sources.len() as u32;
        self.out.sources.push(SourceSite {
            kind,
            span,
            scope,
            label,
            via,
            counter_decl: None,
        });
        [Origin::Fresh(i)].into()
    }

    fn sink(&mut self, t: &Taint, sink: SinkRef, scope: ScopeId, at: Span) {
        for o in t {
            match o {
                Origin::Fresh(i) => self.out.events.push(Event {
                    source: *i,
                    sink: sink.clone(),
                    scope,
                    at,
                }),
                Origin::Param(p) => {
                    self.out
                        .summary
                        .param_sinks
                        .entry(*p)
                        .or_insert_with(|| sink.clone());
                }
                Origin::Field(f) => {
                    self.out
                        .summary
                        .field_sinks
                        .entry(f.clone())
                        .or_insert_with(|| sink.clone());
                }
                Origin::Keyed | Origin::Lock => {}
            }
        }
    }

    /// A call graph edge; RL005 follows it only when it is not under a cluster-wide lock.
    fn edge(&mut self, scope: ScopeId, callee: MethodId) {
        self.out.calls.push((scope, callee));
        if !self.guarded {
            self.out.unguarded_calls.push((scope, callee));
        }
    }

    /// A key sink or a known side effect executes here (for RL004 and RL005).
    fn effect(&mut self, kind: EffectKind, span: Span, label: String, scope: ScopeId) {
        self.out.effects.push(Effect {
            kind,
            span,
            label,
            scope,
            guarded: self.guarded,
        });
    }

    fn read_name(&self, n: &str) -> Taint {
        if let Some(t) = self.env.get(n) {
            return t.clone();
        }
        if self.is_field(n) && !self.is_static_field(n) {
            return self.read_field(n);
        }
        Taint::new()
    }

    fn read_field(&self, n: &str) -> Taint {
        match self.env.get(&format!("this.{n}")) {
            Some(t) => t.clone(),
            None => [Origin::Field(n.to_string())].into(),
        }
    }

    fn assign_place(&mut self, place: String, t: Taint, replace: bool, call: Option<Span>) {
        if place.starts_with("this.") || place.contains('#') || place.contains('@') {
            self.stores.push(Store {
                seq: self.stores.len(),
                place: place.clone(),
                value: t.clone(),
                call,
            });
        }
        if replace {
            self.env.insert(place, t);
        } else {
            union(self.env.entry(place).or_default(), &t);
        }
    }

    fn eval(&mut self, e: &Expr) -> Taint {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Taint::new();
        }
        match e {
            Expr::Call(c) => self.eval_call(c),
            Expr::New(n) => self.eval_new(n),
            Expr::Name(n, _) => self.read_name(n),
            Expr::Field(r, n, _) => match &**r {
                Expr::This(_) => self.read_field(n),
                _ if self.is_type_name(r) => Taint::new(),
                _ => {
                    if let Some(p) = self.place_of(r).map(|p| format!("{p}#{n}"))
                        && let Some(t) = self.env.get(&p)
                    {
                        return t.clone();
                    }
                    self.eval(r)
                }
            },
            Expr::This(_) | Expr::Str(..) | Expr::Lit(..) | Expr::Null(_) | Expr::Opaque(_) => {
                Taint::new()
            }
            Expr::Lambda(l) => self.eval_lambda(l, &Taint::new()),
            Expr::MethodRef(m) => self.eval_method_ref(m),
            Expr::Assign(a) => {
                if is_increment(a)
                    && let Some(place) = self.counter_place(&a.target)
                {
                    self.eval(&a.value);
                    let label = format!("counter `{}`", place.trim_start_matches("this."));
                    let t = self.counter(&place, a.span, label);
                    self.assign_place(place, t.clone(), true, None);
                    return t;
                }
                let v = self.eval(&a.value);
                let replace = a.op == "=";
                match a.target.peel() {
                    Expr::Name(n, _)
                        if self.is_local(n) || self.env.contains_key(n) && !self.is_field(n) =>
                    {
                        if replace {
                            self.note_read(n, Some(&a.value));
                        }
                        self.assign_place(n.clone(), v.clone(), replace, None);
                    }
                    Expr::Name(n, _) if self.is_field(n) => {
                        if !self.is_static_field(n) {
                            self.assign_place(format!("this.{n}"), v.clone(), replace, None);
                        }
                    }
                    Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => {
                        self.assign_place(format!("this.{n}"), v.clone(), replace, None);
                    }
                    Expr::Field(r, n, _) => {
                        if let Some(p) = self.place_of(r) {
                            self.assign_place(format!("{p}#{n}"), v.clone(), replace, None);
                        }
                    }
                    other => {
                        // Array element: the array holds the value.
                        if let Expr::Op(parts, _) = other
                            && let Some(p) = parts.first().and_then(|x| self.place_of(x))
                        {
                            self.assign_place(p, v.clone(), false, None);
                        }
                    }
                }
                v
            }
            Expr::Ternary(c, a, b, _) => {
                self.eval(c);
                let mut t = self.eval(a);
                union(&mut t, &self.eval(b));
                t
            }
            Expr::Binary(b) => {
                let l = self.eval(&b.left);
                let r = self.eval(&b.right);
                let arithmetic = matches!(
                    b.op.as_str(),
                    "+" | "-" | "*" | "/" | "%" | "^" | "|" | "&" | "<<" | ">>" | ">>>"
                );
                if arithmetic || self.keep_cond {
                    let mut t = l;
                    union(&mut t, &r);
                    t
                } else {
                    // Comparisons and logic yield a boolean: a condition is not a data flow.
                    Taint::new()
                }
            }
            Expr::Not(x, _) => {
                let t = self.eval(x);
                if self.keep_cond { t } else { Taint::new() }
            }
            Expr::Cast(_, x, _) => self.eval(x),
            Expr::Op(xs, _) => {
                let mut t = Taint::new();
                for x in xs {
                    union(&mut t, &self.eval(x));
                }
                t
            }
            Expr::Switch(s, arms, _) => {
                self.eval(s);
                self.lambda_rets.push(Taint::new());
                self.arms(arms);
                self.lambda_rets.pop().unwrap_or_default()
            }
        }
    }

    /// Evaluate a lambda where it is created; `seed` is what its parameters receive (the
    /// receiver's value for `promise.flatMap(v -> …)`, `optional.map(k -> …)`).
    fn eval_lambda(&mut self, l: &Lambda, seed: &Taint) -> Taint {
        let scope = &self.method.scopes[l.scope as usize];
        for (n, ty) in &scope.params {
            self.types.insert(n.clone(), ty.clone().unwrap_or_default());
            self.env.insert(n.clone(), seed.clone());
            self.decl_scope.insert(n.clone(), l.scope);
        }
        let outer = std::mem::replace(&mut self.cur_scope, l.scope);
        let t = match &l.body {
            LambdaBody::Expr(e) => self.eval(e),
            LambdaBody::Block(b) => {
                self.lambda_rets.push(Taint::new());
                self.block(b);
                self.lambda_rets.pop().unwrap_or_default()
            }
        };
        self.cur_scope = outer;
        t
    }

    fn eval_anon(&mut self, a: &AnonMethod) -> Taint {
        let scope = &self.method.scopes[a.scope as usize];
        for (n, ty) in &scope.params {
            self.types.insert(n.clone(), ty.clone().unwrap_or_default());
            self.env.insert(n.clone(), Taint::new());
            self.decl_scope.insert(n.clone(), a.scope);
        }
        let outer = std::mem::replace(&mut self.cur_scope, a.scope);
        self.lambda_rets.push(Taint::new());
        self.block(&a.body);
        let t = self.lambda_rets.pop().unwrap_or_default();
        self.cur_scope = outer;
        t
    }

    /// The variable a counter update changes: a local, a field, or the array an element of
    /// which is updated.
    fn counter_place(&self, target: &Expr) -> Option<String> {
        match target.peel() {
            Expr::Name(n, _) if self.is_local(n) => Some(n.clone()),
            Expr::Name(n, _) if self.is_field(n) => Some(format!("this.{n}")),
            Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => Some(format!("this.{n}")),
            Expr::Op(parts, _) if parts.len() == 2 => self.counter_place(&parts[0]),
            _ => None,
        }
    }

    /// `n++`, `n += k`, `n = n + k`, `counter.incrementAndGet()` on a place declared outside
    /// the current scope: a value that differs on every attempt of a region that runs the
    /// increment but not the declaration.
    fn counter(&mut self, place: &str, span: Span, label: String) -> Taint {
        let decl = if place.starts_with("this.") {
            None
        } else {
            Some(self.decl_scope.get(place).copied().unwrap_or(0))
        };
        if decl == Some(self.cur_scope) {
            return Taint::new();
        }
        let t = self.fresh(SourceKind::Attempt, span, self.cur_scope, label, None);
        if let Some(Origin::Fresh(i)) = t.iter().next() {
            self.out.sources[*i as usize].counter_decl = Some(decl);
        }
        t
    }

    /// A method reference is a function: its value carries what calling it returns, so a
    /// supplier such as `UUID::randomUUID` or `keys::create` is per-attempt where it is used.
    fn eval_method_ref(&mut self, m: &MethodRef) -> Taint {
        self.method_ref_edge(m, m.scope);
        // `opt.ifPresent(options::setIdempotencyKey)`: the builder gets a key.
        if self.cat.sinks.methods.names.contains(&m.name)
            && let Some(p) = self.place_of(mutated_root(&m.recv))
        {
            self.env.entry(p).or_default().insert(Origin::Keyed);
        }
        let label = format!(
            "{}::{}",
            m.recv.dotted().unwrap_or_else(|| "this".into()),
            m.name
        );
        let rows = &self.cat.sources.source;
        if self.is_type_name(&m.recv)
            && let Some(d) = m.recv.dotted()
        {
            let t = self.resolve(&d);
            let kind = rows
                .iter()
                .find(|row| {
                    row.classes.iter().any(|k| self.project.type_is(&t, k))
                        && (row.static_methods.iter().any(|x| glob(x, &m.name))
                            || row.instance.iter().any(|x| glob(x, &m.name))
                            || (row.constructor && m.name == "new"))
                })
                .map(|r| r.kind);
            if let Some(kind) = kind {
                return self.fresh(kind, m.span, m.scope, label, None);
            }
        } else if !matches!(m.recv, Expr::This(_))
            && let Some(t) = self.type_of(&m.recv)
        {
            let kind = rows
                .iter()
                .find(|row| {
                    row.instance.iter().any(|x| glob(x, &m.name))
                        && row.classes.iter().any(|k| self.project.type_is(&t, k))
                })
                .map(|r| r.kind);
            if let Some(kind) = kind {
                return self.fresh(kind, m.span, m.scope, label, None);
            }
        }
        let mut out = Taint::new();
        for target in self.method_ref_targets(m) {
            let ret: Vec<SourceDesc> = self.sums[target.0 as usize][target.1 as usize]
                .ret_sources
                .values()
                .cloned()
                .collect();
            for d in ret {
                let l = format!("{label} (which returns {})", d.label);
                let t = self.fresh(d.kind, m.span, m.scope, l, Some(d));
                union(&mut out, &t);
            }
        }
        out
    }

    fn method_ref_edge(&mut self, m: &MethodRef, scope: ScopeId) {
        for target in self.method_ref_targets(m) {
            self.edge(scope, target);
        }
    }

    pub fn method_ref_targets(&self, m: &MethodRef) -> Vec<MethodId> {
        method_ref_targets(
            self.project,
            self.class,
            m,
            |e| self.type_of(e),
            |e| self.is_type_name(e),
        )
    }

    /// The label of a source call as written: `UUID.randomUUID()`, `rnd.nextLong()`.
    fn call_label(&self, c: &Call) -> String {
        match c.recv.as_ref().and_then(|r| r.dotted()) {
            Some(r) => format!("{r}.{}()", c.name),
            None => match &c.recv {
                Some(Expr::Call(inner)) => format!("{}.{}()", self.call_label(inner), c.name),
                Some(Expr::New(n)) => format!("new {}().{}()", n.ty, c.name),
                _ => format!("{}()", c.name),
            },
        }
    }

    fn source_of_call(&self, c: &Call) -> Option<SourceKind> {
        if !self.cat.may_be_source(&c.name) {
            return None;
        }
        let rows = &self.cat.sources.source;
        match &c.recv {
            Some(r) if self.is_type_name(r) => {
                let t = self.resolve(&r.dotted()?);
                rows.iter()
                    .find(|row| {
                        row.static_methods.iter().any(|m| glob(m, &c.name))
                            && row.classes.iter().any(|k| self.project.type_is(&t, k))
                            && args_match(&row.args_any, c)
                    })
                    .map(|r| r.kind)
            }
            Some(r) => {
                let t = self.type_of(r);
                rows.iter()
                    .find(|row| {
                        row.instance.iter().any(|m| glob(m, &c.name))
                            && match &t {
                                Some(t) if t.is_known() => {
                                    row.classes.iter().any(|k| self.project.type_is(t, k))
                                }
                                _ => row.any_receiver,
                            }
                            && args_match(&row.args_any, c)
                    })
                    .map(|r| r.kind)
            }
            None => {
                // A static import, unless a method of the enclosing classes shadows it.
                if !self.project.resolve_call(self.class, c, None).is_empty() {
                    return None;
                }
                let owners = self.project.static_import_class(self.file(), &c.name);
                rows.iter()
                    .find(|row| {
                        row.static_methods.iter().any(|m| glob(m, &c.name))
                            && owners.iter().any(|o| row.classes.iter().any(|k| k == o))
                            && args_match(&row.args_any, c)
                    })
                    .map(|r| r.kind)
            }
        }
    }

    /// A parameter the framework fills in with a per-attempt value (`@Header(DELIVERY_ATTEMPT)`).
    fn parameter_source(&self, p: &Param) -> Option<SourceKind> {
        for row in &self.cat.sources.parameter {
            for a in &p.annotations {
                let t = self.resolve(&a.name);
                if !row.annotations.iter().any(|x| self.project.type_is(&t, x)) {
                    continue;
                }
                let value = a
                    .args
                    .iter()
                    .find(|(k, _)| k.is_none() || matches!(k.as_deref(), Some("value" | "name")));
                if let Some((_, v)) = value {
                    let text = match v.peel() {
                        Expr::Str(s, _) => Some(s.clone()),
                        other => other.dotted(),
                    };
                    if text.is_some_and(|t| {
                        row.values
                            .iter()
                            .any(|w| *w == t || w.ends_with(&format!(".{t}")))
                    }) {
                        return Some(row.kind);
                    }
                }
            }
        }
        None
    }

    fn coarse_call(&self, c: &Call) -> bool {
        let co = &self.cat.sources.coarse;
        if c.recv.as_ref().is_some_and(|r| !self.is_type_name(r)) && co.instance.contains(&c.name) {
            return true;
        }
        if let Some(r) = &c.recv
            && self.is_type_name(r)
            && let Some(d) = r.dotted()
        {
            let t = self.resolve(&d);
            return co
                .static_methods
                .iter()
                .any(|s| s.methods.contains(&c.name) && self.project.type_is(&t, &s.class));
        }
        false
    }

    fn strip_kinds(&self, t: Taint) -> Taint {
        let kinds = &self.cat.sources.coarse.kinds;
        t.into_iter()
            .filter(|o| match o {
                Origin::Fresh(i) => !kinds.contains(&self.out.sources[*i as usize].kind),
                _ => true,
            })
            .collect()
    }

    fn sink_label(&self, c: &Call) -> String {
        format!("{}(…)", c.name)
    }

    fn eval_call(&mut self, c: &Call) -> Taint {
        let mut t = self.eval_call_inner(c);
        if self.is_key_sink_call(c) {
            // The request now carries a key: so do the builder and what it builds.
            t.insert(Origin::Keyed);
            if let Some(p) = c.recv.as_ref().and_then(|r| self.place_of(mutated_root(r))) {
                self.env.entry(p).or_default().insert(Origin::Keyed);
            }
        }
        if self.is_lock_call(c) {
            t.insert(Origin::Lock);
        }
        t
    }

    fn is_key_sink_call(&self, c: &Call) -> bool {
        self.cat.sinks.methods.names.contains(&c.name)
            || (self.cat.sinks.headers.setters.contains(&c.name)
                && c.args.len() >= 2
                && self
                    .project
                    .constant(self.class, &c.args[0])
                    .is_some_and(|h| self.cat.is_idempotency_header(&h)))
    }

    /// Does the call answer whether this instance holds a cluster-wide lock?
    fn is_lock_call(&self, c: &Call) -> bool {
        let locks = &self.cat.guards.cluster_locks;
        if locks.methods.contains(&c.name) {
            // A JVM-local lock (`ReentrantLock`, `Semaphore`, a rate limiter) guards one replica.
            let local = c
                .recv
                .as_ref()
                .and_then(|r| self.type_of(r))
                .is_some_and(|t| {
                    locks
                        .local_types
                        .iter()
                        .any(|x| self.project.type_is(&t, x))
                });
            return !local;
        }
        c.args.iter().any(|a| {
            let text = match a.peel() {
                Expr::Name(n, _) if self.is_local(n) => match self.defs.get(n) {
                    Some((_, init)) => self.project.constant(self.class, init),
                    None => None,
                },
                other => self.project.constant(self.class, other),
            };
            text.is_some_and(|t| is_lock_sql(locks, &t))
        }) || self.callee_locks(c)
    }

    /// A project method whose query annotation takes a lock or claims rows.
    fn callee_locks(&self, c: &Call) -> bool {
        let recv = match &c.recv {
            None | Some(Expr::This(_)) => None,
            Some(r) if self.is_type_name(r) => Some(r.dotted().map(|d| self.resolve(&d))),
            Some(r) => Some(self.type_of(r)),
        };
        let locks = &self.cat.guards.cluster_locks;
        self.project
            .resolve_call(self.class, c, recv)
            .iter()
            .any(|m| {
                self.project.method(*m).annotations.iter().any(|a| {
                    a.args
                        .iter()
                        .any(|(_, v)| matches!(v.peel(), Expr::Str(s, _) if is_lock_sql(locks, s)))
                })
            })
    }

    /// `Optional.ofNullable(place).orElseGet(…)`: the place whose absence the supplier fills.
    fn fallback_place(&self, c: &Call) -> Option<String> {
        if !self.cat.guards.absent_fallbacks.contains(&c.name) {
            return None;
        }
        let Expr::Call(of) = c.recv.as_ref()?.peel() else {
            return None;
        };
        self.place_of(of.args.first()?)
    }

    /// A fallback supplier that stores its fresh value back into the place it stands in for,
    /// durably, is a generate-once guard: its value is stable.
    fn eval_fallback(&mut self, l: &Lambda, place: &str) -> Taint {
        let mark = self.stores.len();
        let persisted = self.persisted.len();
        let t = self.eval_lambda(l, &Taint::new());
        let fresh: Taint = t
            .iter()
            .filter(|o| matches!(o, Origin::Fresh(_)))
            .cloned()
            .collect();
        let stored: Vec<Store> = self.stores[mark..]
            .iter()
            .filter(|st| st.place == place && !fresh.is_empty() && fresh.is_subset(&st.value))
            .cloned()
            .collect();
        let Some(first) = stored.iter().map(|st| st.seq).min() else {
            return t;
        };
        let owner = place.split_once('#').map(|(o, _)| o.to_string());
        let durable = self.is_durable(place)
            || owner.is_some_and(|o| {
                self.persisted[persisted..]
                    .iter()
                    .any(|(p, n)| *p == o && *n > first)
            });
        if !durable {
            return t;
        }
        let calls: Vec<Span> = stored.iter().filter_map(|st| st.call).collect();
        self.drop_store_events(&fresh, &calls);
        t.into_iter().filter(|o| !fresh.contains(o)).collect()
    }

    /// Request options received from the caller (`RequestOptions options` parameter).
    fn is_key_carrier_param(&self, arg: &Expr, t: &Taint) -> bool {
        t.iter().any(|o| matches!(o, Origin::Param(_)))
            && self.type_of(arg).is_some_and(|ty| {
                self.cat
                    .side_effects
                    .key_carriers
                    .iter()
                    .any(|k| self.project.type_is(&ty, k))
            })
    }

    /// A known non-idempotent call (`Charge.create(params)`, `client.refunds().create(…)`).
    fn side_effect_of(&self, c: &Call) -> Option<String> {
        let r = c.recv.as_ref()?;
        let text = format!("{}(…)", self.call_label(c).trim_end_matches("()"));
        for row in &self.cat.side_effects.side_effect {
            let matches_class =
                |t: &TypeRef| row.classes.iter().any(|k| self.project.type_is(t, k));
            let hit = if self.is_type_name(r) {
                row.static_methods.contains(&c.name)
                    && r.dotted().is_some_and(|d| matches_class(&self.resolve(&d)))
            } else if !row.instance.contains(&c.name) {
                false
            } else if !row.services.is_empty() {
                // `client.charges().create(…)`, `client.v1().charges().create(…)`
                match r.peel() {
                    Expr::Call(svc) if row.services.contains(&svc.name) => {
                        let mut root = svc.recv.as_ref();
                        while let Some(Expr::Call(x)) = root.map(|e| e.peel()) {
                            root = x.recv.as_ref();
                        }
                        root.and_then(|x| self.type_of(x))
                            .is_some_and(|t| matches_class(&t))
                    }
                    _ => false,
                }
            } else {
                self.type_of(r).is_some_and(|t| matches_class(&t))
            };
            if hit {
                return Some(format!("{} `{text}`", row.label));
            }
        }
        None
    }

    fn eval_call_inner(&mut self, c: &Call) -> Taint {
        let recv_is_type = c.recv.as_ref().is_some_and(|r| self.is_type_name(r));
        let recv_t = match &c.recv {
            Some(r) if !recv_is_type => self.eval(r),
            _ => Taint::new(),
        };
        // Generate-once maps: the lambda runs only when the key is absent.
        let once_arg = self
            .cat
            .guards
            .compute_once
            .iter()
            .find(|g| g.methods.contains(&c.name))
            .map(|g| g.arg)
            .filter(|_| {
                c.recv
                    .as_ref()
                    .and_then(|r| self.place_of(r))
                    .is_some_and(|p| p.starts_with("this."))
            });
        let mut args = Vec::with_capacity(c.args.len());
        let outer_guard = self.guarded;
        if self.cat.guards.cluster_locks.wrappers.contains(&c.name) {
            self.guarded = true;
        }
        for (i, a) in c.args.iter().enumerate() {
            if once_arg == Some(i) {
                self.suppress += 1;
                self.eval(a);
                self.suppress -= 1;
                args.push(Taint::new());
            } else if let Expr::Lambda(l) = a
                && let Some(place) = self.fallback_place(c)
            {
                args.push(self.eval_fallback(l, &place));
            } else if let Expr::Lambda(l) = a
                && c.recv.is_some()
                && !recv_is_type
            {
                args.push(self.eval_lambda(l, &recv_t));
            } else {
                args.push(self.eval(a));
            }
        }
        self.guarded = outer_guard;

        if self.collect {
            self.regions_at(c);
        }
        if self.cat.sources.counter_methods.contains(&c.name)
            && let Some(place) = c.recv.as_ref().and_then(|r| self.counter_place(r))
        {
            let label = format!("{}.{}()", place.trim_start_matches("this."), c.name);
            return self.counter(&place, c.span, label);
        }
        if let Some(kind) = self.source_of_call(c) {
            let label = self.call_label(c);
            let t = self.fresh(kind, c.span, c.scope, label, None);
            // `rnd.nextBytes(buf)` fills its argument.
            for a in &c.args {
                if let Some(p) = self.place_of(a).filter(|p| self.is_local(p)) {
                    self.assign_place(p, t.clone(), false, None);
                }
            }
            return t;
        }

        // A sink is shown from the method name on: `setIdempotencyKey(key)`, not the whole chain.
        let here = Loc {
            file: self.file(),
            span: Span {
                start: c.name_span.start,
                end: c.span.end,
            },
        };
        if let Some(label) = self.side_effect_of(c) {
            let keyed = recv_t.contains(&Origin::Keyed)
                || args.iter().any(|a| a.contains(&Origin::Keyed))
                || c.args
                    .iter()
                    .zip(&args)
                    .any(|(a, t)| self.is_key_carrier_param(a, t));
            self.effect(EffectKind::SideEffect { keyed }, here.span, label, c.scope);
        }
        // Key sinks by method name, on any receiver.
        if self.cat.sinks.methods.names.contains(&c.name)
            && let Some(t) = args.get(self.cat.sinks.methods.arg)
        {
            let t = t.clone();
            let label = self.sink_label(c);
            self.effect(EffectKind::KeySink, here.span, label.clone(), c.scope);
            self.sink(
                &t,
                SinkRef {
                    loc: here.clone(),
                    label,
                    at_argument: false,
                },
                c.scope,
                c.span,
            );
        }
        // Idempotency headers.
        if self.cat.sinks.headers.setters.contains(&c.name)
            && c.args.len() >= 2
            && let Some(h) = self.project.constant(self.class, &c.args[0])
            && self.cat.is_idempotency_header(&h)
        {
            let t = args[1].clone();
            self.effect(
                EffectKind::KeySink,
                here.span,
                format!("the `{h}` header"),
                c.scope,
            );
            self.sink(
                &t,
                SinkRef {
                    loc: here.clone(),
                    label: format!("the `{h}` header"),
                    at_argument: false,
                },
                c.scope,
                c.span,
            );
        }
        // Durable stores (`ctx.setAttribute("key", v)`).
        for s in &self.cat.guards.store {
            if s.writes.contains(&c.name)
                && let Some(owner) = c.recv.as_ref().and_then(|r| self.place_of(r))
                && let Some(key) = c
                    .args
                    .get(s.key_arg)
                    .and_then(|k| self.project.constant(self.class, k))
                && let Some(v) = args.get(s.value_arg)
            {
                self.assign_place(format!("{owner}@{key}"), v.clone(), true, Some(c.span));
            }
        }
        // Persisting an entity makes its generate-once values durable.
        if self
            .cat
            .guards
            .persist
            .prefixes
            .iter()
            .any(|p| c.name.starts_with(p.as_str()))
        {
            for a in &c.args {
                if let Some(p) = self.place_of(a) {
                    self.persisted.push((p.clone(), self.stores.len()));
                    let done: Vec<(String, Taint, Vec<Span>)> = self
                        .pending
                        .iter()
                        .filter(|x| x.owner == p)
                        .map(|x| (x.place.clone(), x.fresh.clone(), x.calls.clone()))
                        .collect();
                    for (place, t, calls) in done {
                        if let Some(v) = self.env.get_mut(&place) {
                            v.retain(|o| !t.contains(o));
                        }
                        self.drop_store_events(&t, &calls);
                    }
                }
            }
        }
        // Entity properties: a setter stores, a getter reads back what was stored.
        if let (Some(r), Some(prop)) = (&c.recv, property_of(&c.name, "set"))
            && let Some(owner) = self.place_of(r)
            && args.len() == 1
        {
            let place = format!("{owner}#{prop}");
            self.assign_place(place, args[0].clone(), true, Some(c.span));
        }
        if c.args.is_empty()
            && let Some(p) = self.place_of_call(c)
            && let Some(t) = self.env.get(&p)
        {
            return t.clone();
        }

        // Project methods.
        let recv_type = match &c.recv {
            None => None,
            Some(Expr::This(_)) => None,
            Some(r) if recv_is_type => Some(r.dotted().map(|d| self.resolve(&d))),
            Some(r) => Some(self.type_of(r)),
        };
        let on_this = matches!(c.recv, None | Some(Expr::This(_)));
        let targets = self.project.resolve_call(self.class, c, recv_type);
        if !targets.is_empty() {
            let mut result = Taint::new();
            let mut hits_effects: Vec<(Span, String)> = Vec::new();
            for m in &targets {
                self.edge(c.scope, *m);
                if on_this {
                    self.out.self_calls.push(*m);
                }
                let s = &self.sums[m.0 as usize][m.1 as usize];
                let mut hits = Vec::new();
                for (p, sink) in &s.param_sinks {
                    let idx = *p as usize;
                    let callee = self.project.method(*m);
                    let is_vararg =
                        idx + 1 == callee.params.len() && callee.params[idx].ty.ends_with("[]");
                    let mut t = Taint::new();
                    if is_vararg {
                        for a in args.iter().skip(idx) {
                            union(&mut t, a);
                        }
                    } else if let Some(a) = args.get(idx) {
                        t = a.clone();
                    }
                    if sink.at_argument {
                        // A key parameter of a client method: the request goes out here.
                        let key_sink = (here.span, sink.label.clone());
                        hits_effects.push(key_sink);
                    }
                    hits.push((t, self.at_argument(sink, c.args.get(idx).map(|a| a.span()))));
                }
                if s.ret_keyed {
                    result.insert(Origin::Keyed);
                }
                if s.ret_lock {
                    result.insert(Origin::Lock);
                }
                if on_this {
                    for (f, sink) in &s.field_sinks {
                        hits.push((self.read_field(f), sink.clone()));
                    }
                }
                for (t, sink) in hits {
                    self.sink(&t, sink, c.scope, c.span);
                }
                let s = &self.sums[m.0 as usize][m.1 as usize];
                for p in &s.ret_params {
                    if let Some(a) = args.get(*p as usize) {
                        union(&mut result, a);
                    }
                }
                for f in &s.ret_fields {
                    if on_this {
                        union(&mut result, &self.read_field(f));
                    } else {
                        union(&mut result, &recv_t);
                    }
                }
                let ret_sources: Vec<SourceDesc> = s.ret_sources.values().cloned().collect();
                for d in ret_sources {
                    let label = format!("{}() (which returns {})", c.name, d.label);
                    let t = self.fresh(d.kind, c.span, c.scope, label, Some(d));
                    union(&mut result, &t);
                }
                if on_this {
                    let fs: Vec<(String, SourceDesc)> = s
                        .field_sources
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    for (f, d) in fs {
                        let label = format!("{}() (which stores {} in `{f}`)", c.name, d.label);
                        let t = self.fresh(d.kind, c.span, c.scope, label, Some(d));
                        self.env.insert(format!("this.{f}"), t);
                    }
                }
            }
            hits_effects.sort();
            hits_effects.dedup();
            for (span, label) in hits_effects {
                self.effect(EffectKind::KeySink, span, label, c.scope);
            }
            return result;
        }

        if self.coarse_call(c) {
            let mut t = recv_t;
            for a in args {
                union(&mut t, &a);
            }
            return self.strip_kinds(t);
        }
        // An unknown call with a per-attempt argument or receiver returns a per-attempt value;
        // builders and appenders keep what they were given.
        let mut t = recv_t;
        for a in &args {
            union(&mut t, a);
        }
        if let Some(r) = &c.recv
            && is_mutator(&c.name)
            && let Some(p) = self.place_of(mutated_root(r))
            && !p.contains('#')
            && !p.contains('@')
        {
            self.assign_place(p, t.clone(), false, None);
        }
        t
    }

    /// A key parameter is shown at the argument that feeds it, in this method.
    fn at_argument(&self, sink: &SinkRef, arg: Option<Span>) -> SinkRef {
        match arg {
            Some(span) if sink.at_argument => SinkRef {
                loc: Loc {
                    file: self.file(),
                    span,
                },
                label: sink.label.clone(),
                at_argument: false,
            },
            _ => sink.clone(),
        }
    }

    /// After `x = new T(…)`: what each field of `x` holds, from T's constructor summary, so that
    /// `x.getOrderId()` carries only the argument stored in `orderId`.
    fn object_fields(&mut self, local: &str, init: Option<&Expr>) {
        let Some((span, fields)) = self.last_new.take() else {
            return;
        };
        if !matches!(init.map(|e| e.peel()), Some(Expr::New(n)) if n.span == span) {
            return;
        }
        for (f, t) in fields {
            self.env.insert(format!("{local}#{f}"), t);
        }
    }

    /// A constructor's summary: which parameters each field is set from (records: each
    /// component from its own parameter).
    fn constructor_fields(&mut self) {
        let m = self.method;
        if m.body.is_none() {
            for (i, p) in m.params.iter().enumerate() {
                self.out
                    .summary
                    .field_params
                    .entry(p.name.clone())
                    .or_default()
                    .insert(i as u16);
            }
            return;
        }
        let mut found: Vec<(String, BTreeSet<u16>)> = Vec::new();
        for (k, v) in &self.env {
            if let Some(f) = k.strip_prefix("this.")
                && !f.contains('#')
                && !f.contains('@')
                && !v.is_empty()
                && v.iter().all(|o| matches!(o, Origin::Param(_)))
            {
                let ps = v
                    .iter()
                    .filter_map(|o| match o {
                        Origin::Param(p) => Some(*p),
                        _ => None,
                    })
                    .collect();
                found.push((f.to_string(), ps));
            }
        }
        found.sort();
        self.out.summary.field_params.extend(found);
    }

    /// A callback or pipeline region made by this call.
    fn regions_at(&mut self, c: &Call) {
        let cat = self.cat;
        for row in &cat.regions.callback {
            if !row.methods.contains(&c.name) || c.args.len() < row.min_args {
                continue;
            }
            if let Some(w) = &row.when_arg {
                let typed = c
                    .args
                    .get(w.index)
                    .and_then(|a| self.type_of(a))
                    .is_some_and(|t| w.types.iter().any(|x| self.project.type_is(&t, x)));
                if !typed {
                    continue;
                }
            }
            let ok = if row.receiver_types.iter().any(|t| t == "*") {
                true
            } else {
                match &c.recv {
                    None => false,
                    Some(r) => {
                        let t = if self.is_type_name(r) {
                            r.dotted().map(|d| self.resolve(&d))
                        } else {
                            self.type_of(r)
                        };
                        match t {
                            Some(t) if t.is_known() => row
                                .receiver_types
                                .iter()
                                .any(|x| self.project.type_is(&t, x)),
                            _ => {
                                row.receiver_types
                                    .iter()
                                    .any(|x| t.as_ref().is_some_and(|t| self.project.type_is(t, x)))
                                    || row.receiver_name_contains.as_ref().is_some_and(|needle| {
                                        receiver_name(r).to_lowercase().contains(needle.as_str())
                                    })
                            }
                        }
                    }
                }
            };
            let idx = if row.callback_arg < 0 {
                c.args.len() as i32 + row.callback_arg
            } else {
                row.callback_arg
            };
            let Some(arg) = usize::try_from(idx).ok().and_then(|i| c.args.get(i)) else {
                continue;
            };
            if !ok {
                continue;
            }
            let parts = callback_parts(
                self.project,
                self.id,
                arg,
                &row.callback_methods,
                &self.defs,
                &|e| self.type_of(e),
                &|e| self.is_type_name(e),
            );
            if !parts.is_empty() {
                self.out.regions.push(Region {
                    label: row.label.clone(),
                    owner: self.method.name.clone(),
                    loc: Loc {
                        file: self.file(),
                        span: c.name_span,
                    },
                    scheduler: row.scheduler,
                    parts,
                });
            }
        }
        for row in &cat.regions.pipeline {
            let Some(r) = &c.recv else { continue };
            if !row.operators.contains(&c.name) {
                continue;
            }
            let up = Upstream {
                project: self.project,
                cat,
                row,
            };
            let is = up
                .is_pipeline(self.id, &self.defs, r, 0)
                .unwrap_or_else(|| up.file_uses_types(self.file()));
            if !is {
                continue;
            }
            let mut parts = Vec::new();
            up.upstream(self.id, &self.defs, r, 0, &mut parts);
            parts.sort();
            parts.dedup();
            if !parts.is_empty() {
                self.out.regions.push(Region {
                    label: row.label.clone(),
                    owner: self.method.name.clone(),
                    loc: Loc {
                        file: self.file(),
                        span: c.name_span,
                    },
                    scheduler: false,
                    parts,
                });
            }
        }
    }

    fn eval_new(&mut self, n: &New) -> Taint {
        let mut args = Vec::with_capacity(n.args.len());
        for a in &n.args {
            args.push(self.eval(a));
        }
        let mut t = Taint::new();
        for a in &args {
            union(&mut t, a);
        }
        for a in &n.anon {
            let r = self.eval_anon(a);
            union(&mut t, &r);
        }
        let ty = self.resolve(&n.ty);
        let here = Loc {
            file: self.file(),
            span: n.span,
        };
        for row in &self.cat.sources.source {
            if row.constructor
                && n.args.is_empty()
                && row.classes.iter().any(|k| self.project.type_is(&ty, k))
            {
                let label = format!("new {}()", n.ty);
                return self.fresh(row.kind, n.span, n.scope, label, None);
            }
        }
        for row in &self.cat.sinks.constructor {
            if row.classes.iter().any(|k| self.project.type_is(&ty, k))
                && let Some(a) = args.get(row.arg)
            {
                let a = a.clone();
                let label = format!("argument {} of `new {}(…)`", row.arg + 1, n.ty);
                self.effect(EffectKind::KeySink, n.span, label, n.scope);
                t.insert(Origin::Keyed);
                self.sink(
                    &a,
                    SinkRef {
                        loc: here.clone(),
                        label: format!("argument {} of `new {}(…)`", row.arg + 1, n.ty),
                        at_argument: false,
                    },
                    n.scope,
                    n.span,
                );
            }
        }
        if let TypeRef::Project(k) = ty {
            let mut targets = self.project.constructors(k, n.args.len());
            if let Some(init) = self.project.class(k).initializer {
                targets.push((k.0, init as u32));
            }
            for m in targets {
                self.edge(n.scope, m);
                let s = &self.sums[m.0 as usize][m.1 as usize];
                let mut hits = Vec::new();
                for (p, sink) in &s.param_sinks {
                    if let Some(a) = args.get(*p as usize) {
                        hits.push((
                            a.clone(),
                            self.at_argument(sink, n.args.get(*p as usize).map(|a| a.span())),
                        ));
                    }
                }
                let fs: Vec<SourceDesc> = s.field_sources.values().cloned().collect();
                let fields: Vec<(String, Taint)> = s
                    .field_params
                    .iter()
                    .map(|(f, ps)| {
                        let mut t = Taint::new();
                        for p in ps {
                            if let Some(a) = args.get(*p as usize) {
                                union(&mut t, a);
                            }
                        }
                        (f.clone(), t)
                    })
                    .collect();
                if !fields.is_empty() {
                    self.last_new = Some((n.span, fields));
                }
                for (a, sink) in hits {
                    self.sink(&a, sink, n.scope, n.span);
                }
                for d in fs {
                    let label = format!("new {}() (whose fields hold {})", n.ty, d.label);
                    let f = self.fresh(d.kind, n.span, n.scope, label, Some(d));
                    union(&mut t, &f);
                }
            }
        }
        t
    }
}

/// Does SQL text take a cluster-wide lock or claim rows?
fn is_lock_sql(locks: &crate::catalogue::ClusterLocks, sql: &str) -> bool {
    let t = sql.to_lowercase();
    locks.sql.iter().any(|f| t.contains(f.as_str()))
        || locks
            .sql_all
            .iter()
            .any(|all| all.iter().all(|f| t.contains(f.as_str())))
}

/// `n++`, `n--`, `n += k`, `n -= k`, `n = n + k`.
fn is_increment(a: &Assign) -> bool {
    match a.op.as_str() {
        "++" | "--" | "+=" | "-=" => true,
        "=" => matches!(a.value.peel(), Expr::Binary(b)
            if matches!(b.op.as_str(), "+" | "-")
                && matches!((b.left.peel(), a.target.peel()), (Expr::Name(x, _), Expr::Name(y, _)) if x == y)),
        _ => false,
    }
}

/// Is one argument written as one of `wanted` (empty: no condition)?
fn args_match(wanted: &[String], c: &Call) -> bool {
    wanted.is_empty()
        || c.args.iter().any(|a| {
            let text = match a.peel() {
                Expr::Str(s, _) => Some(s.clone()),
                other => other.dotted(),
            };
            text.is_some_and(|t| {
                wanted
                    .iter()
                    .any(|w| *w == t || w.ends_with(&format!(".{t}")))
            })
        })
}

/// Calls that put their arguments into the receiver (`StringBuilder.append`, `List.add`).
fn is_mutator(name: &str) -> bool {
    name.starts_with("append")
        || name.starts_with("add")
        || name.starts_with("put")
        || name == "insert"
}

/// The object a fluent chain of mutators works on: `sb` in `sb.append(a).append(b)`.
fn mutated_root(e: &Expr) -> &Expr {
    let mut cur = e;
    while let Expr::Call(c) = cur.peel() {
        match &c.recv {
            Some(r) if is_mutator(&c.name) => cur = r,
            _ => break,
        }
    }
    cur
}

/// A short name for a receiver: `retryTemplate`, `this.retry`, `template()`.
fn receiver_name(e: &Expr) -> String {
    match e.peel() {
        Expr::Name(n, _) => n.clone(),
        Expr::Field(_, n, _) => n.clone(),
        Expr::Call(c) => c.name.clone(),
        _ => String::new(),
    }
}

/// The project methods a method reference names.
pub fn method_ref_targets(
    project: &Project,
    class: ClassRef,
    m: &MethodRef,
    type_of: impl Fn(&Expr) -> Option<TypeRef>,
    is_type_name: impl Fn(&Expr) -> bool,
) -> Vec<MethodId> {
    let owner = match &m.recv {
        Expr::This(_) => Some(class),
        r if is_type_name(r) => match r
            .dotted()
            .map(|d| project.resolve_type(class.0, Some(class.1 as usize), &d))
        {
            Some(TypeRef::Project(k)) => Some(k),
            _ => None,
        },
        r => match type_of(r) {
            Some(TypeRef::Project(k)) => Some(k),
            _ => None,
        },
    };
    let Some(owner) = owner else {
        return Vec::new();
    };
    let mut chain = vec![owner];
    chain.extend(project.supertypes_of(owner));
    let mut out: Vec<MethodId> = chain
        .iter()
        .flat_map(|k| project.methods_of(*k).iter().copied())
        .filter(|x| project.method(*x).name == m.name)
        .collect();
    out.sort();
    out.dedup();
    out
}
