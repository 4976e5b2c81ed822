//! The call graph on small projects: edges by the receiver's static type (SPEC §8), in lambda
//! bodies, through method references and constructors, never to a project method by name alone.

use super::callgraph::{CallGraph, callees};
use super::typer::NoFactories;
use super::{MethodId, Project, SourceFile};

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

/// The method `Class.name` (the first of that name).
fn method(p: &Project, class: &str, name: &str) -> MethodId {
    p.all_methods()
        .find(|m| p.method(*m).name == name && p.class(p.class_of(*m)).name == class)
        .unwrap_or_else(|| panic!("no {class}.{name}"))
}

/// The callees of `Class.name` as `Class.name/arity`, sorted.
fn called(p: &Project, class: &str, name: &str) -> Vec<String> {
    let mut v: Vec<String> = callees(p, &NoFactories, method(p, class, name))
        .iter()
        .map(|(_, m)| {
            let mm = p.method(*m);
            format!(
                "{}.{}/{}",
                p.class(p.class_of(*m)).name,
                mm.name,
                mm.params.len()
            )
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn a_call_on_a_field_of_a_project_type() {
    let p = project(&[(
        "p/Svc.java",
        "package p; \
         class Repo { void load() {} void load(int a) {} } \
         class Other { void load() {} } \
         class Svc { private final Repo repo = new Repo(); void run() { repo.load(); } }",
    )]);
    assert_eq!(called(&p, "Svc", "run"), ["Repo.load/0"]);
}

#[test]
fn an_interface_call_reaches_both_project_implementations() {
    let p = project(&[(
        "p/Pay.java",
        "package p; \
         interface Gateway { String charge(String key); } \
         class StripeGateway implements Gateway { public String charge(String key) { return key; } } \
         class AdyenGateway implements Gateway { public String charge(String key) { return key; } } \
         class Payments { Gateway gateway; String pay(String k) { return gateway.charge(k); } }",
    )]);
    assert_eq!(
        called(&p, "Payments", "pay"),
        [
            "AdyenGateway.charge/1",
            "Gateway.charge/1",
            "StripeGateway.charge/1"
        ]
    );
}

#[test]
fn a_library_receiver_is_never_matched_by_name() {
    let p = project(&[(
        "p/Batch.java",
        "package p; import java.util.List; import java.util.ArrayList; \
         class Batch { \
           void add(Object o) {} \
           void size() {} \
           void fill(List<String> xs) { xs.add(\"a\"); xs.size(); new ArrayList<String>().add(\"b\"); } }",
    )]);
    assert!(called(&p, "Batch", "fill").is_empty());
}

#[test]
fn optional_map_is_not_a_project_map_of_varargs() {
    let p = project(&[(
        "p/Dao.java",
        "package p; import java.util.Map; import java.util.Optional; \
         class Dao { \
           private static Map<String, Object> map(Object... entries) { return null; } \
           Optional<String> find(String id) { return Optional.of(id); } \
           String load(String id) { return find(id).map(x -> x.trim()).orElse(null); } \
           Map<String, Object> row(String id) { return map(\"id\", id); } }",
    )]);
    assert_eq!(called(&p, "Dao", "load"), ["Dao.find/1"]);
    assert_eq!(
        called(&p, "Dao", "row"),
        ["Dao.map/1"],
        "an unqualified call does reach it"
    );
}

#[test]
fn a_method_reference_and_a_lambda_body_are_edges_in_their_scopes() {
    let p = project(&[(
        "p/Jobs.java",
        "package p; import java.util.List; \
         class Keys { String next() { return \"\"; } } \
         class Jobs { \
           private final Keys keys = new Keys(); \
           void handle(String s) {} \
           void run(List<String> items) { \
             items.forEach(this::handle); \
             Runnable r = () -> { String k = keys.next(); }; \
             r.run(); } }",
    )]);
    let run = method(&p, "Jobs", "run");
    let edges = callees(&p, &NoFactories, run);
    let handle = method(&p, "Jobs", "handle");
    let next = method(&p, "Keys", "next");
    let scope_of = |m| edges.iter().find(|(_, c)| *c == m).map(|(s, _)| *s);
    assert_eq!(
        scope_of(handle),
        Some(0),
        "the reference is evaluated in the body"
    );
    let lambda = scope_of(next).expect("the lambda's call is an edge");
    assert_ne!(lambda, 0, "in the lambda's own scope");
    assert_eq!(edges.len(), 2, "Runnable.run is a library call: {edges:?}");
}

#[test]
fn a_constructor_call_reaches_the_constructor_of_its_arity() {
    let p = project(&[(
        "p/Order.java",
        "package p; \
         class Order { final String id; \
           Order() { this(\"x\"); } \
           Order(String id) { this.id = id; } } \
         class Shop { Order make(String id) { return new Order(id); } }",
    )]);
    let edges = callees(&p, &NoFactories, method(&p, "Shop", "make"));
    assert_eq!(edges.len(), 1, "{edges:?}");
    let ctor = p.method(edges[0].1);
    assert!(ctor.is_ctor);
    assert_eq!(ctor.params.len(), 1);
}

#[test]
fn a_local_is_typed_from_its_declaration_in_a_loop_and_a_lambda_parameter_hides_it() {
    let p = project(&[(
        "p/Loop.java",
        "package p; import java.util.List; \
         class Client { void send() {} } \
         class Loop { \
           void go(List<String> xs) { \
             for (String x : xs) { Client c = new Client(); c.send(); } } \
           void hidden(List<Client> cs) { \
             Client c = new Client(); cs.forEach(c -> c.send()); } }",
    )]);
    assert!(called(&p, "Loop", "go").contains(&"Client.send/0".to_string()));
    // `c` in the lambda is an untyped parameter: its call cannot be resolved, as in the
    // interpreter (a parameter typed by inference is not modelled).
    assert!(!called(&p, "Loop", "hidden").contains(&"Client.send/0".to_string()));
}

#[test]
fn the_graph_holds_only_the_methods_reached_from_its_roots() {
    let mut p = project(&[(
        "p/R.java",
        "package p; \
         class A { void a() { b(); } void b() { c(); } void c() { b(); } void unrelated() { a(); } }",
    )]);
    let a = method(&p, "A", "a");
    let g = CallGraph::reached_from(&mut p, &NoFactories, [a]);
    let names: Vec<String> = g
        .methods()
        .iter()
        .map(|m| p.method(*m).name.to_string())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    let b = method(&p, "A", "b");
    let c = method(&p, "A", "c");
    assert!(g.has_edge(c, 0, b), "recursion is kept");
    assert!(g.edges(method(&p, "A", "unrelated")).is_empty());
    assert_eq!(g.callee_lists()[&b], [c]);
}

/// A call on `this` or on a field typed as a base class that many classes extend reaches the
/// overrides in every subtype, and only those (the subtypes are searched by the method's name
/// once there are many of them, in which case methods of the same name in unrelated classes
/// and constructors must stay out), with the arity checked; so does a method reference, of
/// any arity.
#[test]
fn overrides_in_many_subtypes_are_found_by_name() {
    let mut src = String::from(
        "package p; \
         abstract class Base { void handle(Object e) {} void other() {} \
           void run(Object e) { handle(e); } } \
         class Unrelated { void handle(Object e) {} } \
         class Svc { private final Base base = null; \
           void call(Object e) { base.handle(e); } \
           void refer(java.util.List<Object> xs) { xs.forEach(base::handle); } } ",
    );
    for i in 0..40 {
        // Every third subtype overrides `handle`, every fifth has a `handle` of another arity,
        // every seventh is one level further down.
        let parent = if i % 7 == 6 {
            format!("Sub{}", i - 1)
        } else {
            "Base".to_string()
        };
        src.push_str(&format!("class Sub{i} extends {parent} {{ "));
        if i % 3 == 0 {
            src.push_str("@Override void handle(Object e) {} ");
        }
        if i % 5 == 0 {
            src.push_str("void handle(Object e, int n) {} ");
        }
        src.push_str(&format!("Sub{i}() {{}} }} "));
    }
    let p = project(&[("p/All.java", &src)]);
    let mut want: Vec<String> = (0..40)
        .filter(|i| i % 3 == 0)
        .map(|i| format!("Sub{i}.handle/1"))
        .chain(["Base.handle/1".to_string()])
        .collect();
    want.sort();
    assert_eq!(called(&p, "Base", "run"), want);
    assert_eq!(called(&p, "Svc", "call"), want);
    // A method reference is not matched by arity.
    let refs: Vec<String> = called(&p, "Svc", "refer")
        .into_iter()
        .filter(|c| c.contains(".handle/"))
        .collect();
    want.extend(
        (0..40)
            .filter(|i| i % 5 == 0)
            .map(|i| format!("Sub{i}.handle/2")),
    );
    want.sort();
    assert_eq!(refs, want);
}
