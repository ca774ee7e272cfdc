"""Fusion of ranked candidate lists: pure functions, with an explanation for every hit.

Two methods:
- ``rrf``: weighted reciprocal rank fusion, score = Σ w_r / (k + rank_r).
- ``linear`` (default, chosen by measurement — see docs/retrieval.md): each list's scores
  are rescaled to [0, 1] within the list (BM25 by its top score, cosine between the list's
  last and first candidate) and summed with weights. Unlike RRF it keeps *how much* better
  the top BM25 hit is, so a strong lexical match is not diluted by a weaker embedder.
The weights are earned per question (`weights`): each retriever by how far its best
candidate stands out of its own candidate list, so weak vectors that cannot separate their
candidates do not pull a confident lexical ranking down.
Routing boosts multiply a chunk's fused score by (1 + boost × matched facets); chunks of
unverified documents (field reports, drafts) are weighted by ``unverified_weight`` so that
reviewed knowledge wins a near tie — they still appear, marked unverified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Ranked:
    keys: np.ndarray  # chunk numbers, best first
    scores: np.ndarray
    # 1-based rank of each key; None: its position. Chunks scored by one shared vector share
    # its rank (kbtools.query.inherit), so a rank counts vectors, not the chunks behind them.
    ranks: np.ndarray | None = None

    def rank_of_each(self) -> np.ndarray:
        """The rank of each key (its position when no ranks were given)."""
        return self.ranks if self.ranks is not None else np.arange(1, len(self.keys) + 1)


@dataclass(frozen=True, init=False)
class Hit:
    num: int
    score: float
    why: dict[str, Any] = field(default_factory=dict)

    def __init__(self, num: int, score: float, why: dict[str, Any] | None = None):
        """What the generated frozen ``__init__`` does (``why`` defaults to a new dict),
        writing the instance dict at once instead of one ``object.__setattr__`` call per
        field: a search makes a few hundred hits, at ~3 µs each that way."""
        self.__dict__.update(num=num, score=score, why={} if why is None else why)


@dataclass(frozen=True)
class FusionParams:
    method: str = "linear"
    candidates: int = 50
    rrf_k: int = 60
    bm25_weight: float = 0.7
    vector_weight: float = 0.3
    weighting: str = "shape"  # per question (`weights`); "fixed": bm25_weight / vector_weight
    shape_scale: float = 0.6  # "shape": vector weight = scale × z_vector / (z_bm25 + z_vector)
    boost: float = 0.1
    unverified_weight: float = 0.9  # reviewed knowledge wins a near tie with an unreviewed draft
    min_cosine: float = 0.5  # no-answer: best vector similarity below this …
    min_coverage: float = 0.25  # … and less than this share of the question's term weight matched
    max_unknown_share: float = 1.0  # no-answer: unknown terms carry this share of the question …
    doc_decay: float = 0.5  # each further section of a shown document (kbtools.query.distinct)
    # hybrid: bonus of the question's closest page (kbtools.query.pages); 0.2 measured best
    # (docs/retrieval.md), 0 turns page evidence off
    page_weight: float = 0.2
    # hybrid: pseudo-relevance feedback (kbtools.query.feedback); 0 turns it off
    feedback_weight: float = 0.0
    feedback_docs: int = 3
    feedback_terms: int = 10
    feedback_support: int = 2
    # hybrid: pages linked from the best pages (kbtools.query.neighbours); 0 turns it off
    link_weight: float = 0.0
    # hybrid: pages whose anchor text matches the question (kbtools.query.anchors); 0: off
    anchor_weight: float = 0.0

    @classmethod
    def from_config(cls, q: dict[str, Any]) -> FusionParams:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in q.items() if k in names})


def top(scores: np.ndarray, n: int) -> Ranked:
    """The n best positive scores, best first (ties broken by chunk number)."""
    pos = np.flatnonzero(scores > 0)
    if len(pos) > n:
        part = np.argpartition(-scores[pos], n - 1)[:n]
        pos = pos[part]
    order = np.lexsort((pos, -scores[pos]))
    keys = pos[order]
    return Ranked(keys.astype(np.int64), scores[keys].astype(np.float32))


def _normalised(name: str, r: Ranked) -> np.ndarray:
    if len(r.scores) == 0:
        return r.scores
    if name == "bm25":
        return r.scores / max(float(r.scores[0]), 1e-9)
    lo, hi = float(r.scores[-1]), float(r.scores[0])
    if len(r.scores) == 1 or hi - lo < 1e-6:
        return np.ones_like(r.scores)
    return (r.scores - lo) / (hi - lo)


def standout(r: Ranked) -> float:
    """How far the best candidate stands above the list's own candidates: (best − mean) / std
    of their scores (0 for fewer than two candidates or a flat list). Scale-free, so a BM25
    list and a cosine list can be compared: a retriever that cannot tell its candidates apart
    has a small standout whatever its scores are."""
    if len(r.scores) < 2:
        return 0.0
    s = r.scores.astype(np.float64)
    sd = float(s.std())
    return max(float(s[0] - s.mean()) / sd, 0.0) if sd > 1e-9 else 0.0


def weights(lists: dict[str, Ranked], p: FusionParams) -> tuple[float, float]:
    """(BM25 weight, total vector weight) for this question.

    ``shape`` (default): each side earns weight by its standout — the vectors get
    ``shape_scale`` × z_vector / (z_bm25 + z_vector), BM25 the rest — so a vector list whose
    best candidate does not stand out of its pool cannot pull a confident lexical ranking
    down, and a flat BM25 list (common words only) leaves more to the vectors. ``fixed``: the
    configured ``bm25_weight`` / ``vector_weight`` for every question. With one side only
    (``--mode``, or no question term in the BM25 vocabulary) that side weighs 1."""
    vecs = [r for name, r in lists.items() if name.startswith("vector") and len(r.keys)]
    bm25 = lists.get("bm25")
    if bm25 is None or not len(bm25.keys):
        return 0.0, 1.0
    if not vecs:
        return 1.0, 0.0
    if p.weighting == "fixed":
        return p.bm25_weight, p.vector_weight
    z_b, z_v = standout(bm25), max(standout(r) for r in vecs)
    if z_b + z_v <= 0:
        return p.bm25_weight, p.vector_weight
    w_vec = p.shape_scale * z_v / (z_b + z_v)
    return 1.0 - w_vec, w_vec


def fuse(lists: dict[str, Ranked], p: FusionParams, boost: np.ndarray | None = None,
         unverified: np.ndarray | None = None) -> list[Hit]:
    n_vec = sum(1 for name in lists if name.startswith("vector"))
    w_bm25, w_vec = weights(lists, p)
    total: dict[int, float] = {}
    why: dict[int, dict[str, Any]] = {}
    for name, r in lists.items():
        is_bm25 = name == "bm25"
        weight = w_bm25 if is_bm25 else w_vec / max(n_vec, 1)
        ranks = r.rank_of_each()
        contrib = (weight / (p.rrf_k + ranks) if p.method == "rrf"
                   else weight * _normalised(name, r))
        prefix = "bm25" if is_bm25 else "vector"
        rank_key, score_key = f"{prefix}_rank", f"{prefix}_score"
        model = None if is_bm25 else name.split(":", 1)[1]
        for rank, key, raw, c in zip(ranks.tolist(), r.keys.tolist(), r.scores.tolist(),
                                     contrib.tolist(), strict=True):
            if key in total:
                total[key] += c
                w = why[key]
                if w[rank_key] is not None and rank >= w[rank_key]:
                    continue  # the better rank on this side stands
            else:
                total[key] = 0.0 + c
                w = why[key] = {"bm25_rank": None, "bm25_score": None, "vector_rank": None,
                                "vector_score": None}
            w[rank_key], w[score_key] = rank, round(raw, 6)
            if model is not None:
                w["vector_model"] = model
    if boost is not None:
        for key in total:
            if boost[key]:
                total[key] *= 1.0 + p.boost * float(boost[key])
                why[key]["boost"] = float(boost[key])
    if unverified is not None and p.unverified_weight != 1.0:
        for key in total:
            if unverified[key]:
                total[key] *= p.unverified_weight
    ordered = sorted([(-score, key) for key, score in total.items()])  # best first, then key
    return [Hit(key, -neg, why[key]) for neg, key in ordered]


_CODE = re.compile(r"^[a-z]{1,4}-?\d{2,}[a-z]?$")


def answerable(hits: list[Hit], coverage: np.ndarray, p: FusionParams, *, has_terms: bool,
               unknown_terms: Sequence[str] = (), unknown_share: float = 0.0,
               exact: bool = False) -> bool:
    """The relevance threshold: is the best hit good enough to answer from?

    A hit *about* an identifier of the question (``exact``: its fault-code row, its section)
    answers it. Otherwise answerable when the best vector similarity reaches ``min_cosine``
    or the best hits contain at least ``min_coverage`` of the question's idf weight (terms
    the index never saw count with the highest idf). Two kinds of question need a clearly
    strong vector match instead: one with a code-like term (E99, HX-900) that occurs nowhere
    in the knowledge, and one whose unknown content words carry ``max_unknown_share`` or
    more of its weight (叉车, SAML, Elasticsearch: a subject the knowledge does not cover).
    """
    if not hits:
        return False
    if exact:
        return True
    best_cos = max((h.why.get("vector_score") or 0.0) for h in hits[:3])
    if any(_CODE.match(t) for t in unknown_terms):
        return best_cos >= p.min_cosine + 0.15
    if unknown_share >= p.max_unknown_share:
        return best_cos >= p.min_cosine + 0.1
    best_cov = float(coverage[:3].max()) if has_terms and len(coverage) else 0.0
    return best_cos >= p.min_cosine or best_cov >= p.min_coverage
