"""`kb eval`: retrieval quality on a question set, optionally against single retrievers.

Question format (one JSON object per line): {"id", "query", "gold": [{"doc", "text"?,
"answers"?}], "no_answer"?}. Metrics, all over answerable questions unless noted:
- document level: Hit@1/3/5/10, MRR@10, nDCG@10 (binary gains, docs deduplicated in rank order);
- chunk level: answer-in-top-1/5 — a result from a gold doc whose text contains one of the
  gold answers, or a 40-character window of the gold text;
- no-answer precision and recall (over all questions), latency p50/p95 (ms, warm).
"""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.errors import UsageError
from kbtools.index.reader import KbIndex
from kbtools.query.results import SearchResponse, SearchResult
from kbtools.query.search import search

K = 10


def load_questions(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):  # not at U+2028
        if not line.strip():
            continue
        try:
            q = json.loads(line)
            q["query"], q.setdefault("gold", [])
        except (ValueError, KeyError, TypeError):
            raise UsageError(f"{path}:{n}: expected a JSON object with \"query\" and \"gold\"") from None
        out.append(q)
    if not out:
        raise UsageError(f"{path}: no questions")
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text or "")


def _windows(text: str) -> list[str]:
    t = _squash(text)
    if len(t) <= 40:
        return [t] if t else []
    return [t[:40], t[len(t) // 2 - 20: len(t) // 2 + 20]]


def _answer_hit(result: SearchResult, gold: list[dict[str, Any]]) -> bool:
    text = _squash(result.text)
    for g in gold:
        if result.doc != g["doc"]:
            continue
        needles = [_squash(a) for a in g.get("answers") or [] if a] or _windows(g.get("text", ""))
        if any(n and n in text for n in needles):
            return True
    return False


def score_one(res: SearchResponse, q: dict[str, Any]) -> dict[str, float]:
    gold_docs = {g["doc"] for g in q["gold"]}
    docs: list[str] = []
    for r in res.results:
        if r.doc not in docs:
            docs.append(r.doc)
    docs = docs[:K]
    first = next((i for i, d in enumerate(docs) if d in gold_docs), None)
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(docs) if d in gold_docs)
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(gold_docs), K))) or 1.0
    m = {f"hit@{n}": float(first is not None and first < n) for n in (1, 3, 5, 10)}
    m["mrr@10"] = 1 / (first + 1) if first is not None else 0.0
    m["ndcg@10"] = dcg / idcg
    if any(g.get("answers") or g.get("text") for g in q["gold"]):
        hits = [_answer_hit(r, q["gold"]) for r in res.results]
        m["answer@1"] = float(any(hits[:1]))
        m["answer@5"] = float(any(hits[:5]))
    return m


def evaluate(index: KbIndex, questions: list[dict[str, Any]], *, mode: str = "hybrid",
             k: int = K) -> dict[str, Any]:
    per: list[dict[str, float]] = []
    latencies: list[float] = []
    tp = fp = fn = 0
    for q in questions:
        t0 = time.perf_counter()
        res = search(index, q["query"], k=k, where=q.get("where"), mode=mode, keep_results=True)
        latencies.append((time.perf_counter() - t0) * 1000)
        unanswerable = bool(q.get("no_answer"))
        tp += unanswerable and res.no_answer
        fp += (not unanswerable) and res.no_answer
        fn += unanswerable and not res.no_answer
        if not unanswerable:
            per.append(score_one(res, q))
    metrics: dict[str, Any] = {"mode": mode, "questions": len(questions), "answerable": len(per)}
    for key in sorted({key for m in per for key in m}):
        vals = [m[key] for m in per if key in m]
        metrics[key] = round(float(np.mean(vals)), 4) if vals else None
    n_no = sum(1 for q in questions if q.get("no_answer"))
    metrics["no_answer_precision"] = round(tp / (tp + fp), 4) if tp + fp else None
    metrics["no_answer_recall"] = round(tp / n_no, 4) if n_no else None
    metrics["false_no_answer_rate"] = round(fp / len(per), 4) if per else None
    metrics["latency_p50_ms"] = round(float(np.percentile(latencies, 50)), 2)
    metrics["latency_p95_ms"] = round(float(np.percentile(latencies, 95)), 2)
    return metrics


COLUMNS = ("ndcg@10", "mrr@10", "hit@1", "hit@3", "hit@5", "hit@10", "answer@1", "answer@5",
           "no_answer_precision", "no_answer_recall", "latency_p50_ms", "latency_p95_ms")


def table(rows: list[dict[str, Any]]) -> str:
    head = ["mode", *COLUMNS]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for r in rows:
        cells = [str(r["mode"])] + ["–" if r.get(c) is None else f"{r[c]}" for c in COLUMNS]
        lines.append(" | ".join(cells))
    return "\n".join(lines)
