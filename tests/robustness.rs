//! SPEC 13: no input makes a run panic, hang or lose the findings of other files. Every input is
//! generated here, at test time.

use assert_cmd::Command;
use std::path::Path;

const UNSAFE: &str = "fixtures/spring_retry/RetryableUuidUnsafe.java";

fn retrylint() -> Command {
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.env("NO_COLOR", "1")
        .timeout(std::time::Duration::from_secs(120));
    c
}

/// Scan `dir` (which also holds a copy of a known unsafe file) in every format; the known
/// finding must be there, the run must not fail, and JSON and SARIF must parse.
fn scan(dir: &Path) -> serde_json::Value {
    std::fs::copy(UNSAFE, dir.join("KnownUnsafe.java")).unwrap();
    for format in ["text", "github", "sarif"] {
        let out = retrylint()
            .args(["check", "--format", format, dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if format == "sarif" {
            serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("SARIF parses");
        }
    }
    let out = retrylint()
        .args(["check", "--format", "json", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON parses");
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"].as_str().unwrap().ends_with("KnownUnsafe.java")),
        "the finding in the other file is lost"
    );
    v
}

fn finding_in<'a>(v: &'a serde_json::Value, file: &str) -> Vec<&'a serde_json::Value> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"].as_str().unwrap().ends_with(file))
        .collect()
}

const RETRIED: &str = "import java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nclass C {\n  @Retryable\n  void f(Client client) {\n    client.setIdempotencyKey(UUID.randomUUID().toString());\n  }\n}\n";

#[test]
fn broken_and_odd_sources() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("Syntax.java"), "class A { void f( { int x = ; } }").unwrap();
    std::fs::write(
        p.join("Conflict.java"),
        format!("<<<<<<< HEAD\n{RETRIED}=======\nclass C {{}}\n>>>>>>> branch\n"),
    )
    .unwrap();
    std::fs::write(p.join("Empty.java"), "").unwrap();
    std::fs::write(
        p.join("Latin1.java"),
        b"class L { String s = \"caf\xe9\"; }\n",
    )
    .unwrap();
    std::fs::write(p.join("Binary.java"), [0u8, 159, 146, 150, 0, 1, 2, 3]).unwrap();
    std::fs::create_dir(p.join("Directory.java")).unwrap();
    std::fs::write(
        p.join("LongLine.java"),
        format!(
            "class Long {{ String s = \"{}\"; }}\n",
            "x".repeat(10 << 20)
        ),
    )
    .unwrap();
    let v = scan(p);
    let errors = v["errors"].as_array().unwrap();
    assert!(
        errors
            .iter()
            .any(|e| e["path"].as_str().unwrap().ends_with("Binary.java"))
    );
    assert!(errors.iter().any(
        |e| e["path"].as_str().unwrap().ends_with("Syntax.java") && e["severity"] == "warning"
    ));
}

#[test]
fn line_endings_bom_tabs_and_wide_characters_keep_positions() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("Crlf.java"), RETRIED.replace('\n', "\r\n")).unwrap();
    std::fs::write(p.join("Bom.java"), format!("\u{feff}{RETRIED}")).unwrap();
    // A wide character and a tab before the source on its line: SARIF counts UTF-16 units.
    let wide = RETRIED.replace(
        "    client.setIdempotencyKey(UUID.randomUUID().toString());",
        "\tString 𝔘 = \"€\"; client.setIdempotencyKey(UUID.randomUUID().toString());",
    );
    std::fs::write(p.join("Wide.java"), wide).unwrap();
    let v = scan(p);
    for file in ["Crlf.java", "Bom.java"] {
        let f = finding_in(&v, file);
        assert_eq!(f.len(), 1, "{file}");
        assert_eq!(f[0]["line"], 6, "{file}");
        assert_eq!(f[0]["column"], 30, "{file}");
    }
    let f = finding_in(&v, "Wide.java");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["line"], 6);
    // `\t` 1 + `String ` 7 + `𝔘` 2 (a surrogate pair) + ` = "€"; ` 8 + `client.setIdempotencyKey(` 25 = 43
    assert_eq!(f[0]["column"], 44);
}

#[test]
fn deep_nesting_does_not_overflow() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let n = 100_000;
    std::fs::write(
        p.join("Parens.java"),
        format!(
            "class P {{ int f() {{ return {}1{}; }} }}",
            "(".repeat(n),
            ")".repeat(n)
        ),
    )
    .unwrap();
    std::fs::write(
        p.join("Blocks.java"),
        format!(
            "class B {{ void f() {{ {}{} }} }}",
            "{".repeat(n),
            "}".repeat(n)
        ),
    )
    .unwrap();
    std::fs::write(
        p.join("Lambdas.java"),
        format!(
            "class L {{ Object f() {{ return {}1; }} }}",
            "x -> ".repeat(n)
        ),
    )
    .unwrap();
    std::fs::write(
        p.join("Chain.java"),
        format!("class C {{ void f() {{ a{}; }} }}", ".b()".repeat(n)),
    )
    .unwrap();
    std::fs::write(
        p.join("Concat.java"),
        format!(
            "class S {{ String f() {{ return \"a\"{}; }} }}",
            " + \"a\"".repeat(n)
        ),
    )
    .unwrap();
    scan(p);
}

#[test]
fn a_large_file_is_analysed() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // About 12 MB of methods, with one finding at the end.
    let mut big = String::from(
        "import java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nclass Big {\n",
    );
    for i in 0..120_000 {
        big.push_str(&format!("  int m{i}(int a) {{ return a + {i}; }}\n"));
    }
    big.push_str("  @Retryable\n  void f(Client c) {\n    c.setIdempotencyKey(UUID.randomUUID().toString());\n  }\n}\n");
    std::fs::write(p.join("Big.java"), &big).unwrap();
    let v = scan(p);
    assert_eq!(finding_in(&v, "Big.java").len(), 1);
}

#[cfg(unix)]
#[test]
fn symlink_loops_fifos_and_odd_names() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::os::unix::fs::symlink(p, p.join("loop")).unwrap();
    std::os::unix::fs::symlink(p.join("missing.java"), p.join("Dangling.java")).unwrap();
    let fifo = p.join("Pipe.java");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for name in [
        "With Space.java",
        "Per%cent.java",
        "Hash#.java",
        "Ünïcødé.java",
    ] {
        std::fs::write(p.join(name), RETRIED).unwrap();
    }
    let v = scan(p);
    // `%` is shown as `%25`, so that a `%5C` in a name never reads as an escaped backslash.
    for name in [
        "With Space.java",
        "Per%25cent.java",
        "Hash#.java",
        "Ünïcødé.java",
    ] {
        assert_eq!(finding_in(&v, name).len(), 1, "{name}");
    }
    let out = retrylint()
        .args(["check", "--format", "sarif", p.to_str().unwrap()])
        .output()
        .unwrap();
    let sarif = String::from_utf8(out.stdout).unwrap();
    assert!(
        sarif.contains("With%20Space.java")
            && sarif.contains("Per%25cent.java")
            && sarif.contains("Hash%23.java")
    );
}

/// A file reached twice (through a link to it in the tree) is analysed once, under its own
/// path; links that form a loop are reported as problems of the walk, and the exit status is
/// still that of the findings.
#[cfg(unix)]
#[test]
fn a_linked_file_is_analysed_once_and_link_loops_are_reported() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let pay = p.join("pay");
    std::fs::create_dir(&pay).unwrap();
    std::fs::write(pay.join("Billing.java"), RETRIED).unwrap();
    // `ABilling.java` sorts before the file it links to.
    std::os::unix::fs::symlink("Billing.java", pay.join("ABilling.java")).unwrap();
    std::os::unix::fs::symlink("Billing.java", pay.join("BillingAlias.java")).unwrap();
    std::os::unix::fs::symlink("b", p.join("a")).unwrap();
    std::os::unix::fs::symlink("a", p.join("b")).unwrap();
    std::os::unix::fs::symlink(".", pay.join("self")).unwrap();
    let v = scan(p);
    assert_eq!(finding_in(&v, "Billing.java").len(), 1, "{v}");
    assert!(finding_in(&v, "pay/Billing.java").len() == 1, "{v}");
    assert!(finding_in(&v, "Alias.java").is_empty() && finding_in(&v, "ABilling.java").is_empty());
    assert_eq!(v["summary"]["files_scanned"], 2, "{v}");
    let mut loops: Vec<(String, String)> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let path = e["path"].as_str().unwrap();
            let name = path.rsplit('/').next().unwrap().to_string();
            (name, e["message"].as_str().unwrap().to_string())
        })
        .collect();
    loops.sort();
    let names: Vec<&str> = loops.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "self"], "{v}");
    assert!(
        loops
            .iter()
            .all(|(_, m)| m.starts_with("symbolic link loop")),
        "{loops:?}"
    );
    // The loops are problems of the walk, not findings: the exit status is the findings'.
    let out = retrylint()
        .args(["check", "--no-cache", "--exit-zero", "--format", "concise"])
        .arg(p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("/a: error: symbolic link loop"), "{text}");
    assert!(text.contains("/self: error: symbolic link loop"), "{text}");
}

#[test]
fn hostile_names_and_code_cannot_inject() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let evil = "Evil\u{1b}[31m::error file=x::pwned%0A.java";
    if std::fs::write(
        p.join(evil),
        RETRIED.replace("class C", "class C /* \u{1b}]0;title\u{7} */"),
    )
    .is_err()
    {
        return; // a file system that refuses the name
    }
    std::fs::copy(UNSAFE, p.join("KnownUnsafe.java")).unwrap();
    let text = retrylint()
        .args(["check", p.to_str().unwrap()])
        .output()
        .unwrap()
        .stdout;
    assert!(
        !text.contains(&0x1b),
        "an escape sequence reached the terminal"
    );
    let gh = String::from_utf8(
        retrylint()
            .args(["check", "--format", "github", p.to_str().unwrap()])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    for line in gh.lines() {
        assert!(
            line.starts_with("::error ") || line.starts_with("::warning "),
            "{line}"
        );
        assert_eq!(line.matches("::").count(), 2, "an injected command: {line}");
    }
}

#[test]
fn the_size_limit_is_reported_and_can_be_raised() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("Small.java"), RETRIED).unwrap();
    let out = retrylint()
        .args([
            "check",
            "--format",
            "json",
            "--max-file-size",
            "100",
            p.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(v["errors"][0]["kind"], "skipped");
    let out = retrylint()
        .args([
            "check",
            "--format",
            "json",
            "--max-file-size",
            "100000",
            p.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}
