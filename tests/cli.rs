//! Command-line behaviour: exit codes, flags, error messages, and a snapshot of every format.

use assert_cmd::Command;
use std::path::Path;

fn retrylint() -> Command {
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.env("NO_COLOR", "1");
    c
}

const UNSAFE: &str = "fixtures/spring_retry/RetryableUuidUnsafe.java";
const SAFE: &str = "fixtures/spring_retry/RetryableUuidSafe.java";

fn stdout(args: &[&str]) -> String {
    let out = retrylint().args(args).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn exit_status_follows_findings() {
    retrylint().args(["check", UNSAFE]).assert().code(1);
    retrylint().args(["check", SAFE]).assert().code(0);
    retrylint()
        .args(["check", "--exit-zero", UNSAFE])
        .assert()
        .code(0);
    retrylint()
        .args(["check", "--ignore", "RL001", UNSAFE])
        .assert()
        .code(0);
    retrylint()
        .args(["check", "--select", "RL002", UNSAFE])
        .assert()
        .code(0);
    retrylint()
        .args(["check", "--select", "RL001", UNSAFE])
        .assert()
        .code(1);
    // Every built-in rule is an error: failing at `error` still fails.
    retrylint()
        .args(["check", "--fail-level", "error", UNSAFE])
        .assert()
        .code(1);
}

#[test]
fn run_errors_exit_2_with_one_sentence() {
    let out = retrylint().args(["check", "no/such/dir"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim(), "error: path `no/such/dir` does not exist");
    retrylint()
        .args(["check", "--select", "RL999", SAFE])
        .assert()
        .code(2);
    retrylint()
        .args(["check", "--format", "xml", SAFE])
        .assert()
        .code(2);
    retrylint().args(["explain", "RL999"]).assert().code(2);
}

#[test]
fn exit_zero_does_not_hide_run_errors() {
    retrylint()
        .args(["check", "--exit-zero", "missing.java"])
        .assert()
        .code(2);
}

#[test]
fn output_goes_to_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    retrylint()
        .args([
            "check",
            "--format",
            "json",
            "--output",
            out.to_str().unwrap(),
            UNSAFE,
        ])
        .assert()
        .code(1)
        .stdout("");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    assert_eq!(v["findings"][0]["rule"], "RL001");
}

#[test]
fn rules_and_explain() {
    let rules = stdout(&["rules"]);
    for id in ["RL001", "RL002", "RL003"] {
        assert!(rules.contains(id));
        let doc = stdout(&["explain", id]);
        assert!(doc.contains("## How to fix"), "{id} explain lacks the fix");
        assert!(doc.contains("```java"), "{id} explain lacks an example");
    }
}

#[test]
fn ineffective_retry_is_a_rule_like_the_others() {
    let rules = stdout(&["rules"]);
    assert!(rules.contains("RL006") && rules.contains("ineffective-retry"));
    let doc = stdout(&["explain", "RL006"]);
    assert!(doc.contains("## How to fix") && doc.contains("```java"));
    for id in ["RL001", "RL002", "RL003", "RL004", "RL005"] {
        let doc = stdout(&["explain", id]);
        assert!(
            doc.contains("RL006"),
            "{id} explain does not say dead retries are silent"
        );
    }
    // The theme's dead annotation is RL006 in every format, and its latent key is not RL001.
    let theme = "fixtures/liveness/swallowed_failures";
    let json = stdout(&["check", theme, "--format", "json", "--no-cache"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, vec!["RL006", "RL001", "RL006"]);
    let renew = &v["findings"][0];
    let message = renew["message"].as_str().unwrap();
    assert!(
        message.contains("catches `Exception`") && message.contains("RL001 at line 23"),
        "{message}"
    );
    let sarif = stdout(&["check", theme, "--format", "sarif", "--no-cache"]);
    let v: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let run = &v["runs"][0];
    assert!(
        run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "RL006")
    );
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.iter().filter(|r| r["ruleId"] == "RL006").count(), 2);
}

#[test]
fn other_jvm_languages_are_counted_not_ignored() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Billing.kt"), "fun main() {}\n").unwrap();
    std::fs::write(dir.path().join("A.java"), "class A {}\n").unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "check",
        "--format",
        "json",
        dir.path().to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(v["summary"]["not_analysed"]["kt"], 1);
    assert_eq!(v["summary"]["files_scanned"], 1);
    // The human formats say so too, after their summary line.
    for format in ["text", "concise"] {
        let out = stdout(&["check", "--format", format, dir.path().to_str().unwrap()]);
        assert!(
            out.ends_with("0 findings in 1 Java file\nNot analysed (not Java): 1 .kt file(s)\n"),
            "{format}: {out}"
        );
    }
}

#[test]
fn a_broken_file_does_not_hide_findings_in_others() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(UNSAFE, dir.path().join("RetryableUuidUnsafe.java")).unwrap();
    // A broken file that can matter (it names an idempotency header) is parsed and reported.
    std::fs::write(
        dir.path().join("Broken.java"),
        "class Broken { void f( { h.header(\"Idempotency-Key\", k); int x = ; }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("Binary.java"), b"\x00\x01\x02garbage").unwrap();
    std::fs::create_dir(dir.path().join("Dir.java")).unwrap();
    let out = retrylint()
        .args(["check", "--format", "json", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 1);
    let errors = v["errors"].as_array().unwrap();
    assert!(
        errors
            .iter()
            .any(|e| e["kind"] == "syntax" && e["severity"] == "warning")
    );
    assert!(
        errors
            .iter()
            .any(|e| e["kind"] == "parse" && e["path"].as_str().unwrap().ends_with("Binary.java"))
    );
}

#[test]
fn a_file_that_cannot_matter_is_not_parsed_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(UNSAFE, dir.path().join("RetryableUuidUnsafe.java")).unwrap();
    std::fs::write(
        dir.path().join("Unrelated.java"),
        "class Unrelated { void f( { int x = ; }\n",
    )
    .unwrap();
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["check", "--format", "json", dir.path().to_str().unwrap()];
        args.extend(extra);
        serde_json::from_slice(&retrylint().args(&args).output().unwrap().stdout).unwrap()
    };
    let skipped = run(&[]);
    let full = run(&["--no-prefilter"]);
    assert_eq!(skipped["findings"], full["findings"]);
    assert_eq!(skipped["findings"].as_array().unwrap().len(), 1);
    assert_eq!(skipped["summary"]["files_scanned"], 2);
    let syntax = |v: &serde_json::Value| {
        v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "syntax")
            .count()
    };
    assert_eq!(syntax(&skipped), 0, "the unrelated file was parsed");
    assert_eq!(syntax(&full), 1, "--no-prefilter parses every file");
}

#[test]
fn gitignored_files_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("generated")).unwrap();
    std::fs::copy(
        UNSAFE,
        dir.path().join("generated/RetryableUuidUnsafe.java"),
    )
    .unwrap();
    std::fs::write(dir.path().join(".gitignore"), "generated/\n").unwrap();
    retrylint()
        .args(["check", dir.path().to_str().unwrap()])
        .assert()
        .code(0);
}

#[test]
fn output_is_identical_across_thread_counts() {
    // A run that waits on itself (a lazily built index whose building runs parallel work,
    // first asked for inside a parallel task) hangs only now and then: several runs with many
    // threads, each given a time limit, so that such a hang fails the test instead of the CI.
    let run = |threads: &str| {
        let out = retrylint()
            .env("RAYON_NUM_THREADS", threads)
            .args(["check", "--format", "sarif", "fixtures"])
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap_or_else(|e| panic!("a run with {threads} threads did not finish: {e}"));
        out.stdout
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    for threads in ["8", "8", "16", "16"] {
        assert_eq!(one, run(threads));
    }
}

fn snapshot_inputs() -> Vec<&'static str> {
    let v = vec![
        UNSAFE,
        "fixtures/ratpack/BlockingGetRetryUnsafe.java",
        "fixtures/retry_counter/RetryCountInKeyUnsafe.java",
    ];
    for p in &v {
        assert!(Path::new(p).exists(), "{p}");
    }
    v
}

#[test]
fn snapshot_text() {
    let mut args = vec!["check"];
    args.extend(snapshot_inputs());
    insta::assert_snapshot!(stdout(&args));
}

#[test]
fn snapshot_json() {
    let mut args = vec!["check", "--format", "json"];
    args.extend(snapshot_inputs());
    insta::assert_snapshot!(stdout(&args));
}

#[test]
fn snapshot_sarif() {
    let mut args = vec!["check", "--format", "sarif"];
    args.extend(snapshot_inputs());
    // `%SRCROOT%` is the checkout's absolute path, which differs between machines.
    let root = std::fs::canonicalize(".").unwrap();
    let root_uri = format!("file://{}/", root.display());
    let sarif = stdout(&args);
    assert!(
        sarif.contains(&format!("\"uri\": \"{root_uri}\"")),
        "{sarif}"
    );
    insta::assert_snapshot!(sarif.replace(&root_uri, "file:///CHECKOUT/"));
}

#[test]
fn snapshot_github() {
    let mut args = vec!["check", "--format", "github"];
    args.extend(snapshot_inputs());
    insta::assert_snapshot!(stdout(&args));
}

#[test]
fn sarif_category_sets_automation_details() {
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "check",
        "--format",
        "sarif",
        "--sarif-category",
        "backend",
        UNSAFE,
    ]))
    .unwrap();
    assert_eq!(v["runs"][0]["automationDetails"]["id"], "backend/");
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&["check", "--format", "sarif", UNSAFE])).unwrap();
    assert!(v["runs"][0].get("automationDetails").is_none());
}

#[test]
fn readme_rules_table_matches_the_rules() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    for r in retrylint::rules::ALL {
        let row = format!(
            "| {} | {} | {} | {} |",
            r.id,
            r.name,
            r.level.as_str(),
            r.summary
        );
        assert!(readme.contains(&row), "README lacks the row: {row}");
    }
}

/// The README's generated block `name` must hold `want`; `RETRYLINT_BLESS=1` rewrites it.
fn readme_block(name: &str, want: &str) {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let begin = format!("<!-- {name}:begin");
    let end = format!("<!-- {name}:end -->");
    let b = readme.find(&begin).expect("README holds the block");
    let b = b + readme[b..].find("-->\n").unwrap() + "-->\n".len();
    let e = readme.find(&end).expect("README closes the block");
    if std::env::var_os("RETRYLINT_BLESS").is_some() {
        let new = format!("{}{want}{}", &readme[..b], &readme[e..]);
        std::fs::write("README.md", new).unwrap();
        return;
    }
    assert!(
        readme[b..e] == *want,
        "README block `{name}` drifted from src/rules/; run `RETRYLINT_BLESS=1 cargo test --test cli readme`"
    );
}

#[test]
fn readme_explain_and_sarif_help_come_from_one_source() {
    readme_block("rules-table", &retrylint::rules::table());
    readme_block("rule-reference", &retrylint::rules::reference());
    let sarif: serde_json::Value =
        serde_json::from_str(&stdout(&["check", "--format", "sarif", SAFE])).unwrap();
    let sarif_rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(sarif_rules.len(), retrylint::rules::ALL.len());
    let reference = retrylint::rules::reference();
    for (r, s) in retrylint::rules::ALL.iter().zip(sarif_rules) {
        let explained = stdout(&["explain", r.id]);
        assert_eq!(explained, format!("{}\n", retrylint::rules::explain(r)));
        assert_eq!(s["id"], r.id);
        assert_eq!(s["help"]["text"], retrylint::rules::explain(r));
        assert_eq!(s["help"]["markdown"], r.markdown());
        // The reference holds the same documentation, its `##` sections one level down.
        let body = r.markdown().replace("\n## ", "\n#### ");
        let body = body
            .strip_prefix("## ")
            .map_or(body.clone(), |b| format!("#### {b}"));
        assert!(reference.contains(&format!("### {}\n", r.id)), "{}", r.id);
        assert!(
            reference.contains(&body),
            "{} reference differs from explain",
            r.id
        );
    }
}

#[test]
fn extra_catalogue_rows_need_no_code_change() {
    let java = "tests/data/AcmeResilientClient.java";
    // Unknown to the built-in catalogue: nothing to report.
    retrylint().args(["check", java]).assert().code(0);
    let out = retrylint()
        .args([
            "check",
            "--format",
            "json",
            "--catalogue",
            "tests/data/acme-catalogue.toml",
            java,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![("RL001".to_string(), 12), ("RL002".to_string(), 17)]
    );
    assert!(
        v["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("@Resilient method `charge`")
    );
}

#[test]
fn a_bad_catalogue_file_is_a_run_error_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[regions.annotation]]\nid = \"x\"\nannotationz = []\n",
    )
    .unwrap();
    let out = retrylint()
        .args(["check", "--catalogue", bad.to_str().unwrap(), SAFE])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!(
            "error: bad catalogue file {}:3:1: unknown field `annotationz`",
            bad.display()
        )),
        "{err}"
    );
}

#[test]
fn the_cache_gives_the_same_findings_and_follows_edits_in_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("Caller.java"),
        "package a;\nimport org.springframework.retry.annotation.Retryable;\nclass Caller {\n  private final Keys keys = new Keys();\n  @Retryable\n  void pay(Client c) {\n    c.setIdempotencyKey(keys.next());\n  }\n}\n",
    )
    .unwrap();
    let random = "package a;\nimport java.util.UUID;\nclass Keys {\n  String next() { return UUID.randomUUID().toString(); }\n}\n";
    let stable = "package a;\nclass Keys {\n  String next() { return \"order-1\"; }\n}\n";
    std::fs::write(p.join("Keys.java"), random).unwrap();
    let run = |cache: bool| {
        let mut args = vec!["check", "--format", "json", p.to_str().unwrap()];
        if !cache {
            args.push("--no-cache");
        }
        let out = retrylint().args(&args).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let cold = run(true);
    assert!(p.join(".retrylint_cache/.gitignore").exists());
    assert!(
        cold.contains("\"line\": 7"),
        "the finding in the caller: {cold}"
    );
    assert_eq!(run(true), cold, "a warm cache changes nothing");
    assert_eq!(run(false), cold);
    // Editing the callee changes the caller's finding, cache or not.
    std::fs::write(p.join("Keys.java"), stable).unwrap();
    let after = run(true);
    assert!(!after.contains("\"rule\": \"RL001\""), "{after}");
    assert_eq!(after, run(false));
    std::fs::write(p.join("Keys.java"), random).unwrap();
    assert_eq!(run(true), cold);
}

#[test]
fn the_scan_cache_follows_an_edit_of_the_same_size() {
    // The caller's key comes from `keys.next()`. At first the file `Keys.java` declares a class
    // `Keyz` with a method `nexu()`, so the prefilter has no reason to parse it; after an edit
    // of the same length it declares `Keys.next()` — the cached scan of the old text must not
    // be used.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("Caller.java"),
        "package a;\nimport org.springframework.retry.annotation.Retryable;\nclass Caller {\n  private final Keys keys = new Keys();\n  @Retryable\n  void pay(Client c) {\n    c.setIdempotencyKey(keys.next());\n  }\n}\n",
    )
    .unwrap();
    let keys = p.join("Keys.java");
    let text = |class: &str, method: &str| {
        format!(
            "package a;\nclass {class} {{\n  String {method}() {{ return java.util.UUID.randomUUID().toString(); }}\n}}\n"
        )
    };
    let run = || {
        let out = retrylint()
            .args(["check", "--format", "json", p.to_str().unwrap()])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    std::fs::write(&keys, text("Keyz", "nexu")).unwrap();
    assert!(!run().contains("\"rule\": \"RL001\""));
    std::fs::write(&keys, text("Keys", "next")).unwrap();
    // Make sure the modification time moves even on a coarse clock.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&keys)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert!(run().contains("\"rule\": \"RL001\""));
}

#[test]
fn a_file_list_is_the_report_scope_and_the_project_gives_the_facts() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir(p.join(".git")).unwrap();
    std::fs::create_dir(p.join("src")).unwrap();
    // The region is in Billing.java; the key is minted and sent in Gateway.java.
    std::fs::write(
        p.join("src/Billing.java"),
        "package a;\nimport org.springframework.retry.annotation.Retryable;\nclass Billing {\n  private final Gateway gateway = new Gateway();\n  @Retryable\n  void run() {\n    gateway.charge();\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(
        p.join("src/Gateway.java"),
        "package a;\nimport java.util.UUID;\nclass Gateway {\n  void charge() {\n    Client.options().setIdempotencyKey(UUID.randomUUID().toString());\n  }\n}\n",
    )
    .unwrap();
    let findings = |args: &[&str]| {
        let out = retrylint().current_dir(p).args(args).output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{}:{}", f["path"].as_str().unwrap(), f["line"]))
            .collect::<Vec<_>>()
    };
    let full = findings(&["check", "--format", "json", "--no-cache", "."]);
    assert_eq!(full, vec!["src/Gateway.java:5"]);
    // Only the changed file is passed: the @Retryable caller in the other file still counts.
    assert_eq!(
        findings(&[
            "check",
            "--format",
            "json",
            "--no-cache",
            "src/Gateway.java"
        ]),
        full
    );
    // Only the caller is passed: the finding's region lies in it, so the finding is in scope
    // (a change to the retry settings is checked against what it retries).
    assert_eq!(
        findings(&[
            "check",
            "--format",
            "json",
            "--no-cache",
            "src/Billing.java"
        ]),
        full
    );
    // A file that has no part in the finding reports nothing.
    std::fs::write(p.join("src/Other.java"), "package a;\nclass Other {}\n").unwrap();
    assert!(findings(&["check", "--format", "json", "--no-cache", "src/Other.java"]).is_empty());
}

/// The concise report of `retrylint check PATH` run in `dir`.
fn concise(dir: &Path, path: &str) -> String {
    let out = retrylint()
        .current_dir(dir)
        .args([
            "check",
            path,
            "--no-cache",
            "--format",
            "concise",
            "--exit-zero",
            "-q",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A multi-module build scanned from its own root (`retrylint check .`) is the same project as
/// when it is scanned from a directory above it: the root's `settings.gradle.kts` and build file
/// tie its modules together either way (scanning from the root once gave each module a build of
/// its own, so calls across modules were lost).
#[test]
fn a_build_scanned_from_its_root_or_from_above_gives_the_same_findings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/modules_gradle");
    let lines = |dir: &Path, path: &str, prefix: &str| -> Vec<String> {
        concise(dir, path)
            .lines()
            .filter(|l| l.contains(": RL00"))
            // `path:line:col: RLxxx`; the message names other files by their shown path.
            .map(|l| {
                let l = l.strip_prefix(prefix).unwrap_or(l);
                l[..l.find(": RL00").unwrap_or(0) + ": RL00x".len()].to_string()
            })
            .collect()
    };
    let from_root = lines(&root, ".", "");
    let from_above = lines(root.parent().unwrap(), "modules_gradle", "modules_gradle/");
    assert!(
        from_root
            .iter()
            .any(|l| l.contains("SettlementService.java")),
        "the cross-module finding is there: {from_root:#?}"
    );
    assert_eq!(from_root, from_above);
}

/// The same with a dependency the build reader cannot see (declared through a convention
/// plugin): the one class of that name in the same build stands in for it, from the root too.
#[test]
fn an_unseen_dependency_resolves_in_the_same_build_from_its_root() {
    let d = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| {
        let p = d.path().join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w("settings.gradle", "include 'app', 'keys'\n");
    w("build.gradle", "allprojects { group = 'acme' }\n");
    w("keys/build.gradle", "plugins { id 'java-library' }\n");
    w(
        "app/build.gradle",
        "plugins { id 'acme.service-conventions' }\n",
    );
    w(
        "keys/src/main/java/acme/keys/Gateway.java",
        "package acme.keys;\n\nimport java.util.UUID;\n\npublic class Gateway {\n    public void send() {\n        Client.options().setIdempotencyKey(UUID.randomUUID().toString());\n    }\n}\n",
    );
    w(
        "app/src/main/java/acme/app/Billing.java",
        "package acme.app;\n\nimport acme.keys.Gateway;\nimport org.springframework.retry.annotation.Retryable;\n\npublic class Billing {\n    private final Gateway gateway = new Gateway();\n\n    @Retryable\n    public void charge() {\n        gateway.send();\n    }\n}\n",
    );
    for (dir, path) in [(d.path().to_path_buf(), "."), (d.path().join("app"), "..")] {
        let text = concise(&dir, path);
        assert!(
            text.contains("Gateway.java:7:44: RL001"),
            "from {}: {text}",
            dir.display()
        );
    }
}

/// A user's catalogue rows with ids: each finding names the rows that made it, in JSON and in
/// SARIF, and the ids do not change its fingerprint.
#[test]
fn findings_name_the_catalogue_rows_that_made_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("PayoutJob.java"),
        r#"package com.acme.payouts;

import com.acme.platform.ids.Tickets;
import com.acme.platform.ledger.Ledger;
import com.acme.platform.ledger.TransferRequest;
import com.acme.platform.retry.Resilient;

public class PayoutJob {
    private final Ledger ledger;

    public PayoutJob(Ledger ledger) {
        this.ledger = ledger;
    }

    @Resilient(attempts = 5)
    public void payout(String account, long cents) {
        String ticket = Tickets.next();
        ledger.submit(new TransferRequest(ticket, account, cents));
    }

    @Resilient(attempts = 5)
    public void notifyOwner(String owner) {
        ledger.post(owner);
    }
}
"#,
    )
    .unwrap();
    // Every row has an id; `tag` renames them, so that fingerprints can be compared.
    let catalogue = |tag: &str| {
        format!(
            r#"[[regions.annotation]]
id = "region.acme-resilient{tag}"
annotations = ["com.acme.platform.retry.Resilient"]
label = "@Resilient method"

[[sources.source]]
id = "source.acme-ticket{tag}"
kind = "random"
classes = ["com.acme.platform.ids.Tickets"]
static = ["next"]

[[sinks.constructor]]
id = "sink.acme-transfer-request{tag}"
classes = ["com.acme.platform.ledger.TransferRequest"]
arg = 0

[[side_effects.call]]
id = "side-effect.acme-ledger-post{tag}"
classes = ["com.acme.platform.ledger.Ledger"]
instance = ["post"]
label = "a ledger posting"
"#
        )
    };
    let run = |tag: &str, format: &str| {
        let cat = dir.path().join(format!("catalogue{tag}.toml"));
        std::fs::write(&cat, catalogue(tag)).unwrap();
        let out = retrylint()
            .args(["check", "--no-cache", "--format", format, "--catalogue"])
            .arg(&cat)
            .arg(dir.path().join("PayoutJob.java"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let v = run("", "json");
    let rows = |rule: &str| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == rule)
            .unwrap_or_else(|| panic!("an {rule} finding in {v:#}"))["rows"]
            .clone()
    };
    assert_eq!(
        rows("RL001"),
        serde_json::json!({
            "source": ["source.acme-ticket"],
            "sink": ["sink.acme-transfer-request"],
            "region": ["region.acme-resilient"],
            "side_effect": [],
        })
    );
    assert_eq!(
        rows("RL004"),
        serde_json::json!({
            "source": [],
            "sink": [],
            "region": ["region.acme-resilient"],
            "side_effect": ["side-effect.acme-ledger-post"],
        })
    );
    let sarif = run("", "sarif");
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "RL001", "{sarif:#}");
    assert_eq!(
        result["properties"]["retrylint/rows"]["source"],
        serde_json::json!(["source.acme-ticket"])
    );
    // Not part of the fingerprint: the same findings made by rows of other ids have the same ones.
    let fingerprints = |v: &serde_json::Value| -> Vec<String> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["fingerprint"].as_str().unwrap().to_string())
            .collect()
    };
    let renamed = run("-v2", "json");
    assert_eq!(fingerprints(&v), fingerprints(&renamed));
    assert_eq!(
        renamed["findings"][0]["rows"]["source"],
        serde_json::json!(["source.acme-ticket-v2"])
    );
}

#[test]
fn a_retry_template_of_unresolved_type_is_one_region() {
    // Spring Retry's and Spring Framework 7's RetryTemplate rows both accept a receiver named
    // `retry…` whose type is not imported: the message names the callback once.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("LedgerPoster.java"),
        "package com.acme.ledger;\nimport java.util.UUID;\nclass LedgerPoster {\n  private LedgerApi api;\n  private RetryTemplate retryTemplate;\n  void post(String entry) {\n    retryTemplate.execute(ctx -> api.post(entry, UUID.randomUUID().toString()));\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("LedgerApi.java"),
        "package com.acme.ledger;\ninterface LedgerApi { String post(String entry, String idempotencyKey); }\n",
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "check",
        "--format",
        "json",
        dir.path().to_str().unwrap(),
    ]))
    .unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{v}");
    let message = findings[0]["message"].as_str().unwrap();
    assert_eq!(
        message.matches("RetryTemplate.execute callback").count(),
        1,
        "{message}"
    );
}

#[test]
fn a_latin1_file_keeps_its_columns() {
    // `é` written in Latin-1 is one byte that is not UTF-8: the finding after it on its line
    // has the column of the same file written in ASCII.
    let dir = tempfile::tempdir().unwrap();
    let java = |comment: &[u8]| {
        let mut v = b"package a;\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nimport com.stripe.net.RequestOptions;\nclass P {\n  @Retryable\n  public void f() {\n    /* ".to_vec();
        v.extend_from_slice(comment);
        v.extend_from_slice(b" */ RequestOptions o = RequestOptions.builder().setIdempotencyKey(UUID.randomUUID().toString()).build();\n  }\n}\n");
        v
    };
    std::fs::create_dir(dir.path().join("latin1")).unwrap();
    std::fs::create_dir(dir.path().join("ascii")).unwrap();
    std::fs::write(dir.path().join("latin1/P.java"), java(b"caf\xe9 cr\xe8me")).unwrap();
    std::fs::write(dir.path().join("ascii/P.java"), java(b"cafe creme")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "check",
        "--format",
        "json",
        dir.path().to_str().unwrap(),
    ]))
    .unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "{v}");
    assert_eq!(findings[0]["column"], findings[1]["column"], "{v}");
    assert_eq!(findings[0]["column"], 84, "{v}");
}

#[test]
fn an_interceptor_located_at_its_retryer_names_it() {
    // A Feign interceptor bean is a region because a `Retryer` bean makes its client re-send;
    // the region is located at that bean, and the message says what the line is.
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "check",
        "--format",
        "json",
        "--no-cache",
        "fixtures/interceptors/feign",
    ]))
    .unwrap();
    let findings = v["findings"].as_array().unwrap();
    let f = findings
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("PspFeignConfig.java") && f["line"] == 25)
        .unwrap_or_else(|| panic!("{v}"));
    let region = &f["regions"][0];
    assert_eq!(region["line"], 17, "{region}");
    let source =
        std::fs::read_to_string("fixtures/interceptors/feign/PspFeignConfig.java").unwrap();
    assert!(source.lines().nth(16).unwrap().contains("Retryer"));
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("re-sent by its client's `Retryer` bean (line 17)"),
        "{message}"
    );
}
