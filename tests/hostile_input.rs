//! Issue 15, the engine side: Java crafted to hide a key from the analysis (unicode escapes,
//! deep nesting, long recursive cycles) is analysed as javac reads it, or the loss is reported.

use assert_cmd::Command;
use std::path::Path;

fn retrylint(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .arg("check")
        .arg("--no-cache")
        .timeout(std::time::Duration::from_secs(120));
    c
}

fn json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = retrylint(dir)
        .args(["--format", "json"])
        .args(args)
        .arg(".")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no JSON: {err}"))
}

/// `path:line:column:rule` of every finding.
fn found(v: &serde_json::Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{}:{}",
                f["path"].as_str().unwrap(),
                f["line"],
                f["column"],
                f["rule"].as_str().unwrap()
            )
        })
        .collect()
}

fn billing(body: &str) -> String {
    format!(
        "package acme;\n\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\n\npublic class Billing {{\n    @Retryable\n    public void charge(Gateway gateway) {{\n        String key = \"order-\" + gateway.orderId();\n{body}        gateway.setIdempotencyKey(key);\n    }}\n}}\n"
    )
}

fn scan_one(name: &str, text: &str) -> serde_json::Value {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(name), text).unwrap();
    json(d.path(), &[])
}

#[test]
fn a_key_hidden_behind_a_unicode_line_break_in_a_comment_is_found_at_its_raw_line() {
    // javac reads `\u000a` as a line break: the rest of the comment is code.
    let v = scan_one(
        "Billing.java",
        &billing("        // normalize \\u000a key = UUID.randomUUID().toString();\n"),
    );
    assert_eq!(found(&v), ["Billing.java:10:35:RL001"], "{v}");
    // Without the escape it is a comment and the key is stable.
    let v = scan_one(
        "Billing.java",
        &billing("        // normalize \\n key = UUID.randomUUID().toString();\n"),
    );
    assert_eq!(found(&v), Vec::<String>::new(), "{v}");
}

#[test]
fn a_name_written_with_escapes_is_read_and_its_columns_are_those_of_the_file() {
    let v = scan_one(
        "Billing.java",
        &billing("        key = UUID.rand\\u006fmUUID().toString(); String s = \"\\u0041\";\n"),
    );
    assert_eq!(found(&v), ["Billing.java:10:15:RL001"], "{v}");
    let f = &v["findings"][0];
    assert_eq!(f["end_column"], 37, "{v}");
    assert_eq!(f["sinks"][0]["line"], 11, "{v}");
    assert_eq!(f["sinks"][0]["column"], 17, "{v}");
}

#[test]
fn an_escape_in_a_string_changes_nothing_and_an_escaped_backslash_is_no_escape() {
    // `"\u0041"` is the string `A`; `\\u000a` is a backslash and the text `u000a`.
    for body in [
        "        String s = \"\\u0041\";\n",
        "        // normalize \\\\u000a key = UUID.randomUUID().toString();\n",
    ] {
        let v = scan_one("Billing.java", &billing(body));
        assert_eq!(found(&v), Vec::<String>::new(), "{body}: {v}");
    }
    let v = scan_one(
        "Billing.java",
        &billing("        String s = \"\\u0041\";\n        key = UUID.randomUUID().toString();\n"),
    );
    assert_eq!(found(&v), ["Billing.java:11:15:RL001"], "{v}");
}

#[test]
fn a_malformed_escape_is_a_syntax_warning_and_the_rest_is_analysed() {
    let v = scan_one(
        "Billing.java",
        &billing("        // see \\uZZ\n        key = UUID.randomUUID().toString();\n"),
    );
    assert_eq!(found(&v), ["Billing.java:11:15:RL001"], "{v}");
    let e = &v["errors"][0];
    assert_eq!(e["kind"], "syntax", "{v}");
    assert_eq!(e["line"], 10, "{v}");
}

#[test]
fn the_prefilter_does_not_skip_a_file_whose_key_is_written_with_escapes() {
    // The sink and the source are in a helper of another file, written only with escapes.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("Billing.java"),
        "package acme;\n\nimport org.springframework.retry.annotation.Retryable;\n\npublic class Billing {\n    @Retryable\n    public void charge(Gateway gateway) {\n        Keys.stamp(gateway);\n    }\n}\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("Keys.java"),
        "package acme;\n\nclass Keys {\n    static void stamp(Gateway g) {\n        g.set\\u0049dempotencyKey(java.util.UUID.rand\\u006fmUUID().toString());\n    }\n}\n",
    )
    .unwrap();
    for args in [&[][..], &["--no-prefilter"]] {
        let v = json(d.path(), args);
        assert_eq!(found(&v), ["Keys.java:5:34:RL001"], "{args:?}: {v}");
    }
}

fn errors_of_kind<'a>(v: &'a serde_json::Value, kind: &str) -> Vec<&'a serde_json::Value> {
    v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == kind)
        .collect()
}

#[test]
fn code_nested_past_the_depth_cap_is_reported_as_incomplete_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    let mut body = String::new();
    for i in 0..120 {
        body.push_str(&format!(
            "{}if (gateway.attempt() > {i}) {{\n",
            " ".repeat(8)
        ));
    }
    body.push_str("        key = UUID.randomUUID().toString();\n");
    body.push_str(&"        }\n".repeat(120));
    std::fs::write(d.path().join("Billing.java"), billing(&body)).unwrap();
    let v = json(d.path(), &[]);
    let cut = errors_of_kind(&v, "incomplete");
    assert_eq!(cut.len(), 1, "{v}");
    assert_eq!(cut[0]["path"], "Billing.java");
    assert_eq!(cut[0]["severity"], "warning");
    assert!(
        cut[0]["message"]
            .as_str()
            .unwrap()
            .contains("nested more than"),
        "{v}"
    );
    let line = cut[0]["line"].as_u64().unwrap();
    assert!((10..=130).contains(&line), "{v}");
    assert_eq!(v["summary"]["incomplete"], 1, "{v}");

    sarif_and_text_report_one_cut(d.path(), &|t: &str| t.contains("nested more than"));
}

#[test]
fn a_cycle_cut_at_its_round_bound_is_reported_as_incomplete_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    let n = 300;
    let params: Vec<String> = (1..=n).map(|i| format!("String p{i}")).collect();
    let rotated: Vec<String> = (2..=n).chain([1]).map(|i| format!("p{i}")).collect();
    let mut args = vec!["\"x\"".to_string(); n - 1];
    args.push("UUID.randomUUID().toString()".into());
    let src = format!(
        "package shop;\nimport java.util.UUID;\n\
         import org.springframework.retry.annotation.Retryable;\n\
         import com.stripe.net.RequestOptions;\n\
         public class Rotate {{\n    @Retryable\n    public void pay() {{ step({}, 0); }}\n\
             void step({}, int d) {{\n\
                 if (d > 100) {{ RequestOptions.builder().setIdempotencyKey(p1).build(); return; }}\n\
                 step({}, d + 1);\n    }}\n}}\n",
        args.join(", "),
        params.join(", "),
        rotated.join(", ")
    );
    std::fs::write(d.path().join("Rotate.java"), src).unwrap();
    let v = json(d.path(), &[]);
    let cut = errors_of_kind(&v, "incomplete");
    assert_eq!(cut.len(), 1, "{v}");
    assert_eq!(cut[0]["path"], "Rotate.java");
    let says = |t: &str| t.contains("did not converge") && t.contains("`step`");
    assert!(says(cut[0]["message"].as_str().unwrap()), "{v}");
    assert_eq!(v["summary"]["incomplete"], 1, "{v}");

    sarif_and_text_report_one_cut(d.path(), &says);
}

/// The SARIF report (with `--fail-on-incomplete`: exit 2) counts one incomplete place and its
/// notification `says` why; so does the text report.
fn sarif_and_text_report_one_cut(dir: &std::path::Path, says: &dyn Fn(&str) -> bool) {
    let out = retrylint(dir)
        .args(["--format", "sarif", "--fail-on-incomplete", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let inv = &s["runs"][0]["invocations"][0];
    assert_eq!(inv["properties"]["incomplete"], 1, "{s}");
    let note = inv["toolExecutionNotifications"][0]["message"]["text"].as_str();
    assert!(says(note.unwrap()), "{s}");
    let out = retrylint(dir).arg(".").output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(says(&text) && text.contains("incomplete"), "{text}");
}

#[test]
fn shallow_code_reports_no_depth_cut() {
    let v = scan_one(
        "Billing.java",
        &billing(
            "        if (gateway.attempt() > 1) {\n            key = UUID.randomUUID().toString();\n        }\n",
        ),
    );
    assert_eq!(found(&v), ["Billing.java:11:19:RL001"], "{v}");
    assert!(errors_of_kind(&v, "incomplete").is_empty(), "{v}");
}

/// A class whose `@Retryable` method takes its key from `k0`, in a recursive cycle of `n`
/// methods `k0 → k1 → … → k(n-1) → k0`; only the last one makes a random key.
fn cycle(n: usize) -> String {
    let mut s = String::from(
        "package acme;\n\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\n\npublic class Keys {\n    @Retryable\n    public void charge(Gateway gateway) {\n        gateway.setIdempotencyKey(k0(gateway.attempt()));\n    }\n",
    );
    for i in 0..n {
        let next = (i + 1) % n;
        let base = if i + 1 == n {
            "UUID.randomUUID().toString()"
        } else {
            "\"k\""
        };
        s.push_str(&format!(
            "\n    String k{i}(int n) {{\n        if (n > 0) {{\n            return k{next}(n - 1);\n        }}\n        return {base};\n    }}\n"
        ));
    }
    s.push_str("}\n");
    s
}

#[test]
fn a_recursive_cycle_of_a_hundred_methods_converges_and_keeps_its_finding() {
    for n in [3, 65, 100] {
        let v = scan_one("Keys.java", &cycle(n));
        let f = found(&v);
        assert_eq!(f.len(), 1, "{n}: {v}");
        assert!(f[0].ends_with(":RL001"), "{n}: {v}");
        assert!(errors_of_kind(&v, "incomplete").is_empty(), "{n}: {v}");
    }
}

/// The forward rounds of the prefilter on `dir` (counted from the timings it prints).
fn forward_rounds(dir: &Path) -> usize {
    let out = retrylint(dir)
        .env("RETRYLINT_TIMINGS", "1")
        .args(["--format", "concise", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the finding is lost");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("forward round"))
        .count()
}

#[test]
fn a_hierarchy_of_one_class_per_file_is_parsed_in_a_bounded_number_of_rounds() {
    // The retried method calls a key helper declared at the root of a chain of n classes.
    let rounds: Vec<usize> = [25, 100]
        .iter()
        .map(|n| {
            let d = tempfile::tempdir().unwrap();
            let w = |name: String, text: String| std::fs::write(d.path().join(name), text).unwrap();
            w(
                "C0.java".into(),
                "package acme;\n\nimport java.util.UUID;\n\nclass C0 {\n    void stamp(Gateway g) {\n        g.setIdempotencyKey(UUID.randomUUID().toString());\n    }\n}\n".into(),
            );
            for i in 1..*n {
                w(
                    format!("C{i}.java"),
                    format!("package acme;\n\nclass C{i} extends C{} {{\n}}\n", i - 1),
                );
            }
            w(
                "Leaf.java".into(),
                format!("package acme;\n\nimport org.springframework.retry.annotation.Retryable;\n\nclass Leaf extends C{} {{\n    @Retryable\n    void charge(Gateway g) {{\n        stamp(g);\n    }}\n}}\n", n - 1),
            );
            forward_rounds(d.path())
        })
        .collect();
    assert!(rounds[1] <= rounds[0] && rounds[0] <= 4, "{rounds:?}");
}
