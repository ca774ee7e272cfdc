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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
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


_set = object.__setattr__


class Hit:
    """A candidate ranked on: its chunk number, score and ``why`` (the evidence shown with
    a result; a new dict when not given). Immutable, compared by all three. A search ranks
    ~50 candidates and shows a handful, so the hits `Fused.hits` makes, and those a later
    stage makes of them (`noted`), build their ``why`` when it is first read: ~2 µs of
    rounding and dict making each, spent on the few that are shown."""

    __slots__ = ("num", "score", "_why", "_make")
    num: int
    score: float
    _why: dict[str, Any] | None
    _make: Callable[[], dict[str, Any]] | None

    def __init__(self, num: int, score: float, why: dict[str, Any] | None = None):
        _NUM(self, num)
        _SCORE(self, score)
        _WHY(self, {} if why is None else why)
        _MAKE(self, None)

    @classmethod
    def lazy(cls, num: int, score: float, make: Callable[[], dict[str, Any]]) -> Hit:
        """A hit whose ``why`` is ``make()``, called when it is first read."""
        hit = cls.__new__(cls)
        _NUM(hit, num)
        _SCORE(hit, score)
        _WHY(hit, None)
        _MAKE(hit, make)
        return hit

    @property
    def why(self) -> dict[str, Any]:
        why = self._why
        if why is None:
            assert self._make is not None
            why = self._make()
            _WHY(self, why)
            _MAKE(self, None)
        return why

    def noted(self, score: float, num: int | None = None, **notes: Any) -> Hit:
        """This hit at `score` (as chunk `num`: its section, say), with ``{**why,
        **notes}`` for ``why``, built when first read if this hit's is not built yet."""
        num = self.num if num is None else num
        if self._why is not None:
            return Hit(num, score, {**self._why, **notes})
        return Hit.lazy(num, score, lambda: {**self.why, **notes})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Hit is immutable: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Hit is immutable: cannot delete {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hit):
            return NotImplemented
        return (self.num, self.score, self.why) == (other.num, other.score, other.why)

    __hash__ = None  # type: ignore[assignment]  # equal by a dict: not hashable

    def __repr__(self) -> str:
        return f"Hit(num={self.num!r}, score={self.score!r}, why={self.why!r})"


# Each slot of a `Hit` set through its own descriptor: what `object.__setattr__` ends in,
# without looking the name up (a search makes some 80 hits: ~13 µs less a search)
_NUM, _SCORE, _WHY, _MAKE = (getattr(Hit, name).__set__ for name in Hit.__slots__)


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
    # no-answer, a question read across languages (kbtools.query.crosslingual): its best
    # vector similarity below this (under USE, an English question and the Chinese section
    # answering it: 0.31–0.44; out-of-scope questions' best Chinese chunks 0.10–0.31)
    min_cross_cosine: float = 0.33
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
    # hybrid: pages linked from the best pages (kbtools.query.neighbours); 0 turns it off.
    # This, anchor_weight and hub_weight count only for a question whose words the best
    # candidates do not hold (`words_found`; docs/retrieval.md, "aliyun linked, fifth round")
    link_weight: float = 0.5
    # hybrid: pages whose anchor text matches the question (kbtools.query.anchors); 0: off
    anchor_weight: float = 0.2
    # hybrid: pages many other pages link to (hubs, `kbtools.query.neighbours.hub_scores`),
    # for a question whose words the best candidates do not hold too; 0 turns it off
    hub_weight: float = 0.3
    # the share of the question's idf weight one of the best candidates must hold for its
    # words to count as found (`words_found`)
    found_share: float = 0.95

    @classmethod
    def from_config(cls, q: dict[str, Any]) -> FusionParams:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in q.items() if k in names})


TOP_STRIDE = 8


def top(scores: np.ndarray, n: int) -> Ranked:
    """The n best positive scores, best first, ties broken by chunk number (at the cut too:
    of the chunks tied with the n-th score, the lowest numbers are kept, as an engine's
    list keeps them)."""
    pos = None
    if len(scores) >= TOP_STRIDE * n:
        # the n-th best positive score of every TOP_STRIDE-th chunk is no better than the
        # n-th best of all: only the chunks at or above it are gathered (a BM25 list keeps
        # 100 of ~24k positive scores; gathering them all was a third of this function)
        part = scores[::TOP_STRIDE]
        part = part[part > 0]
        if len(part) >= n:
            pos = np.flatnonzero(scores >= np.partition(part, len(part) - n)[len(part) - n])
    if pos is None:
        pos = np.flatnonzero(scores > 0)
    if len(pos) > n:
        vals = scores[pos]
        nth = np.partition(vals, len(vals) - n)[len(vals) - n]  # the n-th best score
        pos = pos[vals >= nth]
    order = np.lexsort((pos, -scores[pos]))[:n]
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


def standout(r: Ranked, pool: int = 0) -> float:
    """How far the best candidate stands above the list's own candidates: (best − mean) / std
    of their scores (0 for a flat list). Scale-free, so a BM25 list and a cosine list can be
    compared: a retriever that cannot tell its candidates apart has a small standout whatever
    its scores are. A lone candidate has no spread of its own: it is read against ``pool``
    (the number of candidates the other lists hold), the missing ones scoring 0 — which
    they did, since BM25 lists positive scores only — so a term one chunk holds gives the
    largest standout there is, √(pool − 1), not none (0 without a pool). Longer lists are
    read as they are: padding them too cost two dev sets (docs/retrieval.md)."""
    s = r.scores.astype(np.float64)
    if len(s) == 1 and pool > 1:
        s = np.concatenate([s, np.zeros(pool - 1)])
    if len(s) < 2:
        return 0.0
    mean, sd = _mean_std(s)
    return max(float(s[0] - mean) / sd, 0.0) if sd > 1e-9 else 0.0


def _mean_std(s: np.ndarray) -> tuple[float, float]:
    """``s.mean()`` and ``s.std()`` of a 1-d float64 array, computed as numpy computes them
    (pairwise sums, divided by the count as an ``intp``) without their Python layers."""
    n = np.intp(len(s))
    mean = np.add.reduce(s, keepdims=True)
    np.true_divide(mean, n, out=mean, casting="unsafe")
    dev = s - mean
    np.multiply(dev, dev, out=dev)
    return float(mean[0]), float(np.sqrt(np.add.reduce(dev) / n))


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
    z_b = standout(bm25, pool=max(len(r.keys) for r in vecs))  # a lone candidate: vs. theirs
    z_v = max(standout(r) for r in vecs)
    if z_b + z_v <= 0:
        return p.bm25_weight, p.vector_weight
    w_vec = p.shape_scale * z_v / (z_b + z_v)
    return 1.0 - w_vec, w_vec


def fuse(lists: dict[str, Ranked], p: FusionParams, boost: np.ndarray | None = None,
         unverified: np.ndarray | None = None) -> list[Hit]:
    """The candidates of every list, fused, best first (`fuse_arrays`, as `Hit`s)."""
    return fuse_arrays(lists, p, boost, unverified).hits()


# A note later stages add to a candidate's ``why``: per chunk number, keys to add; or one key
# and its value per candidate (aligned with `Fused.keys`; rounded to 6 decimals when shown).
Note = dict[int, dict[str, Any]] | tuple[str, np.ndarray]


@dataclass(frozen=True)
class Fused:
    """Fused candidates as arrays: each candidate once, in chunk-number order (`keys`), with
    its fused score and what its ``why`` is made of — per side (BM25, vectors) the entry of
    its best rank (index into `ranks`/`raw`, -1: none), the vector list that gave it, the
    routing boost — and the notes of later stages. Stages after fusion re-weigh the scores
    (`rescored`), and a search makes `Hit`s only of the candidates it goes on with (`hits`):
    a few dozen of several hundred, the rest being scored but never shown."""

    keys: np.ndarray  # int64, ascending
    scores: np.ndarray  # float64
    ranks: np.ndarray  # every list entry's rank (lists concatenated in order)
    raw: np.ndarray  # every list entry's own score (float64)
    bm25: np.ndarray  # per candidate, its BM25 entry (-1: none)
    vector: np.ndarray  # per candidate, its best vector entry (-1: none)
    model_of: np.ndarray  # per list entry, the vector model's position in `models` (-1: BM25)
    models: tuple[str, ...]
    boost: np.ndarray | None  # per candidate (0: not boosted)
    notes: tuple[Note, ...] = ()

    def __len__(self) -> int:
        return len(self.keys)

    def order(self) -> np.ndarray:
        """Positions in `keys`, best first: by score, then chunk number."""
        return np.lexsort((self.keys, -self.scores))

    def rescored(self, scores: np.ndarray, note: Note | None = None) -> Fused:
        """The same candidates with new scores (aligned with `keys`) and a note more: a copy
        of this one's fields with those two set (what `dataclasses.replace` makes, without
        passing ten fields through `__init__` for each stage that re-weighs)."""
        out: Fused = object.__new__(Fused)
        out.__dict__.update(self.__dict__)
        _set(out, "scores", scores)
        _set(out, "notes", self.notes if note is None else (*self.notes, note))
        return out

    def hits(self, head: int | None = None, also: set[int] | frozenset[int] = frozenset(),
             ) -> list[Hit]:
        """`Hit`s best first: every candidate, or the first `head` and those further down
        whose chunk number is in `also`."""
        order = self.order()
        if head is not None and len(order) > head:
            rest = order[head:]
            if also:
                rest = rest[np.isin(self.keys[rest], np.fromiter(also, dtype=np.int64))]
                order = np.concatenate([order[:head], rest])
            else:
                order = order[:head]
        return self._hits(order)

    def _hits(self, order: np.ndarray) -> list[Hit]:
        """The `Hit`s of the candidates at positions `order` (columns gathered at once; each
        one's ``why`` made when read, `_Why`)."""
        if not len(order):
            return []
        why = _Why(self, order)
        return [Hit.lazy(num, score, partial(why.of, j)) for j, (num, score) in
                enumerate(zip(self.keys[order].tolist(), self.scores[order].tolist(),
                              strict=True))]


def unranked_why() -> dict[str, Any]:
    """The ``why`` of a hit neither candidate list ranked (an evaluated table's answer row
    that no list found): every key a ``why`` has, without a rank or score."""
    return {"bm25_rank": None, "bm25_score": None, "vector_rank": None, "vector_score": None}

class _Why:
    """The ``why`` of the candidates of `fused` at positions `order`, from their columns
    gathered once: per side (BM25, vectors) its best entry's rank and own score, the vector
    list's model, the routing boost and the later stages' notes."""

    def __init__(self, fused: Fused, order: np.ndarray):
        def side(entries: np.ndarray) -> tuple[list[int], list[int], list[float]]:
            at = np.maximum(entries, 0)
            return entries.tolist(), fused.ranks[at].tolist(), fused.raw[at].tolist()
        self.nums = fused.keys[order].tolist()
        self.b_entry, self.b_rank, self.b_raw = side(fused.bm25[order])
        self.v_entry, self.v_rank, self.v_raw = side(fused.vector[order])
        self.v_model = fused.model_of[np.maximum(fused.vector[order], 0)].tolist()
        self.models = fused.models
        self.boost = fused.boost[order].tolist() if fused.boost is not None else None
        self.notes = [note if isinstance(note, dict) else (note[0], note[1][order].tolist())
                      for note in fused.notes]

    def of(self, j: int) -> dict[str, Any]:
        """The ``why`` of the `j`-th candidate."""
        why = unranked_why()
        if self.b_entry[j] >= 0:
            why["bm25_rank"], why["bm25_score"] = self.b_rank[j], round(self.b_raw[j], 6)
        if self.v_entry[j] >= 0:
            why["vector_rank"], why["vector_score"] = self.v_rank[j], round(self.v_raw[j], 6)
            why["vector_model"] = self.models[self.v_model[j]]
        if self.boost is not None and self.boost[j]:
            why["boost"] = self.boost[j]
        num = self.nums[j]
        for note in self.notes:
            if isinstance(note, dict):
                if num in note:
                    why.update(note[num])
            else:
                why[note[0]] = round(note[1][j], 6)
        return why


def _best_entries(inv: np.ndarray, ranks: np.ndarray, vector: np.ndarray,
                  n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate (0..n-1), its BM25 entry and its vector entry (`vector`: a mask over the
    entries, whose candidates are `inv`) with the side's best rank, the first of equal ones;
    -1 when it has none. What taking the entries in turn and keeping a strictly better rank
    keeps, both sides in one sort (by candidate, side, rank, position)."""
    best = np.full((2, n), -1, dtype=np.int64)
    if len(inv):
        side = vector.astype(np.int64)
        order = np.lexsort((np.arange(len(inv)), ranks, side, inv))
        group = inv[order] * 2 + side[order]
        first = order[_run_starts(group)]  # the first entry of each (candidate, side)
        best[side[first], inv[first]] = first
    return best[0], best[1]


def _run_starts(ordered: np.ndarray) -> np.ndarray:
    """Per entry of the sorted 1-d `ordered`: does a run of equal values start there (it
    differs from the entry before it; the first always does). What ``np.r_[True, a[1:] !=
    a[:-1]]`` gives, without np.r_'s Python layers."""
    starts = np.empty(len(ordered), dtype=bool)
    starts[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    return starts


def _unique(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for a 1-d array (the same sort and the same
    arrays), without its Python layers: a search fuses a few hundred entries."""
    perm = keys.argsort(kind="quicksort")
    ordered = keys[perm]
    new = _run_starts(ordered)
    inv = np.empty(len(ordered), dtype=np.intp)
    inv[perm] = np.cumsum(new) - 1
    return ordered[new], inv


def fuse_arrays(lists: dict[str, Ranked], p: FusionParams, boost: np.ndarray | None = None,
                unverified: np.ndarray | None = None) -> Fused:
    """Fuse the candidate lists (module doc): each candidate's score is the sum, in list
    order, of its weighted contributions (normalised score, or reciprocal rank); routing
    boosts and the unverified weight multiply it. Its ``why`` keeps its best rank per side
    (an equal rank keeps the earlier list) with that entry's own score."""
    n_vec = sum(1 for name in lists if name.startswith("vector"))
    w_bm25, w_vec = weights(lists, p)
    keys: list[np.ndarray] = []
    contribs: list[np.ndarray] = []
    ranks: list[np.ndarray] = []
    raw: list[np.ndarray] = []
    model_of: list[np.ndarray] = []
    models: list[str] = []
    for name, r in lists.items():
        is_bm25 = name == "bm25"
        weight = w_bm25 if is_bm25 else w_vec / max(n_vec, 1)
        rank = r.rank_of_each()
        contrib = (weight / (p.rrf_k + rank) if p.method == "rrf"
                   else weight * _normalised(name, r))
        keys.append(np.asarray(r.keys, dtype=np.int64))
        contribs.append(np.asarray(contrib, dtype=np.float64))
        ranks.append(np.asarray(rank, dtype=np.int64))
        raw.append(np.asarray(r.scores, dtype=np.float64))
        if not is_bm25:
            models.append(name.split(":", 1)[1])
        model_of.append(np.full(len(r.keys), -1 if is_bm25 else len(models) - 1, dtype=np.int64))
    if not keys:
        return fuse_arrays({"bm25": Ranked(np.zeros(0, dtype=np.int64),
                                           np.zeros(0, dtype=np.float32))}, p)
    uniq, inv = _unique(np.concatenate(keys))
    # bincount adds in entry order, each sum starting at 0.0: the per-candidate loop's sums
    scores = np.bincount(inv, weights=np.concatenate(contribs), minlength=len(uniq))
    all_ranks, source = np.concatenate(ranks), np.concatenate(model_of)
    bm25, vec = _best_entries(inv, all_ranks, source >= 0, len(uniq))
    gain = None
    if boost is not None:
        gain = boost[uniq].astype(np.float64)
        scores = np.where(gain != 0, scores * (1.0 + p.boost * gain), scores)
    if unverified is not None and p.unverified_weight != 1.0:
        scores = np.where(unverified[uniq], scores * p.unverified_weight, scores)
    return Fused(uniq.astype(np.int64), scores, all_ranks, np.concatenate(raw), bm25, vec,
                 source, tuple(models), gain)


def best_first(hits: list[Hit], uncapped: dict[int, float] | None = None) -> list[Hit]:
    """`hits` sorted best first: by score, equal scores by the score each would have without
    the caps of the steps that lifted it (``uncapped``: chunk number → that score; a hit
    not in it: its own), then by chunk number. A cap (a linked page or an anchor page at 0.9
    × the page lifting it) gives every page it stops the same score; their evidence, not
    their chunk numbers, orders them (docs/retrieval.md, "aliyun linked, sixth round")."""
    got = uncapped or {}
    return sorted(hits, key=lambda h: (-h.score, -got.get(h.num, h.score), h.num))


def words_found(coverage: np.ndarray, p: FusionParams) -> bool:
    """Do the best candidates already say what the question says: does one of them hold
    ``found_share`` of the question's idf weight (``coverage``: per candidate, the share it
    holds; a word the index never saw is held by none)? Then links and anchor text are not
    used for it: a page that holds the question's words is the answer the lexical and vector
    evidence point to, and the pages linked from it or named by other pages' links could
    only push it down (tidb_faq_zh's FAQ answers, whose questions repeat the page's words).
    A question asked in words the pages do not use (a user's words for an API or a limits
    page) is where the readers' words and the links of the pages found are evidence."""
    return bool(len(coverage)) and float(coverage.max()) >= p.found_share


_CODE = re.compile(r"^[a-z]{1,4}-?\d{2,}[a-z]?$")
# A setting, key or error name: word parts joined by "_", "." or ":" (tidb_gc_life_time,
# raftstore.store-pool-size, ecs.g7.large, pd:schedule, invalidparameter.format). Not "e.g"
# or "u.s" (one letter a side), nor a gene or protein name of a scientific claim (yap1,
# apkcz), which an abstract may well not spell as the claim does.
_NAME = re.compile(r"[a-z0-9]{2}(?:_|[.:](?=[a-z]))[a-z][a-z0-9]")


def unknown_names(unknown_terms: Sequence[str]) -> list[str]:
    """The codes (E99, HX-900) and settings, keys or error names (`_NAME`) among a
    question's terms that occur nowhere in the knowledge."""
    return [t for t in unknown_terms if _CODE.match(t) or _NAME.search(t)]


def unknown_name(unknown_terms: Sequence[str]) -> bool:
    """Does the question name a code or a setting, key or error name that occurs nowhere in
    the knowledge (`unknown_names`)?"""
    return bool(unknown_names(unknown_terms))


# In a paste (`kbtools.query.question.is_paste`), unknown names are the question's subject
# only when they carry at least this share of its weight (`kbtools.query.calibration.
# name_share`): a log's gc_worker.go and cur_db carry a twentieth of it, a SQL statement's
# t2.name and t1.created_at a sixth, a traceback's file and function names a quarter to a
# third; a pasted list of settings the knowledge lacks is still about them.
PASTE_NAME_SHARE = 0.5
# A paste is answered by a best hit holding at least this share of one of its lines' weight
# (`kbtools.query.coverage.Coverage.line_share`): the error line of a traceback whose frames
# (com.acme.…, worker.py) the knowledge never names, as the row explaining that error does.
PASTE_LINE_SHARE = 0.6


# the best hits the no-answer rule reads (`answerable`), however many results are shown
JUDGED = 3


def answerable(hits: list[Hit], coverage: np.ndarray, p: FusionParams, *, has_terms: bool,
               unknown_terms: Sequence[str] = (), unknown_codes: Sequence[str] = (),
               unknown_share: float = 0.0,
               exact: bool = False, paste: bool = False, name_share: float = 1.0,
               line_share: float = 0.0, crossed: bool = False) -> bool:
    """The relevance threshold: is the best hit good enough to answer from?

    A hit *about* an identifier of the question (``exact``: its fault-code row, its section)
    answers it, unless the question also names a code or setting the knowledge never
    mentions (`unknown_name`: "PostgreSQL shared_buffers" is not answered by a row about
    PostgreSQL; ``unknown_codes``: a code typed as two words that no chunk writes, ``E 99``,
    ``ERROR 9999``) — in a question typed; in a paste (``paste``) only when those names carry
    ``PASTE_NAME_SHARE`` of its weight (``name_share``). A paste is answered too when one
    of the best hits holds ``PASTE_LINE_SHARE`` of one of its lines (``line_share``: the
    error line of a stack trace, whose frames and paths weigh more than it and name what the
    knowledge never mentions). Otherwise answerable when the best vector similarity reaches ``min_cosine``
    or the best hits contain at least ``min_coverage`` of the question's idf weight (terms
    the index never saw count with the highest idf). Two kinds of question need a clearly
    strong vector match instead: one naming such an unknown code or setting (E99, HX-900,
    tidb_auto_vacuum_interval; in a paste, as said above), and one whose unknown content words carry
    ``max_unknown_share`` or more of its weight (叉车, SAML, Elasticsearch: a subject the
    knowledge does not cover). A question read across languages (``crossed``: its vectors
    are the base model's, the answer written in another language) is answerable when the
    best vector similarity reaches ``min_cross_cosine``, which such similarities reach when
    relevant; the words of its own language the knowledge never writes are no sign of an
    uncovered subject there, so their share does not count (codes and settings still do).
    """
    if not hits:
        return False
    if paste and line_share >= PASTE_LINE_SHARE:
        return True
    unknown = (unknown_name(unknown_terms) or bool(unknown_codes)) and \
        (not paste or name_share >= PASTE_NAME_SHARE)
    if exact and not unknown:
        return True
    best_cos = max((h.why.get("vector_score") or 0.0) for h in hits[:JUDGED])
    if unknown:
        return best_cos >= p.min_cosine + 0.15
    if crossed:
        threshold = p.min_cross_cosine
    elif unknown_share >= p.max_unknown_share:
        return best_cos >= p.min_cosine + 0.1
    else:
        threshold = p.min_cosine
    best_cov = float(coverage[:JUDGED].max()) if has_terms and len(coverage) else 0.0
    return best_cos >= threshold or best_cov >= p.min_coverage
