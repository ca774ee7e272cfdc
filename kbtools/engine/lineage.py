"""Whether a named release may take an alias serving an unnamed one of the same first
commit (or the other way round): its own earlier release, or its twin's.

Two knowledge bases that share a first commit (a repository copied and split in two, two
cloned from one template) are one to `kbtools.base_identity.same_base` when one side is
named and the other not: a knowledge base's releases published before kb.toml named it
stay its own. But a named twin's publish then took the alias its *unnamed* twin serves,
and every reader of the one got the other's answers. The bases alone cannot tell the two
cases apart; the commits can. The served release was built from a commit (its manifest's
``source.commit``, read from its ``__meta``), and this release from another: they are one
knowledge base's when one of the two commits descends from the other — a knowledge base's
history runs from its unnamed releases to its named ones (or back, publishing an older
one) — and twins' when neither does (each went its own way after the commit they share).
That takes the repository this release was built from (the one around the release, or the
working directory's, holding its commit): without it, or when the served commit is not in
it, nothing says the served release is this knowledge base's, and the takeover is refused
in one line naming both, as one of another knowledge base is (`bases.refuse_other`);
``--same-knowledge-base`` says it is, and publishing from the repository shows it. Away
from the repository (a device's release, a CI artifact) the release's signature shows it
too (`one_history`): a release verified as signed by the key that signed the served one,
when it was published, is that publisher's next release of the knowledge base (a twin's
publisher signs with a key of its own), so a knowledge base's first named release takes
the alias from its unnamed one wherever it is published from, with no flag. Nor
does the named one's ``keep`` count (and drop) an unnamed release the commits do not show
to be of its history (`of_this_history`): the twin's rollback targets stay; nor does a
rollback from a named release go back to one (asked of the working directory's repository:
`kb rollback --engine` is run where the operator stands).

A server (`kb serve --engine`, `kb mcp --engine`) asks `served_releases` on every look at
its releases (the release page, a search asking for an earlier release); what it reads of
each release (the served one's manifest and signer, another's commit) is kept per
publication (`Seen`, by `stamp`), not read from the engine again each time; and beside the
release's local copy (`kbtools.engine.cache.kept_seen`), so a `kb query --engine` run —
one process per question — does not read it again either.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbtools.base_identity import named_once, shown
from kbtools.engine.cache import keep_seen, kept_seen
from kbtools.engine.milvus import P_BASE, P_TAG, Engine
from kbtools.engine.parts import read_parts
from kbtools.errors import EngineError
from kbtools.gitobjects import merge_base, read_commit
from kbtools.provenance import open_repo

Stamp = tuple[str, str, float]  # a publication of a release: collection, manifest, when


def stamp(release: dict[str, Any]) -> Stamp:
    """What changes when release `release` (`Engine.releases`) is published again into
    its collection: its manifest hash and the time it was marked complete."""
    return str(release["collection"]), str(release["manifest_sha256"]), float(release["published"])


class Seen:
    """What was read of each release listed (its manifest, and so the commit it was built
    from; its signer), kept per publication (`stamp`): read again only once the release is
    published again, let go once it is no longer listed. The one place a server knows which
    commit a publication names (`served_commit`), for `served_releases` and for a search
    asking for a release by commit (`kbtools.engine.published.find_published`) alike. With
    `engine`, what is read is also kept beside each release's local copy (`kept_seen`), for
    the next process reading the same publication."""

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._stamps: dict[str, Stamp] = {}
        self._read: dict[tuple[Stamp, str], str | None] = {}

    def listed(self, releases: list[dict[str, Any]]) -> None:
        """The releases (`Engine.releases`) the engine lists now."""
        with self._lock:
            self._stamps = {str(r["collection"]): stamp(r) for r in releases}
            live = set(self._stamps.values())
            self._read = {k: v for k, v in self._read.items() if k[0] in live}

    def read(self, collection: str, part: str, reader: Callable[[], str | None]) -> str | None:
        """`part` of the release in `collection`: as read of its publication, else `reader()`
        (kept when the release is listed)."""
        with self._lock:
            key = (self._stamps[collection], part) if collection in self._stamps else None
            if key is not None and key in self._read:
                return self._read[key]
        engine = self.engine if key is not None else None
        publication = [key[0][1], key[0][2]] if key is not None else []
        got = kept_seen(engine, collection, publication).get(part) if engine else None
        if got is None:
            got = reader()  # (outside the lock: a call to the engine)
            if engine is not None and got is not None:  # (none read: its record may return)
                keep_seen(engine, collection, publication, part, got)
        if key is not None:
            with self._lock:
                self._read[key] = got
        return got


def served_manifest(engine: Engine, collection: str, seen: Seen | None = None) -> str | None:
    """The manifest's text of the release in `collection` (None: its ``__meta`` is gone or
    damaged); kept in `seen`."""
    if seen is not None:
        return seen.read(collection, "manifest", lambda: served_manifest(engine, collection))
    try:
        return str(read_parts(engine, collection, only=("manifest",))["manifest"])
    except EngineError as exc:
        if exc.key not in ("engine_release_incomplete", "engine_release_gone"):
            raise
        return None


def served_commit(engine: Engine, collection: str, seen: Seen | None = None) -> str | None:
    """The commit the release in `collection` was built from (its manifest's
    ``source.commit``; None when it records none, or its record cannot be read)."""
    text = served_manifest(engine, collection, seen)
    try:
        manifest = json.loads(text) if text is not None else None
    except ValueError:
        manifest = None
    source = manifest.get("source") if isinstance(manifest, dict) else None
    commit = source.get("commit") if isinstance(source, dict) else None
    return commit if isinstance(commit, str) and commit not in ("", "none") else None


def served_signer(engine: Engine, collection: str, seen: Seen | None = None) -> str | None:
    """The key that signed the release in `collection`, as its publish verified it (its
    ``__meta``'s ``verified.signed_by``; None: published unverified, or not readable); kept
    in `seen`."""
    if seen is not None:
        return seen.read(collection, "signer", lambda: served_signer(engine, collection))
    try:
        verified = read_parts(engine, collection, only=("verified",)).get("verified")
    except EngineError as exc:
        if exc.key not in ("engine_release_incomplete", "engine_release_gone"):
            raise
        return None
    signer = verified.get("signed_by") if isinstance(verified, dict) else None
    return signer if isinstance(signer, str) and signer else None


def one_history(engine: Engine, collection: str, manifest_text: str | None,
                signer: str | None, places: tuple[Path, ...],
                seen: Seen | None = None) -> bool | None:
    """Whether the release in `collection` and this one (built as `manifest_text` says,
    verified as signed by `signer`) are one knowledge base's history: as their commits
    show in the first repository among `places` holding this one's; else (no repository
    here can tell) yes when both were verified as signed by one key; else None."""
    found = _commits(engine, collection, manifest_text, places, seen)[0]
    if found is None and signer is not None and served_signer(engine, collection,
                                                               seen) == signer:
        return True
    return found


def related(commit: str, other: str, places: tuple[Path, ...]) -> bool | None:
    """Whether one of `commit` and `other` descends from the other, asked of the first
    repository among `places` that holds `commit` (None: none of them does)."""
    for place in places:
        repo = open_repo(place)
        if repo is None:
            continue
        with repo:
            if read_commit(repo, commit) is None:
                continue
            if read_commit(repo, other) is None:
                return False  # not in this knowledge base's repository at all
            return merge_base(repo, commit, other) in (commit, other)
    return None


def _commits(engine: Engine, collection: str, manifest_text: str | None,
             places: tuple[Path, ...], seen: Seen | None = None
             ) -> tuple[bool | None, str | None, str | None]:
    """(whether the release in `collection` and this one, built as `manifest_text` says,
    are of one history — None: nothing here can tell —, this release's commit, that
    one's)."""
    source = json.loads(manifest_text or "{}").get("source") or {}
    mine = source.get("commit") if isinstance(source, dict) else None
    mine = mine if isinstance(mine, str) and mine not in ("", "none") else None
    theirs = served_commit(engine, collection, seen)
    found = related(mine, theirs, places) if mine and theirs else None
    return found, mine, theirs


def of_this_history(engine: Engine, release: dict[str, Any], base: str | None,
                    manifest_text: str | None, places: tuple[Path, ...],
                    signer: str | None = None, seen: Seen | None = None) -> bool:
    """Whether `release` (`Engine.releases`) may be counted and pruned as this
    knowledge base's (`base`) by this release's publish: yes unless it is this knowledge
    base's only by a first commit, one named and the other not, and the commits do not
    show one history (nor one signature, `one_history`: this release's `signer`) — an
    unnamed twin's releases are never dropped by the named one's `keep`."""
    other = release.get("base")
    if other is None or base is None or not named_once(other, base):
        return True
    return one_history(engine, release["collection"], manifest_text, signer, places,
                       seen) is True


def served_releases(engine: Engine, releases: list[dict[str, Any]], current: str | None,
                    base: str | None, places: tuple[Path, ...], seen: Seen | None = None
                    ) -> tuple[list[dict[str, Any]], list[str]]:
    """Of `releases` (`Engine.releases`, already `bases.of_base` of `base`, the knowledge
    base of the release in `current`): (those that are its own, the collections of those
    that are its only by a first commit, one named and the other not, and whose commits
    (in the first repository among `places` holding them) do not show one history). The
    releases a rollback from `current` may go back to, and the ones the app's release page
    lists: an unnamed twin's are the twin's. What it reads of each release is kept in
    `seen` (a server's, asking on every look) per publication."""
    if seen is not None:
        seen.listed(releases)
    if current is None or base is None or not any(
            r["base"] and named_once(r["base"], base) for r in releases):
        return releases, []
    text, signer = served_manifest(engine, current, seen), served_signer(engine, current, seen)
    mine = [r for r in releases if r["collection"] == current
            or of_this_history(engine, r, base, text, places, signer, seen)]
    return mine, [r["collection"] for r in releases if r not in mine]


def twin_problem(engine: Engine, alias: str, current: str | None, props: dict[str, str],
                 base: str | None, manifest_text: str, places: tuple[Path, ...],
                 done: str = "nothing was written", signer: str | None = None) -> None:
    """EngineError when `alias` serves (`current`, its properties `props`) a release that
    is this one's (`base`, built as `manifest_text` says) only by a first commit the two
    share, one named and the other not, and neither the repository this release was built
    from (found among `places`) nor their signatures (this one verified as signed by
    `signer`) show the two releases are of one history (`one_history`)."""
    served = props.get(P_BASE) or None
    if current is None or served is None or base is None or not named_once(served, base):
        return
    if one_history(engine, current, manifest_text, signer, places):
        return
    found, mine, theirs = _commits(engine, current, manifest_text, places)
    why = (f"its commit {theirs[:12]} is not in this release's history"
           if found is False and theirs else
           f"the repository this release was built from (commit {str(mine)[:12]}) is not "
           "here to show it is, nor a signature by the key that signed it" if theirs else
           "its commit is not known: built without one, or its record in the engine is gone")
    raise EngineError(
        f"alias {alias} serves {props.get(P_TAG) or current} ({shown(served)}), which "
        f"shares this release's first commit but may be another knowledge base's ({why}); "
        f"this release is of {shown(base)}; {done}: name that knowledge base too (kb.toml "
        "[release] knowledge_base) and publish it behind an alias of its own (--alias "
        "NAME), or, if it is this knowledge base's release from before it was named, "
        "publish from its repository or with --same-knowledge-base", path=str(engine.url))
