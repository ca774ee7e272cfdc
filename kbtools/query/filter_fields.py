"""What an index's documents and chunks give the filters' keys: a document's front-matter
values as filters read them (`document_facts`, with the tags its text writes), the keys a
filter may name (`filter_keys`), the chunks' kinds, and whether a key's values are dates
(`key_reads_dates`). Made once per opened index; read by the masks (`filters`), the checks
of a filter (`filter_checks`) and an engine's rows and expressions alike."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from kbtools.index.reader import ChunkTable, KbIndex
from kbtools.markdown.tags import BODY_TAGS_KEY, with_body_tags
from kbtools.query.filter_kinds import reads_dates
from kbtools.query.filter_numbers import quantity
from kbtools.query.filter_text import Condition
from kbtools.query.filter_units import DEGREES, celsius, reads_temperatures

CHUNK_KEYS = {"doc", "kind"}


def document_facts(d: dict[str, Any]) -> dict[str, Any]:
    """A document record's front-matter values as filters read them: its `metadata`, with
    the Obsidian tags its text writes (`body_tags`) added to `tags` (Obsidian counts both
    as the note's tags; the record's front matter stays as written)."""
    body = d.get("body_tags")
    if not body:
        meta: dict[str, Any] = d["metadata"]
        return meta  # not copied: read, never changed (a filter runs it per document)
    return {**d["metadata"],
            BODY_TAGS_KEY: with_body_tags(d["metadata"].get(BODY_TAGS_KEY), body)}


class _Kinds:
    """The kinds of an index's chunks: each distinct one once (`names`, sorted) and, per
    chunk, the position of its kind there (`codes`)."""

    def __init__(self, table: ChunkTable):
        names, codes = np.unique(table.kind.astype(str), return_inverse=True)
        self.names: list[str] = [str(k) for k in names]
        self.codes: np.ndarray = codes.reshape(-1)


_KINDS: weakref.WeakKeyDictionary[KbIndex, _Kinds] = weakref.WeakKeyDictionary()
_DATED: weakref.WeakKeyDictionary[KbIndex, dict[str, bool]] = weakref.WeakKeyDictionary()
_WARM: weakref.WeakKeyDictionary[KbIndex, dict[str, bool]] = weakref.WeakKeyDictionary()
_KEYS: weakref.WeakKeyDictionary[KbIndex, frozenset[str]] = weakref.WeakKeyDictionary()


def chunk_kinds(index: KbIndex) -> _Kinds:
    """`index`'s chunk kinds, made once per opened index (an index does not change)."""
    if index not in _KINDS:
        _KINDS[index] = _Kinds(index.chunk_table())
    return _KINDS[index]


def key_reads_dates(index: KbIndex, key: str) -> bool:
    """Whether the filters on front-matter `key` read a value as a date, a period or an
    instant in `index` (`filter_kinds.reads_dates` of its values in every document: not
    in a field of part numbers, ``model=3000-12``); a chunk's own key never does. Decided
    once per index and key, for the local mask and an engine's expression alike."""
    return _per_key(_DATED, reads_dates, index, key)


def key_reads_temperatures(index: KbIndex, key: str) -> bool:
    """Whether front-matter `key`'s values in `index` are temperatures
    (`filter_units.reads_temperatures`: ``温度: 25℃``), so that a filter's or a document's
    ``20度`` is 20 ℃ there (`filter_units.celsius`); a chunk's own key never is. Decided once
    per index and key."""
    return _per_key(_WARM, reads_temperatures, index, key)


def _per_key(known_by_index: weakref.WeakKeyDictionary[KbIndex, dict[str, bool]],
             reads: Callable[[Iterable[str]], bool], index: KbIndex, key: str) -> bool:
    """`reads` of front-matter `key`'s values (each scalar as text) in every document of
    `index`, kept in `known_by_index` per index and key; false for a chunk's own key."""
    if key in CHUNK_KEYS or key == "verified":
        return False
    known = known_by_index.setdefault(index, {})
    if key not in known:
        known[key] = reads(str(v) for d in index.docs()
                           for v in scalars([document_facts(d).get(key)]))
    return known[key]


def in_celsius(value: Any) -> Any:
    """A document's value (a list: each member, at any depth) with each number of ``度`` as
    degrees Celsius (`filter_units.celsius`), for a field of temperatures."""
    if isinstance(value, list):
        return [in_celsius(v) for v in value]
    return celsius(value) if isinstance(value, str) else value


def degrees_as_celsius(index: KbIndex, where: Iterable[Condition]) -> list[str]:
    """The document values a filter of `where` reads as degrees Celsius though they write
    ``度`` alone (`in_celsius`: a field with a temperature among its values, ``角度: 30度``
    beside another document's ``角度: 25℃``): an angle read so would be compared with
    temperatures silently, so every surface names them, each once as ``key: value (doc)``."""
    said: dict[str, None] = {}
    for key in dict.fromkeys(key for key, _, _ in where):
        if not key_reads_temperatures(index, key):
            continue
        for d in index.docs():
            for held in scalars([document_facts(d).get(key)]):
                if isinstance(held, str) and (amount := quantity(held)) is not None \
                        and amount[0] == DEGREES:
                    said[f"{key}: {held} ({d['doc']})"] = None
    return list(said)


def undated_keys(index: KbIndex, where: Iterable[Condition]) -> frozenset[str]:
    """The keys of `where` whose values `index` reads as text, never dates
    (`key_reads_dates`), as an engine's expression is told them (`kbtools.engine.expr`)."""
    return frozenset(key for key, _, _ in where if not key_reads_dates(index, key))


def filter_keys(index: KbIndex) -> frozenset[str]:
    """The keys a filter may name in `index`: the chunk's own (``doc``, ``kind``,
    ``verified``), every front-matter key a document gives and ``tags`` where a document's
    text writes a tag (`document_facts`; made once per index)."""
    if index not in _KEYS:
        _KEYS[index] = frozenset(CHUNK_KEYS | {"verified"} |
                                 {k for d in index.docs() for k in document_facts(d)})
    return _KEYS[index]


def scalars(values: Iterable[Any]) -> Iterable[Any]:
    """The values of a front-matter value: a list's members at any depth, no None."""
    for v in values:
        if isinstance(v, list):
            yield from scalars(v)
        elif v is not None:
            yield v
