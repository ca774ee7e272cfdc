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

The release is found as a search given one finds it (`kbtools.agents.asked`: MCP `search`,
``/api/search``, `kb query --commit`/`--release`), which fails in one line naming the
releases kept here once it is gone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.agents.asked import asked_index, kept_holding, release_arguments, release_name
from kbtools.agents.citation_text import narrow_suffix, said_dirty, split_release, unescaped
from kbtools.agents.docpath import check_doc_length, cited
from kbtools.agents.moved import moved
from kbtools.agents.opened import OpenedReleases
from kbtools.agents.read import (
    SEVERAL,
    SEVERAL_CITED,
    Knowledge,
    SectionText,
    open_knowledge,
    read_section,
)
from kbtools.config import Config, load_config
from kbtools.errors import IndexLoadError, KbError, UsageError
from kbtools.index.reader import KbIndex, ReleaseInfo
from kbtools.ship.checkout import open_index
from kbtools.words.error_words import said_to
from kbtools.words.read_words import note


@dataclass(frozen=True)
class CitedRead:
    """A section read (`section`) from `release` (None: a repository's files); `served`,
    the release served now when `release` is an earlier one; `gone`, one line, when the
    release asked for is no longer kept and `section` is the served release's; `note`, one
    line, when the citation's lines may be of another build of its commit (`lines_note`)."""

    section: SectionText
    release: ReleaseInfo | None
    served: ReleaseInfo | None = None
    gone: str | None = None
    note: str | None = None

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
        if self.note is not None:
            out["release_note"] = self.note
        out["markdown"] = markdown
        return out


def asked_release(doc: str, commit: Any, release: Any) -> tuple[str, str | None, str | None]:
    """(`doc` without a release after it, the commit asked for, the tag asked for): from
    the arguments or from the citation's end (UsageError when they disagree or the commit
    is no commit)."""
    check_doc_length(doc)
    plain, said_commit, said_tag = split_release(narrow_suffix(unescaped(doc)))
    commit, release = release_arguments(commit, release)
    for given, said, what in ((commit, said_commit, "commit"), (release, said_tag, "release")):
        if given and said and not (said.startswith(given) or given.startswith(said)):
            raise UsageError(f"the citation names {what} {said} and '{what}' is {given}: "
                             "give one", key="release_disagrees",
                             values={"what": what, "said": said, "given": given})
    return plain, commit or said_commit, release or said_tag


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


@contextmanager
def asked_knowledge(kn: Knowledge, commit: str | None, tag: str | None,
                    device: Path | None = None,
                    opened: OpenedReleases | None = None) -> Iterator[Opened]:
    """The knowledge of the release `commit`/`tag` names (`asked_release`'s), found by
    `asked_index` from the release `kn` serves, as `Opened` says (kept open with its
    knowledge by `opened`, a server's, when given)."""
    with asked_index(kn.idx, commit, tag, device, opened) as at:
        if at.index is kn.idx:
            yield Opened(kn, at.release, gone=at.gone)
        elif at.kept is not None:
            yield Opened(at.kept.memo("knowledge", _knowledge), at.release, at.served)
        else:
            yield Opened(open_knowledge(idx=at.index), at.release, at.served)


def _knowledge(idx: KbIndex) -> Knowledge:
    return open_knowledge(idx=idx)


def served_name(kn: Knowledge) -> str:
    """What `kn` reads, as a message names it: the release served, or the repository's
    files."""
    now = kn.idx.release if kn.idx is not None else None
    return release_name(now) if now is not None else "the repository's work tree"


def read_cited(kn: Knowledge, doc: str, heading_path: str | list[str] | None = None,
               line_start: int | None = None, line_end: int | None = None, *,
               commit: Any = None, release: Any = None, device: Path | None = None,
               opened: OpenedReleases | None = None) -> CitedRead:
    """`read_section` of `doc` in the release `commit`/`release` (or the citation) names:
    see the module. `device` is the device `kn`'s index was served from, when known (else
    the one its directory lies in); `opened`, a server's earlier releases kept open."""
    plain, commit, tag = asked_release(doc, commit, release)
    with asked_knowledge(kn, commit, tag, device, opened) as at:
        if at.gone is None:
            try:
                return CitedRead(read_section(at.kn, plain, heading_path, line_start,
                                              line_end), at.release, at.served,
                                 note=lines_note(at.release, commit, tag, said_dirty(doc)))
            except KbError as exc:  # a document renamed since: where its section is now
                given = cited(plain)
                exc = moved(exc, at.kn, heading_path or (given.heading if given else None),
                            served_name(at.kn))
                raise kept_elsewhere(exc, at, given.doc if given else plain, device) from None
    return _read_now(kn, plain, heading_path, line_start, line_end, at.gone)


def read_asked(kn: Knowledge, doc: str, heading_path: str | list[str] | None = None,
               line_start: int | None = None, line_end: int | None = None, *,
               commit: Any = None, release: Any = None,
               device: Path | None = None) -> CitedRead:
    """`read_cited`, its refusal said in Chinese to a Chinese asker: the path, citation or
    heading path typed holds Chinese (`said_to`); `kb read`'s (MCP `read` says it so too)."""
    try:
        return read_cited(kn, doc, heading_path, line_start, line_end, commit=commit,
                          release=release, device=device)
    except KbError as exc:
        raise said_to(exc, (doc, heading_path)) from None


def kept_elsewhere(exc: KbError, at: Opened, doc: str, device: Path | None) -> KbError:
    """`exc`, when it says document `doc` is not in the release served (no release asked
    for) and names no document holding its section there, with the earlier release this
    device keeps that holds it named (`kept_holding`; as ``values["moved"]``, the clause,
    for a caller that words the error its own way)."""
    if exc.key != "no_document" or "moved" in exc.values or at.served is not None:
        return exc
    clause, tag = kept_holding(at.kn.idx, doc, device)
    if not clause:
        return exc
    return KbError(exc.message + clause, key=exc.key, path=exc.path, line=exc.line,
                   values={**exc.values, "moved": clause, "kept": tag})


def lines_note(release: ReleaseInfo | None, commit: str | None, tag: str | None,
               dirty: bool) -> str | None:
    """One line when a citation asked for by its commit alone (no tag) was read in a release
    whose lines may not be those it was cited from: a build of uncommitted files (another
    build of the commit may have given the citation), or a clean one where the citation
    says it came from such a build (`dirty`). None otherwise."""
    if release is None or commit is None or tag is not None or not (release.dirty or dirty):
        return None
    if release.dirty:
        return (f"read in {release_name(release)}: a citation of commit {commit[:12]} alone "
                "may come from another build of it, whose uncommitted lines differ; check "
                "this is the text cited")
    return (f"the citation came from a build of commit {commit[:12]} with uncommitted "
            f"changes, and this is {release_name(release)}: its lines may differ; check "
            "this is the text cited")


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
        if exc.key in (SEVERAL, SEVERAL_CITED):  # there, but more than once: not "no such text"
            raise KbError(f"{gone}, and in {here} {exc.message}", key="release_gone",
                          values=exc.values) from None
        exc = moved(exc, kn, heading, here)
        raise KbError(f"{gone}, and {here} has no such text: {exc.message}",
                      key="release_gone", values=exc.values) from None
    where = (f"at '{' > '.join(section.heading_path)}'" if section.heading_path else
             "at the top of the document")  # a heading path, a link's section, or neither
    return CitedRead(section, now, gone=f"{gone}; this is what {here} has {where} (lines "
                                        f"{section.line_start}-{section.line_end}): do not "
                                        "cite it as the earlier release's text")


def config_here() -> Config | None:
    """The configuration around the current directory, read once for the several things a
    command asks of it (`knowledge_for`, `edited_note`, `kb table eval`'s `own_file`: each
    read kb.toml again); None when it cannot be read, each of them then reading it as
    before, to fail or do without it as before."""
    try:
        return load_config()
    except KbError:
        return None


def knowledge_for(index: Path | None, cfg: Config | None = None) -> Knowledge:
    """What `kb read` reads, as the MCP server finds it: the index given (IndexLoadError
    when it is none), else the one a client command finds, else the repository's files
    around the current directory (`cfg`, its configuration, when the caller has read it)."""
    if index is not None:
        return open_knowledge(index=index)
    try:
        return open_knowledge(idx=open_index(None, near=cfg))
    except IndexLoadError:
        return open_knowledge(cfg=cfg)


def edited_note(kn: Knowledge, rel: str, cfg: Config | None = None,
                chinese: bool = False) -> str | None:
    """One line when `kn` is an index and the repository around the current directory
    holds document `rel` with other bytes than the index's copy: an author who edited a
    document (a decision table's rule) and did not build reads the build, not the edit, as
    `kb read` and `kb table eval` read a document of the knowledge from the index first.
    `cfg`: the repository's configuration when the caller has read it; `chinese`: said in
    Chinese (`words.read_words`)."""
    if kn.where != "index" or kn.idx is None:
        return None
    try:
        root = (cfg if cfg is not None else load_config()).root
    except KbError:  # no repository here (a device, an agent host)
        return None
    work, built = root / rel, kn.base / rel
    try:
        if not work.is_file() or work.read_bytes() == built.read_bytes():
            return None
    except OSError:
        return None
    return note("edited", chinese, doc=rel, index=kn.idx.root)
