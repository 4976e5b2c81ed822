//! Issue 15: a pull request controls every file of the checkout, `.retrylint_cache` included.
//! No cache content that comes with the checkout may change a finding, and nothing in it may
//! make a run write outside the checkout, hang, or run out of memory.

#![cfg(unix)]

use assert_cmd::Command;
use sha2::{Digest, Sha256};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A run in `dir` as the machine whose cache key lives under `keys`.
fn retrylint(dir: &Path, keys: &Path) -> Command {
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", keys)
        .timeout(Duration::from_secs(60));
    c
}

fn json(dir: &Path, keys: &Path) -> (Option<i32>, serde_json::Value) {
    let out = retrylint(dir, keys)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON; stderr: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

fn rules_found(v: &serde_json::Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{}",
                f["path"].as_str().unwrap(),
                f["rule"].as_str().unwrap()
            )
        })
        .collect()
}

const HARMLESS: &str = "package acme;\n\nimport org.springframework.retry.annotation.Retryable;\n\npublic class Billing {\n    private final Gateway gateway;\n\n    Billing(Gateway gateway) { this.gateway = gateway; }\n\n    @Retryable\n    public void charge(Order order) {\n        gateway.setIdempotencyKey(order.getId().toString());\n    }\n}\n";

/// The same class, with the key minted on every attempt.
fn harmful() -> String {
    HARMLESS
        .replace(
            "package acme;\n",
            "package acme;\n\nimport java.util.UUID;\n",
        )
        .replace("order.getId().toString()", "UUID.randomUUID().toString()")
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The facts directory of the cache under `root`.
fn facts_dir(root: &Path) -> PathBuf {
    std::fs::read_dir(root.join(".retrylint_cache"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("facts-")
        })
        .expect("a facts directory")
}

fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(ok.status.success(), "git {args:?}: {ok:?}");
}

#[test]
fn a_committed_cache_entry_cannot_hide_a_finding() {
    let attacker_keys = tempfile::tempdir().unwrap();
    let runner_keys = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    std::fs::create_dir_all(repo.join("src/acme")).unwrap();
    let file = repo.join("src/acme/Billing.java");

    // 1. A harmless run fills the cache.
    std::fs::write(&file, HARMLESS).unwrap();
    let (code, v) = json(&repo, attacker_keys.path());
    assert_eq!(code, Some(0), "{v}");
    let facts = facts_dir(&repo);
    let good = hex(HARMLESS.as_bytes());
    let entry = facts.join(&good[..2]).join(&good[2..]);
    assert!(entry.is_file(), "the harmless file's facts are cached");

    // 2. Its entry is copied under the harmful file's hash, and the harmful file committed with
    // the cache.
    let bad_text = harmful();
    let bad = hex(bad_text.as_bytes());
    std::fs::create_dir_all(facts.join(&bad[..2])).unwrap();
    std::fs::copy(&entry, facts.join(&bad[..2]).join(&bad[2..])).unwrap();
    std::fs::write(&file, &bad_text).unwrap();
    std::fs::remove_file(repo.join(".retrylint_cache/.gitignore")).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "pr"]);
    let listed = std::process::Command::new("git")
        .current_dir(&repo)
        .args(["ls-files"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains(&bad[2..]),
        "the forged entry is committed"
    );

    // 3. A fresh clone, a default run on the CI runner: the finding is there.
    let clone = work.path().join("clone");
    git(
        work.path(),
        &[
            "clone",
            "-q",
            repo.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    let (code, v) = json(&clone, runner_keys.path());
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(rules_found(&v), vec!["src/acme/Billing.java:RL001"]);

    // Even on the machine that sealed the entry: a seal binds it to the hash it was made for.
    let clone2 = work.path().join("clone2");
    git(
        work.path(),
        &[
            "clone",
            "-q",
            repo.to_str().unwrap(),
            clone2.to_str().unwrap(),
        ],
    );
    let (code, v) = json(&clone2, attacker_keys.path());
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(rules_found(&v), vec!["src/acme/Billing.java:RL001"]);
}

#[test]
fn a_cache_directory_that_is_a_link_is_not_written_through() {
    let keys = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("Billing.java"), harmful()).unwrap();
    symlink(outside.path(), repo.path().join(".retrylint_cache")).unwrap();
    let (code, v) = json(repo.path(), keys.path());
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing written outside the checkout"
    );
}

#[test]
fn a_dangling_gitignore_link_creates_nothing() {
    let keys = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("Billing.java"), harmful()).unwrap();
    std::fs::create_dir(repo.path().join(".retrylint_cache")).unwrap();
    let target = outside.path().join("profile.sh");
    symlink(&target, repo.path().join(".retrylint_cache/.gitignore")).unwrap();
    let (code, _) = json(repo.path(), keys.path());
    assert_eq!(code, Some(1));
    assert!(!target.exists(), "the link's target was created");
}

#[test]
fn planted_links_fifos_and_devices_in_the_cache_are_harmless() {
    let keys = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let text = harmful();
    std::fs::write(repo.path().join("Billing.java"), &text).unwrap();
    // The layout a run creates, to know the entry names.
    let (code, _) = json(repo.path(), keys.path());
    assert_eq!(code, Some(1));
    let facts = facts_dir(repo.path());
    let h = hex(text.as_bytes());
    let entry = facts.join(&h[..2]).join(&h[2..]);
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "keep me\n").unwrap();
    let scans: Vec<PathBuf> = std::fs::read_dir(repo.path().join(".retrylint_cache"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("scans-")
        })
        .collect();
    assert!(!scans.is_empty());

    // The entry and the scan cache are links to a file the runner can write: both are read
    // (not followed) and rewritten (replaced, not written through).
    for (i, p) in std::iter::once(&entry).chain(&scans).enumerate() {
        std::fs::remove_file(p).unwrap();
        if i == 0 {
            symlink(&victim, p).unwrap();
        } else {
            symlink("/dev/zero", p).unwrap();
        }
    }
    // A Java file that is new: its entry name is known in advance, and planted as a FIFO.
    let other = text
        .replace("class Billing", "class Billing2")
        .replace("Billing(", "Billing2(");
    let h2 = hex(other.as_bytes());
    std::fs::write(repo.path().join("Billing2.java"), &other).unwrap();
    std::fs::create_dir_all(facts.join(&h2[..2])).unwrap();
    let fifo =
        std::ffi::CString::new(facts.join(&h2[..2]).join(&h2[2..]).to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);

    let started = std::time::Instant::now();
    let (code, v) = json(repo.path(), keys.path());
    assert!(started.elapsed() < Duration::from_secs(30), "no hang");
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        rules_found(&v),
        vec!["Billing.java:RL001", "Billing2.java:RL001"]
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
}

#[test]
fn a_scan_cache_is_not_trusted_on_an_archive_s_modification_time() {
    // The caller's key comes from `keys.next()`. First `Keys.java` declares `Keyz.nexu()`, which
    // the prefilter has no reason to parse; then a file of the same size declaring `Keys.next()`
    // is unpacked with the same modification time, as a source archive does.
    let keys = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let p = repo.path();
    std::fs::write(
        p.join("Caller.java"),
        "package a;\nimport org.springframework.retry.annotation.Retryable;\nclass Caller {\n  private final Keys keys = new Keys();\n  @Retryable\n  void pay(Client c) {\n    c.setIdempotencyKey(keys.next());\n  }\n}\n",
    )
    .unwrap();
    let text = |class: &str, method: &str| {
        format!(
            "package a;\nclass {class} {{\n  String {method}() {{ return java.util.UUID.randomUUID().toString(); }}\n}}\n"
        )
    };
    let commit_time = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let unpack = |t: &str| {
        let f = p.join("Keys.java");
        let _ = std::fs::remove_file(&f);
        std::fs::write(&f, t).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(commit_time)
            .unwrap();
    };
    unpack(&text("Keyz", "nexu"));
    // Past the window in which a just-written file is not trusted at all.
    std::thread::sleep(Duration::from_millis(2100));
    let (code, _) = json(p, keys.path());
    assert_eq!(code, Some(0));
    unpack(&text("Keys", "next"));
    let (code, v) = json(p, keys.path());
    assert_eq!(code, Some(1), "the stale scan was used: {v}");
}

#[test]
fn a_crafted_deeply_nested_entry_is_refused_not_decoded() {
    // 3 MB of nested-variant tags, at the entry's name and as the scan cache: the seal does not
    // match, and nothing is decoded; the run is not aborted by a stack overflow.
    let keys = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let text = harmful();
    std::fs::write(repo.path().join("Billing.java"), &text).unwrap();
    let (code, _) = json(repo.path(), keys.path());
    assert_eq!(code, Some(1));
    let facts = facts_dir(repo.path());
    let h = hex(text.as_bytes());
    let mut crafted = vec![1u8; 3 << 20];
    crafted.extend_from_slice(&[0, 7]);
    std::fs::write(facts.join(&h[..2]).join(&h[2..]), &crafted).unwrap();
    for e in std::fs::read_dir(repo.path().join(".retrylint_cache")).unwrap() {
        let p = e.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("scans-")
        {
            std::fs::write(&p, &crafted).unwrap();
        }
    }
    let (code, v) = json(repo.path(), keys.path());
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(rules_found(&v), vec!["Billing.java:RL001"]);
}
