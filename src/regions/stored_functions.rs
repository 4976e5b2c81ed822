//! Functional values called where they are held (SPEC §6, §8): `action.call()` on a `Callable`
//! field, `hook.apply(x)` on a field of a project interface with one abstract method, runs the
//! lambdas and method references that flow into that field. (A parameter holds what each
//! caller passes: a region calling the method covers the lambda it creates already.) A generated SDK's `Retries` class keeps the operation's lambda in a field (set by
//! its constructor from the builder's field) and calls it from its backoff loop: the loop then
//! re-runs every operation's lambda.
//!
//! The flow is followed backwards from the calls, on demand, over two kinds of holders: a field
//! of a project class, written by `this.f = p` from a parameter of one of the class's methods
//! (a constructor, a setter, a builder method) or by `this.f = () -> …`; and a parameter,
//! filled by the arguments of the calls that resolve to its method (a lambda, a method
//! reference, a local initialised with one, a parameter or a field of the caller passed on).
//! Each call site becomes a sending call whose code — the lambdas' scopes, the referenced
//! methods — a region that runs the call enters (as an interceptor is entered through a client
//! call, [`super::enter_interceptors`]).

use super::{InstanceSend, Part};
use crate::catalogue::Catalogue;
use crate::java::ir::*;
use crate::semantic::{ClassRef, MethodId, Project, TypeRef, callgraph};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The functions one holder may hold, at most: beyond, the first ones in source order are kept
/// (every operation of a large generated SDK puts its lambda into one field).
const MAX_FUNCTIONS: usize = 2048;

/// Rounds of following holders back to their writers (a builder field → the builder's setter
/// parameter → its callers is three).
const MAX_ROUNDS: usize = 8;

/// Where a function value is held.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
enum Holder {
    Field(ClassRef, String),
    Param(MethodId, usize),
}

/// What the methods of one file give the search of [`function_sends`]: the names of the calls
/// (and `new Type`) that pass a value that may carry a function, with the method that makes
/// each, and the calls of a functional method on a field, with their scope and the field. It
/// reads the file's method bodies and the project's declarations.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct FileCalls {
    by_call_name: Vec<(String, MethodId)>,
    sites: Vec<(MethodId, ScopeId, Span, Holder)>,
}

/// The calls of a functional method on a held value, with the code each one runs.
#[derive(Debug, Default)]
pub struct FunctionSends {
    /// Calls on a field: every region that runs the call runs what the field holds.
    pub held: Vec<InstanceSend>,
    /// Calls on a parameter (`task.get()`): they run what each caller passes, so they are
    /// entered only by a region written in the method itself — a retry loop around the call, a
    /// retried method or a recursive retry that runs its caller's function on every attempt —
    /// while a region that calls the method covers the function it passes already.
    pub own: Vec<InstanceSend>,
}

/// The calls of a functional method on a held value, with the code each one runs.
/// `per_file` gives the [`FileCalls`] of a file, from the function it is passed (which scans
/// the file) or from a cache. `region_code` says whether a method is the code of a region: a
/// call on a parameter is followed only there.
pub fn function_sends(
    project: &Project,
    cat: &Catalogue,
    per_file: &(dyn Fn(u32, &dyn Fn() -> FileCalls) -> FileCalls + Sync),
    region_code: &dyn Fn(MethodId) -> bool,
) -> FunctionSends {
    use rayon::prelude::*;
    let rows = &cat.regions.function_call;
    let names: HashSet<&str> = rows
        .iter()
        .flat_map(|r| &r.methods)
        .map(String::as_str)
        .collect();
    let fx = Functional::new(project, cat);
    let found: Vec<FileCalls> = (0..project.files.len() as u32)
        .into_par_iter()
        .map(|file| per_file(file, &|| file_calls(project, &names, &fx, file)))
        .collect();
    // The call sites, and the holders they read.
    let mut sites: Vec<(MethodId, ScopeId, Span, Holder)> = Vec::new();
    let mut by_call_name: HashMap<String, Vec<MethodId>> = HashMap::new();
    for f in found {
        sites.extend(
            f.sites
                .into_iter()
                .filter(|(m, _, _, h)| matches!(h, Holder::Field(..)) || region_code(*m)),
        );
        for (name, id) in f.by_call_name {
            by_call_name.entry(name).or_default().push(id);
        }
    }
    if sites.is_empty() {
        return FunctionSends::default();
    }
    for v in by_call_name.values_mut() {
        v.sort();
        v.dedup();
    }
    let mut held: BTreeMap<Holder, BTreeSet<Part>> = BTreeMap::new();
    // Holder → the holders that flow into it.
    let mut fed_by: BTreeMap<Holder, BTreeSet<Holder>> = BTreeMap::new();
    let mut done: HashSet<Holder> = HashSet::new();
    let mut work: Vec<Holder> = sites.iter().map(|(_, _, _, h)| h.clone()).collect();
    work.sort();
    work.dedup();
    let mut walked: HashMap<MethodId, Vec<(Span, MethodId)>> = HashMap::new();
    for _ in 0..MAX_ROUNDS {
        let mut next = Vec::new();
        for h in std::mem::take(&mut work) {
            if !done.insert(h.clone()) {
                continue;
            }
            let mut into = |src: Source, held: &mut BTreeMap<Holder, BTreeSet<Part>>| match src {
                Source::Code(p) => {
                    held.entry(h.clone()).or_default().insert(p);
                }
                Source::Holder(g) => {
                    fed_by.entry(h.clone()).or_default().insert(g.clone());
                    next.push(g);
                }
            };
            match &h {
                Holder::Field(k, f) => {
                    for w in field_writes(project, *k, f) {
                        into(w, &mut held);
                    }
                }
                Holder::Param(target, i) => {
                    let tm = project.method(*target);
                    let key = if tm.is_ctor || tm.name == "<init>" {
                        format!("new {}", project.class(project.class_of(*target)).name)
                    } else {
                        tm.name.to_string()
                    };
                    for caller in by_call_name.get(&key).into_iter().flatten() {
                        let sites = walked.entry(*caller).or_insert_with(|| {
                            callgraph::call_sites(project, cat, *caller)
                                .into_iter()
                                .map(|(_, s, m)| (s, m))
                                .collect()
                        });
                        for a in args_passed(project, *caller, sites, *target, *i) {
                            into(a, &mut held);
                        }
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        work = next;
    }
    // What each holder holds, with what flows into it, transitively.
    let mut out = FunctionSends::default();
    for (m, scope, span, h) in sites {
        let on_field = matches!(h, Holder::Field(..));
        let mut parts: BTreeSet<Part> = BTreeSet::new();
        let mut seen = BTreeSet::from([h.clone()]);
        let mut stack = vec![h];
        while let Some(x) = stack.pop() {
            if let Some(p) = held.get(&x) {
                parts.extend(p.iter().cloned());
            }
            for g in fed_by.get(&x).into_iter().flatten() {
                if seen.insert(g.clone()) {
                    stack.push(g.clone());
                }
            }
        }
        if !parts.is_empty() {
            let send = (
                m,
                scope,
                span,
                parts.into_iter().take(MAX_FUNCTIONS).collect(),
            );
            if on_field {
                out.held.push(send);
            } else {
                out.own.push(send);
            }
        }
    }
    out
}

/// The [`FileCalls`] of the methods of `file`.
fn file_calls(project: &Project, names: &HashSet<&str>, fx: &Functional, file: u32) -> FileCalls {
    let mut out = FileCalls::default();
    let methods = project.files[file as usize].facts.methods.len() as u32;
    for id in (0..methods).map(|mi| (file, mi)) {
        let m = project.method(id);
        let Some(body) = m.peek_body() else { continue };
        let locals = local_names(&body);
        for n in Node::all(&body) {
            let Node::Expr(e) = n else { continue };
            match e {
                Expr::Call(c) => {
                    if c.args.iter().any(may_carry) {
                        out.by_call_name.push((c.name.clone(), id));
                    }
                    let Some(recv) = &c.recv else { continue };
                    if !names.contains(c.name.as_str()) && !fx.sam_names.contains(&c.name) {
                        continue;
                    }
                    // A function a parameter holds is the one each caller passes: a region
                    // calling the method already covers the lambda it creates, and another
                    // caller's lambda does not run there. Such a call is entered only by a
                    // region written in the method itself ([`FunctionSends::own`]).
                    let Some(h) = holder_of(project, id, m, &locals, recv) else {
                        continue;
                    };
                    if fx.calls_function(&h, &c.name, c.args.len()) {
                        out.sites.push((id, c.scope, c.span, h));
                    }
                }
                Expr::New(x) if x.args.iter().any(may_carry) => {
                    let simple = x.ty.split('<').next().unwrap_or(&x.ty);
                    let simple = simple.rsplit('.').next().unwrap_or(simple);
                    out.by_call_name.push((format!("new {simple}"), id));
                }
                _ => {}
            }
        }
    }
    out
}

/// What flows into a holder: code, or another holder.
enum Source {
    Code(Part),
    Holder(Holder),
}

struct Functional<'a> {
    project: &'a Project,
    cat: &'a Catalogue,
    /// Project interfaces with one abstract method: its name and arity.
    sams: HashMap<ClassRef, (String, usize)>,
    sam_names: HashSet<String>,
}

impl<'a> Functional<'a> {
    fn new(project: &'a Project, cat: &'a Catalogue) -> Self {
        let mut abstracts: HashMap<ClassRef, Vec<MethodId>> = HashMap::new();
        for id in project.all_methods() {
            let m = project.method(id);
            let k = project.class_of(id);
            if project.class(k).kind != ClassKind::Interface
                || m.has_body()
                || m.modifiers.is_static
                || m.is_ctor
                || matches!(m.name.as_str(), "equals" | "hashCode" | "toString")
            {
                continue;
            }
            abstracts.entry(k).or_default().push(id);
        }
        let sams: HashMap<ClassRef, (String, usize)> = abstracts
            .into_iter()
            .filter(|(_, v)| v.len() == 1)
            .map(|(k, v)| {
                let m = project.method(v[0]);
                (k, (m.name.to_string(), m.params.len()))
            })
            .collect();
        let sam_names = sams.values().map(|(n, _)| n.clone()).collect();
        Functional {
            project,
            cat,
            sams,
            sam_names,
        }
    }

    /// Does calling `name` with `arity` arguments on holder `h` run the function it holds?
    fn calls_function(&self, h: &Holder, name: &str, arity: usize) -> bool {
        let project = self.project;
        let (file, class, ty) = match h {
            Holder::Field(k, f) => {
                let Some(field) = project.class(*k).fields.iter().find(|x| x.name == *f) else {
                    return false;
                };
                (k.0, Some(k.1 as usize), field.ty.as_str())
            }
            Holder::Param(m, i) => {
                let mm = project.method(*m);
                let Some(p) = mm.params.get(*i) else {
                    return false;
                };
                (m.0, Some(mm.class), p.ty.as_str())
            }
        };
        let base = ty.split('<').next().unwrap_or(ty).trim();
        let t = project.resolve_type(file, class, base);
        if let TypeRef::Project(k) = &t {
            return self
                .sams
                .get(k)
                .is_some_and(|(n, a)| n == name && *a == arity);
        }
        self.cat.regions.function_call.iter().any(|r| {
            r.methods.iter().any(|m| m == name) && r.types.iter().any(|p| project.type_is(&t, p))
        })
    }
}

/// Can this argument carry a function value (a lambda, a method reference, a name)?
fn may_carry(e: &Expr) -> bool {
    matches!(
        e.peel(),
        Expr::Lambda(_) | Expr::MethodRef(_) | Expr::Name(..) | Expr::Field(..)
    )
}

/// The names of the locals a body declares (lambda bodies included).
fn local_names(b: &Block) -> HashSet<String> {
    Node::all(b)
        .filter_map(|n| match n {
            Node::Stmt(Stmt::Local { name, .. }) => Some(name.clone()),
            _ => None,
        })
        .collect()
}

/// The holder an expression reads: a parameter of `m`, or a field of its class (`f`, `this.f`).
fn holder_of(
    project: &Project,
    id: MethodId,
    m: &Method,
    locals: &HashSet<String>,
    e: &Expr,
) -> Option<Holder> {
    match e.peel() {
        Expr::Name(n, _) if !locals.contains(n) => {
            if let Some(i) = m.params.iter().position(|p| p.name == *n) {
                return Some(Holder::Param(id, i));
            }
            let (k, _) = project.field(project.class_of(id), n)?;
            Some(Holder::Field(k, n.clone()))
        }
        Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => {
            let (k, _) = project.field(project.class_of(id), n)?;
            Some(Holder::Field(k, n.clone()))
        }
        _ => None,
    }
}

/// What the methods of class `k` write into its field `f`: from a parameter, a lambda or a
/// method reference.
fn field_writes(project: &Project, k: ClassRef, f: &str) -> Vec<Source> {
    let mut out = Vec::new();
    for id in project.methods_of(k) {
        let m = project.method(*id);
        let Some(body) = m.peek_body() else { continue };
        let locals = local_names(&body);
        for n in Node::all(&body) {
            let Node::Expr(Expr::Assign(a)) = n else {
                continue;
            };
            if a.op != "=" {
                continue;
            }
            let target = match a.target.peel() {
                Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => n,
                Expr::Name(n, _)
                    if !locals.contains(n) && !m.params.iter().any(|p| p.name == *n) =>
                {
                    n
                }
                _ => continue,
            };
            if target != f {
                continue;
            }
            out.extend(value_source(project, *id, m, &locals, &a.value, &[]));
        }
    }
    out
}

/// What a value written or passed in method `id` brings: a lambda's scope, a method
/// reference's targets (`sites`: the method's resolved call sites), or a holder it reads.
fn value_source(
    project: &Project,
    id: MethodId,
    m: &Method,
    locals: &HashSet<String>,
    e: &Expr,
    sites: &[(Span, MethodId)],
) -> Vec<Source> {
    match e.peel() {
        Expr::Lambda(l) => vec![Source::Code(Part::Scopes(id, vec![l.scope]))],
        Expr::MethodRef(r) => sites
            .iter()
            .filter(|(s, _)| *s == r.span)
            .map(|(_, t)| Source::Code(Part::Whole(*t)))
            .collect(),
        Expr::Ternary(_, a, b, _) => {
            let mut v = value_source(project, id, m, locals, a, sites);
            v.extend(value_source(project, id, m, locals, b, sites));
            v
        }
        other => holder_of(project, id, m, locals, other)
            .map(Source::Holder)
            .into_iter()
            .collect(),
    }
}

/// The values `caller` passes to parameter `i` of `target`, in the calls (and `new`s) that
/// resolve to it. A local initialised with a lambda passes the lambda.
fn args_passed(
    project: &Project,
    caller: MethodId,
    sites: &[(Span, MethodId)],
    target: MethodId,
    i: usize,
) -> Vec<Source> {
    let spans: Vec<Span> = sites
        .iter()
        .filter(|(_, t)| *t == target)
        .map(|(s, _)| *s)
        .collect();
    if spans.is_empty() {
        return Vec::new();
    }
    let m = project.method(caller);
    let Some(body) = m.peek_body() else {
        return Vec::new();
    };
    let locals = local_names(&body);
    let mut inits: HashMap<&str, &Expr> = HashMap::new();
    for n in Node::all(&body) {
        if let Node::Stmt(Stmt::Local {
            name,
            init: Some(e),
            ..
        }) = n
        {
            inits.insert(name.as_str(), e);
        }
    }
    let mut out = Vec::new();
    for n in Node::all(&body) {
        let (span, args) = match n {
            Node::Expr(Expr::Call(c)) => (c.span, &c.args),
            Node::Expr(Expr::New(x)) => (x.span, &x.args),
            _ => continue,
        };
        if !spans.contains(&span) {
            continue;
        }
        let Some(a) = args.get(i) else { continue };
        let a = match a.peel() {
            Expr::Name(n, _) if locals.contains(n) => match inits.get(n.as_str()) {
                Some(init) if matches!(init.peel(), Expr::Lambda(_) | Expr::MethodRef(_)) => *init,
                _ => continue,
            },
            _ => a,
        };
        out.extend(value_source(project, caller, m, &locals, a, sites));
    }
    out
}
