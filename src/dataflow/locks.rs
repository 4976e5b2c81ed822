//! Cluster-wide guards: calls and queries that say whether this instance holds a lock, and
//! claims that take items off a shared queue (each item goes to one consumer).

use super::ParamPath;
use super::cx::*;
use super::place::{Origin, Taint};
use super::site::CallSite;
use crate::java::ir::*;
use crate::semantic::TypeRef;
use std::collections::BTreeSet;

impl Cx<'_> {
    /// Does the call answer whether this instance holds a cluster-wide lock?
    pub(super) fn is_lock_call(&self, c: &Call) -> bool {
        let site = CallSite::call(self, c);
        if let Some(cluster_wide) = self.model.lock_method(&site) {
            return cluster_wide;
        }
        if self.model.is_claim(&site) || self.model.claim_key(&site).is_some() {
            return true;
        }
        c.args.iter().any(|a| {
            let text = match a.peel() {
                Expr::Name(n, _) if self.is_local(n) => match self.defs.get(n) {
                    Some((_, init)) => self.constant_text(self.class, init),
                    None => None,
                },
                other => self.constant_text(self.class, other),
            };
            text.is_some_and(|t| self.model.is_lock_sql(&t))
        }) || self.callee_locks(c)
            || self.row_lock(c)
    }

    /// A read that locks its rows until the transaction ends (`select … for update`, a query
    /// method annotated `@Lock(LockModeType.PESSIMISTIC_WRITE)`), in a method that runs in a
    /// transaction: a second replica waits for this one to commit and reads what it left.
    /// Outside a transaction every statement commits at once and the lock guards nothing.
    fn row_lock(&self, c: &Call) -> bool {
        if !self.transaction_of(self.id).is_some_and(|t| t.inside) {
            return false;
        }
        let sql_arg = c.args.iter().any(|a| {
            self.constant_text(self.class, a)
                .is_some_and(|t| self.model.is_row_lock_sql(&t))
        });
        if sql_arg {
            return true;
        }
        self.callee_annotated(c, &|class, a| {
            let t = self
                .project
                .resolve_type(class.0, Some(class.1 as usize), &a.name);
            let mode = a.constant_arg("value");
            mode.is_some_and(|mode| {
                self.model
                    .is_row_lock_annotation(&|x| self.project.type_is(&t, x), &mode)
            }) || a.args.iter().any(|(_, v)| {
                self.constant_text(class, v)
                    .is_some_and(|s| self.model.is_row_lock_sql(&s))
            })
        })
    }

    /// Does a method call `c` resolves to carry an annotation `is` accepts (with the class the
    /// method is declared in)?
    fn callee_annotated(
        &self,
        c: &Call,
        is: &dyn Fn(crate::semantic::ClassRef, &Annotation) -> bool,
    ) -> bool {
        let recv = self.receiver_type(c.recv.as_ref());
        self.project
            .resolve_call(self.class, c, recv)
            .iter()
            .any(|m| {
                let class = self.project.class_of(*m);
                self.project
                    .method(*m)
                    .annotations
                    .iter()
                    .any(|a| is(class, a))
            })
    }

    /// A project method whose query annotation takes a lock or claims rows
    /// (`@Query(value = "select id from inbox where id = :id and status = 'PENDING' "
    /// + "for update skip locked", nativeQuery = true)`).
    pub(super) fn callee_locks(&self, c: &Call) -> bool {
        self.callee_annotated(c, &|class, a| {
            a.args.iter().any(|(_, v)| {
                self.constant_text(class, v)
                    .is_some_and(|s| self.model.is_lock_sql(&s))
            })
        })
    }

    /// The text of a string constant, also when written as a concatenation of literals and
    /// constants (a query split over lines); `None` when a part is not a constant.
    pub(super) fn constant_text(
        &self,
        class: crate::semantic::ClassRef,
        e: &Expr,
    ) -> Option<String> {
        let mut text = String::new();
        // Operands left to right: the right operand is pushed first.
        let mut stack: Vec<&Expr> = vec![e];
        while let Some(e) = stack.pop() {
            match e.peel() {
                Expr::Binary(b) if b.op == "+" => {
                    stack.push(&b.right);
                    stack.push(&b.left);
                }
                other => text.push_str(&self.project.constant(class, other)?),
            }
        }
        Some(text)
    }
}

impl Cx<'_> {
    /// A claim of a key in a shared store, or a read of storage: the parameters its key is made
    /// of name a record of the application's own store (and, for a claim, decide its lock).
    /// Whether the call is a claim by a key made anew on each run, which every replica wins.
    pub(super) fn note_store_keys(&mut self, c: &Call, args: &[Taint]) -> bool {
        let site = CallSite::call(self, c);
        if let Some(k) = self.model.claim_key(&site) {
            let Some(key) = args.get(k) else {
                return false;
            };
            let sum = &mut self.out.summary;
            for o in key {
                match o {
                    Origin::Param(i) => {
                        sum.claim_params.insert(*i);
                        sum.store_key_params.insert(*i);
                    }
                    Origin::ParamField(i, _) => {
                        sum.claim_params.insert(*i);
                    }
                    _ => {}
                }
            }
            return is_fresh(key);
        }
        if self.model.stored_read(&site) {
            for a in args {
                self.note_store_key_params(a);
            }
        }
        if self.model.is_persist(&c.name) && args.iter().any(|a| a.contains(&Origin::Keyed)) {
            self.keyed_saved = true;
        }
        false
    }

    fn note_store_key_params(&mut self, t: &Taint) {
        for o in t {
            if let Origin::Param(i) | Origin::ParamField(i, _) = o {
                self.out.summary.store_key_params.insert(*i);
            }
        }
    }

    /// A project method's own-store keys and claim keys, made of this method's parameters.
    pub(super) fn note_callee_store_keys(&mut self, s: &super::Summary, args: &[Taint]) {
        for i in &s.store_key_params {
            if let Some(a) = args.get(*i as usize) {
                self.note_store_key_params(a);
            }
        }
        for i in &s.claim_params {
            if let Some(a) = args.get(*i as usize) {
                for o in a {
                    if let Origin::Param(j) | Origin::ParamField(j, _) = o {
                        self.out.summary.claim_params.insert(*j);
                    }
                }
            }
        }
    }

    /// A store's method that writes the key it looks up or claims under into the record it
    /// saves or the result it hands back (`repository.save(Record.builder().idempotencyKey(key)
    /// …)`, `return Result.builder().idempotencyKey(key).build()` after `findBy…(key)`): the key
    /// names the store's own record. Only where the method saves or returns a keyed value and
    /// the key is made of its own-store parameters, of what it read from storage or its own
    /// fields (the record it found, its cache) — in a method that looks its store up by a key
    /// parameter — or of fresh values (which RL005 still counts where they are new on every run).
    ///
    /// A key the method only copies from its parameters into the object it returns
    /// (`Result.builder().idempotencyKey(record.getIdempotencyKey())`) is handed back: where it
    /// goes is the caller's to tell, so it is no key sink here, and each call of the method is
    /// a key write of what the caller passes (`Summary::ret_key_params`).
    pub(super) fn mark_own_record_keys(&mut self) {
        if !self.out.summary.ret_keyed && !self.keyed_saved {
            return;
        }
        let own = &self.out.summary.store_key_params;
        let mut handed_back = BTreeSet::new();
        for (i, t, returned) in std::mem::take(&mut self.key_writes) {
            let is_param = |o: &Origin| matches!(o, Origin::Param(_) | Origin::ParamField(..));
            let own_or_fresh = |o: &Origin| match o {
                Origin::Param(p) | Origin::ParamField(p, _) => own.contains(p),
                Origin::Fresh(_) | Origin::Keyed => true,
                _ => false,
            };
            // The key it looked up or claimed under, saved or handed back.
            let of_store = t.iter().any(is_param) && t.iter().all(own_or_fresh);
            // The result of a lookup by key: what it looked up, found in storage or in its own
            // state (a cache field) — the key of the record it found.
            let found = returned
                && !own.is_empty()
                && t.iter()
                    .all(|o| own_or_fresh(o) || matches!(o, Origin::Field(_)));
            let of_store = of_store || found;
            // Copied from the parameters into what it returns: handed back to the caller.
            let copied = returned && !t.is_empty() && t.iter().all(is_param);
            if !of_store && !copied {
                continue;
            }
            let Some(e) = self.out.effects.get_mut(i) else {
                continue;
            };
            if of_store {
                e.own_key = true;
                continue;
            }
            e.handed_back = true;
            for o in &t {
                match o {
                    Origin::Param(p) => handed_back.insert(ParamPath::Whole(*p)),
                    Origin::ParamField(p, f) => handed_back.insert(ParamPath::Field(*p, f.clone())),
                    _ => false,
                };
            }
        }
        self.out.summary.ret_key_params.extend(handed_back);
    }

    /// Is a claim keyed by these parameters given a key made anew on each run?
    pub(super) fn claims_fresh_key(
        &self,
        params: &std::collections::BTreeSet<u16>,
        args: &[Taint],
    ) -> bool {
        params
            .iter()
            .any(|i| args.get(*i as usize).is_some_and(is_fresh))
    }

    /// Is `this.field` a leader flag: a field that a handler of a leadership-granted event
    /// (`void onGranted(OnGrantedEvent e) { leader = true; }`, or `@EventListener(OnGrantedEvent
    /// .class)`) sets to `true`?
    pub(super) fn is_leader_flag(&self, field: &str) -> bool {
        let events = self.model.granted_events();
        if events.is_empty() {
            return false;
        }
        let project = self.project;
        let is_event = |written: &str| {
            let t: TypeRef =
                project.resolve_type(self.class.0, Some(self.class.1 as usize), written);
            events.iter().any(|e| project.type_is(&t, e))
        };
        // The declaration first: a body read is decoded.
        project.methods_of(self.class).iter().any(|m| {
            let method = project.method(*m);
            let handles = method.params.iter().any(|p| is_event(&p.ty))
                || method.annotations.iter().any(|a| {
                    a.args.iter().any(|(_, v)| {
                        v.dotted()
                            .and_then(|d| d.strip_suffix(".class").map(str::to_string))
                            .is_some_and(|t| is_event(&t))
                    })
                });
            handles && method.body().is_some_and(|b| sets_true(b, field))
        })
    }

    /// A field read: a leader flag says whether this instance holds the leadership.
    pub(super) fn leader_flag_origin(&self, field: &str, t: &mut super::place::Taint) {
        if self.keep_cond && self.is_leader_flag(field) {
            t.insert(Origin::Lock);
        }
    }
}

/// Does the block (or a block nested in it) assign `true` to `field` (`leader = true`,
/// `this.leader = true`)?
fn sets_true(b: &Block, field: &str) -> bool {
    let mut stack: Vec<&Block> = vec![b];
    while let Some(b) = stack.pop() {
        for s in b {
            if let Stmt::Expr(Expr::Assign(a)) = s
                && a.op == "="
                && matches!(&a.value, Expr::Lit(v, _) if v == "true")
                && match &a.target {
                    Expr::Name(n, _) => n == field,
                    Expr::Field(r, n, _) => matches!(**r, Expr::This(_)) && n == field,
                    _ => false,
                }
            {
                return true;
            }
            stack.extend(s.blocks());
        }
    }
    false
}

/// Does the value hold a per-attempt value (random, clock, counter) made in this method or a
/// callee?
fn is_fresh(t: &Taint) -> bool {
    t.iter().any(|o| matches!(o, Origin::Fresh(_)))
}
