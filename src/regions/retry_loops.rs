//! Hand-written retry loops, and the cheap test for methods that may hold a call-made region.

use crate::catalogue::Catalogue;
use crate::java::ir::{Block, Expr, LambdaBody, Method, Stmt};

/// A hand-written retry loop: a `try` in the body leaves the loop on success (`break` or
/// `return`) and one of its `catch` blocks lets the loop go round again.
pub fn is_retry_loop(body: &Block) -> bool {
    let mut stack: Vec<&Stmt> = body.iter().collect();
    while let Some(s) = stack.pop() {
        match s {
            Stmt::Try { body, catches, .. } => {
                if exits(body) && catches.iter().any(|(_, c)| !ends_abruptly(c)) {
                    return true;
                }
                stack.extend(body.iter());
            }
            Stmt::If { then, els, .. } => {
                stack.extend(then.iter());
                stack.extend(els.iter().flatten());
            }
            Stmt::Block(b) => stack.extend(b.iter()),
            _ => {}
        }
    }
    false
}

/// Does the block leave the loop (a `break` or `return` not inside a nested loop)?
fn exits(b: &Block) -> bool {
    let mut stack: Vec<&Stmt> = b.iter().collect();
    while let Some(s) = stack.pop() {
        match s {
            Stmt::Break | Stmt::Return(..) => return true,
            Stmt::If { then, els, .. } => {
                stack.extend(then.iter());
                stack.extend(els.iter().flatten());
            }
            Stmt::Block(x) => stack.extend(x.iter()),
            Stmt::Try { body, finally, .. } => {
                stack.extend(body.iter());
                stack.extend(finally.iter().flatten());
            }
            _ => {}
        }
    }
    false
}

fn ends_abruptly(b: &Block) -> bool {
    matches!(
        b.last(),
        Some(Stmt::Throw(_) | Stmt::Return(..) | Stmt::Break)
    )
}

/// Can this method make a callback, pipeline or retry-loop region? A cheap syntactic test, so
/// that only such methods are interpreted to find their regions.
pub fn may_hold_region(m: &Method, cat: &Catalogue) -> bool {
    let Some(body) = &m.body else { return false };
    let wanted = |name: &str| {
        cat.regions
            .callback
            .iter()
            .any(|r| r.methods.iter().any(|x| x == name))
            || cat
                .regions
                .pipeline
                .iter()
                .any(|r| r.operators.iter().any(|x| x == name))
            || super::registration::registers(cat, name)
    };
    let mut stmts: Vec<&Stmt> = body.iter().collect();
    let mut exprs: Vec<&Expr> = Vec::new();
    loop {
        if let Some(s) = stmts.pop() {
            match s {
                Stmt::Local { init, .. } => exprs.extend(init.iter()),
                Stmt::Expr(e) | Stmt::Throw(e) | Stmt::Return(Some(e), _) => exprs.push(e),
                Stmt::If { cond, then, els } => {
                    exprs.push(cond);
                    stmts.extend(then.iter());
                    stmts.extend(els.iter().flatten());
                }
                Stmt::Loop { each: None, .. } => return true,
                Stmt::Loop {
                    head,
                    cond,
                    update,
                    body,
                    each: Some((_, _, coll)),
                    ..
                } => {
                    stmts.extend(head.iter());
                    exprs.extend(cond.iter());
                    exprs.extend(update.iter());
                    exprs.push(coll);
                    stmts.extend(body.iter());
                }
                Stmt::Try {
                    resources,
                    body,
                    catches,
                    finally,
                } => {
                    stmts.extend(resources.iter());
                    stmts.extend(body.iter());
                    for (_, c) in catches {
                        stmts.extend(c.iter());
                    }
                    stmts.extend(finally.iter().flatten());
                }
                Stmt::Block(b) => stmts.extend(b.iter()),
                Stmt::Return(None, _) | Stmt::Break | Stmt::Continue | Stmt::Jump => {}
            }
            continue;
        }
        let Some(e) = exprs.pop() else { return false };
        match e {
            Expr::Call(c) => {
                if wanted(&c.name) {
                    return true;
                }
                exprs.extend(c.recv.iter());
                exprs.extend(c.args.iter());
            }
            Expr::New(n) => {
                exprs.extend(n.args.iter());
                for a in &n.anon {
                    stmts.extend(a.body.iter());
                }
            }
            Expr::Field(r, _, _) | Expr::Not(r, _) | Expr::Cast(_, r, _) => exprs.push(r),
            Expr::Lambda(l) => match &l.body {
                LambdaBody::Expr(x) => exprs.push(x),
                LambdaBody::Block(b) => stmts.extend(b.iter()),
            },
            Expr::MethodRef(r) => exprs.push(&r.recv),
            Expr::Assign(a) => {
                exprs.push(&a.target);
                exprs.push(&a.value);
            }
            Expr::Ternary(a, b, c, _) => {
                exprs.push(a);
                exprs.push(b);
                exprs.push(c);
            }
            Expr::Binary(b) => {
                exprs.push(&b.left);
                exprs.push(&b.right);
            }
            Expr::Op(xs, _) => exprs.extend(xs.iter()),
            Expr::Switch(s, arms, _) => {
                exprs.push(s);
                for a in arms {
                    stmts.extend(a.iter());
                }
            }
            Expr::Name(..)
            | Expr::This(_)
            | Expr::Str(..)
            | Expr::Lit(..)
            | Expr::Null(_)
            | Expr::Opaque(_) => {}
        }
    }
}
