//! Hand-written retry loops, and the cheap test for methods that may hold a call-made region.

use crate::catalogue::Catalogue;
use crate::java::ir::{Block, Expr, Method, Node, Stmt};

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
    (found || resets_before_try(body, &flags)) && !is_failover(cond, update, body)
}

/// Is the flag the loop condition tests reset at the top of each pass and set again only by a
/// `catch` (`do { retry = false; try { … } catch (E e) { retry = ++n < 3; } } while (retry)`)? A
/// pass whose `try` succeeds leaves it reset and ends the loop; a failure goes round again.
fn resets_before_try(body: &Block, flags: &[String]) -> bool {
    let mut reset: Vec<String> = Vec::new();
    for s in body {
        match s {
            Stmt::Expr(Expr::Assign(a))
                if a.op == "=" && matches!(a.value.peel(), Expr::Lit(..)) =>
            {
                if let Expr::Name(n, _) = a.target.peel()
                    && flags.contains(n)
                {
                    reset.push(n.clone());
                }
            }
            Stmt::Try { body, catches, .. }
                if !reset.is_empty()
                    && !sets_flag(body, &reset)
                    && catches
                        .iter()
                        .any(|(_, c)| sets_flag(c, &reset) && !ends_abruptly(c)) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// Does each pass of the loop take another element: its counter indexes a list or an array
/// (`urls.get(i)`, `pool[i]`), or its condition walks an iterator (`it.hasNext()`)?
fn is_failover(cond: Option<&Expr>, update: &[Expr], body: &Block) -> bool {
    // Every expression of the loop's own passes: not those of a nested loop, nor the code of a
    // lambda, an anonymous class, an object creation or a switch expression.
    let mut stack: Vec<Node> = (cond.into_iter().chain(update).map(Node::Expr))
        .chain(body.iter().map(Node::Stmt))
        .collect();
    let mut all: Vec<&Expr> = Vec::new();
    while let Some(n) = stack.pop() {
        match n {
            Node::Stmt(Stmt::Loop { .. }) => {}
            Node::Stmt(_) => n.children(&mut stack),
            Node::Expr(e) => {
                all.push(e);
                if !matches!(
                    e,
                    Expr::New(_) | Expr::Lambda(_) | Expr::MethodRef(_) | Expr::Switch(..)
                ) {
                    n.children(&mut stack);
                }
            }
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

/// Does the block leave the loop (a `break` or `return` not inside a nested loop)? A leave under
/// a test of the thread's interruption (`if (Thread.interrupted()) return;`) stops a polling
/// loop; it does not end a retry on success.
fn exits(b: &Block) -> bool {
    let mut stack: Vec<&Stmt> = b.iter().collect();
    while let Some(s) = stack.pop() {
        match s {
            Stmt::Break | Stmt::Return(..) => return true,
            Stmt::If { cond, then, els } => {
                if !tests_interruption(cond) {
                    stack.extend(then.iter());
                }
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

/// Does the condition ask whether the thread was interrupted (`Thread.interrupted()`,
/// `Thread.currentThread().isInterrupted()`)?
fn tests_interruption(cond: &Expr) -> bool {
    let mut stack = vec![Node::Expr(cond)];
    while let Some(n) = stack.pop() {
        if let Node::Expr(Expr::Call(c)) = n
            && (c.name == "interrupted" || c.name == "isInterrupted")
        {
            return true;
        }
        n.children(&mut stack);
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
    let Some(body) = m.peek_body() else {
        return false;
    };
    if super::recursion::may_retry_itself(m, &body, cat) {
        return true;
    }
    let mut stack: Vec<Node> = body.iter().map(Node::Stmt).collect();
    while let Some(n) = stack.pop() {
        match n {
            Node::Stmt(Stmt::Loop { each: None, .. }) => return true,
            Node::Expr(Expr::Call(c)) if cat.may_make_region(&c.name) => return true,
            _ => n.children(&mut stack),
        }
    }
    false
}
