//! Every subcommand that prints meets a closed standard output (`retrylint explain --all | head
//! -1`) as `check` does: exit status 2 and one sentence on standard error, never a panic
//! (SPEC §13).

use std::process::{Command, Stdio};

const RETRIED: &str = "import org.springframework.retry.annotation.Retryable;\nimport java.util.UUID;\nclass C {\n  @Retryable\n  void f(Client c) {\n    c.setIdempotencyKey(UUID.randomUUID().toString());\n  }\n}\n";

/// Run retrylint with `args` and its standard output a pipe whose reading end is already closed:
/// the first write fails with a broken pipe, whatever the size of the output.
fn closed_stdout(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(dir)
        .env_remove("RETRYLINT_TIMINGS")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn every_printing_subcommand_fails_on_a_closed_pipe_without_a_panic() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("C.java"), RETRIED).unwrap();
    let cases: &[&[&str]] = &[
        &["explain", "--all"],
        &["explain", "RL005"],
        &["rules"],
        &["rules", "--format", "json"],
        &["catalogue"],
        &["catalogue", "--format", "json"],
        &["check", "--no-cache", "--show-settings"],
        &["check", "--no-cache"],
        &["check", "--no-cache", "--format", "json"],
        &["check", "--no-cache", "--statistics"],
        &["--help"],
        &["--version"],
        &["explain", "--help"],
    ];
    for args in cases {
        let out = closed_stdout(args, d.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: cannot write the ") && err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_closed_standard_error_is_no_panic() {
    // The summary goes to standard error when the report is JSON; with standard error a closed
    // pipe the summary is lost, not the run.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("C.java"), RETRIED).unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(["check", "--no-cache", "--format", "json"])
        .current_dir(d.path())
        .stdout(Stdio::piped())
        .stderr(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("RL001"));
}
