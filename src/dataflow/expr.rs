//! Expression evaluation: the origins of an expression's value.

use super::cx::*;
use super::model::SourceKind;
use super::place::*;
use crate::java::ir::*;

impl Cx<'_> {
    pub(super) fn eval(&mut self, e: &Expr) -> Taint {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Taint::new();
        }
        match e {
            Expr::Call(c) => self.eval_call(c),
            Expr::New(n) => self.eval_new(n),
            Expr::Name(n, _) => self.read_name(n),
            Expr::Field(r, n, _) => match &**r {
                Expr::This(_) => self.read_field(n),
                _ if self.is_type_name(r) => Taint::new(),
                _ => {
                    if let Some(p) = self.place_of(r).map(|p| Place::prop(p, n))
                        && let Some(t) = self.env.get(&p)
                    {
                        return t.clone();
                    }
                    let whole = self.eval(r);
                    super::shapes::part_of(&whole, n)
                }
            },
            Expr::This(_) | Expr::Str(..) | Expr::Lit(..) | Expr::Null(_) | Expr::Opaque(_) => {
                Taint::new()
            }
            Expr::Lambda(l) => self.eval_lambda(l, &Taint::new(), &[]),
            Expr::MethodRef(m) => self.eval_method_ref(m),
            Expr::Assign(a) => {
                if let Some(place) = self.counter_place(&a.target)
                    && (is_increment(a) || self.adds_to_itself(a, &place))
                {
                    self.eval(&a.value);
                    let label = format!("counter `{}`", place.variable_name().unwrap_or_default());
                    let t = self.counter(&place, a.span, label);
                    self.assign_place(place, t.clone(), true, None);
                    return t;
                }
                let v = self.eval(&a.value);
                let replace = a.op == "=";
                if let Expr::Name(n, _) = a.target.peel()
                    && self.method.params.iter().any(|p| &p.name == n)
                {
                    self.assigned_params.insert(n.clone());
                }
                match a.target.peel() {
                    Expr::Name(n, _)
                        if self.is_local(n)
                            || self.env.contains_key(&Place::local(n)) && !self.is_field(n) =>
                    {
                        if replace {
                            self.note_read(n, Some(&a.value));
                        }
                        self.assign_place(Place::local(n), v.clone(), replace, None);
                        if replace {
                            self.object_fields(n, Some(&a.value));
                        }
                    }
                    Expr::Name(n, _) if self.is_field(n) => {
                        if !self.is_static_field(n) {
                            self.assign_place(Place::this(n), v.clone(), replace, None);
                        }
                    }
                    Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => {
                        self.assign_place(Place::this(n), v.clone(), replace, None);
                    }
                    Expr::Field(r, n, _) => {
                        if let Some(p) = self.place_of(r) {
                            self.assign_place(Place::prop(p, n), v.clone(), replace, None);
                        }
                    }
                    other => {
                        // `key[0] = …` on a local array: that element.
                        if let Some(p) = self.element_place(other) {
                            self.assign_place(p, v.clone(), replace, None);
                            return v;
                        }
                        // Array element: the array holds the value.
                        if let Expr::Op(parts, _) = other
                            && let Some(p) = parts.first().and_then(|x| self.place_of(x))
                        {
                            self.assign_place(p, v.clone(), false, None);
                        }
                    }
                }
                v
            }
            Expr::Ternary(c, a, b, _) => {
                self.eval(c);
                let tests = self.cond_of(c);
                let negation = self.negation_of(c);
                let mut t = self.under(tests.unwrap_or_default(), |cx| cx.eval(a));
                let other = self.under(negation.into_iter().collect(), |cx| cx.eval(b));
                union(&mut t, &other);
                t
            }
            Expr::Binary(b) => {
                let l = self.eval(&b.left);
                let r = self.eval(&b.right);
                let arithmetic = matches!(
                    b.op.as_str(),
                    "+" | "-" | "*" | "/" | "%" | "^" | "|" | "&" | "<<" | ">>" | ">>>"
                );
                if arithmetic || self.keep_cond {
                    let mut t = l;
                    union(&mut t, &r);
                    t
                } else {
                    // Comparisons and logic yield a boolean: a condition is not a data flow,
                    // but one made of a lock's answer still tells whether the lock is held
                    // (`return rs.next() && rs.getBoolean(1);` after `pg_try_advisory_lock`);
                    // `tryLock() || force` is true without the lock, so an `||` tells it only
                    // when both sides do.
                    if b.op == "||"
                        && (lock_only(&l).next().is_none() || lock_only(&r).next().is_none())
                    {
                        Taint::new()
                    } else {
                        lock_only(&l).chain(lock_only(&r)).collect()
                    }
                }
            }
            Expr::Not(x, _) => {
                let t = self.eval(x);
                if self.keep_cond {
                    t
                } else {
                    lock_only(&t).collect()
                }
            }
            Expr::Cast(_, x, _) => self.eval(x),
            Expr::Op(xs, _) => {
                // `key[0]`: the element, once one was written.
                if let Some(p) = self.element_place(e)
                    && let Some(t) = self.env.get(&p)
                {
                    return t.clone();
                }
                let mut t = Taint::new();
                for x in xs {
                    union(&mut t, &self.eval(x));
                }
                t
            }
            Expr::Switch(s, arms, _) => {
                self.eval(s);
                self.lambda_rets.push(Taint::new());
                self.arms(arms);
                self.lambda_rets.pop().unwrap_or_default()
            }
        }
    }

    /// Evaluate a lambda where it is created; `seed` is what its parameters receive (the
    /// receiver's value for `promise.flatMap(v -> …)`, `optional.map(k -> …)`), `inferred` the
    /// types of its untyped parameters where they can be told (see
    /// [`Typer::lambda_param_types`](crate::semantic::Typer::lambda_param_types)).
    pub(super) fn eval_lambda(
        &mut self,
        l: &Lambda,
        seed: &Taint,
        inferred: &[Option<String>],
    ) -> Taint {
        let scope = &self.method.scopes[l.scope as usize];
        let mark = self.types.mark();
        for (i, (n, ty)) in scope.params.iter().enumerate() {
            let ty = ty
                .map(String::from)
                .or_else(|| inferred.get(i).cloned().flatten());
            self.declare(n, &ty.unwrap_or_default());
            self.env.insert(Place::local(n), seed.clone());
            self.decl_scope.insert(n.to_string(), l.scope);
        }
        let outer = std::mem::replace(&mut self.cur_scope, l.scope);
        let t = match &l.body {
            LambdaBody::Expr(e) => self.eval(e),
            LambdaBody::Block(b) => {
                self.lambda_rets.push(Taint::new());
                self.block(b);
                self.lambda_rets.pop().unwrap_or_default()
            }
        };
        self.cur_scope = outer;
        self.end_scope(mark);
        t
    }

    pub(super) fn eval_anon(&mut self, a: &AnonMethod) -> Taint {
        let scope = &self.method.scopes[a.scope as usize];
        let mark = self.types.mark();
        for (n, ty) in &scope.params {
            self.declare(n, ty.map(|t| t.as_str()).unwrap_or_default());
            self.env.insert(Place::local(n), Taint::new());
            self.decl_scope.insert(n.to_string(), a.scope);
        }
        let outer = std::mem::replace(&mut self.cur_scope, a.scope);
        self.lambda_rets.push(Taint::new());
        self.block(&a.body);
        let t = self.lambda_rets.pop().unwrap_or_default();
        self.cur_scope = outer;
        self.end_scope(mark);
        t
    }

    /// The variable a counter update changes: a local, a field, or the array an element of
    /// which is updated.
    pub(super) fn counter_place(&self, target: &Expr) -> Option<Place> {
        match target.peel() {
            Expr::Name(n, _) if self.is_local(n) => Some(Place::local(n)),
            Expr::Name(n, _) if self.is_field(n) => Some(Place::this(n)),
            Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => Some(Place::this(n)),
            Expr::Op(parts, _) if parts.len() == 2 => self.counter_place(&parts[0]),
            _ => None,
        }
    }

    /// A function that increments what it is given: a lambda that adds to or subtracts from
    /// one of its parameters (`v -> v + 1`, `(a, b) -> a + b`, `v -> { return v - 1; }`) or a
    /// method reference among `sums` (`Integer::sum`, `Math::addExact`).
    pub(super) fn increments(&self, f: &Expr, sums: &[String]) -> bool {
        match f.peel() {
            Expr::MethodRef(m) => {
                let owner = m.recv.dotted().unwrap_or_default();
                let owner = owner.rsplit('.').next().unwrap_or_default();
                sums.iter()
                    .any(|s| s.split_once("::") == Some((owner, m.name.as_str())))
            }
            Expr::Lambda(l) => {
                let params = &self.method.scopes[l.scope as usize].params;
                let body = match &l.body {
                    LambdaBody::Expr(e) => Some(e),
                    LambdaBody::Block(b) => match b.as_slice() {
                        [Stmt::Return(Some(e), _)] => Some(e),
                        _ => None,
                    },
                };
                let is_param = |e: &Expr| matches!(e.peel(), Expr::Name(n, _) if params.iter().any(|(p, _)| p == n));
                body.is_some_and(|e| {
                    matches!(e.peel(), Expr::Binary(b)
                        if b.op == "+" && (is_param(&b.left) || is_param(&b.right))
                            || b.op == "-" && is_param(&b.left))
                })
            }
            _ => false,
        }
    }

    /// `this.n = this.n + k`, `n = k + n`, `this.n = n - k`: an assignment of the variable
    /// plus or minus something, however the variable is written on each side.
    fn adds_to_itself(&self, a: &Assign, place: &Place) -> bool {
        let same = |e: &Expr| {
            matches!(e.peel(), Expr::Name(..) | Expr::Field(..))
                && self.counter_place(e).as_ref() == Some(place)
        };
        a.op == "="
            && matches!(a.value.peel(), Expr::Binary(b)
                if b.op == "+" && (same(&b.left) || same(&b.right)) || b.op == "-" && same(&b.left))
    }

    /// `n++`, `n += k`, `n = n + k`, `counter.incrementAndGet()` on a place declared outside
    /// the current scope: a value that differs on every attempt of a region that runs the
    /// increment but not the declaration.
    pub(super) fn counter(&mut self, place: &Place, span: Span, label: String) -> Taint {
        let decl = match place {
            Place::Local(n) => Some(self.decl_scope.get(n).copied().unwrap_or(0)),
            _ => None,
        };
        if decl == Some(self.cur_scope) {
            return Taint::new();
        }
        let t = self.fresh(SourceKind::Attempt, "", span, self.cur_scope, label, None);
        if let Some(Origin::Fresh(i)) = t.iter().next() {
            self.out.sources[*i as usize].counter_decl = Some(decl);
        }
        t
    }
}

/// `n++`, `n--`, `n += k`, `n -= k`, `n = n + k`.
fn is_increment(a: &Assign) -> bool {
    match a.op.as_str() {
        "++" | "--" | "+=" | "-=" => true,
        "=" => matches!(a.value.peel(), Expr::Binary(b)
            if matches!(b.op.as_str(), "+" | "-")
                && matches!((b.left.peel(), a.target.peel()), (Expr::Name(x, _), Expr::Name(y, _)) if x == y)),
        _ => false,
    }
}

/// The lock's answer in `t`, if it holds one ([`Origin::Lock`]).
fn lock_only(t: &Taint) -> impl Iterator<Item = Origin> + '_ {
    t.iter().filter(|o| **o == Origin::Lock).cloned()
}
