"""The link graph and anchor field of a local index, kept between processes.

Both are derived from a release's chunks on the first question that needs them (linked
pages and anchor text, `kbtools.query.neighbours`, `kbtools.query.anchors`): reading every
chunk's links, the sentences around them and tokenizing those — about 1 s at 54k chunks,
which a cold `kb query` would pay on every run. They are a pure function of the release
(its manifest, which holds the digest of every data file), the tokenizer (its fingerprint)
and this code (`VERSION` and the anchor field's settings), so they are kept as arrays under
KB_HOME keyed by a digest of all of those, written atomically, the newest `KEEP` kept. A
file that cannot be read or written only costs the derivation; an engine's index reads the
graph and anchor texts Milvus publishes and keeps nothing here.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np

from kbtools.cachedb import keep_newest
from kbtools.config import kb_home
from kbtools.fsutil import atomic_write_bytes
from kbtools.index.reader import KbIndex

VERSION = 1  # bump when how links resolve or how the anchor field is made changes
KEEP = 16  # files kept (a graph and an anchor field per release: a few releases)


def load(index: KbIndex, part: str, settings: object = None) -> dict[str, np.ndarray] | None:
    """The arrays kept for `part` of this index (None: not kept, or unreadable)."""
    path = _path(index, part, settings)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (OSError, ValueError, KeyError):
        return None


def save(index: KbIndex, part: str, arrays: dict[str, np.ndarray], settings: object = None) -> None:
    """Keep `arrays` for `part` of this index (best effort)."""
    path = _path(index, part, settings)
    if path is None:
        return
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    try:
        atomic_write_bytes(path, buf.getvalue())
        keep_newest(path, "*.npz", KEEP)  # the others by use
    except OSError:
        return


def _path(index: KbIndex, part: str, settings: object) -> Path | None:
    try:
        ident = json.dumps([VERSION, part, settings, index.bm25.tok.fingerprint(),
                            index.manifest], sort_keys=True, default=str)
    except (TypeError, ValueError):
        return None
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return kb_home() / "cache" / "links" / f"{digest}.{part}.npz"
