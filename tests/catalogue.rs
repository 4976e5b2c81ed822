//! The catalogue on the command line: rows listed by id, rows disabled by id (`--disable-row`,
//! `[catalogue] disable`), users' rows in the built-in shape, and the prefilter's words.

use assert_cmd::Command;
use retrylint::catalogue::Catalogue;
use retrylint::scope::{Needles, Scan};

fn retrylint() -> Command {
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// A payment service as teams write it: a `@Retryable` charge keyed with a fresh UUID, and a
/// refund keyed through a PayPal-style header with the clock.
const PAYMENTS: &str = r#"package com.shop.payments;

import java.util.UUID;
import org.springframework.http.HttpHeaders;
import org.springframework.retry.annotation.Retryable;
import com.stripe.param.PaymentIntentCreateParams;
import com.stripe.net.RequestOptions;

public class PaymentGateway {

    @Retryable(maxAttempts = 3)
    public RequestOptions chargeOptions() {
        return RequestOptions.builder()
                .setIdempotencyKey(UUID.randomUUID().toString())
                .build();
    }

    @Retryable(maxAttempts = 3)
    public void refund(HttpHeaders headers) {
        headers.set("PayPal-Request-Id", "refund-" + System.currentTimeMillis());
    }
}
"#;

fn project(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join("PaymentGateway.java"), PAYMENTS).unwrap();
    if let Some(c) = config {
        std::fs::write(dir.path().join("retrylint.toml"), c).unwrap();
    }
    dir
}

/// Exit code, `rule:line` of each finding, and the JSON report.
fn check(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, Vec<String>, serde_json::Value) {
    let out = retrylint()
        .current_dir(dir)
        .args(["check", "--no-cache", "--format", "json"])
        .args(args)
        .arg(".")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("{}", String::from_utf8_lossy(&out.stderr));
    });
    let found = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}:{}", f["rule"].as_str().unwrap(), f["line"]))
        .collect();
    (out.status.code(), found, v)
}

#[test]
fn disable_row_drops_the_findings_of_that_row_only() {
    let dir = project(None);
    let (code, found, v) = check(dir.path(), &[]);
    assert_eq!(
        (code, found),
        (Some(1), vec!["RL001:14".into(), "RL002:20".into()])
    );
    assert!(v["summary"]["config"].is_null());

    let (code, found, v) = check(dir.path(), &["--disable-row", "source.uuid-random"]);
    assert_eq!((code, found), (Some(1), vec!["RL002:20".into()]));
    assert_eq!(
        v["summary"]["config"]["rows_disabled"],
        serde_json::json!(["source.uuid-random"])
    );
    assert_eq!(v["summary"]["config"]["path"], "");

    let (code, found, _) = check(
        dir.path(),
        &[
            "--disable-row",
            "sink.paypal-request-id-header",
            "--disable-row",
            "sink.idempotency-key-setter",
        ],
    );
    assert_eq!((code, found), (Some(0), Vec::<String>::new()));
}

#[test]
fn config_disable_is_applied_and_shown_in_every_format() {
    let dir = project(Some(
        "[catalogue]\ndisable = [\"sink.paypal-request-id-header\"]\n",
    ));
    let (code, found, v) = check(dir.path(), &[]);
    assert_eq!((code, found), (Some(1), vec!["RL001:14".into()]));
    let config = &v["summary"]["config"];
    assert_eq!(config["path"], "retrylint.toml");
    assert_eq!(
        config["rows_disabled"],
        serde_json::json!(["sink.paypal-request-id-header"])
    );
    // The command line adds to the file's list.
    let (_, found, v) = check(dir.path(), &["--disable-row", "source.uuid-random"]);
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(
        v["summary"]["config"]["rows_disabled"],
        serde_json::json!(["sink.paypal-request-id-header", "source.uuid-random"])
    );
    let sarif = retrylint()
        .current_dir(dir.path())
        .args(["check", "--no-cache", "--format", "sarif", "."])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    assert_eq!(
        s["runs"][0]["invocations"][0]["properties"]["configuration"]["rows_disabled"],
        serde_json::json!(["sink.paypal-request-id-header"])
    );
    let text = retrylint()
        .current_dir(dir.path())
        .args(["check", "--no-cache", "."])
        .output()
        .unwrap();
    let out = String::from_utf8(text.stdout).unwrap();
    assert!(
        out.contains(
            "settings from retrylint.toml (catalogue row sink.paypal-request-id-header off)"
        ),
        "{out}"
    );
}

#[test]
fn an_unknown_row_is_a_run_error_that_suggests_the_nearest() {
    let dir = project(None);
    let out = retrylint()
        .current_dir(dir.path())
        .args([
            "check",
            "--no-cache",
            "--disable-row",
            "source.uuid-randon",
            ".",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: unknown catalogue row `source.uuid-randon` (--disable-row); did you mean `source.uuid-random`? (see `retrylint catalogue`)\n"
    );
    let dir = project(Some("[catalogue]\ndisable = [\"rl001\"]\n"));
    let out = retrylint()
        .current_dir(dir.path())
        .args(["check", "--no-cache", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: unknown catalogue row `rl001` ([catalogue] disable in retrylint.toml); `retrylint catalogue` lists the row ids\n"
    );
}

#[test]
fn users_rows_in_the_config_use_the_built_in_shape() {
    let rows = "[[sinks.method]]\nid = \"sink.acme-dedup-token\"\nnames = [\"withDedupToken\"]\n";
    let java = "package a;\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nclass Acme {\n  @Retryable\n  void pay(Req r) {\n    r.withDedupToken(UUID.randomUUID().toString());\n  }\n}\n";
    let dir = project(Some(rows));
    std::fs::write(dir.path().join("Acme.java"), java).unwrap();
    let (code, found, v) = check(
        dir.path(),
        &["--disable-row", "sink.paypal-request-id-header"],
    );
    assert_eq!(
        (code, found),
        (Some(1), vec!["RL001:7".into(), "RL001:14".into()])
    );
    assert_eq!(v["summary"]["config"]["catalogue_rows"], true);
    // A user's row can be disabled like a built-in one.
    let (_, found, _) = check(
        dir.path(),
        &[
            "--disable-row",
            "sink.acme-dedup-token",
            "--disable-row",
            "sink.paypal-request-id-header",
        ],
    );
    assert_eq!(found, vec!["RL001:14".to_string()]);
    // Reusing a built-in id is an error naming the file and the id.
    let dir = project(Some(
        "[[sinks.header]]\nid = \"sink.paypal-request-id-header\"\nnames = [\"X-Acme\"]\n",
    ));
    let out = retrylint()
        .current_dir(dir.path())
        .args(["check", "--no-cache", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: bad catalogue file retrylint.toml: row id `sink.paypal-request-id-header` is already used by a row of rules/sinks.toml\n"
    );
}

#[test]
fn an_old_shape_file_fails_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.toml");
    std::fs::write(
        &old,
        "# before row ids\n[sinks]\nmethods = [\"withDedupToken\"]\n",
    )
    .unwrap();
    let out = retrylint()
        .args([
            "check",
            "--no-cache",
            "--catalogue",
            old.to_str().unwrap(),
            "fixtures/spring_retry/RetryableUuidSafe.java",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!(
            "error: bad catalogue file {}:3:1: unknown field `methods`, expected one of `method`, `header`",
            old.display()
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn the_listing_names_every_row() {
    let out = retrylint()
        .args(["catalogue", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), Catalogue::builtin().rows().len());
    let uuid = rows
        .iter()
        .find(|r| r["id"] == "source.uuid-random")
        .unwrap();
    assert_eq!(uuid["table"], "sources.source");
    assert_eq!(uuid["label"], "random: randomUUID of UUID");
    assert_eq!(uuid["file"], "rules/sources.toml");
    let out = retrylint()
        .args(["catalogue", "--catalogue", "tests/data/acme-catalogue.toml"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("sink.acme-dedup-token "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("sinks.method") && line.ends_with("argument 0 of withDedupToken"),
        "{line}"
    );
}

/// The prefilter's words come from the compiled catalogue: a user's sink row adds its words, and
/// a disabled row's words go with it.
#[test]
fn the_prefilters_words_follow_the_compiled_catalogue() {
    let src = b"class A { void f(Req r, String k) { r.withAcmeToken(k); } }";
    let builtin = Needles::new(&Catalogue::builtin().effect_words());
    assert!(!Scan::of(src, &builtin).effect);
    let rows = vec![(
        "acme.toml".to_string(),
        "[[sinks.method]]\nid = \"sink.acme\"\nnames = [\"withAcmeToken\"]\n".to_string(),
    )];
    let with = Catalogue::compile(&rows, &[]).unwrap();
    let needles = Needles::new(&with.effect_words());
    assert!(Scan::of(src, &needles).effect);
    assert_ne!(needles.fingerprint, builtin.fingerprint);

    let header = b"class B { void f(H h, String k) { h.set(\"PayPal-Request-Id\", k); } }";
    assert!(Scan::of(header, &builtin).effect);
    let off = [(
        "sink.paypal-request-id-header".to_string(),
        "test".to_string(),
    )];
    let without = Catalogue::compile(&[], &off).unwrap();
    assert!(!Scan::of(header, &Needles::new(&without.effect_words())).effect);
}
