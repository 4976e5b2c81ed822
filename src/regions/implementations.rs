//! Regions of framework types implemented in the project.

use super::liveness::NeverFailsOf;
use super::pipelines::collect_returns;
use super::{Part, Region};
use crate::catalogue::{Catalogue, ImplementationRegion};
use crate::java::ir::{Expr, ScopeId};
use crate::semantic::{Loc, MethodId, Project, TypeRef, collect_defs};
use rayon::prelude::*;

/// The framework types a project class implements or extends, resolved, transitively.
fn implemented_types(
    project: &Project,
    c: crate::semantic::ClassRef,
) -> Vec<(TypeRef, crate::semantic::ClassRef)> {
    let mut out = Vec::new();
    for k in std::iter::once(c).chain(project.supertypes_of(c).iter().copied()) {
        for s in &project.class(k).supertypes {
            out.push((project.resolve_type(k.0, Some(k.1 as usize), s), k));
        }
    }
    out
}

/// Gives the lambda regions of one row (by its index) in one file, from the function it is
/// passed or from a cache (called from several threads at once).
pub type LambdasOf<'a> = &'a (dyn Fn(u32, usize, &dyn Fn() -> Vec<Region>) -> Vec<Region> + Sync);

/// Regions of framework types implemented in the project: methods of implementing classes,
/// and lambdas whose declared type is the framework type.
/// Only classes with a method for which `wanted` holds, and only such methods, are looked at.
/// `lambdas` gives the lambda regions of one row (by its index) in one file, from the function
/// it is passed (which walks the file's `wanted` bodies) or from a cache.
pub fn implementation_regions(
    project: &Project,
    cat: &Catalogue,
    wanted: &(dyn Fn(&MethodId) -> bool + Sync),
    lambdas: LambdasOf,
    never_fails: NeverFailsOf,
) -> Vec<Region> {
    let mut out = Vec::new();
    for (ri, row) in cat.regions.implementation.iter().enumerate() {
        let is_row_type = |t: &TypeRef| row.supertypes.iter().any(|x| project.type_is(t, x));
        // A file at a time, in parallel, in the files' order.
        let per_file: Vec<Vec<Region>> = (0..project.files.len())
            .into_par_iter()
            .map(|fi| {
                implementing_classes(project, cat, row, &is_row_type, wanted, never_fails, fi)
            })
            .collect();
        out.extend(per_file.into_iter().flatten());
        // A lambda's parameter types are not written: rows that look at them take classes only.
        if row.supertypes.is_empty() || !row.param_types.is_empty() {
            continue;
        }
        // Lambdas typed as the framework type: returned, held in a local, or in a field.
        let per_file: Vec<Vec<Region>> = (0..project.files.len() as u32)
            .into_par_iter()
            .map(|fi| {
                lambdas(fi, ri, &|| {
                    lambda_regions(project, row, &is_row_type, wanted, fi)
                })
            })
            .collect();
        out.extend(per_file.into_iter().flatten());
    }
    out
}

/// The regions of row `row` in file `fi`'s classes that implement its framework type (or a
/// type annotated as its): their methods the framework calls again, by name.
fn implementing_classes(
    project: &Project,
    cat: &Catalogue,
    row: &ImplementationRegion,
    is_row_type: &(dyn Fn(&TypeRef) -> bool + Sync),
    wanted: &(dyn Fn(&MethodId) -> bool + Sync),
    never_fails: NeverFailsOf,
    fi: usize,
) -> Vec<Region> {
    let mut out = Vec::new();
    let facts = &project.files[fi].facts;
    for ci in 0..facts.classes.len() {
        let c = (fi as u32, ci as u32);
        if !project.methods_of(c).iter().any(wanted) {
            continue;
        }
        // Methods the framework calls again, by name.
        let mut names: Vec<String> = Vec::new();
        for (t, _) in implemented_types(project, c) {
            if is_row_type(&t) {
                names.extend(row.methods.iter().cloned());
            }
            if let TypeRef::Project(k) = t {
                let kc = project.class(k);
                let annotated = kc.annotations.iter().any(|a| {
                    let at = project.resolve_type(k.0, Some(k.1 as usize), &a.name);
                    row.supertype_annotations
                        .iter()
                        .any(|x| project.type_is(&at, x))
                });
                if annotated {
                    if row.methods.iter().any(|m| m == "*") {
                        names.extend(
                            project
                                .methods_of(k)
                                .iter()
                                .map(|m| project.method(*m).name.to_string()),
                        );
                    } else {
                        names.extend(row.methods.iter().cloned());
                    }
                }
            }
        }
        if names.is_empty() {
            continue;
        }
        for m in project.methods_of(c) {
            let mm = project.method(*m);
            if mm.has_body()
                && !mm.is_ctor
                && names.iter().any(|n| *n == mm.name)
                && takes_row_param(project, row, *m)
                && !(row.on_failure
                    && !super::liveness::returns_deferred(project, cat, *m)
                    && super::liveness::never_fails_through(project, cat, *m, never_fails)
                        .is_some())
            {
                out.push(Region {
                    scheduler: row.scheduler,
                    ..Region::new(
                        &row.label,
                        mm.name.to_string(),
                        Loc {
                            file: m.0,
                            span: mm.name_span,
                        },
                        vec![Part::Whole(*m)],
                        &row.id,
                    )
                });
            }
        }
    }
    out
}

/// The regions of lambdas typed as `row`'s framework type in the `wanted` methods of file `fi`.
fn lambda_regions(
    project: &Project,
    row: &ImplementationRegion,
    is_row_type: &dyn Fn(&TypeRef) -> bool,
    wanted: &dyn Fn(&MethodId) -> bool,
    fi: u32,
) -> Vec<Region> {
    let mut out = Vec::new();
    let n = project.files[fi as usize].facts.methods.len() as u32;
    for id in (0..n).map(|mi| (fi, mi)).filter(|m| wanted(m)) {
        let m = project.method(id);
        let class = project.class_of(id);
        let resolve = |ty: &str| project.resolve_type(id.0, Some(class.1 as usize), ty);
        let mut scopes = Vec::new();
        // Every lambda of a body has a scope of its own beside the body's (scope 0): a
        // method with none has no lambda to find, and its body is not decoded for each row.
        if let Some(body) = (m.scopes.len() > 1).then(|| m.peek_body()).flatten() {
            let body = &*body;
            if !m.ret.is_empty() && is_row_type(&resolve(&m.ret)) {
                let mut rets = Vec::new();
                collect_returns(body, &mut rets);
                scopes.extend(rets.iter().filter_map(|e| lambda_scope(e)));
            }
            let mut defs = crate::semantic::Defs::new();
            collect_defs(body, &mut defs);
            let mut locals: Vec<_> = defs.values().collect();
            locals.sort_by_key(|(_, e)| e.span());
            for (ty, init) in locals {
                if !ty.is_empty() && is_row_type(&resolve(ty)) {
                    scopes.extend(lambda_scope(init));
                }
            }
        }
        if m.name == "<init>" {
            for f in &project.class(class).fields {
                if let Some(init) = &f.init
                    && is_row_type(&resolve(&f.ty))
                {
                    scopes.extend(lambda_scope(init));
                }
            }
        }
        if !scopes.is_empty() {
            out.push(Region {
                scheduler: row.scheduler,
                ..Region::new(
                    &row.label,
                    m.name.to_string(),
                    Loc {
                        file: id.0,
                        span: m.name_span,
                    },
                    vec![Part::Scopes(id, scopes)],
                    &row.id,
                )
            });
        }
    }
    out
}

/// Does method `m` take what the row's implementations must take first (any, without
/// `param_types`)?
fn takes_row_param(project: &Project, row: &ImplementationRegion, m: MethodId) -> bool {
    if row.param_types.is_empty() {
        return true;
    }
    let Some(p) = project.method(m).params.first() else {
        return false;
    };
    let class = project.class_of(m);
    let t = project.resolve_type(m.0, Some(class.1 as usize), &p.ty);
    row.param_types.iter().any(|x| project.type_is(&t, x))
}

fn lambda_scope(e: &Expr) -> Option<ScopeId> {
    match e.peel() {
        Expr::Lambda(l) => Some(l.scope),
        _ => None,
    }
}
