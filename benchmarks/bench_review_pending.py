"""`kb review pending` over many draft branches, and over many committed documents in a long
history.

--drafts N: a scratch repository with N drafts, each one commit on its own `draft/...`
branch (as `kb draft new` files them), a tenth of them already merged into main (`-s ours`:
main holds no document, so only drafts are read), written with one `git fast-import`.

--documents N: a scratch repository whose main has N documents awaiting review in a history
of --commits commits (550): each added, reviewed (`verified: true`), a fifth of them renamed,
then edited since the review, the rest of the commits edits of one more document; written
with one `git fast-import`. Each document's history is read (`lineage.histories_of`), not
one `git log --follow` per document.

    .venv/bin/python benchmarks/bench_review_pending.py --drafts 200 --drafts 500
    .venv/bin/python benchmarks/bench_review_pending.py --documents 50 --documents 150

Prints, per N: what is listed and the best of --runs wall-clock times of `pending()`.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from kbtools.config import Config, load_config
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


def text(title: str, body: str, verified: bool) -> str:
    review = ('verified: true\nverified_by: Reviewer\nverified_at: "2025-11-30T10:00:00+08:00"\n'
              if verified else "verified: false\n")
    return f"---\ntitle: {title}\nauthor: Alice\n{review}---\n\n# {title}\n\n{body}\n"


def history_repo(root: Path, documents: int, commits: int) -> Path:
    """A kb repository whose main has `documents` documents awaiting review (added,
    reviewed, a fifth renamed, edited since) in a history of `commits` commits."""
    (root / "knowledge").mkdir(parents=True)
    (root / "kb.toml").write_text("")
    git(root, "init", "-q", "-b", "main")
    stream = b""
    n = 0

    def commit(message: str, *changes: str) -> None:
        nonlocal stream, n
        stream += (f"commit refs/heads/main\nauthor Alice <alice@ex.org> {DATE + n} +0800\n"
                   f"committer Alice <alice@ex.org> {DATE + n} +0800\n").encode()
        stream += data(message)  # each commit on the one before it in the stream
        stream += "".join(changes).encode()
        n += 1

    def put(path: str, content: str) -> str:
        return f"M 100644 inline {path}\n" + data(content).decode()

    name = {i: f"knowledge/pump-{i}.md" for i in range(documents)}
    commit("settings", put("kb.toml", ""))
    for i in range(documents):
        commit(f"add {i}", put(name[i], text(f"Pump {i}", f"Pump {i} leaks.", False)))
    for i in range(documents):
        commit(f"review {i}", put(name[i], text(f"Pump {i}", f"Pump {i} leaks.", True)))
    for i in range(0, documents, 5):
        old, name[i] = name[i], f"knowledge/pumps/pump-{i}.md"
        commit(f"move {i}", f"R {old} {name[i]}\n")
    for i in range(documents):
        commit(f"edit {i}", put(name[i], text(f"Pump {i}", f"Pump {i} leaks after {i} h.",
                                              True)))
    for k in range(max(0, commits - n)):
        commit(f"notes {k}", put("knowledge/notes.md", text("Notes", f"Note {k}.", False)))
    git(root, "fast-import", "--quiet", stdin=stream)
    git(root, "reset", "-q", "--hard", "main")
    return root


def timed(cfg: Config, runs: int) -> tuple[float, list[dict[str, Any]]]:
    times, rows = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        rows = pending(cfg)
        times.append(time.perf_counter() - t0)
    return min(times), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafts", type=int, action="append", help="Repeatable (200).")
    parser.add_argument("--documents", type=int, action="append", help="Repeatable.")
    parser.add_argument("--commits", type=int, default=550)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for n in args.drafts or ([] if args.documents else [200]):
        with tempfile.TemporaryDirectory() as tmp:
            best, rows = timed(load_config(scratch_repo(Path(tmp), n)), args.runs)
            listed = sum(r["reason"] == "draft" for r in rows)
            print(f"{n} draft branches: {listed} drafts listed, pending() best of "
                  f"{args.runs}: {best:.3f} s")
    for n in args.documents or []:
        with tempfile.TemporaryDirectory() as tmp:
            root = history_repo(Path(tmp), n, args.commits)
            commits = git(root, "rev-list", "--count", "HEAD").strip()
            best, rows = timed(load_config(root), args.runs)
            print(f"{n} documents in {commits} commits: {len(rows)} awaiting review, "
                  f"pending() best of {args.runs}: {best:.3f} s")


if __name__ == "__main__":
    main()
