//! Every input the fuzzer (`fuzz/`) found a bug with, run through the whole pipeline and every
//! output format. A new crash input goes into `tests/data/fuzz-regressions/`.

mod pipeline;

#[test]
fn saved_fuzz_inputs_run_clean() {
    let dir = tempfile::tempdir().unwrap();
    pipeline::project(dir.path()).unwrap();
    let mut inputs: Vec<_> = std::fs::read_dir("tests/data/fuzz-regressions")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    let mut failures = Vec::new();
    for p in &inputs {
        let bytes = std::fs::read(p).unwrap();
        if let Err(e) = pipeline::run(dir.path(), &bytes) {
            failures.push(format!("{}: {e}", p.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Error recovery makes nested update expressions of a run of `--`; each level once copied its
/// operand, doubling the tree (the fuzzer's first timeout). Also valid Java nesting them.
#[test]
fn nested_updates_stay_linear() {
    let dir = tempfile::tempdir().unwrap();
    pipeline::project(dir.path()).unwrap();
    let n = 5_000;
    let inputs = [
        format!(
            "class A {{ void f() {{ int i = 0; i{}; }} }}",
            "--".repeat(n)
        ),
        format!(
            "class B {{ void f() {{ int i = 0; {}i; }} }}",
            "++".repeat(n)
        ),
        format!(
            "class C {{ void f(int[] a, int i) {{ {}i++{}; }} }}",
            "a[".repeat(150),
            "]++".repeat(150)
        ),
    ];
    for input in inputs {
        let t0 = std::time::Instant::now();
        pipeline::run(dir.path(), input.as_bytes()).unwrap();
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "{:?}",
            t0.elapsed()
        );
    }
}
