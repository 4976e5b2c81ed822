#!/usr/bin/env python3
"""How time and memory grow with the input: scan a growing set of checkouts together.

    python3 bench/growth.py PATH1 PATH2 … [--runs 3] [--threads 2]

Runs `retrylint check --no-cache` on PATH1, then PATH1 PATH2, and so on (one project made of
all of them), and prints for each set its Java size, the median wall time and the peak memory,
and both per MB of Java — flat columns mean linear growth. With --no-prefilter every file is
parsed, the worst case for memory.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def java_bytes(path):
    total = 0
    for d, dirs, files in os.walk(path):
        dirs[:] = [x for x in dirs if x != ".git"]
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files if f.endswith(".java"))
    return total


def run(cmd, env):
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.exit(f"retrylint failed: {proc.stderr.decode(errors='replace')[-400:]}")
    return wall, int(proc.stderr.decode().strip().splitlines()[-1]) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-prefilter", action="store_true")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "retrylint"], cwd=ROOT, check=True)
    tdir = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.path.join(tdir, "release", "retrylint")
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    extra = ["--no-prefilter"] if args.no_prefilter else []
    paths = [os.path.abspath(p) for p in args.paths]
    size = 0
    print(f"{'checkouts':<40} {'Java MB':>8} {'wall s':>7} {'peak MiB':>9} {'s/MB':>6} {'MiB/MB':>7}")
    for i, p in enumerate(paths):
        size += java_bytes(p)
        cmd = [exe, "check", "--no-cache", "--exit-zero", "--format", "json", "--output", os.devnull,
               *extra, *paths[: i + 1]]
        samples = [run(cmd, env) for _ in range(args.runs)]
        wall = statistics.median(w for w, _ in samples)
        peak = max(m for _, m in samples)
        mb = size / 1e6
        names = "+".join(os.path.basename(x) for x in paths[: i + 1])
        print(f"{names[-40:]:<40} {mb:8.1f} {wall:7.2f} {peak:9.0f} {wall / mb:6.3f} {peak / mb:7.1f}")


if __name__ == "__main__":
    main()
