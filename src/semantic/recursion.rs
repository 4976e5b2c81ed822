//! Recursive retries (SPEC §3.2): a method that calls itself again from its failure path — a
//! `catch` block, or a function handed to an operator that runs only on failure
//! (`exceptionallyCompose(e -> attempt(n + 1))`) — runs its body again for the same operation.
//! Which operators run on failure is catalogue data; this module only reads the code.

use crate::java::ir::{Block, Expr, Method, Node, Span, Stmt};

/// How a method retries itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recursion {
    /// The first call of the method on itself from its failure path.
    pub call: Span,
    /// The parameters the recursive calls change by a step (`attempt(n + 1)`, `retry(left - 1)`):
    /// attempt counters.
    pub counters: Vec<usize>,
}

/// Does `m` call itself again from a failure path? `on_failure` says whether an operator's
/// function arguments run only when the work before it failed.
pub fn retries_itself(m: &Method, on_failure: &dyn Fn(&str) -> bool) -> Option<Recursion> {
    if m.is_ctor {
        return None;
    }
    failure_path(m, m.body()?, on_failure).0
}

/// Does `body` call a method named `name` with `arity` arguments on `this`, anywhere (lambdas
/// included)?
pub fn calls_on_this(body: &Block, name: &str, arity: usize) -> bool {
    Node::all(body).any(|n| {
        matches!(n, Node::Expr(Expr::Call(c))
            if c.name == name
                && c.args.len() == arity
                && matches!(c.recv.as_ref().map(Expr::peel), None | Some(Expr::This(_))))
    })
}

/// The recursion of `m` from its failure path, and the calls on `this` of other methods (name,
/// argument count, span) that its failure path makes handing one of its parameters on: a retry
/// may go round through one of them (`attempt` → `maybeRetry` → `scheduler.schedule(() ->
/// attempt(task, …))`).
pub fn failure_path(
    m: &Method,
    body: &Block,
    on_failure: &dyn Fn(&str) -> bool,
) -> (Option<Recursion>, Vec<(String, usize, Span)>) {
    let mut others: Vec<(String, usize, Span)> = Vec::new();
    if m.is_ctor {
        return (None, others);
    }
    // Each node with whether it runs on the failure path: in a `catch`, or in a function
    // argument of an operator that runs only on failure.
    let mut stack: Vec<(Node, bool)> = body.iter().map(|s| (Node::Stmt(s), false)).collect();
    let mut kids: Vec<Node> = Vec::new();
    let mut call: Option<Span> = None;
    let mut counters: Vec<usize> = Vec::new();
    while let Some((n, f)) = stack.pop() {
        match n {
            Node::Stmt(Stmt::Try {
                resources,
                body,
                catches,
                finally,
            }) => {
                let plain = resources.iter().chain(body).chain(finally.iter().flatten());
                stack.extend(plain.map(|s| (Node::Stmt(s), f)));
                let failing = catches.iter().flat_map(|(_, c)| c);
                stack.extend(failing.map(|s| (Node::Stmt(s), true)));
            }
            // `throw wrap(e)`: the call makes the exception to raise (an overload converting
            // it, `unchecked(Exception)`), it does not run the work again.
            Node::Stmt(Stmt::Throw(x)) if matches!(x.peel(), Expr::Call(_)) => {
                if let Expr::Call(c) = x.peel() {
                    let parts = c.recv.iter().chain(&c.args);
                    stack.extend(parts.map(|x| (Node::Expr(x), f)));
                }
            }
            Node::Expr(Expr::Call(c)) => {
                let on_self = matches!(c.recv.as_ref().map(Expr::peel), None | Some(Expr::This(_)));
                // A retry that goes round through another method hands it the work: one of
                // the method's parameters (`maybeRetry(task, …)`); a call that hands nothing on
                // (`showError(e.getMessage())`, whose button may call the method again) is not
                // one.
                let hands_on = || {
                    c.args.iter().any(|a| {
                        matches!(a.peel(), Expr::Name(n, _) if m.params.iter().any(|p| p.name == *n))
                    })
                };
                if f && on_self
                    && (c.name != m.name || c.args.len() != m.params.len())
                    && hands_on()
                {
                    others.push((c.name.clone(), c.args.len(), c.span));
                }
                if f && on_self && c.name == m.name && c.args.len() == m.params.len() {
                    if call.is_none_or(|s| c.span.start < s.start) {
                        call = Some(c.span);
                    }
                    for (i, a) in c.args.iter().enumerate() {
                        if steps(a, &m.params[i].name) && !counters.contains(&i) {
                            counters.push(i);
                        }
                    }
                }
                stack.extend(c.recv.iter().map(|x| (Node::Expr(x), f)));
                let handler = on_failure(&c.name);
                stack.extend(c.args.iter().map(|x| (Node::Expr(x), f || handler)));
            }
            _ => {
                n.children(&mut kids);
                stack.extend(kids.drain(..).map(|k| (k, f)));
            }
        }
    }
    counters.sort_unstable();
    others.sort_by_key(|(_, _, s)| s.start);
    (call.map(|call| Recursion { call, counters }), others)
}

/// Is `arg` the parameter `param` moved by a step: `n + 1`, `1 + n`, `left - 1`, `++n`, `n--`?
fn steps(arg: &Expr, param: &str) -> bool {
    let is_param = |e: &Expr| matches!(e.peel(), Expr::Name(n, _) if n == param);
    match arg.peel() {
        Expr::Binary(b) if b.op == "+" => {
            is_param(&b.left) && matches!(b.right.peel(), Expr::Lit(..))
                || is_param(&b.right) && matches!(b.left.peel(), Expr::Lit(..))
        }
        Expr::Binary(b) if b.op == "-" => {
            is_param(&b.left) && matches!(b.right.peel(), Expr::Lit(..))
        }
        Expr::Assign(a) if a.op != "=" => is_param(&a.target),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(src: &str, name: &str) -> Method {
        let facts = crate::java::parse(src.as_bytes()).unwrap();
        facts.methods.into_iter().find(|m| m.name == name).unwrap()
    }

    #[test]
    fn a_call_on_itself_from_a_catch_is_a_retry_with_its_stepped_counter() {
        let m = method(
            "class A { String attempt(String id, int n) { try { return send(id, n); } catch (RuntimeException e) { if (n >= 3) throw e; return attempt(id, n + 1); } } }",
            "attempt",
        );
        let r = retries_itself(&m, &|_| false).unwrap();
        assert_eq!(r.counters, vec![1]);
    }

    #[test]
    fn a_failure_operator_is_a_failure_path_and_a_success_operator_is_not() {
        let src = "class A { CompletableFuture<String> attempt(int n) { return send().thenCompose(r -> attempt(n + 1)); } }";
        let m = method(src, "attempt");
        assert_eq!(retries_itself(&m, &|op| op == "exceptionallyCompose"), None);
        let src = "class A { CompletableFuture<String> attempt(int n) { return send().exceptionallyCompose(e -> attempt(n + 1)); } }";
        let m = method(src, "attempt");
        let r = retries_itself(&m, &|op| op == "exceptionallyCompose").unwrap();
        assert_eq!(r.counters, vec![0]);
    }

    #[test]
    fn a_thrown_call_on_itself_makes_an_exception_and_is_not_a_retry() {
        let m = method(
            "class A { static <T> Supplier<T> unchecked(CheckedSupplier<T> s) { return () -> { try { return s.get(); } catch (Exception e) { throw unchecked(e); } }; } }",
            "unchecked",
        );
        assert_eq!(retries_itself(&m, &|_| false), None);
    }

    #[test]
    fn a_retry_may_go_round_through_another_method() {
        let src = "class A { void attempt(Supplier<F> task, int n) { task.get().whenComplete((v, e) -> { if (e != null) next(task, n); }); } void next(Supplier<F> task, int n) { scheduler.schedule(() -> attempt(task, n + 1), 1, SECONDS); } }";
        let m = method(src, "attempt");
        let body = m.body().unwrap();
        let whenc = |op: &str| op == "whenComplete";
        assert_eq!(retries_itself(&m, &whenc), None);
        let calls = failure_path(&m, body, &whenc).1;
        assert_eq!(calls.len(), 1);
        assert_eq!((calls[0].0.as_str(), calls[0].1), ("next", 2));
        // Not from a success path.
        assert!(
            failure_path(&m, body, &|op| op == "exceptionally")
                .1
                .is_empty()
        );
        // A call from the failure path that hands none of the parameters on.
        let ui = "class V { void load(String id) { try { show(fetch(id)); } catch (Exception e) { showError(e.getMessage()); } } void showError(String m) { button.onClick(() -> load(\"x\")); } }";
        let load = method(ui, "load");
        assert!(
            failure_path(&load, load.body().unwrap(), &|_| false)
                .1
                .is_empty()
        );
        let next = method(src, "next");
        assert!(calls_on_this(next.body().unwrap(), "attempt", 2));
        assert!(!calls_on_this(next.body().unwrap(), "attempt", 3));
    }

    #[test]
    fn plain_recursion_is_not_a_retry() {
        let m = method(
            "class A { int depth(Node n) { return n == null ? 0 : 1 + depth(n.next); } }",
            "depth",
        );
        assert_eq!(retries_itself(&m, &|_| true), None);
    }
}
