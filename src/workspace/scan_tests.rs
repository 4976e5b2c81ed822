//! Tests of the byte scan (`scan.rs`).

use super::*;

#[test]
fn tree_words_are_read_as_the_scan_reads_the_file() {
    let words = TreeWords {
        enabling: vec![token_hash(b"reportBatchItemFailures")],
        declaring: vec![token_hash(b"SqsEventSource")],
    };
    let enabling = words.enabling.clone();
    let declaring = words.declaring.clone();
    // A license header before `package` is not read, by the scan nor by `in_file`.
    let header =
        "/* reportBatchItemFailures */\n// reportBatchItemFailures\npackage a;\nclass S {}\n";
    assert!(words.in_file("S.java", header.as_bytes()).is_empty());
    assert!(present(&scan(header).tokens, &enabling).is_empty());
    // An enabling word counts in code, a later comment and a unicode escape.
    for src in [
        "package a;\nclass S { void f(B b) { b.reportBatchItemFailures(true); } }\n",
        "package a;\n// reportBatchItemFailures(true) is set in the stack\nclass S {}\n",
        "package a;\nclass S { void f(B b) { b.report\\u0042atchItemFailures(true); } }\n",
    ] {
        assert_eq!(words.in_file("S.java", src.as_bytes()), enabling, "{src}");
        let tokens = scan(src).tokens;
        assert_eq!(
            words.found("S.java", &tokens, &|| Some(src.as_bytes().to_vec())),
            enabling
        );
    }
    // A declaring word counts in code and strings of a main source only.
    let code =
        "package a;\nclass S { Object f(Q q) { return new SqsEventSource(q, \"/* x\"); } }\n";
    assert_eq!(
        words.in_file("src/main/java/a/S.java", code.as_bytes()),
        declaring
    );
    assert!(
        words
            .in_file("svc/src/test/java/a/S.java", code.as_bytes())
            .is_empty()
    );
    for src in [
        "package a;\n/** Wired by an SqsEventSource elsewhere. */\nclass S {}\n",
        "package a;\nclass S { // new SqsEventSource(q)\n}\n",
        "package a;\nclass S { String s = \"//\"; /* SqsEventSource */ }\n",
    ] {
        assert!(words.in_file("S.java", src.as_bytes()).is_empty(), "{src}");
    }
    let text = "package a;\nclass S { String s = \"\"\"\n  SqsEventSource \"\n  \"\"\"; }\n";
    assert_eq!(words.in_file("S.java", text.as_bytes()), declaring);
    assert!(words.in_file("S.java", b"/* unclosed").is_empty());
    assert!(
        TreeWords::default()
            .in_file("S.java", b"package a; class S {}")
            .is_empty()
    );
}

/// Words in the shape of the built-in catalogue's.
fn scan(src: &str) -> Scan {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let (sinks, key_class) = (
        s(&["setIdempotencyKey"]),
        "com.squareup.square.models.CreatePaymentRequest.Builder".to_string(),
    );
    let (headers, contains, equals) = (
        s(&["Idempotency-Key", "PayPal-Request-Id"]),
        s(&["idempotenc", "dedup"]),
        s(&["clienttoken"]),
    );
    let classes = s(&["com.stripe.model.Charge", "com.stripe.model.Subscription"]);
    let create = "create".to_string();
    let words = EffectWords {
        sink_methods: sinks.iter().collect(),
        reported_annotations: Vec::new(),
        key_classes: vec![&key_class],
        header_names: &headers,
        literal_words: Vec::new(),
        param_contains: &contains,
        param_equals: &equals,
        side_effects: vec![SideEffectWords {
            classes: classes.iter().collect(),
            methods: vec![&create],
        }],
    };
    Scan::of(src.as_bytes(), &Needles::new(&words))
}

#[test]
fn package_declared_and_supers() {
    let s = scan(
        "/* c */ // x\npackage com.acme.pay ;\nimport a.B;\n@Ann public class Foo extends Bar<Baz> implements Qux { class Inner {} }",
    );
    assert_eq!(s.package.as_deref(), Some("com.acme.pay"));
    for n in ["Foo", "Inner"] {
        assert!(has(&s.declared, token_hash(n.as_bytes())), "{n}");
    }
    for n in ["Bar", "Baz", "Qux"] {
        assert!(has(&s.supers, token_hash(n.as_bytes())), "{n}");
    }
    assert!(!has(&s.supers, token_hash(b"Inner")));
    assert!(!s.effect);
    assert_eq!(scan("class A {}").package.as_deref(), Some(""));
    assert_eq!(scan("@Deprecated package a.b;").package, None);
}

#[test]
fn effect_words_are_found_however_written() {
    for src in [
        "h.header(\"idempotency_key\", k)",
        "b.setIdempotencyKey(k)",
        "void start(String IDEMPOTENCY_KEY) {}",
        "import com.stripe.model.Charge;",
        "Charge.create(p)",
        "new CreatePaymentRequest.Builder(a, b)",
        "static final String H = \"PayPal-Request-Id\";",
    ] {
        assert!(scan(src).effect, "{src}");
    }
    assert!(!scan("class A { void charge() { log.info(\"retry\"); } }").effect);
}

#[test]
fn class_names_in_strings_comments_or_qualified_do_not_count() {
    let code = unqualified_code_names(
        b"// Charge\n/* Refund */ String s = \"Payout \\\" Topup\"; char c = '\"'; Flow.Subscription x; Flow.@Nullable Refund z; Invoice y; \"\"\"\nTransfer\"\"\"",
    );
    for n in [
        "Charge",
        "Refund",
        "Payout",
        "Topup",
        "Subscription",
        "Transfer",
    ] {
        assert!(!has(&code, token_hash(n.as_bytes())), "{n}");
    }
    for n in ["String", "Flow", "Invoice", "x", "y"] {
        assert!(has(&code, token_hash(n.as_bytes())), "{n}");
    }
    assert!(!scan("class A { void f() { log(\"Charge failed\"); } }").effect);
    assert!(!scan("import java.util.concurrent.Flow; class A { Flow.Subscription s; void f() { create(); } }").effect);
    assert!(scan("class A { void f() { Subscription.create(p); } }").effect);
    // An import of another class by that name shadows it; an import of the class does not.
    let other = "import org.reactivestreams.Subscription;\nclass A { Subscription s; void f() { s.create(); } }";
    assert!(!scan(other).effect);
    let stripe =
        "import com.stripe.model.Subscription;\nclass A { void f() { Subscription.create(p); } }";
    assert!(scan(stripe).effect);
    // A declared type of that name shadows it too.
    assert!(!scan("class Subscription { void f() { Subscription.create(p); } }").effect);
}

#[test]
fn a_fully_qualified_class_in_code_counts_like_an_import() {
    let field = "package com.shop;\nclass Billing {\n  private final com.stripe.model.Subscription subs;\n  Object renew(Object p) { return subs.create(p); }\n}";
    let s = scan(field);
    assert!(s.effect);
    assert!(
        s.live.contains(&(token_hash(b"Subscription"), true)),
        "{:?}",
        s.live
    );
    // Spread over lines, and as the qualifier of a static call.
    let call = "class J { Object c(Object p) { return com.stripe.model\n    .Charge.create(p); } }";
    assert!(scan(call).live.contains(&(token_hash(b"Charge"), true)));
    // Not in a comment or a string, not another package's class, not a chain through a call.
    for other in [
        "class A { // com.stripe.model.Subscription\n Object x; }",
        "class A { String s = \"com.stripe.model.Subscription\"; }",
        "class A { org.acme.billing.Subscription s; }",
        "class A { Object x = com.stripe.model().Subscription; }",
    ] {
        assert!(scan(other).live.is_empty(), "{other}");
    }
    assert_eq!(
        dotted_code_names(b"a . b.c(x).d; /* e.f */ g.h"),
        vec!["a.b.c".to_string(), "g.h".to_string()]
    );
}

#[test]
fn package_filter() {
    assert!(in_package("com.a.B", &Some("com.a".into())));
    assert!(in_package("com.a.B.C", &Some("com.a".into())));
    assert!(!in_package("com.ab.B", &Some("com.a".into())));
    assert!(!in_package("java.util.List", &Some("com.a".into())));
    assert!(in_package("java.util.List", &None));
}
