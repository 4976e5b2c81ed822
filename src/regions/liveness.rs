//! Whether an annotation region can fire at all (SPEC §3.3). A region that cannot is dead: it
//! is the source of no RL001–RL004 finding, and a dead retry annotation is reported as RL006.
//!
//! Every decision reads the row's data (`enabled_by`, `proxied`, `on_failure`, the aspect
//! order and the `[[regions.aspect]]` rows); no framework is named here.

use super::delegation::{delegates_to_never_failing, this_targets};
use super::enablers::Enablers;
use super::failures::{Rethrows, observes};
use super::retried_exceptions::{RetriedExceptions, Verdict, retried_exceptions, verdict};
use crate::catalogue::{AnnotationRegion, Catalogue, ExceptionSettings};
use crate::java::ir::{Annotation, Block, Call, Expr, Method, Node, Stmt};
use crate::semantic::{ClassRef, MethodId, Project};

/// Why an annotation region can never run its body again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dead {
    /// Its framework is switched on in other applications of the scan, not in this one.
    NotEnabled {
        /// The enabling annotation, as a simple name (`EnableRetry`).
        enabler: String,
    },
    /// A proxy never intercepts a private or static method.
    NotProxied {
        /// `private` or `static`.
        modifier: &'static str,
    },
    /// A non-public method called only on `this` from inside its class: no call goes through
    /// the proxy.
    SelfInvoked {
        /// How many calls on `this` there are.
        calls: usize,
    },
    /// The annotation or the application sets the number of attempts to one (or of retries to
    /// zero).
    SingleAttempt {
        /// The setting, as written in the catalogue row, or the annotation's attribute.
        setting: String,
        /// The value it is set to.
        value: String,
        /// Set by the annotation's attribute, not by the application's settings.
        in_annotation: bool,
    },
    /// The body never fails: it ends in a `try` that catches every exception and does not
    /// rethrow (after only local declarations and logging calls), or its only statement calls a
    /// method on `this` whose body never fails.
    CatchesAll {
        /// The caught type as written (`Exception`).
        caught: String,
        /// The methods on `this` the body delegates to, outermost first (empty: the body itself).
        via: Vec<String>,
        /// The `try` follows local declarations or logging calls.
        preamble: bool,
    },
    /// An aspect inside the retry whose fallback turns every failure into a normal return, or
    /// into an exception the retry does not retry.
    Fallback {
        /// The aspect annotation as written (`CircuitBreaker`).
        aspect: String,
        /// The fallback method's name and the exception type its last parameter takes.
        fallback: String,
        caught: String,
        /// The fallback method and the methods on `this` it calls whose bodies were read (they
        /// never throw, or throw only `thrown`), the fallback first.
        method: MethodId,
        delegates: Vec<MethodId>,
        /// The exceptions the fallback (or a method on `this` it calls) throws, as written, none
        /// of which the retry retries by the application's settings: none is listed (`ignored`
        /// false), or one is ignored.
        thrown: Vec<String>,
        /// The retry's exceptions in the first application that runs it.
        retried: Option<RetriedExceptions>,
        ignored: bool,
    },
    /// An aspect that fails every call of a method with this (synchronous) return type.
    Synchronous { aspect: String, ret: String },
}

impl Dead {
    /// Is the reason read from method bodies (a body that catches everything, the calls on
    /// `this`), not only from the annotation, the declaration and the application's setup?
    pub fn reads_bodies(&self) -> bool {
        matches!(self, Dead::CatchesAll { .. } | Dead::SelfInvoked { .. })
    }

    /// Why the retry cannot fire, as a clause of a sentence.
    pub fn reason(&self) -> String {
        match self {
            Dead::NotEnabled { enabler } => format!(
                "no application that runs it enables it: its build module, the modules it depends on and the modules that use it have no configuration class with `@{enabler}` (other applications in the scan do), so the annotation is never applied"
            ),
            Dead::NotProxied { modifier } => format!(
                "the method is {modifier}, and the proxy that applies the annotation never intercepts a {modifier} method"
            ),
            Dead::SelfInvoked { calls } => format!(
                "the method is not public and its only {} on `this` from inside the class, which never {} through the proxy that applies the annotation",
                if *calls == 1 {
                    "caller calls it"
                } else {
                    "callers call it"
                },
                if *calls == 1 { "goes" } else { "go" }
            ),
            Dead::SingleAttempt {
                setting,
                value,
                in_annotation: true,
            } => format!(
                "the annotation sets `{setting} = {value}`, a single attempt, so a failure is never retried"
            ),
            Dead::SingleAttempt { setting, value, .. } => format!(
                "the application sets `{setting}` to {value}, a single attempt, so a failure is never retried"
            ),
            Dead::CatchesAll {
                caught,
                via,
                preamble,
            } => {
                let body = if *preamble {
                    format!(
                        "only local declarations and logging calls come before a `try` that catches `{caught}` and does not rethrow, so no attempt fails once its work has started"
                    )
                } else {
                    format!(
                        "is a `try` that catches `{caught}` and does not rethrow, so no attempt ever fails"
                    )
                };
                if via.is_empty() {
                    if *preamble {
                        format!("in its body {body}")
                    } else {
                        format!("its whole body {body}")
                    }
                } else {
                    let chain = via
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", which calls ");
                    if *preamble {
                        format!(
                            "after at most local declarations and logging calls, its body calls {chain} on `this`, which ends in a `try` that catches `{caught}` and does not rethrow, so no attempt fails once its work has started"
                        )
                    } else {
                        format!("its only statement calls {chain}, whose whole body {body}")
                    }
                }
            }
            Dead::Fallback {
                aspect,
                fallback,
                caught,
                thrown,
                retried,
                ignored,
                ..
            } => match retried {
                Some(r) if !thrown.is_empty() => {
                    let thrown = thrown
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(" or ");
                    let why = match (&r.retry_setting, &r.ignore_setting) {
                        (Some(listing), _) if !ignored => format!(
                            "which is not among the exceptions that `{listing}` lists ({})",
                            r.listed()
                        ),
                        (_, Some(ignoring)) => {
                            format!("which `{ignoring}` lists as never retried")
                        }
                        _ => "which the retry does not retry".to_string(),
                    };
                    format!(
                        "`@{aspect}` runs inside the retry and its fallback `{fallback}(…, {caught})` either returns normally or throws {thrown}, {why}, so the retry `{}` never sees a failure it retries",
                        r.instance
                    )
                }
                _ => format!(
                    "`@{aspect}` runs inside the retry and its fallback `{fallback}(…, {caught})` turns every failure into a normal return before the retry sees it"
                ),
            },
            Dead::Synchronous { aspect, ret } => format!(
                "`@{aspect}` fails every call of a method returning `{ret}` (neither a CompletionStage nor a reactive type) before the body runs"
            ),
        }
    }
}

/// Exception types whose catch or fallback takes every failure a method can raise.
const CATCH_ALL: &[&str] = &["Exception", "RuntimeException", "Throwable"];

pub(super) fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

pub(super) fn catches_all(ty: &str) -> bool {
    let t = ty.trim();
    CATCH_ALL.contains(&simple(t)) && (!t.contains('.') || t.starts_with("java.lang."))
}

/// Can the annotation region of row `r` on method `id` fire? `None` when it can. `callers_known`:
/// every file that names the method was parsed, so its callers in the scan are all known.
pub fn dead_reason(
    project: &Project,
    cat: &Catalogue,
    enablers: &Enablers,
    r: &AnnotationRegion,
    id: MethodId,
    callers_known: bool,
    never_fails_of: NeverFailsOf,
) -> Option<Dead> {
    let m = project.method(id);
    if let Err(enabler) = enablers.enabled(project, r, id.0) {
        return Some(Dead::NotEnabled { enabler });
    }
    if r.proxied {
        if m.modifiers.is_private {
            return Some(Dead::NotProxied {
                modifier: "private",
            });
        }
        if m.modifiers.is_static {
            return Some(Dead::NotProxied { modifier: "static" });
        }
        if callers_known
            && !m.modifiers.is_public
            && let Some(calls) = only_self_invoked(project, enablers, id)
        {
            return Some(Dead::SelfInvoked { calls });
        }
    }
    if let Some(dead) = super::attempts::single_attempt(project, r, id) {
        return Some(dead);
    }
    if r.on_failure
        && !acknowledges_itself(project, r, id)
        && !returns_deferred(project, cat, id)
        && let Some(NeverFails {
            caught,
            via,
            preamble,
        }) = never_fails_through(project, cat, id, never_fails_of)
    {
        return Some(Dead::CatchesAll {
            caught,
            via,
            preamble,
        });
    }
    aspect_reason(project, cat, r, id)
}

/// Does method `id` return a value whose failure comes when it completes, after every `try` of
/// its body (a future, a publisher: one of the catalogue's `deferred` types)? A retry that
/// watches the value (Resilience4j) or a listener container still sees that failure.
pub fn returns_deferred(project: &Project, cat: &Catalogue, id: MethodId) -> bool {
    let types = cat.regions.deferred.iter().flat_map(|d| &d.types);
    returns_one_of(project, id, types)
}

/// Does method `id` return one of `types` (resolved through its file's imports)?
fn returns_one_of<'t>(
    project: &Project,
    id: MethodId,
    mut types: impl Iterator<Item = &'t String>,
) -> bool {
    let class = project.class_of(id);
    let t = project.resolve_type(id.0, Some(class.1 as usize), &project.method(id).ret);
    types.any(|x| project.type_is(&t, x))
}

/// Does one of the row's annotations on method `id` make the listener acknowledge its messages
/// itself (a `manual_ack` attribute set to one of its values)? Then a message left
/// unacknowledged is delivered again, whether or not the body fails.
pub(super) fn acknowledges_itself(project: &Project, r: &AnnotationRegion, id: MethodId) -> bool {
    if r.manual_ack.is_empty() {
        return false;
    }
    let class = project.class_of(id);
    project.method(id).annotations.iter().any(|a| {
        let t = project.resolve_type(id.0, Some(class.1 as usize), &a.name);
        r.annotations.iter().any(|x| project.type_is(&t, x))
            && r.manual_ack.iter().any(|m| {
                a.args.iter().any(|(k, v)| {
                    k.as_deref() == Some(m.attribute.as_str())
                        && attribute_value(v).is_some_and(|s| m.values.contains(&s))
                })
            })
    })
}

/// An annotation attribute's value as written: a string literal, or a constant by its simple name.
fn attribute_value(v: &Expr) -> Option<String> {
    match v.peel() {
        Expr::Str(s, _) => Some(s.clone()),
        Expr::Name(..) | Expr::Field(..) => v
            .dotted()
            .map(|d| d.rsplit('.').next().unwrap_or(&d).to_string()),
        _ => None,
    }
}

/// How many calls of a non-public method `id` there are when every one is on `this` (an implicit,
/// `this.` or `super.` receiver, or `this::m`) from inside its class or a subclass: a call that
/// does not go through the proxy. `None` when some call may (any other receiver, a method
/// reference on another object) or when nothing in the scan calls it. A non-public method is
/// called only from its package or, when protected, from subclasses: those are the classes read.
fn only_self_invoked(project: &Project, enablers: &Enablers, id: MethodId) -> Option<usize> {
    let m = project.method(id);
    let class = project.class_of(id);
    let package = &project.files[id.0 as usize].facts.package;
    let mut classes: std::collections::HashSet<ClassRef> = std::collections::HashSet::new();
    let mut stack = vec![class];
    while let Some(c) = stack.pop() {
        if classes.insert(c) {
            stack.extend(project.subtypes_of(c).iter().copied());
        }
    }
    let mut self_calls = 0;
    for (c, on_this, arity) in enablers.calls_named(project, &m.name) {
        let own = classes.contains(c);
        if !own && project.files[c.0 as usize].facts.package != *package {
            continue;
        }
        if arity.is_some_and(|a| a != m.params.len()) {
            continue;
        }
        if !(*on_this && own) {
            return None;
        }
        self_calls += 1;
    }
    (self_calls > 0).then_some(self_calls)
}

/// How a method body never fails (see [`never_fails`]).
#[derive(Debug, PartialEq, Eq, Clone, serde::Serialize, serde::Deserialize)]
pub struct NeverFails {
    caught: String,
    /// The calls on `this` through which it is reached (see `delegation`).
    pub(super) via: Vec<String>,
    preamble: bool,
}

/// Gives whether a method never fails (see [`never_fails`]), from the function it is passed
/// (which reads the method's body and those it delegates to) or from a cache.
pub type NeverFailsOf<'a> =
    &'a (dyn Fn(MethodId, &dyn Fn() -> Option<NeverFails>) -> Option<NeverFails> + Sync);

/// How the body of `id` never fails (see [`never_fails`]), if it never does, as `of` gives it
/// (from the cache, or looked at now). A redelivered handler that never fails is never
/// delivered again.
pub fn never_fails_through(
    project: &Project,
    cat: &Catalogue,
    id: MethodId,
    of: NeverFailsOf,
) -> Option<NeverFails> {
    of(id, &|| never_fails(project, cat, id, &mut vec![id]))
}

/// Does `body`, code of method `id` (its body or a lambda's block in it), end in a `try` that
/// catches every exception in clauses that neither rethrow nor hand the item back (a partial
/// batch failure the platform reads, a requeueing nack)? The caught type, and whether the `try`
/// follows preamble statements.
pub(super) fn swallows_in(
    project: &Project,
    cat: &Catalogue,
    id: MethodId,
    body: &Block,
) -> Option<(String, bool)> {
    // A catch clause that reports the item as failed in a partial batch response the platform
    // reads fails too: that item is delivered again.
    // So does one that hands the message back to the broker (`basicNack(tag, false, true)`).
    let rethrows = |var: &str, b: &Block| {
        Rethrows::new(project, cat).through_call(id, var, b, 0)
            || super::redelivery::requests_redelivery(project, cat, id, b)
            || b.iter().any(|s| {
                super::item_failures::reports(project, cat, id, crate::java::ir::Node::Stmt(s))
                    == Some(true)
            })
    };
    let preamble = |s: &Stmt| preamble_stmt(s) || observes(project, cat, id, s);
    swallows_every_failure(body, &preamble, &rethrows)
}

/// Does the block body of a function (a lambda written in method `id`) never fail? A
/// `java.util.function` type declares no checked exception, so a `RuntimeException` clause
/// takes every failure too.
pub(super) fn function_never_fails(
    project: &Project,
    cat: &Catalogue,
    id: MethodId,
    body: &Block,
) -> Option<Dead> {
    let (caught, preamble) = swallows_in(project, cat, id, body)?;
    Some(Dead::CatchesAll {
        caught,
        via: Vec::new(),
        preamble,
    })
}

/// How deep [`never_fails`] follows calls on `this`.
pub(super) const DELEGATION_DEPTH: usize = 4;

/// Does the body of `id` never fail? It does not when it swallows every failure
/// ([`swallows_every_failure`]), or when its last statement (an expression statement or a
/// `return`), after only preamble statements (as there), calls a method on `this` or `super`
/// with simple arguments (names, literals, field reads, lambdas) and every project method that call may
/// run never fails — followed [`DELEGATION_DEPTH`] calls deep, never through a method already
/// on the chain (`seen`).
pub(super) fn never_fails(
    project: &Project,
    cat: &Catalogue,
    id: MethodId,
    seen: &mut Vec<MethodId>,
) -> Option<NeverFails> {
    // A passing look: the annotation regions ask this of every annotated method, whose
    // bodies would otherwise stay decoded until the region search gives them back.
    let body = project.method(id).peek_body()?;
    let body: &crate::java::ir::Block = &body;
    let preamble = |s: &Stmt| preamble_stmt(s) || observes(project, cat, id, s);
    // A `RuntimeException` clause takes every failure only where no checked one can leave the
    // method: it declares none.
    if let Some((caught, preamble)) = swallows_in(project, cat, id, body)
        && (simple(caught.trim()) != "RuntimeException" || project.method(id).throws.is_empty())
    {
        return Some(NeverFails {
            caught,
            via: Vec::new(),
            preamble,
        });
    }
    if seen.len() > DELEGATION_DEPTH {
        return None;
    }
    let (last, before) = body.split_last()?;
    let call = match last {
        Stmt::Expr(Expr::Call(c)) | Stmt::Return(Some(Expr::Call(c)), _) => c,
        _ => return None,
    };
    if !before.iter().all(&preamble) {
        return None;
    }
    delegates_to_never_failing(project, cat, id, call, seen).map(|mut nf| {
        nf.preamble |= !before.is_empty();
        nf
    })
}

/// The caught type when `body` ends in a `try` with a catch of every exception and no `throw` in
/// its catch clauses or its `finally` — nor a call that rethrows the caught exception
/// (`rethrows(name, clause)`: `handleFailure(e)` whose body throws) —, and every statement before it is a local declaration
/// whose initializer calls no method on `this` (nor holds a lambda or an anonymous class), or a
/// logging call (a call of `trace`/`debug`/`info`/`warn`/`error` on `log`/`logger`). With
/// whether such statements come first (a preamble). Such a statement can fail, but only before
/// the work in the `try` starts: an attempt that reaches the `try` never fails, so that work
/// never runs twice.
pub fn swallows_every_failure(
    body: &Block,
    preamble: &dyn Fn(&Stmt) -> bool,
    rethrows: &dyn Fn(&str, &Block) -> bool,
) -> Option<(String, bool)> {
    let (last, before) = body.split_last()?;
    if !before.iter().all(preamble) {
        return None;
    }
    let caught = swallowing_try(last, rethrows)?;
    Some((caught, !before.is_empty()))
}

/// The caught type when `s` is a `try` with a catch of every exception and no `throw` in its
/// catch clauses or its `finally`, nor a call that rethrows the caught exception
/// (`rethrows(name, clause)`): no failure of its body leaves it.
pub(super) fn swallowing_try(s: &Stmt, rethrows: &dyn Fn(&str, &Block) -> bool) -> Option<String> {
    let Stmt::Try {
        catches, finally, ..
    } = s
    else {
        return None;
    };
    // The widest clause: `catch (RuntimeException e) … catch (Exception e)` takes `Exception`.
    let all: Vec<&String> = catches
        .iter()
        .filter_map(|(_, b)| match b.first() {
            Some(Stmt::Local { ty, init: None, .. }) if catches_all(ty) => Some(ty),
            _ => None,
        })
        .collect();
    let caught = all
        .iter()
        .find(|t| simple(t.trim()) != "RuntimeException")
        .or(all.first())
        .map(|t| t.to_string())?;
    let rethrown = catches
        .iter()
        .any(|(var, b)| throws_in(b) || rethrows(var, b))
        || finally.as_ref().is_some_and(throws_in);
    (!rethrown).then_some(caught)
}

/// A statement that may come before the catch-all `try` of a body that never fails.
fn preamble_stmt(s: &Stmt) -> bool {
    match s {
        Stmt::Local { init, .. } => init.as_ref().is_none_or(|e| !calls_this(e)),
        Stmt::Expr(Expr::Call(c)) => logs(c),
        _ => false,
    }
}

/// Is `c` a logging call: `trace`/`debug`/`info`/`warn`/`error` on a `log`/`logger` variable?
pub(super) fn logs(c: &Call) -> bool {
    const LEVELS: &[&str] = &["trace", "debug", "info", "warn", "error"];
    let logger = matches!(
        c.recv.as_ref().map(Expr::peel),
        Some(Expr::Name(n, _)) if ["log", "logger"].contains(&n.to_ascii_lowercase().as_str())
    );
    // An AWS Lambda handler's `context.getLogger().log(…)`.
    let lambda_logger = c.name == "log"
        && matches!(c.recv.as_ref().map(Expr::peel),
            Some(Expr::Call(g)) if g.name == "getLogger" && g.args.is_empty());
    logger && LEVELS.contains(&c.name.as_str()) || lambda_logger
}

/// Does evaluating `e` call a method on `this`, or run a lambda or an anonymous class?
fn calls_this(e: &Expr) -> bool {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Call(c) => {
                if c.on_super
                    || matches!(c.recv.as_ref().map(Expr::peel), None | Some(Expr::This(_)))
                {
                    return true;
                }
                stack.extend(c.recv.iter());
                stack.extend(c.args.iter());
            }
            Expr::Lambda(_) | Expr::MethodRef(_) | Expr::Switch(..) => return true,
            Expr::New(n) => {
                if !n.anon.is_empty() {
                    return true;
                }
                stack.extend(n.args.iter());
            }
            Expr::Field(r, _, _) | Expr::Not(r, _) | Expr::Cast(_, r, _) => stack.push(r),
            Expr::Assign(a) => stack.extend([&a.target, &a.value]),
            Expr::Ternary(a, b, c, _) => stack.extend([&**a, &**b, &**c]),
            Expr::Binary(b) => stack.extend([&b.left, &b.right]),
            Expr::Op(xs, _) => stack.extend(xs.iter()),
            Expr::Name(..)
            | Expr::This(_)
            | Expr::Str(..)
            | Expr::Lit(..)
            | Expr::Null(_)
            | Expr::Opaque(_) => {}
        }
    }
    false
}

/// Does a `throw` statement run in `block` (not in a lambda or an anonymous class in it)?
pub(super) fn throws_in(block: &Block) -> bool {
    !throws_of(block).is_empty()
}

/// The thrown expressions of the `throw` statements that run in `block` (not in a lambda or an
/// anonymous class in it).
fn throws_of(block: &Block) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut stack: Vec<&Stmt> = block.iter().collect();
    while let Some(s) = stack.pop() {
        match s {
            Stmt::Throw(e) => out.push(e),
            Stmt::If { then, els, .. } => {
                stack.extend(then);
                stack.extend(els.iter().flatten());
            }
            Stmt::Loop { head, body, .. } => {
                stack.extend(head);
                stack.extend(body);
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                stack.extend(resources);
                stack.extend(body);
                stack.extend(catches.iter().flat_map(|(_, b)| b));
                stack.extend(finally.iter().flatten());
            }
            Stmt::Block(b) => stack.extend(b),
            _ => {}
        }
    }
    out
}

/// The exception types (as written, with the class they are written in) that method `id`
/// throws with `throw new T(…)`, and so do the methods on `this` it calls, followed
/// [`DELEGATION_DEPTH`] calls deep (each added to `read`); `None` when a `throw` throws anything
/// else (`throw e`, a helper's result), or a call on `this` has no body to read.
fn thrown_types(
    project: &Project,
    id: MethodId,
    seen: &mut Vec<MethodId>,
    read: &mut Vec<MethodId>,
) -> Option<Vec<(ClassRef, String)>> {
    let body = project.method(id).peek_body()?;
    let body: &crate::java::ir::Block = &body;
    let class = project.class_of(id);
    let mut out = Vec::new();
    for e in throws_of(body) {
        match e.peel() {
            Expr::New(n) if n.anon.is_empty() => out.push((class, n.ty.clone())),
            _ => return None,
        }
    }
    let calls: Vec<&Call> = Node::all(body)
        .filter_map(|n| match n {
            Node::Expr(Expr::Call(c))
                if c.on_super
                    || matches!(c.recv.as_ref().map(Expr::peel), None | Some(Expr::This(_))) =>
            {
                Some(&**c)
            }
            _ => None,
        })
        .collect();
    for call in calls {
        // Not a project method (a static import, a method inherited from a library class).
        if project
            .methods_in_hierarchy(class, &call.name, call.args.len())
            .is_empty()
        {
            continue;
        }
        for t in this_targets(project, id, call)? {
            if seen.contains(&t) {
                continue;
            }
            if seen.len() > DELEGATION_DEPTH {
                return None;
            }
            seen.push(t);
            if !read.contains(&t) {
                read.push(t);
            }
            let more = thrown_types(project, t, seen, read);
            seen.pop();
            out.extend(more?);
        }
    }
    Some(out)
}

/// The aspects written on the retried method: a fallback of an aspect inside the retry that
/// takes every failure, or an aspect that fails a synchronous method.
fn aspect_reason(
    project: &Project,
    cat: &Catalogue,
    r: &AnnotationRegion,
    id: MethodId,
) -> Option<Dead> {
    let m = project.method(id);
    let class = project.class_of(id);
    // A row with its own place among the aspects is compared with them; a row whose re-runs come
    // from outside the bean (not `proxied`: a listener container, a binder) calls the method
    // through every aspect, so each aspect's fallback is inside it. A proxied row with no place
    // in the order is not compared.
    let retry_order = match r.aspect_order {
        Some(d) => Some(order_setting(
            project,
            id.0,
            r.aspect_property.as_deref(),
            d,
        )),
        None if r.on_failure && !r.proxied => Some(i64::MIN),
        None => None,
    };
    // The exceptions the retry retries, when the application's settings list them: read only
    // for a fallback that throws.
    let retried: std::cell::OnceCell<Option<Vec<RetriedExceptions>>> = std::cell::OnceCell::new();
    let retried = || {
        retried.get_or_init(|| {
            m.annotations.iter().find_map(|a| {
                let t = project.resolve_type(id.0, Some(class.1 as usize), &a.name);
                if !r.annotations.iter().any(|n| project.type_is(&t, n)) {
                    return None;
                }
                retried_exceptions(project, r, id, a)
            })
        })
    };
    let filter = || r.exception_settings.as_ref().zip(retried().as_deref());
    for a in &m.annotations {
        let t = project.resolve_type(id.0, Some(class.1 as usize), &a.name);
        let Some(row) = cat
            .regions
            .aspect
            .iter()
            .find(|x| x.annotations.iter().any(|n| project.type_is(&t, n)))
        else {
            continue;
        };
        if !row.async_returns.is_empty() && !returns_one_of(project, id, row.async_returns.iter()) {
            return Some(Dead::Synchronous {
                aspect: simple(&a.name).to_string(),
                ret: m.ret.to_string(),
            });
        }
        let Some(retry_order) = retry_order else {
            continue;
        };
        let order = order_setting(project, id.0, row.property.as_deref(), row.order);
        if order <= retry_order {
            // The aspect runs outside the retry: the retry sees every failure first.
            continue;
        }
        if let Some(f) = fallback_taking_all(project, class, m, a, &filter) {
            return Some(Dead::Fallback {
                aspect: simple(&a.name).to_string(),
                fallback: f.name,
                caught: f.caught,
                method: f.method,
                delegates: f.delegates,
                retried: (!f.thrown.is_empty())
                    .then(|| retried().as_ref().and_then(|apps| apps.first().cloned()))
                    .flatten(),
                thrown: f.thrown,
                ignored: f.ignored,
            });
        }
    }
    None
}

/// An aspect's place in Spring's order for the code of `file`: the application's setting when it
/// sets one (the first application that does), else the default. A setting of a profile the
/// settings files do not switch on is not the default run's, and leaves the default order.
fn order_setting(project: &Project, file: u32, property: Option<&str>, default: i64) -> i64 {
    property
        .and_then(|p| {
            project
                .modules()
                .default_run_setting(file, p)
                .into_iter()
                .find_map(|v| v.trim().parse::<i64>().ok())
        })
        .unwrap_or(default)
}

/// A fallback that leaves the retry nothing to retry (see [`fallback_taking_all`]).
struct TakingAll {
    name: String,
    caught: String,
    method: MethodId,
    /// The methods on `this` it calls whose bodies were read.
    delegates: Vec<MethodId>,
    /// The exceptions it throws (as written), none of them retried; one of them ignored.
    thrown: Vec<String>,
    ignored: bool,
}

/// The `fallbackMethod` of aspect annotation `a` when a method of that name in the class takes
/// every failure `m` can raise — its last parameter is `Exception` or `Throwable`, or the only
/// exception `m` declares — and turns it into a return: a fallback with a `throw` in its body or
/// in a method on `this` it calls (`throw new RuntimeException("…", t)`) hands failures on to the
/// retry, unless `filter` — the exceptions the retry retries by the application's settings, asked
/// only of a fallback that throws — shows that every exception thrown is one the retry does not
/// retry.
fn fallback_taking_all<'a>(
    project: &Project,
    class: ClassRef,
    m: &Method,
    a: &Annotation,
    filter: &dyn Fn() -> Option<(&'a ExceptionSettings, &'a [RetriedExceptions])>,
) -> Option<TakingAll> {
    let name = a.args.iter().find_map(|(k, v)| match (k.as_deref(), v) {
        (Some("fallbackMethod"), Expr::Str(s, _)) => Some(s.clone()),
        _ => None,
    })?;
    let only_thrown = match m.throws.as_slice() {
        [one] => Some(simple(one)),
        _ => None,
    };
    project.methods_of(class).iter().find_map(|f| {
        let fm = project.method(*f);
        if fm.name != name || fm.params.len() != m.params.len() + 1 {
            return None;
        }
        let last = &fm.params.last()?.ty;
        let takes_all = catches_all(last) && simple(last) != "RuntimeException"
            || only_thrown.is_some_and(|t| t == simple(last));
        if !takes_all {
            return None;
        }
        let mut read = Vec::new();
        let thrown = thrown_types(project, *f, &mut vec![*f], &mut read)?;
        let filter = if thrown.is_empty() { None } else { filter() };
        let verdicts: Vec<Verdict> = thrown
            .iter()
            .map(|(at, t)| match filter {
                Some((s, r)) => verdict(project, s, r, *at, t),
                None => Verdict::Retried,
            })
            .collect();
        if verdicts.contains(&Verdict::Retried) {
            return None;
        }
        let mut names: Vec<String> = thrown.into_iter().map(|(_, t)| t).collect();
        names.sort();
        names.dedup();
        Some(TakingAll {
            name: name.clone(),
            caught: last.to_string(),
            method: *f,
            delegates: read,
            thrown: names,
            ignored: verdicts.contains(&Verdict::Ignored),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::ir::Span;

    /// No call in a catch clause rethrows (the syntactic part alone).
    fn no_call(_: &str, _: &Block) -> bool {
        false
    }

    fn local(ty: &str) -> Stmt {
        Stmt::Local {
            ty: ty.into(),
            generic: None,
            name: "e".into(),
            init: None,
            span: Span::default(),
        }
    }

    fn try_of(catches: Vec<(String, Block)>) -> Block {
        vec![Stmt::Try {
            resources: Vec::new(),
            body: vec![Stmt::Jump],
            catches,
            finally: None,
        }]
    }

    #[test]
    fn a_catch_all_without_rethrow_swallows_every_failure() {
        let body = try_of(vec![("e".into(), vec![local("Exception"), Stmt::Jump])]);
        assert_eq!(
            swallows_every_failure(&body, &preamble_stmt, &no_call),
            Some(("Exception".into(), false))
        );
        let body = try_of(vec![("e".into(), vec![local("java.lang.Throwable")])]);
        assert_eq!(
            swallows_every_failure(&body, &preamble_stmt, &no_call),
            Some(("java.lang.Throwable".into(), false))
        );
    }

    #[test]
    fn a_rethrow_or_a_narrow_catch_lets_failures_through() {
        let rethrow = vec![
            local("Exception"),
            Stmt::If {
                cond: Expr::Lit("true".into(), Span::default()),
                then: vec![Stmt::Throw(Expr::Name("e".into(), Span::default()))],
                els: None,
            },
        ];
        assert_eq!(
            swallows_every_failure(
                &try_of(vec![("e".into(), rethrow)]),
                &preamble_stmt,
                &no_call
            ),
            None
        );
        let narrow = try_of(vec![("e".into(), vec![local("IOException")])]);
        assert_eq!(
            swallows_every_failure(&narrow, &preamble_stmt, &no_call),
            None
        );
        let other = try_of(vec![
            (
                "e".into(),
                vec![
                    local("IOException"),
                    Stmt::Throw(Expr::Name("e".into(), Span::default())),
                ],
            ),
            ("e".into(), vec![local("Exception")]),
        ]);
        assert_eq!(
            swallows_every_failure(&other, &preamble_stmt, &no_call),
            None
        );
        // Not the whole body.
        let mut more = try_of(vec![("e".into(), vec![local("Exception")])]);
        more.push(Stmt::Jump);
        assert_eq!(
            swallows_every_failure(&more, &preamble_stmt, &no_call),
            None
        );
        // A class of the project named like a catch-all is not one.
        assert!(!catches_all("com.acme.Exception"));
    }
}
