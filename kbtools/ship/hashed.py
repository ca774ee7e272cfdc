"""The files of a device's release held to the size and sha256 something lists for them,
each hashed once per stat signature: the one place kbtools hashes them for an open, a prune
or `kb status`'s count of copies, and remembers what it hashed.

A file found as listed is remembered by its stat signature (device, inode, size,
modification and change times: an edit changes the change time, which no user can set
back) in ``<KB_HOME>/intact/``, one file per release, and hashed again only once that
signature changes. A file whose times are within `RACY_NS` of when it was hashed (it may
change again within the same timestamp tick) is not remembered. The cache is only ever a
reason to skip a hash: a missing, unreadable or unwritable cache means hashing again, never
trusting. `kbtools.ship.intact` holds every file of the served release to its manifest (and
index/ to its record) on each open; `kbtools.ship.readonly` holds a read-only device's
index/ to its record when deciding whether the copy that serves it is still needed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path

from kbtools.config import kb_home
from kbtools.errors import Keyed
from kbtools.fsutil import atomic_write_bytes
from kbtools.index.manifest import file_problem, named_problem
from kbtools.index.stamps import MISSING, Signature, signature

INTACT = "intact"  # under KB_HOME
RACY_NS = 1_000_000_000  # a guess at the file system's clock tick
MAX_CACHE_BYTES = 64 << 20

Check = Callable[[Path, str, int, str], Keyed | None]  # `manifest.file_problem`'s shape


def cache_file(release: Path) -> Path:
    """Where the signatures of `release`'s files found as listed are remembered."""
    return kb_home() / INTACT / (hashlib.sha256(str(release).encode()).hexdigest() + ".json")


def read_cache(release: Path) -> dict[str, Signature]:
    """The signatures remembered of `release`'s files found as listed ({} when none are, or
    the cache is not one kbtools wrote)."""
    try:
        path = cache_file(release)
        if path.stat().st_size > MAX_CACHE_BYTES:
            return {}
        got = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): (int(v[0]), int(v[1]), int(v[2]), int(v[3]), int(v[4]))
                for k, v in got.items()}
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return {}  # no cache, or not one we wrote: hash


def write_cache(release: Path, good: Mapping[str, Signature]) -> None:
    """Remember `good` (file -> signature found as listed) as all that is known of
    `release`; best effort (KB_HOME read-only or full: the next check hashes)."""
    try:
        path = cache_file(release)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, json.dumps(dict(good), sort_keys=True).encode())
    except OSError:
        pass


def held_problems(release: Path, listed: Mapping[str, tuple[int, str]],
                  known: Mapping[str, Signature], now: Mapping[str, Signature],
                  check: Check | None = None) -> tuple[list[str], dict[str, Signature]]:
    """What differs in `release`'s files `listed` (file -> (size, sha256)) from what lists
    them, hashing with `check` only those whose signature `now` is not the one `known`
    remembers as found as listed (default: `manifest.file_problem`); and the signatures of
    the files found as listed (those remembered, and those hashed and not changed
    meanwhile)."""
    check = check or file_problem
    found: list[str] = []
    good: dict[str, Signature] = {}
    for rel, (size, sha256) in sorted(listed.items()):
        sig = now[rel]
        if sig != MISSING and sig == known.get(rel):
            good[rel] = sig
            continue
        why = check(release, rel, size, sha256)
        if why is not None:
            found.append(named_problem(rel, why))
        elif sig != MISSING and signature(release / rel) == sig:  # not changed meanwhile
            good[rel] = sig
    return found, good
