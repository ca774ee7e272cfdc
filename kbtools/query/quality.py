"""`kb eval`: retrieval quality on a question set, optionally against single retrievers.

Question files (`kb eval`, `kb query --batch`) are JSON Lines: one JSON object per line (UTF-8,
a byte-order mark starting a line is dropped: the file's, or one of files joined together;
blank lines are skipped); `kb eval` also reads one
JSON array of such objects (a file whose first character is "["). Every field is checked
once, when the file is read: a line that breaks the format is a `UsageError` naming FILE:LINE,
what is wrong and what is expected. Numbers must be finite (no NaN, Infinity or overflow).
- "query" (text, required);
- "id" (text or number, optional; `kb query --batch` numbers lines without one);
- "where" (optional): a list of ``KEY=VALUE`` filters, or an object {KEY: text, number or
  true/false}; read as a list of filters;
- `kb eval` only: "gold" (a list, empty for a question without an answer) of
  {"doc" (text), "text"? (text or null), "answers"? (a list of texts, or null),
  "relevance"? (a number ≥ 0, default 1; "score" is read the same way), ...} — or a
  document's path alone; "no_answer" (true/false, optional). "gold" may be left out only when
  "no_answer" is true. A question with "no_answer": true or without a gold document is a
  no-answer question: it counts for the no-answer figures, never for Hit/MRR/nDCG ("no_answer":
  false with an empty gold is refused); two questions may not share an "id". Other keys are
  kept, unchecked.
An optional key that is null ("id", "where", "no_answer") is as if it were not given.

Metrics, all over answerable questions unless noted:
- document level: Hit@1/3/5/10, MRR@10, nDCG@10 over the first 10 distinct documents of the
  results (a document's chunks count once, at its best rank). A document is relevant when its
  relevance is above 0; nDCG's gain is the relevance (linear, as trec_eval and BEIR; binary
  when none is given) and its ideal ranking is of every relevant document of the gold,
  retrieved or not;
- chunk level: answer-in-top-1/5 — a result from a gold doc whose text contains one of the
  gold answers, or a 40-character window of the gold text;
- no-answer precision and recall (over all questions), latency p50/p95 (ms, warm).
A metric is null when no question measures it: answer@k without gold answer text, or a
cutoff above `-k` (with -k 3, Hit@5/10, MRR@10, nDCG@10 and answer@5 are not measured).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.embed.base import embed_question
from kbtools.embed.registry import get_embedder
from kbtools.errors import UsageError
from kbtools.index.reader import KbIndex
from kbtools.query.filters import parse_where, where_text
from kbtools.query.question import MAX_QUESTION_CHARS, refuse_blank
from kbtools.query.results import SearchResponse, SearchResult
from kbtools.query.search import keep_warm, search

K = 10
METRICS = ("ndcg@10", "mrr@10", "hit@1", "hit@3", "hit@5", "hit@10", "answer@1", "answer@5")
COLUMNS = (*METRICS, "no_answer_precision", "no_answer_recall", "latency_p50_ms",
           "latency_p95_ms")
GOLD_ENTRY = '{"doc", "text"?, "answers"?}'
OPTIONAL = ("id", "where", "no_answer")  # keys whose null means "not given"
JSON_SPACE = re.compile(r"[ \t\r\n]*")
RELEVANCE = ("relevance", "score")  # a gold entry's graded relevance (BEIR/TREC qrels: score)


class _NonFinite(ValueError):
    """A number that strict JSON cannot hold: NaN, Infinity, or one that overflows a float."""


def _constant(name: str) -> Any:
    raise _NonFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NonFinite(text)
    return value


def _kind(value: Any) -> str:
    """What a JSON value is, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a list" if isinstance(value, list) else "an object"


def question_lines(lines: Iterable[bytes], name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a question file's lines (split on \\n only, so never at U+2028),
    with their line numbers. A line that is not UTF-8, not a JSON object, or holds a
    non-finite number is a `UsageError` naming `name` and the line."""
    for n, raw in enumerate(lines, 1):
        try:  # utf-8-sig: files from Windows editors start with a byte-order mark, and
            line = raw.decode("utf-8-sig")  # such files joined (cat, type) start lines with it
        except UnicodeDecodeError as exc:
            raise UsageError(f"not UTF-8 (byte {exc.start + 1} of the line); save the file as "
                             "UTF-8", path=name, line=n) from None
        if not line.strip():
            continue
        try:
            item = json.loads(line, parse_constant=_constant, parse_float=_finite_float)
        except _NonFinite as exc:
            raise UsageError(f"{str(exc)[:40]} is not a finite number; use numbers JSON can "
                             "hold (no NaN, Infinity or overflow)", path=name, line=n) from None
        except (ValueError, RecursionError):
            raise UsageError('not JSON: expected a JSON object with "query" on each line',
                             path=name, line=n) from None
        yield n, _object(item, name, n)


def _object(item: Any, name: str, n: int) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise UsageError(f'expected a JSON object with "query", got {_kind(item)}',
                         path=name, line=n)
    return item


def _skip(text: str, pos: int) -> int:
    """The position of the first character from `pos` on that is not JSON whitespace."""
    found = JSON_SPACE.match(text, pos)
    return found.end() if found else pos


def _array_items(data: bytes, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The objects of a question file written as one JSON array, with the line each starts
    on; what breaks strict JSON (a trailing comma, NaN, text after the array) is a
    `UsageError` naming the line."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError("not UTF-8; save the file as UTF-8", path=name,
                         line=data.count(b"\n", 0, exc.start) + 1) from None
    decoder = json.JSONDecoder(parse_constant=_constant, parse_float=_finite_float)
    pos, line = _skip(text, 0) + 1, 1  # just after "["
    while True:
        start, pos = pos, _skip(text, pos)
        line += text.count("\n", start, pos)
        if text.startswith("]", pos) and not (start > 0 and text[start - 1] == ","):
            break  # the end ([] is empty; "[…,]" is a trailing comma, refused below)
        try:
            item, end = decoder.raw_decode(text, pos)
        except _NonFinite as exc:
            raise UsageError(f"{str(exc)[:40]} is not a finite number; use numbers JSON can "
                             "hold (no NaN, Infinity or overflow)", path=name, line=line) from None
        except (ValueError, RecursionError):
            raise UsageError('not JSON: expected a JSON object with "query" as each item of '
                             "the array", path=name, line=line) from None
        yield line, _object(item, name, line)
        line += text.count("\n", pos, end)
        start, pos = end, _skip(text, end)
        line += text.count("\n", start, pos)
        if not text.startswith(",", pos) and not text.startswith("]", pos):
            raise UsageError('not JSON: expected "," or "]" after a question', path=name,
                             line=line)
        pos += text.startswith(",", pos)
    if text[pos + 1:].strip(" \t\r\n"):
        raise UsageError("not JSON: text after the array's closing ]", path=name,
                         line=line + text.count("\n", pos, len(text.rstrip())))


def check_question(item: dict[str, Any], name: str, n: int) -> dict[str, Any]:
    """`item` with its "query", "id" and "where" checked (a `UsageError` naming `name`:`n`
    otherwise) and "where", if given, as a list of ``KEY=VALUE`` filters."""
    if "query" not in item:
        raise UsageError('no "query"; expected the question as text', path=name, line=n)
    if not isinstance(item["query"], str):
        raise UsageError(f'"query" must be text, got {_kind(item["query"])}', path=name, line=n)
    if len(item["query"]) > MAX_QUESTION_CHARS:  # as `kb query`, the API and MCP refuse it
        raise UsageError(f'"query" longer than {MAX_QUESTION_CHARS} characters', path=name,
                         line=n)
    refuse_blank(item["query"], '"query"', path=name, line=n)  # as `kb query "  "` is
    if any(item.get(key, 0) is None for key in OPTIONAL):  # null: as if not given
        item = {k: v for k, v in item.items() if not (v is None and k in OPTIONAL)}
    qid = item.get("id", "")
    if isinstance(qid, bool) or not isinstance(qid, str | int | float):
        raise UsageError(f'"id" must be text or a number, got {_kind(qid)}', path=name, line=n)
    if "where" in item:
        item = {**item, "where": _where(item["where"], name, n)}
    return item


def _text(value: str | float) -> str:
    """A value of an object's ``where`` as a filter's text: a JSON boolean as ``true``."""
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _where(where: Any, name: str, n: int) -> list[str]:
    if isinstance(where, dict):
        for val in where.values():
            vals = val if isinstance(val, list) and val else [val]
            if not all(isinstance(v, str | int | float) for v in vals):
                raise UsageError('"where" values must be text or numbers, or a list of them '
                                 "(any of which a document holds)", path=name, line=n)
        where = [where_text(str(key), "=", tuple(_text(v) for v in val) if isinstance(val, list)
                            else _text(val)) for key, val in where.items()]
    if not isinstance(where, list):
        raise UsageError(f'"where" must be a list of KEY=VALUE texts or an object, got '
                         f"{_kind(where)}", path=name, line=n)
    for w in where:
        if not isinstance(w, str):
            raise UsageError(f'"where" must be a list of KEY=VALUE texts, got {_kind(w)} in it',
                             path=name, line=n)
    try:
        parse_where(where)
    except UsageError as exc:
        raise UsageError(exc.message, path=name, line=n) from None
    return where


def _check_gold(q: dict[str, Any], name: str, n: int) -> None:
    if not isinstance(q.get("no_answer", False), bool):
        raise UsageError(f'"no_answer" must be true or false, got {_kind(q["no_answer"])}',
                         path=name, line=n)
    if "gold" not in q and q.get("no_answer"):
        return  # a question without an answer needs no gold
    if "gold" not in q:
        raise UsageError(f'no "gold"; expected a list of {GOLD_ENTRY} objects ([] for none)',
                         path=name, line=n)
    gold = q["gold"]
    if not isinstance(gold, list):
        raise UsageError(f'"gold" must be a list of {GOLD_ENTRY} objects, got {_kind(gold)}',
                         path=name, line=n)
    for i, g in enumerate(gold, 1):
        entry = f'"gold" entry {i}'
        if isinstance(g, str):  # a document's path alone
            g = {"doc": g}
        if not isinstance(g, dict):
            raise UsageError(f"{entry} must be an object {GOLD_ENTRY}, got {_kind(g)}",
                             path=name, line=n)
        if "doc" not in g:
            raise UsageError(f'{entry} has no "doc"; expected a document\'s path',
                             path=name, line=n)
        if not isinstance(g["doc"], str) or not g["doc"]:
            got = _kind(g["doc"]) if g["doc"] != "" else "empty text"
            raise UsageError(f'{entry}: "doc" must be a document\'s path (text), got {got}',
                             path=name, line=n)
        if g.get("text") is not None and not isinstance(g["text"], str):
            raise UsageError(f'{entry}: "text" must be text or null, got {_kind(g["text"])}',
                             path=name, line=n)
        for key in RELEVANCE:
            rel = g.get(key)
            number = isinstance(rel, int | float) and not isinstance(rel, bool)
            if rel is not None and (not number or rel < 0):
                raise UsageError(f'{entry}: "{key}" must be a number 0 or more (0: not '
                                 f"relevant), got {rel if number else _kind(rel)}",
                                 path=name, line=n)
        answers = g.get("answers")
        if answers is not None and not isinstance(answers, list):
            raise UsageError(f'{entry}: "answers" must be a list of texts, got {_kind(answers)}',
                             path=name, line=n)
        for a in answers or []:
            if not isinstance(a, str):
                raise UsageError(f'{entry}: "answers" must be a list of texts, got {_kind(a)} '
                                 "in it", path=name, line=n)
    if q.get("no_answer") is False and not relevant_docs(q):
        raise UsageError('"no_answer" is false but "gold" names no relevant document; list the '
                         'documents that answer it, or drop "no_answer"', path=name, line=n)


def load_questions(path: Path) -> list[dict[str, Any]]:
    """The questions of a `kb eval` file, every field checked (see the module docstring)."""
    return [q for _, q in numbered_questions(path)]


def numbered_questions(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The questions of a `kb eval` file, each with the line of the file it starts on, every
    field checked (see the module docstring)."""
    out: list[tuple[int, dict[str, Any]]] = []
    lines: dict[str, int] = {}  # id → the line it was first given on
    data = path.read_bytes()
    array = data.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n").startswith(b"[")
    items = _array_items(data, str(path)) if array else question_lines(data.split(b"\n"),
                                                                       str(path))
    for n, item in items:
        q = check_question(item, str(path), n)
        _check_gold(q, str(path), n)
        if "id" in q:
            first = lines.setdefault(str(q["id"]), n)
            if first != n:
                raise UsageError(f'"id" {json.dumps(q["id"], ensure_ascii=False)[:80]} is '
                                 f"already on line {first}; give each question its own id",
                                 path=str(path), line=n)
        out.append((n, q))
    if not out:
        raise UsageError(f"{path}: no questions")
    return out


def gold_doc(g: dict[str, Any] | str) -> str:
    """The document of a gold entry (an object with "doc", or the path alone)."""
    return g if isinstance(g, str) else str(g["doc"])


def _relevance(g: dict[str, Any] | str) -> float:
    """A gold entry's graded relevance: "relevance" (or "score", as in BEIR/TREC qrels), 1 when
    not given; 0 is judged not relevant."""
    if isinstance(g, str):
        return 1.0
    value = g.get("relevance", g.get("score"))
    return 1.0 if value is None else float(value)


def gains(q: dict[str, Any]) -> dict[str, float]:
    """Each relevant document of a question's gold and its gain (the highest relevance given
    for it); documents judged 0 are left out."""
    out: dict[str, float] = {}
    for g in q.get("gold") or []:
        rel = _relevance(g)
        if rel > 0:
            out[gold_doc(g)] = max(rel, out.get(gold_doc(g), 0.0))
    return out


def relevant_docs(q: dict[str, Any]) -> set[str]:
    """The documents that answer a question (its gold, relevance above 0)."""
    return set(gains(q))


def unanswerable(q: dict[str, Any]) -> bool:
    """A question the knowledge does not answer: marked "no_answer", or with no relevant
    document in its gold (nothing could be retrieved for it, so it is not scored as a miss)."""
    return bool(q.get("no_answer")) or not relevant_docs(q)


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
        if isinstance(g, str) or result.doc != g["doc"] or _relevance(g) <= 0:
            continue
        needles = [_squash(a) for a in g.get("answers") or [] if a] or _windows(g.get("text", ""))
        if any(n and n in text for n in needles):
            return True
    return False


def ranked_docs(res: SearchResponse) -> list[str]:
    """The first `K` distinct documents of the results, each at its best chunk's rank."""
    return list(dict.fromkeys(r.doc for r in res.results))[:K]


def score_one(res: SearchResponse, q: dict[str, Any], k: int = K) -> dict[str, float]:
    """One answerable question's metrics on its results (`k` asked for): a metric whose
    cutoff is above `k` is left out, as only `k` results were asked for."""
    gain = gains(q)
    docs = ranked_docs(res)
    first = next((i for i, d in enumerate(docs) if d in gain), None)
    dcg = sum(gain.get(d, 0.0) / math.log2(i + 2) for i, d in enumerate(docs))
    ideal = sorted(gain.values(), reverse=True)[:K]  # every judged document, retrieved or not
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal)) or 1.0
    m = {f"hit@{n}": float(first is not None and first < n) for n in (1, 3, 5, 10)}
    m["mrr@10"] = 1 / (first + 1) if first is not None else 0.0
    m["ndcg@10"] = dcg / idcg
    if any(isinstance(g, dict) and (g.get("answers") or g.get("text")) and _relevance(g) > 0
           for g in q["gold"]):
        hits = [_answer_hit(r, q["gold"]) for r in res.results]
        m["answer@1"] = float(any(hits[:1]))
        m["answer@5"] = float(any(hits[:5]))
    return {key: v for key, v in m.items() if int(key.split("@")[1]) <= k}


def gold_not_in_index(index: KbIndex, questions: list[dict[str, Any]]) -> list[str]:
    """The relevant gold documents of the answerable questions that the index does not hold,
    sorted: they count as never retrieved (often a path written otherwise than the index's)."""
    held = {d["doc"] for d in index.docs()}
    return sorted({doc for q in questions if not unanswerable(q)
                   for doc in relevant_docs(q) if doc not in held})


def first_missing(numbered: Sequence[tuple[int, dict[str, Any]]],
                  missing: Sequence[str]) -> tuple[str, int | None]:
    """The first gold document of `missing` (`gold_not_in_index`) in the file's order and the
    line of the question naming it (`numbered_questions`), for a warning that points at
    the line to fix ("e.g. 'crops/x.md' (q.jsonl:12)"); the first of `missing` and None
    when no question names one."""
    gone = set(missing)
    for n, q in numbered:
        if not unanswerable(q):
            for g in q.get("gold") or []:
                if gold_doc(g) in gone and _relevance(g) > 0:
                    return gold_doc(g), n
    return missing[0], None


def warm_up(index: KbIndex, question: str, mode: str) -> None:
    """Every embedding model of the release loaded, one search made and the release kept warm
    as `kb serve` and `kb mcp` do (`query.search.keep_warm`), untimed: the latency measured is
    warm (a process's first searches load models and tables: hundreds of ms)."""
    for model in sorted(index.manifest.get("models", {})):
        embed_question(get_embedder(model), question)
    search(index, question, mode=mode, keep_results=True)
    keep_warm(index)


def evaluate(index: KbIndex, questions: list[dict[str, Any]], *, mode: str = "hybrid",
             k: int = K, lines: Sequence[int] | None = None) -> dict[str, Any]:
    """One mode's metrics over the questions (see the module docstring), and in
    "per_question" each question's line in its file (`lines`, in the questions' order;
    null without them), relevant documents, verdict, relevant rank, documents, whether it
    failed (`failed`) and metrics."""
    per: list[dict[str, float]] = []
    details: list[dict[str, Any]] = []
    latencies: list[float] = []
    tp = fp = 0
    warm_up(index, questions[0]["query"], mode)
    for q in questions:
        t0 = time.perf_counter()
        res = search(index, q["query"], k=k, where=q.get("where"), mode=mode, keep_results=True)
        latencies.append((time.perf_counter() - t0) * 1000)
        none = unanswerable(q)
        tp += none and res.no_answer
        fp += (not none) and res.no_answer
        docs = ranked_docs(res)
        relevant = relevant_docs(q)
        rank = next((i for i, d in enumerate(docs, 1) if d in relevant), None)
        detail = {"id": q.get("id"), "query": q["query"], "expected_no_answer": none,
                  "no_answer": res.no_answer, "rank": rank, "docs": docs,
                  "ms": round(latencies[-1], 2),
                  "line": lines[len(details)] if lines is not None else None,
                  "relevant": sorted(relevant),
                  "failed": res.no_answer != none or (not none and rank != 1)}
        if not none:
            per.append(score_one(res, q, k))
            detail.update({key: per[-1].get(key) for key in METRICS})
        details.append(detail)
    metrics: dict[str, Any] = {"mode": mode, "questions": len(questions), "answerable": len(per)}
    for key in METRICS:  # every key always present; null: not measured
        vals = [m[key] for m in per if key in m]
        metrics[key] = round(float(np.mean(vals)), 4) if vals else None
    n_no = sum(1 for q in questions if unanswerable(q))
    metrics["no_answer_precision"] = round(tp / (tp + fp), 4) if tp + fp else None
    metrics["no_answer_recall"] = round(tp / n_no, 4) if n_no else None
    metrics["false_no_answer_rate"] = round(fp / len(per), 4) if per else None
    metrics["latency_p50_ms"] = round(float(np.percentile(latencies, 50)), 2)
    metrics["latency_p95_ms"] = round(float(np.percentile(latencies, 95)), 2)
    metrics["per_question"] = details
    return metrics


def table(rows: list[dict[str, Any]]) -> str:
    head = ["mode", *COLUMNS]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for r in rows:
        cells = [str(r["mode"])] + ["–" if r.get(c) is None else f"{r[c]}" for c in COLUMNS]
        lines.append(" | ".join(cells))
    return "\n".join(lines)


def _one_line(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def _got(d: dict[str, Any]) -> str:
    """What came for a failed question (a `per_question` entry), in words."""
    first = f" ({d['docs'][0]} first)" if d["docs"] else ""
    if d["expected_no_answer"]:
        return f"an answer{first}"
    if d["no_answer"]:  # the verdict, whatever the ranking
        return '"no answer" (the relevant document ' + (
            f"at rank {d['rank']})" if d["rank"] else "not retrieved)")
    if d["rank"]:
        return f"rank {d['rank']}{first}"
    return f"not in the top {len(d['docs'])}{first}" if d["docs"] else "no results"


def failures(row: dict[str, Any], name: str) -> str:
    """The questions a mode's row (`evaluate`) failed, one block each: FILE:LINE (`name`:
    the question file), id and question, then what was expected and what came. A question
    fails when its relevant document is not first, or its no-answer verdict is wrong."""
    failed = [d for d in row["per_question"] if d["failed"]]
    head = (f"{row['mode']}: {len(failed)} of {row['questions']} questions failed (the "
            "relevant document not first, or the wrong no-answer verdict)")
    out = [head if failed else f"{row['mode']}: no question failed"]
    for d in failed:
        where = f"{name}:{d['line']}" if d["line"] is not None else name
        qid = f" [{_one_line(str(d['id']), 40)}]" if d["id"] is not None else ""
        expected = "no answer" if d["expected_no_answer"] else ", ".join(d["relevant"][:3]) + (
            f" (+{len(d['relevant']) - 3})" if len(d["relevant"]) > 3 else "")
        out.append(f"{where}:{qid} {_one_line(d['query'])}")
        out.append(f"    expected {expected}; got {_got(d)}")
    return "\n".join(out)
