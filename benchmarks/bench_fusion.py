"""Fusion settings swept on indexes built by bench_eval.py, each question's candidate lists
computed once and reused, so only fusion and what follows it differ between rows.

    .venv/bin/python benchmarks/bench_fusion.py --index OUT/tidb_faq_zh \\
        --questions ../shared/eval/tidb_faq_zh/queries.jsonl \\
        hybrid:weighting=fixed hybrid:shape_scale=0.5 hybrid:shape_scale=0.6 bm25: vector:

Each SPEC is MODE:KEY=VALUE,… over `kbtools.query.fusion.FusionParams` (the index's own
[query] settings otherwise). Prints one line per spec: nDCG@10, Hit@1, Hit@10 (document
level, kbtools.query.quality), false no-answer rate, and no-answer precision/recall when the
set has unanswerable questions.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.index.reader import KbIndex, open_index
from kbtools.query import search as search_mod
from kbtools.query.candidates import CandidateRequest
from kbtools.query.fusion import FusionParams, Ranked
from kbtools.query.quality import load_questions, score_one


class ReusedCandidates:
    """The local candidate source, each (question, mode, depth) asked once."""

    def __init__(self) -> None:
        self.lists: dict[tuple[str, str, int], dict[str, Ranked]] = {}

    def ranked_lists(self, index: KbIndex, req: CandidateRequest) -> dict[str, Ranked]:
        if req.mask is not None:
            return search_mod.LOCAL_CANDIDATES.ranked_lists(index, req)
        key = (req.text, req.mode, req.count)
        if key not in self.lists:
            self.lists[key] = search_mod.LOCAL_CANDIDATES.ranked_lists(index, req)
        return self.lists[key]


def parse_spec(spec: str, base: FusionParams) -> tuple[str, FusionParams]:
    mode, _, items = spec.partition(":")
    types = {f.name: type(getattr(base, f.name)) for f in fields(base)}
    over: dict[str, Any] = {}
    for item in filter(None, items.split(",")):
        key, value = item.split("=", 1)
        if key not in types:
            raise SystemExit(f"unknown fusion setting {key!r}; known: {', '.join(sorted(types))}")
        over[key] = types[key](value)
    return mode or "hybrid", replace(base, **over)


def run(index: KbIndex, questions: list[dict[str, Any]], mode: str, params: FusionParams,
        k: int) -> dict[str, float]:
    per, refused, caught, missed = [], 0, 0, 0
    for q in questions:
        res = search_mod.search(index, q["query"], k=k, mode=mode, params=params,
                                keep_results=True)
        if q.get("no_answer"):
            caught += res.no_answer
            missed += not res.no_answer
        else:
            refused += res.no_answer
            per.append(score_one(res, q))
    out = {m: round(float(np.mean([p[m] for p in per])), 4) for m in ("ndcg@10", "hit@1", "hit@10")}
    out["false_no_answer"] = round(refused / max(len(per), 1), 4)
    if caught + missed:
        out["no_answer_precision"] = round(caught / max(caught + refused, 1), 3)
        out["no_answer_recall"] = round(caught / (caught + missed), 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("specs", nargs="+", metavar="MODE:KEY=VALUE,…")
    args = ap.parse_args()
    index = open_index(Path(args.index))
    questions = load_questions(Path(args.questions))
    base = FusionParams.from_config(index.manifest["config"]["values"]["query"])
    reused = ReusedCandidates()
    index.candidate_source = reused  # type: ignore[attr-defined]  # the engine seam
    for spec in args.specs:
        mode, params = parse_spec(spec, base)
        print(json.dumps({"spec": spec, **run(index, questions, mode, params, args.k)}),
              flush=True)


if __name__ == "__main__":
    main()
