"""Where a search gets its candidates: the seam between our query pipeline and an engine.

`kbtools.query.search.search` cleans the question, decides filters and routing, then asks a
`CandidateSource` for ranked candidate lists (``bm25`` and one ``vector:<model>`` per query
model, keyed by chunk number) and does everything after that itself: fusion, collapsing,
the no-answer rule and citations. The default source reads the release's own files (BM25
matrices and usearch graphs); an index object opened through an engine (`kbtools.engine`)
carries its own source in its ``candidate_source`` attribute, so every caller of `search`
(`kb query`, `kb eval`, MCP) works unchanged against either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from kbtools.index.reader import KbIndex
    from kbtools.query.filter_text import Condition
    from kbtools.query.fusion import Ranked


@dataclass(frozen=True)
class CandidateRequest:
    """One question as the candidate sources see it (already cleaned and tokenized)."""

    text: str
    mode: str  # hybrid | bm25 | vector
    where: tuple[Condition, ...]  # parsed --where (key, op, value or values)
    verified_only: bool
    mask: np.ndarray | None  # the same filters as a per-chunk mask (local evaluation)
    term_ids: tuple[int, ...]  # BM25 vocabulary ids of the question's known terms
    count: int  # candidates per list
    # BM25 ids of synonym/alias expansions (kbtools.query.expansion), whose scores are added
    # with `expansion_weight` (the local files and the Milvus source both do)
    expansion_ids: tuple[int, ...] = ()
    expansion_weight: float = 0.0
    # (BM25 id, weight) of those of `term_ids` that weigh other than 1: a joined compound
    # standing for words its holders lack (kbtools.query.expansion.compound_weight)
    term_weights: tuple[tuple[int, float], ...] = ()


class CandidateSource(Protocol):
    """Ranked candidate lists for one question over one index."""

    def ranked_lists(self, index: KbIndex, req: CandidateRequest) -> dict[str, Ranked]: ...


def source_of(index: KbIndex, default: CandidateSource) -> CandidateSource:
    """The source an index searches with: its own ``candidate_source`` when it was opened
    through an engine, else `default` (the release's local files)."""
    own: CandidateSource | None = getattr(index, "candidate_source", None)
    return own if own is not None else default
