//! Component scanning (SPEC 3.2): a declarative client's own configuration class applies to that
//! client only when the application does not also pick it up as a bean of its own. Spring Cloud
//! OpenFeign's per-client configuration annotated `@Configuration` (or `@Component`) inside the
//! packages that `@SpringBootApplication` or `@ComponentScan` scan becomes application-wide: its
//! `Retryer` or `RequestInterceptor` bean applies to every client of the application.
//!
//! Every name comes from the catalogue row (`scanned_annotations`, `scan_roots`).

use crate::catalogue::{BeanClients, ScanRoot};
use crate::java::ir::{Annotation, Expr};
use crate::semantic::{ClassRef, Project, TypeRef};
use std::collections::BTreeSet;

/// Of `candidates` (classes named as some client's configuration), those that a component scan
/// of an application that sees them picks up.
pub(super) fn scanned(
    project: &Project,
    beans: &BeanClients,
    candidates: &BTreeSet<ClassRef>,
) -> BTreeSet<ClassRef> {
    let stereotyped: Vec<ClassRef> = candidates
        .iter()
        .copied()
        .filter(|c| {
            annotated(project, *c, &project.class(*c).annotations, |t| {
                beans
                    .scanned_annotations
                    .iter()
                    .any(|x| project.type_is(t, x))
            })
        })
        .collect();
    if stereotyped.is_empty() || beans.scan_roots.is_empty() {
        return BTreeSet::new();
    }
    if let Some(d) = project.deps() {
        // An application class in a file not parsed yet would change the answer.
        for r in &beans.scan_roots {
            d.note_name(r.annotation.rsplit('.').next().unwrap_or(&r.annotation));
        }
    }
    let roots = scan_roots(project, beans);
    stereotyped
        .into_iter()
        .filter(|c| {
            let package = project.files[c.0 as usize].facts.package.as_str();
            roots.iter().any(|(file, packages)| {
                project.modules().sees(*file, c.0) && packages.iter().any(|p| under(package, p))
            })
        })
        .collect()
}

/// Is `package` the package `root` or one below it (the empty root scans everything)?
fn under(package: &str, root: &str) -> bool {
    root.is_empty()
        || package == root
        || package
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// Does one of `anns`, written in class `c`'s file, resolve to a type `is` accepts?
fn annotated(
    project: &Project,
    c: ClassRef,
    anns: &[Annotation],
    is: impl Fn(&TypeRef) -> bool,
) -> bool {
    anns.iter()
        .any(|a| is(&project.resolve_type(c.0, Some(c.1 as usize), &a.name)))
}

/// The application classes that scan for components: per class, the file it is in and the
/// packages its scan covers. A class's first matching row decides; a scan whose packages cannot
/// be read, or that sets an exclusion, is left out.
fn scan_roots(project: &Project, beans: &BeanClients) -> Vec<(u32, Vec<String>)> {
    let mut out = Vec::new();
    for (fi, f) in project.files.iter().enumerate() {
        for ci in 0..f.facts.classes.len() {
            let c = (fi as u32, ci as u32);
            let anns = &project.class(c).annotations;
            let found = beans.scan_roots.iter().find_map(|row| {
                anns.iter()
                    .find(|a| {
                        let t = project.resolve_type(c.0, Some(c.1 as usize), &a.name);
                        project.type_is(&t, &row.annotation)
                    })
                    .map(|a| (row, a))
            });
            let Some((row, a)) = found else { continue };
            if let Some(packages) = scanned_packages(project, c, row, a) {
                out.push((fi as u32, packages));
            }
        }
    }
    out
}

/// The packages annotation `a` (of `row`) on class `c` scans; `None` when they cannot be told
/// (a value that is not a literal, a class outside the project) or when it sets an exclusion.
fn scanned_packages(
    project: &Project,
    c: ClassRef,
    row: &ScanRoot,
    a: &Annotation,
) -> Option<Vec<String>> {
    let named = |names: &[String]| {
        a.args
            .iter()
            .filter(move |(k, _)| {
                let k = k.as_deref().unwrap_or("value");
                names.iter().any(|n| n == k)
            })
            .map(|(_, v)| v)
            .collect::<Vec<_>>()
    };
    if !named(&row.exclude).is_empty() {
        return None;
    }
    let mut packages = Vec::new();
    let mut any = false;
    for v in named(&row.packages) {
        any = true;
        for e in elements(v) {
            match e {
                Expr::Str(s, _) => packages.push(s.trim().to_string()),
                _ => return None,
            }
        }
    }
    for v in named(&row.classes) {
        any = true;
        for e in elements(v) {
            let Expr::Field(ty, f, _) = e else {
                return None;
            };
            let d = ty.dotted().filter(|_| f == "class")?;
            let TypeRef::Project(k) = project.resolve_type(c.0, Some(c.1 as usize), &d) else {
                return None;
            };
            packages.push(project.files[k.0 as usize].facts.package.to_string());
        }
    }
    if !any {
        packages.push(project.files[c.0 as usize].facts.package.to_string());
    }
    Some(packages)
}

/// The elements of an annotation value: those of an array (`{a, b}`), or the value itself.
fn elements(v: &Expr) -> Vec<&Expr> {
    match v.peel() {
        Expr::Op(xs, _) => xs.iter().map(Expr::peel).collect(),
        one => vec![one],
    }
}

#[cfg(test)]
mod tests {
    use super::under;

    #[test]
    fn a_package_is_under_itself_and_its_parents_only() {
        assert!(under("com.shop.gw.clients", "com.shop.gw"));
        assert!(under("com.shop.gw", "com.shop.gw"));
        assert!(under("com.shop", ""));
        assert!(!under("com.shop.gateway", "com.shop.gw"));
        assert!(!under("com.shop", "com.shop.gw"));
    }
}
