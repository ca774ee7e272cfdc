"""The release a call asks for by `commit` or `release` (a result's ``release.source_commit``
or tag), found where a client keeps releases: MCP `search`, ``/api/search`` and `kb query
--commit`/`--release` search it (`asked_search`); `read`, `evaluate_table` and their CLI and
API twins read it (`asked_index`, through `kbtools.agents.cited_read`).

Found: the release served now, when none is asked for or it is the one asked for; an
earlier release a device keeps (``releases/<tag>``; a read-only device's, from its copy
under KB_HOME); a release tag of the git clone the served release was derived from (read
from git objects and verified, nothing checked out); for a release read from an engine,
another release the engine holds (`Publishing`: `kbtools.engine.published`). Otherwise one
line says the release is not here and names those that are (a tag the device pruned: the
git clone of its source that serves it). Loads no Markdown parser or YAML: `kb query` imports it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from kbtools.agents.arguments import release_arguments as release_arguments
from kbtools.agents.opened import Key, Open, OpenedReleases, release_key
from kbtools.errors import KbError, UsageError
from kbtools.index.layout import DeviceLayout, ReleaseLayout, device_of_release
from kbtools.index.reader import KbIndex, ReleaseInfo
from kbtools.index.store import Store
from kbtools.ship.changes import clone_hint, not_on_device
from kbtools.ship.checkout import (
    clone_of_derived,
    derived_tag,
    find_checkout,
    implicit_checkout,
    open_index,
)
from kbtools.ship.device import is_device_dir
from kbtools.ship.devicestate import synced_from
from kbtools.ship.git import parse_serial
from kbtools.ship.readonly import copy_device
from kbtools.ship.tagged import tag_sources


def release_name(release: ReleaseInfo) -> str:
    """A release as a message names it: its tag and commit (12 digits)."""
    commit = f"commit {release.source_commit[:12]}" + (" with uncommitted changes"
                                                       if release.dirty else "")
    return f"release {release.tag} ({commit})" if release.tag else f"the build of {commit}"


def release_named(release: ReleaseInfo) -> str:
    """A release as words of any language name it: its tag, else its commit (12 digits)."""
    return release.tag or release.source_commit[:12]


@dataclass(frozen=True)
class Kept:
    """A release a device keeps: its tag, directory and source commit (a clone's release
    tag: no directory until it is derived, `earlier_root`)."""

    tag: str
    root: Path | None
    commit: str


def kept_releases(device: Path | None, served: Path | None = None) -> list[Kept]:
    """The releases device `device` keeps, by tag; with no device, those of the clone whose
    derived release `served` is (its release tags); else none."""
    if device is None:
        clone = clone_of_derived(served) if served is not None else None
        return [Kept(tag, None, commit) for tag, commit in sorted(
            tag_sources(clone[1]).items())] if clone is not None else []
    out = []
    for tag, root in sorted(DeviceLayout(device).release_dirs().items()):
        commit = _source_commit(root)
        if commit is not None:
            out.append(Kept(tag, root, commit))
    return out


_COMMITS: dict[Path, tuple[Key, str | None]] = {}  # release dir → (its key, source commit)
_COMMITS_BOUND = 256  # release directories remembered (all devices one process serves)


def _source_commit(root: Path) -> str | None:
    """The source commit of the release in directory `root`, None when it has no readable
    manifest naming one (half-pruned: not kept). Read once per write of the manifest
    (`release_key`): a manifest of a 54k-chunk release takes milliseconds to parse, and
    every call asking for a release lists the releases kept; a sync that adds a release or
    a prune that removes one changes the key."""
    key = release_key(root)
    if key is None or key[2] is None:
        return None
    got = _COMMITS.get(root)
    if got is not None and got[0] == key:
        return got[1]
    try:
        manifest = json.loads(ReleaseLayout(root).manifest.read_text(encoding="utf-8"))
        commit = manifest["source"]["commit"]
    except (OSError, ValueError, KeyError, TypeError):  # half-pruned: not kept
        return None  # not remembered: a sync may be writing it
    found = commit if isinstance(commit, str) else None
    if len(_COMMITS) >= _COMMITS_BOUND:
        _COMMITS.clear()
    _COMMITS[root] = (key, found)
    return found


def served_device(served: Path | None, device: Path | None = None) -> Path | None:
    """The device whose releases are kept beside release directory `served`: `device` when
    given, else the one `served` lies in (a read-only device is served from a copy under
    KB_HOME: its releases are the device's); None for a release outside a device."""
    return device or (device_of_release(served) or copy_device(served) if served else None)


def kept_holding(idx: KbIndex | None, doc: str, device: Path | None = None
                 ) -> tuple[str, str]:
    """(``; release kb-r1 (commit …), kept on this device, has it: …``, its tag) when
    document `doc` is not in the release `idx` serves and an earlier release the device
    keeps holds it (the newest such); else ("", ""). An agent reading a citation again
    after a `kb sync` that removed or renamed its document was told only "no such
    document in the index"."""
    now = idx.release if idx is not None else None
    device = served_device(Path(idx.root), device) if idx is not None else None
    if now is None or device is None:
        return "", ""
    kept = sorted((k for k in kept_releases(device)  # those a `release` argument names
                   if k.tag != now.tag and parse_serial(k.tag) is not None),
                  key=lambda k: parse_serial(k.tag) or 0, reverse=True)
    for k in kept:
        if k.root is not None and _holds(k.root, doc):
            return (f"; release {k.tag} (commit {k.commit[:12]}), kept on this device, has "
                    f"it: read it there with release {k.tag}, or search again for what "
                    f"{release_name(now)} says", k.tag)
    return "", ""


def _holds(root: Path, doc: str) -> bool:
    """Whether the release in directory `root` holds document `doc` (not when its store
    cannot be read: a prune removing it meanwhile)."""
    try:
        store = Store(ReleaseLayout(root).store)
    except (OSError, sqlite3.Error):
        return False
    try:
        return store.doc(doc) is not None
    except sqlite3.Error:
        return False
    finally:
        store.close()


def _is(info: ReleaseInfo | Kept, commit: str | None, tag: str | None) -> bool:
    source = info.source_commit if isinstance(info, ReleaseInfo) else info.commit
    return (commit is None or source.lower().startswith(commit)) and \
        (tag is None or info.tag == tag)


@runtime_checkable
class Publishing(Protocol):
    """An index whose other releases it finds itself: a release in an engine
    (`kbtools.engine.remote.MilvusIndex`), whose earlier releases are the engine's
    collections, not a device's directories."""

    def published_release(self, commit: str | None, tag: str | None) -> KbIndex | str:
        """The release asked for, opened (the caller closes it), or one line saying it is
        not there and naming those that are."""


@dataclass(frozen=True)
class Asked:
    """The release a call asked for, found (`asked_index`): `index`, the one to read (the
    served one, or an earlier one kept here, `served` then naming the one served now); or,
    with `gone` (one line: the release asked for is not here), the served one (None: a
    repository's files), which the caller must not pass off as the release asked for."""

    index: KbIndex | None
    release: ReleaseInfo | None
    served: ReleaseInfo | None = None
    gone: str | None = None
    kept: Open | None = None  # the earlier release as a server keeps it open (`opened`)


@contextmanager
def asked_index(idx: KbIndex | None, commit: str | None, tag: str | None,
                device: Path | None = None,
                opened: OpenedReleases | None = None) -> Iterator[Asked]:
    """The index of the release `commit`/`tag` names (`release_arguments`'), as `Asked`
    says: `idx` itself when none is asked or the served release is it; an earlier release
    `device` keeps (else the device `idx` is served from), or a release tag of the clone
    `idx` is derived from (derived from git objects); opened, and closed again on leaving
    (kept open by `opened`, a server's, when given); else `idx` with the line saying the
    release is not here. UsageError when a commit prefix names several kept releases."""
    now = idx.release if idx is not None else None
    if (commit is None and tag is None) or (now is not None and _is(now, commit, tag)):
        yield Asked(idx, now)
        return
    if isinstance(idx, Publishing):  # an engine's release: the engine's other releases
        got = idx.published_release(commit, tag)
        if isinstance(got, str):
            yield Asked(idx, now, gone=got)
            return
        try:
            yield Asked(got, got.release, now)
        finally:
            got.close()
        return
    served = Path(idx.root) if idx is not None else None
    device = served_device(served, device)
    kept = kept_releases(device, served)
    found = [k for k in kept if _is(k, commit, tag)]
    tagged = [k.commit for k in kept if k.tag == tag] + \
        ([now.source_commit] if now is not None and now.tag == tag else [])
    if commit is not None and tag is not None and not found and tagged:  # not "kb-r1 is
        # gone" while it is kept: the commit given is another release's
        raise UsageError(f"release {tag} is commit {tagged[0][:12]}, not {commit}: give the "
                         "release or the commit alone")
    if len({k.commit for k in found}) > 1:
        raise UsageError(f"commit {commit} names {len(found)} releases kept here ("
                         + ", ".join(f"{k.tag}: {k.commit[:12]}" for k in found)
                         + "): give more of its digits or the release tag")
    if not found:
        if tag is not None and (parse_serial(tag) is None or "/" in tag):  # "r2", "kb-r02",
            # "第2版", a path or ref ("../kb-r1", "refs/tags/kb-r1"): no release is named
            # so; not the served one's text ("is no longer on this device"), with the tag
            # it may mean
            local = {k.tag for k in kept} | ({now.tag} if now is not None and now.tag else set())
            raise UsageError(f"'release': {not_on_device(tag, local, device)}")
        if opened is not None:  # one it kept open may be what a sync just pruned
            opened.sweep()
        yield Asked(idx, now, gone=_gone_line(commit, tag, now, kept, device))
        return
    root = earlier_root(found[0], served)
    if opened is not None:
        with opened.borrow(root) as kept_open:
            yield Asked(kept_open.index, kept_open.index.release, now, kept=kept_open)
        return
    earlier = open_index(root)
    try:
        yield Asked(earlier, earlier.release, now)
    finally:
        earlier.close()


@contextmanager
def asked_search(idx: KbIndex, commit: Any, release: Any, device: Path | None = None,
                 names: str = "'commit' and 'release'",
                 opened: OpenedReleases | None = None) -> Iterator[KbIndex]:
    """The index a search asked for release `commit`/`release` runs on (MCP `search`,
    ``/api/search``), found as `read` finds it (`asked_index`): `idx`, the served one, when
    neither is given or it is the one asked for; an earlier release kept here, closed again
    on leaving; else KbError ``release_gone`` naming the release asked for and those kept
    here, and what to leave out (`names`: the caller's for the two). A search falls back on
    nothing: results of another release would be cited as the one asked for. `opened`: a
    server's earlier releases kept open."""
    asked_commit, tag = release_arguments(commit, release)
    with asked_index(idx, asked_commit, tag, device, opened) as at:
        if at.gone is not None:
            raise KbError(f"{at.gone}: search without {names} for what "
                          f"{release_name(idx.release)} says", key="release_gone")
        yield at.index or idx


@contextmanager
def asked_at(path: Path | None, commit: Any, release: Any,
             names: str = "--commit and --release") -> Iterator[KbIndex]:
    """The index `kb query --index PATH` searches, `commit`/`release` asking for a release
    (as `asked_search`): the one asked for is found first, among the releases a device
    directory `path` keeps or the release tags of the git clone `path` (else the one
    around the current directory, as `open_index` finds it) is, and opened alone (in a
    clone, HEAD's release was verified and derived first, then the tag's). Else (neither
    asked, or not found that way) the served release, and `asked_search` on it, which
    says in one line why a release asked for is not here."""
    asked_commit, tag = release_arguments(commit, release)
    root = None if asked_commit is None and tag is None else \
        _found_first(path, asked_commit, tag)
    if root is not None:
        index = open_index(root)
        try:
            yield index
        finally:
            index.close()
        return
    device = path if path is not None and is_device_dir(path) else None
    with asked_search(open_index(path), commit, release, device, names) as index:
        yield index


def _found_first(path: Path | None, commit: str | None, tag: str | None) -> Path | None:
    """The release directory `commit`/`tag` names among those device `path` keeps or the
    tags of the clone `path` is (no `path`: $KB_INDEX's, else the clone the current
    directory lies in), when exactly one release is; None otherwise (the caller takes the
    served release's way)."""
    top = path if path is not None else (Path(os.environ["KB_INDEX"]) if os.environ.get(
        "KB_INDEX") else implicit_checkout())
    if top is not None and is_device_dir(top):
        kept, clone = kept_releases(top), None
    else:
        clone = find_checkout(top) if top is not None else None
        if clone is None:
            return None
        kept = [Kept(t, None, c) for t, c in sorted(tag_sources(clone[1]).items())]
    found = [k for k in kept if _is(k, commit, tag)]
    if len({k.commit for k in found}) != 1:
        return None
    return found[0].root if clone is None else derived_tag(*clone, found[0].tag)


def earlier_root(kept: Kept, served: Path | None) -> Path:
    """The release directory of `kept`: a device's, or a clone's tag derived now (verified
    from git objects, nothing checked out)."""
    if kept.root is not None:
        return kept.root
    clone = clone_of_derived(served) if served is not None else None
    if clone is None:  # a clone's tags are only listed beside a clone's derived release
        raise KbError(f"release {kept.tag} is not kept here", key="release_gone")
    return derived_tag(*clone, kept.tag)


def _gone_line(commit: str | None, tag: str | None, now: ReleaseInfo | None,
               kept: list[Kept], device: Path | None) -> str:
    """The start of what is said of a release asked for that is not here (on `device`, the
    git clone of its source that serves a pruned tag, `clone_hint`)."""
    what = f"release {tag}" if tag else f"commit {commit}"
    if tag and commit:
        what += f" (commit {commit})"
    if now is None:
        return f"{what} is not read here: no release is served, this reads the repository's work tree"
    if not kept:
        return (f"{what} is not the release read here ({release_name(now)}), and no "
                "earlier release is kept beside it")
    others = [k.tag for k in kept if k.tag != now.tag]
    if kept[0].root is None:  # a clone's tags: one a shallow or --no-tags clone lacks
        return (f"{what} is no release tag of this git clone (it has {release_name(now)}, "
                f"checked out" + (f", and {', '.join(others)}" if others else "")
                + "; `git fetch --tags` brings the tags its remote has)")
    serial = parse_serial(tag) if tag else 0
    newest = max((parse_serial(k.tag) or 0 for k in kept), default=0)
    # pruned, or (a tag newer than any here, or no release tag at all) never on it
    state = "no longer" if serial is not None and serial <= newest else "not"
    hint = clone_hint(tag, [k.tag for k in kept], synced_from(device)) if tag and device \
        else ""
    return (f"{what} is {state} on this device (it keeps {release_name(now)}, served now"
            + (f", and {', '.join(others)}" if others else "") + f"){hint}")
