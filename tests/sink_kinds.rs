//! A sink is named for what it is (SPEC 2, 5): a header, or a body field for a map entry or JSON
//! field of a request body; a logging context is no sink at all.

use assert_cmd::Command;

fn sink_messages(path: &str) -> Vec<(String, u64, String)> {
    let out = Command::cargo_bin("retrylint")
        .unwrap()
        .env("NO_COLOR", "1")
        .args([
            "check",
            "--no-cache",
            "--format",
            "json",
            "--exit-zero",
            path,
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut all = Vec::new();
    for f in v["findings"].as_array().unwrap() {
        for s in f["sinks"].as_array().unwrap() {
            let file = s["path"].as_str().unwrap();
            all.push((
                file.rsplit('/').next().unwrap().to_string(),
                s["line"].as_u64().unwrap(),
                s["message"].as_str().unwrap().to_string(),
            ));
        }
    }
    all.sort();
    all
}

#[test]
fn map_entries_of_a_body_are_body_fields_and_headers_are_headers() {
    let all = sink_messages("fixtures/sinks/key_names");
    let has = |file: &str, line: u64, text: &str| {
        all.iter()
            .any(|(f, l, m)| f == file && *l == line && m.ends_with(text))
    };
    let (body, names) = ("LoggingAndBodyFields.java", "ProviderKeyNames.java");
    assert!(has(body, 54, "body field `idempotency_key`"), "{all:?}");
    assert!(has(body, 65, "body field `idempotencyKey`"), "{all:?}");
    assert!(has(names, 33, "the `Idempotence-Key` header"), "{all:?}");
    assert!(
        has(names, 43, "the `chargebee-idempotency-key` header"),
        "{all:?}"
    );
    // `Map.of("Message-Deduplication-Id", …)`: a name written as a header is a header.
    assert!(
        has(names, 80, "the `Message-Deduplication-Id` header"),
        "{all:?}"
    );
    // The logging context and the span of `transferLogged` give no sink.
    assert!(
        !all.iter()
            .any(|(f, l, _)| f == body && (34..=44).contains(l)),
        "{all:?}"
    );
}

#[test]
fn a_form_in_a_general_map_holds_body_fields_and_a_header_map_headers() {
    let all = sink_messages("fixtures/sinks/key_names");
    let has = |line: u64, text: &str| {
        all.iter()
            .any(|(f, l, m)| f == "FormBodyFields.java" && *l == line && m.ends_with(text))
    };
    // `form.add("idempotency_key", …)` into the body of an `HttpEntity`: a body field.
    assert!(has(32, "body field `idempotency_key`"), "{all:?}");
    assert!(has(43, "body field `idempotencyKey`"), "{all:?}");
    // A `MultiValueMap` of headers, its name written as a header's.
    assert!(has(51, "the `Idempotency-Key` header"), "{all:?}");
}
