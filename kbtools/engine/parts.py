"""A published release's ``__meta`` record read from the engine (`read_parts`), and whether
its rows were derived by this kb's rules (`published_problem`): what readers
(`kbtools.engine.remote`) and publishers (`kbtools.engine.publish`,
`kbtools.engine.lineage`) both ask of a release in the engine."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Collection
from typing import Any

from kbtools.engine import expr
from kbtools.engine.milvus import (
    BLOB_TIMEOUT,
    META_SUFFIX,
    P_FILTERS,
    Engine,
    published_derivation,
)
from kbtools.errors import EngineError
from kbtools.index.selfcheck import derivation_problem

PAGE_ROWS = 256  # meta rows read by one query: at most ~15 MB (pieces of 60,000 characters)


def check_derivation(engine: Engine, collection: str, manifest: dict[str, Any],
                     tag: str | None = None, props: dict[str, str] | None = None) -> None:
    """The release's BM25 terms and rows must be derived by this kb's rules, as the local
    index/ must be (`kbtools.index.selfcheck.derivation_problem`): the tokenizer version,
    the derivation rules and the tokenizer libraries its publisher recorded
    (`published_derivation`), and the rules its filter fields were stored by
    (`expr.filters_problem`): `published_problem`. Terms of others match a question silently
    worse; filter fields of others select other chunks than the local index's."""
    problem = published_problem(engine, collection, manifest, tag, props)
    if problem is not None:
        raise EngineError(f"{problem}; publish the release again with this kb (`kb publish "
                          "--engine … --index RELEASE`), or query with a kb of the "
                          "release's", path=str(engine.url))


def published_problem(engine: Engine, collection: str, manifest: dict[str, Any],
                      tag: str | None = None, props: dict[str, str] | None = None) -> str | None:
    """Why the published `collection` (of release `manifest`, tagged `tag`) is not derived
    by this kb's rules (None: it is): its terms and rows (`derivation_problem` of
    `published_derivation`) or its filter fields (`expr.filters_problem`). `props`: its
    properties as the caller read them (None: read now)."""
    props = engine.properties(collection) if props is None else props
    what = release_label(tag, collection) + " in the engine"
    return derivation_problem(published_derivation(props, manifest), what) or \
        expr.filters_problem(props.get(P_FILTERS), what)


def release_label(tag: str | None, collection: str) -> str:
    """How a message names a published release: its tag and collection."""
    return f"release {tag} ({collection})" if tag else f"release {collection}"


REQUIRED_PARTS = ("manifest", "docs", "vocab", "chunk_table", "fields")  # of every release


def read_parts(engine: Engine, collection: str, *, files: bool = False,
               only: Collection[str] | None = None,
               page_rows: int = PAGE_ROWS) -> dict[str, Any]:
    """The blobs of a release's ``__meta`` collection, decoded: every part (the ``files``
    part, which only the web app needs, with `files`), or the parts named in `only` (a
    check of a release's manifest reads no vocabulary, documents or pages). Read in pages
    of at most `page_rows` rows: a Milvus server bounds what one query returns
    (``quotaAndLimits.limits.maxOutputSize``, 100 MB by default), and the files of a
    release with tens of MB of PDFs are more than that. The keys of the parts read are
    listed first (a few bytes a row), then their rows fetched by key."""
    meta = collection + META_SUFFIX
    if only is not None:
        wanted = f"part in [{', '.join(expr.literal(p) for p in sorted(set(only)))}]"
    else:
        wanted = "seq >= 0" if files else 'part != "files"'
    listed = engine.call(f"reading {meta}", "query", meta, filter=wanted,
                         output_fields=["key"], consistency_level="Strong",
                         timeout=BLOB_TIMEOUT)
    keys = sorted(str(r["key"]) for r in listed)
    rows: list[dict[str, Any]] = []
    for i in range(0, len(keys), page_rows):
        page = keys[i:i + page_rows]
        got = engine.call(f"reading {meta}", "query", meta,
                          filter=f"key in [{', '.join(expr.literal(k) for k in page)}]",
                          output_fields=["part", "seq", "data"], consistency_level="Strong",
                          timeout=BLOB_TIMEOUT)
        if len(got) != len(page):
            raise EngineError(f"release {collection} changed in the engine while it was "
                              "read (pruned or published again?); try again",
                              path=str(engine.url), key="index_replaced")
        rows += got
    pieces: dict[str, list[tuple[int, str]]] = {}
    for r in rows:
        pieces.setdefault(r["part"], []).append((int(r["seq"]), r["data"]))
    out = {}
    for part, items in pieces.items():
        text = "".join(d for _, d in sorted(items))
        try:
            out[part] = json.loads(zlib.decompress(base64.b64decode(text)).decode("utf-8"))
        except (ValueError, zlib.error) as exc:  # binascii.Error, UnicodeError: ValueErrors
            raise EngineError(f"release {collection} is damaged in the engine (its {part!r} "
                              f"in {meta} cannot be read: {exc}); publish it again",
                              path=str(engine.url), key="engine_release_incomplete") from None
    needed = set(REQUIRED_PARTS) if only is None else set(only) & set(REQUIRED_PARTS)
    missing = needed - out.keys()
    if missing:
        raise EngineError(f"release {collection} is incomplete in the engine (no "
                          f"{', '.join(sorted(missing))}); publish it again",
                          path=str(engine.url), key="engine_release_incomplete")
    return out
