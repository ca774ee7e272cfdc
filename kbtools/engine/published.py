"""The release a search asks for by tag or commit (`kb query --engine … --release TAG`, MCP
`search` and ``/api/search`` with ``release``/``commit`` when an engine is read), found among
the releases the engine holds: those `keep` left of the knowledge base the alias serves
(`bases.of_base`, and not an unnamed twin's: `lineage.served_releases`), complete. A
device's kept releases are its ``releases/`` directories (`kbtools.agents.asked`); an
engine's are its collections, so a citation of the release before the last publish is
still searched in the release it came from, and one pruned or never published is named in
one line with those that are.

A server (`kb serve --engine`, `kb mcp --engine`) keeps each earlier release it opened
(`EarlierReleases`), per collection and publication: its ``__meta`` (vocabulary, documents,
per-chunk arrays) is read once, not on every search asking for it. Each search still lists
the engine's releases (one call a collection, no ``__meta`` read), so a release dropped since
is named gone, and one published again (its collection loaded anew: another publication time
or manifest hash) is opened anew; what is no longer listed complete is let go.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from kbtools.engine.bases import of_base
from kbtools.engine.lineage import (
    Seen,
    Stamp,
    served_commit,
    served_manifest,
    served_releases,
    stamp,
)
from kbtools.engine.milvus import P_BASE, Engine
from kbtools.engine.parts import published_problem
from kbtools.errors import EngineError, UsageError


def find_published(engine: Engine, served: str, commit: str | None, tag: str | None,
                   seen: Seen | None = None) -> tuple[str | None, str, dict[str, Stamp]]:
    """(the collection of the release `tag` (or collection) and/or `commit` (a prefix,
    lower case) names among the engine's complete releases of the knowledge base collection
    `served` is of, ""), or (None, one line saying it is not published there and naming those that are).
    UsageError when `tag` and `commit` name two releases, or a commit prefix
    several. Also the `stamp` of each complete release of that knowledge base. `seen` keeps
    what was read of each publication (its manifest, which names its commit; what telling
    its releases from an unnamed twin's read: `served_releases`)."""
    base = (engine.listed_properties(served) or {}).get(P_BASE) or None
    complete = [r for r in engine.releases() if r["complete"]]
    mine, _ = served_releases(engine, of_base(complete, base), served, base, (Path.cwd(),),
                              seen)
    # a release without a tag (a local build) is named by its collection, as the line
    # below lists it and as `kb rollback --engine` takes it
    tagged = [r for r in mine if tag is None or tag in (r["tag"], r["collection"])]
    commits_of = {r["collection"]: served_commit(engine, r["collection"], seen) or ""
                  for r in (tagged if commit is not None else [])}
    stamps = {r["collection"]: stamp(r) for r in mine}
    found = [r for r in tagged if commit is None
             or commits_of[r["collection"]].lower().startswith(commit)]
    if tag is not None and commit is not None and not found and tagged:
        raise UsageError(f"release {tag} is commit {commits_of[tagged[-1]['collection']][:12]}, "
                         f"not {commit}: give the release or the commit alone")
    if commit is not None and len({commits_of[r["collection"]] for r in found}) > 1:
        raise UsageError(f"commit {commit} names {len(found)} releases published in "
                         f"{engine.url} (" + ", ".join(
                             f"{r['tag'] or r['collection']}: {commits_of[r['collection']][:12]}"
                             for r in found) + "): give more of its digits or the release tag")
    if found:
        return _usable(engine, found, seen), "", stamps
    what = f"release {tag}" if tag else f"commit {commit}"
    if tag and commit:
        what += f" (commit {commit})"
    have = ", ".join(dict.fromkeys(r["tag"] or r["collection"] for r in reversed(mine)))
    return None, (f"{what} is not published in {engine.url} (published there, newest "
                  f"first: {have or 'none'}; pruned beyond [release] keep, or never "
                  "published: `kb publish --engine … --index RELEASE` loads it without "
                  "moving the alias)"), stamps


def _usable(engine: Engine, found: list[dict[str, Any]], seen: Seen | None) -> str:
    """The collection to search of one release published in `found` (oldest first): the
    newest one derived by this kb's rules (a kb of another tokenizer may have published the
    release again), else the newest (whose reader then says what is wrong)."""
    if len(found) == 1:
        return str(found[0]["collection"])
    for r in reversed(found):
        try:
            manifest = served_manifest(engine, r["collection"], seen)
        except EngineError:
            continue
        if manifest is not None and published_problem(
                engine, r["collection"], json.loads(manifest), r["tag"]) is None:
            return str(r["collection"])
    return str(found[-1]["collection"])


class Kept(Protocol):
    """An opened release that its holder, not its user, closes while `kept`."""

    kept: bool

    def close(self) -> None: ...


K = TypeVar("K", bound=Kept)


class EarlierReleases(Generic[K]):
    """The earlier releases a served one's searches asked for, opened once per publication
    (`stamp`) and kept while the engine lists them complete (see the module docstring).
    `opener` opens a collection (`kbtools.engine.remote.MilvusIndex`); an index kept here
    is closed when it is let go, not by the search that used it (the close of a kept
    one does nothing: `Kept`)."""

    def __init__(self, engine: Engine, opener: Callable[[str], K]):
        self.engine, self._opener = engine, opener
        self._lock = threading.Lock()
        self._open: dict[str, tuple[Stamp, K]] = {}
        self._seen = Seen(engine)  # what was read of each publication (`find_published`)

    def find(self, served: str, commit: str | None, tag: str | None) -> K | str:
        """The release `tag`/`commit` names (`find_published`), opened, or one line saying
        it is not published."""
        name, gone, stamps = find_published(self.engine, served, commit, tag, self._seen)
        with self._lock:
            let_go = [idx for n, (s, idx) in self._open.items() if stamps.get(n) != s]
            self._open = {n: v for n, v in self._open.items() if stamps.get(n) == v[0]}
            held = self._open.get(name) if name is not None else None
        for idx in let_go:
            _release(idx)
        if name is None:
            return gone
        if held is not None:
            return held[1]
        opened = self._opener(name)  # (outside the lock: reading a __meta takes a while)
        opened.kept = True
        with self._lock:
            if name in self._open:  # another search opened it meanwhile
                _release(opened)
                return self._open[name][1]
            self._open[name] = (stamps[name], opened)
        return opened

    def close(self) -> None:
        with self._lock:
            let_go, self._open = [idx for _, idx in self._open.values()], {}
        for idx in let_go:
            _release(idx)


def _release(idx: Kept) -> None:
    idx.kept = False
    idx.close()
