"""Search filters: ``--where KEY OP VALUE`` parsed, checked against the index, and turned into
a mask of the chunks a search may return (with ``--verified-only``)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from kbtools.errors import UsageError, valid_unicode
from kbtools.index.reader import ChunkTable, KbIndex

_WHERE = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*(>=|<=|!=|=)(.*)$")  # value stripped below
MAX_WHERE_CHARS = 1000
CHUNK_KEYS = {"doc", "kind"}


def parse_where(items: list[str] | None) -> list[tuple[str, str, str]]:
    """``KEY=VALUE``, ``KEY!=VALUE``, ``KEY>=VALUE``, ``KEY<=VALUE`` → (key, op, value).

    What would silently match nothing is an error instead: a doubled or unknown operator
    (``crop==x``, ``crop=>x``, ``crop=<x``: the value would start with the operator's
    rest) and an empty value. A value in matching quotes (``crop="小麦"``) loses them."""
    out: list[tuple[str, str, str]] = []
    for item in items or []:
        item = valid_unicode(str(item))
        m = _WHERE.match(item) if len(item) <= MAX_WHERE_CHARS else None
        shown = item if len(item) <= 60 else item[:60] + "…"
        if not m:
            raise UsageError(f"bad --where {shown!r}: use KEY=VALUE, KEY!=VALUE, KEY>=VALUE or "
                             f"KEY<=VALUE (at most {MAX_WHERE_CHARS} characters)")
        key, op, value = m.group(1), m.group(2), m.group(3).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1].strip()  # quotes that reached us through a second shell layer
        if value[:1] in ("=", "<", ">", "!"):
            bad = op + value[: 1 + (value[1:2] in ("=", "<", ">"))]
            raise UsageError(f"bad --where {shown!r}: {bad!r} is not an operator; use "
                             f"{key}=VALUE, {key}!=VALUE, {key}>=VALUE or {key}<=VALUE")
        if not value:
            raise UsageError(f"bad --where {shown!r}: no value after {op!r}")
        out.append((key, op, value))
    return out


def _compare(value: Any, op: str, want: str) -> bool:
    if isinstance(value, list):
        if op in ("=", "!="):
            hit = any(_compare(v, "=", want) for v in value)
            return hit if op == "=" else not hit
        return any(_compare(v, op, want) for v in value)
    if isinstance(value, bool):
        value = "true" if value else "false"
    if value is None:
        return op == "!="
    sval = str(value)
    if op == "=":
        return sval.casefold() == want.casefold()
    if op == "!=":
        return sval.casefold() != want.casefold()
    try:
        a, b = float(sval), float(want)
    except ValueError:  # ISO dates compare correctly as strings
        return sval >= want if op == ">=" else sval <= want
    return a >= b if op == ">=" else a <= b


def filter_mask(index: KbIndex, where: list[tuple[str, str, str]], verified_only: bool) -> np.ndarray | None:
    if not where and not verified_only:
        return None
    docs = index.docs()
    table = index.chunk_table()
    known = set(CHUNK_KEYS) | {"verified"} | {k for d in docs for k in d["metadata"]}
    doc_ok = np.ones(len(docs), dtype=bool)
    chunk_ok = np.ones(len(table.doc), dtype=bool)
    for key, op, want in where:
        if key not in known:
            raise UsageError(f"unknown --where key {key!r}; known keys: {', '.join(sorted(known))}")
        _check_value(key, op, want, table)
        if key == "kind":
            chunk_ok &= np.array([_compare(k, op, want) for k in table.kind], dtype=bool)
        elif key == "verified":  # per chunk, as decided by the build (not the front matter)
            chunk_ok &= np.array([_compare(bool(v), op, want) for v in table.verified], dtype=bool)
        elif key == "doc":
            doc_ok &= np.array([_compare(d["doc"], op, want) for d in docs], dtype=bool)
        else:
            doc_ok &= np.array([_compare(d["metadata"].get(key), op, want) for d in docs], dtype=bool)
    if verified_only:
        chunk_ok &= table.verified
    mask: np.ndarray = chunk_ok & doc_ok[table.doc]
    return mask


def _check_value(key: str, op: str, want: str, table: ChunkTable) -> None:
    """Closed-set keys: a value they can never have is an error, not an empty result."""
    if key == "verified" and (op not in ("=", "!=") or want.casefold() not in ("true", "false")):
        raise UsageError(f"bad --where {key}{op}{want}: use verified=true or verified=false")
    if key == "kind" and op == "=":
        kinds = sorted({str(k) for k in table.kind})
        if want.casefold() not in {k.casefold() for k in kinds}:
            raise UsageError(f"bad --where {key}{op}{want}: no chunk of kind {want!r} in this "
                             f"index; its kinds: {', '.join(kinds)}")
