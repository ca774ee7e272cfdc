"""The question's specific identifiers and the chunks that hold them.

An identifier (`kbtools.query.identifiers`: E17, GW-7731, tidb_gc_life_time, 4.3) is
*specific* when few chunks hold it (`specific_identifiers`); the search promotes the chunks
about it (`identifier_levels`, `identifiers.promote`) and ranks the chunks holding it that
the question's vector models cannot see (`identifier_holders`, `unlisted_holders`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.index.store import identifier_text
from kbtools.query import fusion
from kbtools.query.codes import spaced_codes, spaced_parts
from kbtools.query.expansion import index_spellings, joined_code
from kbtools.query.identifiers import Batch, holds_enough, identifiers, match_level
from kbtools.query.inherit import vector_models
from kbtools.query.keys import TermsOf, identifier_terms

# An identifier held by more chunks than both of these names a product, not one thing.
SPECIFIC_SHARE = 0.02
SPECIFIC_CHUNKS = 25
# At most this many holders of a question's specific identifiers join its ranking.
IDENTIFIER_HOLDERS = 200


def specific_identifiers(index: KbIndex, text: str) -> list[str]:
    """The question's identifiers that pick out few chunks: some token of each is held by at
    most SPECIFIC_SHARE of the chunks or SPECIFIC_CHUNKS chunks, whichever is more (TiDB in
    TiDB's documentation or HX-260 in its manual is not specific; E17 is). A code typed in
    lower case as two words (``e 17``) is one where the index holds it joined
    (`expansion.joined_code`: e17), as ``E 17`` is; else words (``in 2``, ``mek 1``)."""
    n = index.store.count()
    limit = max(SPECIFIC_SHARE, SPECIFIC_CHUNKS / max(n, 1))
    out = []
    typed = [*identifiers(text), *(joined[0] for p, number in spaced_codes(text, any_case=True)
                                   if p.islower() and (joined := joined_code(index, p, number)))]
    known: dict[str, tuple[list[str], list[int], list[str]]] = {}

    def terms_of(ident: str) -> tuple[list[str], list[int], list[str]]:
        """`Bm25.query_terms` of an identifier, tokenized once in this call (its spelling
        is looked up, then its terms: mostly the same text)."""
        if ident not in known:
            known[ident] = index.bm25.query_terms(ident)
        return known[ident]

    for ident in dict.fromkeys(index_spelling(index, i, terms_of) for i in typed):
        ids = identifier_terms(index, ident, terms_of)
        if ids and float(index.bm25.share(ids).min()) <= limit:
            out.append(ident)
    return out


def index_spelling(index: KbIndex, ident: str, terms_of: TermsOf | None = None) -> str:
    """The identifier as the index writes it when the index has it only in another spelling
    (`expansion.index_spellings`: with a hyphen inserted or removed, E-17 for the E17 of the
    fault-code table, RS485 for RS-485; a code's other spellings, E17 for E017; a code as
    the two words a chunk writes, ``error 9007`` for ERR9007; a code typed as two words as
    the one the index holds, e17 for ``E 17``: `expansion.joined_code`), else as the question writes
    it: the words are searched for the index's spelling already, and the identifier must be
    looked for in the same one. An identifier the index holds is left as written.
    `terms_of`: `Bm25.query_terms`, or a caller's memory of it."""
    if (spaced := spaced_parts(ident)) is not None:  # E 17 for the E17 the index holds
        return next(iter(joined_code(index, *spaced) or []), ident)
    _, ids, unknown = (terms_of or index.bm25.query_terms)(ident)
    if ids or len(unknown) != 1:
        return ident
    searched, covering = index_spellings(index, unknown[0])
    if not searched:
        return ident
    if covering == searched:
        return searched[0]
    return f"{searched[0]} {covering[0]}"  # the code as two words: prefix, number


def rarest_term(index: KbIndex, ident: str) -> int | None:
    """The BM25 id of the identifier's token held by the fewest chunks."""
    ids = identifier_terms(index, ident)
    return ids[int(np.argmin(index.bm25.share(ids)))] if ids else None


def identifier_holders(index: KbIndex, wanted: list[str], mask: np.ndarray | None,
                        models: list[str]) -> set[int]:
    """The chunks the question's vector models cannot see (no vector of theirs: another
    language's chunks) that hold one of its specific identifiers (the rarest token; at most
    IDENTIFIER_HOLDERS): they are ranked on wherever they rank (`unlisted_holders`). Such
    a chunk is reachable by words only, and the identifier is the one word it shares with
    the question: "What does error code E17 mean?" ranks the Chinese E17 row behind every
    English chunk sharing "error" and "code", and it must still be seen to be promoted.
    Chunks the vectors can see keep their ranks (promoting deep ones that merely have an
    identifier as heading cost tidb_faq_zh 3 of 248 top-1 answers)."""
    ids = [rarest for ident in wanted if (rarest := rarest_term(index, ident)) is not None]
    if not ids:
        return set()
    chunk_models = vector_models(index)  # a chunk sharing a section's vector is seen through it
    seen: dict[str, bool] = {}  # per models string: does a question model score the chunk
    out = set()
    for n in index.bm25.holders(ids, IDENTIFIER_HOLDERS):
        if mask is None or mask[n]:
            own = chunk_models[n]
            if own not in seen:
                seen[own] = bool(set(models) & set(own.split(",")))
            if not seen[own]:
                out.add(n)
    return out


def unlisted_holders(held: set[int], fused: fusion.Fused,
                      ranked: list[fusion.Hit]) -> list[fusion.Hit]:
    """The `held` chunks no candidate list holds, at score 0 (appended to the ranking)."""
    if not held:
        return []
    listed = set(fused.keys.tolist()) | {h.num for h in ranked}
    return [fusion.Hit(n, 0.0, {"bm25_rank": None, "bm25_score": None, "vector_rank": None,
                                "vector_score": None}) for n in sorted(held - listed)]


def identifier_level(wanted: list[str], row: dict[str, Any]) -> int:
    """How the chunk holds the question's specific identifiers (`match_level`)."""
    return match_level(wanted, *identifier_text(row))


# what `match_level` reads of a chunk: its text, its heading, the headings above it
IdentifierText = tuple[str, str, tuple[str, ...]]


class HitTexts:
    """The hits' `identifier_text`s (`hit_texts`) and, made once for every level asked of
    them, their `identifiers.Batch`."""

    def __init__(self, texts: dict[int, IdentifierText]):
        self.texts = texts
        read = list(texts.values())
        self.batch = Batch([t[0] for t in read], [t[1] for t in read], [t[2] for t in read])


def hit_texts(index: KbIndex, hits: list[fusion.Hit],
              rows: dict[int, dict[str, Any]]) -> HitTexts:
    """Each hit's `identifier_text`, in the order of `hits`, from the rows read already or
    else only the text and heading of its chunk (`Store.identifier_texts`, one query): read
    and normalised once per search for `identifier_levels` and `about_each` alike."""
    nums = list(dict.fromkeys(h.num for h in hits))
    texts = index.store.identifier_texts([n for n in nums if n not in rows])
    texts.update((n, identifier_text(rows[n])) for n in nums if n in rows)
    return HitTexts({n: texts[n] for n in nums})


def identifier_levels(wanted: list[str], texts: HitTexts,
                      unlisted: set[int] | frozenset[int] = frozenset()) -> dict[int, int]:
    """Each hit's `identifier_level`, from its `hit_texts`, looked through at once
    (`Batch.levels`); 0 for an `unlisted` hit (no retriever ranked it) holding less than
    half of the identifiers (`holds_enough`): it is not promoted above the ranked evidence."""
    levels = texts.batch.levels(wanted)
    return {n: level if n not in unlisted or holds_enough(level, len(wanted)) else 0
            for n, level in zip(texts.texts, levels, strict=True)}


def unranked(hits: list[fusion.Hit]) -> set[int]:
    """The hits no candidate list ranked (`unlisted_holders`, at score 0, perhaps collapsed
    to their section since)."""
    return {h.num for h in hits if h.score == 0.0 and h.why["bm25_rank"] is None
            and h.why["vector_rank"] is None}


# the most identifiers a question may name for each to keep a result of its own (a pasted
# log naming sixteen is about what it logs, not sixteen answers)
EACH_OWN_RESULT = 4


def about_each(wanted: list[str], texts: HitTexts | None) -> dict[int, str]:
    """For a question naming two to `EACH_OWN_RESULT` specific identifiers (``E12 和 E17
    分别是什么故障``): each hit about one of them -> the first it is about (`identifier_levels`
    asked of each alone), so that one section's rows about different identifiers are
    different answers; {} for any other question."""
    if texts is None or not 2 <= len(wanted) <= EACH_OWN_RESULT:
        return {}
    out: dict[int, str] = {}
    for ident in wanted:
        for num, level in identifier_levels([ident], texts).items():
            if level % 2 == 1:  # (`identifiers.is_about`)
                out.setdefault(num, ident)
    return out
