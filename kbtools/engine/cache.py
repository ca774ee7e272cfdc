"""The local copy of what a release in Milvus holds besides its chunks: its files.

Milvus holds vectors, chunk rows and the ``__meta`` blobs; the readers also need files.
MCP ``read`` needs the Markdown sources, the web app (`kb serve --engine`) the formula SVGs,
shipped images and table CSVs too. They are published in the release's own ``__meta``
collection (parts ``sources`` and ``files``, `kbtools.engine.rows`), so they always belong
to exactly the release the alias names. `release_root` writes them once per collection
under ``<KB_HOME>/engine/<host>_<port>_<db>/<collection>/`` in the layout of a release
directory (``manifest.json``, ``release.json``, ``verified.json``, ``data/…``), so the code
that serves a local release serves this one unchanged.

Before anything is written, the manifest text must hash to the collection's ``kb.manifest``
property, and every file must match the size and sha256 the manifest lists for it; a
mismatch is an EngineError (the release in the engine is damaged). A marker file written
last per kind (``.complete`` for sources, ``.files-complete`` for files) makes a half-written
copy (an interrupted process) be written again, never used.

The copy also keeps the rest of the ``__meta`` record a reader opened (`kept_parts`,
``.parts.json``: vocabulary, documents, per-chunk arrays, manifest — not the sources and
files it writes out): `kb query --engine` runs once per question, and read the whole
record (~12 MB for a 24,000-chunk release, its Markdown sources most of it) from the engine
on every run. It is used only for the publication it was read of — the collection's
manifest hash and the time it was marked complete (``kb.manifest``, ``kb.published``,
both properties a reader reads anyway), so a release published again into its collection
is read anew —, only beside a complete copy of the files (the markers), and only while the
engine still holds the ``__meta`` it copies (a release whose record is gone is incomplete,
and its readers are told so as before).

What telling releases apart reads of a release (`kbtools.engine.lineage.Seen`: its manifest,
which names the commit it was built from, and its signer) is kept the same way, per
publication (``.seen.json``, `kept_seen`): `kb query --engine … --commit C` (or ``--release
TAG`` where the engine holds the tag twice) read the manifest of every release it might
name on every run. A kept manifest is used only while it hashes to the publication's.

A copy is removed once its collection is gone from the engine (`forget_gone`, when a reader
opens the release an alias moved to): pruned by ``keep`` or dropped, no reader can search
it, and an app host following the alias kept every release's copy it ever served.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from collections.abc import Collection
from pathlib import Path
from typing import Any

from kbtools.beneath import atomic_write_beneath
from kbtools.config import kb_home
from kbtools.engine.milvus import META_SUFFIX, P_COMPLETE, P_MANIFEST, P_PUBLISHED, Engine
from kbtools.engine.parts import REQUIRED_PARTS
from kbtools.errors import EngineError
from kbtools.fsutil import sync_tree
from kbtools.index.layout import (
    DATA_DIR,
    FORMULA_DIR,
    MANIFEST,
    RELEASE_JSON,
    SOURCE_DIR,
    TABLE_DIR,
    VERIFIED,
)
from kbtools.index.manifest import path_problem

SOURCES_DONE = ".complete"
PARTS_KEPT = ".parts.json"  # the ``__meta`` record read, of one publication (`kept_parts`)
SEEN_KEPT = ".seen.json"  # what `lineage.Seen` read of one publication (`kept_seen`)
WRITTEN_OUT = ("sources", "files")  # parts the copy holds as files, not in PARTS_KEPT
FILES_DONE = ".files-complete"
SOURCE_DIR_REL = f"{DATA_DIR}/{SOURCE_DIR}"
MARKDOWN = (".md", ".markdown")
# release files the web app serves: formula SVGs, table CSVs, and what data/source holds
# besides Markdown (images), which is published as the ``sources`` part
FILE_DIRS = (f"{DATA_DIR}/{FORMULA_DIR}/", f"{DATA_DIR}/{TABLE_DIR}/", f"{SOURCE_DIR_REL}/")


def is_app_file(rel: str) -> bool:
    """A manifest artifact published as part ``files``."""
    return rel.startswith(FILE_DIRS) and not rel.lower().endswith(MARKDOWN)


def encode_files(root: Path, manifest: dict[str, Any]) -> dict[str, str]:
    """The ``files`` part of a verified release at `root`: path → base64 bytes."""
    out = {}
    for rel in sorted(manifest.get("artifacts", {})):
        if is_app_file(rel):
            out[rel] = base64.b64encode((root / rel).read_bytes()).decode("ascii")
    return out


def cache_dir(engine: Engine, collection: str) -> Path:
    url = engine.url
    return kb_home() / "engine" / f"{url.host}_{url.port}_{url.db}" / collection


def forget_gone(engine: Engine, held: Collection[str], listed_at: float) -> list[str]:
    """Remove the local copies of the engine's collections that are not among `held` (its
    collections as listed at time `listed_at`), unless written to since (a reader opening a
    collection published after the listing). Returns the collections whose copy went."""
    top = cache_dir(engine, "x").parent
    gone = []
    try:
        entries = list(top.iterdir())
    except OSError:
        return []
    for entry in entries:
        try:
            if entry.name in held or not entry.is_dir() or entry.is_symlink() or \
                    entry.stat().st_mtime >= listed_at:
                continue
        except OSError:
            continue
        shutil.rmtree(entry, ignore_errors=True)
        gone.append(entry.name)
    return gone


def release_root(engine: Engine, collection: str, parts: dict[str, Any],
                 props: dict[str, str] | None = None) -> Path:
    """A local release directory holding the files of `collection` that `parts` carries
    (see the module docstring); the engine's URL when it cannot be written (then documents
    and files are simply not found). `props`: the collection's properties as read before
    `parts` (None: read now)."""
    root = cache_dir(engine, collection)
    want_files = "files" in parts
    if (root / SOURCES_DONE).is_file() and (not want_files or (root / FILES_DONE).is_file()):
        return root
    manifest_text: str = parts["manifest"]
    listed = json.loads(manifest_text).get("artifacts", {})
    _check_manifest(engine, collection, manifest_text, props)
    try:
        root.mkdir(parents=True, exist_ok=True)
        atomic_write_beneath(root, MANIFEST, manifest_text.encode("utf-8"))
        if parts.get("release"):
            atomic_write_beneath(root, RELEASE_JSON, parts["release"].encode("utf-8"))
        if parts.get("verified"):
            atomic_write_beneath(root, VERIFIED, json.dumps(parts["verified"]).encode("utf-8"))
        # each file replaced atomically but not fsynced one by one (two fsyncs a file took
        # 15 s for 1,104 sources under load: the first question of a release waited on
        # it); one `sync_tree` makes them durable before the marker says the copy is whole
        if not (root / SOURCES_DONE).is_file():
            for doc, text in (parts.get("sources") or {}).items():
                rel = f"{SOURCE_DIR_REL}/{doc}"
                if path_problem(rel) is None:
                    atomic_write_beneath(root, rel, text.encode("utf-8"), durable=False)
            sync_tree(root)
            atomic_write_beneath(root, SOURCES_DONE, b"")
        if want_files:
            for rel, data in parts["files"].items():
                raw = base64.b64decode(data)
                _check_file(engine, collection, rel, raw, listed.get(rel))
                atomic_write_beneath(root, rel, raw, durable=False)
            sync_tree(root)
            atomic_write_beneath(root, FILES_DONE, b"")
    except OSError:
        return Path(f"{engine.url}/{collection}")
    return root


def publication(props: dict[str, str]) -> list[str] | None:
    """What names one publication of a release collection whose properties are `props`: its
    manifest hash and the time it was marked complete (None: not complete, or published by
    a kbtools that recorded no time)."""
    if props.get(P_COMPLETE) != "1" or not props.get(P_MANIFEST) or not props.get(P_PUBLISHED):
        return None
    return [props[P_MANIFEST], props[P_PUBLISHED]]


def kept_parts(engine: Engine, collection: str, props: dict[str, str], *,
               files: bool = False) -> dict[str, Any] | None:
    """The ``__meta`` record of `collection` as a reader kept it (`keep_parts`), when it was
    read of the publication `props` (the collection's properties, read now) names and the
    copy's files are complete (with `files`, the app's too); else None (read it from the
    engine)."""
    root = cache_dir(engine, collection)
    want = publication(props)
    if want is None or not (root / SOURCES_DONE).is_file() or (
            files and not (root / FILES_DONE).is_file()):
        return None
    try:
        record = json.loads((root / PARTS_KEPT).read_bytes())
    except (OSError, ValueError):  # none kept, or cut short: read from the engine
        return None
    if not isinstance(record, dict) or record.get("publication") != want:
        return None
    parts = record.get("parts")
    if not isinstance(parts, dict) or any(p not in parts for p in (*REQUIRED_PARTS, "release")):
        return None
    # only while the engine still holds the record kept (a release whose __meta is gone is
    # not complete: its readers are told so, kept record or not)
    if not engine.call("checking a collection", "has_collection", collection + META_SUFFIX):
        return None
    return parts


def keep_parts(engine: Engine, collection: str, props: dict[str, str],
               parts: dict[str, Any]) -> None:
    """Keep `parts` (`read_parts` of `collection`, read after its properties `props`) for the
    next reader of the same publication (`kept_parts`); nothing when it cannot be written."""
    want = publication(props)
    if want is None:
        return
    record = {"publication": want,
              "parts": {k: v for k, v in parts.items() if k not in WRITTEN_OUT}}
    root = cache_dir(engine, collection)
    try:
        root.mkdir(parents=True, exist_ok=True)
        atomic_write_beneath(root, PARTS_KEPT,
                             json.dumps(record, ensure_ascii=False).encode("utf-8"))
    except OSError:
        pass


def kept_seen(engine: Engine, collection: str, publication: list[Any]) -> dict[str, str]:
    """The parts of `collection` (``manifest``, ``signer``) a reader kept of the publication
    `publication` ([manifest hash, time marked complete]: `lineage.stamp`), by name; none
    when it kept none of it, or a manifest that does not hash to the publication's."""
    try:
        record = json.loads((cache_dir(engine, collection) / SEEN_KEPT).read_bytes())
    except (OSError, ValueError):  # none kept, or cut short: read from the engine
        return {}
    parts = record.get("parts") if isinstance(record, dict) else None
    if record.get("publication") != publication or not isinstance(parts, dict):
        return {}
    kept = {k: v for k, v in parts.items() if isinstance(k, str) and isinstance(v, str)}
    text = kept.get("manifest")
    if text is not None and hashlib.sha256(text.encode("utf-8")).hexdigest() != publication[0]:
        del kept["manifest"]
    return kept


def keep_seen(engine: Engine, collection: str, publication: list[Any], part: str,
              text: str) -> None:
    """Keep `part` of `collection`, read of `publication`, for the next reader
    (`kept_seen`); nothing when it cannot be written."""
    parts = {**kept_seen(engine, collection, publication), part: text}
    root = cache_dir(engine, collection)
    try:
        root.mkdir(parents=True, exist_ok=True)
        atomic_write_beneath(root, SEEN_KEPT, json.dumps(
            {"publication": publication, "parts": parts}, ensure_ascii=False).encode("utf-8"))
    except OSError:
        pass


def _check_manifest(engine: Engine, collection: str, text: str,
                    props: dict[str, str] | None) -> None:
    want = (engine.properties(collection) if props is None else props).get(P_MANIFEST)
    if want != hashlib.sha256(text.encode("utf-8")).hexdigest():
        raise EngineError(f"the manifest stored with {collection} does not hash to the "
                          "collection's kb.manifest; the release in the engine is damaged, "
                          "publish it again", path=str(engine.url))


def _check_file(engine: Engine, collection: str, rel: str, raw: bytes,
                meta: dict[str, Any] | None) -> None:
    why = None
    if path_problem(rel) is not None or not is_app_file(rel):
        why = "is not a release file the app serves"
    elif meta is None:
        why = "is not listed in its manifest"
    elif len(raw) != meta.get("size") or hashlib.sha256(raw).hexdigest() != meta.get("sha256"):
        why = "does not match its manifest"
    if why is not None:
        raise EngineError(f"file {rel!r} stored with {collection} {why}; the release in the "
                          "engine is damaged, publish it again", path=str(engine.url))
