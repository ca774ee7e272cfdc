"""Does `-k` change the first answers? The top results of one search asked for `--small`
results against the first `--small` of the same search asked for `--large` (the candidate
depth grows with k, and fusion normalises each list over its depth), on a dev set's index.

    .venv/bin/python benchmarks/bench_k_agreement.py --index DIR --questions FILE.jsonl
        [--small 3] [--large 10] [--limit N]

Prints how many questions' first result and first `--small` results differ. Quality, not
speed: `kb eval` measures k = 10, a default search (`[query] k`) 5.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kbtools.index.reader import open_index
from kbtools.query.search import search


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--questions", required=True, type=Path)
    ap.add_argument("--small", type=int, default=3)
    ap.add_argument("--large", type=int, default=10)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    index = open_index(args.index)
    lines = args.questions.read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["query"] for line in lines if line.strip()]
    questions = questions[: args.limit] if args.limit else questions
    first = head = 0
    for q in questions:
        small = [r.chunk_id for r in search(index, q, k=args.small).results]
        large = [r.chunk_id for r in search(index, q, k=args.large).results][: args.small]
        first += small[:1] != large[:1]
        head += small != large
    print(f"{args.index}: {len(questions)} questions; k={args.small} against the first "
          f"{args.small} of k={args.large}: first result differs {first}, first "
          f"{args.small} differ {head}")


if __name__ == "__main__":
    main()
