//! Where a key is sent in a region that runs again only when an attempt fails (SPEC §3.3): a
//! retried method or a redelivered listener re-runs a sink with a new key only if a failure can
//! leave the region once the sink has started — the sink's own failure (the timeout of the
//! classic bug) included. When every call of the region's method that leads to the sink sits in
//! a `try` that catches every exception in clauses that cannot fail, and nothing that runs
//! after that `try` can fail (logging, metrics, getters and record accessors, clock reads, the
//! application's methods and constructors that do only such things, simple conditions,
//! `continue`/`return`; in a loop, the whole body, which runs again for the next item), an
//! attempt that reached the sink never fails, and the key goes out once. A call that
//! is the last thing that can fail in its method is followed into its callees, where the same
//! holds (the `try` may be a few calls down). A key written into a row (an outbox entity) in a
//! callee that runs in a transaction of its own, called through its proxy as that last thing,
//! is written once too: a failure in the callee rolls the row back, and once it commits nothing
//! can fail (SPEC 7.4).
//!
//! A region whose re-runs do not wait for a failure (a scheduler), a listener that acknowledges
//! its messages itself, a method whose own transaction commits after its body (a commit can
//! fail after the send), a region entered through a lazy pipeline, and a region whose own code
//! is not one whole method keep their findings. Code the region enters through one of its calls
//! (an interceptor of a client it sends through, a stored function it runs) runs inside that
//! call: a sink there is reached through the call, like one in a callee. An AWS Lambda handler
//! that reports an item's failure in a partial batch response fails that item only where the
//! platform reads the report (see `item_failures`).

use super::Region;
use super::failures::observes;
use super::item_failures;
use super::liveness::{acknowledges_itself, catches_all, logs, simple};
use crate::catalogue::Catalogue;
use crate::java::ir::{Block, Call, Expr, Node, Stmt};
use crate::java::ir::{ClassKind, Span};
use crate::semantic::{CallGraph, MethodId, Project, TypeRef};
use std::collections::HashMap;

/// The method of region `r` when the framework runs it again only after an attempt fails, and
/// nothing but the method's own statements runs between its last statement and the end of the
/// attempt: a live annotation or implementation region of a row that re-runs on failure (a
/// retried method, a redelivered listener), its own code one whole method (besides the code it
/// enters through its calls), neither a scheduler nor a listener that acknowledges its messages
/// itself, not in a transaction of its own (whose commit after the body can fail), returning
/// neither a future nor a publisher (which fails after the body) and sending no reply
/// (`@SendTo`).
pub fn redelivered_method(project: &Project, cat: &Catalogue, r: &Region) -> Option<MethodId> {
    if r.scheduler || r.dead.is_some() || !r.sends_at.is_empty() {
        return None;
    }
    // Code entered through a call of the region (an interceptor, a stored function) runs inside
    // that call: the region's own code is the rest.
    let id = &r.own_method()?;
    let on_failure = match cat.regions.annotation.iter().find(|x| x.id == r.row) {
        Some(row) => row.on_failure && !row.scheduler && !acknowledges_itself(project, row, *id),
        None => cat
            .regions
            .implementation
            .iter()
            .find(|x| x.id == r.row)
            .is_some_and(|row| row.on_failure && !row.scheduler),
    };
    let m = project.method(*id);
    // A returned future or publisher fails later, outside every `try` of the body, and so may
    // the commit of a transaction of its own; a reply sent from the returned value (`@SendTo`)
    // is sent after the body.
    let replies = m.annotations.iter().any(|a| simple(&a.name) == "SendTo");
    let later = super::liveness::returns_deferred(project, cat, *id)
        || super::in_transaction(project, cat, *id);
    (on_failure && !replies && !later).then_some(*id)
}

/// How many calls deep [`sent_once`] follows a call that is the last thing its method does.
const DEPTH: usize = 4;

/// How many calls deep a project method is read to tell that calling it cannot fail.
const PURE_DEPTH: usize = 3;

/// Does every attempt of method `root` (the code of a region that runs again only after a
/// failure) that reaches the sink at `at` in method `sink` fail no more once the sink has
/// started? Each call of `root` that leads there (`leads_to`: a method from which `sink` may be
/// called) sits in a `try` that catches every exception in clauses that cannot fail, and
/// whatever may run after that `try` cannot fail either — or the call is the last thing that
/// can fail in its method and the callee's own calls are such ([`DEPTH`] calls deep; a callee
/// in a transaction of its own, whose commit follows its body, is not followed).
pub fn sent_once(
    project: &Project,
    cat: &Catalogue,
    graph: &CallGraph,
    root: MethodId,
    sink: Sink,
    leads_to: &dyn Fn(MethodId) -> bool,
) -> bool {
    once_from(project, cat, graph, root, sink, leads_to, &[root])
}

/// The sink [`sent_once`] asks about: its method, its span there, and whether it writes the key
/// into a row (an entity field) rather than onto a request.
#[derive(Clone, Copy)]
pub struct Sink {
    pub method: MethodId,
    pub at: Span,
    pub row: bool,
}

fn once_from(
    project: &Project,
    cat: &Catalogue,
    graph: &CallGraph,
    id: MethodId,
    sink: Sink,
    leads_to: &dyn Fn(MethodId) -> bool,
    chain: &[MethodId],
) -> bool {
    let Sink {
        method: sink_m, at, ..
    } = sink;
    // The calls of `id` that lead to the sink, each with its leading targets.
    let mut leads: Vec<(Span, Vec<MethodId>)> = Vec::new();
    if id == sink_m {
        // The sink itself, or the call here through which a callee reaches it.
        let callees = crate::semantic::callgraph::call_sites(project, cat, id)
            .into_iter()
            .filter(|(_, span, _)| *span == at)
            .map(|(_, _, t)| t)
            .collect();
        leads.push((at, callees));
    } else {
        for (_, span, t) in crate::semantic::callgraph::call_sites(project, cat, id) {
            if !leads_to(t) && t != sink_m {
                continue;
            }
            match leads.iter_mut().find(|(s, _)| *s == span) {
                Some((_, ts)) => ts.push(t),
                None => leads.push((span, vec![t])),
            }
        }
    }
    if leads.is_empty() {
        return false;
    }
    let m = project.method(id);
    let Some(body) = m.peek_body() else {
        return false;
    };
    let body: &Block = &body;
    let spans: Vec<Span> = leads.iter().map(|(s, _)| *s).collect();
    // A call that is the last thing that can fail: every callee it leads into sends once.
    let through = |span: Span| -> bool {
        let Some((_, targets)) = leads.iter().find(|(s, _)| *s == span) else {
            return false;
        };
        !targets.is_empty()
            && chain.len() <= DEPTH
            && targets.iter().all(|t| {
                if chain.contains(t) {
                    return false;
                }
                // A call on `this` bypasses the proxy: the callee's transaction does not apply,
                // and its code is followed like any other.
                if super::in_transaction(project, cat, *t) && through_proxy(body, span) {
                    // A row written in the callee's own transaction is rolled back by a failure
                    // in it, and committed as the last thing the attempt can do.
                    // A checked exception leaves a Spring transaction committed: none is declared.
                    return sink.row
                        && project.method(*t).throws.is_empty()
                        && commits_whole(project, cat, graph, *t);
                }
                if id == sink_m {
                    return false;
                }
                let mut deeper = chain.to_vec();
                deeper.push(*t);
                once_from(project, cat, graph, *t, sink, leads_to, &deeper)
            })
    };
    let judge = Judge {
        project,
        cat,
        id,
        leads: &spans,
        through: &through,
        vars: declared(m, body),
        depth: 0,
    };
    judge.block_ok(body, true, false)
}

/// Is the call at `span` in `body` made through a bean's proxy: on a receiver other than `this`
/// or `super`, so that the callee's transaction annotation applies?
fn through_proxy(body: &Block, span: Span) -> bool {
    Node::all(body).any(|n| {
        matches!(n, Node::Expr(Expr::Call(c)) if c.span == span
            && !c.on_super
            && c.recv.as_ref().is_some_and(|r| !matches!(r, Expr::This(_))))
    })
}

/// Does everything method `t` runs stay in `t`'s transaction: no method it may call (on the
/// regions' call graph) commits apart (`REQUIRES_NEW`)?
fn commits_whole(project: &Project, cat: &Catalogue, graph: &CallGraph, t: MethodId) -> bool {
    let mut seen = std::collections::BTreeSet::from([t]);
    let mut work = vec![t];
    while let Some(x) = work.pop() {
        if x != t && super::commits_apart(project, cat, x) {
            return false;
        }
        for (_, y) in graph.edges(x) {
            if seen.insert(*y) {
                work.push(*y);
            }
        }
    }
    true
}

/// The declared type of each parameter and local of a method (a name declared twice with two
/// types is left out: its type at a use is not known).
fn declared(m: &crate::java::ir::Method, body: &Block) -> HashMap<String, Option<String>> {
    let mut vars: HashMap<String, Option<String>> = HashMap::new();
    let mut put = |name: &str, ty: &str| {
        vars.entry(name.to_string())
            .and_modify(|t| {
                if t.as_deref() != Some(ty) {
                    *t = None;
                }
            })
            .or_insert_with(|| Some(ty.to_string()));
    };
    for p in &m.params {
        put(&p.name, &p.ty);
    }
    for n in Node::all(body) {
        match n {
            Node::Stmt(Stmt::Local { ty, name, .. }) => put(name, ty),
            Node::Stmt(Stmt::Loop {
                each: Some((ty, name, _)),
                ..
            }) => put(name, ty),
            _ => {}
        }
    }
    vars
}

/// Calls that answer from what their receiver holds on any type (`equals`, `isEmpty`, a caught
/// exception's `getMessage`).
const PURE: &[&str] = &[
    "equals",
    "equalsIgnoreCase",
    "isEmpty",
    "isBlank",
    "size",
    "length",
    "isPresent",
    "getMessage",
    "getLocalizedMessage",
    "name",
    "ordinal",
    "hashCode",
    "getClass",
    "getSimpleName",
];

/// Is `c` an empty collection's factory: `List.of()`, `Collections.emptyList()`, …?
fn empty_collection(c: &Call) -> bool {
    let owner = match c.recv.as_ref() {
        Some(Expr::Name(n, _)) => n.as_str(),
        _ => return false,
    };
    c.args.is_empty()
        && match owner {
            "List" | "Set" | "Map" => c.name == "of",
            "Collections" => matches!(c.name.as_str(), "emptyList" | "emptySet" | "emptyMap"),
            _ => false,
        }
}

struct Judge<'a> {
    project: &'a Project,
    cat: &'a Catalogue,
    id: MethodId,
    leads: &'a [Span],
    /// Does the call at this span (a call that leads to the sink) send once in every callee?
    through: &'a dyn Fn(Span) -> bool,
    vars: HashMap<String, Option<String>>,
    /// How many project methods deep this judge reads (0: the region's own call chain).
    depth: usize,
}

impl Judge<'_> {
    /// Does `s` hold one of the calls that lead to the sink?
    fn leads_in(&self, s: &Stmt) -> bool {
        self.holds_lead(Node::Stmt(s))
    }

    fn expr_leads(&self, e: &Expr) -> bool {
        self.holds_lead(Node::Expr(e))
    }

    fn holds_lead(&self, n: Node<'_>) -> bool {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            if let Node::Expr(e) = n {
                let sp = e.span();
                if self
                    .leads
                    .iter()
                    .any(|l| sp.start <= l.start && l.end <= sp.end)
                {
                    return true;
                }
            }
            n.children(&mut stack);
        }
        false
    }

    /// Is every call of `block` that leads to the sink protected? `tail`: nothing that may run
    /// after `block` (in the method) can fail. `nested`: `block` is inside a `try` body.
    fn block_ok(&self, block: &Block, tail: bool, nested: bool) -> bool {
        for (k, s) in block.iter().enumerate() {
            if !self.leads_in(s) {
                continue;
            }
            let after = tail && block[k + 1..].iter().all(|x| self.never_fails(x, nested));
            if !self.stmt_ok(s, after, nested) {
                return false;
            }
        }
        true
    }

    fn stmt_ok(&self, s: &Stmt, after: bool, nested: bool) -> bool {
        match s {
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                let fin = finally
                    .as_ref()
                    .is_none_or(|f| self.all_never_fail(f, nested));
                if let Some(f) = finally
                    && !self.block_ok(f, after, nested)
                {
                    return false;
                }
                if !catches
                    .iter()
                    .all(|(_, c)| self.block_ok(c, after && fin, nested))
                {
                    return false;
                }
                if !resources.iter().chain(body).any(|x| self.leads_in(x)) {
                    return true;
                }
                if after && fin && self.swallows(catches, nested) {
                    return true;
                }
                !resources.iter().any(|x| self.leads_in(x))
                    && self.block_ok(body, after && fin, true)
            }
            Stmt::If { cond, then, els } => {
                !self.expr_leads(cond)
                    && self.block_ok(then, after, nested)
                    && els.as_ref().is_none_or(|e| self.block_ok(e, after, nested))
            }
            Stmt::Block(b) => self.block_ok(b, after, nested),
            Stmt::Loop {
                head,
                cond,
                update,
                body,
                each,
                ..
            } => {
                if head.iter().any(|x| self.leads_in(x))
                    || cond.as_ref().is_some_and(|c| self.expr_leads(c))
                    || update.iter().any(|u| self.expr_leads(u))
                    || each.as_ref().is_some_and(|(_, _, e)| self.expr_leads(e))
                {
                    return false;
                }
                // The body runs again for the next item, after the sink of this one.
                let again = cond.as_ref().is_none_or(|c| self.cannot_fail(c))
                    && update.iter().all(|u| self.cannot_fail(u))
                    && self.all_never_fail(body, nested);
                self.block_ok(body, after && again, nested)
            }
            // The call itself, as the last thing that can fail: its receiver and arguments
            // (evaluated before it) hold no call that leads to the sink.
            Stmt::Expr(Expr::Call(c))
            | Stmt::Return(Some(Expr::Call(c)), _)
            | Stmt::Local {
                init: Some(Expr::Call(c)),
                ..
            } if after && self.leads.contains(&c.span) => {
                !c.recv.iter().chain(&c.args).any(|e| self.expr_leads(e)) && (self.through)(c.span)
            }
            _ => false,
        }
    }

    /// Do the catch clauses take every exception and none of them fail? A `RuntimeException`
    /// clause takes every one only where no checked exception can be thrown: the method
    /// declares none and no enclosing `try` may catch one.
    fn swallows(&self, catches: &[(String, Block)], nested: bool) -> bool {
        let all = catches.iter().any(|(_, b)| match b.first() {
            Some(Stmt::Local { ty, init: None, .. }) if catches_all(ty) => {
                simple(ty.trim()) != "RuntimeException"
                    || (!nested && self.project.method(self.id).throws.is_empty())
            }
            _ => false,
        });
        all && catches.iter().all(|(_, b)| self.all_never_fail(b, nested))
    }

    fn all_never_fail(&self, b: &Block, nested: bool) -> bool {
        b.iter().all(|s| self.never_fails(s, nested))
    }

    /// Can statement `s` not fail: a declaration of a value that cannot fail, a logging call, a
    /// metrics call, a simple condition around such statements, a loop over them, a `try` that
    /// swallows every failure, `continue`, `break`, a `return` of a value that cannot fail?
    fn never_fails(&self, s: &Stmt, nested: bool) -> bool {
        match s {
            // An item failure put in the list a partial batch response returns: the item runs
            // again where the platform reads the report (a failure), and nothing at all where it
            // does not.
            Stmt::Expr(Expr::Call(c))
                if c.name == "add"
                    && c.recv.as_ref().is_some_and(|r| self.local(r))
                    && c.args.len() == 1 =>
            {
                self.cannot_fail(&c.args[0])
                    && item_failures::makes(self.project, self.cat, self.id, &c.args[0])
                        == Some(false)
            }
            // The same through a stream of the local list of items
            // (`msgs.stream().map(SQSMessage::getMessageId).map(BatchItemFailure::new)
            // .forEach(failures::add)`).
            Stmt::Expr(Expr::Call(c)) if c.name == "forEach" => self.streams_ignored_failures(c),
            Stmt::Local { init, .. } => init.as_ref().is_none_or(|e| self.cannot_fail(e)),
            Stmt::Expr(Expr::Call(c)) if logs(c) => c.args.iter().all(|a| self.cannot_fail(a)),
            // A local, or a field of this object (`this.amount = amount` in a constructor).
            Stmt::Expr(Expr::Assign(a)) => {
                (matches!(a.target, Expr::Name(..))
                    || matches!(&a.target, Expr::Field(r, _, _) if matches!(**r, Expr::This(_))))
                    && self.cannot_fail(&a.value)
            }
            Stmt::Expr(e) => observes(self.project, self.cat, self.id, s) || self.cannot_fail(e),
            Stmt::If { cond, then, els } => {
                self.cannot_fail(cond)
                    && self.all_never_fail(then, nested)
                    && els.as_ref().is_none_or(|e| self.all_never_fail(e, nested))
            }
            Stmt::Loop {
                head,
                cond,
                update,
                body,
                each,
                ..
            } => {
                self.all_never_fail(head, nested)
                    && cond.as_ref().is_none_or(|c| self.cannot_fail(c))
                    && update.iter().all(|u| self.cannot_fail(u))
                    && each.as_ref().is_none_or(|(_, _, e)| self.cannot_fail(e))
                    && self.all_never_fail(body, nested)
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                resources.is_empty()
                    && (self.swallows(catches, nested)
                        || self.all_never_fail(body, true)
                            && catches.iter().all(|(_, b)| self.all_never_fail(b, nested)))
                    && finally
                        .as_ref()
                        .is_none_or(|f| self.all_never_fail(f, nested))
            }
            Stmt::Return(e, _) => e.as_ref().is_none_or(|e| self.cannot_fail(e)),
            Stmt::Block(b) => self.all_never_fail(b, nested),
            Stmt::Break | Stmt::Continue | Stmt::Jump => true,
            Stmt::Throw(_) => false,
        }
    }

    /// Can evaluating `e` not fail: names, literals, field reads, comparisons and
    /// concatenations, lambdas (made, not run), and getters or record accessors?
    fn cannot_fail(&self, e: &Expr) -> bool {
        match e {
            Expr::Name(..)
            | Expr::This(_)
            | Expr::Str(..)
            | Expr::Lit(..)
            | Expr::Null(_)
            | Expr::Opaque(_)
            | Expr::Lambda(_)
            | Expr::MethodRef(_) => true,
            Expr::Field(r, _, _) | Expr::Not(r, _) => self.cannot_fail(r),
            Expr::Op(v, _) if v.len() == 1 => self.cannot_fail(&v[0]),
            Expr::Binary(b) => {
                !matches!(b.op.as_str(), "/" | "%")
                    && self.cannot_fail(&b.left)
                    && self.cannot_fail(&b.right)
            }
            Expr::Ternary(a, b, c, _) => {
                self.cannot_fail(a) && self.cannot_fail(b) && self.cannot_fail(c)
            }
            Expr::Call(c) => {
                self.accessor(c)
                    || empty_collection(c)
                    || self.report(e)
                    || self.clock_read(c)
                    || self.pure_call(c)
            }
            Expr::New(x) => {
                x.anon.is_empty()
                    && x.args.iter().all(|a| self.cannot_fail(a))
                    && (self.report(e) || self.pure_new(x))
            }
            _ => false,
        }
    }

    /// Is `c` a read of the JDK's clock, which cannot fail: `now()` with no argument on a
    /// `java.time` type (`Instant.now()`), `System.currentTimeMillis()`, `System.nanoTime()` —
    /// or the time between two such readings, `Duration.between(start, end)`?
    fn clock_read(&self, c: &Call) -> bool {
        let Some(ty) = c.recv.as_ref().and_then(|r| r.dotted()) else {
            return false;
        };
        let class = self.project.class_of(self.id);
        let t = self
            .project
            .resolve_type(self.id.0, Some(class.1 as usize), &ty);
        let crate::semantic::TypeRef::External(name) = &t else {
            return false;
        };
        if c.name == "between" && name == "java.time.Duration" {
            return c.args.len() == 2 && c.args.iter().all(|a| self.cannot_fail(a));
        }
        c.args.is_empty()
            && ((c.name == "now" && name.starts_with("java.time."))
                || (name == "java.lang.System"
                    && matches!(c.name.as_str(), "currentTimeMillis" | "nanoTime")))
    }

    /// Is `c` a call of project methods that cannot fail: its receiver (a class named for a
    /// static call, a local, a parameter or a field; none or `this` for the class's own
    /// methods) and arguments cannot fail, and every method it may run has a body whose every
    /// statement cannot fail ([`PURE_DEPTH`] calls deep). A library call is not one: its body
    /// is not read.
    fn pure_call(&self, c: &Call) -> bool {
        if self.depth >= PURE_DEPTH || c.on_super || !c.args.iter().all(|a| self.cannot_fail(a)) {
            return false;
        }
        let recv = match c.recv.as_ref() {
            None | Some(Expr::This(_)) => None,
            Some(r) if self.cannot_fail(r) => match self.receiver_class(r) {
                Some(t) => Some(Some(t)),
                None => return false,
            },
            Some(_) => return false,
        };
        let class = self.project.class_of(self.id);
        let targets = self.project.resolve_call(class, c, recv);
        self.all_pure(&targets)
    }

    /// Is `x` a `new` of a project class whose constructors taking its arguments cannot fail
    /// (a record's canonical constructor, when none is written, only assigns)?
    fn pure_new(&self, x: &crate::java::ir::New) -> bool {
        if self.depth >= PURE_DEPTH {
            return false;
        }
        let class = self.project.class_of(self.id);
        let t = self
            .project
            .resolve_type(self.id.0, Some(class.1 as usize), &x.ty);
        let TypeRef::Project(k) = t else {
            return false;
        };
        self.all_pure(&self.project.constructors(k, x.args.len()))
    }

    /// Do `targets` (none is not enough) each have a body whose every statement cannot fail?
    fn all_pure(&self, targets: &[MethodId]) -> bool {
        !targets.is_empty()
            && targets.iter().all(|t| {
                let m = self.project.method(*t);
                let Some(body) = m.peek_body() else {
                    // A record's canonical constructor, when none is written, only assigns.
                    return m.is_ctor
                        && self.project.class(self.project.class_of(*t)).kind == ClassKind::Record;
                };
                let judge = Judge {
                    project: self.project,
                    cat: self.cat,
                    id: *t,
                    leads: &[],
                    through: &|_| false,
                    vars: declared(m, &body),
                    depth: self.depth + 1,
                };
                judge.all_never_fail(&body, false)
            })
    }

    /// Is `e` a partial batch response or an item failure (see [`item_failures`]) made by a
    /// constructor call, or by a builder chain started by the type's `builder()`, whose
    /// arguments cannot fail? Making one cannot fail; reporting an item is what may (see
    /// [`Judge::never_fails`]).
    fn report(&self, e: &Expr) -> bool {
        let mut at = e;
        while let Expr::Call(c) = at {
            if !c.args.iter().all(|a| self.cannot_fail(a)) {
                return false;
            }
            match &c.recv {
                Some(r @ Expr::Call(_)) => at = r,
                _ => break,
            }
        }
        item_failures::makes(self.project, self.cat, self.id, e).is_some()
    }

    /// Is `e` a local variable or parameter of the method?
    /// Is `c` a `forEach(failures::add)` on a stream of a local collection whose links only map
    /// method references, one of them making item failures the platform ignores?
    fn streams_ignored_failures(&self, c: &Call) -> bool {
        let [Expr::MethodRef(add)] = c.args.as_slice() else {
            return false;
        };
        if add.name != "add" || !self.local(&add.recv) {
            return false;
        }
        let mut ignored = false;
        let mut at = c.recv.as_ref();
        while let Some(e) = at {
            match e.peel() {
                Expr::Call(x) if x.name == "map" || x.name == "filter" => {
                    let [arg] = x.args.as_slice() else {
                        return false;
                    };
                    if !matches!(arg, Expr::MethodRef(_)) {
                        return false;
                    }
                    match item_failures::makes(self.project, self.cat, self.id, arg) {
                        Some(false) => ignored = true,
                        Some(true) => return false,
                        None => {}
                    }
                    at = x.recv.as_ref();
                }
                Expr::Call(x) if x.name == "stream" && x.args.is_empty() => {
                    return ignored && x.recv.as_ref().is_some_and(|r| self.local(r));
                }
                _ => return false,
            }
        }
        false
    }

    fn local(&self, e: &Expr) -> bool {
        matches!(e, Expr::Name(n, _) if self.vars.contains_key(n))
    }

    /// Is `c` a call that only reads what its receiver holds: one of [`PURE`], a getter of a
    /// project class (its body returns a field; a record's accessor; a Lombok getter of a field),
    /// or, on a receiver of a library type, a `getX()`/`isX()`/`hasX()` with no arguments?
    fn accessor(&self, c: &Call) -> bool {
        let Some(recv) = c.recv.as_ref() else {
            return false;
        };
        if matches!(recv, Expr::This(_)) || c.on_super || !self.cannot_fail(recv) {
            return false;
        }
        if !c.args.iter().all(|a| self.cannot_fail(a)) {
            return false;
        }
        if PURE.contains(&c.name.as_str()) {
            return true;
        }
        if !c.args.is_empty() {
            return false;
        }
        match self.receiver_class(recv) {
            Some(TypeRef::Project(k)) => self.project_getter(k, &c.name),
            _ => bean_name(&c.name).is_some(),
        }
    }

    /// The type of a receiver written as a local, a parameter or a field of the class, or the
    /// class a static call names (`Registry.getClient()`).
    fn receiver_class(&self, recv: &Expr) -> Option<TypeRef> {
        let Expr::Name(n, _) = recv else {
            return None;
        };
        let class = self.project.class_of(self.id);
        let ty = match self.vars.get(n) {
            Some(t) => t.clone()?,
            None => self
                .project
                .field(class, n)
                .map_or_else(|| n.clone(), |(_, f)| f.ty.to_string()),
        };
        Some(
            self.project
                .resolve_type(self.id.0, Some(class.1 as usize), &ty),
        )
    }

    /// Is `name` a getter of project class `k`: every declaration in its hierarchy returns a
    /// field, or none is written and it is a record's accessor or a getter Lombok writes for a
    /// field?
    fn project_getter(&self, k: crate::semantic::ClassRef, name: &str) -> bool {
        let declared = self.project.methods_in_hierarchy(k, name, 0);
        if declared.is_empty() {
            let class = self.project.class(k);
            if class.kind == ClassKind::Record {
                return self.project.field(k, name).is_some();
            }
            return bean_name(name).is_some_and(|f| self.project.field(k, &f).is_some());
        }
        declared.iter().all(|m| {
            self.project.method(*m).peek_body().is_some_and(|b| {
                matches!(b.as_slice(), [Stmt::Return(Some(e), _)]
                    if matches!(e, Expr::Name(..))
                        || matches!(e, Expr::Field(r, _, _) if matches!(**r, Expr::This(_))))
            })
        })
    }
}

/// The property a getter name reads: `getTenantId` → `tenantId`, `isActive` → `active`.
fn bean_name(name: &str) -> Option<String> {
    let rest = ["get", "is", "has"]
        .iter()
        .find_map(|p| name.strip_prefix(p))?;
    let mut cs = rest.chars();
    let first = cs.next()?;
    first
        .is_ascii_uppercase()
        .then(|| first.to_ascii_lowercase().to_string() + cs.as_str())
}

#[cfg(test)]
mod tests {
    use super::bean_name;

    #[test]
    fn a_getter_name_reads_its_property() {
        assert_eq!(bean_name("getTenantId").as_deref(), Some("tenantId"));
        assert_eq!(bean_name("isActive").as_deref(), Some("active"));
        // `get()` on a future blocks and may fail; `getaway` is no getter.
        assert_eq!(bean_name("get"), None);
        assert_eq!(bean_name("getaway"), None);
        assert_eq!(bean_name("acknowledge"), None);
    }
}
