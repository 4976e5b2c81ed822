//! SPEC 9 and 13 through the library: a file that cannot be read, or that disappears during the
//! scan, is reported as a `read` error in every format while the other files' findings stay; a
//! 50 MB file is analysed when the size limit is raised; a warm run reads only the files that
//! changed (the cache knows the others by their stamps). The reader seam stands in for
//! permissions, which do not stop root (CI), and counts the reads.

use retrylint::report::{Format, RenderOptions, render};
use retrylint::source::Reader;
use std::path::{Path, PathBuf};

const UNSAFE: &str = "fixtures/spring_retry/RetryableUuidUnsafe.java";

const RETRIED: &str = "import java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nclass C {\n  @Retryable\n  void f(Client client) {\n    client.setIdempotencyKey(UUID.randomUUID().toString());\n  }\n}\n";

fn is(p: &Path, name: &str) -> bool {
    p.file_name().is_some_and(|n| n == name)
}

/// Every rendering of `report`; JSON and SARIF must parse.
fn rendered(report: &retrylint::Report) -> (String, serde_json::Value, serde_json::Value, String) {
    let opts = RenderOptions {
        color: false,
        sarif_category: None,
        elapsed: None,
        width: None,
        sarif_root: None,
    };
    let text = render(report, Format::Text, &opts);
    let json = serde_json::from_str(&render(report, Format::Json, &opts)).expect("JSON parses");
    let sarif = serde_json::from_str(&render(report, Format::Sarif, &opts)).expect("SARIF parses");
    let github = render(report, Format::Github, &opts);
    (text, json, sarif, github)
}

/// `dir` with a known unsafe file, a file `Victim.java` holding a finding of its own, and a
/// clean one.
fn project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(UNSAFE, d.path().join("KnownUnsafe.java")).unwrap();
    std::fs::write(d.path().join("Victim.java"), RETRIED).unwrap();
    std::fs::write(d.path().join("Clean.java"), "class Clean {}\n").unwrap();
    d
}

/// The run reports `Victim.java` as a `read` error in text, JSON, SARIF and GitHub output, and
/// still reports the finding in `KnownUnsafe.java`.
fn assert_victim_reported(report: &retrylint::Report, why: &str) {
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.path.ends_with("KnownUnsafe.java")),
        "the finding in the other file is lost"
    );
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.path.ends_with("Victim.java"))
    );
    assert_eq!(report.summary.files_failed, 1);
    let (text, json, sarif, github) = rendered(report);

    let errors = json["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0]["path"].as_str().unwrap().ends_with("Victim.java"));
    assert_eq!(errors[0]["kind"], "read");
    assert_eq!(errors[0]["severity"], "error");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains(why), "{message}");

    let notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["level"], "error");
    assert!(
        notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("Victim.java")
    );
    assert!(!sarif["runs"][0]["results"].as_array().unwrap().is_empty());

    assert!(
        text.lines()
            .any(|l| l.starts_with("error: ") && l.contains("Victim.java") && l.contains(why)),
        "{text}"
    );
    assert!(text.contains("1 not analysed"), "{text}");
    assert!(
        github
            .lines()
            .any(|l| l.starts_with("::error file=") && l.contains("Victim.java")),
        "{github}"
    );
}

#[test]
fn an_unreadable_file_is_reported_and_the_rest_analysed() {
    let d = project();
    let mut opts = retrylint::Options::new(vec![d.path().to_path_buf()]);
    opts.reader = Reader::new(|p| {
        if is(p, "Victim.java") {
            Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "permission denied (simulated)",
            ))
        } else {
            std::fs::read(p)
        }
    });
    let report = retrylint::check(&opts).expect("the run itself succeeds");
    assert_victim_reported(&report, "permission denied");
}

#[test]
fn a_file_deleted_during_the_scan_is_reported_and_the_rest_analysed() {
    let d = project();
    let mut opts = retrylint::Options::new(vec![d.path().to_path_buf()]);
    // Found by discovery, then gone from the disk just before it is read.
    opts.reader = Reader::new(|p| {
        if is(p, "Victim.java") {
            std::fs::remove_file(p)?;
        }
        std::fs::read(p)
    });
    let report = retrylint::check(&opts).expect("the run itself succeeds");
    assert!(!d.path().join("Victim.java").exists());
    let message = &report.errors[0].message;
    assert!(message.starts_with("cannot read: "), "{message}");
    assert_victim_reported(&report, "No such file");
}

#[test]
fn a_file_that_becomes_unreadable_after_it_is_analysed_keeps_its_findings() {
    // The read for code frames and line hashes fails: the finding stays, located. (The file is
    // read twice before: scanned as bytes by the prefilter, then parsed.)
    let d = project();
    let reads = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut opts = retrylint::Options::new(vec![d.path().to_path_buf()]);
    let counter = reads.clone();
    opts.reader = Reader::new(move |p| {
        if is(p, "Victim.java") && counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 1 {
            return Err(std::io::Error::other("gone (simulated)"));
        }
        std::fs::read(p)
    });
    let report = retrylint::check(&opts).expect("the run itself succeeds");
    assert!(reads.load(std::sync::atomic::Ordering::SeqCst) >= 3);
    let victim: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.path.ends_with("Victim.java"))
        .collect();
    assert_eq!(victim.len(), 1);
    assert_eq!(victim[0].line, 6);
    rendered(&report);
}

#[test]
fn a_50_mb_file_is_analysed_when_the_limit_is_raised() {
    let d = tempfile::tempdir().unwrap();
    let big: PathBuf = d.path().join("Huge.java");
    // 50 MB: a class of small methods, each under a long comment, with one finding at the end.
    let mut src = String::from(
        "import java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nclass Huge {\n",
    );
    let comment = format!("  // {}\n", "generated ".repeat(100));
    let mut i = 0;
    while src.len() < 50 << 20 {
        src.push_str(&comment);
        src.push_str(&format!("  int m{i}(int a) {{ return a + {i}; }}\n"));
        i += 1;
    }
    src.push_str("  @Retryable\n  void f(Client c) {\n    c.setIdempotencyKey(UUID.randomUUID().toString());\n  }\n}\n");
    let last_line = src.lines().count() - 2;
    std::fs::write(&big, &src).unwrap();
    drop(src);
    std::fs::copy(UNSAFE, d.path().join("KnownUnsafe.java")).unwrap();

    let mut opts = retrylint::Options::new(vec![d.path().to_path_buf()]);
    let report = retrylint::check(&opts).unwrap();
    assert_eq!(report.errors.len(), 1);
    assert_eq!(
        report.errors[0].kind, "skipped",
        "the default limit skips it"
    );
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.path.ends_with("KnownUnsafe.java"))
    );

    opts.max_file_bytes = 64 << 20;
    let report = retrylint::check(&opts).unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let huge: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.path.ends_with("Huge.java"))
        .collect();
    assert_eq!(huge.len(), 1);
    assert_eq!(huge[0].line as usize, last_line);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.path.ends_with("KnownUnsafe.java"))
    );
    let (_, json, _, _) = rendered(&report);
    assert_eq!(json["summary"]["files_scanned"], 2);
}

#[test]
fn a_warm_run_reads_only_the_files_that_changed() {
    use std::sync::{Arc, Mutex};
    let d = project();
    // An effect word (a key sink) without a finding: a stable key.
    let stable = "class Stable {\n  void f(Client c, String orderId) {\n    c.setIdempotencyKey(orderId);\n  }\n}\n";
    std::fs::write(d.path().join("Stable.java"), stable).unwrap();
    let cache = tempfile::tempdir().unwrap();
    // Past the window in which a just-written file's stamp is not trusted.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let reads: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut opts = retrylint::Options::new(vec![d.path().to_path_buf()]);
    opts.cache_dir = Some(cache.path().to_path_buf());
    let seen = Arc::clone(&reads);
    opts.reader = Reader::new(move |p| {
        let name = p.file_name().unwrap_or_default().to_string_lossy().into();
        seen.lock().unwrap().push(name);
        std::fs::read(p)
    });
    let found = |r: &retrylint::Report| -> Vec<(String, u32)> {
        (r.findings.iter())
            .map(|f| (f.path.rsplit('/').next().unwrap().to_string(), f.line))
            .collect()
    };
    let read = |opts: &retrylint::Options| {
        reads.lock().unwrap().clear();
        let report = retrylint::check(opts).unwrap();
        let mut names = reads.lock().unwrap().clone();
        names.sort();
        names.dedup();
        (found(&report), names)
    };
    let (cold, names) = read(&opts);
    let all = [
        "Clean.java",
        "KnownUnsafe.java",
        "Stable.java",
        "Victim.java",
    ];
    assert_eq!(names, all);
    assert!(cold.iter().any(|(f, _)| f == "Victim.java"), "{cold:?}");
    // Three of the four files have an effect word, so the prefilter gives up and takes every
    // file's facts from the cache, by the content hash its unchanged stamp names: only the
    // files with a finding are read (for the code of its line, which its fingerprint hashes).
    let (warm, names) = read(&opts);
    assert_eq!(warm, cold);
    assert_eq!(names, ["KnownUnsafe.java", "Victim.java"]);
    // An edit: that file is read again, and its finding moves with it.
    std::fs::write(d.path().join("Victim.java"), format!("\n\n{RETRIED}")).unwrap();
    let (edited, names) = read(&opts);
    assert!(names.contains(&"Victim.java".to_string()), "{names:?}");
    assert!(!names.contains(&"Stable.java".to_string()), "{names:?}");
    let mut without_cache = opts.clone();
    without_cache.cache_dir = None;
    without_cache.reader = Reader::default();
    assert_eq!(edited, found(&retrylint::check(&without_cache).unwrap()));
    assert_ne!(edited, cold);
}
