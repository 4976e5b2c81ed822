//! Call resolution as javac would bind it (SPEC §8), on small projects.

use super::{MethodId, Project, SourceFile, TypeRef};
use crate::java::ir::{Call, Expr};

fn project(files: &[(&str, &str)]) -> Project {
    Project::new(
        files
            .iter()
            .map(|(path, src)| SourceFile {
                path: path.to_string(),
                facts: crate::java::parse(src.as_bytes()).expect("parses"),
            })
            .collect(),
    )
}

fn call(name: &str, arity: usize) -> Call {
    let mut c: Call = match crate::java::parse(
        format!(
            "class Z {{ void z() {{ {name}({}); }} }}",
            vec!["1"; arity].join(",")
        )
        .as_bytes(),
    )
    .expect("parses")
    .methods[0]
        .body()
        .expect("body")[0]
        .clone()
    {
        crate::java::ir::Stmt::Expr(Expr::Call(c)) => *c,
        other => panic!("{other:?}"),
    };
    c.recv = None;
    c
}

fn class(p: &Project, fqn: &str) -> (u32, u32) {
    (0..p.files.len() as u32)
        .flat_map(|f| (0..p.files[f as usize].facts.classes.len() as u32).map(move |c| (f, c)))
        .find(|c| p.class(*c).fqn == fqn)
        .expect("class")
}

fn names(p: &Project, ms: &[MethodId]) -> Vec<String> {
    ms.iter()
        .map(|m| {
            let mm = p.method(*m);
            format!(
                "{}.{}/{}",
                p.class(p.class_of(*m)).name,
                mm.name,
                mm.params.len()
            )
        })
        .collect()
}

const SHAPES: &str = "package p; \
    class Base { String key() { return \"\"; } String key(int a) { return \"\"; } \
                 static String join(Object... xs) { return \"\"; } } \
    class Sub extends Base { String key() { return \"s\"; } } \
    class Other { String key() { return \"o\"; } } \
    class User { void run() {} \
      class Inner { void go() {} } }";

#[test]
fn by_static_type_arity_supertypes_and_overrides_in_subtypes() {
    let p = project(&[("p/A.java", SHAPES)]);
    let base = class(&p, "p.Base");
    let sub = class(&p, "p.Sub");
    let on = |c, name: &str, n| p.resolve_call(c, &call(name, n), Some(Some(TypeRef::Project(c))));
    assert_eq!(names(&p, &on(base, "key", 0)), ["Base.key/0", "Sub.key/0"]);
    assert_eq!(names(&p, &on(base, "key", 1)), ["Base.key/1"]);
    assert_eq!(names(&p, &on(sub, "key", 1)), ["Base.key/1"], "inherited");
    assert!(on(base, "key", 2).is_empty(), "no such arity");
    assert_eq!(
        names(&p, &on(base, "join", 0)),
        ["Base.join/1"],
        "varargs, none"
    );
    assert_eq!(
        names(&p, &on(base, "join", 3)),
        ["Base.join/1"],
        "varargs, three"
    );
}

#[test]
fn a_library_or_unresolved_receiver_is_never_matched_by_name() {
    let p = project(&[("p/A.java", SHAPES)]);
    let user = class(&p, "p.User");
    let c = call("join", 2);
    assert!(p.resolve_call(user, &c, Some(None)).is_empty());
    let unknown = Some(Some(TypeRef::Unknown("Optional".into())));
    assert!(p.resolve_call(user, &c, unknown).is_empty());
    let library = Some(Some(TypeRef::External("java.util.Optional".into())));
    assert!(p.resolve_call(user, &call("key", 0), library).is_empty());
}

#[test]
fn unqualified_calls_bind_in_enclosing_classes_then_static_imports() {
    let p = project(&[
        ("p/A.java", SHAPES),
        (
            "q/Q.java",
            "package q; import static p.Base.join; class Q { void m() {} \
             class N { void n() {} } }",
        ),
    ]);
    let inner = class(&p, "p.User.Inner");
    assert_eq!(
        names(&p, &p.resolve_call(inner, &call("run", 0), None)),
        ["User.run/0"]
    );
    let n = class(&p, "q.Q.N");
    assert_eq!(
        names(&p, &p.resolve_call(n, &call("m", 0), None)),
        ["Q.m/0"]
    );
    assert_eq!(
        names(&p, &p.resolve_call(n, &call("join", 2), None)),
        ["Base.join/1"]
    );
    assert!(p.resolve_call(n, &call("key", 0), None).is_empty());
}

#[test]
fn the_same_name_in_two_unrelated_modules_is_two_types() {
    let dir = std::env::temp_dir().join(format!("rl-resolution-{}", std::process::id()));
    for (m, deps) in [
        ("a", ""),
        ("b", ""),
        ("lib", ""),
        ("c", "project(\":lib\")"),
    ] {
        std::fs::create_dir_all(dir.join(m)).expect("mkdir");
        std::fs::write(
            dir.join(m).join("build.gradle.kts"),
            format!("dependencies {{ implementation({deps}) }}"),
        )
        .expect("write");
    }
    std::fs::write(
        dir.join("settings.gradle.kts"),
        "include(\"a\", \"b\", \"c\", \"lib\")",
    )
    .expect("write");
    let path = |m: &str, f: &str| dir.join(m).join(f).to_string_lossy().into_owned();
    let wallet = "package w; public class Wallet { void pay() {} }";
    let (pa, pb, pl, pc) = (
        path("a", "Wallet.java"),
        path("b", "Wallet.java"),
        path("lib", "Money.java"),
        path("c", "Use.java"),
    );
    let p = project(&[
        (&pa, wallet),
        (&pb, wallet),
        (&pl, "package m; public class Money {}"),
        (&pc, "package w; class Use { Wallet w; m.Money x; }"),
        (
            &path("a", "UseA.java"),
            "package w; class UseA { Wallet w; }",
        ),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    // Each module's own class.
    assert_eq!(
        p.resolve_type(4, Some(0), "Wallet"),
        TypeRef::Project((0, 0))
    );
    // A dependency's class.
    assert_eq!(
        p.resolve_type(3, Some(0), "m.Money"),
        TypeRef::Project((2, 0))
    );
    // Two candidates in unrelated modules: neither.
    assert!(!matches!(
        p.resolve_type(3, Some(0), "Wallet"),
        TypeRef::Project(_)
    ));
}

/// The initializer of field `name` of the first class of file `file`.
fn field_init(p: &Project, file: u32, name: &str) -> Expr {
    p.class((file, 0))
        .fields
        .iter()
        .find(|f| f.name == name)
        .and_then(|f| f.init.clone())
        .expect("initialised field")
}

#[test]
fn string_constants_built_by_concatenation_have_their_text() {
    let p = project(&[
        (
            "a/Headers.java",
            "package a; public interface Headers { String P = \"X-\"; String KEY = P + \"Idempotency-Key\"; String V2 = KEY + \"-\" + 2; }",
        ),
        (
            "b/Client.java",
            "package b; import static a.Headers.KEY; import a.Headers; class Client { static final String OWN = Headers.P + \"Dedup-Key\"; String k = KEY; String v = Headers.V2; String o = OWN; }",
        ),
        // A cycle does not compile, but must not hang or overflow.
        (
            "c/Loop.java",
            "package c; class Loop { static final String A = B + \"a\"; static final String B = A + \"b\"; String x = A; }",
        ),
    ]);
    let client = (1, 0);
    let value = |f: u32, c, n| p.constant(c, &field_init(&p, f, n));
    assert_eq!(value(1, client, "k").as_deref(), Some("X-Idempotency-Key"));
    assert_eq!(
        value(1, client, "v").as_deref(),
        Some("X-Idempotency-Key-2")
    );
    assert_eq!(value(1, client, "o").as_deref(), Some("X-Dedup-Key"));
    assert_eq!(value(2, (2, 0), "x"), None);
}
