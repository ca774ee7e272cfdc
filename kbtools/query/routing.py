"""Routing: the front-matter vocabulary a question names, and the boost it gives.

`route(index, question)` finds the values of the routing fields the index was built with
(kb.toml [vocabulary] routing, recorded in the manifest) and the documents' ``aliases`` that
occur in the question; `boost_vector` turns them into a per-chunk boost for fusion
(`kbtools.query.fusion`), and the aliases found also expand the question
(`kbtools.query.expansion`). A value named in the question is in the index even when no
chunk's text holds it (``region: 黄淮麦区`` in the front matter only): `routed_words` tells
the no-answer rule that its words are known, held by the chunks of the documents carrying
it (`kbtools.query.coverage`). The values are laid out once per opened index, so a question
costs a few lookups, not a pass over them.
"""

from __future__ import annotations

import bisect
import weakref

import numpy as np

from kbtools.config import Vocabulary
from kbtools.index.reader import KbIndex

ALIASES = "aliases"  # the front-matter field of a document's other names


def route(index: KbIndex, query: str) -> list[dict[str, str]]:
    """Front-matter vocabulary that occurs in the question (→ boosts): values of the routing
    fields the index was built with (kb.toml [vocabulary] routing, recorded in the manifest),
    and the documents' ``aliases`` (an alias routes to its document as its title would)."""
    q = query.casefold()
    values = _routing_values(index)
    lengths, order = _routing_by_length(index)
    fits = bisect.bisect_right(lengths, len(q))  # a longer value cannot occur in q
    if fits <= ROUTE_SCAN:
        found = [i for i in order[:fits] if names(q, values[i][2])]
    else:  # many values: only those starting with one of q's characters can occur in it
        found = []
        by_first = _routing_by_first(index)
        for c in set(q):
            if (group := by_first.get(c)) is not None:
                firsts, positions = group
                found += [i for i in positions[:bisect.bisect_right(firsts, len(q))]
                          if names(q, values[i][2])]
    return [{"field": values[i][0], "value": values[i][1]} for i in sorted(found)]


def names(question: str, value: str) -> bool:
    """Whether `question` names `value` (both casefolded): anywhere where the value's end is
    no Latin letter or digit (Chinese runs words together: 黄淮麦区赤霉病 names 黄淮麦区),
    else as a whole word, a plural s or es allowed after a letter: ``pm`` is named by ``pm
    schedule``, not by ``rpm`` or ``ppm``; ``e1`` not by ``e17``; ``vfd`` by ``vfds``."""
    start = question.find(value)
    while start >= 0:
        end = start + len(value)
        if not (_latin(value[0]) and _latin(question[start - 1:start])):
            rest = question[end:end + 3]
            plural = next((p for p in ("es", "s") if value[-1].isalpha() and
                           rest.startswith(p) and not _latin(rest[len(p):])), "")
            if plural or not (_latin(value[-1]) and _latin(question[end:end + 1])):
                return True
        start = question.find(value, start + 1)
    return False


def _latin(ch: str) -> bool:
    """Whether `ch` (one character or none) is an ASCII letter or digit."""
    return len(ch) == 1 and ch.isascii() and ch.isalnum()


# Routing values a question is tested against one by one; with more of them fitting its
# length, only those that start with one of its characters are (the few values of most
# indexes cost less than looking up a question's characters; tidb-docs-cn's 1,340 more).
ROUTE_SCAN = 64


_ROUTING_VALUES: weakref.WeakKeyDictionary[KbIndex, list[tuple[str, str, str]]] = \
    weakref.WeakKeyDictionary()


def _routing_values(index: KbIndex) -> list[tuple[str, str, str]]:
    """(field, value, casefolded value) that `route` looks for, in the order it reports
    them: the routing fields' values (fields and values sorted), then the aliases. Made
    once per index: sorting and casefolding them on every question cost more than the
    lookups themselves."""
    if index not in _ROUTING_VALUES:
        routing = set(Vocabulary.from_values(index.manifest["config"]["values"]).routing)
        found = [(fld, v, v.casefold()) for fld, values in sorted(index.facets().items())
                 if fld in routing for v in sorted(values) if len(v) >= 2]
        if ALIASES not in routing:
            found += [(ALIASES, v, v) for v in sorted(index.facet_docs(ALIASES)) if len(v) >= 2]
        _ROUTING_VALUES[index] = found
    return _ROUTING_VALUES[index]


_ROUTING_LENGTHS: weakref.WeakKeyDictionary[KbIndex, tuple[list[int], list[int]]] = \
    weakref.WeakKeyDictionary()


def _routing_by_length(index: KbIndex) -> tuple[list[int], list[int]]:
    """The positions in `_routing_values` ordered by the casefolded value's length, and
    those lengths: a question is searched for the values no longer than itself only (most
    routing values, the documents' aliases among them, are longer than a question)."""
    if index not in _ROUTING_LENGTHS:
        values = _routing_values(index)
        order = sorted(range(len(values)), key=lambda i: len(values[i][2]))
        _ROUTING_LENGTHS[index] = ([len(values[i][2]) for i in order], order)
    return _ROUTING_LENGTHS[index]


_ROUTING_FIRST: weakref.WeakKeyDictionary[KbIndex, dict[str, tuple[list[int], list[int]]]] = \
    weakref.WeakKeyDictionary()


def _routing_by_first(index: KbIndex) -> dict[str, tuple[list[int], list[int]]]:
    """Per first character of a casefolded value, the positions in `_routing_values` of
    the values starting with it ordered by their length, and those lengths (`route` with
    many values: a question has a few dozen distinct characters)."""
    if index not in _ROUTING_FIRST:
        values = _routing_values(index)
        groups: dict[str, list[int]] = {}
        for i in sorted(range(len(values)), key=lambda i: len(values[i][2])):
            groups.setdefault(values[i][2][0], []).append(i)
        _ROUTING_FIRST[index] = {c: ([len(values[i][2]) for i in order], order)
                                 for c, order in groups.items()}
    return _ROUTING_FIRST[index]


def boost_vector(index: KbIndex, routed: list[dict[str, str]]) -> np.ndarray | None:
    """Per chunk, the routing boost of what `route` found: +1 for each routed value its
    document holds, at most 2 (None: nothing routed)."""
    if not routed:
        return None
    doc_hit = np.zeros(len(index.docs()), dtype=np.float32)
    for r in routed:  # +1 per routed value a document holds (exactly, casefolded)
        holders = index.facet_docs(r["field"]).get(r["value"].casefold())
        if holders is not None:
            doc_hit[holders] += 1
    boost: np.ndarray = np.minimum(doc_hit, 2)[index.chunk_table().doc]
    return boost


def routed_words(index: KbIndex, routed: list[dict[str, str]],
                 unknown: list[str]) -> dict[str, np.ndarray]:
    """The question's `unknown` tokens (no chunk's text holds them) that are words of a value
    `route` found in it, each with the chunks that hold it through their document's front
    matter (a boolean per chunk: the chunks of the documents carrying such a value). "黄淮麦区
    赤霉病" names the region of the scab document: 黄淮麦区 is no word the index never saw."""
    if not routed or not unknown:
        return {}
    doc = index.chunk_table().doc
    out: dict[str, np.ndarray] = {}
    for r in routed:
        words = [t for t in index.bm25.tok(r["value"]) if t in unknown]
        holders = index.facet_docs(r["field"]).get(r["value"].casefold())
        if not words or holders is None:
            continue
        held = np.isin(doc, holders)
        for t in words:
            out[t] = out[t] | held if t in out else held
    return out
