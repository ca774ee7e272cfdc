"""What a commit costs through kb init's pre-commit hook: a commit with a document, and a
commit of code alone (which the hook lets through without the check), as `git commit` runs
them, pre-commit included.

    .venv/bin/python benchmarks/bench_hook.py [--rounds 3] [--touch 500]

A scratch `kb init` project holding this repository's example knowledge (29 documents) and a
source file, its hook installed with `pre-commit install`. Each round commits one line
appended to a field report, then one edit of the source file; each commit's wall time and
CPU (git, pre-commit and kb, all children) are printed, then the medians, and the same two
commits without the hook. The figure kb init's hook comment states
(`kbtools/data/init/pre-commit-config.yaml`). `--touch N` adds a third commit: N documents
at once (added in the first round, each edited by one line in the next), a bulk import or
a search-and-replace over a folder.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--touch", type=int, default=0, metavar="N",
                        help="also time a commit adding, then editing, N documents")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-bench-hook-") as tmp:
        work = Path(tmp) / "project"
        work.mkdir()
        env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               "PYTHONPATH": str(ROOT), "PRE_COMMIT_HOME": str(Path(tmp) / "pre-commit"),
               "KB_HOME": str(Path(tmp) / "kb-home"), "GIT_AUTHOR_NAME": "Bench",
               "GIT_AUTHOR_EMAIL": "bench@example.org", "GIT_COMMITTER_NAME": "Bench",
               "GIT_COMMITTER_EMAIL": "bench@example.org"}

        def run(*cmd: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                                  check=False)

        run("git", "init", "-q")
        assert run(sys.executable, "-m", "kbtools", "init", ".").returncode == 0
        shutil.rmtree(work / "knowledge")
        for folder in ("knowledge", "assets", "schemas"):
            shutil.copytree(ROOT / folder, work / folder, dirs_exist_ok=True)
        shutil.copy(ROOT / "kb.toml", work / "kb.toml")
        (work / "src").mkdir()
        (work / "src" / "app.py").write_text("x = 0\n", encoding="utf-8")
        run("git", "add", "-A")
        run("git", "commit", "-qm", "start", "--no-verify")
        report = sorted((work / "knowledge" / "field_reports").glob("*.md"))[0]
        n = 0

        def commit(kind: str) -> tuple[float, float]:
            nonlocal n
            n += 1
            if kind == "code":
                (work / "src" / "app.py").write_text(f"x = {n}\n", encoding="utf-8")
                run("git", "add", "src/app.py")
            elif kind == "bulk":
                for i in range(args.touch):
                    _bulk_doc(work / "knowledge" / "bulk" / f"记录-{i:04d}.md", i, n)
                run("git", "add", "knowledge/bulk")
            else:
                with report.open("a", encoding="utf-8") as out:
                    out.write(f"\n补充说明 {n}。\n")
                run("git", "add", str(report))
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = run("git", "commit", "-qm", f"{kind} {n}")
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0:
                raise SystemExit(f"the {kind} commit failed:\n{done.stdout}{done.stderr}")
            return wall, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)

        if run(str(BIN / "pre-commit"), "install").returncode != 0:
            raise SystemExit(f"pre-commit install failed (is pre-commit in {BIN}?)")
        times: dict[str, list[tuple[float, float]]] = {"document": [], "code": []}
        if args.touch:
            times["bulk"] = []
        for _ in range(args.rounds):
            for kind in times:
                wall, cpu = commit(kind)
                times[kind].append((wall, cpu))
                print(f"{kind:8s} wall {wall:.2f} s  cpu {cpu:.2f} s", flush=True)
        for kind, runs in times.items():
            print(f"median {kind:8s} wall {statistics.median(w for w, _ in runs):.2f} s  "
                  f"cpu {statistics.median(c for _, c in runs):.2f} s")
        run(str(BIN / "pre-commit"), "uninstall")
        for kind in times:
            wall, cpu = commit(kind)
            print(f"no hook {kind:8s} wall {wall:.2f} s  cpu {cpu:.2f} s")


def _bulk_doc(path: Path, i: int, n: int) -> None:
    """One field report of a bulk commit, its body growing by a line each round."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\ntitle: 田间记录 {i}\ncategory: field-report\nsource: 巡田\n"
            f"author: bench@example.org\nlocation: 试验田 {i}\n"
            f"timestamp: \"2026-03-{1 + i % 28:02d}T09:00:00+08:00\"\n"
            f"verified: false\nlang: zh\n---\n# 田间记录 {i}\n\n## 观察\n\n"
            f"第 {i} 块田：叶片出现黄色条纹，Leaf rust seen on plot {i}.\n",
            encoding="utf-8")
    with path.open("a", encoding="utf-8") as out:
        out.write(f"\n补充 {n}。\n")


if __name__ == "__main__":
    main()
