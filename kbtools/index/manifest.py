"""The index manifest: what a build produced and how to verify it.

A built index directory (``dist/``, or one release on a device; every path is named in
`kbtools.index.layout`) looks like::

    manifest.json            this file's subject; validated by manifest.schema.json
    data/...                 the release content, content-addressed or sharded so that
                             unchanged content stays byte-identical between releases
    index/...                derived files (usearch graph, BM25 matrices, SQLite store),
                             rebuilt deterministically from data/ by `kbtools.index.materialize`

``artifacts`` lists every file under data/, ``derived`` every file under index/, each with
sha256 and size. A release ships manifest.json + data/; a device re-derives index/ and can
check it against ``derived`` because builds are reproducible.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kbtools.errors import IndexLoadError
from kbtools.fsutil import atomic_write_bytes
from kbtools.index.layout import MANIFEST

FORMAT_VERSION = 1


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def list_files(root: Path, sub: str) -> dict[str, dict[str, Any]]:
    base = root / sub
    out: dict[str, dict[str, Any]] = {}
    if not base.is_dir():
        return out
    for path in sorted(p for p in base.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        out[rel] = {"sha256": sha256_file(path), "size": path.stat().st_size}
    return out


def dumps(manifest: dict[str, Any]) -> bytes:
    """Canonical bytes: sorted keys, fixed separators, trailing newline."""
    return (json.dumps(manifest, sort_keys=True, ensure_ascii=False, indent=1) + "\n").encode()


def write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    from kbtools.schemas import validator_for

    errors = list(validator_for("manifest").iter_errors(manifest))
    if errors:
        raise IndexLoadError(f"internal: manifest invalid: {errors[0].message}",
                             path=str(root / MANIFEST))
    atomic_write_bytes(root / MANIFEST, dumps(manifest))


def load_manifest(root: Path) -> dict[str, Any]:
    from kbtools.schemas import validator_for

    path = root / MANIFEST
    if not path.is_file():
        raise IndexLoadError("no manifest.json: not a kb index (run `kb build` or `kb sync`)",
                             path=str(root))
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise IndexLoadError(f"manifest is not valid JSON: {exc}", path=str(path)) from None
    if not isinstance(manifest, dict) or manifest.get("format_version") != FORMAT_VERSION:
        version = manifest.get("format_version") if isinstance(manifest, dict) else None
        raise IndexLoadError(
            f"index format version {version!r} is not supported (this kb reads {FORMAT_VERSION}); "
            "rebuild or sync a compatible release", path=str(path))
    errors = list(validator_for("manifest").iter_errors(manifest))
    if errors:
        err = errors[0]
        where = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        raise IndexLoadError(f"manifest invalid at {where}: {err.message}", path=str(path))
    return manifest


def verify_files(root: Path, manifest: dict[str, Any], *, derived: bool = True) -> list[str]:
    """Problems found comparing files on disk with the manifest (empty list = verified)."""
    problems = []
    sections = ["artifacts"] + (["derived"] if derived else [])
    for section in sections:
        for rel, meta in sorted(manifest.get(section, {}).items()):
            path = root / rel
            if not path.is_file():
                problems.append(f"{rel}: missing")
            elif path.stat().st_size != meta["size"]:
                problems.append(f"{rel}: size {path.stat().st_size} != {meta['size']}")
            elif sha256_file(path) != meta["sha256"]:
                problems.append(f"{rel}: sha256 mismatch")
    return problems
