"""`kb review pending` over many draft branches: a scratch repository with N drafts, each one
commit on its own `draft/...` branch (as `kb draft new` files them), a tenth of them already
merged into main (`-s ours`: main holds no document, so only drafts are read), written with
one `git fast-import`; then `pending()` timed.

    .venv/bin/python benchmarks/bench_review_pending.py --drafts 200 --drafts 500

Prints, per N: the drafts listed and the best of --runs wall-clock times of `pending()`.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from kbtools.config import load_config
from kbtools.review.pending import pending

DATE = 1764424800  # 2025-11-29, +0800


def git(cwd: Path, *args: str, stdin: bytes | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          input=stdin).stdout.decode()


def data(text: str) -> bytes:
    raw = text.encode()
    return b"data %d\n" % len(raw) + raw + b"\n"


def scratch_repo(root: Path, drafts: int) -> Path:
    """A kb repository whose main has one document, and `drafts` draft branches."""
    (root / "knowledge" / "field_reports").mkdir(parents=True)
    (root / "kb.toml").write_text('[paths]\ndrafts = "knowledge/field_reports"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Reviewer")
    git(root, "config", "user.email", "reviewer@ex.org")
    git(root, "add", "kb.toml")
    git(root, "commit", "-q", "-m", "settings")
    stream = b""
    for i in range(drafts):
        doc = (f"---\ntitle: Report {i}\ncategory: field-report\nsource: field report\n"
               f"author: agent bot-{i % 7}\ntimestamp: 2025-11-29T10:00:00+08:00\n"
               f"verified: false\n---\n\nPump {i} leaks after {i} hours.\n")
        stream += (f"commit refs/heads/draft/2025-11-29-report-{i}\n"
                   f"author Bot <bot@ex.org> {DATE + i} +0800\n"
                   f"committer Bot <bot@ex.org> {DATE + i} +0800\n").encode()
        stream += data(f"draft: report {i}") + b"from refs/heads/main^0\n"
        stream += f"M 100644 inline knowledge/field_reports/report-{i}.md\n".encode()
        stream += data(doc)
    git(root, "fast-import", "--quiet", stdin=stream)
    merged = [f"draft/2025-11-29-report-{i}" for i in range(0, drafts, 10)]
    # a tenth merged, their texts left out (-s ours), so only drafts are timed
    git(root, "merge", "-q", "--no-edit", "-s", "ours", *merged)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafts", type=int, action="append", help="Repeatable (200).")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for n in args.drafts or [200]:
        with tempfile.TemporaryDirectory() as tmp:
            cfg = load_config(scratch_repo(Path(tmp), n))
            times, rows = [], []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                rows = pending(cfg)
                times.append(time.perf_counter() - t0)
            listed = sum(r["reason"] == "draft" for r in rows)
            print(f"{n} draft branches: {listed} drafts listed, pending() best of "
                  f"{args.runs}: {min(times):.3f} s")


if __name__ == "__main__":
    main()
