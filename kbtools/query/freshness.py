"""Freshness: outdated and superseded documents rank below current ones, and say so.

- A document whose front matter ``valid_until`` (YYYY-MM-DD) lies before today is *possibly
  outdated*: its chunks' fused scores are multiplied by OUTDATED_WEIGHT (they still appear,
  marked ``outdated``).
- A document that declares ``supersedes: <doc>`` (a path, or a list of them; resolved as
  `kb check` does: from the repository root or the knowledge folder, ``.md`` optional)
  outranks the document it supersedes when both are among the candidates: the superseded
  document's chunks are multiplied by SUPERSEDED_WEIGHT and, if one still scores above the
  superseding document's best chunk, brought just below it. The superseded document's
  results name their successor (``superseded_by``).

"Today" is a parameter (`search(…, today=…)`), the local date when not given, so tests
never depend on the clock. Pure functions over the index's document records.
"""

from __future__ import annotations

import weakref
from datetime import date, datetime
from typing import Any

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.query.fusion import Fused

OUTDATED_WEIGHT = 0.7  # a chunk of a document past its valid_until
SUPERSEDED_WEIGHT = 0.5  # a chunk of a document superseded by another candidate's document
BELOW = 0.999  # a superseded chunk still above its successor is set to this share of it


def valid_until(meta: dict[str, Any]) -> date | None:
    """The front matter's ``valid_until`` as a date (None when absent or not a date)."""
    value = meta.get("valid_until")
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def is_outdated(meta: dict[str, Any], today: date) -> bool:
    until = valid_until(meta)
    return until is not None and until < today


def local_today() -> date:
    """The local date now: the one place kbtools reads the clock to decide freshness (search,
    the web app's document page, a long-lived `kb serve` / `kb mcp` asks on every call, so
    the day turns at local midnight). A naive ``datetime.now()`` is the local wall clock
    already: its date is the one ``astimezone()`` would give, without the time-zone lookup
    that cost every search a few microseconds."""
    return datetime.now().date()


def today_or(today: date | None) -> date:
    """`today`, else the local date now (`local_today`)."""
    return today or local_today()


_SUCCESSORS: weakref.WeakKeyDictionary[KbIndex, dict[int, tuple[int, ...]]] = \
    weakref.WeakKeyDictionary()
_DATED: weakref.WeakKeyDictionary[KbIndex, bool] = weakref.WeakKeyDictionary()


def _dated(index: KbIndex) -> bool:
    """Whether any document of the index declares a ``valid_until`` (found once per index)."""
    if index not in _DATED:
        _DATED[index] = any("valid_until" in d["metadata"] for d in index.docs())
    return _DATED[index]


def successors(index: KbIndex) -> dict[int, tuple[int, ...]]:
    """Per superseded document (index into `index.docs()`), the documents superseding it."""
    if index not in _SUCCESSORS:
        docs = index.docs()
        by_name = {d["doc"]: i for i, d in enumerate(docs)}
        out: dict[int, list[int]] = {}
        for i, d in enumerate(docs):
            for name in _targets(d["metadata"]):
                j = _find(name, by_name)
                if j is not None and j != i:
                    out.setdefault(j, []).append(i)
        _SUCCESSORS[index] = {k: tuple(v) for k, v in out.items()}
    return _SUCCESSORS[index]


def _targets(meta: dict[str, Any]) -> list[str]:
    value = meta.get("supersedes")
    items = value if isinstance(value, list) else [value]
    return [v.strip().removeprefix("./") for v in items if isinstance(v, str) and v.strip()]


def _find(name: str, by_name: dict[str, int]) -> int | None:
    """The document `name` means: its path as the index names it, or a path ending with
    ``/name`` (from the knowledge folder), ``.md`` optional."""
    for candidate in (name, name + ".md"):
        if candidate in by_name:
            return by_name[candidate]
    ends = [i for doc, i in by_name.items()
            if doc.endswith("/" + name) or doc.endswith("/" + name + ".md")]
    return ends[0] if len(ends) == 1 else None


def reweigh(index: KbIndex, fused: Fused, today: date) -> Fused:
    """Fused candidates with the freshness factors applied (see the module doc); a candidate
    whose score changed says why in ``why`` (``outdated``, ``superseded_by``)."""
    succ = successors(index)
    if not len(fused) or (not succ and not _dated(index)):
        return fused
    docs = index.docs()
    nums = fused.keys.tolist()
    doc_of = index.chunk_table().doc[fused.keys].tolist()
    present = set(doc_of)
    scores = fused.scores.tolist()
    notes: dict[int, dict[str, Any]] = {}
    for i, d in enumerate(doc_of):
        if is_outdated(docs[d]["metadata"], today):
            scores[i] *= OUTDATED_WEIGHT
            notes.setdefault(nums[i], {})["outdated"] = True
    best: dict[int, float] = {}
    for d, s in zip(doc_of, scores, strict=True):
        best[d] = max(best.get(d, 0.0), s)
    for i, d in enumerate(doc_of):
        newer = [s for s in succ.get(d, ()) if s in present]
        if not newer:
            continue
        scores[i] *= SUPERSEDED_WEIGHT
        top = max(best[s] for s in newer)
        if scores[i] >= top:
            scores[i] = top * BELOW
        notes.setdefault(nums[i], {})["superseded_by"] = [docs[s]["doc"] for s in newer]
    return fused.rescored(np.array(scores, dtype=np.float64), notes)


_POSITIONS: weakref.WeakKeyDictionary[KbIndex, dict[str, int]] = weakref.WeakKeyDictionary()


def _position(index: KbIndex) -> dict[str, int]:
    if index not in _POSITIONS:
        _POSITIONS[index] = {d["doc"]: i for i, d in enumerate(index.docs())}
    return _POSITIONS[index]


def flags(index: KbIndex, doc: str, today: date) -> tuple[bool, tuple[str, ...]]:
    """(possibly outdated, documents that supersede it) of document `doc`."""
    docs = index.docs()
    i = _position(index).get(doc)
    if i is None:
        return False, ()
    return (is_outdated(docs[i]["metadata"], today),
            tuple(docs[s]["doc"] for s in successors(index).get(i, ())))


__all__ = ["OUTDATED_WEIGHT", "SUPERSEDED_WEIGHT", "flags", "is_outdated", "local_today",
           "reweigh", "successors", "today_or", "valid_until"]
