//! The statement interpreter: blocks, branches, loops, `try`.

use super::cx::*;
use super::place::*;
use crate::java::ir::*;

/// Passes over a loop body before its environment is taken as stable.
const MAX_LOOP_PASSES: usize = 3;

impl Cx<'_> {
    pub(super) fn block(&mut self, b: &Block) {
        self.block_ending_guarded(b);
    }

    /// Run block `b`; whether a lock taken in it (`if (!locked) return;`) still guards its end.
    /// A block that always runs to its end when it completes (a nested `{ … }`, a `try` body
    /// with no `catch`) passes that on to what follows it.
    fn block_ending_guarded(&mut self, b: &Block) -> bool {
        // A lock taken by `if (!locked) return;` guards the rest of this block only.
        let guarded = self.guarded;
        // A test that ends in `return` guards the rest of this block only.
        let conds = self.conds.len();
        // Saves and store checks hold for the rest of the block they are made in.
        let saved = self.saved.len();
        let checks = self.checks.len();
        let scope = self.types.mark();
        for s in b {
            self.stmt(s);
        }
        self.end_scope(scope);
        let ended = self.guarded;
        self.guarded = guarded;
        self.conds.truncate(conds);
        self.saved.truncate(saved);
        self.checks.truncate(checks);
        ended
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return;
        }
        match s {
            Stmt::Local {
                ty,
                generic,
                name,
                init,
                ..
            } => {
                let written = crate::java::ir::written_type(ty, generic);
                self.declare(name, written);
                self.decl_scope.insert(name.clone(), self.cur_scope);
                let t = init.as_ref().map(|e| self.eval(e)).unwrap_or_default();
                self.note_read(name, init.as_ref());
                self.note_read_local(name, init.as_ref());
                self.env.insert(Place::local(name), t);
                self.object_fields(name, init.as_ref());
            }
            Stmt::Expr(e) => {
                self.eval(e);
            }
            Stmt::If { cond, then, els } => self.stmt_if(cond, then, els.as_ref()),
            Stmt::Loop {
                head,
                cond,
                update,
                body,
                each,
                scope,
                ..
            } => {
                // The head's locals and the element variable are the loop's own.
                let mark = self.types.mark();
                for s in head {
                    self.stmt(s);
                }
                let outer_scope = std::mem::replace(&mut self.cur_scope, *scope);
                let outer_guard = self.guarded;
                if let Some((ty, name, coll)) = each {
                    let t = self.eval(coll);
                    // Rows this instance claimed (`for (id : repo.claimDue())`) are its own work.
                    if t.contains(&Origin::Lock) {
                        self.guarded = true;
                    }
                    self.declare(name, ty);
                    self.env.insert(Place::local(name), t);
                    // An element holds in its fields what the collection's elements hold there.
                    if let Some(from) = self.place_of(coll).filter(Place::is_variable) {
                        self.carry_parts(&from, &Place::local(name));
                    }
                }
                for _ in 0..MAX_LOOP_PASSES {
                    let before = self.env.clone();
                    if let Some(c) = cond {
                        self.eval(c);
                    }
                    self.block(body);
                    for u in update {
                        self.eval(u);
                    }
                    // The join is a union, so join the pass's environment into itself.
                    self.env = join_into(std::mem::take(&mut self.env), &before);
                    if self.env == before {
                        break;
                    }
                }
                self.cur_scope = outer_scope;
                self.guarded = outer_guard;
                self.end_scope(mark);
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                // The resources are in scope in the body only.
                let mark = self.types.mark();
                for s in resources {
                    self.stmt(s);
                }
                let before = self.env.clone();
                // `try (…) { if (!locked) return; }`: what follows the `try` runs with the
                // lock, unless a `catch` may go on without it (one that rethrows or returns
                // does not).
                let locked = self.block_ending_guarded(body)
                    && catches
                        .iter()
                        .all(|(_, c)| matches!(c.last(), Some(Stmt::Throw(_) | Stmt::Return(..))));
                self.end_scope(mark);
                let mut acc = std::mem::take(&mut self.env);
                let at_catch = join_into(before, &acc);
                for (param, c) in catches {
                    // A catch parameter is a local of its block.
                    let mark = self.types.mark();
                    if !param.is_empty() {
                        self.declare(param, "");
                    }
                    self.env = at_catch.clone();
                    self.block(c);
                    self.end_scope(mark);
                    acc = join_into(acc, &self.env);
                }
                self.env = acc;
                if let Some(f) = finally {
                    self.block(f);
                }
                self.guarded |= locked;
            }
            Stmt::Return(e, _) => {
                if let Some(e) = e {
                    let chain = if self.lambda_rets.is_empty() {
                        returned_calls(e)
                    } else {
                        Vec::new()
                    };
                    let outer = std::mem::replace(&mut self.returned_calls, chain);
                    let mut t = self.eval(e);
                    self.returned_calls = outer;
                    // Returned only where a lock or claim allowed it (`if (claimed == 0)
                    // return null; return op;`): the caller can tell whether it won.
                    if self.guarded && self.lambda_rets.is_empty() {
                        t.insert(Origin::Lock);
                    }
                    match self.lambda_rets.last_mut() {
                        Some(r) => union(r, &t),
                        None => {
                            union(&mut self.ret, &t);
                            self.note_return_shape(e);
                            self.note_exit_fields();
                            self.note_exit_saves();
                        }
                    }
                } else if self.lambda_rets.is_empty() {
                    self.note_exit_fields();
                    self.note_exit_saves();
                }
            }
            Stmt::Throw(e) => {
                self.eval(e);
            }
            Stmt::Block(b) => {
                let locked = self.block_ending_guarded(b);
                self.guarded |= locked;
            }

            Stmt::Jump | Stmt::Break | Stmt::Continue => {}
        }
    }

    pub(super) fn arms(&mut self, arms: &[Block]) {
        let before = self.env.clone();
        let mut acc = before.clone();
        for a in arms {
            self.env = before.clone();
            self.block(a);
            acc = join_into(acc, &self.env);
        }
        self.env = acc;
    }

    pub(super) fn stmt_if(&mut self, cond: &Expr, then: &Block, els: Option<&Block>) {
        // The condition's own value is not data flow, but it tells whether a lock decides.
        self.keep_cond = true;
        let cond_t = self.eval(cond);
        self.keep_cond = false;
        let lock = cond_t.contains(&Origin::Lock);
        let bails_out = matches!(
            then.last(),
            Some(Stmt::Return(..) | Stmt::Throw(_) | Stmt::Continue)
        );
        let guard = self.guard_of(cond);
        // Tests on parameters: the branches run under them (see `conds`).
        let tests = self.cond_of(cond);
        let negation = self.negation_of(cond);
        let before = self.env.clone();
        let read_before = self.read_place.clone();
        let mark = self.stores.len();
        let outer_guard = self.guarded;
        if lock && !(bails_out && els.is_none()) {
            self.guarded = true;
        }
        self.under(tests.clone().unwrap_or_default(), |cx| cx.block(then));
        self.guarded = outer_guard;
        let env_then = std::mem::replace(&mut self.env, before.clone());
        let then_stores: Vec<Store> = self.stores[mark..].to_vec();
        let mark2 = self.stores.len();
        if let Some(e) = els {
            let negation: Vec<_> = negation.iter().cloned().collect();
            self.under(negation, |cx| cx.block(e));
        }
        let env_else = std::mem::take(&mut self.env);
        let else_stores: Vec<Store> = self.stores[mark2..].to_vec();
        let (mut absent, other, stores) = match &guard {
            Some(g) if !g.absent_in_then => (env_else, env_then, else_stores),
            _ => (env_then, env_else, then_stores),
        };
        if let Some(g) = &guard {
            self.generate_once(g, &before, &read_before, &mut absent, &stores);
        }
        self.env = join_into(absent, &other);
        if lock && bails_out && els.is_none() {
            // `if (!acquired) return;`: what follows runs only with the lock.
            self.guarded = true;
        }
        // `if (level != CRITICAL) return;`: what follows runs only for CRITICAL (until the end
        // of the enclosing block, which drops it).
        if bails_out
            && els.is_none()
            && let Some(n) = negation
        {
            self.conds.push(n);
        }
        // `if (repo.existsByMessageId(id)) return;`: what follows runs only without a record.
        if bails_out && els.is_none() {
            self.note_exit_check(cond);
        }
    }
}

/// The calls whose value `e` is: the call itself and its receivers down a fluent chain
/// (`Result.builder().idempotencyKey(k).build()`), in both arms of a ternary — not the calls in
/// their arguments, whose values go into another object (`Charge.create(params, options(k))`).
fn returned_calls(e: &Expr) -> Vec<Span> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e.peel() {
            Expr::Call(c) => {
                out.push(c.span);
                if let Some(r) = &c.recv {
                    stack.push(r);
                }
            }
            Expr::Ternary(_, a, b, _) => {
                stack.push(a);
                stack.push(b);
            }
            _ => {}
        }
    }
    out
}
