"""The quantities a knowledge base's decision tables take as inputs, knowledge-wide: a value
a question gives one of them is not a value of another table's generic input.

A greenhouse table's ``温度(℃)`` means the air in the greenhouse; a question's 油温80度 (or
``oil temperature 80 C``) is about the oil, which a word-by-word rule cannot tell from 棚内温度
(the place that table means). What tells them apart is the knowledge itself: 油温 is the name
of another table's input. `input_names` gathers the names of every decision table's inputs
(the header without its unit, the terms of its synonym group, and the short forms of each:
``oil temp`` for ``oil temperature``, `query.wording.ABBREVIATIONS`; 油温 for 油温度,
`CONTRACTIONS`); `Others` holds those that name none of one table's inputs, and says where a
question names one of them (`Others.spans`). `kbtools.query.inputs` then gives no value said
of such a name to that table: the input stays missing and the answer asks for it.

Pure.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kbtools.decision import column_key, normalize_text
from kbtools.decision.conditions import header_unit_start
from kbtools.query.values import compact
from kbtools.query.wording import ABBREVIATIONS, is_cjk

# In a Chinese compound a generic quantity's name may be cut to its first character: 油温 is
# 油温度, 水温 水温度. (full name, its short form in a compound)
CONTRACTIONS: tuple[tuple[str, str], ...] = (("温度", "温"),)


def key_text(header: str) -> str:
    """A header without its unit, as a question is compacted (``Seal temperature (°F)`` →
    ``seal temperature``)."""
    text = normalize_text(header)
    return compact(text[:header_unit_start(text)].strip() or text)


def input_names(headers: Iterable[str],
                synonyms: Mapping[str, Sequence[str]] = {}) -> frozenset[str]:
    """The names a question may give the input columns `headers` (of every decision table):
    each header without its unit and the other terms of its synonym group (keyed by
    `decision.column_key`), each with its short forms (`short_forms`), compacted as a
    question is."""
    out: set[str] = set()
    for header in headers:
        for name in (key_text(header), *(compact(s) for s in synonyms.get(column_key(header), ()))):
            if name:
                out.update(short_forms(name))
    return frozenset(out)


def short_forms(name: str) -> set[str]:
    """`name` and the forms of it a question may write instead: a trailing English word
    replaced by the other English terms of its `ABBREVIATIONS` group (``oil temp`` for ``oil
    temperature``, and back), a trailing Chinese name replaced by its form in a compound
    (`CONTRACTIONS`: 油温 for 油温度, and back). Only a qualified name (something before the
    replaced word) gets other forms."""
    out = {name}
    for group in ABBREVIATIONS:
        latin = [t for t in group if t.isascii()]
        for term in latin:
            head = name.removesuffix(" " + term)
            if head != name:
                out.update(f"{head} {other}" for other in latin if other != term)
    for full, short in CONTRACTIONS:
        if len(name) > len(full) and name.endswith(full):
            out.add(name[:-len(full)] + short)
        elif len(name) > len(short) and name.endswith(short):
            out.add(name[:-len(short)] + full)
    return out


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


@dataclass(frozen=True)
class Others:
    """The knowledge's input names that name none of one table's inputs (`of`), longest
    first, the names of that table's own inputs with their short forms (`own`), and the
    Chinese characters of those names as the table gives them (`own_chars`)."""

    names: tuple[str, ...] = ()
    own: frozenset[str] = frozenset()
    own_chars: frozenset[str] = frozenset()

    @classmethod
    @functools.lru_cache(maxsize=256)  # a table is read for many questions: made once
    def of(cls, vocabulary: frozenset[str], own: frozenset[str]) -> Others:
        """The names of `vocabulary` (`input_names`) that are not among `own`, the names of
        the table's inputs (`query.inputs.names_of`: with their parts and synonyms), nor
        short forms of them (``bearing temp`` of ``Bearing temperature``), nor the generic
        name one of them ends with (温度 of 油温度, as 油温 is written in full: 油的温度 may be
        the oil's)."""
        mine = frozenset(form for name in own for form in short_forms(name))
        return cls(tuple(sorted((n for n in vocabulary if n not in mine and
                                 not any(_ends_with(m, n) for m in mine)),
                                key=lambda n: (-len(n), n))), mine,
                   frozenset(ch for name in own for ch in name if is_cjk(ch)))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where compacted `text` names one of these (a Latin name as whole words), as (start,
        end), unless a longer name of the table's own covers it there (液压油温度 of the
        table holds 油温度 of another)."""
        out: list[tuple[int, int]] = []
        for name in self.names:
            at = text.find(name)
            while at >= 0:
                end = at + len(name)
                whole = not (_latin(name[0]) and at and _latin(text[at - 1])) and \
                    not (_latin(name[-1]) and _latin(text[end:end + 1]))
                if whole and not any(text.find(n, max(0, end - len(n)), at + len(n)) >= 0
                                     for n in self.own if len(n) > len(name)):
                    out.append((at, end))
                at = text.find(name, at + 1)
        return out


def _ends_with(name: str, part: str) -> bool:
    """Whether `name` ends with `part`, a longer name (an English one in whole words)."""
    return len(name) > len(part) and name.endswith(part) and \
        not (_latin(part[0]) and _latin(name[-len(part) - 1]))


def covered(spans: Iterable[tuple[int, int]], start: int, end: int) -> bool:
    """Whether one of `spans` (`Others.spans`) holds text[start:end] and is longer: the
    ``temperature`` of ``oil temperature`` is the oil's."""
    return any(s <= start and end <= e and e - s > end - start for s, e in spans)
