//! Generate-once guards: a value generated only when the key is absent, and stored where the guard reads, is stable.

use super::ScopeId;
use super::cx::*;
use super::model::Check;
use super::place::*;
use crate::java::ir::*;
use std::collections::HashMap;

/// What an absent fallback's supplier may guard ([`Cx::absent_supplier`]).
pub(super) enum Supplier {
    /// The place it stands in for.
    Fills(Place),
    /// The stores the lookup read, where it must save the record it creates.
    Creates(std::collections::BTreeSet<String>),
}

impl Cx<'_> {
    /// Remember where a local's value was read from, for generate-once guards.
    pub(super) fn note_read(&mut self, name: &str, init: Option<&Expr>) {
        self.read_place.remove(name);
        self.first_attempt_vars.remove(name);
        let Some(e) = init else { return };
        if let Some(p) = self.place_of(e)
            && (self.is_durable(&p) || self.outer_holder(&p).is_some())
        {
            self.read_place.insert(name.to_string(), p);
        }
        if let Expr::Call(c) = e.peel()
            && self.model.check(&c.name) == Some(Check::FirstAttempt)
        {
            self.first_attempt_vars.insert(name.to_string());
        }
    }

    pub(super) fn guard_of(&self, cond: &Expr) -> Option<Guard> {
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
                    Expr::Call(c) => self.model.check(&c.name) == Some(Check::FirstAttempt),
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
                let check = self.model.check(&c.name);
                let absent = check == Some(Check::Absent);
                let present = check == Some(Check::Present);
                if !absent && !present {
                    return self.predicate_guard(c);
                }
                // `x.isEmpty()` or `StringUtils.isEmpty(x)`
                let target = match (&c.recv, c.args.first()) {
                    (Some(r), Some(a)) if self.is_type_name(r) => a,
                    (Some(r), _) => r,
                    (None, Some(a)) => a,
                    _ => return None,
                };
                let mut places: Vec<Place> = self.place_of(target).into_iter().collect();
                // `saved.isPresent()` on a local read from a durable place
                // (`Optional<String> saved = ctx.getHeartbeatDetails(String.class)`): that place.
                if let Expr::Name(n, _) = target.peel()
                    && let Some(p) = self.read_place.get(n)
                {
                    places.push(p.clone());
                }
                // `headers.containsKey("Idempotency-Key")`: that entry of the map, too.
                if let (Some(m), Some(r), Some(k)) = (places.first(), &c.recv, c.args.first())
                    && !self.is_type_name(r)
                    && let Some(key) = self.project.constant(self.class, k)
                {
                    places.push(Place::entry(m.clone(), &key));
                }
                Some(Guard {
                    places,
                    first_attempt: false,
                    absent_in_then: absent,
                })
            }
            _ => None,
        }
    }

    /// A project predicate on this class (`if (!hasIdempotencyKey(template))` with `boolean
    /// hasIdempotencyKey(RequestTemplate t) { return t.headers().containsKey("Idempotency-Key"); }`):
    /// the guard its one `return` expression is, written with the caller's arguments.
    fn predicate_guard(&self, c: &Call) -> Option<Guard> {
        if c.recv
            .as_ref()
            .is_some_and(|r| !matches!(r.peel(), Expr::This(_)))
        {
            return None;
        }
        let targets = self.project.resolve_call(self.class, c, None);
        let [m] = targets.as_slice() else {
            return None;
        };
        let callee = self.project.method(*m);
        let body = callee.body()?;
        let [Stmt::Return(Some(e), _)] = body.as_slice() else {
            return None;
        };
        if callee.params.len() != c.args.len() {
            return None;
        }
        let with: HashMap<&str, &Expr> = callee
            .params
            .iter()
            .map(|p| p.name.as_str())
            .zip(c.args.iter())
            .collect();
        let inlined = substitute(e, &with, 0)?;
        self.guard_of(&inlined)
    }

    /// Values generated on the absent branch and stored where the guard reads are stable; so is
    /// the storing call itself when it is a key sink (`entity.setIdempotencyKey(UUID…)`).
    pub(super) fn generate_once(
        &mut self,
        g: &Guard,
        before: &Env,
        read_before: &HashMap<String, Place>,
        absent: &mut Env,
        stores: &[Store],
    ) {
        let mut changed: Vec<Place> = absent
            .iter()
            .filter(|(k, v)| before.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .collect();
        changed.sort();
        for k in changed {
            let v = absent[&k].clone();
            let read = k.as_local().and_then(|n| read_before.get(n)).cloned();
            let fresh: Taint = v
                .iter()
                .filter(|o| matches!(o, Origin::Fresh(_)))
                .cloned()
                .collect();
            // `k = UUID…; this.setKey(k);` with `k = this.key` on the other branch: the local
            // that was stored into the guarded place holds the same value as the place.
            let into_guard = |st: &Store| {
                g.places.contains(&st.place) && !fresh.is_empty() && fresh.is_subset(&st.value)
            };
            let stored_local = k.as_local().is_some() && stores.iter().any(into_guard);
            let relevant = g.first_attempt
                || g.places.contains(&k)
                || read.as_ref().is_some_and(|r| g.places.contains(r))
                || stored_local;
            if !relevant {
                continue;
            }
            let matching: Vec<&Store> = stores
                .iter()
                .filter(|st| {
                    let same_place = st.place == k
                        || read.as_ref() == Some(&st.place)
                        || (g.first_attempt && st.place.has_entry())
                        || (stored_local && g.places.contains(&st.place));
                    same_place && fresh.is_subset(&st.value)
                })
                .collect();
            if matching.is_empty() {
                continue;
            }
            let calls: Vec<Span> = matching.iter().filter_map(|st| st.call).collect();
            let stored_durably = self.is_durable(&k)
                || read.as_ref().is_some_and(|r| self.is_durable(r))
                || ((g.first_attempt || stored_local)
                    && matching.iter().any(|st| self.is_durable(&st.place)));
            let owner = k.prop_owner().cloned().or_else(|| {
                matching
                    .iter()
                    .find_map(|st| st.place.prop_owner())
                    .filter(|_| stored_local)
                    .cloned()
            });
            // A holder the method declared around the code that fills it (`String[] key = new
            // String[1]` or an `AtomicReference` made before a `RetryTemplate` callback): the
            // value is made once per holder, so per-attempt only for a region that makes the
            // holder anew (see `reach::covers`).
            let outer = (!stored_durably)
                .then(|| {
                    std::iter::once(&k)
                        .chain(read.as_ref())
                        .chain(matching.iter().map(|st| &st.place))
                        .find_map(|p| self.outer_holder(p))
                })
                .flatten();
            if let Some(d) = outer {
                let held = self.held_in(&fresh, d);
                for v in absent.values_mut() {
                    if v.iter().any(|o| fresh.contains(o)) {
                        v.retain(|o| !fresh.contains(o));
                        union(v, &held);
                    }
                }
                continue;
            }
            if stored_durably {
                absent.insert(k.clone(), before.get(&k).cloned().unwrap_or_default());
                // Into an object the caller hands over: stable only where the caller hands the
                // same object to every attempt.
                let places = std::iter::once(&k)
                    .chain(read.as_ref())
                    .chain(matching.iter().map(|st| &st.place));
                let handed = places
                    .filter(|p| self.is_durable(p))
                    .all(|p| self.rooted_in_param(p));
                if handed {
                    self.hold_per_param(&fresh, &calls);
                } else {
                    self.drop_store_events(&fresh, &calls);
                }
            } else if let Some(owner) = owner {
                // An entity of this attempt: stable only once persisted.
                let first_store = matching.iter().map(|st| st.seq).min().unwrap_or(0);
                if self
                    .persisted
                    .iter()
                    .any(|(o, n)| *o == owner && *n > first_store)
                {
                    absent.insert(k.clone(), before.get(&k).cloned().unwrap_or_default());
                    self.drop_store_events(&fresh, &calls);
                    continue;
                }
                self.pending.push(Pending {
                    owner,
                    place: k.clone(),
                    fresh,
                    calls,
                });
            }
        }
    }

    /// The scope that declares the local a place is rooted at, when it encloses the current
    /// scope without being it: a holder made before the code that runs now (a lambda, a loop
    /// body), which keeps what that code stores across its runs. Parameters are not holders
    /// of this kind (a parameter object is durable, see `is_durable`).
    pub(super) fn outer_holder(&self, place: &Place) -> Option<ScopeId> {
        let Place::Local(n) = place.root() else {
            return None;
        };
        if self.method.params.iter().any(|p| p.name == *n) {
            return None;
        }
        let d = *self.decl_scope.get(n.as_str())?;
        if d == self.cur_scope {
            return None;
        }
        self.method.scope_within(self.cur_scope, &[d]).then_some(d)
    }

    /// Copies of the sources in `fresh`, each generated once per holder declared in scope `d`.
    fn held_in(&mut self, fresh: &Taint, d: ScopeId) -> Taint {
        let mut out = Taint::new();
        for o in fresh {
            let Origin::Fresh(i) = o else { continue };
            let mut site = self.out.sources[*i as usize].clone();
            site.holder_decl = Some(d);
            let j = self.out.sources.len() as u32;
            self.out.sources.push(site);
            out.insert(Origin::Fresh(j));
        }
        out
    }

    /// The sources of the events `drop_store_events` would drop are generated once per object
    /// the method is handed (its events are kept for the regions that hand a new one).
    pub(super) fn hold_per_param(&mut self, fresh: &Taint, calls: &[Span]) {
        let held: Vec<u32> = self
            .out
            .events
            .iter()
            .filter(|e| calls.contains(&e.at) && fresh.contains(&Origin::Fresh(e.source)))
            .map(|e| e.source)
            .collect();
        for i in held {
            self.out.sources[i as usize].param_held = true;
        }
    }

    pub(super) fn drop_store_events(&mut self, fresh: &Taint, calls: &[Span]) {
        self.out
            .events
            .retain(|e| !(calls.contains(&e.at) && fresh.contains(&Origin::Fresh(e.source))));
    }

    /// `Optional.ofNullable(place).orElseGet(…)`: the place whose absence the supplier fills.
    fn fallback_place(&self, c: &Call) -> Option<Place> {
        let recv = match c.recv.as_ref()?.peel() {
            // The Optional held in a local (`Optional<String> saved = ctx.getHeartbeatDetails(…)`).
            Expr::Name(n, _) if self.is_local(n) => self.defs.get(n)?.1,
            r => r,
        };
        let Expr::Call(of) = recv.peel() else {
            return None;
        };
        // `store.read(…).orElseGet(…)`: the Optional of a durable read.
        if let Some(p) = self.place_of_call(of) {
            return Some(p);
        }
        self.place_of(of.args.first()?)
    }

    /// What the supplier of an absent fallback (`orElseGet(…)`) may guard: a durable place it
    /// fills ([`Self::eval_fallback`]), else, on a read of the own store by values the same on
    /// every attempt, the record it creates ([`Self::eval_create`]), else any place it fills.
    pub(super) fn absent_supplier(&self, c: &Call) -> Option<Supplier> {
        if !self.model.is_absent_fallback(&c.name) {
            return None;
        }
        let place = self.fallback_place(c);
        if let Some(p) = place.as_ref().filter(|p| self.is_durable(p)) {
            return Some(Supplier::Fills(p.clone()));
        }
        // The read itself, or a local holding it (`Optional<T> existing = repo.findBy…(…)`).
        let created = c.recv.as_ref().and_then(|r| self.lookup_of(r));
        if let Some(l) = created.filter(|l| !l.fresh && !l.check) {
            return Some(Supplier::Creates(l.stores.clone()));
        }
        place.map(Supplier::Fills)
    }

    /// Find-or-create (SPEC 7.4, an entity saved before the sink): a supplier that makes the
    /// missing record with fresh values and saves it, committed, to the store the lookup read
    /// generates them once — a later attempt finds the record and reads its stored values. Its
    /// fresh values are stable, and the sinks they reached inside it (the key parameter of the
    /// entity's constructor) are not events. A save that rolls back with a failed attempt (a
    /// transaction of this method around it) guards nothing.
    pub(super) fn eval_create(
        &mut self,
        l: &Lambda,
        stores: &std::collections::BTreeSet<String>,
    ) -> Taint {
        let saved = self.saves_made.len();
        let events = self.out.events.len();
        let (t, fresh) = self.eval_supplier(l);
        let in_tx = self.transaction_of(self.id).is_some_and(|t| t.inside);
        let made = &self.saves_made[saved..];
        let created = made
            .iter()
            .any(|(k, apart)| stores.contains(k) && (*apart || !in_tx));
        let in_own = made.iter().any(|(k, _)| stores.contains(k));
        if fresh.is_empty() || !in_own {
            return t;
        }
        // The record's own key column is where the guard keeps the key, whichever transaction
        // saves it; other sinks the supplier reaches go only when the save outlives the attempt.
        let mut i = 0;
        self.out.events.retain(|e| {
            i += 1;
            i <= events
                || !fresh.contains(&Origin::Fresh(e.source))
                || (!created && !e.sink.row_write)
        });
        if !created {
            // Saved in this method's own transaction: per-attempt here, committed for callers
            // outside a transaction once this method returns.
            self.mark_committed(&fresh);
            return t;
        }
        t.into_iter().filter(|o| !fresh.contains(o)).collect()
    }

    /// A supplier lambda's value, and the per-attempt values made in it that it holds.
    fn eval_supplier(&mut self, l: &Lambda) -> (Taint, Taint) {
        let t = self.eval_lambda(l, &Taint::new(), &[]);
        let fresh: Taint = t
            .iter()
            .filter(|o| matches!(o, Origin::Fresh(_)))
            .cloned()
            .collect();
        (t, fresh)
    }

    /// A fallback supplier that stores its fresh value back into the place it stands in for,
    /// durably, is a generate-once guard: its value is stable.
    pub(super) fn eval_fallback(&mut self, l: &Lambda, place: &Place) -> Taint {
        let mark = self.stores.len();
        let persisted = self.persisted.len();
        let (t, fresh) = self.eval_supplier(l);
        let stored: Vec<Store> = self.stores[mark..]
            .iter()
            .filter(|st| st.place == *place && !fresh.is_empty() && fresh.is_subset(&st.value))
            .cloned()
            .collect();
        let Some(first) = stored.iter().map(|st| st.seq).min() else {
            // Not stored by the supplier: perhaps by the code after it (`cmd.setKey(k)`).
            if !fresh.is_empty() && self.is_durable(place) {
                self.awaiting_store.push((place.clone(), fresh));
            }
            return t;
        };
        let owner = place.prop_owner();
        let durable = self.is_durable(place)
            || owner.is_some_and(|o| {
                self.persisted[persisted..]
                    .iter()
                    .any(|(p, n)| p == o && *n > first)
            });
        if !durable {
            return t;
        }
        let calls: Vec<Span> = stored.iter().filter_map(|st| st.call).collect();
        self.drop_store_events(&fresh, &calls);
        t.into_iter().filter(|o| !fresh.contains(o)).collect()
    }
}

impl Cx<'_> {
    /// The transaction method `m` runs in, by its annotation or its class's; `None` without one.
    pub(super) fn transaction_of(&self, m: crate::semantic::MethodId) -> Option<super::model::Tx> {
        let class = self.project.class_of(m);
        let method = self.project.method(m);
        let of = |a: &Annotation| {
            let t = self
                .project
                .resolve_type(class.0, Some(class.1 as usize), &a.name);
            let p = a.constant_arg("propagation");
            self.model
                .transaction(&|x| self.project.type_is(&t, x), p.as_deref())
        };
        method
            .annotations
            .iter()
            .find_map(of)
            .or_else(|| self.project.class(class).annotations.iter().find_map(of))
    }

    /// Does saving an entity with call `c` outlive a failed attempt of this method (SPEC 7.4:
    /// "a save inside the attempt's own transaction rolls back with it")? Not when this method
    /// runs in a transaction the save joins (a repository's `save`, a project method without a
    /// transaction of its own): a failure after it, at the sink, rolls the key back. A save
    /// through a method that commits apart (`REQUIRES_NEW`) outlives it.
    pub(super) fn save_outlives_attempt(&self, c: &Call) -> bool {
        !self.transaction_of(self.id).is_some_and(|t| t.inside) || self.commits_apart(c)
    }

    /// Does call `c` run a project method that commits apart from its caller's transaction
    /// (`REQUIRES_NEW`)?
    pub(super) fn commits_apart(&self, c: &Call) -> bool {
        let recv = self.receiver_type(c.recv.as_ref());
        self.project
            .resolve_call(self.class, c, recv)
            .iter()
            .any(|m| self.transaction_of(*m).is_some_and(|t| t.apart))
    }

    /// Is `k` a persistent entity class (`@Entity`), whose fields are columns of a row?
    pub(super) fn is_entity_class(&self, k: crate::semantic::ClassRef) -> bool {
        self.project.class(k).annotations.iter().any(|a| {
            let t = self.project.resolve_type(k.0, Some(k.1 as usize), &a.name);
            self.model
                .is_entity_annotation(&|x| self.project.type_is(&t, x))
        })
    }

    /// The project class whose field a key method on `recv` writes (an entity's: a transactional
    /// outbox, SPEC 7.4): a setter on an object of the class (`body.setIdempotencyKey(k)`), or a builder started from the class
    /// (`TransferBody.builder()…idempotencyKey(k)`, `body.toBuilder()…`).
    pub(super) fn written_class(&self, recv: &Expr) -> Option<crate::semantic::ClassRef> {
        let project = |t: Option<crate::semantic::TypeRef>| match t {
            Some(crate::semantic::TypeRef::Project(k)) => Some(k),
            _ => None,
        };
        if let Some(k) = project(self.type_of(recv)) {
            return Some(k);
        }
        let mut e = recv;
        for _ in 0..64 {
            match e.peel() {
                Expr::Call(c) => match &c.recv {
                    Some(r) if self.is_type_name(r) => {
                        return project(r.dotted().map(|d| self.resolve(&d)))
                            .filter(|_| c.name == "builder");
                    }
                    Some(r) if c.name == "toBuilder" => return project(self.type_of(r)),
                    Some(r) => e = r,
                    None => return None,
                },
                _ => return None,
            }
        }
        None
    }
}

/// How long the receiver of a generate-once call (`computeIfAbsent`, `updateAndGet`) lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Holder {
    /// A field, a parameter, the retry's own state: every attempt finds the first value.
    Outlives,
    /// A local declared in this scope: made anew by a region that runs its declaration.
    DeclaredIn(ScopeId),
}

impl Cx<'_> {
    /// A generate-once call of the catalogue: its generating argument and how long the holder
    /// it fills lives.
    pub(super) fn compute_once_holder(&self, c: &Call) -> Option<(usize, Holder)> {
        let g = self.model.compute_once(&c.name)?;
        let recv = c.recv.as_ref()?;
        if self.is_type_name(recv) {
            return None;
        }
        if g.tests_param && !c.args.get(g.arg).is_some_and(|a| self.tests_own_param(a)) {
            return None;
        }
        if g.keeps_first
            .is_some_and(|i| !c.args.get(i).is_some_and(|a| self.returns_first_param(a)))
        {
            return None;
        }
        if g.retry_state {
            return Some((g.arg, Holder::Outlives));
        }
        if let Expr::Name(n, _) = recv.peel()
            && self.is_static_field(n)
            && !self.is_local(n)
        {
            return Some((g.arg, Holder::Outlives));
        }
        let place = self.place_of(recv)?;
        let holder = match place.root() {
            Place::This(_) => Holder::Outlives,
            Place::Local(n) if self.method.params.iter().any(|p| p.name == *n) => Holder::Outlives,
            Place::Local(n) => Holder::DeclaredIn(self.decl_scope.get(n).copied().unwrap_or(0)),
            _ => return None,
        };
        Some((g.arg, holder))
    }

    /// A function of two parameters that returns its first: `(stored, given) -> stored`, or a
    /// block that only returns it.
    fn returns_first_param(&self, a: &Expr) -> bool {
        let Expr::Lambda(l) = a.peel() else {
            return false;
        };
        let [(first, _), _] = self.method.scopes[l.scope as usize].params.as_slice() else {
            return false;
        };
        let returned = match &l.body {
            LambdaBody::Expr(e) => e,
            LambdaBody::Block(b) => match b.as_slice() {
                [Stmt::Return(Some(e), _)] => e,
                _ => return false,
            },
        };
        matches!(returned.peel(), Expr::Name(n, _) if n == first)
    }

    /// An update function that keeps a value it already has: `v -> v != null ? v : fresh()`,
    /// `v -> { if (v == null) … }`.
    fn tests_own_param(&self, a: &Expr) -> bool {
        let Expr::Lambda(l) = a.peel() else {
            return false;
        };
        let params = &self.method.scopes[l.scope as usize].params;
        let [(p, _)] = params.as_slice() else {
            return false;
        };
        let cond = match &l.body {
            LambdaBody::Expr(e) => match e.peel() {
                Expr::Ternary(c, ..) => c,
                _ => return false,
            },
            LambdaBody::Block(b) => match b.first() {
                Some(Stmt::If { cond, .. }) => cond,
                _ => return false,
            },
        };
        self.guard_of_name(cond, p).unwrap_or(false)
    }

    /// Does `cond` test the local `p` for absence (`p == null`, `p != null`, `!Objects.isNull(p)`)?
    fn guard_of_name(&self, cond: &Expr, p: &str) -> Option<bool> {
        match cond.peel() {
            Expr::Binary(b) if b.op == "==" || b.op == "!=" => {
                let named = |e: &Expr| matches!(e.peel(), Expr::Name(n, _) if n == p);
                let null = |e: &Expr| matches!(e.peel(), Expr::Null(_));
                Some((named(&b.left) && null(&b.right)) || (null(&b.left) && named(&b.right)))
            }
            Expr::Not(inner, _) => self.guard_of_name(inner, p),
            Expr::Call(c) if self.model.check(&c.name).is_some() => Some(
                c.args
                    .first()
                    .or(c.recv.as_ref())
                    .is_some_and(|e| matches!(e.peel(), Expr::Name(n, _) if n == p)),
            ),
            _ => None,
        }
    }
}

/// `e` with the parameters named in `with` replaced by the caller's argument expressions;
/// `None` for an expression a guard cannot be (a lambda, an assignment, a new object …).
fn substitute(e: &Expr, with: &HashMap<&str, &Expr>, depth: usize) -> Option<Expr> {
    if depth > 16 {
        return None;
    }
    let sub = |x: &Expr| substitute(x, with, depth + 1);
    Some(match e {
        Expr::Name(n, _) => match with.get(n.as_str()) {
            Some(a) => (*a).clone(),
            None => e.clone(),
        },
        Expr::Call(c) => {
            let mut c2 = (**c).clone();
            c2.recv = match &c.recv {
                Some(r) => Some(sub(r)?),
                None => None,
            };
            c2.args = c.args.iter().map(sub).collect::<Option<Vec<_>>>()?;
            Expr::Call(Box::new(c2))
        }
        Expr::Field(r, n, sp) => Expr::Field(Box::new(sub(r)?), n.clone(), *sp),
        Expr::Binary(b) => Expr::Binary(Box::new(Binary {
            op: b.op.clone(),
            left: sub(&b.left)?,
            right: sub(&b.right)?,
            span: b.span,
        })),
        Expr::Not(x, sp) => Expr::Not(Box::new(sub(x)?), *sp),
        Expr::Cast(t, x, sp) => Expr::Cast(t.clone(), Box::new(sub(x)?), *sp),
        Expr::Op(xs, sp) => Expr::Op(xs.iter().map(sub).collect::<Option<Vec<_>>>()?, *sp),
        Expr::This(_) | Expr::Str(..) | Expr::Lit(..) | Expr::Null(_) => e.clone(),
        _ => return None,
    })
}
