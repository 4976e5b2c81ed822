//! The engine is generic: a tiny model of its own (not the catalogue) drives it.

use super::model::*;
use super::*;
use crate::semantic::{Project, SourceFile};

/// `Foo.bar()` is a random source, `send(x)` takes a key; nothing else is known.
struct TinyModel;

impl Factories for TinyModel {
    fn static_factory(&self, _: &dyn Fn(&str) -> bool, _: &str) -> Option<String> {
        None
    }
    fn instance_factory(&self, _: &str, _: &str) -> Option<String> {
        None
    }
}

impl Model for TinyModel {
    fn may_be_source(&self, method: &str) -> bool {
        method == "bar"
    }
    fn source(&self, call: &dyn Site) -> Option<SourceMatch<'_>> {
        (call.name() == "bar" && call.form() == Form::Static && call.receiver_is("Foo")).then_some(
            SourceMatch {
                kind: SourceKind::Random,
                row: "tiny.foo-bar",
            },
        )
    }
    fn parameter_source(&self, _: &[AnnotationUse<'_>]) -> Option<SourceMatch<'_>> {
        None
    }
    fn is_counter_increment(&self, _: &str) -> bool {
        false
    }
    fn recursion_row(&self) -> Option<&str> {
        None
    }
    fn is_failure_handler(&self, _: &str) -> bool {
        false
    }
    fn coarse_step(&self, _: &dyn Site) -> Option<&[SourceKind]> {
        None
    }
    fn key_sinks(&self, call: &dyn Site) -> Vec<KeySink<'_>> {
        if call.name() == "send" && call.form() != Form::New {
            vec![KeySink {
                name: None,
                arg: 0,
                row: "tiny.send",
            }]
        } else {
            Vec::new()
        }
    }
    fn stored_read(&self, _: &dyn Site) -> bool {
        false
    }
    fn returned_argument(&self, _: &dyn Site) -> Option<usize> {
        None
    }
    fn named_key(&self, _: &dyn Site) -> Option<NamedKey> {
        None
    }
    fn is_key_param(&self, _: &str) -> bool {
        false
    }
    fn is_key_header_param(&self, _: &AnnotationUse<'_>) -> bool {
        false
    }
    fn key_body_field(&self, _: &AnnotationUse<'_>) -> Option<String> {
        None
    }
    fn header_templates(&self, _: &dyn Fn(&str) -> bool) -> Vec<String> {
        Vec::new()
    }
    fn is_key_header_name(&self, _: &str) -> bool {
        false
    }
    fn is_key_carrier(&self, _: &dyn Fn(&str) -> bool) -> bool {
        false
    }
    fn check(&self, _: &str) -> Option<Check> {
        None
    }
    fn is_absent_fallback(&self, _: &str) -> bool {
        false
    }
    fn store(&self, _: &str, _: &dyn Fn(&str) -> bool) -> Option<StoreAccess> {
        None
    }
    fn compute_once(&self, _: &str) -> Option<ComputeOnce> {
        None
    }
    fn is_persist(&self, _: &str) -> bool {
        false
    }
    fn side_effect(&self, _: &dyn Site) -> Option<SideEffectMatch<'_>> {
        None
    }
    fn money_endpoint(&self, _: &str) -> Option<SideEffectMatch<'_>> {
        None
    }
    fn client_base_attributes(&self, _: &dyn Fn(&str) -> bool) -> Option<&[String]> {
        None
    }
    fn is_lock_wrapper(&self, _: &str) -> bool {
        false
    }
    fn is_claim(&self, _: &dyn Site) -> bool {
        false
    }
    fn claim_key(&self, _: &dyn Site) -> Option<usize> {
        None
    }
    fn is_entity_annotation(&self, _: &dyn Fn(&str) -> bool) -> bool {
        false
    }

    fn transaction(&self, _: &dyn Fn(&str) -> bool, _: Option<&str>) -> Option<Tx> {
        None
    }

    fn granted_events(&self) -> &[String] {
        &[]
    }
    fn lock_method(&self, _: &dyn Site) -> Option<bool> {
        None
    }
    fn is_lock_sql(&self, _: &str) -> bool {
        false
    }
    fn is_row_lock_sql(&self, _: &str) -> bool {
        false
    }
    fn is_row_lock_annotation(&self, _: &dyn Fn(&str) -> bool, _: &str) -> bool {
        false
    }
}

const SNIPPET: &str = r#"
package p;

import java.util.UUID;

class Payments {
    private final Gateway gateway;

    Payments(Gateway gateway) {
        this.gateway = gateway;
    }

    void pay() {
        String key = Foo.bar();
        gateway.send(key);
    }

    void payWithUuid() {
        gateway.send(UUID.randomUUID().toString());
    }

    void submit(String key) {
        gateway.send(key);
    }

    void payThroughHelper() {
        submit(Foo.bar());
    }
}
"#;

fn project() -> Project {
    let facts = crate::java::parse(SNIPPET.as_bytes()).expect("the snippet parses");
    Project::new(vec![SourceFile {
        path: "Payments.java".into(),
        facts,
    }])
}

fn method(p: &Project, name: &str) -> MethodId {
    p.all_methods()
        .find(|m| p.method(*m).name == name)
        .unwrap_or_else(|| panic!("method {name}"))
}

fn no_summaries(_: &Project) -> Summaries {
    Summaries::default()
}

/// (source label, source row, sink label, sink row) of each source-to-sink event.
fn events(flow: &MethodFlow) -> Vec<(String, String, String, String)> {
    flow.events
        .iter()
        .map(|e| {
            let s = &flow.sources[e.source as usize];
            let row = s.via.as_ref().map_or(&s.row, |d| &d.row);
            (
                s.label.clone(),
                row.clone(),
                e.sink.label.clone(),
                e.sink.row.clone(),
            )
        })
        .collect()
}

#[test]
fn a_tiny_model_makes_its_source_reach_its_sink() {
    let p = project();
    let sums = no_summaries(&p);
    let flow = analyze(&p, &TinyModel, &sums, method(&p, "pay"));
    assert_eq!(
        events(&flow),
        vec![(
            "Foo.bar()".to_string(),
            "tiny.foo-bar".to_string(),
            "send(…)".to_string(),
            "tiny.send".to_string()
        )]
    );
    assert_eq!(flow.sources[0].kind, SourceKind::Random);
    assert_eq!(flow.effects.len(), 1, "the key sink runs in `pay`");
    assert_eq!(flow.effects[0].row, "tiny.send");
}

#[test]
fn the_engine_knows_no_source_the_model_does_not_name() {
    let p = project();
    let sums = no_summaries(&p);
    let flow = analyze(&p, &TinyModel, &sums, method(&p, "payWithUuid"));
    assert!(
        flow.sources.is_empty(),
        "UUID.randomUUID() is not the tiny model's source"
    );
    assert!(flow.events.is_empty());
}

#[test]
fn a_tiny_models_sink_reaches_callers_through_summaries() {
    let p = project();
    let mut sums = no_summaries(&p);
    let submit = method(&p, "submit");
    let summary = analyze(&p, &TinyModel, &sums, submit).summary;
    let sink = summary
        .param_sinks
        .get(&ParamPath::Whole(0))
        .expect("parameter 0 of submit reaches send");
    assert_eq!(sink.row, "tiny.send");
    sums.set(submit, summary);
    let flow = analyze(&p, &TinyModel, &sums, method(&p, "payThroughHelper"));
    assert_eq!(
        events(&flow),
        vec![(
            "Foo.bar()".to_string(),
            "tiny.foo-bar".to_string(),
            "send(…)".to_string(),
            "tiny.send".to_string()
        )]
    );
}

/// Joining summaries (how a recursive cycle's members are updated) does not depend on the
/// order: two sources of the same kind keep the smaller, sets and flags are united, and
/// joining again changes nothing, so a cycle converges.
#[test]
fn summaries_join_in_any_order_and_settle() {
    let desc = |label: &str, start: u32| SourceDesc {
        kind: SourceKind::Random,
        row: String::new(),
        label: label.into(),
        loc: crate::semantic::Loc {
            file: 0,
            span: crate::java::ir::Span {
                start,
                end: start + 1,
            },
        },
        when: Vec::new(),
        committed: false,
    };
    let mut a = Summary::default();
    a.ret_sources
        .insert(SourceKind::Random, desc("newKey()", 40));
    a.ret_params.insert(ParamPath::Whole(0));
    let mut b = Summary::default();
    b.ret_sources
        .insert(SourceKind::Random, desc("UUID.randomUUID()", 10));
    b.ret_keyed = true;
    let mut ab = a.clone();
    ab.join(b.clone());
    let mut ba = b.clone();
    ba.join(a.clone());
    assert_eq!(ab, ba);
    assert_eq!(
        ab.ret_sources[&SourceKind::Random].label,
        "UUID.randomUUID()"
    );
    assert!(ab.ret_keyed && ab.ret_params.contains(&ParamPath::Whole(0)));
    let mut again = ab.clone();
    again.join(a);
    again.join(b);
    assert_eq!(again, ab);

    // A source made only under a test on a parameter keeps the test while every side has it,
    // and loses it once one side makes the value without it.
    let null_key = Cond {
        param: ParamPath::Whole(0),
        test: conds::Test::Null,
    };
    let guarded = |label: &str, start: u32| SourceDesc {
        when: vec![null_key.clone()],
        ..desc(label, start)
    };
    let mut c = Summary::default();
    c.field_sources
        .insert("key".into(), guarded("UUID.randomUUID()", 10));
    let mut d = Summary::default();
    d.field_sources
        .insert("key".into(), guarded("UUID.randomUUID()", 10));
    let mut cd = c.clone();
    cd.join(d);
    assert_eq!(cd.field_sources["key"].when, vec![null_key.clone()]);
    let mut e = Summary::default();
    e.field_sources.insert("key".into(), desc("newKey()", 40));
    let mut ce = c.clone();
    ce.join(e.clone());
    let mut ec = e;
    ec.join(c);
    assert_eq!(ce, ec);
    assert!(ce.field_sources["key"].when.is_empty());
    assert_eq!(ce.field_sources["key"].label, "UUID.randomUUID()");
}
