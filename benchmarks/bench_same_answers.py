"""Do two code trees give the same answers? `kb query --json` of every question, compared.

    .venv/bin/python benchmarks/bench_same_answers.py --before /path/to/main-worktree \\
        --index bench-out/tidb/dist [--before-index DIR] [--questions a.jsonl b.jsonl ...] \\
        [--n 200] [--where "kind=section" "doc>=docs/br/ doc<docs/br0" ...]

Each tree answers in its own process (PYTHONPATH = the tree); `took_ms` is left out of the
comparison. Each ``--where`` (filters apart by spaces, as `kb query --where` takes them) is
a run of every question with those filters (default: one run, unfiltered). Prints, per question file, how many answers are identical, and for the others
whether the same chunks came back in the same order (scores may differ in the last digits
when a question's embedding runtime changed, e.g. MiniLM in numpy instead of torch).
``--before-index`` gives the old tree an index of its own: across a change of the token
rules each tree reads only an index built by its rules (the same corpus built by each).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
DEFAULT_QUESTIONS = [EVAL / "tidb_faq_zh" / "queries.jsonl", EVAL / "scifact" / "queries.jsonl"]

WORKER = r"""
import json, sys
from pathlib import Path
from kbtools.index.reader import open_index
from kbtools.query.search import search
index = open_index(Path(sys.argv[1]))
where = sys.argv[2].split() or None
for q in json.load(sys.stdin):
    d = search(index, q, where=where).to_dict()
    d.pop("took_ms", None)
    print(json.dumps(d, ensure_ascii=False, sort_keys=True))
"""


def answers(tree: Path, index: str, questions: list[str], where: str = "") -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(tree), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", WORKER, index, where], input=json.dumps(questions),
                         capture_output=True, text=True, env=env, check=True, cwd=tree).stdout
    return [json.loads(line) for line in out.splitlines()]


def ranking(answer: dict) -> list[str]:
    return [r.get("chunk_id") or json.dumps(r.get("citation"), sort_keys=True)
            for r in answer.get("results", [])]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--index", required=True)
    ap.add_argument("--before-index", help="the old tree's index (default: --index)")
    ap.add_argument("--questions", nargs="*", type=Path, default=DEFAULT_QUESTIONS)
    ap.add_argument("--n", type=int, default=200, help="questions per file")
    ap.add_argument("--where", nargs="*", default=[""],
                    help="filter sets, each a run (filters apart by spaces)")
    args = ap.parse_args()
    for path in args.questions:
        qs = [json.loads(line)["query"] for line in path.read_text(encoding="utf-8").split("\n")
              if line.strip()][: args.n]
        for where in args.where:
            before = answers(Path(args.before).resolve(), args.before_index or args.index, qs,
                             where)
            after = answers(ROOT, args.index, qs, where)
            same = sum(a == b for a, b in zip(before, after, strict=True))
            order = sum(ranking(a) == ranking(b) and a["no_answer"] == b["no_answer"]
                        for a, b in zip(before, after, strict=True))
            shown = f" --where {where}" if where else ""
            print(f"{path.parent.name}{shown}: {same}/{len(qs)} answers identical, "
                  f"{order}/{len(qs)} same chunks in the same order and the same verdict",
                  flush=True)


if __name__ == "__main__":
    main()
