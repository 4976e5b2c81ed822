//! Property tests over mutated Java: whatever the bytes, a run never panics, its JSON and SARIF
//! parse, the output is the same on a second run, and a finding in another file survives.
//! The case count is bounded for CI; `RETRYLINT_PROPTEST_CASES=2000 cargo test --release --test
//! properties` runs more.

use proptest::prelude::*;
use retrylint::report::{Format, RenderOptions, render};

const SEEDS: &[&str] = &[
    "fixtures/spring_retry/RetryableUuidUnsafe.java",
    "fixtures/ratpack/NestedFlatMapUnsafe.java",
    "fixtures/retry_counter/FirstAttemptAttributeSafe.java",
    "fixtures/cluster_locks/billing/NightlyBillingJobs.java",
    "fixtures/flow/more/RefundKeyShapes.java",
];

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Flip(usize, u8),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let tokens: Vec<Vec<u8>> = [
        "{",
        "}",
        "(",
        ")",
        ";",
        "->",
        "\"",
        "/*",
        "@Retryable",
        "UUID.randomUUID()",
        "\u{0}",
        "\u{feff}",
        "é",
        "\r",
    ]
    .iter()
    .map(|t| t.as_bytes().to_vec())
    .collect();
    prop_oneof![
        (any::<usize>(), 1usize..64).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), prop::sample::select(tokens)).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Flip(a, b)),
        (any::<usize>(), 1usize..200).prop_map(|(a, n)| Edit::Duplicate(a, n)),
    ]
}

fn apply(mut src: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = src.len().max(1);
        match e {
            Edit::Delete(a, n) => {
                let a = a % len;
                let end = (a + n).min(src.len());
                if a < end {
                    src.drain(a..end);
                }
            }
            Edit::Insert(a, t) => {
                let a = a % len;
                let a = a.min(src.len());
                src.splice(a..a, t.iter().copied());
            }
            Edit::Flip(a, b) => {
                if !src.is_empty() {
                    let i = a % src.len();
                    src[i] = *b;
                }
            }
            Edit::Duplicate(a, n) => {
                if !src.is_empty() {
                    let a = a % src.len();
                    let end = (a + n).min(src.len());
                    let piece = src[a..end].to_vec();
                    src.splice(end..end, piece);
                }
            }
        }
    }
    src
}

fn run(dir: &std::path::Path) -> (String, String, usize) {
    let report = retrylint::check(&retrylint::Options::new(vec![dir.to_path_buf()]))
        .expect("the run itself succeeds");
    let opts = RenderOptions {
        color: false,
        sarif_category: None,
        elapsed: None,
        width: None,
        sarif_root: None,
    };
    let json = render(&report, Format::Json, &opts);
    let sarif = render(&report, Format::Sarif, &opts);
    let _ = render(&report, Format::Text, &opts);
    let _ = render(&report, Format::Github, &opts);
    let known = report
        .findings
        .iter()
        .filter(|f| f.path.ends_with("Known.java"))
        .count();
    (json, sarif, known)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("RETRYLINT_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_java_never_breaks_a_run(seed in 0..SEEDS.len(), edits in prop::collection::vec(edit(), 1..12)) {
        let src = std::fs::read(SEEDS[seed]).unwrap();
        let mutated = apply(src, &edits);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Mutated.java"), &mutated).unwrap();
        std::fs::copy("fixtures/spring_retry/RetryableUuidUnsafe.java", dir.path().join("Known.java")).unwrap();
        let (json, sarif, known) = run(dir.path());
        prop_assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
        prop_assert!(serde_json::from_str::<serde_json::Value>(&sarif).is_ok());
        // The other file's finding is never lost (a mutated file may add regions that reach it).
        prop_assert!(known >= 1);
        let (json2, sarif2, _) = run(dir.path());
        prop_assert_eq!(json, json2);
        prop_assert_eq!(sarif, sarif2);
    }
}
