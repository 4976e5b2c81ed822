#!/usr/bin/env python3
"""Benchmark retrylint against the parse floor and Semgrep on a Java checkout.

    python3 bench/run.py PATH [--runs 5] [--threads 2] [--no-semgrep] [--file F]
                         [--tools retrylint,pre-commit] [--baseline OTHER-RETRYLINT]

Builds `retrylint` and the `parse_floor` example in release mode, then runs, alternating:
  retrylint            `retrylint check PATH --no-cache` (a full scan, nothing cached)
  retrylint-parse-all  the same with --no-prefilter (every file parsed)
  retrylint-warm       a full scan with a warm cache (in a temporary directory)
  pre-commit           `retrylint check F` with a warm cache: one changed file (default: the
                       file of the first finding of a full scan, so that the run has work to do;
                       the first .java file of the checkout when there is none) while the project still gives the facts
  floor                read + parse + one TreeCursor walk of every file (same files, threads)
  semgrep              Semgrep CE with bench/semgrep-rl001-rl003.yml (taint rules for RL001-RL003
                       with the same region kinds, sources and key sinks, within one method: Semgrep
                       CE has no cross-method taint; installed from PyPI into bench/.venv on first
                       use), and semgrep-every-file with the same rules written without literals
                       (bench/semgrep-rl001-rl003-every-file.yml) so that its
                       prefilter cannot skip a file, run with --optimizations none.
Prints the median wall time, CPU time and peak memory of each and the ratios, and checks that
the prefilter and --no-prefilter report the same findings. Nothing from the checkout is copied
or kept; the cache lives in a temporary directory.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def measure(cmd, env):
    """Wall seconds, CPU seconds (user+sys of the child) and peak RSS in MiB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        sys.exit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.decode(errors='replace')[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run each tool in a fresh
    # /usr/bin/time for an exact figure when available.
    return wall, cpu


def peak_mib(cmd, env):
    if not shutil.which("/usr/bin/time"):
        return float("nan")
    proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    last = proc.stderr.decode(errors="replace").strip().splitlines()[-1]
    try:
        return int(last) / 1024
    except ValueError:
        return float("nan")


def semgrep_bin():
    venv = os.path.join(ROOT, "bench", ".venv")
    exe = os.path.join(venv, "bin", "semgrep")
    if not os.path.exists(exe):
        sh([sys.executable, "-m", "venv", venv])
        sh([os.path.join(venv, "bin", "pip"), "install", "--quiet", "semgrep"])
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-semgrep", action="store_true")
    ap.add_argument("--file", help="the changed file of the pre-commit run")
    ap.add_argument("--tools", help="comma-separated subset of the tools to run (floor is always run)")
    ap.add_argument("--baseline", metavar="EXE",
                    help="another retrylint binary (a build of main) run as `baseline`, alternating "
                         "with the others, for before/after figures of one invocation")
    args = ap.parse_args()
    target = os.path.abspath(args.path)
    cache = tempfile.mkdtemp(prefix="retrylint-bench-")

    sh(["cargo", "build", "--release", "--quiet", "--bin", "retrylint", "--example", "parse_floor"], cwd=ROOT)
    tdir = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    exe = os.path.join(tdir, "release", "retrylint")
    scan = [exe, "check", "--exit-zero", "--format", "json", "--output", os.devnull]
    tools = {
        "retrylint": scan + ["--no-cache", target],
        "retrylint-parse-all": scan + ["--no-cache", "--no-prefilter", target],
        "retrylint-warm": scan + ["--cache-dir", cache, target],
        "pre-commit": None,  # the changed file is chosen below, from the findings
        "floor": [os.path.join(tdir, "release", "examples", "parse_floor"), target],
    }
    if args.baseline:
        tools["baseline"] = [os.path.abspath(args.baseline)] + scan[1:] + ["--no-cache", target]
    if args.tools:
        keep = set(args.tools.split(",")) | {"floor"}
        tools = {k: v for k, v in tools.items() if k in keep}
    if not args.no_semgrep and (not args.tools or "semgrep" in args.tools):
        sg = semgrep_bin()
        base = [sg, "scan", "--metrics", "off", "--disable-version-check", "--quiet", "--jobs", str(args.threads),
                "--config", os.path.join(ROOT, "bench", "semgrep-rl001-rl003.yml"), "--json", "--output", os.devnull]
        tools["semgrep"] = base + [target]
        every = [x if x != os.path.join(ROOT, "bench", "semgrep-rl001-rl003.yml")
                 else os.path.join(ROOT, "bench", "semgrep-rl001-rl003-every-file.yml") for x in base]
        tools["semgrep-every-file"] = every + ["--optimizations", "none", target]

    # Same findings with and without the prefilter; warm the cache.
    outs = []
    for extra in (["--no-prefilter"], []):
        out = os.path.join(cache, "findings.json")
        sh([exe, "check", "--exit-zero", "--no-cache", "--format", "json", "--output", out, *extra, target],
           env=env, stderr=subprocess.DEVNULL)
        with open(out) as f:
            outs.append(json.load(f)["findings"])
    same = "identical" if outs[0] == outs[1] else "DIFFERENT"
    changed = args.file or (outs[1][0]["path"] if outs[1] else None)
    if not changed:
        for d, dirs, files in sorted(os.walk(target)):
            dirs.sort()
            java = sorted(f for f in files if f.endswith(".java"))
            if java and "/.git" not in d:
                changed = os.path.join(d, java[0])
                break
    changed = os.path.abspath(changed)
    if "pre-commit" in tools:
        tools["pre-commit"] = scan + ["--cache-dir", cache, changed]
    if "baseline" in tools:
        out = os.path.join(cache, "baseline.json")
        sh([tools["baseline"][0], "check", "--exit-zero", "--no-cache", "--format", "json", "--output", out, target],
           env=env, stderr=subprocess.DEVNULL)
        with open(out) as f:
            print("findings of the baseline binary:",
                  "identical" if json.load(f)["findings"] == outs[1] else "DIFFERENT")
    subprocess.run(scan + ["--cache-dir", cache, target], env=env, stderr=subprocess.DEVNULL)
    precommit_same = None
    if "pre-commit" in tools:
        # The pre-commit run must report what a full scan reports for that file.
        out = os.path.join(cache, "pre-commit.json")
        cmd = [x if x != os.devnull else out for x in tools["pre-commit"]]
        sh(cmd, env=env, stderr=subprocess.DEVNULL)
        with open(out) as f:
            mine = [x for x in json.load(f)["findings"] if os.path.abspath(x["path"]) == changed]
        full = [x for x in outs[1] if os.path.abspath(x["path"]) == changed]
        precommit_same = f"{'identical' if mine == full else 'DIFFERENT'} ({len(full)})"
    if "semgrep" in tools:
        out = os.path.join(cache, "semgrep.json")
        cmd = [x if x != os.devnull else out for x in tools["semgrep"]]
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            scanned = len(json.load(f)["paths"]["scanned"])
        print(f"semgrep scans {scanned} files (its default .semgrepignore skips test directories); "
              f"retrylint and the floor scan every .java file")

    samples = {name: [] for name in tools}
    for _ in range(args.runs):
        for name, cmd in tools.items():
            samples[name].append(measure(cmd, env))
    peaks = {name: peak_mib(cmd, env) for name, cmd in tools.items()}

    floor_wall = statistics.median(w for w, _ in samples["floor"])
    print(f"{target}  threads={args.threads}  runs={args.runs} (medians)")
    print(f"findings with and without the prefilter: {same} ({len(outs[0])})")
    print(f"pre-commit file: {os.path.relpath(changed, target)}")
    if precommit_same:
        print(f"its findings in the pre-commit run and in the full scan: {precommit_same}")
    print(f"{'tool':<20} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9} {'wall / floor':>13}")
    for name in tools:
        wall = statistics.median(w for w, _ in samples[name])
        cpu = statistics.median(c for _, c in samples[name])
        print(f"{name:<20} {wall:8.2f} {cpu:8.2f} {peaks[name]:9.0f} {wall / floor_wall:13.2f}")
    shutil.rmtree(cache, ignore_errors=True)
    if "semgrep" in tools:
        ours = statistics.median(w for w, _ in samples["retrylint"])
        for name in ("semgrep", "semgrep-every-file"):
            theirs = statistics.median(w for w, _ in samples[name])
            print(f"{name} / retrylint: {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
