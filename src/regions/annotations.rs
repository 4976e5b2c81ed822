//! Regions made by annotations on methods and classes.

use super::enablers::{Enablers, NamedCallsOf};
use super::liveness::{NeverFailsOf, dead_reason};
use super::pipelines::returned_upstream;
use super::{Part, Region};
use crate::catalogue::{AnnotationRegion, Catalogue};
use crate::java::ir::{Annotation, ClassKind};
use crate::semantic::{Loc, MethodId, Project, TypeRef};
use rayon::prelude::*;

/// Regions made by annotations on methods and classes.
/// Only methods for which `wanted` holds are looked at; `callers_known` holds for those whose
/// every caller in the scan was parsed (a self-invoked method is dead only then).
/// `named_calls` and `never_fails` give what the liveness reads of each file and method.
pub fn annotation_regions(
    project: &Project,
    cat: &Catalogue,
    wanted: &(dyn Fn(&MethodId) -> bool + Sync),
    callers_known: &(dyn Fn(&MethodId) -> bool + Sync),
    named_calls: NamedCallsOf,
    never_fails: NeverFailsOf,
) -> Vec<Region> {
    // Each method is looked at on its own: in parallel, in the methods' order.
    let all: Vec<MethodId> = project.all_methods().filter(|m| wanted(m)).collect();
    let rows = RowNames::of(cat);
    let hits: Vec<(MethodId, &AnnotationRegion, crate::java::ir::Span)> = all
        .par_iter()
        .filter_map(|id| hit(project, cat, &rows, *id))
        .collect();
    // Only a non-public method's callers are counted (is it invoked on `this` alone?): the
    // names of those are all the project's calls are looked up by.
    let asked = hits
        .iter()
        .map(|(id, ..)| project.method(*id))
        .filter(|m| !m.modifiers.is_public)
        .map(|m| m.name.to_string())
        .collect();
    let enablers = Enablers::of(project, cat, named_calls, asked);
    // Before the hits are looked at in parallel (see `Enablers::prepare`).
    enablers.prepare(project);
    hits.into_par_iter()
        .map(|(id, r, span)| {
            // A retried publisher: the body ran once, at assembly; its deferred parts re-run.
            let (parts, sends_at, deferred_refs) = r
                .resubscribes_returned
                .then(|| returned_upstream(project, cat, id))
                .flatten()
                .map(|f| (f.parts, f.sends_at, f.refs))
                .unwrap_or_else(|| (vec![Part::Whole(id)], Vec::new(), Vec::new()));
            Region {
                scheduler: r.scheduler,
                dead: dead_reason(
                    project,
                    cat,
                    &enablers,
                    r,
                    id,
                    callers_known(&id),
                    never_fails,
                ),
                report_dead: r.report_dead,
                sends_at,
                deferred_refs,
                ..Region::new(
                    &r.label,
                    project.method(id).name.to_string(),
                    Loc { file: id.0, span },
                    parts,
                    &r.id,
                )
            }
        })
        .collect()
}

/// The annotation row that makes method `id` a region, with the span it is reported at: an
/// annotation on the method, on the method it implements or overrides, or on its class.
fn hit<'c>(
    project: &Project,
    cat: &'c Catalogue,
    rows: &RowNames,
    id: MethodId,
) -> Option<(MethodId, &'c AnnotationRegion, crate::java::ir::Span)> {
    let m = project.method(id);
    if m.is_ctor || !m.has_body() || m.name.starts_with('<') {
        return None;
    }
    let class = project.class_of(id);
    let matches_in = |at: crate::semantic::ClassRef, a: &Annotation| {
        let t = project.resolve_type(at.0, Some(at.1 as usize), &a.name);
        if !rows.may_match(&t) {
            return None;
        }
        cat.regions
            .annotation
            .iter()
            .find(|r| r.annotations.iter().any(|x| project.type_is(&t, x)))
            .or_else(|| composed(project, cat, &t))
    };
    let matches = |a: &Annotation| matches_in(class, a);
    let mut hit = None;
    for a in &m.annotations {
        if let Some(r) = matches(a) {
            hit = Some((r, a.span));
            break;
        }
    }
    // Declared on the method of an implemented interface or overridden class.
    if hit.is_none() {
        'sup: for sup in project.supertypes_of(class) {
            for sm in project.methods_of(*sup) {
                let smm = project.method(*sm);
                if smm.name != m.name || smm.params.len() != m.params.len() {
                    continue;
                }
                for a in &smm.annotations {
                    if let Some(r) = matches_in(*sup, a) {
                        hit = Some((r, m.name_span));
                        break 'sup;
                    }
                }
            }
        }
    }
    if hit.is_none() && m.modifiers.is_public {
        for a in &project.class(class).annotations {
            if let Some(r) = matches(a).filter(|r| r.class_level) {
                // A recovery method of a retried class runs once, after the attempts.
                let exempt = m.annotations.iter().any(|ma| {
                    let t = project.resolve_type(id.0, Some(class.1 as usize), &ma.name);
                    r.class_level_except.iter().any(|x| project.type_is(&t, x))
                });
                if !exempt {
                    hit = Some((r, a.span));
                }
                break;
            }
        }
    }
    // A row that needs a bean named by an attribute (`adviceChain = "retryAdvice"`).
    if let Some((r, _)) = hit
        && let Some(b) = &r.when_bean_attribute
    {
        let names_bean = m.annotations.iter().any(|a| {
            let t = project.resolve_type(id.0, Some(class.1 as usize), &a.name);
            r.annotations.iter().any(|x| project.type_is(&t, x))
                && a.args
                    .iter()
                    .filter(|(k, _)| k.as_deref() == Some(b.name.as_str()))
                    .flat_map(|(_, v)| bean_names(v))
                    .any(|n| is_bean_of(project, &n, &b.types))
        });
        if !names_bean {
            hit = None;
        }
    }
    hit.map(|(r, span)| (id, r, span))
}

/// The simple names of the annotation rows' annotations. Most annotations of a project
/// (`@Override`, `@GetMapping`, `@Transactional`) are library or unresolved types, which
/// [`Project::type_is`] matches only by their own name: one whose simple name no row has is no
/// row's, without asking each row. A project type is always asked (it may be composed, or
/// extend a row's type).
struct RowNames(Option<std::collections::HashSet<String>>);

impl RowNames {
    fn of(cat: &Catalogue) -> RowNames {
        let patterns = || {
            cat.regions
                .annotation
                .iter()
                .flat_map(|r| r.annotations.iter().chain(&r.composable))
        };
        // A glob matches names of any kind: no shortcut then.
        if patterns().any(|p| p.contains('*')) {
            return RowNames(None);
        }
        let simple = |p: &String| p.rsplit('.').next().unwrap_or(p).to_string();
        RowNames(Some(patterns().map(simple).collect()))
    }

    /// Can some row's annotation be `t`?
    fn may_match(&self, t: &TypeRef) -> bool {
        let Some(names) = &self.0 else {
            return true;
        };
        match t {
            TypeRef::Project(_) => true,
            TypeRef::External(f) | TypeRef::Unknown(f) => {
                names.contains(f.rsplit('.').next().unwrap_or(f))
            }
        }
    }
}

/// The row of a composed annotation: a project annotation type annotated with one of a row's
/// `composable` annotations (one level: a composed annotation of a composed one is not
/// followed).
fn composed<'c>(
    project: &Project,
    cat: &'c Catalogue,
    t: &TypeRef,
) -> Option<&'c AnnotationRegion> {
    let TypeRef::Project(k) = t else {
        return None;
    };
    let c = project.class(*k);
    if c.kind != ClassKind::Annotation {
        return None;
    }
    c.annotations.iter().find_map(|a| {
        let t = project.resolve_type(k.0, Some(k.1 as usize), &a.name);
        cat.regions
            .annotation
            .iter()
            .find(|r| r.composable.iter().any(|x| project.type_is(&t, x)))
    })
}

/// The bean names an annotation attribute gives: a string, or an array of strings.
fn bean_names(v: &crate::java::ir::Expr) -> Vec<String> {
    use crate::java::ir::Expr;
    match v.peel() {
        Expr::Str(s, _) => vec![s.clone()],
        Expr::Op(xs, _) => xs.iter().flat_map(bean_names).collect(),
        _ => Vec::new(),
    }
}

/// Is there a method named `name` (a `@Bean` method: the bean's name) returning one of `types`?
fn is_bean_of(project: &Project, name: &str, types: &[String]) -> bool {
    project.all_methods().any(|id| {
        let m = project.method(id);
        m.name == name && !m.ret.is_empty() && {
            let c = project.class_of(id);
            let t = project.resolve_type(id.0, Some(c.1 as usize), &m.ret);
            types.iter().any(|x| project.type_is(&t, x))
        }
    })
}
