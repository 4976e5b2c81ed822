//! Calls: catalogue sources, sinks and side effects, and project methods through their summaries.

use super::cx::*;
use super::guards::Holder;
use super::model::{AnnotationUse, SourceKind, StoreAccess};
use super::place::*;
use super::shapes::Shape;
use super::site::CallSite;
use super::*;
use crate::java::ir::*;
use crate::semantic::{ClassRef, Loc, MethodId, TypeRef};
use std::collections::{BTreeMap, BTreeSet};

impl Cx<'_> {
    pub(super) fn eval_call(&mut self, c: &Call) -> Taint {
        let operands = self.eval_call_operands(c);
        let fresh_claim = self.note_store_keys(c, &operands.2);
        let mut t = self.eval_call_inner(c, operands);
        self.drop_sent_containers(c, &mut t);
        if self.is_key_sink_call(c) {
            // The request now carries a key: so do the builder and what it builds.
            t.insert(Origin::Keyed);
            if let Some(p) = c.recv.as_ref().and_then(|r| self.place_of(mutated_root(r))) {
                self.env.entry(p).or_default().insert(Origin::Keyed);
            }
            self.note_key_container(c);
        }
        if !fresh_claim && self.is_lock_call(c) {
            t.insert(Origin::Lock);
        }
        t
    }

    /// Evaluate the receiver and the arguments: (receiver is a type, receiver, arguments).
    fn eval_call_operands(&mut self, c: &Call) -> (bool, Taint, Vec<Taint>) {
        let recv_is_type = c.recv.as_ref().is_some_and(|r| self.is_type_name(r));
        let recv_t = match &c.recv {
            Some(r) if !recv_is_type => self.eval(r),
            _ => Taint::new(),
        };
        // Generate-once holders: the lambda runs only when the key is absent.
        let once = self.compute_once_holder(c);
        let once_arg = once.map(|(arg, _)| arg);
        let mut args = Vec::with_capacity(c.args.len());
        let outer_guard = self.guarded;
        // A callback over what this instance claimed (`claimed.forEach(…)`,
        // `queue.observe().subscribe(msg -> …)`) runs only for its own items.
        if self.model.is_lock_wrapper(&c.name) || recv_t.contains(&Origin::Lock) {
            self.guarded = true;
        }
        self.note_param_run(c);
        let (guarded_params, claim_params) = self.guarded_params_of(c);
        for (i, a) in c.args.iter().enumerate() {
            let arg_guard = self.guarded;
            // The claim's key is an argument before the function (`executeOnce(key, () -> …)`).
            if guarded_params.contains(&(i as u16))
                && matches!(a.peel(), Expr::Lambda(_) | Expr::MethodRef(_))
                && !self.claims_fresh_key(&claim_params, &args)
            {
                self.guarded = true;
            }
            if once_arg == Some(i) {
                match once {
                    Some((_, Holder::Outlives)) => {
                        self.suppress += 1;
                        self.eval(a);
                        self.suppress -= 1;
                        args.push(Taint::new());
                    }
                    Some((_, Holder::DeclaredIn(d))) => {
                        let outer = self.holder_decl.replace(d);
                        args.push(self.eval(a));
                        self.holder_decl = outer;
                    }
                    None => args.push(self.eval(a)),
                }
            } else if let Expr::Lambda(l) = a
                && let Some(guard) = self.absent_supplier(c)
            {
                args.push(match guard {
                    super::guards::Supplier::Fills(place) => self.eval_fallback(l, &place),
                    super::guards::Supplier::Creates(stores) => self.eval_create(l, &stores),
                });
            } else if let Expr::Lambda(l) = a
                && c.recv.is_some()
                && !recv_is_type
            {
                let method = self.method;
                let params = &method.scopes[l.scope as usize].params;
                let inferred = self.with_typer(|t| t.lambda_param_types(c, params));
                args.push(self.eval_lambda(l, &recv_t, &inferred));
            } else {
                args.push(self.eval(a));
            }
            self.guarded = arg_guard;
        }
        self.guarded = outer_guard;
        (recv_is_type, recv_t, args)
    }

    /// A call on a parameter of this method (`handler.accept(ids)`): the parameter is run as a
    /// function, under a cluster-wide guard or not.
    fn note_param_run(&mut self, c: &Call) {
        let Some(Expr::Name(n, _)) = c.recv.as_ref().map(|r| r.peel()) else {
            return;
        };
        let Some(i) = self.method.params.iter().position(|p| &p.name == n) else {
            return;
        };
        let i = i as u16;
        if !self
            .env
            .get(&Place::local(n))
            .is_some_and(|t| t.contains(&Origin::Param(i)))
        {
            return;
        }
        let guarded = self.guarded;
        self.param_runs
            .entry(i)
            .and_modify(|g| *g &= guarded)
            .or_insert(guarded);
    }

    /// The parameters of the project methods a call resolves to that they run only under a
    /// guard; asked only when a function is passed.
    /// With the parameters their claims are keyed by.
    fn guarded_params_of(&self, c: &Call) -> (BTreeSet<u16>, BTreeSet<u16>) {
        if !c
            .args
            .iter()
            .any(|a| matches!(a.peel(), Expr::Lambda(_) | Expr::MethodRef(_)))
        {
            return Default::default();
        }
        let recv = self.receiver_type(c.recv.as_ref());
        let targets = self.project.resolve_call(self.class, c, recv);
        let targets = self.with_typer(|t| t.narrowed(c, targets));
        let mut out: Option<BTreeSet<u16>> = None;
        let mut keys = BTreeSet::new();
        for m in targets {
            let s = self.sums.of(m);
            let g = &s.guarded_params;
            keys.extend(s.claim_params.iter().copied());
            out = Some(match out {
                None => g.clone(),
                Some(o) => o.intersection(g).copied().collect(),
            });
        }
        (out.unwrap_or_default(), keys)
    }

    fn eval_call_inner(
        &mut self,
        c: &Call,
        (recv_is_type, recv_t, args): (bool, Taint, Vec<Taint>),
    ) -> Taint {
        let increments = self.model.is_counter_increment(&c.name)
            || (self.model.counter_update(&c.name))
                .is_some_and(|sums| c.args.last().is_some_and(|f| self.increments(f, sums)));
        if increments && let Some(place) = c.recv.as_ref().and_then(|r| self.counter_place(r)) {
            let label = format!("{}.{}()", place.variable_name().unwrap_or_default(), c.name);
            return self.counter(&place, c.span, label);
        }
        if let Some((kind, row)) = self.source_of_call(c) {
            let label = self.call_label(c);
            let t = self.fresh(kind, &row, c.span, c.scope, label, None);
            // `rnd.nextBytes(buf)` fills its argument.
            for a in &c.args {
                if let Some(p) = self
                    .place_of(a)
                    .filter(|p| p.as_local().is_some_and(|n| self.is_local(n)))
                {
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
        self.call_effects(c, &recv_t, &args, &here);
        // Entity properties: a setter stores, a getter reads back what was stored.
        self.note_mark(c, &args);
        if let (Some(r), Some(prop)) = (&c.recv, property_of(&c.name, "set"))
            && let Some(owner) = self.place_of(r)
            && args.len() == 1
        {
            let place = Place::prop(owner, &prop);
            self.assign_place(place.clone(), args[0].clone(), true, Some(c.span));
            if let Some(from) = self.place_of(&c.args[0]) {
                self.carry_parts(&from, &place);
            }
        }
        // A getter, or a read of a durable store (`ctx.getAttribute(KEY)`), of what this
        // method stored there.
        if let Some(p) = self.place_of_call(c)
            && let Some(t) = self.env.get(&p)
        {
            return t.clone();
        }
        if let Some(t) = self.read_known_part(c, &args) {
            return t;
        }

        // A read from storage returns what was stored, whatever bounds the query (SPEC 6).
        // One site for both questions: its receiver's type is worked out once.
        let site = CallSite::call(self, c);
        let stored = self.model.stored_read(&site);
        let returned = if stored {
            None
        } else {
            self.model.returned_argument(&site)
        };
        drop(site);
        if stored {
            self.note_lookup(c, &args, &BTreeSet::new());
            self.note_selection(c);
            return Taint::new();
        }
        // A call that returns its argument itself (`repository.save(entity)`): the same object,
        // each field holding what it held.
        if let Some(i) = returned
            && let (Some(a), Some(t)) = (c.args.get(i), args.get(i))
        {
            if let Some(shape) = self.shape_of(a) {
                self.shapes.insert(c.span, shape);
            }
            return t.clone();
        }

        // Project methods.
        let on_this = matches!(c.recv, None | Some(Expr::This(_)));
        let recv_type = match &c.recv {
            None | Some(Expr::This(_)) => None,
            Some(r) if recv_is_type => Some(r.dotted().map(|d| self.resolve(&d))),
            Some(r) => Some(self.type_of(r)),
        };
        let targets = self.project.resolve_call(self.class, c, recv_type);
        let targets = self.with_typer(|t| t.narrowed(c, targets));
        // A function held in a field returns what it evaluates at this call.
        let held = self.held_sources(c);
        if !targets.is_empty() {
            let mut t = self.project_call(c, &targets, on_this, &recv_t, &args, &here);
            union(&mut t, &held);
            // A project interface's method that nothing in the project implements with a body,
            // called on a function the attempt made (`KeyGenerator gen = id -> id + UUID…;
            // gen.generate(id)`): it returns what the function evaluates, as a library function
            // type's call does.
            if !recv_t.is_empty()
                && !on_this
                && targets.iter().all(|m| !self.project.method(*m).has_body())
            {
                union(&mut t, &recv_t);
            }
            return t;
        }

        if let Some(kinds) = self.coarse_call(c) {
            let mut t = recv_t;
            for a in args {
                union(&mut t, &a);
            }
            return self.strip_kinds(t, &kinds);
        }
        // An unknown call with a per-attempt argument or receiver returns a per-attempt value;
        // builders and appenders keep what they were given.
        self.library_shape(c, &args);
        let defaults = self.builder_defaults(c);
        // A getter or record accessor on a parameter reads that property of it
        // (`command.dedupeKey()`), so a caller that knows the argument's fields passes only it.
        let mut t = match &c.recv {
            Some(r) if c.args.is_empty() && !recv_is_type && !matches!(r, Expr::This(_)) => {
                let getter = property_of(&c.name, "get").or_else(|| property_of(&c.name, "is"));
                match getter {
                    // A property of an object a builder chain here made, which it never set,
                    // holds nothing (a call on the builder itself is not a read, and any other
                    // call — `toString()`, `toJson()` — reads the whole object).
                    Some(prop) if !self.is_builder(r) => self.field_of(Some(r), &recv_t, &prop),
                    prop => {
                        super::shapes::part_of(&recv_t, &prop.unwrap_or_else(|| c.name.clone()))
                    }
                }
            }
            // An entry under a literal key is a part of the map, as a property is a part of an
            // object (SPEC §6): `task.getInputData().get("idempotencyKey")` on a parameter is
            // that part of it, so a caller passes only what it put under that key.
            Some(_)
                if matches!(c.name.as_str(), "get" | "getOrDefault")
                    && let Some(key) = c
                        .args
                        .first()
                        .and_then(|k| self.project.constant(self.class, k)) =>
            {
                super::shapes::entry_of(&recv_t, &key)
            }
            // An entry under a computed key may be any part: it stands for the whole parameter.
            Some(_) if matches!(c.name.as_str(), "get" | "getOrDefault") => recv_t
                .into_iter()
                .map(|o| match o {
                    Origin::ParamField(p, _) => Origin::Param(p),
                    o => o,
                })
                .collect(),
            _ => recv_t,
        };
        for a in &args {
            union(&mut t, a);
        }
        union(&mut t, &defaults);
        union(&mut t, &held);
        if let Some(r) = &c.recv
            && is_mutator(&c.name)
            && let Some(p) = self.place_of(mutated_root(r))
            && p.is_variable()
        {
            if c.args.len() == 1 && ELEMENT_ADDERS.contains(&c.name.as_str()) {
                self.add_element(&p, &c.args[0], &args[0]);
            }
            self.assign_place(p, t.clone(), false, None);
        }
        t
    }

    /// Catalogue effects of a call: side effects, key sinks, idempotency headers, durable
    /// stores and persisted entities.
    fn call_effects(&mut self, c: &Call, recv_t: &Taint, args: &[Taint], here: &Loc) {
        if let Some((label, row)) = self.side_effect_of(c) {
            // A key passed as an argument of the call itself (Checkout.com's
            // `requestPayment(request, idempotencyKey)`): whether it is stable is RL001–RL003's.
            let own_key = {
                let site = CallSite::call(self, c);
                self.model.key_sinks(&site).iter().any(|k| {
                    k.arg < c.args.len()
                        && !matches!(c.args[k.arg].peel(), Expr::Lit(..) | Expr::Null(_))
                })
            };
            let keyed = own_key
                || recv_t.contains(&Origin::Keyed)
                || args.iter().any(|a| a.contains(&Origin::Keyed))
                || c.args
                    .iter()
                    .zip(args)
                    .any(|(a, t)| self.is_key_carrier_param(a, t));
            self.effect(
                EffectKind::SideEffect { keyed },
                here.span,
                label,
                row,
                c.scope,
                false,
            );
            let when = if keyed {
                Vec::new()
            } else {
                self.unkeyed_unless_caller_keyed(c, recv_t, args)
            };
            if let Some(e) = self.out.effects.last_mut() {
                e.when = when;
            }
        }
        let site = CallSite::call(self, c);
        let sinks: Vec<(usize, String)> = self
            .model
            .key_sinks(&site)
            .iter()
            .map(|k| (k.arg, k.row.to_string()))
            .collect();
        let named = self.model.named_key(&site);
        // Key sinks by method name, on any receiver.
        for (arg, row) in sinks {
            let Some(t) = args.get(arg).cloned() else {
                continue;
            };
            self.key_sink(&t, here, self.sink_label(c), row, c);
        }
        // Keys under a key name: headers, body fields — not in a map that never leaves.
        let unsent = matches!(c.recv.as_ref().map(Expr::peel),
            Some(Expr::Name(n, _)) if self.unsent_maps.contains(n) && self.is_local(n));
        if let Some(k) = named.filter(|_| !unsent)
            && let Some(t) = args.get(k.value_arg).cloned()
        {
            self.key_sink(&t, here, k.label(), k.row, c);
        }
        // A field of the application's own class that its annotation names as a body field
        // with a key name (`@JsonProperty("idempotency_key") private String reference;`),
        // written by a setter or builder method the class does not write itself (Lombok's).
        if let [t] = args
            && let Some((field, row, class)) = self.body_key_written(c)
        {
            let label = format!("the body field `{field}` of `{class}`");
            self.key_sink(t, here, label, row, c);
        }
        self.note_sends(c, recv_t, args);
        // Durable stores (`ctx.setAttribute("key", v)`).
        if let Some(StoreAccess::Write {
            key_arg,
            value_arg,
            property,
        }) = self.model.store(&c.name, &|t| self.receiver_may_be(c, t))
            && let Some(owner) = c.recv.as_ref().and_then(|r| self.place_of(r))
            && let owner = match property {
                Some(p) => Place::prop(owner, &p),
                None => owner,
            }
            && let Some(key) = self.store_key(c, key_arg)
            && let Some(v) = args.get(value_arg)
        {
            self.assign_place(Place::entry(owner, &key), v.clone(), true, Some(c.span));
        }
        // Persisting an entity makes its generate-once values durable, when the save survives
        // a failed attempt.
        if self.model.is_persist(&c.name) {
            // Whether a transaction open around it rolls it back is the region's to tell.
            let apart = self.commits_apart(c);
            self.note_save(c, apart);
        }
        if self.model.is_persist(&c.name) && self.save_outlives_attempt(c) {
            for a in &c.args {
                if let Some(p) = self.place_of(a) {
                    self.persisted.push((p.clone(), self.stores.len()));
                    let done: Vec<(Place, Taint, Vec<Span>)> = self
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
    }

    /// A key sink of the model at a call: an effect here, and the flow of `t` into it.
    fn key_sink(&mut self, t: &Taint, here: &Loc, label: String, row: String, c: &Call) {
        let written = c.recv.as_ref().and_then(|r| self.written_class(r));
        let row_write = written.is_some_and(|k| self.is_entity_class(k));
        // A key method on an entity writes a column of a row, not an option of a request; on
        // another project class, a field of the application's own request object.
        let label = if row_write && label.ends_with("(…)") {
            format!("the entity field set by `{label}`")
        } else if let Some(k) = written.filter(|_| label.ends_with("(…)")) {
            format!(
                "the `{}` field of `{}`",
                field_of_method(&c.name),
                self.project.class(self.built_class(k)).name
            )
        } else {
            label
        };
        // A key field of an entity names the application's own row.
        self.effect(
            EffectKind::KeySink,
            here.span,
            label.clone(),
            row.clone(),
            c.scope,
            row_write,
        );
        self.key_writes.push((
            self.out.effects.len() - 1,
            t.clone(),
            self.returned_calls.contains(&c.span),
        ));
        self.sink(
            t,
            SinkRef {
                loc: here.clone(),
                label,
                at_argument: false,
                row,
                row_write,
                when: Vec::new(),
                after_saves: BTreeMap::new(),
            },
            c.scope,
            c.span,
        );
    }

    /// A call of project methods: their summaries applied to the arguments.
    fn project_call(
        &mut self,
        c: &Call,
        targets: &[MethodId],
        on_this: bool,
        recv_t: &Taint,
        args: &[Taint],
        here: &Loc,
    ) -> Taint {
        let mut result = Taint::new();
        let mut hits_effects: Vec<(Span, String, String, bool)> = Vec::new();
        let mut handed_back: Vec<(String, String, Taint)> = Vec::new();
        let mut shape_out: Option<Shape> = None;
        let sums = self.sums;
        let facts = self.call_facts(c, args);
        for m in targets {
            self.edge_with(c.scope, *m, facts.clone());
            if on_this {
                self.out.self_calls.push(*m);
            }
            let s = sums.of(*m);
            let mut hits = Vec::new();
            for (p, sink) in &s.param_sinks {
                let (idx, part) = match p {
                    ParamPath::Whole(i) => (*i as usize, None),
                    ParamPath::Field(i, f) => (*i as usize, Some(f)),
                };
                let callee = self.project.method(*m);
                let is_vararg =
                    idx + 1 == callee.params.len() && callee.params[idx].ty.ends_with("[]");
                let mut t = Taint::new();
                if is_vararg {
                    for a in args.iter().skip(idx) {
                        union(&mut t, a);
                    }
                } else if let Some(a) = args.get(idx) {
                    // Only the property the callee reads reaches its sink.
                    t = match part {
                        Some(f) => self.field_path_of(c.args.get(idx), a, f),
                        None => a.clone(),
                    };
                }
                if sink.at_argument {
                    // A key parameter of a client method: the request goes out here. Unless
                    // the callee claims or looks up its own store under it, or hands it back
                    // (`normalizeKey(idempotencyKey)`): then the caller's use of it decides.
                    let own = matches!(p, ParamPath::Whole(i)
                        if s.store_key_params.contains(i)
                            || s.ret_params.iter().any(|r| r.param() == *i));
                    let key_sink = (here.span, sink.label.clone(), sink.row.clone(), own);
                    hits_effects.push(key_sink);
                }
                let at = self.at_argument(sink, c.args.get(idx).map(|a| a.span()));
                hits.push((t, at, &sink.when));
            }
            if s.ret_keyed {
                result.insert(Origin::Keyed);
            }
            for p in &s.ret_key_params {
                let (idx, part) = match p {
                    ParamPath::Whole(i) => (*i as usize, None),
                    ParamPath::Field(i, f) => (*i as usize, Some(f)),
                };
                let Some(a) = args.get(idx) else { continue };
                let t = match part {
                    Some(f) => self.field_path_of(c.args.get(idx), a, f),
                    None => a.clone(),
                };
                let (label, row) = match s.param_sinks.get(p) {
                    Some(sink) if sink.label.starts_with("the ") => (
                        format!("{} in what `{}` returns", sink.label, c.name),
                        sink.row.clone(),
                    ),
                    Some(sink) => (
                        format!(
                            "the key set by `{}` in what `{}` returns",
                            sink.label, c.name
                        ),
                        sink.row.clone(),
                    ),
                    None => (
                        format!("the key in what `{}` returns", c.name),
                        String::new(),
                    ),
                };
                handed_back.push((label, row, t));
            }
            self.project_sends(*m, args, &mut result);
            self.note_callee_store_keys(s, args);
            if s.ret_lock && !self.claims_fresh_key(&s.claim_params, args) {
                result.insert(Origin::Lock);
            }
            if on_this {
                for (f, sink) in &s.field_sinks {
                    hits.push((self.read_field(f), sink.clone(), &sink.when));
                }
            }
            for (t, sink, when) in hits {
                // Reached in the callee only under tests on its parameters: not at all when
                // this call's arguments fail them, under the tests they pass on otherwise.
                if let Some(extra) = self.translate_conds(when, &c.args, args) {
                    self.under(extra, |cx| cx.sink(&t, sink, c.scope, c.span));
                }
            }
            let s = sums.of(*m);
            for p in &s.ret_params {
                let (idx, part) = match p {
                    ParamPath::Whole(i) => (*i as usize, None),
                    ParamPath::Field(i, f) => (*i as usize, Some(f)),
                };
                if let Some(a) = args.get(idx) {
                    match part {
                        // Only the property the callee reads comes back.
                        Some(f) => union(&mut result, &self.field_path_of(c.args.get(idx), a, f)),
                        None => union(&mut result, a),
                    }
                }
            }
            let recv = if on_this { None } else { c.recv.as_ref() };
            for f in &s.ret_fields {
                // A getter: the receiver's field, not the whole receiver.
                union(&mut result, &self.field_of(recv, recv_t, f));
            }
            let mut fresh_of = BTreeMap::new();
            for d in s.ret_sources.values() {
                let label = format!("{}() (which returns {})", c.name, d.label);
                let t = self.fresh_from(d, (&c.args, args), (c.span, c.scope), label);
                if !t.is_empty() {
                    union(&mut result, &t);
                    fresh_of.insert(d.kind, t);
                }
            }
            if s.ret_this {
                // A fluent method returns its receiver, with what it wrote into it.
                union(&mut result, recv_t);
            }
            self.stored_into_args(c, s, args);
            let minted = if on_this || s.field_sources.is_empty() {
                Vec::new()
            } else {
                self.fields_minted_by(c, s, *m, args)
            };
            if let Some(shape) =
                self.returned_shape(c, s, on_this, recv_t, args, &fresh_of, &minted)
            {
                if s.ret_this {
                    // A builder's whole value holds what its fluent methods wrote. A returned
                    // object's whole value is what the callee's return gave (its `new` args):
                    // fields set through setters are read back through their getters only,
                    // since key sinks of callees are summarized per parameter, not per field.
                    for t in shape.fields.values() {
                        union(&mut result, t);
                    }
                }
                shape_out = Some(shape);
            }
            let setter = (args.len() == 1)
                .then(|| property_of(&c.name, "set"))
                .flatten();
            if let Some(owner) = recv.and_then(|r| self.place_of(r)) {
                // A builder method (or a setter named otherwise) writes its property; `setX`
                // wrote `x` above, and writes here any other field its body assigns
                // (`setAlertId(String v) { this.id = v; }` is read back by `getId()`).
                for (f, ps) in &s.field_params {
                    if setter.as_deref() == Some(f.as_str()) {
                        continue;
                    }
                    let t = self.args_at(ps, &c.args, args);
                    self.assign_place(Place::prop(owner.clone(), f), t, true, Some(c.span));
                }
                // What it minted into the object's fields (`builder.withDefaults()`).
                for (f, t, every_path) in &minted {
                    let place = Place::prop(owner.clone(), f);
                    self.assign_place(place, t.clone(), *every_path, Some(c.span));
                }
            }
            if on_this && !self.method.modifiers.is_static {
                // `this.setKey(k)`: a setter of this object writes its field.
                for (f, ps) in &s.field_params {
                    let t = self.args_at(ps, &c.args, args);
                    self.assign_place(Place::this(f), t, true, Some(c.span));
                }
            }
            if on_this {
                let fs: Vec<(String, SourceDesc)> = s
                    .field_sources
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                for (f, d) in fs {
                    let label = format!("{}() (which stores {} in `{f}`)", c.name, d.label);
                    let t = self.fresh_from(&d, (&c.args, args), (c.span, c.scope), label);
                    if !t.is_empty() {
                        self.env.insert(Place::this(&f), t);
                    }
                }
            }
        }
        if let Some(shape) = shape_out {
            self.shapes.insert(c.span, shape);
        }
        // A check of the own store, and the records the callee saved on its way.
        let found: BTreeSet<String> = targets
            .iter()
            .flat_map(|m| sums.of(*m).ret_found.iter().cloned())
            .collect();
        if !found.is_empty() && targets.iter().all(|m| !sums.of(*m).ret_found.is_empty()) {
            self.note_lookup(c, args, &found);
        }
        if let [m] = targets {
            // A call on `this` does not go through the proxy: its transaction does not apply.
            let apart = !on_this && self.transaction_of(*m).is_some_and(|t| t.apart);
            self.note_callee_saves(sums.of(*m), apart);
        }
        // A declarative client's request to a money-moving endpoint, with no key header.
        if let Some((label, row)) = targets.iter().find_map(|m| sums.of(*m).endpoint.clone()) {
            let text = format!("{}(…)", self.call_label(c).trim_end_matches("()"));
            let keyed = args.iter().any(|a| a.contains(&Origin::Keyed));
            self.effect(
                EffectKind::SideEffect { keyed },
                here.span,
                format!("{label} `{text}`"),
                row,
                c.scope,
                false,
            );
        }
        hits_effects.sort();
        hits_effects.dedup();
        for (span, label, row, own) in hits_effects {
            self.effect(EffectKind::KeySink, span, label, row, c.scope, own);
        }
        // A key the callee copies from an argument into what it returns is written here, into
        // what this method does with the result: the caller's use of it decides.
        handed_back.sort();
        handed_back.dedup();
        for (label, row, t) in handed_back {
            self.effect(EffectKind::KeySink, here.span, label, row, c.scope, false);
            self.key_writes.push((
                self.out.effects.len() - 1,
                t,
                self.returned_calls.contains(&c.span),
            ));
        }
        result
    }

    /// The label of a source call as written: `UUID.randomUUID()`, `rnd.nextLong()`.
    pub(super) fn call_label(&self, c: &Call) -> String {
        match c.recv.as_ref().and_then(|r| r.dotted()) {
            Some(r) => format!("{r}.{}()", c.name),
            None => match &c.recv {
                Some(Expr::Call(inner)) => format!("{}.{}()", self.call_label(inner), c.name),
                Some(Expr::New(n)) => format!("new {}().{}()", n.ty, c.name),
                _ => format!("{}()", c.name),
            },
        }
    }

    /// A per-attempt source of the model: its kind and row.
    pub(super) fn source_of_call(&self, c: &Call) -> Option<(SourceKind, String)> {
        if !self.model.may_be_source(&c.name) {
            return None;
        }
        let m = self.model.source(&CallSite::call(self, c))?;
        Some((m.kind, m.row.to_string()))
    }

    /// A parameter the framework fills in with a per-attempt value (`@Header(DELIVERY_ATTEMPT)`).
    pub(super) fn parameter_source(&self, p: &Param) -> Option<(SourceKind, String)> {
        if p.annotations.is_empty() {
            return None;
        }
        let types: Vec<TypeRef> = p
            .annotations
            .iter()
            .map(|a| self.resolve(&a.name))
            .collect();
        let tests: Vec<_> = types
            .iter()
            .map(|t| move |x: &str| self.project.type_is(t, x))
            .collect();
        let uses: Vec<AnnotationUse<'_>> = p
            .annotations
            .iter()
            .zip(&tests)
            .map(|(a, is)| AnnotationUse {
                is,
                value: annotation_value(a).and_then(|v| match v.peel() {
                    Expr::Str(s, _) => Some(s.clone()),
                    other => other.dotted(),
                }),
            })
            .collect();
        let m = self.model.parameter_source(&uses)?;
        Some((m.kind, m.row.to_string()))
    }

    /// A library call whose result drops some kinds of per-attempt values: the kinds it drops.
    pub(super) fn coarse_call(&self, c: &Call) -> Option<Vec<SourceKind>> {
        self.model
            .coarse_step(&CallSite::call(self, c))
            .map(<[SourceKind]>::to_vec)
    }

    /// What a coarse conversion (`toLocalDate()`, `YearMonth.from(…)`) leaves of its input: not
    /// the per-attempt values of its kinds, and not what a parameter or a field brought in
    /// either — whatever the caller passes, the result is a coarse date (SPEC 4), so
    /// `DAY.format(now.toLocalDate())` with `now` a parameter is stable for every caller.
    pub(super) fn strip_kinds(&self, t: Taint, kinds: &[SourceKind]) -> Taint {
        t.into_iter()
            .filter(|o| match o {
                Origin::Fresh(i) => !kinds.contains(&self.out.sources[*i as usize].kind),
                Origin::Param(_) | Origin::ParamField(..) | Origin::Field(_) => false,
                _ => true,
            })
            .collect()
    }

    pub(super) fn sink_label(&self, c: &Call) -> String {
        format!("{}(…)", c.name)
    }

    pub(super) fn is_key_sink_call(&self, c: &Call) -> bool {
        let site = CallSite::call(self, c);
        !self.model.key_sinks(&site).is_empty() || self.model.named_key(&site).is_some()
    }

    /// What a project callee stored into properties of the objects passed to it (its
    /// summary's `param_field_sources`): those properties of the arguments' places hold it.
    fn stored_into_args(&mut self, c: &Call, s: &Summary, args: &[Taint]) {
        for ((i, f), d) in &s.param_field_sources {
            let Some(owner) = c.args.get(*i as usize).and_then(|a| self.place_of(a)) else {
                continue;
            };
            let label = format!(
                "{}() (which stores {} in `{f}` of its argument)",
                c.name, d.label
            );
            let t = self.fresh_from(d, (&c.args, args), (c.span, c.scope), label);
            if !t.is_empty() {
                self.assign_place(Place::prop(owner, f), t, true, Some(c.span));
            }
        }
        for (i, d) in &s.param_added_sources {
            let Some(owner) = c.args.get(*i as usize).and_then(|a| self.place_of(a)) else {
                continue;
            };
            let label = format!("{}() (which adds {} to its argument)", c.name, d.label);
            let t = self.fresh_from(d, (&c.args, args), (c.span, c.scope), label);
            if !t.is_empty() {
                self.assign_place(owner, t, false, Some(c.span));
            }
        }
    }

    /// Request options received from the caller (`RequestOptions options` parameter).
    pub(super) fn is_key_carrier_param(&self, arg: &Expr, t: &Taint) -> bool {
        t.iter()
            .any(|o| matches!(o, Origin::Param(_) | Origin::ParamField(..)))
            && self.made_by_caller(arg, 0)
            && self
                .type_of(arg)
                .is_some_and(|ty| self.model.is_key_carrier(&|k| self.project.type_is(&ty, k)))
    }

    /// May the object `e` evaluates to be one the caller made (a parameter, something read
    /// from one, through locals)? Not an object made here: `new`, a builder chain or a static
    /// factory (`RequestOptions.builder().setStripeAccount(a).build()`), whose key — if it has
    /// one — the flow itself shows, whatever parameters went into its other fields.
    pub(super) fn made_by_caller(&self, e: &Expr, depth: usize) -> bool {
        if depth > 8 {
            return true;
        }
        match e.peel() {
            Expr::Name(n, _) if self.method.params.iter().any(|p| p.name == *n) => true,
            Expr::Name(n, _) if self.is_local(n) => match self.defs.get(n) {
                Some((_, init)) => self.made_by_caller(init, depth + 1),
                None => true,
            },
            Expr::New(_) => false,
            Expr::Call(c) => match &c.recv {
                Some(r) if !self.is_type_name(r) => self.made_by_caller(r, depth + 1),
                _ => false,
            },
            _ => true,
        }
    }

    /// A known non-idempotent call (`Charge.create(params)`, `client.refunds().create(…)`):
    /// its label and row.
    pub(super) fn side_effect_of(&self, c: &Call) -> Option<(String, String)> {
        c.recv.as_ref()?;
        let m = self.model.side_effect(&CallSite::call(self, c))?;
        let text = format!("{}(…)", self.call_label(c).trim_end_matches("()"));
        Some((format!("{} `{text}`", m.label), m.row.to_string()))
    }

    /// A key parameter is shown at the argument that feeds it, in this method.
    pub(super) fn at_argument(&self, sink: &SinkRef, arg: Option<Span>) -> SinkRef {
        match arg {
            Some(span) if sink.at_argument => SinkRef {
                loc: Loc {
                    file: self.file(),
                    span,
                },
                label: sink.label.clone(),
                at_argument: false,
                row: sink.row.clone(),
                row_write: sink.row_write,
                when: Vec::new(),
                after_saves: sink.after_saves.clone(),
            },
            _ => sink.clone(),
        }
    }
}

/// The value of an annotation: its only argument, or the one named `value` or `name`.
pub(super) fn annotation_value(a: &Annotation) -> Option<&Expr> {
    a.args
        .iter()
        .find(|(k, _)| k.is_none() || matches!(k.as_deref(), Some("value" | "name")))
        .map(|(_, v)| v)
}

/// Calls that add their one argument to a collection as an element (`items.add(item)`).
const ELEMENT_ADDERS: &[&str] = &["add", "addFirst", "addLast", "offer", "push"];

/// Calls that put their arguments into the receiver (`StringBuilder.append`, `List.add`).
pub(super) fn is_mutator(name: &str) -> bool {
    name.starts_with("append")
        || name.starts_with("add")
        || name.starts_with("put")
        || name == "insert"
}

/// The object a fluent chain of mutators works on: `sb` in `sb.append(a).append(b)`.
pub(super) fn mutated_root(e: &Expr) -> &Expr {
    let mut cur = e;
    while let Expr::Call(c) = cur.peel() {
        match &c.recv {
            Some(r) if is_mutator(&c.name) => cur = r,
            _ => break,
        }
    }
    cur
}

impl Cx<'_> {
    /// The key name, row and class name when call `c` writes a field of a project class that
    /// an annotation of the field names as a body field with a key name.
    fn body_key_written(&self, c: &Call) -> Option<(String, String, String)> {
        let k = self.written_class(c.recv.as_ref()?)?;
        // A method the class writes itself is a project call: its parameter is the sink.
        if !self.project.methods_named(k, &c.name).is_empty() {
            return None;
        }
        let built = self.built_class(k);
        let (name, row) = self.field_body_key(built, &field_of_method(&c.name))?;
        Some((name, row, self.project.class(built).name.to_string()))
    }

    /// The class whose fields a method of `k` writes: `k`, or for a hand-written builder
    /// nested in its class, that class.
    fn built_class(&self, k: ClassRef) -> ClassRef {
        let class = self.project.class(k);
        match class.outer {
            Some(o) if class.name.ends_with("Builder") => (k.0, o as u32),
            _ => k,
        }
    }
}

/// The field a setter, wither or builder method writes: `setIdempotencyKey` and
/// `withIdempotencyKey` write `idempotencyKey`; a builder method is named after its field.
pub(super) fn field_of_method(name: &str) -> String {
    super::place::property_of(name, "set")
        .or_else(|| super::place::property_of(name, "with"))
        .unwrap_or_else(|| name.to_string())
}
