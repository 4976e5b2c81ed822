#!/usr/bin/env python3
"""Benchmark retrylint against the parse floor and Semgrep on a Java checkout.

    python3 bench/run.py PATH [--runs 5] [--threads 2] [--no-semgrep]

Builds `retrylint` and the `parse_floor` example in release mode, then runs, alternating, (a)
`retrylint check PATH`, (b) the floor (read + parse + one TreeCursor walk of every file, same
files and thread count) and (c) Semgrep with bench/semgrep-rl001.yml (installed from PyPI into
bench/.venv on first use) — once as it is and once written without literals
(bench/semgrep-rl001-every-file.yml) so that its prefilter cannot skip a file. Prints the median wall time, CPU time and peak memory of each and the
ratios. Nothing from the checkout is copied or kept.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

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
    args = ap.parse_args()
    target = os.path.abspath(args.path)

    sh(["cargo", "build", "--release", "--quiet", "--bin", "retrylint", "--example", "parse_floor"], cwd=ROOT)
    tdir = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    tools = {
        "retrylint": [os.path.join(tdir, "release", "retrylint"), "check", "--exit-zero", "--format", "json",
                      "--output", os.devnull, target],
        "floor": [os.path.join(tdir, "release", "examples", "parse_floor"), target],
    }
    if not args.no_semgrep:
        sg = semgrep_bin()
        base = [sg, "scan", "--metrics", "off", "--disable-version-check", "--quiet", "--jobs", str(args.threads),
                "--config", os.path.join(ROOT, "bench", "semgrep-rl001.yml"), "--json", "--output", os.devnull]
        tools["semgrep"] = base + [target]
        every = [x if x != os.path.join(ROOT, "bench", "semgrep-rl001.yml")
                 else os.path.join(ROOT, "bench", "semgrep-rl001-every-file.yml") for x in base]
        tools["semgrep-every-file"] = every + [target]

    samples = {name: [] for name in tools}
    for _ in range(args.runs):
        for name, cmd in tools.items():
            samples[name].append(measure(cmd, env))
    peaks = {name: peak_mib(cmd, env) for name, cmd in tools.items()}

    floor_wall = statistics.median(w for w, _ in samples["floor"])
    print(f"{target}  threads={args.threads}  runs={args.runs} (medians)")
    print(f"{'tool':<20} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9} {'wall / floor':>13}")
    for name in tools:
        wall = statistics.median(w for w, _ in samples[name])
        cpu = statistics.median(c for _, c in samples[name])
        print(f"{name:<20} {wall:8.2f} {cpu:8.2f} {peaks[name]:9.0f} {wall / floor_wall:13.2f}")
    if "semgrep" in tools:
        ours = statistics.median(w for w, _ in samples["retrylint"])
        for name in ("semgrep", "semgrep-every-file"):
            theirs = statistics.median(w for w, _ in samples[name])
            print(f"{name} / retrylint: {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
