//! Re-execution regions: which code a framework may run more than once, and which methods are
//! reached from it.

use crate::catalogue::{Catalogue, PipelineRegion};
use crate::flow::{Loc, MethodFlow, method_ref_targets};
use crate::index::{MethodId, Project, TypeRef};
use crate::syntax::ir::*;
use std::collections::{BTreeSet, HashMap};

/// The code of a region inside one method.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// The whole body of a method.
    Whole(MethodId),
    /// These lambda / anonymous-method scopes of a method, with everything nested in them.
    Scopes(MethodId, Vec<ScopeId>),
}

#[derive(Clone, Debug)]
pub struct Region {
    /// `@Retryable method`, `RetryTemplate.execute callback`, …
    pub label: String,
    /// The method the region is written in (for messages).
    pub owner: String,
    /// The annotation or the call that makes the region.
    pub loc: Loc,
    pub scheduler: bool,
    pub parts: Vec<Part>,
}

impl Region {
    pub fn describe(&self) -> String {
        if self.label.starts_with('@') {
            format!("the {} `{}`", self.label, self.owner)
        } else {
            format!("the {} in `{}`", self.label, self.owner)
        }
    }
}

/// Regions made by annotations on methods and classes.
/// Only methods for which `wanted` holds are looked at.
pub fn annotation_regions(
    project: &Project,
    cat: &Catalogue,
    wanted: &dyn Fn(&MethodId) -> bool,
) -> Vec<Region> {
    let mut out = Vec::new();
    for id in project.all_methods().filter(|m| wanted(m)) {
        let m = project.method(id);
        if m.is_ctor || m.body.is_none() || m.name.starts_with('<') {
            continue;
        }
        let class = project.class_of(id);
        let matches_in = |at: crate::index::ClassRef, a: &Annotation| {
            let t = project.resolve_type(at.0, Some(at.1 as usize), &a.name);
            cat.regions
                .annotation
                .iter()
                .find(|r| r.annotations.iter().any(|x| project.type_is(&t, x)))
        };
        let matches = |a: &Annotation| matches_in(class, a);
        let mut hit = None;
        for a in &m.annotations {
            if let Some(r) = matches(a) {
                hit = Some((r, a.span));
                break;
            }
        }
        // Declared on the method of an implemented interface or overridden class.
        if hit.is_none() {
            'sup: for sup in project.supertypes_of(class) {
                for sm in project.methods_of(*sup) {
                    let smm = project.method(*sm);
                    if smm.name != m.name || smm.params.len() != m.params.len() {
                        continue;
                    }
                    for a in &smm.annotations {
                        if let Some(r) = matches_in(*sup, a) {
                            hit = Some((r, m.name_span));
                            break 'sup;
                        }
                    }
                }
            }
        }
        if hit.is_none() && m.modifiers.is_public {
            for a in &project.class(class).annotations {
                if let Some(r) = matches(a).filter(|r| r.class_level) {
                    // A recovery method of a retried class runs once, after the attempts.
                    let exempt = m.annotations.iter().any(|ma| {
                        let t = project.resolve_type(id.0, Some(class.1 as usize), &ma.name);
                        r.class_level_except.iter().any(|x| project.type_is(&t, x))
                    });
                    if !exempt {
                        hit = Some((r, a.span));
                    }
                    break;
                }
            }
        }
        if let Some((r, span)) = hit {
            out.push(Region {
                label: r.label.clone(),
                owner: m.name.clone(),
                loc: Loc { file: id.0, span },
                scheduler: r.scheduler,
                parts: vec![Part::Whole(id)],
            });
        }
    }
    out
}

/// Is scope `s` of `m` inside one of `roots` (or one of them)?
pub fn scope_within(m: &Method, s: ScopeId, roots: &[ScopeId]) -> bool {
    let mut cur = Some(s);
    let mut guard = 0;
    while let Some(x) = cur {
        if roots.contains(&x) {
            return true;
        }
        cur = m.scopes.get(x as usize).and_then(|sc| sc.parent);
        guard += 1;
        if guard > m.scopes.len() {
            return false;
        }
    }
    false
}

/// Methods whose whole body runs inside the region: the region's own whole methods and every
/// project method called, transitively, from its code.
pub fn reach(
    project: &Project,
    flows: &HashMap<MethodId, MethodFlow>,
    r: &Region,
) -> BTreeSet<MethodId> {
    let mut seen = BTreeSet::new();
    let mut stack = Vec::new();
    for p in &r.parts {
        match p {
            Part::Whole(m) => {
                if seen.insert(*m) {
                    stack.push(*m);
                }
            }
            Part::Scopes(m, roots) => {
                let mm = project.method(*m);
                for (s, callee) in flows.get(m).map(|f| f.calls.as_slice()).unwrap_or(&[]) {
                    if scope_within(mm, *s, roots) && seen.insert(*callee) {
                        stack.push(*callee);
                    }
                }
            }
        }
    }
    while let Some(m) = stack.pop() {
        for (_, callee) in flows.get(&m).map(|f| f.calls.as_slice()).unwrap_or(&[]) {
            if seen.insert(*callee) {
                stack.push(*callee);
            }
        }
    }
    seen
}

/// Lambda/anonymous/method-reference code of a callback argument.
pub fn callback_parts(
    project: &Project,
    id: MethodId,
    arg: &Expr,
    methods: &[String],
    defs: &HashMap<String, (&str, &Expr)>,
    type_of: &dyn Fn(&Expr) -> Option<TypeRef>,
    is_type_name: &dyn Fn(&Expr) -> bool,
) -> Vec<Part> {
    let class = project.class_of(id);
    match arg.peel() {
        Expr::Lambda(l) => vec![Part::Scopes(id, vec![l.scope])],
        Expr::New(n) => {
            let scopes: Vec<ScopeId> = n
                .anon
                .iter()
                .filter(|a| methods.is_empty() || methods.contains(&a.name))
                .map(|a| a.scope)
                .collect();
            if scopes.is_empty() {
                Vec::new()
            } else {
                vec![Part::Scopes(id, scopes)]
            }
        }
        Expr::MethodRef(r) => method_ref_targets(project, class, r, type_of, is_type_name)
            .into_iter()
            .map(Part::Whole)
            .collect(),
        Expr::Name(n, _) => match defs.get(n) {
            Some((_, init)) if !matches!(init.peel(), Expr::Name(..)) => {
                callback_parts(project, id, init, methods, defs, type_of, is_type_name)
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Local variable initializers of a block (not inside lambdas), by name.
pub fn collect_defs<'a>(b: &'a Block, out: &mut HashMap<String, (&'a str, &'a Expr)>) {
    for s in b {
        match s {
            Stmt::Local {
                name,
                init: Some(e),
                ty,
                ..
            } => {
                out.insert(name.clone(), (ty.as_str(), e));
            }
            Stmt::If { then, els, .. } => {
                collect_defs(then, out);
                if let Some(e) = els {
                    collect_defs(e, out);
                }
            }
            Stmt::Block(x) => collect_defs(x, out),
            Stmt::Try { body, .. } => collect_defs(body, out),
            _ => {}
        }
    }
}

fn collect_returns<'a>(b: &'a Block, out: &mut Vec<&'a Expr>) {
    for s in b {
        match s {
            Stmt::Return(Some(e), _) => out.push(e),
            Stmt::If { then, els, .. } => {
                collect_returns(then, out);
                if let Some(e) = els {
                    collect_returns(e, out);
                }
            }
            Stmt::Block(x) | Stmt::Loop { body: x, .. } => collect_returns(x, out),
            Stmt::Try { body, catches, .. } => {
                collect_returns(body, out);
                for (_, c) in catches {
                    collect_returns(c, out);
                }
            }
            _ => {}
        }
    }
}

const MAX_UPSTREAM_DEPTH: usize = 16;

/// The deferred code upstream of a lazy pipeline's retry operator.
pub struct Upstream<'p> {
    pub project: &'p Project,
    pub cat: &'p Catalogue,
    pub row: &'p PipelineRegion,
}

impl<'p> Upstream<'p> {
    fn is_type_name(&self, id: MethodId, defs: &HashMap<String, (&str, &Expr)>, e: &Expr) -> bool {
        match e {
            Expr::Name(n, _) => {
                !defs.contains_key(n)
                    && !self.project.method(id).params.iter().any(|p| p.name == *n)
                    && self.project.field(self.project.class_of(id), n).is_none()
                    && n.chars().next().is_some_and(|c| c.is_uppercase())
            }
            Expr::Field(r, _, _) => self.is_type_name(id, defs, r),
            _ => false,
        }
    }

    fn resolve(&self, id: MethodId, written: &str) -> TypeRef {
        let class = self.project.class_of(id);
        self.project
            .resolve_type(id.0, Some(class.1 as usize), written)
    }

    fn is_row_type(&self, t: &TypeRef) -> bool {
        self.row.types.iter().any(|x| self.project.type_is(t, x))
    }

    fn returns_pipeline(&self, m: MethodId) -> bool {
        let mm = self.project.method(m);
        let t = self.project.resolve_type(m.0, Some(mm.class), &mm.ret);
        self.is_row_type(&t)
    }

    fn call_targets(
        &self,
        id: MethodId,
        defs: &HashMap<String, (&str, &Expr)>,
        c: &Call,
    ) -> Vec<MethodId> {
        let class = self.project.class_of(id);
        let recv = match &c.recv {
            None | Some(Expr::This(_)) => None,
            Some(r) if self.is_type_name(id, defs, r) => {
                Some(r.dotted().map(|d| self.resolve(id, &d)))
            }
            Some(r) => Some(self.type_of(id, defs, r)),
        };
        self.project
            .resolve_call(class, c, recv)
            .into_iter()
            .filter(|m| self.returns_pipeline(*m))
            .collect()
    }

    fn type_of(
        &self,
        id: MethodId,
        defs: &HashMap<String, (&str, &Expr)>,
        e: &Expr,
    ) -> Option<TypeRef> {
        match e.peel() {
            Expr::Name(n, _) => {
                if let Some((ty, _)) = defs.get(n) {
                    return (!ty.is_empty() && *ty != "var").then(|| self.resolve(id, ty));
                }
                if let Some(p) = self.project.method(id).params.iter().find(|p| p.name == *n) {
                    return Some(self.resolve(id, &p.ty));
                }
                let (owner, f) = self.project.field(self.project.class_of(id), n)?;
                Some(
                    self.project
                        .resolve_type(owner.0, Some(owner.1 as usize), &f.ty),
                )
            }
            _ => None,
        }
    }

    /// Is `e` a chain of this pipeline's type? `None` when its root cannot be told.
    pub fn is_pipeline(
        &self,
        id: MethodId,
        defs: &HashMap<String, (&str, &Expr)>,
        e: &Expr,
        depth: usize,
    ) -> Option<bool> {
        if depth > MAX_UPSTREAM_DEPTH {
            return None;
        }
        match e.peel() {
            Expr::Call(c) => {
                if let Some(r) = &c.recv
                    && self.is_type_name(id, defs, r)
                {
                    let t = self.resolve(id, &r.dotted()?);
                    return Some(
                        self.is_row_type(&t)
                            || self.row.factories.iter().any(|f| {
                                f.methods.contains(&c.name) && self.project.type_is(&t, &f.class)
                            }),
                    );
                }
                if !self.call_targets(id, defs, c).is_empty()
                    || self.row.chain_methods.contains(&c.name)
                {
                    return Some(true);
                }
                match &c.recv {
                    Some(r) if !matches!(r, Expr::This(_)) => {
                        self.is_pipeline(id, defs, r, depth + 1)
                    }
                    _ => None,
                }
            }
            Expr::Name(n, _) => {
                if let Some(t) = self.type_of(id, defs, e) {
                    return Some(self.is_row_type(&t));
                }
                let (_, init) = defs.get(n)?;
                self.is_pipeline(id, defs, init, depth + 1)
            }
            _ => None,
        }
    }

    /// Does the file import one of the pipeline's types (for chains whose root is unknown)?
    pub fn file_uses_types(&self, file: u32) -> bool {
        self.project.files[file as usize]
            .facts
            .imports
            .iter()
            .any(|i| {
                self.row.types.iter().any(|t| {
                    *t == i.path
                        || (i.wildcard && t.rsplit_once('.').map(|x| x.0) == Some(i.path.as_str()))
                })
            })
    }

    pub fn upstream(
        &self,
        id: MethodId,
        defs: &HashMap<String, (&str, &Expr)>,
        e: &Expr,
        depth: usize,
        out: &mut Vec<Part>,
    ) {
        if depth > MAX_UPSTREAM_DEPTH {
            return;
        }
        match e.peel() {
            Expr::Call(c) => {
                for (i, a) in c.args.iter().enumerate() {
                    self.deferred_arg(id, defs, c, i, a, depth, out);
                }
                if let Some(r) = &c.recv
                    && !self.is_type_name(id, defs, r)
                    && !matches!(r, Expr::This(_))
                {
                    self.upstream(id, defs, r, depth + 1, out);
                }
                for t in self.call_targets(id, defs, c) {
                    self.upstream_of_method(t, depth + 1, out);
                }
            }
            Expr::Name(n, _) => {
                if let Some((_, init)) = defs.get(n) {
                    self.upstream(id, defs, init, depth + 1, out);
                }
            }
            Expr::Ternary(_, a, b, _) => {
                self.upstream(id, defs, a, depth + 1, out);
                self.upstream(id, defs, b, depth + 1, out);
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn deferred_arg(
        &self,
        id: MethodId,
        defs: &HashMap<String, (&str, &Expr)>,
        c: &Call,
        i: usize,
        a: &Expr,
        depth: usize,
        out: &mut Vec<Part>,
    ) {
        if self
            .row
            .eager
            .iter()
            .any(|x| x.method == c.name && x.args.contains(&i))
        {
            return;
        }
        match a.peel() {
            Expr::Lambda(l) => out.push(Part::Scopes(id, vec![l.scope])),
            Expr::New(n) if !n.anon.is_empty() => {
                out.push(Part::Scopes(id, n.anon.iter().map(|x| x.scope).collect()))
            }
            Expr::MethodRef(r) => {
                let class = self.project.class_of(id);
                let targets = method_ref_targets(
                    self.project,
                    class,
                    r,
                    |e| self.type_of(id, defs, e),
                    |e| self.is_type_name(id, defs, e),
                );
                out.extend(targets.into_iter().map(Part::Whole));
            }
            Expr::Call(_) | Expr::Name(..)
                if self.is_pipeline(id, defs, a, depth + 1) == Some(true) =>
            {
                self.upstream(id, defs, a, depth + 1, out);
            }
            _ => {}
        }
    }

    fn upstream_of_method(&self, m: MethodId, depth: usize, out: &mut Vec<Part>) {
        let Some(body) = &self.project.method(m).body else {
            return;
        };
        let mut defs = HashMap::new();
        collect_defs(body, &mut defs);
        let mut rets = Vec::new();
        collect_returns(body, &mut rets);
        for r in rets {
            self.upstream(m, &defs, r, depth + 1, out);
        }
    }
}

/// The framework types a project class implements or extends, resolved, transitively.
fn implemented_types(
    project: &Project,
    c: crate::index::ClassRef,
) -> Vec<(TypeRef, crate::index::ClassRef)> {
    let mut out = Vec::new();
    for k in std::iter::once(c).chain(project.supertypes_of(c).iter().copied()) {
        for s in &project.class(k).supertypes {
            out.push((project.resolve_type(k.0, Some(k.1 as usize), s), k));
        }
    }
    out
}

/// Regions of framework types implemented in the project: methods of implementing classes,
/// and lambdas whose declared type is the framework type.
/// Only classes with a method for which `wanted` holds, and only such methods, are looked at.
pub fn implementation_regions(
    project: &Project,
    cat: &Catalogue,
    wanted: &dyn Fn(&MethodId) -> bool,
) -> Vec<Region> {
    let mut out = Vec::new();
    for row in &cat.regions.implementation {
        let is_row_type = |t: &TypeRef| row.supertypes.iter().any(|x| project.type_is(t, x));
        for fi in 0..project.files.len() {
            let facts = &project.files[fi].facts;
            for ci in 0..facts.classes.len() {
                let c = (fi as u32, ci as u32);
                if !project.methods_of(c).iter().any(wanted) {
                    continue;
                }
                // Methods the framework calls again, by name.
                let mut names: Vec<String> = Vec::new();
                for (t, _) in implemented_types(project, c) {
                    if is_row_type(&t) {
                        names.extend(row.methods.iter().cloned());
                    }
                    if let TypeRef::Project(k) = t {
                        let kc = project.class(k);
                        let annotated = kc.annotations.iter().any(|a| {
                            let at = project.resolve_type(k.0, Some(k.1 as usize), &a.name);
                            row.supertype_annotations
                                .iter()
                                .any(|x| project.type_is(&at, x))
                        });
                        if annotated {
                            if row.methods.iter().any(|m| m == "*") {
                                names.extend(
                                    project
                                        .methods_of(k)
                                        .iter()
                                        .map(|m| project.method(*m).name.clone()),
                                );
                            } else {
                                names.extend(row.methods.iter().cloned());
                            }
                        }
                    }
                }
                if names.is_empty() {
                    continue;
                }
                for m in project.methods_of(c) {
                    let mm = project.method(*m);
                    if mm.body.is_some() && !mm.is_ctor && names.contains(&mm.name) {
                        out.push(Region {
                            label: row.label.clone(),
                            owner: mm.name.clone(),
                            loc: Loc {
                                file: m.0,
                                span: mm.name_span,
                            },
                            scheduler: row.scheduler,
                            parts: vec![Part::Whole(*m)],
                        });
                    }
                }
            }
        }
        if row.supertypes.is_empty() {
            continue;
        }
        // Lambdas typed as the framework type: returned, held in a local, or in a field.
        for id in project.all_methods().filter(|m| wanted(m)) {
            let m = project.method(id);
            let class = project.class_of(id);
            let resolve = |ty: &str| project.resolve_type(id.0, Some(class.1 as usize), ty);
            let mut scopes = Vec::new();
            if let Some(body) = &m.body {
                if !m.ret.is_empty() && is_row_type(&resolve(&m.ret)) {
                    let mut rets = Vec::new();
                    collect_returns(body, &mut rets);
                    scopes.extend(rets.iter().filter_map(|e| lambda_scope(e)));
                }
                let mut defs = HashMap::new();
                collect_defs(body, &mut defs);
                let mut locals: Vec<_> = defs.values().collect();
                locals.sort_by_key(|(_, e)| e.span());
                for (ty, init) in locals {
                    if !ty.is_empty() && is_row_type(&resolve(ty)) {
                        scopes.extend(lambda_scope(init));
                    }
                }
            }
            if m.name == "<init>" {
                for f in &project.class(class).fields {
                    if let Some(init) = &f.init
                        && is_row_type(&resolve(&f.ty))
                    {
                        scopes.extend(lambda_scope(init));
                    }
                }
            }
            if !scopes.is_empty() {
                out.push(Region {
                    label: row.label.clone(),
                    owner: m.name.clone(),
                    loc: Loc {
                        file: id.0,
                        span: m.name_span,
                    },
                    scheduler: row.scheduler,
                    parts: vec![Part::Scopes(id, scopes)],
                });
            }
        }
    }
    out
}

fn lambda_scope(e: &Expr) -> Option<ScopeId> {
    match e.peel() {
        Expr::Lambda(l) => Some(l.scope),
        _ => None,
    }
}

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

/// One part per method: scopes of the same method are one region body (a value made in one
/// deferred stage and used in the next is within the region).
pub fn merge_parts(parts: Vec<Part>) -> Vec<Part> {
    let mut whole: Vec<MethodId> = Vec::new();
    let mut scopes: std::collections::BTreeMap<MethodId, Vec<ScopeId>> =
        std::collections::BTreeMap::new();
    for p in parts {
        match p {
            Part::Whole(m) => whole.push(m),
            Part::Scopes(m, s) => scopes.entry(m).or_default().extend(s),
        }
    }
    whole.sort();
    whole.dedup();
    let mut out: Vec<Part> = whole.iter().map(|m| Part::Whole(*m)).collect();
    for (m, mut s) in scopes {
        if whole.contains(&m) {
            continue;
        }
        s.sort();
        s.dedup();
        out.push(Part::Scopes(m, s));
    }
    out
}
