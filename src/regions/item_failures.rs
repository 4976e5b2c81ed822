//! Partial batch responses (`[[regions.item_failures]]`): a redelivered handler (an AWS Lambda
//! handler of an SQS or stream event source mapping) may catch each item's failure and report
//! it in the value it returns, so that only those items are delivered again. Whether such a
//! report is a failure depends on the deployment, not on the handler: the platform reads it only
//! where the event source mapping enables it. So a catch clause that reports an item fails (the
//! item runs again) when the report is read, and fails nothing when it is ignored: the scanned
//! tree declares event source mappings and none of them enables the report. A tree that
//! declares none is deployed from elsewhere, and the report is taken as read there (as a retry
//! annotation with no enabling configuration in the tree is taken as enabled by a dependency).

use crate::catalogue::Catalogue;
use crate::catalogue::schema::ItemFailures;
use crate::java::ir::{Expr, Node};
use crate::semantic::{MethodId, Project};

/// Does the platform read the item failures of `row` in this tree?
fn read(project: &Project, row: &ItemFailures) -> bool {
    row.enabled_by.iter().any(|w| project.tree_names(w))
        || !row.mappings.iter().any(|w| project.tree_names(w))
}

/// Does `n`, code of method `id`, make a value of one of the catalogue's item failure types
/// anywhere in it (see [`makes`])? `Some(read)`: whether the platform reads such a report in
/// this tree (see the module); one report read makes it `true`. `None`: it makes none.
pub fn reports(project: &Project, cat: &Catalogue, id: MethodId, n: Node<'_>) -> Option<bool> {
    if cat.regions.item_failures.is_empty() {
        return None;
    }
    let mut found: Option<bool> = None;
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if let Node::Expr(e) = n
            && let Some(r) = makes(project, cat, id, e)
        {
            found = Some(found.unwrap_or(false) || r);
        }
        n.children(&mut stack);
    }
    found
}

/// Is `e` itself a value of one of the catalogue's item failure types being made: a
/// constructor call (`new SQSBatchResponse.BatchItemFailure(id)`) or reference
/// (`SQSBatchResponse.BatchItemFailure::new`), or a builder chain from the
/// type's static `builder()` through `with…` setters to `build()`? `Some(read)` as in
/// [`reports`]; `None` for anything else, a call that merely contains one included.
pub fn makes(project: &Project, cat: &Catalogue, id: MethodId, e: &Expr) -> Option<bool> {
    let rows = &cat.regions.item_failures;
    let written = match e {
        Expr::New(x) => x.ty.clone(),
        // A constructor reference (`.map(SQSBatchResponse.BatchItemFailure::new)`).
        Expr::MethodRef(r) if r.name == "new" => r.recv.dotted()?,
        Expr::Call(_) => {
            let mut at = e;
            loop {
                let Expr::Call(c) = at else {
                    return None;
                };
                if c.name == "builder" && c.args.is_empty() {
                    break c.recv.as_ref()?.dotted()?;
                }
                if c.name != "build" && !c.name.starts_with("with") {
                    return None;
                }
                at = c.recv.as_ref()?;
            }
        }
        _ => return None,
    };
    let class = project.class_of(id);
    let t = project.resolve_type(id.0, Some(class.1 as usize), &written);
    let row = rows
        .iter()
        .find(|r| r.types.iter().any(|x| project.type_is(&t, x)))?;
    Some(read(project, row))
}
