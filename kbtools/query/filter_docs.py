"""A ``doc=`` filter's value as the document path it names (`doc_value`: a path inside the
knowledge folder, ``crops/x.md``, as `read` takes it, names ``knowledge/crops/x.md``), and
the folders such a short path is tried under (`shared_folders`). Pure: the index's document
paths are given."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

from kbtools.errors import FilterError
from kbtools.query.filter_text import where_text

SHOWN_DOCS = 5  # documents an error about a `doc=` value names


def doc_value(op: str, want: str, names: Sequence[str]) -> str:
    """The document path a ``doc=`` / ``doc!=`` value stands for, among the index's document
    paths `names`: the value itself when a document has that path; else the one document it
    names by its path inside a knowledge folder (`shared_folders`), as `read` takes it
    (``crops/x.md`` for ``knowledge/crops/x.md``). A ``doc=`` value naming no document, or a
    short path naming several, is an error, not an empty result. Paths compare composed
    (NFC) and case-folded: a path copied on macOS (decomposed) names the document."""
    folded = _path_key(want)
    if any(_path_key(n) == folded for n in names):
        return want  # compared folded (`filter_kinds.fold`) by the mask and an engine alike
    shown = where_text("doc", op, want)
    folders = shared_folders(names)
    found = sorted({n for n in names for f in folders if _path_key(n) == _path_key(f"{f}/{want}")})
    if len(found) == 1:
        return found[0]
    if found:
        raise FilterError("bad", f"{shown}: names {len(found)} documents "
                          f"({', '.join(found[:SHOWN_DOCS])}); give the path as cited",
                          key="bad_where", values={"where": shown})
    if op == "!=":
        return want
    base = folded.rsplit("/", 1)[-1]
    alike = sorted(names, key=lambda n: _path_key(n).rsplit("/", 1)[-1] != base)  # stable
    more = ", …" if len(names) > SHOWN_DOCS else ""
    raise FilterError("bad", f"{shown}: no document {want!r} in this index; its "
                      f"documents include: {', '.join(alike[:SHOWN_DOCS])}{more}",
                      key="bad_where", values={"where": shown})


def _path_key(path: str) -> str:
    """A document path as ``doc=`` compares it: composed (NFC), case-folded."""
    return unicodedata.normalize("NFC", path).casefold()


def shared_folders(docs: Iterable[str]) -> tuple[str, ...]:
    """The folders on the way to the one every path of `docs` lies in, outermost first:
    ``("knowledge",)`` for ``knowledge/a.md`` and ``knowledge/crops/b.md``; ``()`` when they
    share none. An index keeps each document at its repository path without recording the
    knowledge folder: these are the folders a short path is tried under (``doc=`` filters
    here, `kbtools.agents.read.Knowledge.folders`)."""
    shared: list[str] = []
    for i, doc in enumerate(docs):
        parents = doc.split("/")[:-1]
        n = 0
        while n < min(len(shared), len(parents)) and shared[n] == parents[n]:
            n += 1
        shared = parents if i == 0 else shared[:n]
        if not shared:
            return ()
    return tuple("/".join(shared[:n]) for n in range(1, len(shared) + 1))
