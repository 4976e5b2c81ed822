//! Regions made by annotations on methods and classes.

use super::{Part, Region};
use crate::catalogue::Catalogue;
use crate::java::ir::Annotation;
use crate::semantic::{Loc, MethodId, Project};

/// Retry annotations that only fire where the application enables them (§3.3), with the
/// annotation that does.
const ENABLED_BY: &[(&str, &str)] = &[
    (
        "org.springframework.retry.annotation.Retryable",
        "org.springframework.retry.annotation.EnableRetry",
    ),
    (
        "org.springframework.resilience.annotation.Retryable",
        "org.springframework.resilience.annotation.EnableResilientMethods",
    ),
];

/// The files holding a class annotated with `enabler`.
fn enabling_files(project: &Project, enabler: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for (fi, f) in project.files.iter().enumerate() {
        let enables = f.facts.classes.iter().enumerate().any(|(ci, c)| {
            c.annotations.iter().any(|a| {
                let t = project.resolve_type(fi as u32, Some(ci), &a.name);
                project.type_is(&t, enabler)
            })
        });
        if enables {
            out.push(fi as u32);
        }
    }
    out
}

/// Can a region of row `r` in file `file` fire? Where no application of the scanned tree
/// enables its framework, a dependency is assumed to (live); where some do, only an enabling
/// class in the file's build module or a module it depends on makes it live.
fn enabled(
    project: &Project,
    enablers: &[(&str, Vec<u32>)],
    r: &crate::catalogue::AnnotationRegion,
    file: u32,
) -> bool {
    ENABLED_BY
        .iter()
        .zip(enablers)
        .all(|((ann, _), (_, files))| {
            !r.annotations.iter().any(|a| a == ann)
                || files.is_empty()
                || files.iter().any(|f| project.modules().sees(file, *f))
        })
}

/// Regions made by annotations on methods and classes.
/// Only methods for which `wanted` holds are looked at.
pub fn annotation_regions(
    project: &Project,
    cat: &Catalogue,
    wanted: &dyn Fn(&MethodId) -> bool,
) -> Vec<Region> {
    let mut out = Vec::new();
    let enablers: Vec<(&str, Vec<u32>)> = ENABLED_BY
        .iter()
        .map(|(_, e)| (*e, enabling_files(project, e)))
        .collect();
    for id in project.all_methods().filter(|m| wanted(m)) {
        let m = project.method(id);
        if m.is_ctor || m.body.is_none() || m.name.starts_with('<') {
            continue;
        }
        let class = project.class_of(id);
        let matches_in = |at: crate::semantic::ClassRef, a: &Annotation| {
            let t = project.resolve_type(at.0, Some(at.1 as usize), &a.name);
            cat.regions
                .annotation
                .iter()
                .find(|r| r.annotations.iter().any(|x| project.type_is(&t, x)))
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
        if let Some((r, span)) = hit
            && enabled(project, &enablers, r, id.0)
        {
            out.push(Region {
                label: r.label.clone(),
                owner: m.name.clone(),
                loc: Loc { file: id.0, span },
                scheduler: r.scheduler,
                parts: vec![Part::Whole(id)],
                row: r.id.clone(),
            });
        }
    }
    out
}
