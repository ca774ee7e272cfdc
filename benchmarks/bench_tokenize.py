"""BM25 tokenizer throughput: this tree against another (e.g. main) on the chunks of an index,
rounds alternating (ABBA) in one run; plus per-question cost on a dev set's questions.

    .venv/bin/python benchmarks/bench_tokenize.py --before DIR [--index /work/bench/tidb54k/dist]
        [--questions ../shared/eval/tidb_faq_zh/queries.jsonl] [--rounds 3] [--limit N]

Each round runs one fresh process per tree (its kbtools first on the path) that tokenizes
every chunk's `embed_text` (what a build tokenizes) and every question once untimed (the
segmenter's dictionary load), then again timed. Prints chunks/s, MB/s and µs per question
per tree, and the ratio after/before of the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _texts(index: Path, limit: int) -> list[str]:
    con = sqlite3.connect(f"file:{index / 'index' / 'store.sqlite'}?mode=ro", uri=True)
    try:
        sql = "SELECT embed_text FROM chunks ORDER BY num" + (f" LIMIT {int(limit)}" if limit else "")
        return [r[0] for r in con.execute(sql)]
    finally:
        con.close()


def measure(index: Path, questions: Path, limit: int) -> dict[str, float]:
    """Time this process's kbtools tokenizer (run inside a child process)."""
    from kbtools.index.tokenize import Tokenizer

    texts = _texts(index, limit)
    qs = [json.loads(line)["query"] for line in questions.read_text(encoding="utf-8").splitlines()
          if line.strip()]
    words = (index / "data" / "dictionary.txt").read_text(encoding="utf-8").split()
    tok = Tokenizer(words=tuple(words))
    tok(texts[0])
    t0 = time.perf_counter()
    n_tokens = sum(len(tok(t)) for t in texts)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for q in qs:
        tok(q)
    query_s = time.perf_counter() - t0
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    return {"chunks": len(texts), "tokens": n_tokens, "chunks_per_s": len(texts) / build_s,
            "mb_per_s": mb / build_s, "us_per_question": query_s / len(qs) * 1e6}


def _child(code: Path, args: argparse.Namespace) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    out = subprocess.run([sys.executable, __file__, "--child", "--index", args.index,
                          "--questions", args.questions, "--limit", str(args.limit)],
                         env=env, capture_output=True, text=True, check=True, cwd=code)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", help="the kbtools checkout to compare with")
    ap.add_argument("--index", default="/work/bench/tidb54k/dist")
    ap.add_argument("--questions", default=str(ROOT.parent / "shared" / "eval" / "tidb_faq_zh"
                                               / "queries.jsonl"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0, help="only the first N chunks")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.index), Path(args.questions), args.limit)))
        return
    if not args.before:
        ap.error("--before DIR is required")
    trees = {"before": Path(args.before).resolve(), "after": ROOT}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for r in range(args.rounds):
        order = list(trees.items())
        for name, code in order if r % 2 == 0 else order[::-1]:  # ABBA: drift cancels
            runs[name].append(_child(code, args))
            print(f"round {r + 1} {name}: {runs[name][-1]}", flush=True)
    med = {name: {k: statistics.median(run[k] for run in rs) for k in rs[0]}
           for name, rs in runs.items()}
    for name in trees:
        m = med[name]
        print(f"{name}: {m['chunks']:.0f} chunks, {m['tokens']:.0f} tokens, "
              f"{m['chunks_per_s']:.0f} chunks/s, {m['mb_per_s']:.2f} MB/s, "
              f"{m['us_per_question']:.0f} µs/question")
    for k in ("chunks_per_s", "mb_per_s", "us_per_question"):
        print(f"after/before {k}: {med['after'][k] / med['before'][k]:.3f}")


if __name__ == "__main__":
    main()
