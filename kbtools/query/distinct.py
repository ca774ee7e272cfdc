"""Distinct results: the top-k are different answers, not one section said three times.

- One result per section: hits that share a document and heading path (rows of one table,
  the table itself, the pieces of a long section) collapse into the best-ranked of them; the
  others stay reachable as its ``more`` (chunk numbers, best first).
- Document diversity: each further section of a document already shown has its score
  multiplied by ``doc_decay`` once more, so a second relevant document is not pushed out by
  a third section of the first (``[query] doc_decay`` in kb.toml, default in
  `kbtools.query.fusion.FusionParams`; 1 turns this off).

Pure: works on `kbtools.query.fusion.Hit` and a chunk's section and document (from store
rows, `section_key`, or `kbtools.query.sections`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from kbtools.query.fusion import Hit


def section_key(row: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    return row["doc"], tuple(row["heading_path"])


def one_per_section(hits: list[Hit], section: Callable[[int], Hashable],
                    ) -> tuple[list[Hit], dict[int, list[int]]]:
    """The best hit of each section (`section`: a chunk number's section, as `section_key`
    of its row or any key equal exactly when that is), in order, and each one's collapsed
    siblings (``more``)."""
    first: dict[Hashable, int] = {}
    out: list[Hit] = []
    more: dict[int, list[int]] = {}
    for h in hits:
        key = section(h.num)
        if key in first:
            more.setdefault(first[key], []).append(h.num)
            continue
        first[key] = h.num
        out.append(h)
    return out, more


def diversify(hits: list[Hit], doc_of: Callable[[int], Hashable],
              doc_decay: float) -> list[Hit]:
    """Scores decayed by how many better hits of the same document (`doc_of` a chunk
    number) come before; re-sorted (stable, so equal scores keep their order). The decay is
    recorded in ``why``."""
    if doc_decay >= 1.0:
        return hits
    seen: dict[Hashable, int] = {}
    scored: list[Hit] = []
    for h in hits:
        doc = doc_of(h.num)
        n = seen.get(doc, 0)
        seen[doc] = n + 1
        if n:
            h = h.noted(h.score * doc_decay ** n, doc_decay=round(doc_decay ** n, 6))
        scored.append(h)
    return sorted(scored, key=lambda h: -h.score)
