"""Per-index calibration of the no-answer rule (docs/retrieval.md, ranking step 8).

A question whose content words the index has never seen is about something else — unless
the index simply lacks everyday words: a handful of documents does not say "how often" or
"replace", so a real question about its pump seal carries unknown words too. How much of an
ordinary question's wording *this* index lacks is measured at build time, on pseudo-queries
made of the index's own section headings set in everyday question frames ("how often should
I replace the {heading}?", "{heading}怎么处理"): their unknown-word shares are the in-scope
distribution of this index, and the unknown-share limit of the rule sits above it.

Each index is also scored against `kbtools.query.background`, everyday questions it cannot
answer: the median of their unknown shares and the share of them the limit leaves refused
are recorded beside it, so a reader of the record sees whether the limit still separates
this index's in-scope wording from questions it cannot answer.

The record is ``data/no_answer.json`` of the release (hashed in the manifest like every data
file; the same knowledge gives the same bytes). A release without it keeps the global rule.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.errors import IndexLoadError
from kbtools.fsutil import atomic_write_bytes
from kbtools.index.bm25 import Bm25
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import KbIndex, load_release_info
from kbtools.index.tokenize import language_of
from kbtools.query.background import QUESTIONS as BACKGROUND
from kbtools.query.framing import unframed
from kbtools.query.fusion import FusionParams, unknown_name

CALIBRATION_VERSION = 1

# Everyday question frames around an in-scope subject; {} is a heading of the index.
FRAMES = {
    "zh": ("{}怎么处理", "{}多久换一次", "{}是什么原因", "{}要怎么检查", "{}有哪些注意事项",
           "{}应该怎么做", "为什么会出现{}", "{}的标准是多少", "{}坏了怎么办", "{}什么时候做最好"),
    "en": ("how do I deal with {}?", "how often should I replace the {}?", "what causes {}?",
           "what should I check about {}?", "what do I need to know about {}?",
           "why does {} keep failing?", "when is the right time for {}?",
           "what is the recommended {}?", "is there a quick fix for {}?", "how does {} work?"),
}
MAX_SUBJECTS = 120  # headings sampled evenly from the index
MIN_PSEUDO_QUERIES = 40  # a small index sets each of its few headings in more frames
IN_SCOPE_QUANTILE = 0.95  # the limit sits above this share of the in-scope pseudo-queries
MARGIN = 0.05
FLOOR = 0.5  # never below: half of a question's weight unknown is the least evidence taken
CEILING = 1.0  # every content word unknown (the global rule)


# A value, not a subject: a number, or digits joined by separators (3.5%, 1,200, 10:30, a date
# 2026-03-19 or 2026.03.19, 192.168.1.10), also an ISO date with its time (2026-03-19t10 as
# the tokenizer keeps it). The tokenizer splits 2026/03/19, 10:30 and 2026年3月19日 into
# numbers, which were never content words; a hyphenated date, kept whole, weighed as an
# unknown topic word, so the same date refused a question in one spelling only.
_VALUE = re.compile(r"[\d.,:/%\-]+|\d{4}-\d{1,2}-\d{1,2}t\d[\d:.]*")


def content_words(unknown: list[str]) -> list[str]:
    """Unknown terms that name a subject: not values (numbers, dates, times: `_VALUE`) or
    single characters (particles)."""
    return [t for t in unknown if len(t) > 1 and not _VALUE.fullmatch(t)]


def _compound_parts(bm25: Bm25, term: str) -> list[int] | None:
    """The term ids of a hyphenated or slashed compound (fast-twitch, PPAR-RXR) whose every
    part the index knows, else None: the tokenizer keeps such a compound whole, but an index
    that holds both parts has seen its words."""
    if not re.search(r"[-/]", term):
        return None
    _, ids, unknown = bm25.query_terms(re.sub(r"[-/]", " ", term))
    return ids if ids and not unknown else None


def unknown_share(index: KbIndex, ids: list[int], unknown: list[str]) -> float:
    """Share of the question's idf weight on content words the index never saw (an unknown
    word weighs as the rarest term; a compound of known parts counts as its parts)."""
    return _share(index.bm25, ids, unknown)


def name_share(index: KbIndex, ids: list[int], unknown: list[str]) -> float:
    """Share of the question's idf weight (as `unknown_share` weighs it) on the unknown
    words that name a code, setting, key or error (`kbtools.query.fusion.unknown_name`):
    the one word of "how do I set max_upload_retries" is a third or more of it, a pasted
    log's ``gc_worker.go`` and ``cur_db`` a twentieth."""
    return _share(index.bm25, ids, unknown, lambda t: unknown_name([t]))


def _share(bm25: Bm25, ids: list[int], unknown: list[str],
           counted: Callable[[str], bool] = lambda t: True) -> float:
    """Share of the weight of `ids` and `unknown` on the unknown content words `counted`."""
    words, known_ids = [], list(ids)
    for t in content_words(unknown):
        parts = _compound_parts(bm25, t)
        if parts is None:
            words.append(t)
        else:
            known_ids += parts
    if not words:
        return 0.0
    missing = len(words) * bm25.max_idf()
    known = float(bm25.idf(known_ids).sum()) if known_ids else 0.0
    return sum(map(counted, words)) * bm25.max_idf() / (missing + known)


def question_share(bm25: Bm25, text: str) -> float:
    """The unknown share of question `text` (`unknown_share`), its words read as a search
    reads them: an English frame (what do I need to know, how often) counts for nothing
    (`kbtools.query.framing`), so a pseudo-query's share is that of the question it stands
    for."""
    _, ids, unknown = bm25.query_terms(unframed(text))
    return _share(bm25, ids, unknown)


def _subjects(index: KbIndex) -> list[str]:
    """The last heading of chunks sampled evenly over the index, in chunk order (chunks
    without a heading are skipped; an index with none keeps the global limit):
    deterministic for the same data."""
    n = index.store.count()
    if n == 0:
        return []
    nums = sorted({int(x) for x in np.linspace(0, n - 1, min(n, MAX_SUBJECTS * 3))})
    rows = index.store.chunks(nums)
    seen: dict[str, None] = {}
    for num in nums:
        row = rows[num]
        heading = (row["heading_path"] or [""])[-1].strip()
        if heading:
            seen.setdefault(heading, None)
    return list(seen)[:MAX_SUBJECTS]


def _quantile(values: list[float], q: float) -> float:
    return round(float(np.quantile(np.array(values), q)), 4) if values else 0.0


def calibrate(index: KbIndex) -> dict[str, Any]:
    """The calibration record of an opened index (see the module docstring)."""
    shares: list[float] = []
    bm25 = index.bm25_terms()  # terms and idf only: the calibration scores nothing
    subjects = _subjects(index)
    per_subject = max(2, -(-MIN_PSEUDO_QUERIES // max(len(subjects), 1)))
    for i, subject in enumerate(subjects):
        frames = FRAMES[language_of(subject)]
        for j in range(min(per_subject, len(frames))):
            frame = frames[(i + 3 * j) % len(frames)]
            shares.append(question_share(bm25, frame.format(subject)))
    in_scope = _quantile(shares, IN_SCOPE_QUANTILE)
    limit = min(CEILING, max(FLOOR, round(in_scope + MARGIN, 4))) if shares else CEILING
    background = [question_share(bm25, q) for q in BACKGROUND]
    return {
        "version": CALIBRATION_VERSION,
        "in_scope": {"pseudo_queries": len(shares), "unknown_share_q95": in_scope},
        "background": {"questions": len(background),
                       "unknown_share_median": _quantile(background, 0.5),
                       "refused_share": round(sum(s >= limit for s in background)
                                              / max(len(background), 1), 4)},
        "max_unknown_share": limit,
    }


def dump(record: dict[str, Any]) -> bytes:
    """Canonical bytes of a record (sorted keys, one-space indent, trailing newline)."""
    return (json.dumps(record, sort_keys=True, ensure_ascii=False, indent=1) + "\n").encode()


@dataclass(frozen=True)
class Calibration:
    """What the query side reads back: the index's own unknown-share limit."""

    max_unknown_share: float

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Calibration | None:
        """None for a record of another calibration version (its limit means something
        else): such a release keeps the global rule."""
        if record.get("version") != CALIBRATION_VERSION:
            return None
        limit = record.get("max_unknown_share")
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) \
                or not 0.0 <= limit <= 1.0:
            raise ValueError("max_unknown_share is not a number from 0 to 1")
        return cls(float(limit))


_PARAMS: weakref.WeakKeyDictionary[KbIndex, tuple[dict[str, Any], FusionParams]] = \
    weakref.WeakKeyDictionary()


def configured_params(index: KbIndex) -> FusionParams:
    """The fusion parameters of the index's kb.toml ``[query]`` table (before its
    calibration, `kbtools.query.search.calibrated`, applies), made once per index: frozen,
    so shared (25 fields through `FusionParams.__init__` cost every search ~8 µs)."""
    qcfg: dict[str, Any] = index.manifest["config"]["values"]["query"]
    got = _PARAMS.get(index)
    if got is None or got[0] is not qcfg:
        got = _PARAMS[index] = (qcfg, FusionParams.from_config(qcfg))
    return got[1]


def load(index: KbIndex) -> Calibration | None:
    """The release's calibration, or None when it has none (the global rule applies)."""
    record = index.no_answer_record()
    try:
        return Calibration.from_record(record) if record else None
    except ValueError as exc:
        raise IndexLoadError(f"bad no-answer calibration: {exc}",
                             path=str(index.layout.no_answer)) from None


def write_release(root: Path) -> Path:
    """Calibrate the release directory `root` (its index/ derived) and write the record into
    its data/ (atomically). Returns the file, which the caller lists in the manifest."""
    layout = ReleaseLayout(root)
    manifest = json.loads(layout.manifest.read_text(encoding="utf-8"))
    index = KbIndex(layout, manifest, load_release_info(layout, manifest))
    try:
        record = calibrate(index)
    finally:
        index.close()
    atomic_write_bytes(layout.no_answer, dump(record))
    return layout.no_answer
