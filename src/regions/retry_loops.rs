//! Hand-written retry loops, and the cheap test for methods that may hold a call-made region.

use crate::catalogue::Catalogue;
use crate::java::ir::{Block, Expr, LambdaBody, Method, Stmt};

/// A hand-written retry loop (SPEC §3.2): a `try` in the body ends the loop on success — a
/// `break` or `return`, or an assignment to a flag the loop condition tests — and one of its
/// `catch` blocks lets the loop go round again. A failover loop, whose passes each take another
/// element of a list, an array or an iterator (another gateway, another region), is not one.
pub fn is_retry_loop(cond: Option<&Expr>, update: &[Expr], body: &Block) -> bool {
    let mut flags = Vec::new();
    if let Some(c) = cond {
        names_in(c, &mut flags);
    }
    let mut stack: Vec<&Stmt> = body.iter().collect();
    let mut found = false;
    while let Some(s) = stack.pop() {
        match s {
            Stmt::Try { body, catches, .. } => {
                if (exits(body) || sets_flag(body, &flags))
                    && catches.iter().any(|(_, c)| !ends_abruptly(c))
                {
                    found = true;
                    break;
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
    found && !is_failover(cond, update, body)
}

/// Does each pass of the loop take another element: its counter indexes a list or an array
/// (`urls.get(i)`, `pool[i]`), or its condition walks an iterator (`it.hasNext()`)?
fn is_failover(cond: Option<&Expr>, update: &[Expr], body: &Block) -> bool {
    let mut exprs: Vec<&Expr> = cond.into_iter().chain(update).collect();
    let mut stmts: Vec<&Stmt> = body.iter().collect();
    let mut all: Vec<&Expr> = Vec::new();
    while let Some(s) = stmts.pop() {
        match s {
            Stmt::Local { init, .. } => exprs.extend(init.iter()),
            Stmt::Expr(e) | Stmt::Throw(e) | Stmt::Return(Some(e), _) => exprs.push(e),
            Stmt::If { cond, then, els } => {
                exprs.push(cond);
                stmts.extend(then.iter());
                stmts.extend(els.iter().flatten());
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                stmts.extend(resources.iter());
                stmts.extend(body.iter());
                stmts.extend(catches.iter().flat_map(|(_, b)| b));
                stmts.extend(finally.iter().flatten());
            }
            Stmt::Block(b) => stmts.extend(b.iter()),
            _ => {}
        }
    }
    while let Some(e) = exprs.pop() {
        all.push(e);
        match e {
            Expr::Call(c) => {
                exprs.extend(c.recv.iter());
                exprs.extend(c.args.iter());
            }
            Expr::Field(r, _, _) | Expr::Not(r, _) | Expr::Cast(_, r, _) => exprs.push(r),
            Expr::Assign(a) => {
                exprs.push(&a.target);
                exprs.push(&a.value);
            }
            Expr::Ternary(a, b, c, _) => exprs.extend([&**a, &**b, &**c]),
            Expr::Binary(b) => exprs.extend([&b.left, &b.right]),
            Expr::Op(xs, _) => exprs.extend(xs.iter()),
            _ => {}
        }
    }
    // The loop's counters: what `++`, `--`, `+=`, `-=` change in it.
    let counters: Vec<&str> = all
        .iter()
        .filter_map(|e| match e {
            Expr::Assign(a) if a.op != "=" => match a.target.peel() {
                Expr::Name(n, _) => Some(n.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let mentions_counter = |e: &Expr| {
        let mut names = Vec::new();
        names_in(e, &mut names);
        names.iter().any(|n| counters.contains(&n.as_str()))
    };
    let walks_iterator = cond.is_some_and(|c| {
        let mut calls = vec![c];
        let mut found = false;
        while let Some(e) = calls.pop() {
            match e.peel() {
                Expr::Call(x) if x.name == "hasNext" && x.args.is_empty() => found = true,
                Expr::Not(x, _) => calls.push(x),
                Expr::Binary(b) => calls.extend([&b.left, &b.right]),
                _ => {}
            }
        }
        found
    });
    walks_iterator
        || all.iter().any(|e| match e {
            Expr::Call(c) => {
                c.name == "get"
                    && c.recv.is_some()
                    && c.args.len() == 1
                    && mentions_counter(&c.args[0])
            }
            // An array access: the array and its index.
            Expr::Op(xs, _) => {
                xs.len() == 2
                    && matches!(xs[0].peel(), Expr::Name(..) | Expr::Field(..))
                    && mentions_counter(&xs[1])
            }
            _ => false,
        })
}

/// The variable names an expression reads (not inside lambdas or calls' arguments).
fn names_in(e: &Expr, out: &mut Vec<String>) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Name(n, _) => out.push(n.clone()),
            Expr::Not(x, _) | Expr::Cast(_, x, _) => stack.push(x),
            Expr::Binary(b) => stack.extend([&b.left, &b.right]),
            Expr::Assign(a) => stack.push(&a.target),
            Expr::Op(xs, _) => stack.extend(xs.iter()),
            Expr::Ternary(a, b, c, _) => stack.extend([&**a, &**b, &**c]),
            _ => {}
        }
    }
}

/// Does the block (outside nested loops and lambdas) assign one of `flags`?
fn sets_flag(b: &Block, flags: &[String]) -> bool {
    if flags.is_empty() {
        return false;
    }
    let mut stack: Vec<&Stmt> = b.iter().collect();
    while let Some(s) = stack.pop() {
        match s {
            Stmt::Expr(Expr::Assign(a)) if a.op == "=" => {
                if let Expr::Name(n, _) = a.target.peel()
                    && flags.contains(n)
                {
                    return true;
                }
            }
            Stmt::If { then, els, .. } => {
                stack.extend(then.iter());
                stack.extend(els.iter().flatten());
            }
            Stmt::Block(x) => stack.extend(x.iter()),
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
    if super::recursion::may_retry_itself(m, cat) {
        return true;
    }
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
            || super::steps::names_a_step(name, &cat.regions.step)
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
