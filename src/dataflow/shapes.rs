//! Objects whose fields are known (shapes): a value written into one field of an object comes
//! back only through that field, so a clock value in `timestamp` leaves `orderId` stable.
//!
//! A shape is known for the value of an expression evaluated in this method (`new T(…)`, a
//! builder chain, `Map.of(…)`, a call whose summary describes its returned object) and for a
//! local whose fields were written (`Place::Prop` / `Place::Key` entries of the environment).
//! Reading a field the shape does not know, or using the whole object, gives the union of its
//! fields, which is what the object's own value holds.

use super::cx::*;
use super::model::SourceKind;
use super::place::*;
use super::*;
use crate::java::ir::*;
use std::collections::BTreeMap;

/// Field paths deeper than this (`a#b#c`) are not told apart: a write below it goes into the
/// part at this depth.
pub(super) const MAX_FIELD_DEPTH: usize = 3;

/// Calls that start a builder with no fields set (`Dto.builder()`, `Request.newBuilder()`).
const BUILDER_FACTORIES: &[&str] = &["builder", "newBuilder"];

/// Calls that finish a builder: the built object has the builder's fields.
const BUILDER_FINISHERS: &[&str] = &["build", "buildPartial", "create"];

/// Library types named like builders that are not field builders.
const NOT_FIELD_BUILDERS: &[&str] = &["StringBuilder", "StringBuffer"];

/// `java.lang.Object`'s methods that read every field of the object, not a property.
const WHOLE_OBJECT_READS: &[&str] = &["toString", "hashCode"];

/// Static factories of literal maps: `Map.of("k", v, …)`, `ImmutableMap.of(…)`.
const MAP_FACTORIES: &[&str] = &["java.util.Map", "com.google.common.collect.ImmutableMap"];

/// What each known field of an object holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Shape {
    pub(super) fields: BTreeMap<String, Taint>,
    /// The fields are map entries (`get("k")`), not properties (`getK()`).
    pub(super) map: bool,
    /// A builder: a one-argument call on it sets the property named like the method.
    pub(super) builder: bool,
    /// Every field written into the object is listed: a chain started by `builder()` here. A
    /// field it does not list was never set (and holds nothing of the attempt).
    pub(super) complete: bool,
    /// A copy of the object at this place (`request.toBuilder()`, a Lombok `@With` method
    /// `order.withSentAt(now)`): a field it does not list is that object's field.
    pub(super) base: Option<Place>,
}

impl Shape {
    pub(super) fn builder() -> Shape {
        Shape {
            builder: true,
            ..Shape::default()
        }
    }

    /// A builder started here (`Dto.builder()`): no field set yet.
    fn fresh_builder() -> Shape {
        Shape {
            builder: true,
            complete: true,
            ..Shape::default()
        }
    }

    /// The place of field `f` of the object held at `owner`.
    pub(super) fn place(&self, owner: Place, f: &str) -> Place {
        if self.map {
            Place::key(owner, f)
        } else {
            Place::prop(owner, f)
        }
    }
}

/// Field `f` of a value that is known only as a whole: a parameter's field stays that
/// parameter's field (a summary can then say which field of an argument it reads); a part of a
/// parameter's field stands for that field, which holds it.
pub(super) fn part_of(t: &Taint, f: &str) -> Taint {
    t.iter()
        .map(|o| match o {
            Origin::Param(p) => Origin::ParamField(*p, FieldPath::one(f)),
            other => other.clone(),
        })
        .collect()
}

/// The entry under literal key `k` of a value known only as a whole: of a parameter, or of a
/// parameter's field (`task.getInputData().get("idempotencyKey")`), that entry, so a caller
/// passes only what it put under that key.
pub(super) fn entry_of(t: &Taint, k: &str) -> Taint {
    t.iter()
        .map(|o| match o {
            Origin::Param(p) => Origin::ParamField(*p, FieldPath::one(k)),
            Origin::ParamField(p, g) => Origin::ParamField(*p, g.entry(k)),
            other => other.clone(),
        })
        .collect()
}

/// The property a builder method or setter writes: `setCustomer` → `customer`,
/// `withTimestamp` → `timestamp`, `timestamp` → `timestamp`.
pub(super) fn written_property(method: &str) -> String {
    property_of(method, "set")
        .or_else(|| property_of(method, "with"))
        .unwrap_or_else(|| method.to_string())
}

/// The field a zero-argument read names, when the shape has it: `getTimestamp()`,
/// `isActive()`, a record accessor or fluent getter `timestamp()`.
fn read_property<'s>(shape: &'s Shape, method: &str) -> Option<(&'s String, &'s Taint)> {
    let candidates = [
        property_of(method, "get"),
        property_of(method, "is"),
        Some(method.to_string()),
    ];
    candidates
        .into_iter()
        .flatten()
        .find_map(|p| shape.fields.get_key_value(&p))
}

/// Is `e` a whole builder chain, `T.builder()…build()`, none of whose calls sets `property`
/// (`setConfirm(…)`, `confirm(…)`) to anything but `false` (`setConfirm(false)` is the
/// default written out)?
fn chain_without(e: &Expr, property: &str) -> bool {
    let Expr::Call(last) = e.peel() else {
        return false;
    };
    if !BUILDER_FINISHERS.contains(&last.name.as_str()) || !last.args.is_empty() {
        return false;
    }
    let mut at = last.recv.as_ref();
    while let Some(Expr::Call(c)) = at.map(|x| x.peel()) {
        if BUILDER_FACTORIES.contains(&c.name.as_str()) && c.args.is_empty() {
            return true;
        }
        if written_property(&c.name).eq_ignore_ascii_case(property) && !sets_false(c) {
            return false;
        }
        at = c.recv.as_ref();
    }
    false
}

/// Does the setter call `c` write `false` (`setConfirm(false)`, `confirm(Boolean.FALSE)`)?
fn sets_false(c: &crate::java::ir::Call) -> bool {
    match c.args.as_slice() {
        [a] => match a.peel() {
            Expr::Lit(v, _) => v == "false",
            Expr::Field(recv, name, _) => {
                name == "FALSE" && matches!(recv.peel(), Expr::Name(n, _) if n == "Boolean")
            }
            _ => false,
        },
        _ => false,
    }
}

impl Cx<'_> {
    /// Is `e` an object this method built by one builder chain that never sets `property`:
    /// the chain itself, or a local declared once with it and never assigned again?
    pub(super) fn built_without(&self, e: &Expr, property: &str) -> bool {
        let e = e.peel();
        let Expr::Name(n, _) = e else {
            return chain_without(e, property);
        };
        let Some(body) = self.method.peek_body() else {
            return false;
        };
        let mut init = None;
        let mut writes = 0;
        for node in Node::all(&body) {
            match node {
                Node::Stmt(Stmt::Local { name, init: i, .. }) if name == n => {
                    writes += 1;
                    init = i.as_ref();
                }
                Node::Expr(Expr::Assign(a)) if matches!(&a.target, Expr::Name(x, _) if x == n) => {
                    writes += 1;
                }
                _ => {}
            }
        }
        writes == 1 && init.is_some_and(|i| chain_without(i, property))
    }

    /// The shape of the value of `e`, when it is known.
    pub(super) fn shape_of(&self, e: &Expr) -> Option<Shape> {
        let e = e.peel();
        if let Some(s) = self.shapes.get(&e.span()) {
            return Some(s.clone());
        }
        self.place_of(e).and_then(|p| self.shape_of_place(&p))
    }

    /// Field `f` of the object at place `b`, a copy's original: as written here, else the
    /// part of its whole value.
    fn base_field(&self, b: &Place, f: &str) -> Taint {
        if let Some(v) = self.env.get(&Place::prop(b.clone(), f)) {
            return v.clone();
        }
        match b {
            Place::This(n) => part_of(&self.read_field(n), f),
            _ => self.env.get(b).map(|t| part_of(t, f)).unwrap_or_default(),
        }
    }

    /// The fields written into the object at a place. This scans the environment, so it is
    /// asked only where an object leaves the method or a builder is finished.
    pub(super) fn shape_of_place(&self, p: &Place) -> Option<Shape> {
        let mut s = Shape::default();
        let mut known = false;
        if let Some(n) = p.as_local() {
            if self.builders.contains(n) {
                s.builder = true;
                known = true;
            }
            // An object a builder chain made here: the environment lists every field it set.
            if self.built.contains(n) {
                s.complete = true;
                known = true;
            }
            if let Some(b) = self.copies.get(n) {
                s.base = Some(b.clone());
                known = true;
            }
        }
        for (k, v) in &self.env {
            match k {
                Place::Prop(o, f) if **o == *p => {
                    s.fields.insert(f.clone(), v.clone());
                    known = true;
                }
                Place::Key(o, f) if **o == *p => {
                    s.map = true;
                    s.fields.insert(f.clone(), v.clone());
                    known = true;
                }
                _ => {}
            }
        }
        known.then_some(s)
    }

    /// Is `e` a builder (a chain started by `builder()`, or a local holding one)?
    pub(super) fn is_builder(&self, e: &Expr) -> bool {
        let e = e.peel();
        if let Some(s) = self.shapes.get(&e.span()) {
            return s.builder;
        }
        matches!(e, Expr::Name(n, _) if self.builders.contains(n))
    }

    /// Field `f` of the object `e` evaluates to; `t` is the whole value of `e`. `None`: `this`.
    pub(super) fn field_of(&self, e: Option<&Expr>, t: &Taint, f: &str) -> Taint {
        let e = match e.map(Expr::peel) {
            None | Some(Expr::This(_)) => return self.read_field(f),
            Some(e) => e,
        };
        if let Some(s) = self.shapes.get(&e.span()) {
            if let Some(v) = s.fields.get(f) {
                return v.clone();
            }
            if let Some(b) = &s.base {
                return self.base_field(b, f);
            }
            if s.complete && !s.map && !WHOLE_OBJECT_READS.contains(&f) {
                return Taint::new();
            }
        }
        if let Some(p) = self.place_of(e) {
            for q in [Place::prop(p.clone(), f), Place::key(p.clone(), f)] {
                if let Some(v) = self.env.get(&q) {
                    return v.clone();
                }
            }
            // A property a copy of another object did not set: the original's.
            if let Some(b) = p.as_local().and_then(|n| self.copies.get(n)) {
                return self.base_field(b, f);
            }
            // A property the builder chain that made the object never set.
            if p.as_local().is_some_and(|n| self.built.contains(n))
                && !WHOLE_OBJECT_READS.contains(&f)
            {
                return Taint::new();
            }
        }
        part_of(t, f)
    }

    /// The part at `path` of the object `e` evaluates to (`t` is its whole value; `None`:
    /// `this`): the first part as [`Self::field_of`] reads it, its entry from where this method
    /// wrote it (`step.getInputData().put("k", v)`, `m.put("k", v)` on a map stored with
    /// `step.setInputData(m)`), else as an entry of the value of the first part.
    pub(super) fn field_path_of(&self, e: Option<&Expr>, t: &Taint, path: &FieldPath) -> Taint {
        let v = self.field_of(e, t, path.first());
        let Some(k) = path.entry_key() else {
            return v;
        };
        let owners: Vec<Place> = match e.map(Expr::peel) {
            None | Some(Expr::This(_)) => vec![Place::this(path.first())],
            Some(x) => self
                .place_of(x)
                .map(|p| {
                    vec![
                        Place::prop(p.clone(), path.first()),
                        Place::key(p, path.first()),
                    ]
                })
                .unwrap_or_default(),
        };
        let mut held = Taint::new();
        let mut known = false;
        for o in owners {
            if let Some(h) = self.env.get(&Place::key(o, k)) {
                union(&mut held, h);
                known = true;
            }
        }
        if known { held } else { entry_of(&v, k) }
    }

    /// What a callee's parameter paths hold for these arguments.
    pub(super) fn args_at(
        &self,
        paths: &BTreeSet<ParamPath>,
        args: &[Expr],
        arg_taints: &[Taint],
    ) -> Taint {
        let mut t = Taint::new();
        for p in paths {
            match p {
                ParamPath::Whole(i) => {
                    if let Some(a) = arg_taints.get(*i as usize) {
                        union(&mut t, a);
                    }
                }
                ParamPath::Field(i, g) => {
                    if let (Some(e), Some(a)) = (args.get(*i as usize), arg_taints.get(*i as usize))
                    {
                        union(&mut t, &self.field_path_of(Some(e), a, g));
                    }
                }
            }
        }
        t
    }

    /// A zero-argument read of a field of an object whose shape is known (`dto.getTimestamp()`
    /// on a chain, `map.get("k")`), before the call is resolved.
    pub(super) fn read_known_part(&self, c: &Call, args: &[Taint]) -> Option<Taint> {
        let r = c.recv.as_ref()?;
        if matches!(c.name.as_str(), "get" | "getOrDefault") && !c.args.is_empty() {
            let key = self.project.constant(self.class, &c.args[0])?;
            let mut t = match self.shapes.get(&r.peel().span()) {
                Some(s) if s.map => s.fields.get(&key)?.clone(),
                Some(_) => return None,
                None => self.env.get(&Place::key(self.place_of(r)?, &key))?.clone(),
            };
            if c.name == "getOrDefault"
                && let Some(d) = args.get(1)
            {
                union(&mut t, d);
            }
            return Some(t);
        }
        if !c.args.is_empty() {
            return None;
        }
        let s = self.shapes.get(&r.peel().span()).filter(|s| !s.map)?;
        read_property(s, &c.name).map(|(_, t)| t.clone())
    }

    /// After a library call: the shape of its value (a builder step, a built object, a
    /// literal map), and the entry a `put` under a constant key writes.
    pub(super) fn library_shape(&mut self, c: &Call, args: &[Taint]) {
        let recv = c.recv.as_ref();
        let recv_is_type = recv.is_some_and(|r| self.is_type_name(r));
        if recv_is_type
            && c.name == "of"
            && let Some(shape) = self.literal_map(c, args)
        {
            self.shapes.insert(c.span, shape);
            return;
        }
        if BUILDER_FACTORIES.contains(&c.name.as_str()) && c.args.is_empty() {
            self.shapes.insert(c.span, Shape::fresh_builder());
            return;
        }
        let Some(r) = recv.filter(|_| !recv_is_type) else {
            return;
        };
        if c.name == "put"
            && args.len() == 2
            && let Some(owner) = self.place_of(r)
            && let Some(key) = self.project.constant(self.class, &c.args[0])
        {
            self.assign_place(Place::key(owner, &key), args[1].clone(), true, None);
            return;
        }
        if c.name == "toBuilder" && c.args.is_empty() {
            let mut s = self.shape_of(r).unwrap_or_default();
            s.builder = true;
            if !s.complete && s.base.is_none() {
                s.base = self.place_of(r);
            }
            self.shapes.insert(c.span, s);
            return;
        }
        // A Lombok `@With` method, generated (not in the source) on a project class: a copy
        // with one property replaced.
        if args.len() == 1
            && !self.is_builder(r)
            && let Some(prop) = property_of(&c.name, "with")
            && self
                .type_of(r)
                .is_some_and(|t| matches!(t, crate::semantic::TypeRef::Project(_)))
        {
            let mut s = self.shape_of(r).unwrap_or_default();
            if !s.complete && s.base.is_none() {
                s.base = self.place_of(r);
            }
            s.fields.insert(prop, args[0].clone());
            self.shapes.insert(c.span, s);
            return;
        }
        if !self.is_builder(r) {
            return;
        }
        if args.len() == 1 {
            let prop = written_property(&c.name);
            // A builder known only by its local: the fields set before are in the environment.
            let mut s = self
                .shapes
                .get(&r.peel().span())
                .cloned()
                .unwrap_or_else(Shape::builder);
            s.fields.insert(prop.clone(), args[0].clone());
            if let Some(owner) = self.place_of(r) {
                self.assign_place(Place::prop(owner, &prop), args[0].clone(), true, None);
            }
            self.shapes.insert(c.span, s);
        } else if c.args.is_empty() && BUILDER_FINISHERS.contains(&c.name.as_str()) {
            // Fields set before this method's code are known only as the builder's whole value.
            let mut s = self.shape_of(r).unwrap_or_default();
            s.builder = false;
            self.shapes.insert(c.span, s);
        }
    }

    /// `Map.of("k", v, …)` / `ImmutableMap.of(…)` with constant keys.
    fn literal_map(&self, c: &Call, args: &[Taint]) -> Option<Shape> {
        let ty = self.resolve(&c.recv.as_ref()?.dotted()?);
        if !MAP_FACTORIES.iter().any(|m| self.project.type_is(&ty, m))
            || !c.args.len().is_multiple_of(2)
        {
            return None;
        }
        let mut s = Shape {
            map: true,
            ..Shape::default()
        };
        for (i, pair) in c.args.chunks(2).enumerate() {
            let key = self.project.constant(self.class, &pair[0])?;
            s.fields
                .insert(key, args.get(2 * i + 1).cloned().unwrap_or_default());
        }
        Some(s)
    }

    /// `T x = <shaped value>` / `x = <shaped value>`: the fields of `x`.
    pub(super) fn object_fields(&mut self, local: &str, init: Option<&Expr>) {
        let shape = init.and_then(|e| self.shapes.get(&e.peel().span()).cloned());
        self.built.remove(local);
        self.copies.remove(local);
        let Some(shape) = shape else {
            self.builders.remove(local);
            // Another name for an object held elsewhere (`input = step.getInputData()`).
            if let Some(from) = init.and_then(|e| self.place_of(e)) {
                self.carry_parts(&from, &Place::local(local));
            }
            return;
        };
        if shape.complete && !shape.builder && !shape.map {
            self.built.insert(local.to_string());
        }
        if let Some(b) = &shape.base
            && *b != Place::local(local)
        {
            self.copies.insert(local.to_string(), b.clone());
        }
        if shape.builder {
            self.builders.insert(local.to_string());
        } else {
            self.builders.remove(local);
        }
        for (f, t) in &shape.fields {
            self.env
                .insert(shape.place(Place::local(local), f), t.clone());
        }
    }

    /// A constructor's or a builder type's new object: the shape its summary gives it.
    pub(super) fn new_object_shape(&mut self, n: &New, fields: Shape) {
        let simple = n.ty.rsplit('.').next().unwrap_or(&n.ty);
        let simple = simple.split('<').next().unwrap_or(simple);
        let builder = simple.ends_with("Builder") && !NOT_FIELD_BUILDERS.contains(&simple);
        let mut s = fields;
        s.builder = builder;
        self.shapes.insert(n.span, s);
    }

    /// The summary form of a per-attempt value evaluated here.
    pub(super) fn source_desc(&self, i: u32) -> SourceDesc {
        let s = &self.out.sources[i as usize];
        let mut d = s.via.clone().unwrap_or_else(|| SourceDesc {
            row: s.row.clone(),
            kind: s.kind,
            label: s.label.clone(),
            loc: Loc {
                file: self.id.0,
                span: s.span,
            },
            when: Vec::new(),
            committed: false,
        });
        // The tests it was evaluated under here (those of a callee's source, translated).
        d.when = s.when.clone();
        d.committed = self.committed_sources.contains(&i);
        d
    }

    /// A callee's source `d`, made here by a call with arguments `arg_exprs` (evaluated to
    /// `args`): nothing when the arguments fail a test the callee evaluates it under, else a
    /// per-attempt value under the tests they pass on to this method's parameters.
    pub(super) fn fresh_from(
        &mut self,
        d: &SourceDesc,
        (arg_exprs, args): (&[Expr], &[Taint]),
        (span, scope): (Span, ScopeId),
        label: String,
    ) -> Taint {
        let Some(extra) = self.translate_conds(&d.when, arg_exprs, args) else {
            return Taint::new();
        };
        // A record the callee committed on its return: stable here, unless this method's own
        // transaction holds it (then it commits when this method returns).
        let holds = d.committed && self.transaction_of(self.id).is_some_and(|t| t.inside);
        if d.committed && !holds {
            return Taint::new();
        }
        let t = self.under(extra, |cx| {
            cx.fresh(d.kind, "", span, scope, label, Some(d.clone()))
        });
        if holds {
            self.mark_committed(&t);
        }
        t
    }

    /// The per-attempt values in `t` are saved as a record in this method's own transaction:
    /// committed when it returns ([`SourceDesc::committed`]).
    pub(super) fn mark_committed(&mut self, t: &Taint) {
        for o in t {
            if let Origin::Fresh(i) = o {
                self.committed_sources.insert(*i);
            }
        }
    }

    /// At a `return` of the method: `this` (a fluent method), or the fields of the object
    /// returned, for the summary.
    pub(super) fn note_return_shape(&mut self, e: &Expr) {
        if matches!(e.peel(), Expr::This(_)) {
            self.out.summary.ret_this = true;
            return;
        }
        let Some(shape) = self.shape_of(e) else {
            // An object whose fields are not known: the returned object is not fully listed.
            if !matches!(e.peel(), Expr::Null(_)) {
                self.ret_unshaped = true;
            }
            return;
        };
        let mut fields = BTreeMap::new();
        for (f, t) in &shape.fields {
            let mut flow = FieldFlow::default();
            for o in t {
                match o {
                    Origin::Param(p) => {
                        flow.params.insert(ParamPath::Whole(*p));
                    }
                    Origin::ParamField(p, g) => {
                        flow.params.insert(ParamPath::Field(*p, g.clone()));
                    }
                    Origin::Field(g) => {
                        flow.this_fields.insert(g.clone());
                    }
                    // A counter local to this method starts again on every call.
                    Origin::Fresh(i)
                        if matches!(self.out.sources[*i as usize].counter_decl, Some(Some(_))) => {}
                    Origin::Fresh(i) => {
                        let d = self.source_desc(*i);
                        keep_source(&mut flow.sources, d.kind, d);
                    }
                    Origin::Keyed | Origin::Lock | Origin::Container(_) => {}
                }
            }
            fields.insert(f.clone(), flow);
        }
        let ret = self.ret_shape.get_or_insert_with(|| RetShape {
            fields: BTreeMap::new(),
            map: shape.map,
            builder: shape.builder,
            complete: shape.complete,
        });
        ret.builder &= shape.builder;
        ret.complete &= shape.complete;
        for (f, flow) in fields {
            let slot = ret.fields.entry(f).or_default();
            slot.params.extend(flow.params);
            slot.this_fields.extend(flow.this_fields);
            for (k, d) in flow.sources {
                keep_source(&mut slot.sources, k, d);
            }
        }
    }

    /// The per-attempt values a project method called on another object leaves in that
    /// object's fields (`builder.withDefaults()` storing `UUID.randomUUID()` in its
    /// `idempotencyKey`), as origins made here: (field, value, whether the callee assigns the
    /// field on every path, which overwrites what the field held).
    pub(super) fn fields_minted_by(
        &mut self,
        c: &Call,
        summary: &Summary,
        callee: MethodId,
        args: &[Taint],
    ) -> Vec<(String, Taint, bool)> {
        let mut out = Vec::new();
        for (f, d) in &summary.field_sources {
            let label = format!("{}() (which stores {} in `{f}`)", c.name, d.label);
            let t = self.fresh_from(d, (&c.args, args), (c.span, c.scope), label);
            if t.is_empty() {
                continue;
            }
            let m = self.project.method(callee);
            let every_path = !m.params.iter().any(|p| p.name == *f)
                && m.body().is_some_and(|b| assigns_field_first_level(b, f));
            out.push((f.clone(), t, every_path));
        }
        out
    }

    /// The object a project call returns, from the callee's summary: its fields in this
    /// method's terms. `fresh_of`: the per-attempt origins already made for the call's
    /// returned sources, reused so that one source is one origin; `minted`: what
    /// [`Self::fields_minted_by`] made for a fluent callee.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn returned_shape(
        &mut self,
        c: &Call,
        summary: &Summary,
        on_this: bool,
        recv_t: &Taint,
        args: &[Taint],
        fresh_of: &BTreeMap<SourceKind, Taint>,
        minted: &[(String, Taint, bool)],
    ) -> Option<Shape> {
        if summary.ret_this {
            let mut s = match c.recv.as_ref().filter(|_| !on_this) {
                Some(r) => self.shapes.get(&r.peel().span()).cloned(),
                None => None,
            }
            .unwrap_or_else(Shape::builder);
            // The callee may set fields no summary lists (from constants, other fields).
            s.complete = false;
            for (f, ps) in &summary.field_params {
                s.fields.insert(f.clone(), self.args_at(ps, &c.args, args));
            }
            for (f, t, every_path) in minted {
                if *every_path {
                    s.fields.insert(f.clone(), t.clone());
                } else {
                    union(s.fields.entry(f.clone()).or_default(), t);
                }
            }
            return Some(s);
        }
        let ret = summary.ret_shape.as_ref()?;
        let mut s = Shape {
            fields: BTreeMap::new(),
            map: ret.map,
            builder: ret.builder,
            complete: ret.complete,
            base: None,
        };
        let recv = if on_this { None } else { c.recv.as_ref() };
        for (f, flow) in &ret.fields {
            let mut t = self.args_at(&flow.params, &c.args, args);
            for g in &flow.this_fields {
                union(&mut t, &self.field_of(recv, recv_t, g));
            }
            for (kind, d) in &flow.sources {
                match fresh_of.get(kind) {
                    Some(o) => union(&mut t, o),
                    None => {
                        let label = format!("{}() (whose `{f}` holds {})", c.name, d.label);
                        let o = self.fresh_from(d, (&c.args, args), (c.span, c.scope), label);
                        union(&mut t, &o);
                    }
                }
            }
            s.fields.insert(f.clone(), t);
        }
        Some(s)
    }
}

/// Does the block assign field `f` (`f = …`, `this.f = …`) in a statement of its own, not
/// under a condition, a loop or a `try`: on every path that reaches its end?
fn assigns_field_first_level(b: &Block, f: &str) -> bool {
    b.iter().any(|s| match s {
        Stmt::Expr(Expr::Assign(a)) if a.op == "=" => match a.target.peel() {
            Expr::Name(n, _) => n == f,
            Expr::Field(r, n, _) => n == f && matches!(**r, Expr::This(_)),
            _ => false,
        },
        _ => false,
    })
}

impl Cx<'_> {
    /// `coll.add(x)` on a collection held at a variable: the collection's parts are the parts
    /// its elements share (`items.add(new Item(requestId, key))` makes `items#key` hold what
    /// the elements' `key` holds), so a field read from an element (`for (Item i : items)
    /// i.getKey()`) holds only what was written into that field of some element. A part holds,
    /// for an element that does not list it, that element's whole value, and for the elements
    /// added before it was first listed, the collection's whole value then: so it never holds
    /// less than the whole collection did for that field.
    pub(super) fn add_element(&mut self, coll: &Place, arg: &Expr, whole: &Taint) {
        let before = self.env.get(coll).cloned().unwrap_or_default();
        let fields = self
            .shape_of(arg)
            .filter(|s| !s.map)
            .map(|s| s.fields)
            .unwrap_or_default();
        let parts: Vec<(String, Place)> = self
            .env
            .keys()
            .filter_map(|k| match k {
                Place::Prop(o, f) if **o == *coll => Some((f.clone(), k.clone())),
                _ => None,
            })
            .collect();
        for (f, place) in &parts {
            let t = fields.get(f).unwrap_or(whole).clone();
            union(self.env.entry(place.clone()).or_default(), &t);
        }
        for (f, t) in fields {
            if parts.iter().any(|(g, _)| *g == f) {
                continue;
            }
            let mut held = before.clone();
            union(&mut held, &t);
            self.env.insert(Place::prop(coll.clone(), &f), held);
        }
    }

    /// The object held at `from` is now also held at `to` (`step.setInputData(input)`,
    /// `Map<String, Object> input = step.getInputData()`): the parts written into it — entries
    /// under literal keys, properties — are parts of `to` too, in place of the parts `to` had.
    pub(super) fn carry_parts(&mut self, from: &Place, to: &Place) {
        if from == to || from.is_part_of(to) || to.is_part_of(from) {
            return;
        }
        let mut stale = Vec::new();
        let mut parts = Vec::new();
        for (k, v) in &self.env {
            if k.is_part_of(to) {
                stale.push(k.clone());
            } else if let Some(q) = k.moved(from, to) {
                parts.push((q, v.clone()));
            }
        }
        for k in stale {
            self.env.remove(&k);
        }
        parts.sort();
        for (mut q, v) in parts {
            if q.depth() <= MAX_FIELD_DEPTH {
                self.env.insert(q, v);
                continue;
            }
            // Below the tracked depth: a part of its ancestor at that depth.
            while q.depth() > MAX_FIELD_DEPTH {
                q = match q.parent() {
                    Some(o) => o.clone(),
                    None => break,
                };
            }
            union(self.env.entry(q).or_default(), &v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_field_stays_that_parameters_field() {
        let t: Taint = [Origin::Param(1), Origin::Fresh(0)].into();
        let p = part_of(&t, "orderId");
        assert!(p.contains(&Origin::ParamField(1, FieldPath::one("orderId"))));
        assert!(p.contains(&Origin::Fresh(0)));
        assert!(!p.contains(&Origin::Param(1)));
    }

    #[test]
    fn builder_methods_and_setters_name_the_property_they_write() {
        assert_eq!(written_property("timestamp"), "timestamp");
        assert_eq!(written_property("setCustomer"), "customer");
        assert_eq!(written_property("withRequestedAt"), "requestedAt");
        // `settle` is not a setter of `tle`.
        assert_eq!(written_property("settle"), "settle");
    }

    #[test]
    fn a_getter_reads_only_its_own_field() {
        let mut s = Shape::default();
        s.fields
            .insert("timestamp".into(), [Origin::Fresh(3)].into());
        s.fields.insert("orderId".into(), [Origin::Param(0)].into());
        let (f, t) = read_property(&s, "getTimestamp").unwrap();
        assert_eq!((f.as_str(), t), ("timestamp", &[Origin::Fresh(3)].into()));
        let (f, _) = read_property(&s, "orderId").unwrap();
        assert_eq!(f, "orderId");
        assert!(read_property(&s, "getCustomerId").is_none());
    }

    #[test]
    fn only_a_field_assigned_outside_every_condition_is_overwritten_on_every_path() {
        let facts = crate::java::parse(
            b"class B { B d() { this.key = \"a\"; if (x) { this.at = 1; } \
               try { this.id = 2; } finally {} name = 3; return this; } }",
        )
        .expect("parses");
        let m = facts.methods.iter().find(|m| m.name == "d").expect("d");
        let body = m.body().expect("body");
        assert!(assigns_field_first_level(body, "key"));
        assert!(assigns_field_first_level(body, "name"));
        assert!(!assigns_field_first_level(body, "at"));
        assert!(!assigns_field_first_level(body, "id"));
    }

    #[test]
    fn a_map_shape_holds_entries_not_properties() {
        let s = Shape {
            map: true,
            ..Shape::default()
        };
        assert_eq!(
            s.place(Place::local("payload"), "sentAt"),
            Place::key(Place::local("payload"), "sentAt")
        );
        assert_eq!(
            Shape::default().place(Place::local("dto"), "sentAt"),
            Place::prop(Place::local("dto"), "sentAt")
        );
    }
}
