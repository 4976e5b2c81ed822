//! Objects: constructors, the fields they set, and what a method leaves in `this` fields.

use super::calls::annotation_value;
use super::cx::*;
use super::model::AnnotationUse;
use super::place::*;
use super::shapes::Shape;
use super::site::CallSite;
use super::*;
use crate::java::ir::*;
use crate::semantic::{Loc, TypeRef};
use std::collections::{BTreeMap, BTreeSet};

impl Cx<'_> {
    pub(super) fn eval_new(&mut self, n: &New) -> Taint {
        let mut args = Vec::with_capacity(n.args.len());
        for a in &n.args {
            args.push(self.eval(a));
        }
        let mut t = Taint::new();
        for a in &args {
            union(&mut t, a);
        }
        // An anonymous class of several methods is an object with accessors: what each
        // parameterless method returns comes back only through a call of it (`row.occurredAt()`
        // leaves `row.idempotencyKey()` stable), like a field. A class of one method is a
        // function: the object holds what it returns.
        let mut accessors = Shape::default();
        let several = n.anon.len() > 1;
        for a in &n.anon {
            let r = self.eval_anon(a);
            let accessor = several
                && self
                    .method
                    .scopes
                    .get(a.scope as usize)
                    .is_some_and(|sc| sc.params.is_empty());
            if accessor {
                union(accessors.fields.entry(a.name.clone()).or_default(), &r);
            } else {
                union(&mut t, &r);
            }
        }
        let ty = self.resolve(&n.ty);
        let here = Loc {
            file: self.file(),
            span: n.span,
        };
        let site = CallSite::new_object(self, n);
        if let Some(src) = self.model.source(&site) {
            let (kind, row) = (src.kind, src.row.to_string());
            let label = format!("new {}()", n.ty);
            return self.fresh(kind, &row, n.span, n.scope, label, None);
        }
        let sinks: Vec<(usize, String, Option<String>)> = self
            .model
            .key_sinks(&site)
            .iter()
            .map(|k| (k.arg, k.row.to_string(), k.name.clone()))
            .collect();
        for (arg, row, name) in sinks {
            if let Some(a) = args.get(arg) {
                let a = a.clone();
                let label = match name {
                    Some(h) => format!("the `{h}` header of `new {}(…)`", n.ty),
                    None => format!("argument {} of `new {}(…)`", arg + 1, n.ty),
                };
                self.effect(
                    EffectKind::KeySink,
                    n.span,
                    label.clone(),
                    row.clone(),
                    n.scope,
                    false,
                );
                t.insert(Origin::Keyed);
                self.sink(
                    &a,
                    SinkRef {
                        loc: here.clone(),
                        label,
                        at_argument: false,
                        row,
                        row_write: matches!(self.resolve(&n.ty), crate::semantic::TypeRef::Project(k) if self.is_entity_class(k)),
                        when: Vec::new(),
                        after_saves: BTreeMap::new(),
                    },
                    n.scope,
                    n.span,
                );
            }
        }
        let mut shape = accessors;
        let sums = self.sums;
        if let TypeRef::Project(k) = ty {
            // Its constructors, its and its superclasses' field initializers, and the
            // superclass constructors run without an explicit `super(…)`.
            let targets = self.project.construction(k, n.args.len());
            // The parameters a constructor keeps whole in fields it lists, and the per-attempt
            // values its body or the field initializers leave in named fields.
            let mut listed: BTreeSet<usize> = BTreeSet::new();
            let mut sourced: Vec<(String, Taint, bool)> = Vec::new();
            for m in targets {
                self.edge(n.scope, m);
                let s = sums.of(m);
                let mut hits = Vec::new();
                for (p, sink) in &s.param_sinks {
                    let t = self.args_at(&BTreeSet::from([p.clone()]), &n.args, &args);
                    let i = match p {
                        ParamPath::Whole(i) | ParamPath::Field(i, _) => *i as usize,
                    };
                    if i < args.len() {
                        hits.push((t, self.at_argument(sink, n.args.get(i).map(|a| a.span()))));
                    }
                }
                let fs: Vec<(String, SourceDesc)> = s
                    .field_sources
                    .iter()
                    .map(|(f, d)| (f.clone(), d.clone()))
                    .collect();
                for (f, ps) in &s.field_params {
                    let t = self.args_at(ps, &n.args, &args);
                    union(shape.fields.entry(f.clone()).or_default(), &t);
                    listed.extend(ps.iter().map(|p| match p {
                        ParamPath::Whole(i) | ParamPath::Field(i, _) => *i as usize,
                    }));
                }
                for (a, sink) in hits {
                    self.sink(&a, sink, n.scope, n.span);
                }
                for (field, d) in fs {
                    let label = format!("new {}() (whose fields hold {})", n.ty, d.label);
                    let f = self.fresh_from(&d, (&n.args, &args), (n.span, n.scope), label);
                    if f.is_empty() {
                        continue;
                    }
                    union(&mut t, &f);
                    sourced.push((field, f, self.project.method(m).name == "<init>"));
                }
            }
            // A field given a per-attempt value (`private UUID id = UUID.randomUUID();`, or by
            // the constructor's body) holds that value and the arguments the constructor does
            // not keep whole in a field it lists (it may derive the field from them): not the
            // whole object, so the object's other fields stay out of a key built from it. A
            // field the constructor lists as set from its parameters holds those: its
            // initializer's value was replaced.
            let mut unlisted = Taint::new();
            for (i, a) in args.iter().enumerate() {
                if !listed.contains(&i) {
                    union(&mut unlisted, a);
                }
            }
            for (field, f, initializer) in sourced {
                if initializer && shape.fields.contains_key(&field) {
                    continue;
                }
                let held = shape.fields.entry(field).or_default();
                union(held, &f);
                union(held, &unlisted);
            }
        }
        self.new_object_shape(n, shape);
        t
    }

    /// `build()` on a builder a code generator writes (Lombok's `@Builder`): a field whose
    /// annotation gives it its initializer (`@Builder.Default`) and that the chain left unset
    /// holds the initializer's value, evaluated by this call, so a per-attempt one
    /// (`UUID.randomUUID()`) is a source here. What the built object holds.
    pub(super) fn builder_defaults(&mut self, c: &Call) -> Taint {
        let mut t = Taint::new();
        let Some(r) = c
            .recv
            .as_ref()
            .filter(|_| c.name == "build" && c.args.is_empty())
        else {
            return t;
        };
        let Some(ty) = self.type_of(r) else {
            return t;
        };
        let classes = self.with_typer(|x| x.built_classes(&ty));
        if classes.is_empty() {
            return t;
        }
        let built = self.project.class(classes[0]).name.to_string();
        let set = self.shape_of(r).unwrap_or_default().fields;
        let sums = self.sums;
        let project = self.project;
        let mut made: Vec<(String, Taint)> = Vec::new();
        for k in classes {
            let class = project.class(k);
            let Some(init) = class.initializer.map(|i| (k.0, i as u32)) else {
                continue;
            };
            self.edge(c.scope, init);
            let summary = sums.of(init);
            for f in &class.fields {
                let name = f.name.to_string();
                let defaulted = class.initialized_annotations.iter().any(|(g, a)| {
                    let at = project.resolve_type(k.0, Some(k.1 as usize), a);
                    *g == f.name && self.model.is_builder_default(&|x| project.type_is(&at, x))
                });
                let Some(d) = summary.field_sources.get(&name).filter(|_| defaulted) else {
                    continue;
                };
                if set.contains_key(&name) || made.iter().any(|(g, _)| *g == name) {
                    continue;
                }
                let label = format!(
                    "{built}.builder()…build() (whose {name} defaults to {})",
                    d.label
                );
                let v = self.fresh(d.kind, "", c.span, c.scope, label, Some(d.clone()));
                union(&mut t, &v);
                made.push((name, v));
            }
        }
        if let Some(s) = self.shapes.get_mut(&c.span) {
            s.fields.extend(made);
        }
        t
    }

    /// What the method leaves in `this` fields from its parameters: a constructor's fields
    /// (records: each component from its own parameter), a setter's or builder method's
    /// property. A field that also holds anything else is not described here.
    pub(super) fn constructor_fields(&mut self) {
        let m = self.method;
        if !m.has_body() {
            if m.is_ctor {
                for (i, p) in m.params.iter().enumerate() {
                    self.out
                        .summary
                        .field_params
                        .entry(p.name.to_string())
                        .or_default()
                        .insert(ParamPath::Whole(i as u16));
                }
            }
            return;
        }
        let mut found: Vec<(String, BTreeSet<ParamPath>)> = Vec::new();
        for (k, v) in &self.env {
            if let Place::This(f) = k
                && !v.is_empty()
                && v.iter()
                    .all(|o| matches!(o, Origin::Param(_) | Origin::ParamField(..)))
            {
                let ps = v
                    .iter()
                    .filter_map(|o| match o {
                        Origin::Param(p) => Some(ParamPath::Whole(*p)),
                        Origin::ParamField(p, g) => Some(ParamPath::Field(*p, g.clone())),
                        _ => None,
                    })
                    .collect();
                found.push((f.to_string(), ps));
            }
        }
        // A compact record constructor assigns each component from its parameter at its end.
        if m.is_ctor && self.is_compact_constructor() {
            for (i, p) in m.params.iter().enumerate() {
                let v = self.env.get(&Place::local(&p.name));
                let ps: BTreeSet<ParamPath> = match v {
                    None => [ParamPath::Whole(i as u16)].into(),
                    Some(v) => v
                        .iter()
                        .filter_map(|o| match o {
                            Origin::Param(q) => Some(ParamPath::Whole(*q)),
                            Origin::ParamField(q, g) => Some(ParamPath::Field(*q, g.clone())),
                            _ => None,
                        })
                        .collect(),
                };
                if !ps.is_empty() && !found.iter().any(|(f, _)| *f == p.name) {
                    found.push((p.name.to_string(), ps));
                }
            }
        }
        found.sort();
        self.out.summary.field_params.extend(found);
    }

    /// A compact canonical constructor: its parameters are the record's components.
    fn is_compact_constructor(&self) -> bool {
        let m = self.method;
        !m.params.is_empty()
            && m.params.iter().all(|p| {
                self.project
                    .field(self.class, &p.name)
                    .is_some_and(|(k, f)| k == self.class && f.span == p.span)
            })
    }

    /// At a normal exit, `this` fields holding per-attempt values are part of the summary.
    pub(super) fn note_exit_fields(&mut self) {
        let mut found = Vec::new();
        for (k, v) in &self.env {
            if let Place::This(f) = k {
                for o in v {
                    if let Origin::Fresh(i) = o {
                        found.push((f.to_string(), *i));
                    }
                }
            }
        }
        // A compact record constructor assigns each component from its parameter at its end
        // (`if (key == null) key = UUID.randomUUID().toString();`).
        if self.method.is_ctor && self.is_compact_constructor() {
            for p in &self.method.params {
                for o in self.env.get(&Place::local(&p.name)).into_iter().flatten() {
                    if let Origin::Fresh(i) = o {
                        found.push((p.name.to_string(), *i));
                    }
                }
            }
        }
        found.sort();
        for (f, i) in found {
            let desc = self.source_desc(i);
            keep_source(&mut self.out.summary.field_sources, f, desc);
        }
        // Properties of the objects the parameters refer to (not of a parameter the method
        // points elsewhere: `envelope = new Envelope()` leaves the caller's object alone).
        let mut into_params = Vec::new();
        for (k, v) in &self.env {
            let Place::Prop(owner, f) = k else { continue };
            let Place::Local(n) = owner.as_ref() else {
                continue;
            };
            let Some(i) = self.method.params.iter().position(|p| p.name == *n) else {
                continue;
            };
            if self.assigned_params.contains(n.as_str()) {
                continue;
            }
            for o in v {
                if let Origin::Fresh(s) = o {
                    into_params.push(((i as u16, f.to_string()), *s));
                }
            }
        }
        into_params.sort();
        for (slot, i) in into_params {
            let desc = self.source_desc(i);
            keep_source(&mut self.out.summary.param_field_sources, slot, desc);
        }
        // What mutators (`append`, `add…`) put into a parameter's object as a whole: a parameter
        // never assigned holds only the caller's object and what was added to it.
        let mut added = Vec::new();
        for (i, p) in self.method.params.iter().enumerate() {
            if self.assigned_params.contains(p.name.as_str()) {
                continue;
            }
            for o in self.env.get(&Place::local(&p.name)).into_iter().flatten() {
                if let Origin::Fresh(s) = o {
                    added.push((i as u16, *s));
                }
            }
        }
        added.sort();
        for (slot, i) in added {
            let desc = self.source_desc(i);
            keep_source(&mut self.out.summary.param_added_sources, slot, desc);
        }
    }

    pub(super) fn finish_fields(&mut self) {
        self.note_exit_fields();
    }

    /// The headers whose templates, in annotations of type `templates` on this method or its
    /// class (`@Headers({"Idempotency-Key: {key}", …})`), use the parameter named `param`.
    fn templated_headers(&self, templates: &[String], param: &str) -> Vec<String> {
        let placeholder = format!("{{{param}}}");
        let class = self.project.class(self.class);
        let mut out = Vec::new();
        for a in self.method.annotations.iter().chain(&class.annotations) {
            let t = self.resolve(&a.name);
            if !templates.iter().any(|x| self.project.type_is(&t, x)) {
                continue;
            }
            let Some(v) = annotation_value(a) else {
                continue;
            };
            let lines = match v.peel() {
                Expr::Op(xs, _) => xs.iter().collect(),
                one => vec![one],
            };
            for line in lines {
                let Some(text) = self.project.constant(self.class, line) else {
                    continue;
                };
                if let Some((name, value)) = text.split_once(':')
                    && value.contains(&placeholder)
                {
                    out.push(name.trim().to_string());
                }
            }
        }
        out
    }

    /// Key-named parameters and header-annotated parameters of client interfaces are sinks
    /// whatever the body does.
    pub(super) fn static_param_sinks(&mut self) {
        let m = self.method;
        // A constructor or method of a persistent entity writes its key parameter into a row.
        let row_write = self.is_entity_class(self.class);
        for (i, p) in m.params.iter().enumerate() {
            let i = i as u16;
            if self
                .out
                .summary
                .param_sinks
                .contains_key(&ParamPath::Whole(i))
            {
                continue;
            }
            let loc = Loc {
                file: self.id.0,
                span: m.name_span,
            };
            if self.model.is_key_param(&p.name) {
                if self.stored_only_if_absent(p) {
                    // The query inserts it into a new row only: the row keeps the first key.
                    continue;
                }
                self.out.summary.param_sinks.insert(
                    ParamPath::Whole(i),
                    SinkRef {
                        loc: loc.clone(),
                        label: format!("parameter `{}` of `{}`", p.name, m.name),
                        at_argument: true,
                        row: String::new(),
                        row_write,
                        when: Vec::new(),
                        after_saves: BTreeMap::new(),
                    },
                );
                continue;
            }
            // A record component or a constructor parameter named as a body field with a key
            // name (`@JsonProperty("idempotency_key") String reference`), or the one parameter
            // of a setter or builder method of a field so named.
            let own_field = super::calls::field_of_method(&m.name);
            let written = (m.params.len() == 1
                && self
                    .project
                    .field(self.class, &own_field)
                    .is_some_and(|(k, _)| k == self.class))
            .then(|| self.field_body_key(self.class, &own_field))
            .flatten();
            if let Some((field, row)) = self.key_body_field(&p.annotations).or(written) {
                self.out.summary.param_sinks.insert(
                    ParamPath::Whole(i),
                    SinkRef {
                        loc: loc.clone(),
                        label: format!(
                            "the body field `{field}` of `{}`",
                            self.project.class(self.class).name
                        ),
                        at_argument: true,
                        row,
                        row_write,
                        when: Vec::new(),
                        after_saves: BTreeMap::new(),
                    },
                );
                continue;
            }
            if m.modifiers.is_abstract {
                for a in &p.annotations {
                    let t = self.resolve(&a.name);
                    let is = |h: &str| self.project.type_is(&t, h);
                    let value =
                        annotation_value(a).and_then(|v| self.project.constant(self.class, v));
                    let templates = self.model.header_templates(&is);
                    // A template parameter is a key by its own name (`@Param("idempotencyKey")`,
                    // wherever the request uses it) or by the header it fills.
                    let key = value.as_deref().is_some_and(|v| {
                        !templates.is_empty()
                            && (self.model.is_key_header_name(v)
                                || self
                                    .templated_headers(&templates, v)
                                    .iter()
                                    .any(|h| self.model.is_key_header_name(h)))
                    }) || self
                        .model
                        .is_key_header_param(&AnnotationUse { is: &is, value });
                    if key {
                        self.out.summary.param_sinks.insert(
                            ParamPath::Whole(i),
                            SinkRef {
                                loc: loc.clone(),
                                label: format!("header parameter `{}` of `{}`", p.name, m.name),
                                at_argument: true,
                                row: String::new(),
                                row_write: false,
                                when: Vec::new(),
                                after_saves: BTreeMap::new(),
                            },
                        );
                    }
                }
            }
        }
    }
}

impl Cx<'_> {
    /// The key name a body-field annotation among `annotations` gives (`@JsonProperty
    /// ("idempotency_key")`), if one does, and its row.
    pub(super) fn key_body_field(
        &self,
        annotations: &[crate::java::ir::Annotation],
    ) -> Option<(String, String)> {
        annotations.iter().find_map(|a| {
            let value = annotation_value(a).and_then(|v| self.project.constant(self.class, v));
            self.body_field_named(self.class, &a.name, value)
        })
    }

    /// The key name and row when field `field` of class `k` (or of its project superclasses)
    /// is named as a body field with a key name by an annotation.
    pub(super) fn field_body_key(
        &self,
        k: crate::semantic::ClassRef,
        field: &str,
    ) -> Option<(String, String)> {
        let (owner, f) = self.project.field(k, field)?;
        self.project
            .class(owner)
            .field_named(&f.name)
            .find_map(|(a, v)| self.body_field_named(owner, &a, Some(v.to_string())))
    }

    /// The key name and row when annotation `name` (written in class `class`) with value
    /// `value` names a body field with a key name.
    pub(super) fn body_field_named(
        &self,
        class: crate::semantic::ClassRef,
        name: &str,
        value: Option<String>,
    ) -> Option<(String, String)> {
        let t = self
            .project
            .resolve_type(class.0, Some(class.1 as usize), name);
        let is = |h: &str| self.project.type_is(&t, h);
        let row = self.model.key_body_field(&AnnotationUse {
            is: &is,
            value: value.clone(),
        })?;
        Some((value?, row))
    }

    /// Is parameter `p` of this (query) method stored only into a new row by the SQL of one of
    /// its annotations (`@Query(value = "insert … on conflict (…) do update set status = …")`),
    /// bound by its own name or by the name an annotation of it gives (`@Param("key")`)?
    fn stored_only_if_absent(&self, p: &crate::java::ir::Param) -> bool {
        let mut bound = vec![p.name.to_string()];
        bound.extend(
            p.annotations
                .iter()
                .filter_map(|a| self.project.constant(self.class, annotation_value(a)?)),
        );
        self.method.annotations.iter().any(|a| {
            a.args.iter().any(|(_, v)| {
                self.constant_text(self.class, v).is_some_and(|sql| {
                    bound
                        .iter()
                        .any(|b| super::sql::stored_only_if_absent(&sql, b))
                })
            })
        })
    }
}
