"""A document address the served release holds no document at, read for the document it
meant: the document page and the decision-table page of a link typed by hand, kept from
before a sync, or sent by a phone that spells names its own way.

- The same name written otherwise (`same_document`): its case (``wheat-scab.MD``,
  ``Wheat-Scab.md``), its Unicode composition (a URL-encoded NFD name, as macOS writes it,
  for an NFC file, or the other way round) or both: that document opens, when exactly one
  document of the release is so named.
- A path without its folders (``wheat-scab.md``, `same_file_names`): the one document of
  that file name opens; several: the page lists each of them (`suggestions`). Not when an
  earlier release held another document at that path (`opened_for`): an old link to
  ``knowledge/x.md``, which a sync removed, never opens ``knowledge/crops/x.md``, another
  document that shares its file name; the page says it is gone and offers its former title.
  Where no earlier release kept tells of it (a repository's `dist/`, or the releases kept
  are newer than its removal), a whole document path (``knowledge/x.md``) never opens
  another of its file name: the page lists them (`kb read` refuses it alike).
- Any other name (`suggestions`): the page says there is no such document and names the
  documents it most likely meant, as links: first a document the release renamed it to (an
  earlier release this device keeps holds a document at that path; the served one holds a
  document of that title under another path), then those whose path or title is most like
  the name asked. Nothing is opened in their place: another document is no citation of the
  first (`agents.moved`).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from kbtools.agents.docpath import (
    MARKDOWN,
    folded,
    named_documents,
    same_file_names,
    spellings,
    whole_path,
)
from kbtools.beneath import read_beneath
from kbtools.index.layout import DeviceLayout, ReleaseLayout
from kbtools.serve.source import Served
from kbtools.ship.git import parse_serial

MAX_SUGGESTED = 5  # documents a page without one names
LIKENESS = 0.55  # at least this like the name asked (difflib's ratio of the loose forms)
MAX_DOCS_BYTES = 64 << 20  # an earlier release's docs.jsonl read for a renamed document
_LOOSE_MARKS = frozenset("_-./")  # left out of a name as typos go (HX-260, HX260)


@dataclass(frozen=True)
class Suggestion:
    """A document of the served release a missing address may have meant; `renamed`: an
    earlier release kept here held a document of its title at the address asked."""

    doc: str
    title: str
    lang: object = None  # the document's front-matter `lang`
    renamed: bool = False


def _loose(text: str) -> str:
    return "".join(c for c in folded(text) if not c.isspace() and c not in _LOOSE_MARKS)


def _stem(path: str) -> str:
    name = PurePosixPath(path).name
    return name[: -len(ext)] if (ext := next((e for e in MARKDOWN if folded(name).endswith(e)),
                                             "")) else name


def _likeness(asked: str, doc: str, title: str) -> float:
    """How like the address `asked` a document is, by name: its file name beside the
    address's (a typo, another folder), or its title (a name typed as the title reads:
    ``小麦赤霉病.md`` for 小麦赤霉病监测与防控操作规程), the closer."""
    stem, title = _loose(_stem(asked)), _loose(title)
    if not stem:
        return 0.0
    within = 0.9 if len(stem) >= 2 and title and stem in title else 0.0
    return max(within, *(_ratio(stem, other) for other in (_loose(_stem(doc)), title) if other))


def _ratio(a: str, b: str) -> float:
    """difflib's ratio of `a` and `b`, 0 when its cheap upper bounds are under `LIKENESS`
    already (a 404 on a 1,216-document release compared every name in ~150 ms)."""
    matcher = difflib.SequenceMatcher(None, a, b)
    if matcher.real_quick_ratio() < LIKENESS or matcher.quick_ratio() < LIKENESS:
        return 0.0
    return matcher.ratio()


def earlier_titles(served: Served, device: Path | None) -> list[dict[str, str]]:
    """Each earlier release this device keeps (newest first): its documents' paths → titles,
    read once per opened release (a release does not change)."""
    if device is None:
        return []
    kept: list[dict[str, str]] | None = served.cache.get("earlier_titles")
    if kept is not None:
        return kept
    kept = []
    for _tag, rdir in sorted(DeviceLayout(device).release_dirs().items(), reverse=True,
                            key=lambda item: parse_serial(item[0]) or -1):
        if rdir.resolve() == served.root.resolve():
            continue
        try:
            lines = read_beneath(ReleaseLayout(rdir).data, "docs.jsonl", MAX_DOCS_BYTES)
        except OSError:
            continue
        titles: dict[str, str] = {}
        for line in lines.decode("utf-8", "replace").splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and isinstance(d.get("doc"), str):
                titles[d["doc"]] = str(d.get("title") or (d.get("metadata") or {}).get("title")
                                       or "")
        kept.append(titles)
    served.cache["earlier_titles"] = kept
    return kept


def former_title(served: Served, doc: str, device: Path | None) -> str | None:
    """The title the newest earlier release this device keeps gave a document at address
    `doc` (None: none held one there): what a link from before a sync was to."""
    wanted = spellings(doc, served.knowledge.folders)
    for titles in earlier_titles(served, device):
        was = [t for path, t in titles.items() if folded(path) in wanted and t]
        if was:
            return was[0]
    return None


def opened_for(served: Served, doc: str, device: Path | None) -> str | None:
    """The one document of the served release that address `doc`, naming none exactly, opens
    (`named_documents`: the same name but for case or composition, or its file name in
    another folder); None when none or several are, or when it is found by file name but
    `doc` may be the old path of a document since removed (the one sharing its file name is
    another document): an earlier release this device keeps held a document of another
    title at `doc`, or none held one there (none is kept, as serving a repository's
    `dist/`, or those kept are newer than its removal) and `doc` is a whole document path
    (``knowledge/x.md``, `whole_path`), as `kb read` and `/api/read` read it."""
    found, by_file_name = named_documents(doc, served.index.store.doc_names(),
                                          served.knowledge.folders)
    if len(found) != 1:
        return None
    if by_file_name and (was := former_title(served, doc, device)) is not None:
        titles = {str(d["doc"]): str(d.get("title") or "") for d in served.index.docs()}
        return found[0] if titles.get(found[0]) == was else None
    if by_file_name and whole_path(doc, served.knowledge.folders):
        return None
    return found[0]


def suggestions(served: Served, doc: str, device: Path | None = None) -> list[Suggestion]:
    """The documents of the served release an address `doc` naming none may have meant, the
    likeliest first, at most `MAX_SUGGESTED`: the one it was renamed to (`earlier_titles`),
    then those most like it (`LIKENESS`)."""
    records = served.index.docs()
    docs = {str(d["doc"]): str(d.get("title") or "") for d in records}
    langs = {str(d["doc"]): d.get("lang") for d in records}
    was = former_title(served, doc, device)
    renamed = [d for d, title in docs.items() if was and title == was]
    named = [d for d in same_file_names(doc, list(docs), served.knowledge.folders)
             if d not in renamed]  # its file name in other folders: each listed
    scored = sorted(((-_likeness(doc, d, title), d) for d, title in docs.items()
                     if d not in renamed and d not in named))
    near = [d for score, d in scored if -score >= LIKENESS]
    return [Suggestion(d, docs[d], langs[d], renamed=d in renamed)
            for d in [*sorted(renamed), *named, *near][:max(MAX_SUGGESTED, len(named))]]
