"""How a question may name a decision table's input column (`names_of`, remembered per header
and synonyms by `column_names`): its whole names, their leading and trailing parts, their
synonyms and the short forms of the quantity it measures (`kind_short_forms`). Read by
`kbtools.query.inputs`.

Pure.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache

from kbtools.decision import column_key
from kbtools.decision.model import name_parts
from kbtools.query.compacted import compact
from kbtools.query.fillers import strip_fillers
from kbtools.query.quantities import whole_names
from kbtools.query.wording import ABBREVIATIONS, Terms, is_cjk


def names_of(header: str, synonyms: Mapping[str, Sequence[str]] = {}) -> list[str]:
    """How a question may name an input column, longest first, compacted as the question is
    (`compacted.compact`): its whole names (`quantities.whole_names`: the header without its
    unit, its synonyms, the names of the quantity it measures), their leading and trailing parts
    (`decision.model.name_parts`, the rule `kb table eval` and MCP `evaluate_table` name a
    column by too: 湿度 for 相对湿度, ``temperature`` for ``Seal temperature``) that are
    not filler words alone, and the synonyms of those parts (软管 for ``Hose age`` when the
    synonyms file has 软管 = hose; ``humidity`` of ``relative humidity`` for 相对湿度)."""
    wholes = whole_names(header, synonyms)
    names = set(wholes)  # the parts of each, as of the header: ``humidity`` of the
    parts = {p for w in wholes for p in name_parts(w) if strip_fillers(p)}  # relative
    names |= parts | {compact(s) for p in parts for s in synonyms.get(column_key(p), ())}
    names |= kind_short_forms(wholes)
    return sorted((n for n in names if n), key=lambda n: (-len(n), n))


def kind_short_forms(wholes: Collection[str]) -> set[str]:
    """The short forms (`wording.ABBREVIATIONS`) of a kind of the quantity a column names
    alone (``rh``, of ``relative humidity``, for ``Humidity (%)`` and 湿度(%)): a field user
    writes ``RH 85`` of the humidity a table calls ``Humidity``. Only of a whole name that ends
    the written-out form as its last word (not ``absolute humidity``, which no form ends).
    The groups are compacted once (`_kinds`), not for each column a question's tables have."""
    return {short for forms, shorts in _kinds()
            if any(f != w and f.endswith(w) and (is_cjk(w[:1]) or f[-len(w) - 1] == " ")
                   for f in forms for w in wholes if w)
            for short in shorts}


@lru_cache(maxsize=1)
def _kinds() -> tuple[tuple[tuple[str, ...], frozenset[str]], ...]:
    """Each group of `wording.ABBREVIATIONS` as (its written-out forms, its one-word short
    forms), compacted as a question is: what `kind_short_forms` compares a column's names to."""
    return tuple((tuple(compact(t) for t in group if " " in t or is_cjk(t[:1])),
                  frozenset(compact(t) for t in group if t.isascii() and t.isalpha()))
                 for group in ABBREVIATIONS)


@lru_cache(maxsize=1024)
def column_names(header: str, synonyms: Terms) -> tuple[tuple[str, ...], frozenset[str]]:
    """(`names_of`, `whole_names`) of an input column's header, remembered: they depend on
    the header and the synonyms alone, and every search reading a table's inputs made them
    anew (0.5-0.9 ms of the example knowledge's 5.3 ms search)."""
    return tuple(names_of(header, synonyms)), frozenset(whole_names(header, synonyms))
