"""A read of what a citation names, in the release it names: MCP `read`, ``/api/read`` and
``kb read`` alike.

A citation carries the release it came from (its ``source_commit``, its tag). Read after a
`kb sync`, its lines may hold other text. `read_cited` reads:

- the release served now, when no release is asked for or the one asked for is it;
- an earlier release the device still keeps (``releases/<tag>``), named by its tag or by
  (a prefix of) its source commit, given as `commit`/`release` or after the citation
  (`citation_text.split_release`): that release's text, with both releases named;
- otherwise, what the release served now has at the citation's heading path, with one line
  (`CitedRead.gone`) saying the release asked for is gone and what was read instead. A
  citation that names lines alone cannot be placed in another release: refused in one line
  saying what to send.

A search given a release (`asked_search`: MCP `search`, ``/api/search``) finds it the same
way, and fails in one line naming the releases kept here once it is gone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.agents.citation_text import is_commit, split_release, unescaped
from kbtools.agents.moved import moved
from kbtools.agents.read import Knowledge, SectionText, cited, open_knowledge, read_section
from kbtools.errors import IndexLoadError, KbError, UsageError, one_line
from kbtools.index.layout import DeviceLayout, ReleaseLayout, device_of_release
from kbtools.index.reader import KbIndex, ReleaseInfo
from kbtools.ship.changes import clone_hint
from kbtools.ship.checkout import clone_of_derived, derived_tag, open_index
from kbtools.ship.device import synced_from
from kbtools.ship.git import parse_serial
from kbtools.ship.readonly import copy_device
from kbtools.ship.tagged import tag_sources


def release_name(release: ReleaseInfo) -> str:
    """A release as a message names it: its tag and commit (12 digits)."""
    commit = f"commit {release.source_commit[:12]}" + (" with uncommitted changes"
                                                       if release.dirty else "")
    return f"release {release.tag} ({commit})" if release.tag else f"the build of {commit}"


@dataclass(frozen=True)
class Kept:
    """A release a device keeps: its tag, directory and source commit (a clone's release
    tag: no directory until it is derived, `earlier_root`)."""

    tag: str
    root: Path | None
    commit: str


@dataclass(frozen=True)
class CitedRead:
    """A section read (`section`) from `release` (None: a repository's files); `served`,
    the release served now when `release` is an earlier one; `gone`, one line, when the
    release asked for is no longer kept and `section` is the served release's."""

    section: SectionText
    release: ReleaseInfo | None
    served: ReleaseInfo | None = None
    gone: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The section's JSON, with the release it was read from (the same on every
        surface; MCP adds its data notice)."""
        out = self.section.to_dict()
        markdown = out.pop("markdown")
        out["release"] = self.release.to_dict() if self.release is not None else None
        if self.served is not None:
            out["served_release"] = self.served.to_dict()
        if self.gone is not None:
            out["release_gone"] = self.gone
        out["markdown"] = markdown
        return out


def kept_releases(device: Path | None, served: Path | None = None) -> list[Kept]:
    """The releases device `device` keeps, by tag; with no device, those of the clone whose
    derived release `served` is (its release tags); else none."""
    if device is None:
        clone = clone_of_derived(served) if served is not None else None
        return [Kept(tag, None, commit) for tag, commit in sorted(
            tag_sources(clone[1]).items())] if clone is not None else []
    out = []
    for tag, root in sorted(DeviceLayout(device).release_dirs().items()):
        try:
            manifest = json.loads(ReleaseLayout(root).manifest.read_text(encoding="utf-8"))
            commit = manifest["source"]["commit"]
        except (OSError, ValueError, KeyError, TypeError):  # half-pruned: not kept
            continue
        if isinstance(commit, str):
            out.append(Kept(tag, root, commit))
    return out


def asked_release(doc: str, commit: Any, release: Any) -> tuple[str, str | None, str | None]:
    """(`doc` without a release after it, the commit asked for, the tag asked for): from
    the arguments or from the citation's end (UsageError when they disagree or the commit
    is no commit)."""
    plain, said_commit, said_tag = split_release(unescaped(doc))
    commit, release = release_arguments(commit, release)
    for given, said, what in ((commit, said_commit, "commit"), (release, said_tag, "release")):
        if given and said and not (said.startswith(given) or given.startswith(said)):
            raise UsageError(f"the citation names {what} {said} and '{what}' is {given}: "
                             "give one")
    return plain, commit or said_commit, release or said_tag


def release_arguments(commit: Any, release: Any) -> tuple[str | None, str | None]:
    """(the commit, the tag) a call's `commit` and `release` arguments ask for, None for one
    not given (or given empty); UsageError when the commit is no commit or the tag is blank."""
    commit, release = (None if v == "" else v for v in (commit, release))  # as not given
    if commit is not None and not (isinstance(commit, str) and is_commit(commit.strip())):
        raise UsageError(f"'commit' must be a commit's 7 to 64 hexadecimal digits (a result's "
                         f"release source_commit), not '{one_line(str(commit), 80)}'")
    if release is not None and not (isinstance(release, str) and release.strip()):
        raise UsageError("'release' must be a release tag (a result's release tag)")
    return (commit.strip().lower() if commit else None, release.strip() if release else None)


def _is(info: ReleaseInfo | Kept, commit: str | None, tag: str | None) -> bool:
    source = info.source_commit if isinstance(info, ReleaseInfo) else info.commit
    return (commit is None or source.lower().startswith(commit)) and \
        (tag is None or info.tag == tag)


@dataclass(frozen=True)
class Opened:
    """Where a read or a table evaluation takes a document from: `kn`, the knowledge of
    `release` (an earlier release the device keeps, `served` then naming the one served
    now); or, with `gone` (one line: the release asked for is not here), the served
    release's knowledge, which the caller must not pass off as the release asked for."""

    kn: Knowledge
    release: ReleaseInfo | None
    served: ReleaseInfo | None = None
    gone: str | None = None


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


@contextmanager
def asked_index(idx: KbIndex | None, commit: str | None, tag: str | None,
                device: Path | None = None) -> Iterator[Asked]:
    """The index of the release `commit`/`tag` names (`release_arguments`'), as `Asked`
    says: `idx` itself when none is asked or the served release is it; an earlier release
    `device` keeps (else the device `idx` is served from), or a release tag of the clone
    `idx` is derived from (derived from git objects); opened, and closed again on leaving;
    else `idx` with the line saying the release is not here. UsageError when a commit
    prefix names several kept releases."""
    now = idx.release if idx is not None else None
    if (commit is None and tag is None) or (now is not None and _is(now, commit, tag)):
        yield Asked(idx, now)
        return
    served = Path(idx.root) if idx is not None else None
    # a read-only device is served from a copy under KB_HOME: its releases are the device's
    device = device or (device_of_release(served) or copy_device(served) if served else None)
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
        yield Asked(idx, now, gone=_gone_line(commit, tag, now, kept, device))
        return
    earlier = open_index(earlier_root(found[0], served))
    try:
        yield Asked(earlier, earlier.release, now)
    finally:
        earlier.close()


@contextmanager
def asked_knowledge(kn: Knowledge, commit: str | None, tag: str | None,
                    device: Path | None = None) -> Iterator[Opened]:
    """The knowledge of the release `commit`/`tag` names (`asked_release`'s), found by
    `asked_index` from the release `kn` serves, as `Opened` says."""
    with asked_index(kn.idx, commit, tag, device) as at:
        if at.index is kn.idx:
            yield Opened(kn, at.release, gone=at.gone)
        else:
            yield Opened(open_knowledge(idx=at.index), at.release, at.served)


@contextmanager
def asked_search(idx: KbIndex, commit: Any, release: Any, device: Path | None = None,
                 names: str = "'commit' and 'release'") -> Iterator[KbIndex]:
    """The index a search asked for release `commit`/`release` runs on (MCP `search`,
    ``/api/search``), found as `read` finds it (`asked_index`): `idx`, the served one, when
    neither is given or it is the one asked for; an earlier release kept here, closed again
    on leaving; else KbError ``release_gone`` naming the release asked for and those kept
    here, and what to leave out (`names`: the caller's for the two). A search falls back on
    nothing: results of another release would be cited as the one asked for."""
    asked_commit, tag = release_arguments(commit, release)
    with asked_index(idx, asked_commit, tag, device) as at:
        if at.gone is not None:
            raise KbError(f"{at.gone}: search without {names} for what "
                          f"{release_name(idx.release)} says", key="release_gone")
        yield at.index or idx


def served_name(kn: Knowledge) -> str:
    """What `kn` reads, as a message names it: the release served, or the repository's
    files."""
    now = kn.idx.release if kn.idx is not None else None
    return release_name(now) if now is not None else "the repository's files"


def read_cited(kn: Knowledge, doc: str, heading_path: str | list[str] | None = None,
               line_start: int | None = None, line_end: int | None = None, *,
               commit: Any = None, release: Any = None,
               device: Path | None = None) -> CitedRead:
    """`read_section` of `doc` in the release `commit`/`release` (or the citation) names:
    see the module. `device` is the device `kn`'s index was served from, when known (else
    the one its directory lies in)."""
    plain, commit, tag = asked_release(doc, commit, release)
    with asked_knowledge(kn, commit, tag, device) as at:
        if at.gone is None:
            try:
                return CitedRead(read_section(at.kn, plain, heading_path, line_start,
                                              line_end), at.release, at.served)
            except KbError as exc:  # a document renamed since: where its section is now
                given = cited(plain)
                raise moved(exc, at.kn, heading_path or (given.heading if given else None),
                            served_name(at.kn)) from None
    return _read_now(kn, plain, heading_path, line_start, line_end, at.gone)


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
        return f"{what} is not read here: no release is served, this reads the repository's files"
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


def _read_now(kn: Knowledge, doc: str, heading_path: str | list[str] | None,
              line_start: int | None, line_end: int | None, gone: str) -> CitedRead:
    """What the release served now has at the heading path `doc` (a citation) or
    `heading_path` names, said to be no read of the release asked for (`gone`)."""
    given = cited(doc)
    heading = heading_path or (given.heading if given is not None else None)
    lines = (line_start, line_end) if line_start is not None or line_end is not None else \
        given.lines if given is not None else None
    path = given.doc if given is not None else doc
    now = kn.idx.release if kn.idx is not None else None
    here = served_name(kn)
    if not heading and lines is not None:
        raise UsageError(f"{gone}: lines {lines[0]}-{lines[1]} of it may hold other text in "
                         f"{here}; give the citation's heading path (its § part) to read "
                         "that section there, or search again")
    try:
        section = read_section(kn, path if given is not None else doc, heading or None)
    except KbError as exc:
        exc = moved(exc, kn, heading, here)
        raise KbError(f"{gone}, and {here} has no such text: {exc.message}",
                      key="release_gone", values=exc.values) from None
    where = (f"at '{' > '.join(section.heading_path)}'" if section.heading_path else
             "at the top of the document")  # a heading path, a link's section, or neither
    return CitedRead(section, now, gone=f"{gone}; this is what {here} has {where} (lines "
                                        f"{section.line_start}-{section.line_end}): do not "
                                        "cite it as the earlier release's text")


def knowledge_for(index: Path | None) -> Knowledge:
    """What `kb read` reads, as the MCP server finds it: the index given (IndexLoadError
    when it is none), else the one a client command finds, else the repository's files
    around the current directory."""
    if index is not None:
        return open_knowledge(index=index)
    try:
        return open_knowledge(idx=open_index(None))
    except IndexLoadError:
        return open_knowledge()
