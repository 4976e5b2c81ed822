//! Clients built by a bean method (SPEC 3.2): a `@Bean RestTemplate payments()` that registers
//! an interceptor on the client it returns makes that interceptor run for every request sent
//! through the bean, and the framework injects the bean by its type into the fields of the
//! application's classes — by the field's name when the application declares several beans of
//! that type. A call on such a field sends through the bean: a region that makes one enters the
//! interceptor's code, as it does for a client kept in a field of its own class.

use super::liveness::simple;
use super::pipelines::collect_returns;
use super::registration::{Holder, Registered, contains, holders};
use super::send_calls::SendCalls;
use super::{InstanceSend, Part};
use crate::catalogue::Catalogue;
use crate::java::ir::{Expr, Stmt};
use crate::java::name::Name;
use crate::semantic::walk::walk;
use crate::semantic::{ClassRef, MethodId, Project, TypeRef};
use std::collections::BTreeMap;

/// A bean method's client: its type, the calls on it that send nothing that needs a key (the
/// registrations, the reads), and the interceptor code registered on it.
struct Bean {
    method: MethodId,
    ty: TypeRef,
    /// The type's simple name, to compare with a field's as written.
    simple: String,
    skip: Vec<String>,
    parts: Vec<Part>,
}

/// The calls that send through a bean client with interceptors, from the methods of the
/// classes it is injected into, each with the interceptors' code. The methods are walked a
/// batch at a time ([`Project::map_in_batches`]): their bodies are given back after each.
pub fn bean_sends(project: &mut Project, cat: &Catalogue) -> Vec<InstanceSend> {
    let (beans, fields) = injected_fields(project, cat);
    if fields.is_empty() {
        return Vec::new();
    }
    let mut by_method: BTreeMap<MethodId, Vec<(Name, usize)>> = BTreeMap::new();
    for (k, field, b) in fields {
        for m in project.methods_of(k) {
            by_method.entry(*m).or_default().push((field, b));
        }
    }
    let ids: Vec<MethodId> = by_method.keys().copied().collect();
    let found = project.map_in_batches(&ids, |p, m| {
        let mut out = Vec::new();
        for (field, b) in &by_method[&m] {
            let bean = &beans[*b];
            let mut c = SendCalls {
                cat,
                var: field,
                field: true,
                skip: &bean.skip,
                scopes: Vec::new(),
            };
            walk(p, cat, m, &mut c);
            for (s, span) in c.scopes {
                out.push((m, s, span, bean.parts.clone()));
            }
        }
        out
    });
    let mut out: Vec<InstanceSend> = found.into_iter().flatten().collect();
    out.sort();
    out.dedup();
    out
}

/// The beans whose clients have interceptors, and the fields each is injected into: (class,
/// field, the bean's index).
fn injected_fields(
    project: &Project,
    cat: &Catalogue,
) -> (Vec<Bean>, Vec<(ClassRef, Name, usize)>) {
    let annotations: Vec<&str> = cat
        .regions
        .interceptor
        .iter()
        .flat_map(|r| r.injected_by.iter().map(|a| simple(a)))
        .collect();
    if annotations.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // Every bean method's type (a field's bean is told by name only where several have it), and
    // the beans with interceptors registered on their clients.
    let declared: Vec<(MethodId, TypeRef)> = project
        .all_methods()
        .filter(|id| {
            let m = project.method(*id);
            !m.ret.is_empty()
                && m.has_body()
                && m.annotations
                    .iter()
                    .any(|a| annotations.contains(&simple(&a.name)))
        })
        .map(|id| {
            let class = project.class_of(id);
            let ret = &project.method(id).ret;
            (id, project.resolve_type(id.0, Some(class.1 as usize), ret))
        })
        .collect();
    let beans: Vec<Bean> = declared
        .iter()
        .filter_map(|(id, ty)| bean(project, cat, *id, ty))
        .collect();
    let mut out = Vec::new();
    if beans.is_empty() {
        return (beans, out);
    }
    let qualifiers: Vec<&str> = cat
        .regions
        .interceptor
        .iter()
        .flat_map(|r| r.qualified_by.iter().map(String::as_str))
        .collect();
    let mods = project.modules();
    for (fi, f) in project.files.iter().enumerate() {
        for (ci, c) in f.facts.classes.iter().enumerate() {
            let k: ClassRef = (fi as u32, ci as u32);
            for field in &c.fields {
                if field.modifiers.is_static || !beans.iter().any(|b| b.simple == simple(&field.ty))
                {
                    continue;
                }
                let ty = project.resolve_type(k.0, Some(ci), &field.ty);
                let seen = |m: MethodId| mods.sees(k.0, m.0) || mods.sees(m.0, k.0);
                // Several beans of the type: the one the field is named after.
                let several = declared
                    .iter()
                    .filter(|(m, t)| *t == ty && seen(*m))
                    .nth(1)
                    .is_some();
                let wanted = if several {
                    injected_names(project, &qualifiers, k, field)
                } else {
                    Vec::new()
                };
                for (i, b) in beans.iter().enumerate() {
                    if b.ty == ty
                        && seen(b.method)
                        && (!several
                            || bean_names(project, &annotations, &qualifiers, b.method)
                                .iter()
                                .any(|n| wanted.contains(n)))
                    {
                        out.push((k, field.name, i));
                    }
                }
            }
        }
    }
    (beans, out)
}

/// The names a bean method gives its bean: its qualifier or the value of its bean annotation
/// (`@Bean("psp")`, `@Bean(name = "psp")`), and its own name.
fn bean_names(
    project: &Project,
    annotations: &[&str],
    qualifiers: &[&str],
    id: MethodId,
) -> Vec<String> {
    let m = project.method(id);
    let class = project.class_of(id);
    let naming = |written: &str| {
        annotations.contains(&simple(written)) || {
            let t = project.resolve_type(id.0, Some(class.1 as usize), written);
            qualifiers.iter().any(|q| project.type_is(&t, q))
        }
    };
    let mut out: Vec<String> = m
        .annotations
        .iter()
        .filter(|a| naming(&a.name))
        .flat_map(|a| {
            a.args
                .iter()
                .filter(|(k, _)| k.is_none() || matches!(k.as_deref(), Some("value" | "name")))
        })
        .filter_map(|(_, v)| match v {
            Expr::Str(s, _) => Some(s.clone()),
            _ => None,
        })
        .collect();
    out.push(m.name.to_string());
    out
}

/// The bean names a field asks for where several beans have its type: its qualifier
/// (`@Qualifier("psp")` on the field, or on the constructor parameter assigned to it), else the
/// name of that parameter, else its own name.
fn injected_names(
    project: &Project,
    qualifiers: &[&str],
    k: ClassRef,
    field: &crate::java::ir::Field,
) -> Vec<String> {
    let is_qualifier = |written: &str| {
        let t = project.resolve_type(k.0, Some(k.1 as usize), written);
        qualifiers.iter().any(|q| project.type_is(&t, q))
    };
    if let Some((_, v)) = project
        .class(k)
        .field_named(&field.name)
        .find(|(a, _)| is_qualifier(a))
    {
        return vec![v.to_string()];
    }
    let mut out = Vec::new();
    for m in project.methods_of(k) {
        let ctor = project.method(*m);
        if !ctor.is_ctor {
            continue;
        }
        let Some(body) = ctor.peek_body() else {
            continue;
        };
        for st in body.iter() {
            let Stmt::Expr(Expr::Assign(a)) = st else {
                continue;
            };
            let target = match a.target.peel() {
                Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => n.as_str(),
                Expr::Name(n, _) => n.as_str(),
                _ => continue,
            };
            let Expr::Name(from, _) = a.value.peel() else {
                continue;
            };
            if target != field.name.as_str() {
                continue;
            }
            let Some(p) = ctor.params.iter().find(|p| p.name == from.as_str()) else {
                continue;
            };
            for q in &p.annotations {
                if is_qualifier(&q.name)
                    && let Some((_, Expr::Str(v, _))) = q
                        .args
                        .iter()
                        .find(|(k, _)| k.is_none() || k.as_deref() == Some("value"))
                {
                    return vec![v.clone()];
                }
            }
            out.push(p.name.to_string());
        }
    }
    out.push(field.name.to_string());
    out
}

/// The client bean method `id` returns, when an interceptor is registered on it there.
fn bean(project: &Project, cat: &Catalogue, id: MethodId, ty: &TypeRef) -> Option<Bean> {
    let mut v = Registered {
        cat,
        found: Vec::new(),
        beans_only: true,
    };
    walk(project, cat, id, &mut v);
    if v.found.is_empty() {
        return None;
    }
    let m = project.method(id);
    let mut rets = Vec::new();
    collect_returns(m.body()?, &mut rets);
    let mut skip = Vec::new();
    let mut parts = Vec::new();
    for (names, call, root, p) in v.found {
        // The registration is on the returned client: in the returned chain, or on the local
        // the method returns.
        let kept = holders(project, id, call, root.as_deref());
        let returned = rets.iter().any(|e| {
            contains(e.span(), call)
                || matches!(e.peel(), Expr::Name(n, _) if kept.contains(&Holder::Local(id, n.to_string())))
        });
        if returned {
            skip.extend(names);
            parts.extend(p);
        }
    }
    if parts.is_empty() {
        return None;
    }
    if matches!(ty, TypeRef::Unknown(_)) {
        return None;
    }
    let ty = ty.clone();
    parts.sort();
    parts.dedup();
    skip.sort();
    skip.dedup();
    let simple = match &ty {
        TypeRef::Project(k) => project.class(*k).name.to_string(),
        TypeRef::External(n) | TypeRef::Unknown(n) => simple(n).to_string(),
    };
    Some(Bean {
        method: id,
        ty,
        simple,
        skip,
        parts,
    })
}
