//! Issue 15: a pull request controls every file of the checkout. Its symbolic links must not
//! redirect the report or the baseline, its `retrylint.toml` must show in every output and not
//! depend on argument order or on directories around the checkout, its file names and
//! suppressions must not blind the run, and its text must not forge lines on standard error.

#![cfg(unix)]

use assert_cmd::Command;
use std::os::unix::fs::symlink;
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

const UNSAFE: &str = "package acme;\n\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\n\npublic class Billing {\n    @Retryable\n    public void charge(Gateway gateway) {\n        gateway.setIdempotencyKey(UUID.randomUUID().toString());\n    }\n}\n";

fn json(dir: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = retrylint(dir)
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no JSON: {err}"));
    (out.status.code(), v, err)
}

fn found(v: &serde_json::Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{}",
                f["path"].as_str().unwrap(),
                f["line"],
                f["rule"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn output_and_baseline_are_not_written_through_committed_links() {
    let d = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let victim = home.path().join(".bashrc");
    std::fs::write(&victim, "# mine\n").unwrap();
    std::fs::write(d.path().join("Billing.java"), UNSAFE).unwrap();
    symlink(&victim, d.path().join("retrylint.sarif")).unwrap();
    symlink(&victim, d.path().join("baseline.json")).unwrap();
    symlink(home.path(), d.path().join("out")).unwrap();
    for args in [
        &[
            "--format",
            "sarif",
            "--output",
            "retrylint.sarif",
            "--exit-zero",
            ".",
        ][..],
        &["--output", "out/report.txt", "."],
        &["--write-baseline", "baseline.json", "."],
        &["--write-baseline", "./out/b.json", "."],
    ] {
        let out = retrylint(d.path()).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("symbolic link"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "# mine\n");
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 1);
    // A plain path is written, and a device in place.
    retrylint(d.path())
        .args(["--output", "report.txt", "--exit-zero", "."])
        .assert()
        .code(0);
    assert!(
        std::fs::read_to_string(d.path().join("report.txt"))
            .unwrap()
            .contains("RL001")
    );
    retrylint(d.path())
        .args(["--output", "/dev/null", "--exit-zero", "."])
        .assert()
        .code(0);
}

#[test]
fn the_configuration_shows_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    std::fs::write(d.path().join("Billing.java"), UNSAFE).unwrap();
    std::fs::create_dir(d.path().join("gen")).unwrap();
    std::fs::write(
        d.path().join("gen/Other.java"),
        UNSAFE.replace("Billing", "Other"),
    )
    .unwrap();
    std::fs::write(
        d.path().join("retrylint.toml"),
        "exclude = [\"gen/\"]\n[rules]\nRL001 = \"note\"\nRL004 = \"off\"\n",
    )
    .unwrap();
    let (code, v, err) = json(d.path(), &["."]);
    assert_eq!(code, Some(0), "RL001 lowered to note does not fail: {v}");
    let c = &v["summary"]["config"];
    assert_eq!(c["path"], "retrylint.toml");
    assert_eq!(c["rules_off"], serde_json::json!(["RL004"]));
    assert_eq!(c["rules_lowered"], serde_json::json!(["RL001"]));
    assert_eq!(c["rule_levels"]["RL001"], "note");
    assert_eq!(c["files_excluded"], 1);
    assert!(
        err.contains("settings from retrylint.toml (RL004 off, RL001 at note, 1 file excluded)"),
        "{err}"
    );
    let text = retrylint(d.path()).arg(".").output().unwrap();
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("settings from retrylint.toml (RL004 off")
    );
    let sarif = retrylint(d.path())
        .args(["--format", "sarif", "."])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let p = &s["runs"][0]["invocations"][0]["properties"]["configuration"];
    assert_eq!(p["rules_off"], serde_json::json!(["RL004"]));
    assert_eq!(p["files_excluded"], 1);
    let gh = retrylint(d.path())
        .args(["--format", "github", "."])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&gh.stdout)
            .contains("::notice file=retrylint.toml,title=retrylint configuration::this run used")
    );
}

#[test]
fn one_configuration_whatever_the_argument_order() {
    let d = tempfile::tempdir().unwrap();
    for sub in ["a", "b"] {
        std::fs::create_dir(d.path().join(sub)).unwrap();
        std::fs::write(d.path().join(sub).join("Billing.java"), UNSAFE).unwrap();
    }
    std::fs::write(
        d.path().join("a/retrylint.toml"),
        "[rules]\nRL001 = \"off\"\n",
    )
    .unwrap();
    let (c1, v1, _) = json(d.path(), &["a", "b"]);
    let (c2, v2, _) = json(d.path(), &["b", "a"]);
    assert_eq!((c1, found(&v1)), (c2, found(&v2)));
    assert_eq!(
        found(&v1).len(),
        2,
        "a/retrylint.toml is not the whole run's: {v1}"
    );
    // Scanning only `a` uses its file.
    let (c, v, _) = json(d.path(), &["a"]);
    assert_eq!((c, found(&v).len()), (Some(0), 0));
    // The same for files named on the command line (a pre-commit run).
    let (c1, v1, _) = json(d.path(), &["a/Billing.java", "b/Billing.java"]);
    let (c2, v2, _) = json(d.path(), &["b/Billing.java", "a/Billing.java"]);
    assert_eq!((c1, found(&v1)), (c2, found(&v2)));
}

#[test]
fn without_git_the_search_does_not_climb_above_the_checkout() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(
        outer.path().join("retrylint.toml"),
        "[rules]\nRL001 = \"off\"\n",
    )
    .unwrap();
    let checkout = outer.path().join("checkout");
    std::fs::create_dir(&checkout).unwrap();
    std::fs::write(checkout.join("Billing.java"), UNSAFE).unwrap();
    let (code, v, _) = json(&checkout, &["."]);
    assert_eq!(code, Some(1), "{v}");
    assert!(v["summary"].get("config").is_none(), "{v}");
    // Inside a repository, the repository root's file applies.
    std::fs::create_dir(outer.path().join(".git")).unwrap();
    let (code, v, _) = json(&checkout, &["."]);
    assert_eq!(code, Some(0), "{v}");
}

#[test]
fn config_and_baseline_errors_cannot_forge_annotations() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("Billing.java"), UNSAFE).unwrap();
    std::fs::write(
        d.path().join("retrylint.toml"),
        "[rules]\n\"RL001\\n::error file=src/Ok.java::forged\" = \"off\"\n",
    )
    .unwrap();
    let out = retrylint(d.path()).arg(".").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("%0A::error"), "{err}");
    assert!(!err.lines().any(|l| l.starts_with("::")), "{err}");

    std::fs::remove_file(d.path().join("retrylint.toml")).unwrap();
    std::fs::write(
        d.path().join("b.json"),
        "{\"version\": 1, \"tool\": \"x\", \"findings\": [], \"x\n::error::forged\": 1}",
    )
    .unwrap();
    let out = retrylint(d.path())
        .args(["--baseline", "b.json", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.lines().any(|l| l.starts_with("::")), "{err}");
}

#[test]
fn baseline_counts_saturate() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("Billing.java"), UNSAFE).unwrap();
    retrylint(d.path())
        .args(["--write-baseline", "b.json", "."])
        .assert()
        .code(0);
    let text = std::fs::read_to_string(d.path().join("b.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entry = v["findings"][0].clone();
    let mut a = entry.clone();
    a["count"] = u32::MAX.into();
    v["findings"] = serde_json::json!([a.clone(), a]);
    std::fs::write(d.path().join("b.json"), v.to_string()).unwrap();
    let (code, v, err) = json(d.path(), &["--baseline", "b.json", "."]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(v["summary"]["baselined"], 1);
}

#[test]
fn a_colon_in_the_first_segment_stays_a_relative_uri() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("https:")).unwrap();
    std::fs::write(d.path().join("https:/Billing.java"), UNSAFE).unwrap();
    let out = retrylint(d.path())
        .args(["--format", "sarif", "."])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let uri =
        &s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(uri, "https%3A/Billing.java");
}

#[test]
fn a_backslash_in_a_file_name_is_its_own_file() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("acme")).unwrap();
    // The real file suppresses its finding; the lookalike does not.
    let suppressed = UNSAFE.replace(
        "        gateway.setIdempotencyKey(",
        "        // retrylint:ignore RL001 -- tracked in PAY-12\n        gateway.setIdempotencyKey(",
    );
    std::fs::write(d.path().join("acme/Billing.java"), &suppressed).unwrap();
    let lookalike = UNSAFE
        .replace("class Billing", "class Billing2")
        .replace("    @Retryable", "\n    @Retryable");
    std::fs::write(d.path().join("acme\\Billing.java"), &lookalike).unwrap();
    let (code, v, _) = json(d.path(), &["."]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(found(&v), vec!["acme%5CBilling.java:10:RL001"]);
    assert_eq!(v["summary"]["suppressed"], 1);
}

#[test]
fn a_bare_directive_above_a_callback_does_not_hide_its_body() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("Pay.java"),
        "import java.util.UUID;\nimport org.springframework.retry.support.RetryTemplate;\n\nclass Pay {\n    private final RetryTemplate retryTemplate = new RetryTemplate();\n\n    void pay(Gateway gateway) {\n        // retrylint:ignore\n        retryTemplate.execute(ctx -> {\n            gateway.setIdempotencyKey(UUID.randomUUID().toString());\n            return null;\n        });\n    }\n}\n",
    )
    .unwrap();
    let (code, v, _) = json(d.path(), &["."]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(found(&v), vec!["Pay.java:10:RL001"]);
}

#[test]
fn a_reason_needs_a_word_and_a_directive_must_lead_its_comment() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("retrylint.toml"), "require-reason = true\n").unwrap();
    std::fs::write(
        d.path().join("Billing.java"),
        UNSAFE.replace(
            "toString());",
            "toString()); // retrylint:ignore RL001 -- .",
        ),
    )
    .unwrap();
    std::fs::write(
        d.path().join("Other.java"),
        UNSAFE.replace("class Billing", "class Other").replace(
            "toString());",
            "toString()); // reviewed, see retrylint:ignore RL001 -- fine",
        ),
    )
    .unwrap();
    let (code, v, _) = json(d.path(), &["."]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        found(&v),
        vec![
            "Billing.java:9:RL001",
            "Billing.java:9:RL101",
            "Other.java:9:RL001"
        ]
    );
}

#[test]
fn fail_on_incomplete_fails_even_with_exit_zero() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("Billing.java"), UNSAFE).unwrap();
    // Too large to analyse: a finding there would be lost.
    std::fs::write(d.path().join("Big.java"), UNSAFE.repeat(50)).unwrap();
    let args = ["--exit-zero", "--max-file-size", "2000", "."];
    retrylint(d.path()).args(args).assert().code(0);
    let out = retrylint(d.path())
        .args(["--fail-on-incomplete"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("analysis is incomplete"));
    std::fs::write(
        d.path().join("retrylint.toml"),
        "fail-on-incomplete = true\n",
    )
    .unwrap();
    retrylint(d.path()).args(args).assert().code(2);
}

#[test]
fn a_method_over_the_budget_is_reported_as_incomplete() {
    let d = tempfile::tempdir().unwrap();
    let mut body = String::new();
    for i in 0..60_000 {
        body.push_str(&format!("        k = k + \"{i}\";\n"));
    }
    std::fs::write(
        d.path().join("Huge.java"),
        format!("import org.springframework.retry.annotation.Retryable;\n\nclass Huge {{\n    @Retryable\n    public void charge(Gateway gateway) {{\n        String k = \"\";\n{body}        gateway.setIdempotencyKey(k);\n    }}\n}}\n"),
    )
    .unwrap();
    let (_, v, err) = json(d.path(), &["."]);
    assert_eq!(v["summary"]["incomplete"], 1, "{v}");
    assert!(err.contains("analysis incomplete in 1 place"), "{err}");
    let e = &v["errors"][0];
    assert_eq!(
        (e["kind"].as_str(), e["severity"].as_str()),
        (Some("incomplete"), Some("warning"))
    );
    let out = retrylint(d.path())
        .args(["--format", "sarif", "--fail-on-incomplete", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let inv = &s["runs"][0]["invocations"][0];
    assert_eq!(inv["properties"]["incomplete"], 1);
    assert_eq!(inv["toolExecutionNotifications"][0]["level"], "warning");
}

#[test]
fn a_bare_directive_above_an_anonymous_class_does_not_hide_its_body() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("Pay.java"),
        "import java.util.UUID;\nimport org.springframework.retry.RetryCallback;\nimport org.springframework.retry.support.RetryTemplate;\n\nclass Pay {\n    private final RetryTemplate retryTemplate = new RetryTemplate();\n\n    void pay(Gateway gateway) {\n        // retrylint:ignore\n        retryTemplate.execute(new RetryCallback<Void, RuntimeException>() {\n            public Void doWithRetry(org.springframework.retry.RetryContext ctx) {\n                gateway.setIdempotencyKey(UUID.randomUUID().toString());\n                return null;\n            }\n        });\n    }\n}\n",
    )
    .unwrap();
    let (code, v, _) = json(d.path(), &["."]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(found(&v), vec!["Pay.java:12:RL001"]);
    // On the line of the finding itself, the directive applies.
    std::fs::write(
        d.path().join("Pay.java"),
        std::fs::read_to_string(d.path().join("Pay.java"))
            .unwrap()
            .replace(
                "toString());\n",
                "toString()); // retrylint:ignore RL001 -- the gateway dedupes on the order id\n",
            ),
    )
    .unwrap();
    let (code, v, _) = json(d.path(), &["."]);
    assert_eq!((code, found(&v).len()), (Some(0), 0), "{v}");
    assert_eq!(v["summary"]["suppressed"], 1);
}

#[test]
fn java_files_an_ignore_file_hides_are_counted_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("Billing.java"), UNSAFE).unwrap();
    std::fs::create_dir(d.path().join("pay")).unwrap();
    std::fs::write(
        d.path().join("pay/Charge.java"),
        UNSAFE.replace("class Billing", "class Charge"),
    )
    .unwrap();
    // A pull request adds a `.gitignore` that hides the file holding the finding.
    std::fs::write(d.path().join(".gitignore"), "pay/\n").unwrap();
    let (code, v, err) = json(d.path(), &["."]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(found(&v), vec!["Billing.java:9:RL001"]);
    assert_eq!(v["summary"]["files_gitignored"], 1, "{v}");
    assert!(
        err.contains("1 .java file left out by ignore files"),
        "{err}"
    );
    let text = retrylint(d.path()).arg(".").output().unwrap();
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("1 .java file left out by ignore files")
    );
    let sarif = retrylint(d.path())
        .args(["--format", "sarif", "."])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    assert_eq!(
        s["runs"][0]["invocations"][0]["properties"]["filesGitignored"], 1,
        "{s}"
    );
    let gh = retrylint(d.path())
        .args(["--format", "github", "."])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&gh.stdout)
            .contains("::notice title=retrylint ignore files::1 .java"),
    );
    // Nothing hidden: nothing said.
    std::fs::remove_file(d.path().join(".gitignore")).unwrap();
    let (_, v, err) = json(d.path(), &["."]);
    assert_eq!(v["summary"]["files_gitignored"], 0);
    assert!(!err.contains("ignore files"), "{err}");
}
