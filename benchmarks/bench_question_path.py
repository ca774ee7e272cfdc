"""The question's embedding path on and off, in one process, alternating per question.

    PYTHONPATH=TREE .venv/bin/python benchmarks/bench_question_path.py \
        --index /work/bench/tidb54k-v3/dist [--questions ../shared/eval/tidb_faq_zh/queries.jsonl] \
        [--rounds 2]

"on" embeds each question through the embedders' own question path (`embed_question`:
bfloat16 matrix units where the CPU has them, `kbtools.embed.bf16`); "off" through
`embed_batch([question])`, the float32 path. Both run the same warm search over the same
index in the same process, the order of the two alternating per question, so machine load
hits both alike. Prints thread-CPU p50/p95 of the whole search and of the search less its
embedding (does the fast path slow down what follows it, e.g. by a lower clock?).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if not os.environ.get("PYTHONPATH"):  # the tree measured: PYTHONPATH's, else this one
    sys.path.insert(0, str(ROOT))

from kbtools.embed import bert, use  # noqa: E402
from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query.search import search  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"
EMBEDDERS = (use.UseEmbedder, bert.BertEmbedder)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--questions", default=QUESTIONS, type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    index = open_index(args.index)
    questions = [json.loads(line)["query"] for line in
                 args.questions.read_text(encoding="utf-8").split("\n") if line.strip()]
    spent = [0.0]

    def timed(fn: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
        def run(self: Any, text: str) -> Any:
            c0 = time.thread_time()
            try:
                return fn(self, text)
            finally:
                spent[0] += time.thread_time() - c0
        return run

    def batch_of_one(self: Any, text: str) -> Any:
        return self.embed_batch([text])

    paths = {"on": [timed(cls.embed_question) for cls in EMBEDDERS],
             "off": [timed(batch_of_one) for _ in EMBEDDERS]}

    def take(name: str) -> None:
        for cls, fn in zip(EMBEDDERS, paths[name], strict=True):
            cls.embed_question = fn  # type: ignore[method-assign]

    for q in questions:  # warm up both paths
        for name in paths:
            take(name)
            search(index, q)
    cpu: dict[str, list[float]] = {name: [] for name in paths}
    rest: dict[str, list[float]] = {name: [] for name in paths}
    for r in range(args.rounds):
        for i, q in enumerate(questions):
            for name in ("on", "off") if (i + r) % 2 == 0 else ("off", "on"):
                take(name)
                spent[0] = 0.0
                c0 = time.thread_time()
                search(index, q)
                took = time.thread_time() - c0
                cpu[name].append(took * 1000)
                rest[name].append((took - spent[0]) * 1000)
    print(f"{args.index}: {len(cpu['on'])} warm searches a side, alternating per question")
    for name in paths:
        c, w = cpu[name], rest[name]
        print(f"  {name:3}  thread CPU p50 {np.percentile(c, 50):.2f} ms  p95 "
              f"{np.percentile(c, 95):.2f} ms   without the embedding: p50 "
              f"{np.percentile(w, 50):.2f} ms  p95 {np.percentile(w, 95):.2f} ms")


if __name__ == "__main__":
    main()
