//! Whether an attempt of a region is a database transaction of its own (SPEC 7.4: a
//! transactional outbox). A retry whose proxy runs outside the transaction's starts a new
//! transaction for every attempt, and a failed attempt rolls back every row it wrote; rows
//! reach the world only with the attempt that commits.

use super::Region;
use crate::catalogue::{Catalogue, Outbox};
use crate::java::ir::{Annotation, Expr};
use crate::semantic::{ClassRef, MethodId, Project};

/// The outbox row that makes every attempt of `r` a transaction of its own, if one does: `r` is
/// a region whose framework opens that transaction itself (a Spring Batch chunk), or a retried
/// method of one of the row's retry regions whose method (or class) runs in a transaction,
/// with nothing in the application reordering the retry and the transaction.
pub fn own_transaction<'c>(
    project: &Project,
    cat: &'c Catalogue,
    r: &Region,
) -> Option<&'c Outbox> {
    if let Some(row) = cat
        .guards
        .outbox
        .iter()
        .find(|o| o.framework_transactions.contains(&r.row))
    {
        return (!built_without_transaction(project, row, r)).then_some(row);
    }
    // Interceptors entered through the region's sends run inside its attempt, and so in its
    // transaction: the retried method is its own code.
    let id = &r.own_method()?;
    let row = cat
        .guards
        .outbox
        .iter()
        .find(|o| o.regions.contains(&r.row))?;
    let propagation = transaction_of(project, row, *id)?;
    if propagation.is_some_and(|p| row.without.contains(&p)) {
        return None;
    }
    if reordered(project, cat, row, r, *id) {
        return None;
    }
    Some(row)
}

/// Is region `r` built in a method that makes (`new ResourcelessTransactionManager()`) or takes
/// a transaction manager that opens no real transaction (`row.no_transaction`)?
fn built_without_transaction(project: &Project, row: &Outbox, r: &Region) -> bool {
    let Some(id) = project.method_at(&r.loc) else {
        return false;
    };
    let m = project.method(id);
    let class = project.class_of(id);
    let none = |ty: &str| {
        let t = project.resolve_type(class.0, Some(class.1 as usize), ty);
        row.no_transaction.iter().any(|x| project.type_is(&t, x))
    };
    m.params.iter().any(|p| none(&p.ty))
        || m.peek_body().is_some_and(|b| {
            crate::java::ir::Node::all(&b)
                .any(|n| matches!(n, crate::java::ir::Node::Expr(Expr::New(x)) if none(&x.ty)))
        })
}

/// Does a call of `m` run it outside the transaction of the attempt that calls it
/// (`@Transactional(propagation = REQUIRES_NEW)`: it commits before the attempt ends)?
pub fn leaves_transaction(project: &Project, row: &Outbox, m: MethodId) -> bool {
    transaction_of(project, row, m)
        .flatten()
        .is_some_and(|p| row.separate.contains(&p))
}

/// Does method `m`, called through its proxy, run in a transaction (its annotation, else its
/// class's, with a propagation that has one)? A save in it commits only with that transaction.
pub fn in_transaction(project: &Project, cat: &Catalogue, m: MethodId) -> bool {
    cat.guards.outbox.iter().any(|row| {
        transaction_of(project, row, m)
            .is_some_and(|p| !p.is_some_and(|p| row.without.contains(&p)))
    })
}

/// Does method `m`, called through its proxy, commit apart from the transaction of its caller
/// (`REQUIRES_NEW`, under any of the catalogue's transaction annotations)?
pub fn commits_apart(project: &Project, cat: &Catalogue, m: MethodId) -> bool {
    cat.guards
        .outbox
        .iter()
        .any(|row| leaves_transaction(project, row, m))
}

/// The transaction annotation that applies to method `m` (its own, else its class's): `None`
/// when there is none; `Some(propagation)` with the propagation's simple name when written.
fn transaction_of(project: &Project, row: &Outbox, m: MethodId) -> Option<Option<String>> {
    let class = project.class_of(m);
    let is_tx = |at: ClassRef, a: &Annotation| {
        let t = project.resolve_type(at.0, Some(at.1 as usize), &a.name);
        row.transactions.iter().any(|x| project.type_is(&t, x))
    };
    let method = project.method(m);
    let a = method
        .annotations
        .iter()
        .find(|a| is_tx(class, a))
        .or_else(|| {
            project
                .class(class)
                .annotations
                .iter()
                .find(|a| is_tx(class, a))
        })?;
    Some(a.constant_arg("propagation"))
}

/// May the application put the transaction outside the retry: an explicit `order` on one of the
/// row's `orders` annotations anywhere in the scan, or the retry aspect's order setting?
fn reordered(project: &Project, cat: &Catalogue, row: &Outbox, r: &Region, id: MethodId) -> bool {
    let simple = |s: &str| s.rsplit('.').next().unwrap_or(s).to_string();
    for (fi, f) in project.files.iter().enumerate() {
        for (ci, c) in f.facts.classes.iter().enumerate() {
            for a in &c.annotations {
                if !row.orders.iter().any(|o| simple(o) == simple(&a.name))
                    || !a.args.iter().any(|(k, _)| k.as_deref() == Some("order"))
                {
                    continue;
                }
                let t = project.resolve_type(fi as u32, Some(ci), &a.name);
                if row.orders.iter().any(|o| project.type_is(&t, o)) {
                    return true;
                }
            }
        }
    }
    cat.regions
        .annotation
        .iter()
        .find(|x| x.id == r.row)
        .and_then(|x| x.aspect_property.as_deref())
        .is_some_and(|p| !project.modules().setting(id.0, p).is_empty())
}
