//! The first hour of a user: output made for triage (concise, statistics, rule lists), the
//! settings a run used, and no silent surprises, each through the command line.

use assert_cmd::Command;
use std::path::Path;

fn retrylint(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CI")
        .current_dir(dir);
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

/// A @Retryable method `pay` in class `class` whose body is `body`.
fn pay(class: &str, body: &str) -> String {
    format!(
        "package a;\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nclass {class} {{\n  @Retryable\n  void pay(Client c) {{\n{body}  }}\n}}\n"
    )
}

const KEY: &str = "    c.setIdempotencyKey(UUID.randomUUID().toString());\n";
const CLOCK: &str = "    c.setIdempotencyKey(\"k\" + System.currentTimeMillis());\n";

/// (exit status, standard output, standard error)
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = retrylint(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn two_files() -> tempfile::TempDir {
    repo(&[
        ("src/Pay.java", &pay("Pay", KEY)),
        ("src/Clock.java", &pay("Clock", &format!("{CLOCK}{KEY}"))),
    ])
}

#[test]
fn concise_is_one_line_per_finding_with_its_path() {
    let dir = two_files();
    let (code, out, err) = run(dir.path(), &["check", "--no-cache", "--format", "concise"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out, @r"
    src/Clock.java:7:31: RL002 System.currentTimeMillis() is read on every attempt of the @Retryable method `pay` (line 5) and becomes the idempotency key as the SDK option `setIdempotencyKey` at line 7: each retry sends a new key
    src/Clock.java:8:25: RL001 UUID.randomUUID() is evaluated on every attempt of the @Retryable method `pay` (line 5) and becomes the idempotency key as the SDK option `setIdempotencyKey` at line 8: each retry sends a new key
    src/Pay.java:7:25: RL001 UUID.randomUUID() is evaluated on every attempt of the @Retryable method `pay` (line 5) and becomes the idempotency key as the SDK option `setIdempotencyKey` at line 7: each retry sends a new key
    3 findings (RL001: 2, RL002: 1) in 2 Java files
    ");
    // The summary line once: at the end of the report, not again on standard error.
    assert_eq!(err, "");
    let (_, json, err) = run(dir.path(), &["check", "--no-cache", "--format", "json"]);
    assert!(json.starts_with('{'));
    assert!(
        err.starts_with("retrylint: 3 findings (RL001: 2, RL002: 1) in 2 Java files ("),
        "{err}"
    );
}

#[test]
fn statistics_count_each_rule() {
    let dir = two_files();
    let (code, out, _) = run(dir.path(), &["check", "--no-cache", "--statistics"]);
    assert_eq!(code, 1, "the exit status still follows the findings");
    insta::assert_snapshot!(out, @r"
    2  RL001  error    random-idempotency-key-in-retry
    1  RL002  error    clock-idempotency-key-in-retry
    3 findings (RL001: 2, RL002: 1) in 2 Java files
    ");
    let (_, out, _) = run(
        dir.path(),
        &["check", "--no-cache", "--statistics", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["rule"], "RL001");
    assert_eq!(v[0]["count"], 2);
    assert_eq!(v[1]["name"], "clock-idempotency-key-in-retry");
    let (code, _, err) = run(dir.path(), &["check", "--statistics", "--format", "sarif"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: --statistics prints a table"),
        "{err}"
    );
}

#[test]
fn select_takes_prefixes_and_spaces() {
    let dir = two_files();
    let ids = |args: &[&str]| {
        let mut all = vec!["check", "--no-cache", "--statistics", "--format", "json"];
        all.extend(args);
        let (_, out, err) = run(dir.path(), &all);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{err}"));
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["rule"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&["--select", "RL001, RL002"]), ["RL001", "RL002"]);
    assert_eq!(ids(&["--select", "RL00", "--ignore", " rl001"]), ["RL002"]);
    assert_eq!(
        ids(&["--select", "clock-idempotency-key-in-retry"]),
        ["RL002"]
    );
    assert_eq!(ids(&["--ignore", "RL0"]), Vec::<String>::new());
    let (code, _, err) = run(dir.path(), &["check", "--select", "RL9"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "error: unknown rule `RL9`: give a rule id (RL001), a name or an id prefix (RL00) (see `retrylint rules`)"
    );
}

#[test]
fn rules_as_json_and_every_explanation() {
    let dir = repo(&[]);
    let (code, out, _) = run(dir.path(), &["rules", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules = v.as_array().unwrap();
    assert_eq!(rules.len(), 8);
    assert_eq!(rules[0]["id"], "RL001");
    assert_eq!(rules[0]["level"], "error");
    assert!(
        rules[0]["documentation"]
            .as_str()
            .unwrap()
            .contains("## How to fix")
    );
    let (code, out, _) = run(dir.path(), &["explain", "--all"]);
    assert_eq!(code, 0);
    for id in [
        "RL001", "RL002", "RL003", "RL004", "RL005", "RL006", "RL100", "RL101",
    ] {
        assert!(
            out.contains(&format!("\n{id} (")) || out.starts_with(id),
            "{id}"
        );
    }
    let (code, _, _) = run(dir.path(), &["explain"]);
    assert_eq!(code, 2, "a rule or --all is needed");
}

#[test]
fn the_settings_and_the_summary_name_the_config_file() {
    let dir = repo(&[
        (
            "retrylint.toml",
            "exclude = [\"gen/\"]\nfail-level = \"error\"\n[rules]\nRL004 = \"off\"\n[per-file-ignores]\n\"src/test/**\" = [\"RL00\"]\n",
        ),
        ("src/Pay.java", &pay("Pay", KEY)),
    ]);
    let (code, out, err) = run(dir.path(), &["check", "--show-settings"]);
    assert_eq!((code, err.as_str()), (0, ""));
    for line in [
        "config file:            retrylint.toml\n",
        "exclude:                gen/\n",
        "per-file-ignores:       src/test/** = RL001, RL002, RL003, RL004, RL005, RL006\n",
        "rule RL001:             error   random-idempotency-key-in-retry\n",
        "rule RL004:             off     unkeyed-side-effect-in-retry\n",
        "fail-level:             error\n",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    let (_, out, _) = run(dir.path(), &["check", "--no-cache", "--format", "concise"]);
    assert!(
        out.ends_with("1 finding (RL001: 1) in 1 Java file; settings from retrylint.toml (RL004 off, RL001/RL002/RL003/RL004/RL005/RL006 off in `src/test/**`, fail-level error)\n"),
        "{out}"
    );
    let (_, out, _) = run(dir.path(), &["check", "--no-config", "--show-settings"]);
    assert!(
        out.starts_with("config file:            (none: --no-config)\n"),
        "{out}"
    );
}

#[test]
fn per_file_ignores_switch_rules_off_in_matching_files() {
    let dir = repo(&[
        (
            "retrylint.toml",
            "[per-file-ignores]\n\"src/test/**\" = [\"RL001\"]\n\"Legacy.java\" = [\"RL00\"]\n",
        ),
        ("src/main/Pay.java", &pay("Pay", KEY)),
        (
            "src/test/PayTest.java",
            &pay("PayTest", &format!("{CLOCK}{KEY}")),
        ),
        ("src/main/Legacy.java", &pay("Legacy", KEY)),
    ]);
    let (code, out, _) = run(dir.path(), &["check", "--no-cache", "--format", "concise"]);
    assert_eq!(code, 1);
    let paths: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(": RL"))
        .map(|l| l.split(": ").next().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["src/main/Pay.java:7:25", "src/test/PayTest.java:7:31"]
    );
    assert!(out.contains("src/test/PayTest.java:7:31: RL002"), "{out}");
}

/// `[per-file-ignores]` shapes the run as much as a rule switched off: every output format says
/// which rules it switches off where, and how many findings it hid.
#[test]
fn per_file_ignores_are_shown_in_every_format() {
    let dir = repo(&[
        (
            "retrylint.toml",
            "# Generated code.\n[per-file-ignores]\n\"src/gen/**\" = [\"RL00\"]\n",
        ),
        ("src/Pay.java", &pay("Pay", KEY)),
        ("src/gen/Gen.java", &pay("Gen", KEY)),
        ("src/gen/Other.java", &pay("Other", KEY)),
    ]);
    let ids = "RL001/RL002/RL003/RL004/RL005/RL006";
    let (code, out, _) = run(dir.path(), &["check", "--no-cache", "--format", "concise"]);
    assert_eq!(code, 1);
    assert!(
        out.ends_with(&format!(
            "1 finding (RL001: 1) in 3 Java files; settings from retrylint.toml ({ids} off in `src/gen/**`, 2 findings hidden by per-file-ignores)\n"
        )),
        "{out}"
    );
    let want =
        serde_json::json!({ "src/gen/**": ["RL001", "RL002", "RL003", "RL004", "RL005", "RL006"] });
    let (_, out, _) = run(dir.path(), &["check", "--no-cache", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["summary"]["config"]["per_file_ignores"], want);
    assert_eq!(json["summary"]["config"]["per_file_ignored"], 2);
    assert_eq!(json["summary"]["findings"], 1);
    let (_, out, _) = run(dir.path(), &["check", "--no-cache", "--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    let config = &sarif["runs"][0]["invocations"][0]["properties"]["configuration"];
    assert_eq!(config["per_file_ignores"], want);
    assert_eq!(config["per_file_ignored"], 2);
    let (_, out, _) = run(dir.path(), &["check", "--no-cache", "--format", "github"]);
    let notice = out
        .lines()
        .find(|l| l.contains("title=retrylint configuration"))
        .unwrap();
    assert!(
        notice.ends_with(&format!(
            "::this run used retrylint.toml ({ids} off in `src/gen/**`, 2 findings hidden by per-file-ignores)"
        )),
        "{notice}"
    );
    // The text report's summary line too.
    let (_, out, _) = run(dir.path(), &["check", "--no-cache"]);
    assert!(
        out.contains("off in `src/gen/**`, 2 findings hidden by per-file-ignores)"),
        "{out}"
    );
}

#[test]
fn no_java_file_found_is_said_on_standard_error() {
    let dir = repo(&[
        ("retrylint.toml", "include = [\"scr/**\"]\n"),
        ("src/Pay.java", &pay("Pay", KEY)),
    ]);
    let (code, out, err) = run(dir.path(), &["check", "--no-cache", "--format", "concise"]);
    assert_eq!(code, 0);
    assert!(
        out.ends_with(
            "0 findings in 0 Java files; settings from retrylint.toml (1 file excluded)\n"
        ),
        "{out}"
    );
    assert_eq!(
        err.trim(),
        "warning: no Java files found to analyse in `.`; check the paths and `include`/`exclude` in retrylint.toml"
    );
    // Also with --quiet: it is not progress, it is a problem.
    let (_, _, err) = run(dir.path(), &["check", "--no-cache", "-q", "src"]);
    assert!(
        err.starts_with("warning: no Java files found to analyse in `src`"),
        "{err}"
    );
}

#[test]
fn colour_follows_force_color_and_no_color() {
    let dir = repo(&[("Pay.java", &pay("Pay", KEY))]);
    let concise = ["check", "--no-cache", "--format", "concise"];
    let mut c = Command::cargo_bin("retrylint").unwrap();
    let out = c
        .env_remove("NO_COLOR")
        .env("FORCE_COLOR", "1")
        .current_dir(dir.path())
        .args(concise)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\x1b[1;31mRL001\x1b[0m"), "{text:?}");
    let mut c = Command::cargo_bin("retrylint").unwrap();
    let out = c
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .current_dir(dir.path())
        .args(["check", "--no-cache"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("\x1b["));
    let mut c = Command::cargo_bin("retrylint").unwrap();
    let out = c
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "1")
        .current_dir(dir.path())
        .args(concise)
        .output()
        .unwrap();
    assert!(!String::from_utf8(out.stdout).unwrap().contains('\x1b'));
    // A file report is never coloured.
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.env("FORCE_COLOR", "1")
        .env_remove("NO_COLOR")
        .current_dir(dir.path())
        .args(["check", "--no-cache", "--format", "concise", "-o", "r.txt"])
        .output()
        .unwrap();
    let file = std::fs::read_to_string(dir.path().join("r.txt")).unwrap();
    assert!(!file.contains('\x1b'), "{file:?}");
}

#[test]
fn text_frames_label_the_source_inside_the_sink_call_and_do_not_wrap_in_a_pipe() {
    let long = "    c.setIdempotencyKey(UUID.randomUUID().toString()); // a comment long enough to pass the 110 columns that a terminal once had\n";
    let dir = repo(&[("Pay.java", &pay("Pay", long))]);
    let (_, out, _) = run(dir.path(), &["check", "--no-cache"]);
    insta::assert_snapshot!(out, @r"
    RL001 random-idempotency-key-in-retry

      × UUID.randomUUID() is evaluated on every attempt of the @Retryable method `pay` (line 5) and becomes the idempotency key as the SDK option `setIdempotencyKey` at line 7: each retry sends a new key
       ╭─[Pay.java:7:25]
     4 │ class Pay {
     5 │   @Retryable
       ·   ─────┬────
       ·        ╰── re-executed region
     6 │   void pay(Client c) {
     7 │     c.setIdempotencyKey(UUID.randomUUID().toString()); // a comment long enough to pass the 110 columns that a terminal once had
       ·       ────────┬──────── ────────┬────────
       ·               │                 ╰── per-attempt value
       ·               ╰── idempotency key
     8 │   }
       ╰────
      help: Compute the key once, before the retried code (`retrylint explain RL001`)

    1 finding (RL001: 1) in 1 Java file
    ");
}

#[test]
fn write_baseline_is_quiet_and_stale_entries_are_reported() {
    let dir = two_files();
    let (code, out, err) = run(
        dir.path(),
        &["check", "--no-cache", "--write-baseline", "baseline.json"],
    );
    assert_eq!(code, 0);
    assert_eq!(out, "", "the findings are recorded, not printed");
    assert!(
        err.contains("recorded 3 finding(s) in baseline.json"),
        "{err}"
    );
    // Fix one finding: its entry is stale.
    std::fs::write(dir.path().join("src/Pay.java"), pay("Pay", "")).unwrap();
    let (code, out, err) = run(
        dir.path(),
        &[
            "check",
            "--no-cache",
            "--baseline",
            "baseline.json",
            "--format",
            "concise",
        ],
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("0 findings in 2 Java files; 2 in the baseline"),
        "{out}"
    );
    assert_eq!(
        err.trim(),
        "retrylint: 1 baseline entry no longer matches a finding (fixed, or the line changed); run with `--write-baseline baseline.json` to drop it"
    );
}

#[test]
fn an_unwritable_output_fails_before_the_scan() {
    let dir = repo(&[("Pay.java", &pay("Pay", KEY))]);
    // The missing path would fail the scan; the report's directory is checked first.
    let (code, _, err) = run(
        dir.path(),
        &["check", "--output", "no/such/dir/report.sarif", "missing"],
    );
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: cannot write the report to `no/such/dir/report.sarif`:"),
        "{err}"
    );
    // A report file created for the check is removed when the run fails.
    let (code, _, _) = run(dir.path(), &["check", "--output", "r.json", "missing"]);
    assert_eq!(code, 2);
    assert!(!dir.path().join("r.json").exists());
}

#[test]
fn a_file_skipped_for_its_size_gets_no_unused_suppression() {
    let big = pay(
        "Big",
        &format!(
            "    // retrylint:ignore RL001 -- reviewed\n{KEY}{}",
            "    int x = 0;\n".repeat(200)
        ),
    );
    let dir = repo(&[("Big.java", &big), ("Pay.java", &pay("Pay", ""))]);
    let (code, out, _) = run(
        dir.path(),
        &[
            "check",
            "--no-cache",
            "--format",
            "concise",
            "--report-unused-ignores",
            "--max-file-size",
            "1000",
        ],
    );
    assert!(!out.contains("RL100"), "{out}");
    assert!(out.contains("Big.java: error:"), "{out}");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn suppression_near_misses_are_reported_once() {
    let body = "    c.setIdempotencyKey(UUID.randomUUID().toString()); // retrylint: ignore RL001\n    c.setIdempotencyKey(UUID.randomUUID().toString()); // retrylint:ignore RL001 because the client retries\n    c.setIdempotencyKey(UUID.randomUUID().toString()); // RETRYLINT:IGNORE\n    c.setIdempotencyKey(UUID.randomUUID().toString()); // retrylint:ignore: RL001 -- reviewed\n    // retrylint:disable\n    c.setIdempotencyKey(UUID.randomUUID().toString());\n";
    let dir = repo(&[("Pay.java", &pay("Pay", body))]);
    let (_, out, _) = run(dir.path(), &["check", "--no-cache", "--format", "concise"]);
    insta::assert_snapshot!(out, @r"
    Pay.java:7:25: RL001 UUID.randomUUID() is evaluated on every attempt of the @Retryable method `pay` (line 5) and becomes the idempotency key as the SDK option `setIdempotencyKey` at line 7: each retry sends a new key
    Pay.java:7:59: RL101 `retrylint: ignore RL001` is not a suppression and suppresses nothing: write `// retrylint:ignore RL001 -- reason`
    Pay.java:8:59: RL101 `retrylint:ignore RL001 because the client retries` names unknown rules `because`, `the`, `client`, `retries`; a reason follows ` -- `, as in `retrylint:ignore RL001 -- reason`
    Pay.java:11:8: RL101 `retrylint:disable` is not a suppression and suppresses nothing: write `// retrylint:ignore RL001 -- reason`
    Pay.java:12:25: RL001 UUID.randomUUID() is evaluated on every attempt of the @Retryable method `pay` (line 5) and becomes the idempotency key as the SDK option `setIdempotencyKey` at line 12: each retry sends a new key
    5 findings (RL001: 2, RL101: 3) in 1 Java file; 3 suppressed
    ");
}

/// The fenced block after `<!-- quickstart:NAME -->` in README.md.
fn readme_block(name: &str) -> String {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let marker = format!("<!-- quickstart:{name} -->");
    let at = readme.find(&marker).expect("README holds the quick start");
    let rest = &readme[at + marker.len()..];
    let body = &rest[rest.find("```").unwrap()..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_readme_quick_start_shows_the_real_output() {
    let java = readme_block("java");
    assert!(java.lines().count() <= 16, "a short example");
    let dir = repo(&[("src/main/java/shop/Billing.java", &java)]);
    let (code, out, _) = run(dir.path(), &["check", "--no-cache"]);
    assert_eq!(code, 1);
    let shown = readme_block("output");
    assert_eq!(format!("$ retrylint check\n{out}"), shown);
}

#[test]
fn sarif_paths_and_the_cache_follow_the_repository_root() {
    let dir = repo(&[("service/src/Pay.java", &pay("Pay", KEY))]);
    let sub = dir.path().join("service");
    let out = retrylint(&sub)
        .args(["check", "--format", "sarif", "src"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &v["runs"][0];
    let loc = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(
        loc["uri"], "service/src/Pay.java",
        "relative to the repository root"
    );
    assert_eq!(loc["uriBaseId"], "%SRCROOT%");
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(
        run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        format!("file://{}/", root.display())
    );
    assert!(
        dir.path().join(".retrylint_cache").is_dir(),
        "the cache at the root"
    );
    assert!(!sub.join(".retrylint_cache").exists());
}

#[test]
fn a_staged_helper_is_blocked_by_the_finding_in_its_unchanged_caller() {
    let billing = "package shop;\nimport org.springframework.retry.annotation.Retryable;\nclass Billing {\n  private final Keys keys = new Keys();\n  @Retryable\n  void charge(Client c, String orderId) {\n    c.setIdempotencyKey(keys.forOrder(orderId));\n  }\n}\n";
    let keys = "package shop;\nimport java.util.UUID;\nclass Keys {\n  String forOrder(String orderId) {\n    return orderId + \"-\" + UUID.randomUUID();\n  }\n}\n";
    let clean = "package shop;\nclass Clean {\n  String name() {\n    return \"clean\";\n  }\n}\n";
    let dir = repo(&[
        ("src/Billing.java", billing),
        ("src/Keys.java", keys),
        ("src/Clean.java", clean),
    ]);
    let args = |file: &'static str| ["check", "--no-cache", "--format", "concise", file];
    // Only the helper is passed (staged): the finding, reported in the caller, is in scope
    // because its value is evaluated in the helper.
    let (code, out, _) = run(dir.path(), &args("src/Keys.java"));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("src/Billing.java:7:25: RL001 UUID.randomUUID()")
            && out.contains("(`charge` → `Keys.forOrder` → `UUID.randomUUID()`)"),
        "{out}"
    );
    let (code, out, _) = run(dir.path(), &args("src/Clean.java"));
    assert_eq!((code, out.as_str()), (0, "0 findings in 1 Java file\n"));
    // A reviewed suppression in the unchanged caller still applies, and is not reported unused.
    let suppressed = billing.replace(
        "    c.setIdempotencyKey(",
        "    // retrylint:ignore RL001 -- the provider deduplicates by order\n    c.setIdempotencyKey(",
    );
    std::fs::write(dir.path().join("src/Billing.java"), suppressed).unwrap();
    let (code, out, _) = run(
        dir.path(),
        &[
            "check",
            "--no-cache",
            "--format",
            "concise",
            "--report-unused-ignores",
            "src/Keys.java",
        ],
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "0 findings in 1 Java file; 1 suppressed\n")
    );
}
