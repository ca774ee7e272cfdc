"""Configuration keys named with their sections (``raftstore.store-pool-size``,
`kbtools.query.identifiers.is_dotted_key`) in a search: configuration documentation defines
such a key by its headings (the section, then the key under it) and may never write it
whole, so the key is searched by its parts as the index spells them (`identifier_terms`),
the chunks whose heading path names it join the ranking (`key_definitions`; ranked first as
*about* it, `kbtools.query.identifiers.match_level`), and a key the index has no token for
but one of the best hits defines is no unknown setting name (`named_keys`, for the
no-answer rule `kbtools.query.fusion.unknown_name`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.index.store import identifier_text
from kbtools.query.fusion import JUDGED, Hit
from kbtools.query.identifiers import is_dotted_key, text_names

# `Bm25.query_terms` of a text, or a caller's memory of it: (known terms, ids, unknown terms)
TermsOf = Callable[[str], tuple[list[str], list[int], list[str]]]


def identifier_terms(index: KbIndex, ident: str, terms_of: TermsOf | None = None) -> list[int]:
    """The BM25 ids of the identifier's tokens (`terms_of`: `Bm25.query_terms`, or a
    caller's memory of it); a dotted key's (`is_dotted_key`) also of
    its parts, as the index spells them where it names the key by its heading path
    (``raftstore`` › ``store-pool-size`` for ``raftstore.store-pool-size``, which it may
    never write whole)."""
    _, ids, _ = (terms_of or index.bm25.query_terms)(ident)
    if is_dotted_key(ident):
        _, parts, _ = index.bm25.query_terms(" ".join(ident.split(".")))
        ids = list(dict.fromkeys([*ids, *parts]))
    return ids


# At most this many chunks holding a dotted key's parts are looked at for their heading path.
KEY_HOLDERS = 40


def key_definitions(index: KbIndex, wanted: list[str], mask: np.ndarray | None) -> set[int]:
    """The chunks whose heading path names one of the question's dotted keys
    (`text_names`: the key's section and name as headings, where configuration
    documentation defines it), from the KEY_HOLDERS chunks best holding the key's parts
    (the path is part of a chunk's indexed text): they are ranked on wherever they rank, as
    the defining chunk of ``tikv-client.grpc-connection-count`` is held by neither the
    question's BM25 terms (it never writes the key whole) nor always by its vectors."""
    out: set[int] = set()
    for ident in wanted:
        if not is_dotted_key(ident):
            continue
        _, ids, _ = index.bm25.query_terms(" ".join(ident.split(".")))
        nums = [n for n in index.bm25.holders(ids, KEY_HOLDERS) if mask is None or mask[n]]
        texts = index.store.identifier_texts(nums)
        out.update(n for n, (body, heading, parents) in texts.items()
                   if text_names(ident, body, heading, parents))
    return out


def named_keys(index: KbIndex, unknown: list[str], wanted: list[str], picked: list[Hit],
               rows: dict[int, dict[str, Any]],
               read: Mapping[int, tuple[str, str, tuple[str, ...]]] | None = None) -> list[str]:
    """The unknown terms that are not unknown after all: a dotted key the index never writes
    whole (its one token is no BM25 term) but one of the best hits names by its heading
    path (`text_names`). `read`: hits' `identifier_text`s the search has read already."""
    keys = {t: i for i in wanted if is_dotted_key(i) for t in index.bm25.tok(i) if t in unknown}
    if not keys:
        return []
    best = picked[:JUDGED]
    known = read or {}
    texts = index.store.identifier_texts([h.num for h in best
                                          if h.num not in rows and h.num not in known])
    texts.update((h.num, known[h.num]) for h in best if h.num in known)
    texts.update((h.num, identifier_text(rows[h.num])) for h in best if h.num in rows)
    return [t for t, ident in keys.items() if any(text_names(ident, *texts[h.num])
                                                  for h in best if h.num in texts)]
