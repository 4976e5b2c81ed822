//! Living with the findings: `retrylint.toml`, inline suppressions, baselines, the progress
//! bar and the summary line, each through the command line.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn retrylint(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.env("NO_COLOR", "1").env_remove("CI").current_dir(dir);
    c
}

/// A repository (its own `.git`, so no config above it is found) with `files`.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// A @Retryable method `pay` whose body is `body`.
fn pay(body: &str) -> String {
    format!(
        "package a;\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nclass Pay {{\n  @Retryable\n  void pay(Client c) {{\n{body}  }}\n}}\n"
    )
}

const KEY: &str = "    c.setIdempotencyKey(UUID.randomUUID().toString());\n";
const CLOCK: &str = "    c.setIdempotencyKey(\"k\" + System.currentTimeMillis());\n";

/// (exit status, JSON report, standard error)
fn run(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["check", "--no-cache", "--format", "json"];
    all.extend(args);
    let out = retrylint(dir).args(&all).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        v,
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `rule:line` of each finding.
fn found(v: &Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| format!("{}:{}", f["rule"].as_str().unwrap(), f["line"]))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_config_is_found_upwards_and_not_above_the_repository_root() {
    let dir = repo(&[
        ("retrylint.toml", "[rules]\nRL001 = \"off\"\n"),
        ("svc/src/Pay.java", &pay(KEY)),
    ]);
    let (code, v, _) = run(&dir.path().join("svc/src"), &["."]);
    assert_eq!((code, found(&v)), (0, vec![]), "found from svc/src upwards");
    let (code, _, _) = run(dir.path(), &["--no-config", "svc"]);
    assert_eq!(code, 1, "--no-config ignores it");
    // A nested repository does not see its parent's configuration.
    std::fs::create_dir(dir.path().join("svc/.git")).unwrap();
    let (code, v, _) = run(dir.path(), &["svc"]);
    assert_eq!((code, found(&v)), (1, vec!["RL001:7".to_string()]));
    // --config names the file explicitly.
    let (code, _, _) = run(dir.path(), &["--config", "retrylint.toml", "svc"]);
    assert_eq!(code, 0);
}

#[test]
fn include_and_exclude_apply_to_named_files_too() {
    let dir = repo(&[
        (
            "retrylint.toml",
            "include = [\"src/\"]\nexclude = [\"generated/\", \"**/*Legacy.java\"]\n",
        ),
        ("src/Pay.java", &pay(KEY)),
        (
            "src/PayLegacy.java",
            &pay(KEY).replace("Pay {", "PayLegacy {"),
        ),
        (
            "src/generated/Gen.java",
            &pay(KEY).replace("Pay {", "Gen {"),
        ),
        ("other/Other.java", &pay(KEY).replace("Pay {", "Other {")),
    ]);
    let (_, v, _) = run(dir.path(), &["."]);
    let paths: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, vec!["src/Pay.java"]);
    assert_eq!(v["summary"]["files_scanned"], 1);
    // A pre-commit file list: the excluded file is not reported.
    let (code, v, _) = run(dir.path(), &["src/PayLegacy.java"]);
    assert_eq!((code, found(&v)), (0, vec![]));
    let (code, _, _) = run(dir.path(), &["src/Pay.java"]);
    assert_eq!(code, 1);
}

#[test]
fn rule_levels_and_the_failing_level_from_the_config() {
    let dir = repo(&[
        (
            "retrylint.toml",
            "fail-level = \"error\"\n[rules]\nrandom-idempotency-key-in-retry = \"warning\"\nRL002 = \"off\"\n",
        ),
        ("Pay.java", &pay(&format!("{KEY}{CLOCK}"))),
    ]);
    // RL001 is a warning now, RL002 is off, and only errors fail.
    let (code, v, _) = run(dir.path(), &["."]);
    assert_eq!((code, found(&v)), (0, vec!["RL001:7".to_string()]));
    assert_eq!(v["findings"][0]["level"], "warning");
    let out = retrylint(dir.path())
        .args(["check", "--no-cache", "--format", "sarif", "."])
        .output()
        .unwrap();
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"][0]["level"], "warning");
    let text = retrylint(dir.path())
        .args(["check", "--no-cache", "."])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("⚠"));
    // Command-line flags win over the file.
    let (code, _, _) = run(dir.path(), &["--fail-level", "warning", "."]);
    assert_eq!(code, 1);
    let (_, v, _) = run(dir.path(), &["--select", "RL001,RL002", "."]);
    assert_eq!(
        found(&v),
        vec!["RL001:7".to_string(), "RL002:8".to_string()]
    );
    let (_, v, _) = run(dir.path(), &["--ignore", "RL001", "."]);
    assert_eq!(found(&v), Vec::<String>::new());
}

#[test]
fn a_bad_config_exits_2_naming_file_line_and_column() {
    for (text, want) in [
        (
            "include = [\"src\"]\nexlude = [\"gen\"]\n",
            "error: bad config file retrylint.toml:2:1: unknown field `exlude`, expected one of",
        ),
        (
            "require-reason = \"yes\"\n",
            "error: bad config file retrylint.toml:1:18: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "[rules]\nRL001 = \"loud\"\n",
            "error: bad config file retrylint.toml:2:9: `RL001` must be one of `off`, `error`, `warning`, `note`, not \"loud\"",
        ),
        (
            "[rules]\nRL042 = \"off\"\n",
            "error: bad config file retrylint.toml:2:1: unknown rule `RL042` in [rules] (see `retrylint rules`)",
        ),
        (
            "exclude = [\"{gen,build\"]\n",
            "error: bad config file retrylint.toml:1:12: bad glob `{gen,build`: unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?); globs use .gitignore syntax",
        ),
        (
            "include = [\"src/[a-\"]\n",
            "error: bad config file retrylint.toml:1:12: bad glob `src/[a-`: unclosed character class; missing ']'; globs use .gitignore syntax",
        ),
        (
            "fail-level = 3\n",
            "error: bad config file retrylint.toml:1:14: `fail-level` must be one of `error`, `warning`, `note`, not 3",
        ),
        (
            "[[regions.annotation]]\nid = \"x\"\nannotationz = []\n",
            "error: bad config file retrylint.toml:3:1: unknown field `annotationz`",
        ),
    ] {
        let dir = repo(&[("retrylint.toml", text), ("Pay.java", &pay(KEY))]);
        let (code, _, err) = run(dir.path(), &["."]);
        assert_eq!(code, 2, "{text}");
        assert!(err.starts_with(want), "{text}\n{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
    }
    let dir = repo(&[("Pay.java", &pay(KEY))]);
    let (code, _, err) = run(dir.path(), &["--config", "missing.toml", "."]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: cannot read config file missing.toml:"),
        "{err}"
    );
}

#[test]
fn catalogue_rows_in_the_config() {
    let java = std::fs::read_to_string("tests/data/AcmeResilientClient.java").unwrap();
    let rows = std::fs::read_to_string("tests/data/acme-catalogue.toml").unwrap();
    let dir = repo(&[
        ("retrylint.toml", &format!("exclude = [\"gen/\"]\n{rows}")),
        ("AcmeResilientClient.java", &java),
    ]);
    let (code, v, _) = run(dir.path(), &["."]);
    assert_eq!(
        (code, found(&v)),
        (1, vec!["RL001:12".to_string(), "RL002:17".to_string()])
    );
}

#[test]
fn the_readme_example_config_is_valid() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("```toml\n# retrylint.toml")
        .expect("README holds an example retrylint.toml");
    let block = &readme[start + "```toml\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    let c = retrylint::config::Config::parse(Path::new("retrylint.toml"), block)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(c.require_reason && c.catalogue.is_some());
    let dir = repo(&[
        ("retrylint.toml", block),
        ("src/main/java/Pay.java", &pay(KEY)),
    ]);
    let (code, v, err) = run(dir.path(), &["."]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(found(&v), vec!["RL001:7".to_string()]);
}

#[test]
fn comment_suppressions_on_the_line_or_above() {
    let body = [
        "    // retrylint:ignore RL001 -- the provider also dedups by order id\n",
        KEY,
        "    c.setIdempotencyKey(UUID.randomUUID().toString()); // retrylint:ignore RL001, RL002 -- reviewed\n",
        "    String s = \"// retrylint:ignore RL001\";\n",
        KEY,
        "    // retrylint:ignore\n",
        "    // (every rule)\n",
        CLOCK,
        "    // retrylint:ignore RL002 -- only the clock\n",
        KEY,
    ]
    .concat();
    let dir = repo(&[("Pay.java", &pay(&body))]);
    let (code, v, _) = run(dir.path(), &["."]);
    // The directive in a string does not count, nor one for another rule.
    assert_eq!(
        found(&v),
        vec!["RL001:11".to_string(), "RL001:16".to_string()]
    );
    assert_eq!(code, 1);
    let suppressed: Vec<(String, Value)> = v["suppressed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                format!("{}:{}", f["rule"].as_str().unwrap(), f["line"]),
                f["suppressed"]["reason"].clone(),
            )
        })
        .collect();
    assert_eq!(
        suppressed,
        vec![
            (
                "RL001:8".to_string(),
                Value::from("the provider also dedups by order id")
            ),
            ("RL001:9".to_string(), Value::from("reviewed")),
            ("RL002:14".to_string(), Value::Null),
        ]
    );
    assert_eq!(v["summary"]["suppressed"], 3);
    assert_eq!(v["summary"]["findings"], 2);
}

#[test]
fn suppressed_findings_in_sarif_and_text_and_the_exit_status() {
    let body = format!("    // retrylint:ignore RL001 -- key stored by the caller\n{KEY}");
    let dir = repo(&[("Pay.java", &pay(&body))]);
    let out = retrylint(dir.path())
        .args(["check", "--no-cache", "--format", "sarif", "."])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "a suppressed finding never fails"
    );
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "RL001");
    assert_eq!(
        result["suppressions"],
        serde_json::json!([{ "kind": "inSource", "justification": "key stored by the caller" }])
    );
    let out = retrylint(dir.path())
        .args(["check", "--no-cache", "."])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, "0 findings in 1 Java file; 1 suppressed\n");
}

#[test]
fn suppress_warnings_on_a_method_or_class() {
    let method = pay(KEY).replace("class Pay", "class PayA").replace(
        "  @Retryable\n",
        "  @SuppressWarnings({\"unchecked\", \"retrylint:RL001 -- reviewed\"})\n  @Retryable\n",
    );
    let class = pay(&format!("{KEY}{CLOCK}")).replace(
        "class Pay",
        "@SuppressWarnings(\"retrylint:RL001,RL002\")\nclass PayB",
    );
    let other_rule = pay(KEY).replace("class Pay", "class PayC").replace(
        "  @Retryable\n",
        "  @SuppressWarnings(value = \"retrylint:RL002\")\n  @Retryable\n",
    );
    let dir = repo(&[
        ("a/Pay.java", &method),
        ("b/Pay.java", &class),
        ("c/Pay.java", &other_rule),
    ]);
    let (_, v, _) = run(dir.path(), &["."]);
    let paths: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}:{}", f["path"].as_str().unwrap(), f["rule"]))
        .collect();
    assert_eq!(paths, vec!["c/Pay.java:\"RL001\""]);
    assert_eq!(v["summary"]["suppressed"], 3);
    assert_eq!(v["suppressed"][0]["suppressed"]["kind"], "annotation");
}

#[test]
fn require_reason_and_unused_suppressions() {
    let body = [
        "    // retrylint:ignore RL001\n",
        KEY,
        "    int n = 0; // retrylint:ignore RL002 -- nothing here\n",
        "    // retrylint:ignore RL01 -- typo\n",
    ]
    .concat();
    let dir = repo(&[("Pay.java", &pay(&body))]);
    let (code, v, _) = run(dir.path(), &["."]);
    assert_eq!(
        code, 1,
        "RL001 is suppressed; the unknown rule is reported: {v}"
    );
    assert_eq!(found(&v), vec!["RL101:10".to_string()]);
    let (code, v, _) = run(dir.path(), &["--report-unused-ignores", "."]);
    assert_eq!(code, 1);
    assert_eq!(
        found(&v),
        vec!["RL100:9".to_string(), "RL101:10".to_string()]
    );
    assert_eq!(
        v["findings"][0]["message"],
        "`retrylint:ignore RL002 -- nothing here` suppresses no finding of RL002"
    );
    let out = retrylint(dir.path())
        .args([
            "check",
            "--no-cache",
            "--report-unused-ignores",
            "--format",
            "sarif",
            ".",
        ])
        .output()
        .unwrap();
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unused = &sarif["runs"][0]["results"][1];
    assert_eq!(unused["ruleId"], "RL100");
    assert_eq!(
        unused["message"]["text"],
        "`retrylint:ignore RL002 -- nothing here` suppresses no finding of RL002"
    );
    assert!(unused.get("codeFlows").is_none());
    // With require-reason, the reasonless suppression suppresses nothing and is reported.
    std::fs::write(
        dir.path().join("retrylint.toml"),
        "require-reason = true\nreport-unused-ignores = true\n",
    )
    .unwrap();
    let (code, v, _) = run(dir.path(), &["."]);
    assert_eq!(code, 1);
    assert_eq!(
        found(&v),
        vec![
            "RL101:7".to_string(),
            "RL001:8".to_string(),
            "RL100:9".to_string(),
            "RL101:10".to_string()
        ]
    );
    // In a file without findings too.
    let clean = pay("    // retrylint:ignore RL001\n    int n = 0;\n");
    std::fs::write(dir.path().join("Pay.java"), clean).unwrap();
    let (_, v, _) = run(dir.path(), &["."]);
    assert_eq!(found(&v), vec!["RL101:7".to_string()]);
}

#[test]
fn a_baseline_hides_recorded_findings_and_survives_moved_lines() {
    let dir = repo(&[("src/Pay.java", &pay(KEY))]);
    let p = dir.path();
    let out = retrylint(p)
        .args([
            "check",
            "--no-cache",
            "--write-baseline",
            "baseline.json",
            ".",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "writing a baseline adopts them");
    let written = std::fs::read_to_string(p.join("baseline.json")).unwrap();
    let b: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(
        b["findings"],
        serde_json::json!([{ "path": "src/Pay.java", "rule": "RL001", "method": "pay",
            "code": "c.setIdempotencyKey(UUID.randomUUID().toString());", "count": 1 }])
    );
    let (code, v, _) = run(p, &["--baseline", "baseline.json", "."]);
    assert_eq!((code, found(&v)), (0, vec![]));
    assert_eq!(v["summary"]["baselined"], 1);
    // Moved down by unrelated lines, re-indented: still the recorded finding.
    let moved = pay(
        "    int a = 1;\n    int b = 2;\n\t\t  c.setIdempotencyKey(UUID.randomUUID().toString());  \n",
    )
    .replace("package a;\n", "package a;\n\n// a comment\n");
    std::fs::write(p.join("src/Pay.java"), moved).unwrap();
    let (code, v, _) = run(p, &["--baseline", "baseline.json", "."]);
    assert_eq!((code, found(&v)), (0, vec![]));
    // From another directory, the baseline's paths still match.
    let (code, _, _) = run(&p.join("src"), &["--baseline", "../baseline.json", "."]);
    assert_eq!(code, 0);
    // A second identical finding in the same method is new.
    std::fs::write(p.join("src/Pay.java"), pay(&format!("{KEY}{KEY}"))).unwrap();
    let (code, v, _) = run(p, &["--baseline", "baseline.json", "."]);
    assert_eq!((code, found(&v)), (1, vec!["RL001:8".to_string()]));
    // Editing the line makes it new.
    std::fs::write(
        p.join("src/Pay.java"),
        pay("    c.setIdempotencyKey(UUID.randomUUID().toString() + \"-v2\");\n"),
    )
    .unwrap();
    let (code, v, _) = run(p, &["--baseline", "baseline.json", "."]);
    assert_eq!((code, found(&v)), (1, vec!["RL001:7".to_string()]));
    // Written twice, the same bytes.
    std::fs::write(p.join("src/Pay.java"), pay(&format!("{KEY}{CLOCK}{KEY}"))).unwrap();
    let write = || {
        retrylint(p)
            .args([
                "check",
                "--no-cache",
                "-q",
                "--write-baseline",
                "b2.json",
                ".",
            ])
            .assert()
            .code(0);
        std::fs::read(p.join("b2.json")).unwrap()
    };
    let first = write();
    assert_eq!(first, write());
    assert!(String::from_utf8(first).unwrap().contains("\"count\": 2"));
}

#[test]
fn a_bad_baseline_is_a_run_error() {
    let dir = repo(&[("Pay.java", &pay(KEY)), ("b.json", "{\"version\": 1}")]);
    let (code, _, err) = run(dir.path(), &["--baseline", "missing.json", "."]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: cannot read baseline file missing.json:"),
        "{err}"
    );
    let (code, _, err) = run(dir.path(), &["--baseline", "b.json", "."]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: bad baseline file b.json:1:"),
        "{err}"
    );
}

#[test]
fn no_progress_bar_in_pipes_and_one_summary_line() {
    let dir = repo(&[("Pay.java", &pay(KEY)), ("Other.java", "class Other {}\n")]);
    let (_, _, err) = run(dir.path(), &["."]);
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].starts_with("retrylint: 1 finding (RL001: 1) in 2 Java files ("),
        "{err}"
    );
    assert!(lines[0].ends_with("s)"), "the time: {err}");
    let (_, _, err) = run(dir.path(), &["-q", "."]);
    assert_eq!(err, "");
}

#[test]
fn a_missing_cache_dir_is_made_and_one_that_cannot_be_is_a_warning() {
    let dir = repo(&[("Pay.java", &pay(KEY))]);
    let check = |cache: &str| {
        let out = retrylint(dir.path())
            .args(["check", "--format", "json", "--cache-dir", cache, "."])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (found(&v), String::from_utf8(out.stderr).unwrap())
    };
    // A CI cache path on its first run: the directory does not exist yet.
    let (first, err) = check("ci-cache/retrylint");
    assert_eq!(first, vec!["RL001:7"], "{err}");
    let made = dir.path().join("ci-cache/retrylint/.retrylint_cache");
    assert!(made.join(".gitignore").exists(), "{err}");
    assert!(
        std::fs::read_dir(&made).unwrap().count() > 1,
        "the run's cache is written there"
    );
    let (warm, _) = check("ci-cache/retrylint");
    assert_eq!(warm, first);
    // Below a regular file no directory can be made: same findings, one sentence.
    std::fs::write(dir.path().join("plain"), "").unwrap();
    let (findings, err) = check("plain/cache");
    assert_eq!(findings, first);
    assert!(
        err.starts_with("warning: cannot create the cache directory plain/cache ("),
        "{err}"
    );
    assert!(err.contains("); running without a cache\n"), "{err}");
}
