//! The interpreter's state for one method, and the helpers every part of it uses.

use super::model::{Model, SourceKind, StoreAccess};
use super::place::*;
use super::shapes::Shape;
use super::*;
use crate::java::ir::*;
use crate::semantic::{
    ClassRef, DeclaredSoFar, Defs, LocalTypes, MethodId, Project, TypeRef, Typer, collect_defs,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Analyse one method with the given callee summaries.
pub fn analyze(project: &Project, model: &dyn Model, sums: &Summaries, id: MethodId) -> MethodFlow {
    let method = project.method(id);
    let mut defs = Defs::new();
    if let Some(b) = method.body() {
        collect_defs(b, &mut defs);
        defs.declaring(method);
    }
    let mut cx = Cx {
        project,
        model,
        sums,
        id,
        class: project.class_of(id),
        method,
        env: Env::new(),
        types: LocalTypes::default(),
        hidden: Vec::new(),
        read_place: HashMap::new(),
        first_attempt_vars: BTreeSet::new(),
        stores: Vec::new(),
        awaiting_store: Vec::new(),
        stored_back: Vec::new(),
        pending: Vec::new(),
        persisted: Vec::new(),
        suppress: 0,
        holder_decl: None,
        lambda_rets: Vec::new(),
        ret: Taint::new(),
        out: MethodFlow::default(),
        steps: 0,
        defs,
        cur_scope: 0,
        decl_scope: HashMap::new(),
        shapes: HashMap::new(),
        ret_shape: None,
        ret_unshaped: false,
        builders: HashSet::new(),
        built: HashSet::new(),
        copies: HashMap::new(),
        guarded: false,
        keep_cond: false,
        param_runs: BTreeMap::new(),
        key_writes: Vec::new(),
        returned_calls: Vec::new(),
        unsent_maps: super::unsent::unsent_maps(method),
        keyed_saved: false,
        conds: Vec::new(),
        assigned_params: HashSet::new(),
        saved: Vec::new(),
        saves_made: Vec::new(),
        committed_sources: HashSet::new(),
        checks: Vec::new(),
        reads: HashMap::new(),
        read_locals: HashMap::new(),
        exit_saves: None,
    };
    // A method that retries itself: the parameter its recursive call steps is its counter.
    let recursion = model.recursion_row().and_then(|row| {
        crate::semantic::recursion::retries_itself(method, &|op| model.is_failure_handler(op))
            .map(|r| (row.to_string(), r.counters))
    });
    for (i, p) in method.params.iter().enumerate() {
        let counter = recursion
            .as_ref()
            .filter(|(_, counters)| counters.contains(&i))
            .map(|(row, _)| (SourceKind::Attempt, row.clone()));
        let origin = match counter.or_else(|| cx.parameter_source(p)) {
            Some((kind, row)) => {
                let label = format!("parameter `{}`", p.name);
                cx.fresh(kind, &row, p.span, 0, label, None)
            }
            None => [Origin::Param(i as u16)].into(),
        };
        cx.env.insert(Place::local(&p.name), origin);
        let written = crate::java::ir::written_type(&p.ty, &p.generic);
        cx.types.declare(&p.name, written);
    }
    let mut falls_off = false;
    if let Some(body) = method.body() {
        // Statement by statement, not as a block: what holds at its end is the method's.
        for s in body {
            cx.stmt(s);
        }
        falls_off = !matches!(body.last(), Some(Stmt::Return(..) | Stmt::Throw(_)));
        cx.finish_fields();
    }
    cx.static_param_sinks();
    cx.client_method_sends();
    cx.constructor_fields();
    let ret = std::mem::take(&mut cx.ret);
    for o in &ret {
        match o {
            // A counter local to this method (a loop index) starts again on every call: a
            // caller's region that runs the whole method gets the same values each attempt.
            Origin::Fresh(i)
                if matches!(cx.out.sources[*i as usize].counter_decl, Some(Some(_))) => {}
            Origin::Fresh(i) => {
                let desc = cx.source_desc(*i);
                keep_source(&mut cx.out.summary.ret_sources, desc.kind, desc);
            }
            Origin::Param(p) => {
                cx.out.summary.ret_params.insert(ParamPath::Whole(*p));
            }
            Origin::ParamField(p, f) => {
                cx.out
                    .summary
                    .ret_params
                    .insert(ParamPath::Field(*p, f.clone()));
            }
            Origin::Field(f) => {
                cx.out.summary.ret_fields.insert(f.clone());
            }
            Origin::Keyed => cx.out.summary.ret_keyed = true,
            Origin::Lock => cx.out.summary.ret_lock = true,
            Origin::Container(k) => {
                cx.out.containers[*k as usize].sends.returned = true;
                cx.out.summary.ret_container = true;
            }
        }
    }
    cx.out.summary.ret_shape = cx.ret_shape.take().map(|mut r| {
        r.complete &= !cx.ret_unshaped;
        r
    });
    cx.mark_own_record_keys();
    cx.note_record_summary(falls_off);
    cx.out.summary.guarded_params = cx
        .param_runs
        .iter()
        .filter(|(_, guarded)| **guarded)
        .map(|(p, _)| *p)
        .collect();
    cx.out.truncated = cx.steps > MAX_STEPS;
    cx.out.calls.sort();
    cx.out.calls.dedup();
    cx.out.call_facts.sort();
    cx.out.call_facts.dedup();
    cx.out.unguarded_calls.sort();
    cx.out.unguarded_calls.dedup();
    cx.out
}

#[derive(Clone)]
pub(super) struct Store {
    /// Order of the write among this method's stores.
    pub(super) seq: usize,
    pub(super) place: Place,
    pub(super) value: Taint,
    pub(super) call: Option<Span>,
}

pub(super) struct Pending {
    pub(super) owner: Place,
    pub(super) place: Place,
    pub(super) fresh: Taint,
    pub(super) calls: Vec<Span>,
}

/// A guard on an `if`: which branch runs when the key is absent (or on the first attempt).
pub(super) struct Guard {
    pub(super) places: Vec<Place>,
    pub(super) first_attempt: bool,
    pub(super) absent_in_then: bool,
}

pub(super) struct Cx<'p> {
    pub(super) project: &'p Project,
    pub(super) model: &'p dyn Model,
    pub(super) sums: &'p Summaries,
    pub(super) id: MethodId,
    pub(super) class: ClassRef,
    pub(super) method: &'p Method,
    pub(super) env: Env,
    /// The locals in scope and their declared types.
    pub(super) types: LocalTypes,
    /// The values of locals a declaration hid (a local of an anonymous class's method named as
    /// one of the enclosing method): (where in [`LocalTypes::mark`] order, the local, its value).
    pub(super) hidden: Vec<(usize, Place, Option<Taint>)>,
    /// Local → the durable place its value was read from (`this.key`, `ctx@key`, `order#key`).
    pub(super) read_place: HashMap<String, Place>,
    pub(super) first_attempt_vars: BTreeSet<String>,
    /// Values written to durable places, in order: (place, value, the storing call if any).
    pub(super) stores: Vec<Store>,
    /// Fallbacks for an absent durable place not yet stored back (`k = Optional.ofNullable(
    /// cmd.getKey()).orElseGet(() -> UUID…)`): (the place, the fresh values). Stored into that
    /// place before a sink (`cmd.setKey(k)`), the values are generated once.
    pub(super) awaiting_store: Vec<(Place, Taint)>,
    /// Such fallbacks once stored back, with the storing call: a key sink that call reaches
    /// (`cmd.setIdempotencyKey(k)`) writes the stored key.
    pub(super) stored_back: Vec<(Taint, Span)>,
    /// Generate-once values stored on a local entity, stable once the entity is persisted.
    pub(super) pending: Vec<Pending>,
    /// Entities persisted so far: (entity local, number of stores made before).
    pub(super) persisted: Vec<(Place, usize)>,
    /// >0 while evaluating a lambda that runs only when a key is absent.
    pub(super) suppress: u32,
    /// Evaluating the generate-once argument of a holder declared in this scope.
    pub(super) holder_decl: Option<ScopeId>,
    pub(super) lambda_rets: Vec<Taint>,
    pub(super) ret: Taint,
    pub(super) out: MethodFlow,
    /// Work counter: bounds the cost of one method whatever its shape.
    pub(super) steps: u32,
    pub(super) defs: Defs<'p>,
    /// The lambda, anonymous-method or loop scope being interpreted.
    pub(super) cur_scope: ScopeId,
    /// Scope each local is declared in, for counters declared outside a region.
    pub(super) decl_scope: HashMap<String, ScopeId>,
    /// Inside code that runs only when a cluster-wide lock is held.
    pub(super) guarded: bool,
    /// Evaluating an `if` condition: keep what comparisons and negations are made of.
    pub(super) keep_cond: bool,
    /// The fields of objects built by expressions evaluated so far (`new T(…)`, builder
    /// chains, `Map.of(…)`), by the expression's span.
    pub(super) shapes: HashMap<Span, Shape>,
    /// The fields of the returned object, joined over the `return` statements.
    pub(super) ret_shape: Option<RetShape>,
    /// Some `return` gives an object whose fields are not known.
    pub(super) ret_unshaped: bool,
    /// Locals that hold a builder.
    pub(super) builders: HashSet<String>,
    /// Locals holding an object a builder chain made here, whose every written field is in the
    /// environment: a field it does not list was never set.
    pub(super) built: HashSet<String>,
    /// Locals holding a copy of another object (`request.toBuilder()…build()`, a Lombok
    /// `withX(…)`): the place of the original, whose fields the copy keeps unless it set them.
    pub(super) copies: HashMap<String, Place>,
    /// Parameters called as functions (`handler.accept(…)`), and whether every such call ran
    /// under a cluster-wide guard.
    pub(super) param_runs: BTreeMap<u16, bool>,
    /// Key sinks met in this method (the index of their effect), the value written there, and
    /// whether the write is part of the expression the method returns.
    pub(super) key_writes: Vec<(usize, Taint, bool)>,
    /// The calls whose value a `return` of the method itself (not of a lambda) being evaluated
    /// returns: the call it returns and its receivers (a builder chain), in every arm of a
    /// ternary — not their arguments.
    pub(super) returned_calls: Vec<Span>,
    /// Locals holding a map made in this method that never leaves it (filled and logged
    /// only): an entry under a key name there reaches no request.
    pub(super) unsent_maps: HashSet<String>,
    /// A value that went through a key sink is saved (`repository.save(record)`).
    pub(super) keyed_saved: bool,
    /// The tests on parameters that the code being interpreted runs under (see `conds`).
    pub(super) conds: Vec<super::conds::Cond>,
    /// Parameters assigned somewhere seen so far: a test on them no longer tests the argument.
    pub(super) assigned_params: HashSet<String>,
    /// Records saved so far on every path to here, committed (the store, and whether apart
    /// from any caller's transaction); scoped like the blocks they are saved in.
    pub(super) saved: Vec<(String, bool)>,
    /// Every save made so far, on any path (the store, and whether apart from any caller's
    /// transaction): what a find-or-create supplier saved, whichever path returned.
    pub(super) saves_made: Vec<(String, bool)>,
    /// Sources saved as a record in this method's own transaction (find-or-create), committed
    /// when it returns (see [`SourceDesc::committed`]).
    pub(super) committed_sources: HashSet<u32>,
    /// Checks of the application's own store that ended the attempt when it held a record
    /// (`if (repo.existsByMessageId(id)) return;`), on every path to here; scoped by block.
    pub(super) checks: Vec<super::records::ActiveCheck>,
    /// Storage reads (and calls of project checks) by their span: what they look up by.
    pub(super) reads: HashMap<Span, super::records::Lookup>,
    /// Locals holding the result of a storage read (`Optional<T> seen = repo.findBy…(…)`).
    pub(super) read_locals: HashMap<String, Span>,
    /// Records saved on every `return` seen so far (`None`: no return yet).
    pub(super) exit_saves: Option<BTreeMap<String, bool>>,
}

/// Steps (statements and expressions interpreted) one method may take: a pathological method is
/// analysed in part, deterministically, and reported.
pub const MAX_STEPS: u32 = 200_000;

impl<'p> Cx<'p> {
    pub(super) fn file(&self) -> u32 {
        self.id.0
    }

    pub(super) fn is_local(&self, n: &str) -> bool {
        self.types.contains(n)
    }

    /// Declares a local until the block it is declared in ends ([`Self::end_scope`]).
    pub(super) fn declare(&mut self, name: &str, ty: &str) {
        if self.types.contains(name) {
            let place = Place::local(name);
            let value = self.env.get(&place).cloned();
            self.hidden.push((self.types.mark(), place, value));
        }
        self.types.declare(name, ty);
    }

    /// A block ends at `mark` (a [`LocalTypes::mark`]): its locals go out of scope, and a local
    /// one of them hid has its value back. What they held stays in the environment, unread: a
    /// name is a local only while it is declared.
    pub(super) fn end_scope(&mut self, mark: usize) {
        self.types.unwind(mark);
        while self.hidden.last().is_some_and(|(at, ..)| *at >= mark) {
            let Some((_, place, value)) = self.hidden.pop() else {
                break;
            };
            match value {
                Some(v) => self.env.insert(place, v),
                None => self.env.remove(&place),
            };
        }
    }

    pub(super) fn is_field(&self, n: &str) -> bool {
        !self.is_local(n) && self.project.field(self.class, n).is_some()
    }

    pub(super) fn is_static_field(&self, n: &str) -> bool {
        self.project
            .field(self.class, n)
            .is_some_and(|(_, f)| f.modifiers.is_static)
    }

    /// The one typer, with the locals declared so far.
    pub(super) fn with_typer<R>(
        &self,
        f: impl FnOnce(&Typer<'_, '_, DeclaredSoFar<'_, '_>>) -> R,
    ) -> R {
        let locals = DeclaredSoFar {
            types: self.types.map(),
            defs: &self.defs,
        };
        f(&Typer {
            project: self.project,
            factories: self.model,
            class: self.class,
            locals: &locals,
        })
    }

    /// A name that is neither a local, a parameter nor a field: a type (or package) name.
    pub(super) fn is_type_name(&self, e: &Expr) -> bool {
        self.with_typer(|t| t.is_type_name(e))
    }

    pub(super) fn resolve(&self, written: &str) -> TypeRef {
        self.with_typer(|t| t.resolve(written))
    }

    pub(super) fn type_of(&self, e: &Expr) -> Option<TypeRef> {
        self.with_typer(|t| t.type_of(e))
    }

    /// The receiver type a call on `recv` is resolved with.
    pub(super) fn receiver_type(&self, recv: Option<&Expr>) -> Option<Option<TypeRef>> {
        self.with_typer(|t| t.receiver_type(recv))
    }

    /// The environment key of an expression that names a place, if it does.
    pub(super) fn place_of(&self, e: &Expr) -> Option<Place> {
        match e.peel() {
            Expr::Name(n, _)
                if self.is_local(n)
                    || self.env.contains_key(&Place::local(n)) && !self.is_field(n) =>
            {
                Some(Place::local(n))
            }
            Expr::Name(n, _) if self.is_field(n) && !self.is_static_field(n) => {
                Some(Place::this(n))
            }
            Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => Some(Place::this(n)),
            Expr::Call(c) => self.place_of_call(c),
            Expr::Op(..) => self.element_place(e),
            _ => None,
        }
    }

    /// An element of a local array at a literal index (`key[0]`, the holder a lambda fills):
    /// a place of its own.
    pub(super) fn element_place(&self, e: &Expr) -> Option<Place> {
        let Expr::Op(parts, _) = e.peel() else {
            return None;
        };
        let [Expr::Name(a, _), Expr::Lit(i, _)] = parts.as_slice() else {
            return None;
        };
        if !self.is_local(a)
            || !self
                .types
                .get(a.as_str())
                .is_some_and(|t| t.ends_with("[]"))
        {
            return None;
        }
        Some(Place::prop(Place::local(a), &format!("[{i}]")))
    }

    pub(super) fn place_of_call(&self, c: &Call) -> Option<Place> {
        let recv = c.recv.as_ref()?;
        let owner = self.place_of(recv)?;
        if let Some(p) = property_of(&c.name, "get").or_else(|| property_of(&c.name, "is"))
            && c.args.is_empty()
        {
            return Some(Place::prop(owner, &p));
        }
        // A record accessor: `cmd.orderId()`.
        if c.args.is_empty() {
            let p = Place::prop(owner.clone(), &c.name);
            if self.env.contains_key(&p) {
                return Some(p);
            }
        }
        match self.model.store(&c.name, &|t| self.receiver_may_be(c, t)) {
            // `template.headers()`: the property holding the entries.
            Some(StoreAccess::Read {
                property: Some(p), ..
            }) if c.args.is_empty() => Some(Place::prop(owner, &p)),
            Some(StoreAccess::Read { key_arg, property }) => {
                let key = self.store_key(c, key_arg)?;
                let owner = match property {
                    Some(p) => Place::prop(owner, &p),
                    None => owner,
                };
                Some(Place::entry(owner, &key))
            }
            _ => None,
        }
    }

    /// May the receiver of call `c` be of `class`? Yes when its type cannot be told (a lambda's
    /// parameter).
    pub(super) fn receiver_may_be(&self, c: &Call, class: &str) -> bool {
        match c.recv.as_ref().and_then(|r| self.type_of(r)) {
            Some(t) if t.is_known() => self.project.type_is(&t, class),
            _ => true,
        }
    }

    /// The entry a store call names: the constant at `key_arg`, or the holder's one slot.
    pub(super) fn store_key(&self, c: &Call, key_arg: Option<usize>) -> Option<String> {
        match key_arg {
            Some(i) => c
                .args
                .get(i)
                .and_then(|k| self.project.constant(self.class, k)),
            None => Some(String::new()),
        }
    }

    /// Does a value stored at `place` outlive the attempt?
    pub(super) fn is_durable(&self, place: &Place) -> bool {
        if place.on_this() || place.has_entry() {
            return true;
        }
        // A parameter entity is held by the caller across attempts.
        place
            .prop_owner()
            .and_then(Place::as_local)
            .is_some_and(|owner| self.method.params.iter().any(|p| p.name == owner))
    }

    /// Is the place rooted at a parameter of the method or of one of its lambdas (an object
    /// the caller hands over)?
    pub(super) fn rooted_in_param(&self, place: &Place) -> bool {
        match place.root() {
            Place::Local(n) => {
                self.method.params.iter().any(|p| p.name == *n)
                    || self
                        .method
                        .scopes
                        .iter()
                        .any(|s| s.params.iter().any(|(p, _)| p == n))
            }
            _ => false,
        }
    }

    /// A per-attempt value evaluated here. `row`: the model's row for a source evaluated here
    /// (empty for one the engine knows itself, or a callee's, which `via` carries).
    pub(super) fn fresh(
        &mut self,
        kind: SourceKind,
        row: &str,
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
            row: row.to_string(),
            span,
            scope,
            label,
            via,
            counter_decl: None,
            holder_decl: self.holder_decl,
            param_held: false,
            when: self.cur_conds(),
        });
        [Origin::Fresh(i)].into()
    }

    pub(super) fn sink(&mut self, t: &Taint, mut sink: SinkRef, scope: ScopeId, at: Span) {
        sink.when = self.cur_conds();
        // Records this method saved before the sink (before the call that reaches it).
        for (k, apart) in &self.saved {
            let into = sink.after_saves.entry(k.clone()).or_insert(*apart);
            *into |= *apart;
        }
        let recorded = self.record_guard(&sink);
        // A parameter or field reaching sinks under different conditions reaches one under
        // either: the recorded sink becomes unconditional.
        fn record<K: Ord>(into: &mut BTreeMap<K, SinkRef>, k: K, sink: &SinkRef) {
            match into.get_mut(&k) {
                Some(old) => {
                    if old.when != sink.when {
                        old.when.clear();
                    }
                    old.after_saves = super::records::meet(&old.after_saves, &sink.after_saves);
                }
                None => {
                    into.insert(k, sink.clone());
                }
            }
        }
        for o in t {
            match o {
                Origin::Fresh(i)
                    if self
                        .stored_back
                        .iter()
                        .any(|(fresh, c)| fresh.contains(&Origin::Fresh(*i)) && within(at, *c)) => {
                }
                Origin::Fresh(i) => self.out.events.push(Event {
                    source: *i,
                    sink: sink.clone(),
                    scope,
                    at,
                    when: sink.when.clone(),
                    recorded: recorded.clone(),
                }),
                Origin::Param(p) => {
                    record(
                        &mut self.out.summary.param_sinks,
                        ParamPath::Whole(*p),
                        &sink,
                    );
                }
                Origin::ParamField(p, f) => {
                    record(
                        &mut self.out.summary.param_sinks,
                        ParamPath::Field(*p, f.clone()),
                        &sink,
                    );
                }
                Origin::Field(f) => {
                    record(&mut self.out.summary.field_sinks, f.clone(), &sink);
                }
                Origin::Keyed | Origin::Lock | Origin::Container(_) => {}
            }
        }
    }

    /// A call graph edge; RL005 follows it only when it is not under a cluster-wide lock.
    pub(super) fn edge(&mut self, scope: ScopeId, callee: MethodId) {
        self.edge_with(scope, callee, Vec::new());
    }

    /// A call graph edge, with what the call's arguments are known to be.
    pub(super) fn edge_with(&mut self, scope: ScopeId, callee: MethodId, facts: Vec<Fact>) {
        self.out.call_facts.push((callee, facts));
        self.out.calls.push((scope, callee));
        if !self.guarded {
            self.out.unguarded_calls.push((scope, callee));
        }
    }

    /// A key sink or a known side effect executes here (for RL004 and RL005).
    pub(super) fn effect(
        &mut self,
        kind: EffectKind,
        span: Span,
        label: String,
        row: String,
        scope: ScopeId,
        own_key: bool,
    ) {
        self.out.effects.push(Effect {
            kind,
            span,
            label,
            row,
            scope,
            guarded: self.guarded,
            own_key,
            handed_back: false,
            when: Vec::new(),
        });
    }

    pub(super) fn read_name(&self, n: &str) -> Taint {
        if let Some(t) = self.env.get(&Place::local(n)) {
            return t.clone();
        }
        if self.is_field(n) && !self.is_static_field(n) {
            return self.read_field(n);
        }
        Taint::new()
    }

    pub(super) fn read_field(&self, n: &str) -> Taint {
        let mut t = match self.env.get(&Place::this(n)) {
            Some(t) => t.clone(),
            None => [Origin::Field(n.to_string())].into(),
        };
        self.leader_flag_origin(n, &mut t);
        t
    }

    pub(super) fn assign_place(
        &mut self,
        place: Place,
        t: Taint,
        replace: bool,
        call: Option<Span>,
    ) {
        let (place, replace) = bounded(place, replace);
        if !matches!(place, Place::Local(_)) {
            self.stores.push(Store {
                seq: self.stores.len(),
                place: place.clone(),
                value: t.clone(),
                call,
            });
            self.store_back(&place, &t, call);
        }
        if replace {
            self.env.insert(place, t);
        } else {
            union(self.env.entry(place).or_default(), &t);
        }
    }
}

impl Cx<'_> {
    /// A fallback stored back into the place it fills, after the fallback (SPEC 7.4: the sink
    /// may read the local that was stored into the place): from here on its fresh values are
    /// the stored key, the same on every attempt. Sinks reached before the store keep them.
    fn store_back(&mut self, place: &Place, t: &Taint, call: Option<Span>) {
        let Some(i) = self
            .awaiting_store
            .iter()
            .position(|(p, fresh)| p == place && fresh.is_subset(t))
        else {
            return;
        };
        let (_, fresh) = self.awaiting_store.remove(i);
        for v in self.env.values_mut() {
            v.retain(|o| !fresh.contains(o));
        }
        // The store itself may be a key sink (`cmd.setIdempotencyKey(k)`), shown at the call or
        // at its argument: it writes the stored key.
        if let Some(c) = call {
            self.out
                .events
                .retain(|e| !(fresh.contains(&Origin::Fresh(e.source)) && within(e.at, c)));
            self.stored_back.push((fresh, c));
        }
    }
}

/// Does span `inner` lie within `outer`?
fn within(inner: Span, outer: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// A write below the tracked depth goes, as a part, into its ancestor at that depth.
fn bounded(mut place: Place, replace: bool) -> (Place, bool) {
    if place.depth() <= super::shapes::MAX_FIELD_DEPTH {
        return (place, replace);
    }
    while place.depth() > super::shapes::MAX_FIELD_DEPTH {
        place = match place {
            Place::Prop(o, _) | Place::Entry(o, _) | Place::Key(o, _) => *o,
            other => other,
        };
    }
    (place, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_below_the_depth_bound_joins_its_ancestor() {
        let mut p = Place::local("o");
        for f in ["a", "b", "c", "d", "e"] {
            p = Place::prop(p, f);
        }
        let (q, replace) = bounded(p, true);
        assert_eq!(q.to_string(), "o#a#b#c");
        assert!(!replace);
        let shallow = Place::prop(Place::local("o"), "a");
        assert_eq!(bounded(shallow.clone(), true), (shallow, true));
    }
}
