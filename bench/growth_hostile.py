#!/usr/bin/env python3
"""Growth of retrylint on pathological inputs (issue 15): each case is built at N and 4N in a
temporary directory and run with `/usr/bin/time -v`; the script prints wall time, peak memory
and their ratios (linear growth is x4). tests/hostile_growth.rs asserts the same at sizes a debug
build runs in seconds.

    python3 bench/growth_hostile.py --bin target/release/retrylint [--case NAME] [--scale 1.0]
"""

import argparse
import os
import re
import subprocess
import tempfile

HEAD = "package acme;\n\nimport java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\n\n"
SINK = "        g.setIdempotencyKey(UUID.randomUUID().toString());\n"


def write(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)


def hierarchy_one_file(d, n):
    """A class hierarchy n deep in one file; the deepest class's retried method calls a key
    helper declared at the root."""
    s = HEAD + "class C0 {\n    void stamp(Gateway g) {\n" + SINK + "    }\n}\n"
    for i in range(1, n):
        s += f"class C{i} extends C{i - 1} {{\n}}\n"
    s += f"class Leaf extends C{n - 1} {{\n    @Retryable\n    void charge(Gateway g) {{\n        stamp(g);\n    }}\n}}\n"
    write(d, "Deep.java", s)


def hierarchy_files(d, n):
    """The same hierarchy, one class per file."""
    write(d, "C0.java", HEAD + "class C0 {\n    void stamp(Gateway g) {\n" + SINK + "    }\n}\n")
    for i in range(1, n):
        write(d, f"C{i}.java", f"package acme;\n\nclass C{i} extends C{i - 1} {{\n}}\n")
    write(d, "Leaf.java", HEAD + f"class Leaf extends C{n - 1} {{\n    @Retryable\n    void charge(Gateway g) {{\n        stamp(g);\n    }}\n}}\n")


def call_chain_files(d, n):
    """A call chain of one method per file; the last one sets a random key."""
    write(d, "Start.java", HEAD + "class Start {\n    @Retryable\n    void charge(Gateway g) {\n        F0.m(g);\n    }\n}\n")
    for i in range(n - 1):
        write(d, f"F{i}.java", f"package acme;\n\nclass F{i} {{\n    static void m(Gateway g) {{\n        F{i + 1}.m(g);\n    }}\n}}\n")
    write(d, f"F{n - 1}.java", HEAD + f"class F{n - 1} {{\n    static void m(Gateway g) {{\n" + SINK + "    }\n}\n")


def key_chain_one_class(d, n):
    """A random key passed down a chain of n methods in one class to the sink."""
    s = HEAD + "class Chain {\n    @Retryable\n    void charge(Gateway g) {\n        m0(g, UUID.randomUUID().toString());\n    }\n"
    for i in range(n - 1):
        s += f"    void m{i}(Gateway g, String key) {{\n        m{i + 1}(g, key);\n    }}\n"
    s += f"    void m{n - 1}(Gateway g, String key) {{\n        g.setIdempotencyKey(key);\n    }}\n}}\n"
    write(d, "Chain.java", s)


def regions_over_chain(d, n):
    """n retried methods, each calling one helper chain n long that ends in a random key."""
    s = HEAD + "class Many {\n"
    for i in range(n):
        s += f"    @Retryable\n    void charge{i}(Gateway g) {{\n        h0(g);\n    }}\n"
    for i in range(n - 1):
        s += f"    void h{i}(Gateway g) {{\n        h{i + 1}(g);\n    }}\n"
    s += f"    void h{n - 1}(Gateway g) {{\n" + SINK + "    }\n}\n"
    write(d, "Many.java", s)


def many_findings(d, n):
    """n retried methods with a finding each."""
    s = HEAD + "class Many {\n"
    for i in range(n):
        s += f"    @Retryable\n    void charge{i}(Gateway g) {{\n" + SINK.replace("        ", "        ", 1) + "    }\n"
    s += "}\n"
    write(d, "Many.java", s)


def many_globs(d, n):
    """n globs in retrylint.toml's exclude, over a small project."""
    write(d, "Billing.java", HEAD + "class Billing {\n    @Retryable\n    void charge(Gateway g) {\n" + SINK + "    }\n}\n")
    globs = ",\n".join(f'  "generated/module{i}/**/*.java"' for i in range(n))
    write(d, "retrylint.toml", f"exclude = [\n{globs}\n]\n")


def cycle(d, n):
    """A recursive cycle of n methods in one class; the last one makes a random key that
    reaches the retried method's sink through the cycle."""
    s = HEAD + "public class Keys {\n    @Retryable\n    public void charge(Gateway g) {\n        g.setIdempotencyKey(k0(g.attempt()));\n    }\n"
    for i in range(n):
        base = "UUID.randomUUID().toString()" if i + 1 == n else '"k"'
        s += f"    String k{i}(int n) {{\n        if (n > 0) {{\n            return k{(i + 1) % n}(n - 1);\n        }}\n        return {base};\n    }}\n"
    s += "}\n"
    write(d, "Keys.java", s)


CASES = {
    "hierarchy_one_file": (hierarchy_one_file, 2500),
    "hierarchy_files": (hierarchy_files, 500),
    "call_chain_files": (call_chain_files, 500),
    "key_chain_one_class": (key_chain_one_class, 500),
    "regions_over_chain": (regions_over_chain, 500),
    "many_findings": (many_findings, 5000),
    "many_globs": (many_globs, 25000),
    "cycle": (cycle, 2500),
}


def run(binary, d):
    out = subprocess.run(
        ["/usr/bin/time", "-v", binary, "check", "--no-cache", "--format", "concise", "--exit-zero", "."],
        cwd=d, capture_output=True, text=True,
    )
    err = out.stderr
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", err)
    h, m, s = wall.groups()
    secs = int(h or 0) * 3600 + int(m) * 60 + float(s)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    findings = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    return secs, rss, findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/retrylint")
    ap.add_argument("--case", action="append")
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    print(f"{'case':22} {'N':>7} {'time N':>8} {'time 4N':>8} {'x':>6} {'MB N':>7} {'MB 4N':>7} {'x':>6}  result at 4N")
    for name in a.case or CASES:
        build, n = CASES[name]
        n = max(2, int(n * a.scale))
        got = []
        for size in (n, 4 * n):
            with tempfile.TemporaryDirectory() as d:
                build(d, size)
                got.append(run(binary, d))
        (t1, m1, _), (t4, m4, f4) = got
        print(f"{name:22} {n:>7} {t1:>8.2f} {t4:>8.2f} {t4 / max(t1, 0.01):>6.1f} {m1 / 1024:>7.1f} {m4 / 1024:>7.1f} {m4 / m1:>6.1f}  {f4}", flush=True)


if __name__ == "__main__":
    main()
