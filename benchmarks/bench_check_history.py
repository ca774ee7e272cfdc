"""`kb check` in a repository of many verified documents: what judging their reviews costs
(`verification-lapsed`), this tree against another, fresh processes alternating.

    .venv/bin/python benchmarks/bench_check_history.py --before /work/wt/s29base \
        [--documents 200] [--rounds 5]

A scratch repository: kb.toml naming Rita a reviewer, N documents Alice wrote in one commit,
Rita's commit verifying them all (recording each document's content as `kb review approve`
does, `Kb-Reviewed-Content:`, so that check is measured too), then Mallory's edit of one line of every tenth (each
edited document gets a warning). `kb check` (which judges every verified document's review
with the history read once) runs in a fresh process per round, the two trees alternating
(PYTHONPATH=TREE), and prints per tree the median wall time, the warnings (which must be
the same), and the git processes one run starts (counted with strace when it is there).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from kbtools.provenance import state_from_text  # noqa: E402
from kbtools.review.verification import content_trailer  # noqa: E402

AT = "2026-02-02T09:00:00+00:00"
KB_TOML = '[review.reviewers]\n"knowledge/**" = ["rita@ex.org"]\n'


def git(root: Path, *args: str, who: str = "alice@ex.org", date: str = AT) -> None:
    name = who.split("@")[0].title()
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": who,
           "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": who,
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def doc(i: int, by: str | None, hours: int = 2000) -> str:
    verified = f'verified: true\nverified_by: {by}\nverified_at: "{AT}"' if by else \
        "verified: false"
    return (f"---\ntitle: Pump {i} seals\ncategory: engineering\nproject: demo\nsource: SOP\n"
            f"author: Alice\n"
            f'timestamp: "2026-01-01T09:00:00+08:00"\n{verified}\n---\n\n# Pump {i} seals\n\n'
            f"Replace the seal every {hours} hours.\n\nCheck the shaft for wear.\n")


def scratch_repo(root: Path, n: int) -> None:
    (root / "knowledge").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "settings", who="lead@ex.org", date="2026-01-01T00:00:00Z")
    for by, who, message in ((None, "alice@ex.org", "Add pumps"),
                             ("rita@ex.org", "rita@ex.org", "Verify")):
        for i in range(n):
            (root / f"knowledge/pump{i}.md").write_text(doc(i, by), encoding="utf-8")
        if by:  # what `kb review approve` records: each document's content digest
            message += "\n\n" + "\n".join(sorted({content_trailer(state_from_text(
                (root / f"knowledge/pump{i}.md").read_text("utf-8"), f"knowledge/pump{i}.md"))
                for i in range(n)}))
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", message, who=who)
    for i in range(0, n, 10):
        (root / f"knowledge/pump{i}.md").write_text(doc(i, "rita@ex.org", 5000), "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Longer intervals", who="mallory@ex.org",
        date="2026-03-01T10:00:00+00:00")


def run_check(tree: Path, repo: Path, trace: bool = False) -> tuple[float, str, int | None]:
    """(wall seconds, the warnings' lines, git processes started or None)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-c", "from kbtools.cli import main; main()", "check"]
    log = repo.parent / "strace.log"
    if trace:
        cmd = ["strace", "-f", "-qq", "-e", "trace=execve", "-e", "signal=none", "-o",
               str(log), *cmd]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    warnings = "\n".join(sorted(line for line in (res.stdout + res.stderr).splitlines()
                                if "verification-lapsed" in line))
    spawned = None
    if trace:  # execve tries every PATH entry: count the ones that ran git
        spawned = sum(1 for line in log.read_text().splitlines()
                      if 'execve("' in line and '"git"' in line and "= 0" in line)
    return wall, warnings, spawned


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="another code tree (e.g. a worktree)")
    ap.add_argument("--documents", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    trees = {"before": Path(args.before).resolve(), "after": ROOT}
    work = Path(tempfile.mkdtemp(prefix="kb-check-history-"))
    repo = work / "kb"
    scratch_repo(repo, args.documents)
    walls: dict[str, list[float]] = {k: [] for k in trees}
    found: dict[str, str] = {}
    for r in range(args.rounds):
        for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
            wall, warnings, _ = run_check(trees[name], repo)
            walls[name].append(wall)
            found[name] = warnings
    spawned = {name: run_check(tree, repo, trace=True)[2] if shutil.which("strace") else None
               for name, tree in trees.items()}
    n_warn = len(found["after"].splitlines())
    print(f"kb check of {args.documents} verified documents ({n_warn} verification-lapsed "
          f"warnings; same on both trees: {found['before'] == found['after']}), "
          f"median of {args.rounds} fresh processes:")
    for name in trees:
        procs = f", {spawned[name]} git processes" if spawned[name] is not None else ""
        print(f"  {name:<6} {statistics.median(walls[name]):6.2f} s{procs}")
    ratio = statistics.median(walls["after"]) / statistics.median(walls["before"])
    print(f"  after/before: {ratio:.2f}x")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
