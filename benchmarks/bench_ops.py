"""Operator figures on a large release: `kb diff` cost and the query log's cost per question.

1. Diff: a release (default: a ~60k-chunk build given with --dist) against a copy of it in
   which one chunk of one shard changed (text and verification), as a one-paragraph edit
   gives. `diff_dirs` reads only the shards whose manifest hash differs; the same-run
   baseline is reading and parsing every chunk shard of one release, the least a diff
   that ignored the manifest would do.
2. Query log: warm searches on the release opened as a device's release, with and without
   `record_question` after each, interleaved; prints p50 of both and the log's cost per line.

Usage: .venv/bin/python benchmarks/bench_ops.py --dist DIR [--questions Q.jsonl] [--n 100]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from kbtools.fsutil import read_json_lines
from kbtools.index.layout import ReleaseLayout
from kbtools.index.manifest import dumps
from kbtools.index.reader import open_index
from kbtools.query.log import record_question
from kbtools.query.search import search
from kbtools.ship.changes import diff_dirs

HERE = Path(__file__).resolve().parent
DEFAULT_QUESTIONS = HERE.parents[1] / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"


def edited_copy(dist: Path, out: Path) -> str:
    """manifest + docs.jsonl + one edited shard in `out` (other shards are never read)."""
    manifest = json.loads((dist / "manifest.json").read_text(encoding="utf-8"))
    shard = ReleaseLayout(dist).chunk_shards()[0]
    rel = shard.relative_to(dist).as_posix()
    lines = shard.read_bytes().split(b"\n")
    rec = json.loads(lines[0])
    rec["text"] += " 编辑"
    rec["content_hash"] = hashlib.sha256(rec["text"].encode()).hexdigest()
    rec["verification"] = {"verified": False, "status": "lapsed", "reason": "edited"}
    lines[0] = json.dumps(rec, ensure_ascii=False, sort_keys=True).encode()
    data = b"\n".join(lines)
    (out / rel).parent.mkdir(parents=True, exist_ok=True)
    (out / rel).write_bytes(data)
    shutil.copy(ReleaseLayout(dist).docs, out / "data" / "docs.jsonl")
    manifest["artifacts"][rel] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    (out / "manifest.json").write_bytes(dumps(manifest))
    return rel


def timed(fn, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def bench_diff(dist: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        new = Path(tmp)
        edited_copy(dist, new)
        res = diff_dirs(dist, new)
        assert len(res.documents_changed) == 1 and len(res.verification_lost) <= 1
        diff_ms = timed(lambda: diff_dirs(dist, new))
        shards = ReleaseLayout(dist).chunk_shards()
        full_ms = timed(lambda: [read_json_lines(s) for s in shards], rounds=3)
    return {"chunks": json.loads((dist / "manifest.json").read_text())["counts"]["chunks"],
            "diff_ms": round(diff_ms, 1), "read_all_shards_ms": round(full_ms, 1),
            "ratio": round(diff_ms / full_ms, 3), "summary": res.summary()}


def bench_log(dist: Path, questions: list[str], n: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        device = Path(tmp)
        (device / "releases").mkdir()
        os.symlink(dist.resolve(), device / "releases" / "kb-r1")  # a device's release path
        index = open_index(device / "releases" / "kb-r1")
        plain, logged = [], []
        for i in range(n):
            q = questions[i % len(questions)]
            for with_log in ((False, True) if i % 2 else (True, False)):
                t0 = time.perf_counter()
                res = search(index, q, k=5)
                if with_log:
                    record_question(index, "cli", q, res)
                (logged if with_log else plain).append(time.perf_counter() - t0)
        lines = (device / "queries.jsonl").read_bytes().count(b"\n")
        t0 = time.perf_counter()
        for q in questions[:200]:
            record_question(index, "cli", q, res)
        per_line_us = (time.perf_counter() - t0) / min(200, len(questions)) * 1e6
    p50, p50_log = statistics.median(plain) * 1000, statistics.median(logged) * 1000
    return {"searches": n, "logged_lines": lines, "p50_ms": round(p50, 2),
            "p50_with_log_ms": round(p50_log, 2), "ratio": round(p50_log / p50, 3),
            "record_question_us": round(per_line_us, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dist", type=Path, required=True)
    ap.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    ap.add_argument("--n", type=int, default=100)
    args = ap.parse_args()
    print("diff:", json.dumps(bench_diff(args.dist), ensure_ascii=False))
    questions = [r["query"] for r in read_json_lines(args.questions)]
    print("log:", json.dumps(bench_log(args.dist, questions, args.n), ensure_ascii=False))


if __name__ == "__main__":
    main()
