//! Issue 15, stalling the gate: each pathological input of the issue is built at N and 4N and
//! run; the CPU time and peak memory of the run, less those of a one-file project, must grow
//! about linearly (×4; a quadratic cost gives ×16, the bound is ×8). The largest inputs the
//! issue names (a 10,000-deep hierarchy, a 10,000-file call chain, a 100,000-method cycle) must
//! finish in seconds. Costs are read from the child's own resource usage (`wait4`), so other
//! tests running at the same time change the wall clock, not the measure.
//!
//! `RETRYLINT_GROWTH=1` prints every measure. Sizes are chosen for a debug build; the same inputs
//! at larger sizes are in `bench/growth_hostile.py`.

#![cfg(unix)]

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

const HEAD: &str = "package acme;\n\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\n\n";
const SINK: &str = "        g.setIdempotencyKey(UUID.randomUUID().toString());\n";

fn write(d: &Path, name: &str, text: &str) {
    std::fs::write(d.join(name), text).unwrap();
}

/// A class hierarchy n deep in one file; the deepest class's retried method calls a key helper
/// declared at the root.
fn hierarchy_one_file(d: &Path, n: usize) {
    let mut s = format!("{HEAD}class C0 {{\n    void stamp(Gateway g) {{\n{SINK}    }}\n}}\n");
    for i in 1..n {
        writeln!(s, "class C{i} extends C{} {{\n}}", i - 1).unwrap();
    }
    write!(s, "class Leaf extends C{} {{\n    @Retryable\n    void charge(Gateway g) {{\n        stamp(g);\n    }}\n}}\n", n - 1).unwrap();
    write(d, "Deep.java", &s);
}

/// The same hierarchy, one class per file.
fn hierarchy_files(d: &Path, n: usize) {
    write(
        d,
        "C0.java",
        &format!("{HEAD}class C0 {{\n    void stamp(Gateway g) {{\n{SINK}    }}\n}}\n"),
    );
    for i in 1..n {
        write(
            d,
            &format!("C{i}.java"),
            &format!("package acme;\n\nclass C{i} extends C{} {{\n}}\n", i - 1),
        );
    }
    write(
        d,
        "Leaf.java",
        &format!(
            "{HEAD}class Leaf extends C{} {{\n    @Retryable\n    void charge(Gateway g) {{\n        stamp(g);\n    }}\n}}\n",
            n - 1
        ),
    );
}

/// A call chain of one method per file; the last one sets a random key.
fn call_chain_files(d: &Path, n: usize) {
    write(
        d,
        "Start.java",
        &format!(
            "{HEAD}class Start {{\n    @Retryable\n    void charge(Gateway g) {{\n        F0.m(g);\n    }}\n}}\n"
        ),
    );
    for i in 0..n - 1 {
        write(
            d,
            &format!("F{i}.java"),
            &format!(
                "package acme;\n\nclass F{i} {{\n    static void m(Gateway g) {{\n        F{}.m(g);\n    }}\n}}\n",
                i + 1
            ),
        );
    }
    write(
        d,
        &format!("F{}.java", n - 1),
        &format!(
            "{HEAD}class F{} {{\n    static void m(Gateway g) {{\n{SINK}    }}\n}}\n",
            n - 1
        ),
    );
}

/// A random key passed down a chain of n methods in one class to the sink.
fn key_chain_one_class(d: &Path, n: usize) {
    let mut s = format!(
        "{HEAD}class Chain {{\n    @Retryable\n    void charge(Gateway g) {{\n        m0(g, UUID.randomUUID().toString());\n    }}\n"
    );
    for i in 0..n - 1 {
        writeln!(
            s,
            "    void m{i}(Gateway g, String key) {{\n        m{}(g, key);\n    }}",
            i + 1
        )
        .unwrap();
    }
    write!(
        s,
        "    void m{}(Gateway g, String key) {{\n        g.setIdempotencyKey(key);\n    }}\n}}\n",
        n - 1
    )
    .unwrap();
    write(d, "Chain.java", &s);
}

/// n retried methods, each calling one helper chain n long that ends in a random key.
fn regions_over_chain(d: &Path, n: usize) {
    let mut s = format!("{HEAD}class Many {{\n");
    for i in 0..n {
        writeln!(
            s,
            "    @Retryable\n    void charge{i}(Gateway g) {{\n        h0(g);\n    }}"
        )
        .unwrap();
    }
    for i in 0..n - 1 {
        writeln!(
            s,
            "    void h{i}(Gateway g) {{\n        h{}(g);\n    }}",
            i + 1
        )
        .unwrap();
    }
    write!(s, "    void h{}(Gateway g) {{\n{SINK}    }}\n}}\n", n - 1).unwrap();
    write(d, "Many.java", &s);
}

/// n retried methods with a finding each.
fn many_findings(d: &Path, n: usize) {
    let mut s = format!("{HEAD}class Many {{\n");
    for i in 0..n {
        write!(
            s,
            "    @Retryable\n    void charge{i}(Gateway g) {{\n{SINK}    }}\n"
        )
        .unwrap();
    }
    s.push_str("}\n");
    write(d, "Many.java", &s);
}

/// n globs in `retrylint.toml`'s `exclude`, over a one-file project.
fn many_globs(d: &Path, n: usize) {
    write(
        d,
        "Billing.java",
        &format!(
            "{HEAD}class Billing {{\n    @Retryable\n    void charge(Gateway g) {{\n{SINK}    }}\n}}\n"
        ),
    );
    let globs: Vec<String> = (0..n)
        .map(|i| format!("  \"generated/module{i}/**/*.java\""))
        .collect();
    write(
        d,
        "retrylint.toml",
        &format!("exclude = [\n{}\n]\n", globs.join(",\n")),
    );
}

/// A recursive cycle of n methods in one class, `k0 → k1 → … → k(n-1) → k0`, the last one
/// making a random key that reaches the retried method's sink.
fn cycle(d: &Path, n: usize) {
    let mut s = format!(
        "{HEAD}public class Keys {{\n    @Retryable\n    public void charge(Gateway g) {{\n        g.setIdempotencyKey(k0(g.attempt()));\n    }}\n"
    );
    for i in 0..n {
        let base = if i + 1 == n {
            "UUID.randomUUID().toString()"
        } else {
            "\"k\""
        };
        write!(
            s,
            "    String k{i}(int n) {{\n        if (n > 0) {{\n            return k{}(n - 1);\n        }}\n        return {base};\n    }}\n",
            (i + 1) % n
        )
        .unwrap();
    }
    s.push_str("}\n");
    write(d, "Keys.java", &s);
}

/// What a run cost: CPU seconds (user and system, all threads) and peak resident memory in
/// MB, and the summary line of its concise report.
struct Cost {
    cpu: f64,
    mb: f64,
    summary: String,
}

fn run(dir: &Path) -> Cost {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let out = dir.join("..").join(format!("{name}.out"));
    let err = dir.join("..").join(format!("{name}.err"));
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("RETRYLINT_TIMINGS", "1")
        .args([
            "check",
            "--no-cache",
            "--format",
            "concise",
            "--exit-zero",
            ".",
        ])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    // Reaped by `wait4` below, which also reports what it used.
    std::mem::forget(child);
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the run failed: {status}"
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    // The peak the run measures itself (its own address space's high-water mark): the rusage
    // one also counts the test process it was forked from.
    let peak_kb = std::fs::read_to_string(&err)
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.split(", peak ")
                .nth(1)?
                .split(" kB")
                .next()?
                .parse::<f64>()
                .ok()
        })
        .fold(0.0, f64::max);
    assert!(peak_kb > 0.0, "no peak in the timings");
    let text = std::fs::read_to_string(&out).unwrap();
    Cost {
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        mb: peak_kb / 1024.0,
        summary: text.lines().last().unwrap_or_default().to_string(),
    }
}

fn built(build: fn(&Path, usize), n: usize) -> Cost {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("p");
    std::fs::create_dir(&p).unwrap();
    build(&p, n);
    run(&p)
}

fn verbose() -> bool {
    std::env::var_os("RETRYLINT_GROWTH").is_some()
}

/// Runs `build` at `n` and `4n` (and a one-unit project as the floor) and asserts that time and
/// memory above the floor grow at most ×8; `expect` is the summary line at both sizes.
fn grows_linearly(name: &str, build: fn(&Path, usize), n: usize, expect: fn(usize) -> String) {
    let floor = built(build, 2);
    let small = built(build, n);
    let large = built(build, 4 * n);
    assert_eq!(small.summary, expect(n), "{name} at {n}");
    assert_eq!(large.summary, expect(4 * n), "{name} at {}", 4 * n);
    // Below this much work above the floor, a ratio is noise.
    let (cpu_min, mb_min) = (0.25, 4.0);
    let ratio = |f: fn(&Cost) -> f64, min: f64| {
        (f(&large) - f(&floor)).max(0.0) / (f(&small) - f(&floor)).max(min)
    };
    let cpu = ratio(|c| c.cpu, cpu_min);
    let mb = ratio(|c| c.mb, mb_min);
    let report = format!(
        "{name}: floor {:.2}s {:.0}MB, N={n} {:.2}s {:.0}MB, 4N {:.2}s {:.0}MB: time ×{cpu:.1}, memory ×{mb:.1}",
        floor.cpu, floor.mb, small.cpu, small.mb, large.cpu, large.mb
    );
    if verbose() {
        eprintln!("{report}");
    }
    assert!(cpu <= 8.0, "time grows faster than linearly: {report}");
    assert!(mb <= 8.0, "memory grows faster than linearly: {report}");
}

fn one_finding(files: usize) -> String {
    let s = if files == 1 { "" } else { "s" };
    format!("1 finding (RL001: 1) in {files} Java file{s}")
}

#[test]
fn a_deep_hierarchy_in_one_file_grows_linearly() {
    grows_linearly("hierarchy in one file", hierarchy_one_file, 1000, |_| {
        one_finding(1)
    });
}

#[test]
fn a_deep_hierarchy_of_one_class_per_file_grows_linearly() {
    grows_linearly("hierarchy, a class per file", hierarchy_files, 300, |n| {
        one_finding(n + 1)
    });
}

#[test]
fn a_call_chain_of_one_method_per_file_grows_linearly() {
    grows_linearly(
        "call chain, a method per file",
        call_chain_files,
        300,
        |n| one_finding(n + 1),
    );
}

#[test]
fn a_key_passed_down_a_chain_in_one_class_grows_linearly() {
    grows_linearly(
        "key down a chain in one class",
        key_chain_one_class,
        500,
        |_| one_finding(1),
    );
}

#[test]
fn many_regions_over_one_helper_chain_grow_linearly_in_memory() {
    // n regions × a chain n long: the work may grow with n² (every region reaches every helper),
    // the memory must not.
    let floor = built(regions_over_chain, 2);
    let small = built(regions_over_chain, 500);
    let large = built(regions_over_chain, 2000);
    assert_eq!(large.summary, one_finding(1));
    let mb = (large.mb - floor.mb).max(0.0) / (small.mb - floor.mb).max(4.0);
    let report = format!(
        "regions over a chain: floor {:.0}MB, 500: {:.2}s {:.0}MB, 2000: {:.2}s {:.0}MB: memory ×{mb:.1}",
        floor.mb, small.cpu, small.mb, large.cpu, large.mb
    );
    if verbose() {
        eprintln!("{report}");
    }
    assert!(mb <= 8.0, "memory grows like regions × chain: {report}");
}

#[test]
fn many_retried_methods_with_findings_grow_linearly() {
    grows_linearly("retried methods with findings", many_findings, 1000, |n| {
        format!("{n} findings (RL001: {n}) in 1 Java file")
    });
}

#[test]
fn many_globs_grow_linearly() {
    grows_linearly("exclude globs", many_globs, 5000, |_| {
        "1 finding (RL001: 1) in 1 Java file; settings from retrylint.toml".into()
    });
}

/// The inputs the issue names at full size finish in seconds (a generous bound for a debug
/// build on a loaded machine; the quadratic versions ran for minutes in a release build).
fn finishes_in_seconds(name: &str, build: fn(&Path, usize), n: usize, expect: String) {
    let c = built(build, n);
    if verbose() {
        eprintln!("{name} at {n}: {:.2}s {:.0}MB", c.cpu, c.mb);
    }
    assert_eq!(c.summary, expect, "{name}");
    assert!(
        c.cpu < Duration::from_secs(60).as_secs_f64(),
        "{name} at {n}: {:.1}s",
        c.cpu
    );
}

#[test]
fn a_10000_deep_hierarchy_finishes_in_seconds() {
    finishes_in_seconds(
        "hierarchy in one file",
        hierarchy_one_file,
        10_000,
        one_finding(1),
    );
}

#[test]
fn a_10000_file_call_chain_finishes_in_seconds() {
    finishes_in_seconds(
        "call chain, a method per file",
        call_chain_files,
        10_000,
        one_finding(10_001),
    );
}

#[test]
fn a_recursive_cycle_grows_linearly() {
    grows_linearly("recursive cycle", cycle, 1000, |_| one_finding(1));
}

#[test]
fn a_100000_method_cycle_finishes_in_seconds() {
    finishes_in_seconds("cycle", cycle, 100_000, one_finding(1));
}
