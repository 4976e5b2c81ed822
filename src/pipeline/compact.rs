//! Lowered facts without spare capacity. Lowering grows its vectors one push at a time, so they
//! end with up to twice the room they use, and every parsed file keeps its facts to the end of
//! the run: giving the room back is about a sixth of the peak memory of a full scan.

use crate::java::ir::{
    Annotation, Block, Class, Expr, FileFacts, LambdaBody, Method, Param, Scope, Stmt,
};

/// `facts` with every vector and string holding exactly what it uses.
pub(super) fn compact(facts: &mut FileFacts) {
    facts.imports.shrink_to_fit();
    facts.syntax_errors.shrink_to_fit();
    facts.recovered.shrink_to_fit();
    facts.directives.shrink_to_fit();
    facts.too_deep.shrink_to_fit();
    facts.classes.shrink_to_fit();
    facts.classes.iter_mut().for_each(class);
    facts.methods.shrink_to_fit();
    facts.methods.iter_mut().for_each(method);
}

fn class(c: &mut Class) {
    c.supertypes.shrink_to_fit();
    annotations(&mut c.annotations);
    c.fields.shrink_to_fit();
    for f in &mut c.fields {
        if let Some(e) = &mut f.init {
            expr(e);
        }
    }
}

fn method(m: &mut Method) {
    m.params.shrink_to_fit();
    m.params.iter_mut().for_each(param);
    annotations(&mut m.annotations);
    m.scopes.shrink_to_fit();
    m.scopes.iter_mut().for_each(scope);
    m.throws.shrink_to_fit();
    // A sealed body is held encoded, without spare room.
    if !m.body.is_sealed()
        && let Some(b) = m.body.get_mut()
    {
        block(b);
    }
}

fn param(p: &mut Param) {
    annotations(&mut p.annotations);
}

fn scope(s: &mut Scope) {
    s.params.shrink_to_fit();
}

fn annotations(v: &mut Vec<Annotation>) {
    v.shrink_to_fit();
    for a in v {
        a.args.shrink_to_fit();
        for (_, e) in &mut a.args {
            expr(e);
        }
    }
}

fn block(b: &mut Block) {
    b.shrink_to_fit();
    b.iter_mut().for_each(stmt);
}

fn exprs(v: &mut Vec<Expr>) {
    v.shrink_to_fit();
    v.iter_mut().for_each(expr);
}

fn stmt(s: &mut Stmt) {
    match s {
        Stmt::Local { init, .. } => {
            if let Some(e) = init {
                expr(e);
            }
        }
        Stmt::Expr(e) | Stmt::Throw(e) => expr(e),
        Stmt::If { cond, then, els } => {
            expr(cond);
            block(then);
            if let Some(b) = els {
                block(b);
            }
        }
        Stmt::Loop {
            head,
            cond,
            update,
            body,
            each,
            ..
        } => {
            block(head);
            if let Some(e) = cond {
                expr(e);
            }
            exprs(update);
            block(body);
            if let Some((_, _, e)) = each {
                expr(e);
            }
        }
        Stmt::Try {
            resources,
            body,
            catches,
            finally,
        } => {
            block(resources);
            block(body);
            catches.shrink_to_fit();
            for (_, b) in catches {
                block(b);
            }
            if let Some(b) = finally {
                block(b);
            }
        }
        Stmt::Return(e, _) => {
            if let Some(e) = e {
                expr(e);
            }
        }
        Stmt::Block(b) => block(b),
        Stmt::Break | Stmt::Continue | Stmt::Jump => {}
    }
}

fn expr(e: &mut Expr) {
    match e {
        Expr::Call(c) => {
            if let Some(r) = &mut c.recv {
                expr(r);
            }
            exprs(&mut c.args);
        }
        Expr::New(n) => {
            exprs(&mut n.args);
            n.anon.shrink_to_fit();
            for m in &mut n.anon {
                block(&mut m.body);
            }
        }
        Expr::Name(..) | Expr::This(_) | Expr::Str(..) | Expr::Lit(..) | Expr::Null(_) => {}
        Expr::Opaque(_) => {}
        Expr::Field(x, _, _) | Expr::Not(x, _) | Expr::Cast(_, x, _) => expr(x),
        Expr::Lambda(l) => match &mut l.body {
            LambdaBody::Expr(x) => expr(x),
            LambdaBody::Block(b) => block(b),
        },
        Expr::MethodRef(m) => expr(&mut m.recv),
        Expr::Assign(a) => {
            expr(&mut a.target);
            expr(&mut a.value);
        }
        Expr::Ternary(a, b, c, _) => {
            expr(a);
            expr(b);
            expr(c);
        }
        Expr::Binary(b) => {
            expr(&mut b.left);
            expr(&mut b.right);
        }
        Expr::Op(v, _) => exprs(v),
        Expr::Switch(x, arms, _) => {
            expr(x);
            arms.shrink_to_fit();
            arms.iter_mut().for_each(block);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"
package p;
import java.util.UUID;
@Service
class Payments {
    @Retryable(maxAttempts = 3)
    void pay(Order o, Client c) {
        String key = UUID.randomUUID().toString();
        for (int i = 0; i < 3; i++) { try { c.send(o, key); } catch (Exception e) { log(e); } }
        Runnable r = () -> { c.charge(key, o.amount() + 1); };
        new Thread(new Runnable() { public void run() { c.refund(key); } }).start();
        switch (o.kind()) { case A -> c.a(); default -> c.b(); }
    }
}
"#;

    #[test]
    fn compacting_keeps_the_facts_and_drops_the_spare_room() {
        let mut facts = crate::java::parse(SRC.as_bytes()).expect("a tree");
        let before = format!("{facts:?}");
        compact(&mut facts);
        assert_eq!(format!("{facts:?}"), before);
        let body = facts.methods[0].body().expect("a body");
        assert_eq!(body.capacity(), body.len());
        assert_eq!(facts.methods.capacity(), facts.methods.len());
    }
}
