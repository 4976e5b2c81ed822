#!/usr/bin/env python3
"""Judge a retrylint binary against the labelled real-world set.

Every repository of bench/realworld/repos.tsv is checked out at its labelled commit (from a
bare git mirror, `git archive | tar -x` into a cache directory), scanned with
`retrylint check --format json --no-cache --exit-zero`, and its findings are matched to
bench/realworld/labels.tsv by (repository, commit, path, line, rule).

Printed per repository and overall: findings, true (tp), false (fp), unlabelled; precision per
rule (tp / labelled findings); the known bugs (tp rows) still found and those now missing; the
unlabelled findings, listed so that someone judges them and adds rows.

`--check` exits 1 when a tp that the baseline version found (column `baseline` = found) is no
longer reported; `--strict` also fails on the known misses (baseline = missed) and on
repositories that could not be checked out.

`--together A B …` scans the listed repositories side by side under one directory and reports,
for each of them, the findings in its files that differ from its scan alone (a scan must not
change its findings for one project because another one lies next to it).

Standard library only.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_LABELS = HERE / "realworld" / "labels.tsv"
DEFAULT_REPOS = HERE / "realworld" / "repos.tsv"
DEFAULT_BIN = HERE.parent / "target" / "release" / "retrylint"
DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "retrylint-realworld"

LABEL_COLUMNS = ["repo", "commit", "path", "line", "rule", "verdict", "baseline", "why"]
REPO_COLUMNS = ["repo", "commit", "note"]
RULES = ["RL001", "RL002", "RL003", "RL004", "RL005", "RL006"]


class SetupError(Exception):
    """A problem with the inputs of this script (not with retrylint's findings)."""


@dataclass(frozen=True)
class Label:
    repo: str
    commit: str
    path: str
    line: int
    rule: str
    verdict: str
    baseline: str
    why: str

    @property
    def key(self) -> tuple[str, str, str, int, str]:
        return (self.repo, self.commit, self.path, self.line, self.rule)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    rule: str
    message: str


@dataclass
class RepoResult:
    repo: str
    commit: str
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None
    tp: list[Label] = field(default_factory=list)
    fp: list[Label] = field(default_factory=list)
    unlabelled: list[Finding] = field(default_factory=list)
    missing_tp: list[Label] = field(default_factory=list)
    gone_fp: list[Label] = field(default_factory=list)


def read_tsv(path: Path, columns: list[str]) -> list[dict[str, str]]:
    if not path.is_file():
        raise SetupError(f"{path} does not exist.")
    rows = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(
            (line for line in handle if not line.startswith("#")), delimiter="\t", quoting=csv.QUOTE_NONE
        )
        if reader.fieldnames != columns:
            raise SetupError(f"{path}: the header must be {' '.join(columns)}, not {reader.fieldnames}.")
        for number, row in enumerate(reader, start=2):
            if None in row or any(row[c] is None for c in columns):
                raise SetupError(f"{path}:{number}: expected {len(columns)} tab-separated columns.")
            rows.append(row)
    return rows


def read_labels(path: Path) -> list[Label]:
    labels = []
    seen = set()
    for row in read_tsv(path, LABEL_COLUMNS):
        where = f"{path}: {row['repo']} {row['path']}:{row['line']}"
        if len(row["commit"]) != 40 or any(c not in "0123456789abcdef" for c in row["commit"]):
            raise SetupError(f"{where}: the commit must be 40 lowercase hex digits.")
        if row["verdict"] not in ("tp", "fp"):
            raise SetupError(f"{where}: the verdict must be tp or fp, not {row['verdict']!r}.")
        if row["baseline"] not in ("found", "missed"):
            raise SetupError(f"{where}: the baseline must be found or missed, not {row['baseline']!r}.")
        if row["verdict"] == "fp" and row["baseline"] != "found":
            raise SetupError(f"{where}: a false positive is a finding, so its baseline is found.")
        if row["rule"] not in RULES:
            raise SetupError(f"{where}: unknown rule {row['rule']!r}.")
        if not row["line"].isdigit():
            raise SetupError(f"{where}: the line must be a number.")
        if not row["why"].strip():
            raise SetupError(f"{where}: the why column is empty.")
        label = Label(
            row["repo"], row["commit"], row["path"], int(row["line"]), row["rule"], row["verdict"],
            row["baseline"], row["why"],
        )
        if label.key in seen:
            raise SetupError(f"{where}: labelled twice for {row['rule']}.")
        seen.add(label.key)
        labels.append(label)
    return labels


def git_dir(mirrors: Path, repo: str) -> Path:
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    raise SetupError(f"no git mirror of {repo} under {base} (fetch github:{repo} first).")


def absent_blobs(source: Path, commit: str) -> list[str]:
    """Paths at `commit` whose blobs the mirror does not hold (a snapshot may leave out its
    largest files, such as bundled jars); `git archive` would fail on them."""
    listing = subprocess.run(
        ["git", "--git-dir", str(source), "ls-tree", "-r", "-z", commit],
        capture_output=True, check=True,
    ).stdout.decode(errors="surrogateescape")
    blobs = {}
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            blobs.setdefault(parts[2], []).append(path)
    if not blobs:
        return []
    check = subprocess.run(
        ["git", "--git-dir", str(source), "cat-file", "--batch-check"],
        input="\n".join(blobs).encode() + b"\n", capture_output=True, check=True,
    ).stdout.decode()
    return [path for line in check.splitlines() if line.endswith(" missing")
            for path in blobs.get(line.split()[0], [])]


def checkout(mirrors: Path, cache: Path, repo: str, commit: str) -> Path:
    """The tree of `repo` at `commit`, extracted once into the cache."""
    tree = cache / f"{repo.replace('/', '+')}@{commit}"
    if (tree / ".realworld-complete").is_file():
        return tree
    source = git_dir(mirrors, repo)
    cache.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=tree.name + ".", dir=cache))
    try:
        archive = subprocess.Popen(
            ["git", "--git-dir", str(source), "archive", "--format=tar", commit, "--", "."]
            + [f":(exclude,literal){path}" for path in absent_blobs(source, commit)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        untar = subprocess.run(["tar", "-x", "-C", str(partial)], stdin=archive.stdout, capture_output=True)
        archive.stdout.close()
        archive_err = archive.stderr.read().decode(errors="replace").strip()
        if archive.wait() != 0:
            raise SetupError(f"git archive of {repo} at {commit} failed: {archive_err}")
        if untar.returncode != 0:
            raise SetupError(f"extracting {repo} at {commit} failed: {untar.stderr.decode(errors='replace').strip()}")
        (partial / ".realworld-complete").write_text(commit + "\n")
        shutil.rmtree(tree, ignore_errors=True)
        partial.rename(tree)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return tree


def scan(binary: Path, root: Path, paths: list[str]) -> tuple[list[Finding], float]:
    command = [str(binary), "check", "--format", "json", "--no-cache", "--exit-zero", "--quiet", *paths]
    started = time.monotonic()
    run = subprocess.run(command, cwd=root, capture_output=True)
    seconds = time.monotonic() - started
    if run.returncode != 0:
        last = run.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise SetupError(f"retrylint exited {run.returncode} in {root}: {last[0]}")
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError as error:
        raise SetupError(f"retrylint's JSON in {root} does not parse: {error}.") from error
    findings = []
    for item in report.get("findings", []):
        path = item["path"]
        while path.startswith("./"):
            path = path[2:]
        findings.append(Finding(path, int(item["line"]), item["rule"], item.get("message", "")))
    return findings, seconds


def judge(result: RepoResult, labels: dict[tuple, Label]) -> None:
    reported = set()
    for finding in result.findings:
        key = (result.repo, result.commit, finding.path, finding.line, finding.rule)
        reported.add(key)
        label = labels.get(key)
        if label is None:
            result.unlabelled.append(finding)
        elif label.verdict == "tp":
            result.tp.append(label)
        else:
            result.fp.append(label)
    for key, label in labels.items():
        if key[:2] != (result.repo, result.commit) or key in reported:
            continue
        if label.verdict == "tp":
            result.missing_tp.append(label)
        else:
            result.gone_fp.append(label)


def ratio(numerator: int, denominator: int) -> str:
    return f"{numerator / denominator:.2f}" if denominator else "-"


def print_report(results: list[RepoResult], out) -> None:
    width = max([len(f"{r.repo}@{r.commit[:8]}") for r in results] + [10])
    header = f"{'repository':<{width}} {'findings':>8} {'tp':>4} {'fp':>4} {'unlab.':>6} {'tp lost':>7} {'misses':>6} {'seconds':>8}"
    print(header, file=out)
    print("-" * len(header), file=out)
    totals = collections.Counter()
    for r in results:
        name = f"{r.repo}@{r.commit[:8]}"
        if r.error:
            print(f"{name:<{width}} not checked: {r.error}", file=out)
            continue
        lost = [l for l in r.missing_tp if l.baseline == "found"]
        misses = [l for l in r.missing_tp if l.baseline == "missed"]
        row = dict(findings=len(r.findings), tp=len(r.tp), fp=len(r.fp), unlabelled=len(r.unlabelled),
                   lost=len(lost), misses=len(misses))
        totals.update(row)
        totals["seconds"] += r.seconds
        print(f"{name:<{width}} {row['findings']:>8} {row['tp']:>4} {row['fp']:>4} {row['unlabelled']:>6} "
              f"{row['lost']:>7} {row['misses']:>6} {r.seconds:>8.2f}", file=out)
    print("-" * len(header), file=out)
    print(f"{'overall':<{width}} {totals['findings']:>8} {totals['tp']:>4} {totals['fp']:>4} "
          f"{totals['unlabelled']:>6} {totals['lost']:>7} {totals['misses']:>6} {totals['seconds']:>8.2f}", file=out)

    checked = [r for r in results if not r.error]
    print("\nprecision per rule (tp / labelled findings; unlabelled findings are not counted)", file=out)
    print(f"{'rule':<6} {'findings':>8} {'tp':>4} {'fp':>4} {'unlab.':>6} {'precision':>9}", file=out)
    for rule in RULES:
        tp = sum(1 for r in checked for l in r.tp if l.rule == rule)
        fp = sum(1 for r in checked for l in r.fp if l.rule == rule)
        unlabelled = sum(1 for r in checked for f in r.unlabelled if f.rule == rule)
        found = sum(1 for r in checked for f in r.findings if f.rule == rule)
        print(f"{rule:<6} {found:>8} {tp:>4} {fp:>4} {unlabelled:>6} {ratio(tp, tp + fp):>9}", file=out)

    # One monorepo can dominate a rule's figures: the same rule per repository, each repository
    # with a labelled finding of the rule counting once (the mean of their precisions), and the
    # precision without the repository that has most of the rule's findings.
    print("\nprecision per rule and repository (repositories with a labelled finding of the rule)", file=out)
    print(f"{'rule':<6} {'repos':>5} {'mean':>6} {'largest repository (its findings)':<52} {'without it':>10}", file=out)
    for rule in RULES:
        per = []
        for r in checked:
            tp = sum(1 for l in r.tp if l.rule == rule)
            fp = sum(1 for l in r.fp if l.rule == rule)
            if tp + fp:
                per.append((tp + fp, f"{r.repo}@{r.commit[:8]}", tp, fp))
        if not per:
            continue
        mean = sum(tp / (tp + fp) for _, _, tp, fp in per) / len(per)
        big = max(per)
        rest_tp = sum(tp for _, _, tp, _ in per) - big[2]
        rest_fp = sum(fp for _, _, _, fp in per) - big[3]
        name = f"{big[1]} ({big[0]})"
        print(f"{rule:<6} {len(per):>5} {mean:>6.2f} {name:<52} {ratio(rest_tp, rest_tp + rest_fp):>10}", file=out)

    known = [l for r in checked for l in r.tp + r.missing_tp]
    still = [l for r in checked for l in r.tp]
    print(f"\nknown bugs (tp rows): {len(still)} of {len(known)} found (recall {ratio(len(still), len(known))})", file=out)
    for label in sorted(still, key=lambda l: l.key):
        now = " (a known miss of the baseline, now found)" if label.baseline == "missed" else ""
        print(f"  found   {label.rule} {label.repo} {label.path}:{label.line}{now}", file=out)
    for label in sorted((l for r in checked for l in r.missing_tp), key=lambda l: l.key):
        state = "LOST   " if label.baseline == "found" else "missed "
        print(f"  {state} {label.rule} {label.repo} {label.path}:{label.line} -- {label.why}", file=out)

    fps = [l for r in checked for l in r.fp]
    if fps:
        print(f"\nfalse positives still reported: {len(fps)}", file=out)
        for label in sorted(fps, key=lambda l: l.key):
            print(f"  {label.rule} {label.repo} {label.path}:{label.line} -- {label.why}", file=out)

    gone = [l for r in checked for l in r.gone_fp]
    if gone:
        print(f"\nfalse positives no longer reported: {len(gone)}", file=out)
        for label in sorted(gone, key=lambda l: l.key):
            print(f"  {label.rule} {label.repo} {label.path}:{label.line}", file=out)

    unlabelled = [(r, f) for r in checked for f in r.unlabelled]
    if unlabelled:
        print(f"\nunlabelled findings ({len(unlabelled)}): read the code and add a row to labels.tsv", file=out)
        for r, f in unlabelled:
            print(f"  {r.repo}\t{r.commit}\t{f.path}\t{f.line}\t{f.rule}\t?\tfound\t{f.message}", file=out)


def run_labelled(args, labels: list[Label], repos: list[dict[str, str]]) -> int:
    by_key = {label.key: label for label in labels}
    wanted = set(args.repo or [])
    targets = [(row["repo"], row["commit"]) for row in repos if not wanted or row["repo"] in wanted]
    listed = {(row["repo"], row["commit"]) for row in repos}
    for label in labels:
        if (label.repo, label.commit) not in listed:
            raise SetupError(f"{label.repo}@{label.commit} has labels but no row in repos.tsv.")
    results = []
    for repo, commit in targets:
        result = RepoResult(repo, commit)
        try:
            tree = checkout(args.mirrors, args.cache, repo, commit)
            result.findings, result.seconds = scan(args.bin, tree, ["."])
            judge(result, by_key)
        except SetupError as error:
            result.error = str(error)
        print(f"scanned {repo}@{commit[:8]}: {len(result.findings)} findings in {result.seconds:.2f}s"
              + (f" ({result.error})" if result.error else ""), file=sys.stderr)
        results.append(result)
    print_report(results, sys.stdout)
    if not args.check:
        return 0
    lost = [l for r in results for l in r.missing_tp if l.baseline == "found" or args.strict]
    failed = [r for r in results if r.error]
    if lost:
        print(f"\ncheck failed: {len(lost)} labelled true positive(s) no longer reported.", file=sys.stderr)
    if failed and args.strict:
        print(f"\ncheck failed: {len(failed)} repository(ies) could not be scanned.", file=sys.stderr)
    return 1 if lost or (failed and args.strict) else 0


def run_together(args, repos: list[dict[str, str]]) -> int:
    commits = {row["repo"]: row["commit"] for row in repos}
    names = args.together
    for name in names:
        if name not in commits:
            raise SetupError(f"{name} has no row in repos.tsv.")
    combined = Path(tempfile.mkdtemp(prefix="together.", dir=args.cache))
    try:
        alone = {}
        for name in names:
            tree = checkout(args.mirrors, args.cache, name, commits[name])
            alone[name], seconds = scan(args.bin, tree, ["."])
            print(f"{name} alone: {len(alone[name])} findings in {seconds:.2f}s")
            # Hard links: as cheap as a symlink, and the scan sees ordinary directories.
            shutil.copytree(tree, combined / name.replace("/", "+"), copy_function=os.link)
        together, seconds = scan(args.bin, combined, ["."])
        print(f"together: {len(together)} findings in {seconds:.2f}s")
        differ = 0
        for name in names:
            prefix = name.replace("/", "+") + "/"
            mine = {(f.path[len(prefix):], f.line, f.rule): f for f in together if f.path.startswith(prefix)}
            before = {(f.path, f.line, f.rule): f for f in alone[name]}
            only_alone = sorted(set(before) - set(mine))
            only_together = sorted(set(mine) - set(before))
            changed = sorted(k for k in set(before) & set(mine) if before[k].message != mine[k].message.replace(prefix, ""))
            differ += len(only_alone) + len(only_together) + len(changed)
            print(f"\n{name}: {len(before)} alone, {len(mine)} together; "
                  f"{len(only_alone)} lost, {len(only_together)} new, {len(changed)} with another message")
            for key in only_alone:
                print(f"  lost together: {key[2]} {key[0]}:{key[1]} -- {before[key].message}")
            for key in only_together:
                print(f"  new together:  {key[2]} {key[0]}:{key[1]} -- {mine[key].message}")
            for key in changed:
                print(f"  message:       {key[2]} {key[0]}:{key[1]}\n    alone:    {before[key].message}"
                      f"\n    together: {mine[key].message}")
        return 1 if differ and args.check else 0
    finally:
        shutil.rmtree(combined, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=DEFAULT_BIN, help="the retrylint binary (default: %(default)s)")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS,
                        help="where the bare git mirrors are: <dir>/<owner>+<name>[/repo] (default: %(default)s)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="where checked-out trees are kept between runs (default: %(default)s)")
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS, help="default: %(default)s")
    parser.add_argument("--repos", type=Path, default=DEFAULT_REPOS, help="default: %(default)s")
    parser.add_argument("--repo", action="append", help="only this repository (owner/name; repeatable)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a true positive found by the baseline is no longer reported")
    parser.add_argument("--strict", action="store_true",
                        help="with --check, also fail on known misses and on repositories that cannot be scanned")
    parser.add_argument("--together", nargs="+", metavar="OWNER/NAME",
                        help="scan these repositories alone and side by side and list the differences")
    args = parser.parse_args(argv)
    try:
        if not args.bin.is_file():
            raise SetupError(f"no retrylint binary at {args.bin} (build it or pass --bin).")
        args.bin = args.bin.resolve()
        args.cache.mkdir(parents=True, exist_ok=True)
        repos = read_tsv(args.repos, REPO_COLUMNS)
        if args.together:
            return run_together(args, repos)
        return run_labelled(args, read_labels(args.labels), repos)
    except SetupError as error:
        print(f"realworld: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
