//! HTTP client interceptors, through their registration (SPEC 3.2): an interceptor runs once
//! for each request it intercepts, so it is a region of its own only where the client it is
//! registered on re-sends a request by itself. The `[[regions.interceptor]]` rows say which
//! registrations tie an interceptor to such a client: a call on a client builder
//! (`addNetworkInterceptor(…)`, a pipeline's policies after its retry policy), or beans of a
//! declarative client's configuration together with a bean that makes the client re-send.
//! An interceptor whose registration is not found is not a region.

use super::pipelines::{collect_returns, each_return};
use super::send_calls::SendCalls;
use super::{Part, Region};
use crate::catalogue::{Catalogue, InterceptorRegion};
use crate::java::ir::*;
use crate::semantic::walk::{Body, Visitor, walk};
use crate::semantic::{
    ClassRef, Defs, Loc, MethodId, Project, TypeRef, collect_defs, method_ref_targets,
};
use std::collections::{BTreeMap, BTreeSet};

/// How deep an interceptor argument is followed through project methods returning it.
const MAX_DEPTH: usize = 4;

/// The interceptor regions made by the registration calls of method `id`.
pub fn call_registrations(project: &Project, cat: &Catalogue, id: MethodId) -> Vec<Region> {
    let mut v = Calls {
        cat,
        found: Vec::new(),
        no_resend: Vec::new(),
    };
    walk(project, cat, id, &mut v);
    let Calls {
        cat,
        found,
        no_resend,
    } = v;
    found
        .into_iter()
        .filter(|(row, _, _)| {
            // A registration on a client that never re-sends makes no region of its own.
            !cat.regions
                .interceptor
                .iter()
                .any(|r| r.id == *row && r.sends_only)
        })
        .filter(|(row, at, _)| {
            // `.retryer(NEVER_RETRY)` on the same builder chain, before or after.
            !no_resend
                .iter()
                .any(|(r, s)| r == row && (contains(*s, *at) || contains(*at, *s)))
        })
        .map(|(_, _, r)| r)
        .collect()
}

pub(super) fn contains(outer: Span, inner: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Registration calls seen in one body: (row id, the call's span, its region), and the calls
/// that configure a builder never to re-send: (row id, span).
struct Calls<'c> {
    cat: &'c Catalogue,
    found: Vec<(String, Span, Region)>,
    no_resend: Vec<(String, Span)>,
}

impl<'p> Visitor<'p> for Calls<'_> {
    fn call(&mut self, body: &Body<'p>, c: &'p Call, _recv_is_type: bool) {
        for row in &self.cat.regions.interceptor {
            if let Some(n) = &row.no_resend
                && n.method == c.name
                && c.args.iter().any(|a| names_any(a, &n.values))
            {
                self.no_resend.push((row.id.clone(), c.span));
            }
            if !row.register.contains(&c.name) || !receiver_matches(body, row, c) {
                continue;
            }
            let parts = registered_parts(body, row, c);
            if parts.is_empty() {
                continue;
            }
            let owner = owner_of(body.project, &parts);
            self.found.push((
                row.id.clone(),
                c.span,
                Region::at_call(&row.label, owner, body.id.0, c, parts, &row.id),
            ));
        }
    }
}

/// Is the call's receiver one of the row's client builders (or, with an accessor, that
/// accessor's call on one)?
fn receiver_matches(body: &Body<'_>, row: &InterceptorRegion, c: &Call) -> bool {
    if row.receiver_types.iter().any(|t| t == "*") {
        return true;
    }
    let Some(mut r) = c.recv.as_ref() else {
        return false;
    };
    if let Some(a) = &row.accessor {
        match r.peel() {
            Expr::Call(x) if x.name == *a && x.args.is_empty() => match &x.recv {
                Some(inner) => r = inner,
                None => return false,
            },
            _ => return false,
        }
    }
    body.with_typer(|typer| {
        let t = if typer.is_type_name(r) {
            r.dotted().map(|d| typer.resolve(&d))
        } else {
            typer.type_of(r)
        };
        t.is_some_and(|t| {
            row.receiver_types
                .iter()
                .any(|x| body.project.type_is(&t, x))
        })
    })
}

/// The interceptor code a registration call ties to its client: its interceptor argument, or
/// with a list of policies, those after the retry policy.
fn registered_parts(body: &Body<'_>, row: &InterceptorRegion, c: &Call) -> Vec<Part> {
    let args: Vec<&Expr> = match row.arg {
        Some(i) => c.args.get(i).into_iter().collect(),
        None if row.after_arg_types.is_empty() => c.args.iter().collect(),
        None => {
            let is_retry = |a: &Expr| {
                body.with_typer(|t| t.type_of(a)).is_some_and(|t| {
                    row.after_arg_types
                        .iter()
                        .any(|x| body.project.type_is(&t, x))
                })
            };
            match c.args.iter().position(is_retry) {
                Some(p) => c.args[p + 1..].iter().collect(),
                None => Vec::new(),
            }
        }
    };
    let any_receiver = row.receiver_types.iter().any(|t| t == "*");
    let mut parts = Vec::new();
    for a in args {
        // On any receiver, only an argument known to be an interceptor of the row counts.
        if any_receiver && !typed_as_row(body, row, a) {
            continue;
        }
        let r = Resolver {
            project: body.project,
            row,
        };
        r.parts(body.id, &body.defs, a, 0, &mut parts);
    }
    parts.sort();
    parts.dedup();
    parts
}

/// Is `a` an interceptor of the row by its type (a lambda: by the file's imports)?
fn typed_as_row(body: &Body<'_>, row: &InterceptorRegion, a: &Expr) -> bool {
    let project = body.project;
    if let Expr::Lambda(_) = a.peel() {
        let facts = &project.files[body.id.0 as usize].facts;
        return facts.imports.iter().any(|i| {
            row.types.iter().any(|t| {
                i.path == *t || (i.wildcard && t.rsplit_once('.').is_some_and(|(p, _)| p == i.path))
            })
        });
    }
    match body.with_typer(|t| t.type_of(a)) {
        Some(TypeRef::Project(k)) => implements(project, row, k),
        Some(t) => row.types.iter().any(|x| project.type_is(&t, x)),
        None => false,
    }
}

/// Does project class `k` implement one of the row's interceptor types (itself or through a
/// project supertype)?
fn implements(project: &Project, row: &InterceptorRegion, k: ClassRef) -> bool {
    std::iter::once(k)
        .chain(project.supertypes_of(k).iter().copied())
        .any(|c| {
            project.class(c).supertypes.iter().any(|s| {
                let t = project.resolve_type(c.0, Some(c.1 as usize), s);
                row.types.iter().any(|x| project.type_is(&t, x))
            })
        })
}

/// Follows an interceptor expression to its code.
struct Resolver<'p> {
    project: &'p Project,
    row: &'p InterceptorRegion,
}

impl Resolver<'_> {
    /// The code of the interceptor `e` (in method `id`, with its locals `defs`).
    fn parts(&self, id: MethodId, defs: &Defs<'_>, e: &Expr, depth: usize, out: &mut Vec<Part>) {
        if depth > MAX_DEPTH {
            return;
        }
        let project = self.project;
        let class = project.class_of(id);
        let resolve = |ty: &str| project.resolve_type(id.0, Some(class.1 as usize), ty);
        match e.peel() {
            Expr::Lambda(l) => out.push(Part::Scopes(id, vec![l.scope])),
            Expr::Cast(_, inner, _) => self.parts(id, defs, inner, depth, out),
            Expr::Ternary(_, a, b, _) => {
                self.parts(id, defs, a, depth, out);
                self.parts(id, defs, b, depth, out);
            }
            Expr::New(n) if !n.anon.is_empty() => {
                let scopes: Vec<ScopeId> = n
                    .anon
                    .iter()
                    .filter(|a| self.row.methods.contains(&a.name))
                    .map(|a| a.scope)
                    .collect();
                if !scopes.is_empty() && !self.anon_runs_once(n) {
                    out.push(Part::Scopes(id, scopes));
                }
            }
            Expr::New(n) => {
                if let TypeRef::Project(k) = resolve(&n.ty) {
                    self.class_parts(k, out);
                }
            }
            Expr::MethodRef(r) => {
                let targets = method_ref_targets(
                    project,
                    class,
                    r,
                    |_| None,
                    |x| matches!(x, Expr::Name(n, _) if !defs.contains_key(n)),
                );
                out.extend(targets.into_iter().map(Part::Whole));
            }
            Expr::Name(n, _) => {
                if let Some((ty, init)) = defs.get(n) {
                    if !matches!(init.peel(), Expr::Name(..)) {
                        self.parts(id, defs, init, depth + 1, out);
                    } else if let TypeRef::Project(k) = resolve(ty) {
                        self.class_parts(k, out);
                    }
                } else if let Some(p) = project.method(id).params.iter().find(|p| &p.name == n) {
                    if let TypeRef::Project(k) = resolve(&p.ty) {
                        self.class_parts(k, out);
                    }
                } else {
                    self.field_parts(class, n, depth, out);
                }
            }
            Expr::Field(recv, n, _) if matches!(recv.peel(), Expr::This(_)) => {
                self.field_parts(class, n, depth, out);
            }
            // A static factory of the interceptor type made from functions
            // (`ExchangeFilterFunction.ofRequestProcessor(req -> …)`): they run for every request.
            Expr::Call(c)
                if c.recv.as_ref().and_then(|r| r.dotted()).is_some_and(|d| {
                    let t = resolve(&d);
                    self.row.types.iter().any(|x| project.type_is(&t, x))
                }) =>
            {
                for a in &c.args {
                    if matches!(a.peel(), Expr::Lambda(_) | Expr::MethodRef(_)) {
                        self.parts(id, defs, a, depth, out);
                    }
                }
            }
            // `List.of(a, b)`, `Arrays.asList(…)`, `Collections.singletonList(…)`.
            Expr::Call(c)
                if c.recv.is_some()
                    && matches!(c.name.as_str(), "of" | "asList" | "singletonList") =>
            {
                for a in &c.args {
                    self.parts(id, defs, a, depth, out);
                }
            }
            Expr::Call(c) if c.recv.is_none() || matches!(c.recv, Some(Expr::This(_))) => {
                for m in project.methods_in_hierarchy(class, &c.name, c.args.len()) {
                    self.returned_parts(m, depth + 1, out);
                }
            }
            _ => {}
        }
    }

    /// A field holding an interceptor: its initializer, or its declared project type.
    fn field_parts(&self, class: ClassRef, name: &str, depth: usize, out: &mut Vec<Part>) {
        let project = self.project;
        let Some((owner, f)) = project.field(class, name) else {
            return;
        };
        match (&f.init, project.class(owner).initializer) {
            (Some(init), Some(ini)) => {
                let id = (owner.0, ini as u32);
                let defs = Defs::new();
                self.parts(id, &defs, init, depth + 1, out);
            }
            _ => {
                if let TypeRef::Project(k) =
                    project.resolve_type(owner.0, Some(owner.1 as usize), &f.ty)
                {
                    self.class_parts(k, out);
                }
            }
        }
    }

    /// What a project method returns: lambdas, anonymous classes, `new X()`, or its declared
    /// interceptor class.
    fn returned_parts(&self, m: MethodId, depth: usize, out: &mut Vec<Part>) {
        each_return(self.project, m, &mut |defs, e| {
            self.parts(m, defs, e, depth, out)
        });
    }

    /// The methods of project class `k` that run for every request, when `k` implements one of
    /// the row's types (and does not declare a position that runs once).
    fn class_parts(&self, k: ClassRef, out: &mut Vec<Part>) {
        let project = self.project;
        let hierarchy: Vec<ClassRef> = std::iter::once(k)
            .chain(project.supertypes_of(k).iter().copied())
            .collect();
        if !implements(project, self.row, k) || self.class_runs_once(&hierarchy) {
            return;
        }
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for c in hierarchy {
            for m in project.methods_of(c) {
                let mm = project.method(*m);
                if mm.has_body()
                    && !mm.is_ctor
                    && self.row.methods.iter().any(|n| *n == mm.name)
                    && seen.insert(format!("{}/{}", mm.name, mm.params.len()))
                {
                    out.push(Part::Whole(*m));
                }
            }
        }
    }

    /// Does the class declare (override) the row's position method to return a once-per-call
    /// value?
    fn class_runs_once(&self, hierarchy: &[ClassRef]) -> bool {
        let Some(pos) = &self.row.position else {
            return false;
        };
        hierarchy.iter().any(|c| {
            self.project.methods_of(*c).iter().any(|m| {
                let mm = self.project.method(*m);
                mm.name == pos.method
                    && mm.body().is_some_and(|b| {
                        let mut rets = Vec::new();
                        collect_returns(b, &mut rets);
                        rets.iter().any(|e| names_any(e, &pos.once))
                    })
            })
        })
    }

    fn anon_runs_once(&self, n: &New) -> bool {
        let Some(pos) = &self.row.position else {
            return false;
        };
        n.anon.iter().any(|a| {
            a.name == pos.method && {
                let mut rets = Vec::new();
                collect_returns(&a.body, &mut rets);
                rets.iter().any(|e| names_any(e, &pos.once))
            }
        })
    }
}

/// Does the expression name one of `values` (`Retryer.NEVER_RETRY`, `PER_CALL`)?
fn names_any(e: &Expr, values: &[String]) -> bool {
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match x {
            Expr::Name(n, _) | Expr::Field(_, n, _) if values.contains(n) => return true,
            Expr::Field(r, _, _) => stack.push(r),
            Expr::Cast(_, i, _) | Expr::Not(i, _) => stack.push(i),
            Expr::Ternary(a, b, c, _) => stack.extend([&**a, &**b, &**c]),
            Expr::Op(v, _) => stack.extend(v.iter()),
            _ => {}
        }
    }
    false
}

/// A name for the interceptor's code in messages: its method, or the method holding the lambda.
fn owner_of(project: &Project, parts: &[Part]) -> String {
    match parts.first() {
        Some(Part::Whole(m) | Part::Scopes(m, _)) => project.method(*m).name.to_string(),
        None => String::new(),
    }
}

/// The interceptor beans of one row's declarative clients (SPEC 3.2): an interceptor bean in a
/// client's own configuration class applies to that client; one elsewhere, or in a
/// configuration class a component scan picks up, to every client of the application (the
/// build modules that see it).
struct BeanScan {
    /// Interceptor beans (and components), per declaring class.
    interceptors: BTreeMap<ClassRef, Vec<Part>>,
    /// Re-sending beans per declaring class: `Some(loc)` a bean that re-sends, `None` one that
    /// never does.
    resenders: BTreeMap<ClassRef, Option<Loc>>,
    /// The clients, each with its configuration classes.
    clients: Vec<(ClassRef, Vec<ClassRef>)>,
    /// Every class named as some client's configuration.
    per_client: BTreeSet<ClassRef>,
}

impl BeanScan {
    fn new(
        project: &Project,
        row: &InterceptorRegion,
        beans: &crate::catalogue::BeanClients,
        wanted: &(dyn Fn(&MethodId) -> bool + Sync),
    ) -> BeanScan {
        use rayon::prelude::*;
        let r = Resolver { project, row };
        // What one file's classes hold: clients, interceptor beans, re-sending beans.
        type Found = (
            Vec<(ClassRef, Vec<ClassRef>)>,
            Vec<(ClassRef, Vec<Part>)>,
            Vec<(ClassRef, Option<Loc>)>,
        );
        let in_file = |fi: usize| -> Found {
            let (mut clients, mut interceptors, mut resenders) = Found::default();
            for ci in 0..project.files[fi].facts.classes.len() {
                let c = (fi as u32, ci as u32);
                let class = project.class(c);
                if let Some(a) = class.annotations.iter().find(|a| {
                    annotated_as(
                        project,
                        c,
                        std::slice::from_ref(a),
                        &beans.client_annotations,
                    )
                }) {
                    clients.push((c, configuration_classes(project, c, a, beans)));
                }
                if annotated_as(project, c, &class.annotations, &beans.component_annotations) {
                    let mut parts = Vec::new();
                    r.class_parts(c, &mut parts);
                    interceptors.push((c, parts));
                }
                for m in project.methods_of(c) {
                    let mm = project.method(*m);
                    if mm.ret.is_empty()
                        || !annotated_as(project, c, &mm.annotations, &beans.bean_annotations)
                    {
                        continue;
                    }
                    let ret = project.resolve_type(c.0, Some(c.1 as usize), &mm.ret);
                    if beans.resend_types.iter().any(|x| project.type_is(&ret, x)) {
                        let never = mm.body().is_some_and(|b| {
                            let mut rets = Vec::new();
                            collect_returns(b, &mut rets);
                            let values = row.no_resend.as_ref().map(|n| &n.values[..]);
                            !rets.is_empty()
                                && rets.iter().all(|e| names_any(e, values.unwrap_or(&[])))
                        });
                        let loc = Loc {
                            file: m.0,
                            span: mm.name_span,
                        };
                        resenders.push((c, (!never).then_some(loc)));
                    } else if wanted(m) {
                        let mut parts = Vec::new();
                        r.returned_parts(*m, 0, &mut parts);
                        if let TypeRef::Project(k) = ret {
                            r.class_parts(k, &mut parts);
                        }
                        if !parts.is_empty() {
                            interceptors.push((c, parts));
                        }
                    }
                }
            }
            (clients, interceptors, resenders)
        };
        // A file at a time, in parallel; put together in the files' order.
        let found: Vec<Found> = (0..project.files.len())
            .into_par_iter()
            .map(in_file)
            .collect();
        let mut interceptors: BTreeMap<ClassRef, Vec<Part>> = BTreeMap::new();
        let mut resenders: BTreeMap<ClassRef, Option<Loc>> = BTreeMap::new();
        let mut clients: Vec<(ClassRef, Vec<ClassRef>)> = Vec::new();
        for (c, i, rs) in found {
            clients.extend(c);
            for (k, parts) in i {
                interceptors.entry(k).or_default().extend(parts);
            }
            // A class with a bean that re-sends re-sends (the last such bean is named).
            for (k, loc) in rs {
                let slot = resenders.entry(k).or_insert(None);
                if loc.is_some() {
                    *slot = loc;
                }
            }
        }
        if !interceptors.is_empty()
            && let Some(d) = project.deps()
        {
            // A client or a re-sending bean in a file not parsed yet would change the answer.
            // By the outermost class's name (`Retryer` for `feign.Retryer.Default`).
            for t in beans.client_annotations.iter().chain(&beans.resend_types) {
                let outer = t.split('.').find(|s| s.starts_with(char::is_uppercase));
                d.note_name(outer.unwrap_or(t));
            }
        }
        for parts in interceptors.values_mut() {
            parts.sort();
            parts.dedup();
        }
        // A client's configuration that a component scan also picks up is application-wide.
        let named: BTreeSet<ClassRef> = clients
            .iter()
            .flat_map(|(_, cfg)| cfg.iter().copied())
            .collect();
        let scanned = super::component_scan::scanned(project, beans, &named);
        let per_client = named.difference(&scanned).copied().collect();
        BeanScan {
            interceptors,
            resenders,
            clients,
            per_client,
        }
    }

    /// Does the interceptor bean declared in `decl` apply to `client` (configured by `cfg`)?
    fn applies(
        &self,
        project: &Project,
        decl: ClassRef,
        client: ClassRef,
        cfg: &[ClassRef],
    ) -> bool {
        if self.per_client.contains(&decl) {
            cfg.contains(&decl)
        } else {
            project.modules().sees(client.0, decl.0)
        }
    }

    /// The bean that makes a client re-send, if any: in its configuration, or, when that
    /// declares none, in an application-wide configuration.
    fn resends(&self, project: &Project, client: ClassRef, cfg: &[ClassRef]) -> Option<Loc> {
        let own: Vec<&Option<Loc>> = cfg.iter().filter_map(|k| self.resenders.get(k)).collect();
        if !own.is_empty() {
            return own.into_iter().flatten().next().cloned();
        }
        self.resenders
            .iter()
            .filter(|(k, _)| !self.per_client.contains(k) && project.modules().sees(client.0, k.0))
            .find_map(|(_, l)| l.clone())
    }
}

/// The [`BeanScan`] of each `[[regions.interceptor]]` row with beans, made once for the
/// regions ([`bean_registrations`]) and the sends ([`client_sends`]).
pub struct BeanScans<'c> {
    rows: Vec<(
        &'c InterceptorRegion,
        &'c crate::catalogue::BeanClients,
        BeanScan,
    )>,
}

impl<'c> BeanScans<'c> {
    pub fn new(
        project: &Project,
        cat: &'c Catalogue,
        wanted: &(dyn Fn(&MethodId) -> bool + Sync),
    ) -> BeanScans<'c> {
        let rows = (cat.regions.interceptor.iter())
            .filter_map(|row| Some((row, row.beans.as_ref()?)))
            .map(|(row, beans)| (row, beans, BeanScan::new(project, row, beans, wanted)))
            .collect();
        BeanScans { rows }
    }
}

/// Interceptor beans of declarative clients that re-send: a client re-sends when a re-sending
/// bean (a `Retryer` that is not `NEVER_RETRY`) is in its configuration, or, when its
/// configuration declares none, in an application-wide configuration.
pub fn bean_registrations(project: &Project, scans: &BeanScans) -> Vec<Region> {
    let mut out = Vec::new();
    for (row, beans, scan) in &scans.rows {
        for (decl, parts) in &scan.interceptors {
            let mut locs: Vec<Loc> = scan
                .clients
                .iter()
                .filter(|(k, cfg)| scan.applies(project, *decl, *k, cfg))
                .filter_map(|(k, cfg)| scan.resends(project, *k, cfg))
                .collect();
            locs.sort();
            locs.dedup();
            // Located at the bean that makes the client re-send: the message says so.
            let resender = beans
                .resend_types
                .first()
                .map(|t| t.rsplit('.').next().unwrap_or(t));
            for loc in locs {
                let owner = owner_of(project, parts);
                let mut r = Region::new(&row.label, owner, loc, parts.clone(), &row.id);
                r.by = resender.map(|t| format!("re-sent by its client's `{t}` bean"));
                out.push(r);
            }
        }
    }
    out
}

/// The interceptor code that runs for every request a client sends (SPEC 3.2: an interceptor
/// is inside every region from which a request through it is sent), by the project methods
/// whose call sends one: the abstract methods of a declarative client (a Feign interface) that
/// an interceptor bean applies to, whether or not the client re-sends by itself.
pub fn client_sends(project: &Project, scans: &BeanScans) -> Sends {
    let mut by_method: BTreeMap<MethodId, Vec<Part>> = BTreeMap::new();
    for (_, beans, scan) in &scans.rows {
        for (client, cfg) in &scan.clients {
            // The client's methods that send a request: asked once per client, not once per
            // interceptor that applies to it.
            let mut sending: Option<Vec<MethodId>> = None;
            for (decl, parts) in &scan.interceptors {
                if !scan.applies(project, *decl, *client, cfg) {
                    continue;
                }
                let sending = sending.get_or_insert_with(|| {
                    let hierarchy = std::iter::once(*client)
                        .chain(project.supertypes_of(*client).iter().copied());
                    hierarchy
                        .flat_map(|k| project.methods_of(k).iter().map(move |m| (k, *m)))
                        .filter(|(k, m)| {
                            let mm = project.method(*m);
                            !mm.has_body()
                                && !mm.is_ctor
                                && !mm.modifiers.is_static
                                && !annotated_as(
                                    project,
                                    *k,
                                    &mm.annotations,
                                    &beans.read_annotations,
                                )
                        })
                        .map(|(_, m)| m)
                        .collect()
                });
                for m in sending.iter() {
                    by_method
                        .entry(*m)
                        .or_default()
                        .extend(parts.iter().cloned());
                }
            }
        }
    }
    for parts in by_method.values_mut() {
        parts.sort();
        parts.dedup();
    }
    Sends {
        by_method,
        by_call: Vec::new(),
        own_calls: Vec::new(),
    }
}

/// Does one of `anns` (written in class `c`) resolve to one of `types`?
fn annotated_as(project: &Project, c: ClassRef, anns: &[Annotation], types: &[String]) -> bool {
    anns.iter().any(|a| {
        let t = project.resolve_type(c.0, Some(c.1 as usize), &a.name);
        types.iter().any(|x| project.type_is(&t, x))
    })
}

/// What a sending call runs: per project method whose call sends a request through a client,
/// the code of the interceptors registered on that client.
/// Also the calls on a client instance.
#[derive(Debug, Default)]
pub struct Sends {
    pub by_method: BTreeMap<MethodId, Vec<Part>>,
    pub by_call: Vec<InstanceSend>,
    /// Calls entered only by a region written in the calling method itself (a functional
    /// parameter's call: see `stored_functions::FunctionSends::own`).
    pub own_calls: Vec<InstanceSend>,
}

/// A call on a client instance: the calling method, the call's scope, the interceptors' code.
pub type InstanceSend = (MethodId, ScopeId, Span, Vec<Part>);

impl Sends {
    /// The methods the interceptors' code is written in.
    pub fn interceptor_methods(&self) -> impl Iterator<Item = MethodId> + '_ {
        self.by_method
            .values()
            .chain(self.by_call.iter().map(|(_, _, _, p)| p))
            .chain(self.own_calls.iter().map(|(_, _, _, p)| p))
            .flatten()
            .map(|p| match p {
                Part::Whole(m) | Part::Scopes(m, _) => *m,
            })
    }
}

/// The classes named by a client annotation's configuration attribute (`X.class`, `{X.class, …}`).
fn configuration_classes(
    project: &Project,
    client: ClassRef,
    a: &Annotation,
    beans: &crate::catalogue::BeanClients,
) -> Vec<ClassRef> {
    let mut out = Vec::new();
    let mut stack: Vec<&Expr> = a
        .args
        .iter()
        .filter(|(k, _)| k.as_deref() == Some(beans.configuration_attribute.as_str()))
        .map(|(_, e)| e)
        .collect();
    while let Some(e) = stack.pop() {
        match e {
            Expr::Op(v, _) => stack.extend(v.iter()),
            Expr::Field(ty, f, _) if f == "class" => {
                if let Some(d) = ty.dotted()
                    && let TypeRef::Project(k) =
                        project.resolve_type(client.0, Some(client.1 as usize), &d)
                {
                    out.push(k);
                }
            }
            _ => {}
        }
    }
    out
}

/// Where a client built with a registration is kept: a field of a class, or a local of a method.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Holder {
    Field(ClassRef, String),
    Local(MethodId, String),
}

/// The calls, in method `id`, that send through a client instance built there with an
/// interceptor registered on it: the client kept in a field (its initializer, an assignment in
/// a constructor, `this.rest.getInterceptors().add(…)`) is called from the methods of its class;
/// one kept in a local, from the same method. Each with the scope of the call and the code of
/// the interceptors.
pub fn instance_sends(project: &Project, cat: &Catalogue, id: MethodId) -> Vec<InstanceSend> {
    let mut v = Registered {
        cat,
        found: Vec::new(),
        beans_only: false,
    };
    walk(project, cat, id, &mut v);
    if v.found.is_empty() {
        return Vec::new();
    }
    let mut by_holder: BTreeMap<Holder, (Vec<String>, Vec<Part>)> = BTreeMap::new();
    for (names, call, receiver_root, parts) in v.found {
        for h in holders(project, id, call, receiver_root.as_deref()) {
            let e = by_holder.entry(h).or_default();
            e.0.extend(names.iter().cloned());
            e.1.extend(parts.iter().cloned());
        }
    }
    let mut out = Vec::new();
    for (h, (names, mut parts)) in by_holder {
        parts.sort();
        parts.dedup();
        let (methods, var): (Vec<MethodId>, String) = match &h {
            Holder::Field(k, f) => (project.methods_of(*k).to_vec(), f.clone()),
            Holder::Local(m, l) => (vec![*m], l.clone()),
        };
        for m in methods {
            let mut c = SendCalls {
                cat,
                var: &var,
                field: matches!(h, Holder::Field(..)),
                skip: &names,
                scopes: Vec::new(),
            };
            walk(project, cat, m, &mut c);
            c.scopes.sort();
            c.scopes.dedup();
            for (s, span) in c.scopes {
                out.push((m, s, span, parts.clone()));
            }
        }
    }
    out
}

/// Registration calls of any row: the names that register (the accessor, and the reads: no
/// call of these sends a request that needs a key), the call's
/// span, the name at the root of its receiver chain, the interceptor code.
pub(super) struct Registered<'c> {
    pub(super) cat: &'c Catalogue,
    pub(super) found: Vec<Registration>,
    /// Only the rows whose clients are injected beans, in a method annotated as a bean of one.
    pub(super) beans_only: bool,
}

/// A registration call: the names of the calls that do not send, its span, the root of its
/// receiver chain, the interceptor code.
pub(super) type Registration = (Vec<String>, Span, Option<String>, Vec<Part>);

impl<'p> Visitor<'p> for Registered<'_> {
    fn call(&mut self, body: &Body<'p>, c: &'p Call, _recv_is_type: bool) {
        for row in &self.cat.regions.interceptor {
            if row.register.is_empty()
                || !row.register.contains(&c.name)
                || self.beans_only && !annotated_bean(body, &row.injected_by)
                || !receiver_matches(body, row, c)
            {
                continue;
            }
            let parts = registered_parts(body, row, c);
            if parts.is_empty() {
                continue;
            }
            let mut names = row.register.clone();
            names.extend(row.accessor.iter().cloned());
            names.extend(row.reads.iter().cloned());
            self.found.push((names, c.span, chain_root(c), parts));
        }
    }
}

/// Is the walked method annotated with one of `annotations` (a bean method)?
fn annotated_bean(body: &Body<'_>, annotations: &[String]) -> bool {
    let class = body.project.class_of(body.id);
    !annotations.is_empty()
        && annotated_as(body.project, class, &body.method.annotations, annotations)
}

/// The variable a call chain starts from (`rest` in `this.rest.getInterceptors().add(i)`).
pub(super) fn chain_root(c: &Call) -> Option<String> {
    let mut e = c.recv.as_ref()?;
    loop {
        match e.peel() {
            Expr::Call(x) => e = x.recv.as_ref()?,
            Expr::Name(n, _) => return Some(n.clone()),
            Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => return Some(n.clone()),
            _ => return None,
        }
    }
}

/// Where the client a registration call (at `call`, in method `id`) configures is kept.
pub(super) fn holders(
    project: &Project,
    id: MethodId,
    call: Span,
    root: Option<&str>,
) -> Vec<Holder> {
    let class = project.class_of(id);
    let method = project.method(id);
    let local = |n: &str| {
        method.params.iter().any(|p| p.name == n) || {
            let mut defs = Defs::new();
            if let Some(b) = method.body() {
                collect_defs(b, &mut defs);
            }
            defs.contains_key(n)
        }
    };
    let named = |n: &str| {
        if local(n) {
            Some(Holder::Local(id, n.to_string()))
        } else {
            project
                .field(class, n)
                .map(|(k, _)| Holder::Field(k, n.to_string()))
        }
    };
    let mut out = Vec::new();
    let within = |e: &Expr| contains(e.span(), call);
    // A field initializer.
    if project.class(class).initializer == Some(id.1 as usize) {
        for f in &project.class(class).fields {
            if f.init.as_ref().is_some_and(within) {
                out.push(Holder::Field(class, f.name.to_string()));
            }
        }
    }
    // A local's initializer or an assignment holding the builder chain.
    let mut stack: Vec<&Stmt> = method.body().into_iter().flatten().collect();
    while let Some(st) = stack.pop() {
        match st {
            Stmt::Local {
                name,
                init: Some(e),
                ..
            } if within(e) => out.push(Holder::Local(id, name.clone())),
            Stmt::Expr(Expr::Assign(a)) if within(&a.value) => {
                let target = match a.target.peel() {
                    Expr::Name(n, _) => named(n),
                    Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => project
                        .field(class, n)
                        .map(|(k, _)| Holder::Field(k, n.clone())),
                    _ => None,
                };
                out.extend(target);
            }
            Stmt::If { then, els, .. } => {
                stack.extend(then.iter());
                stack.extend(els.iter().flatten());
            }
            Stmt::Loop { body, .. } | Stmt::Block(body) => stack.extend(body.iter()),
            Stmt::Try {
                body,
                catches,
                finally,
                ..
            } => {
                stack.extend(body.iter());
                stack.extend(catches.iter().flat_map(|(_, b)| b.iter()));
                stack.extend(finally.iter().flatten());
            }
            _ => {}
        }
    }
    // A registration on the client itself (`rest.getInterceptors().add(i)`).
    if out.is_empty()
        && let Some(n) = root
    {
        out.extend(named(n));
    }
    out.sort();
    out.dedup();
    out
}
