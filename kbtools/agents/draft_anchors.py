"""A draft's citations of a section by its heading (``knowledge/pump.md#2-风险等级表``, a link
``../crops/pump.md#2-风险等级表``), checked against the document as the draft's base commit
holds it (`kbtools.agents.draft` files the draft). A heading the document does not have was
filed without a word, a citation that reads nothing, as one of lines past its end was
before it was refused: now it is refused too, naming the heading and the closest one.

A heading is named as `read` takes a link's anchor (`kbtools.agents.read.anchored_section`):
its anchor, its ``{#custom-id}``, its text or its section number; one followed by running
text without a break (``#风险等级表中的高风险一行``) is the heading it starts with.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import git

from kbtools.agents.citation_text import narrow_width
from kbtools.agents.read import anchored_section
from kbtools.config import Config
from kbtools.corpus import SourceDoc, decode, parse_source
from kbtools.errors import KbError, UsageError, one_line
from kbtools.gitobjects import read_blob
from kbtools.markdown.doctree import Document, parse
from kbtools.markdown.frontend import scan
from kbtools.markdown.heading_paths import norm
from kbtools.markdown.parser import custom_ids, github_slugs, heading_title

# a citation's heading after its document's name: the path before it is read back from
# there, up to `MAX_CITED_PATH` characters; the anchor runs to a blank, a character a path
# in running text does not hold or a sentence's punctuation (。，、 narrowed to ASCII or not)
_CITED_ANCHOR = re.compile(r"\.(?:md|markdown)#([^\s()\[\]<>\"'`|*,;:!?。、」』】》“”‘’…]+)",
                           re.IGNORECASE)
MAX_CITED_PATH = 1024
_PATH_ENDS = " \t\n()[]<>\"'`|*"  # what a path in running text does not hold
_NUMBER = re.compile(r"^\s*\d+(?:[.-]\d+)*[.、)]?[\s-]*")  # a heading's number: "3.2 ", "2-"
_LINES_ANCHOR = re.compile(r"L\d+(?:-L?\d+)?", re.IGNORECASE)  # a code host's lines: #L10-L20


def cited_missing_heading(repo: git.Repo, cfg: Config, base: str, prefix: str, folder: str,
                          committed: frozenset[str], text: str) -> None:
    """Refuse a draft whose `text` cites a heading a document does not have at the base
    commit `base` (``pump.md#不存在``), naming the heading and the document's closest
    one. `folder`: the draft's folder, which a link's path is relative to. A citation of a
    document the base does not hold is left to the reviewer (and a link to `kb check`)."""
    narrow = narrow_width(text)  # ＃ and ．ｍｄ as an input method types them
    knowledge = cfg.path("knowledge").relative_to(cfg.root).as_posix()
    read: dict[str, Headings | None] = {}  # each document cited, parsed once
    for m in _CITED_ANCHOR.finditer(narrow):
        anchor = unquote(m.group(1)).rstrip(".")
        if not anchor or _LINES_ANCHOR.fullmatch(anchor):
            continue
        start = path_start(narrow, m.start())
        path = narrow[start:m.start(1) - 1]
        doc = cited_doc(path, knowledge, folder, committed)
        if doc is not None and doc not in read:
            data = read_blob(repo, f"{base}:{prefix}{doc}")
            read[doc] = doc_headings(decode(data)[0], doc) if data is not None else None
        if doc is None or (headings := read[doc]) is None:
            continue
        closest = missing_heading(headings, anchor)
        if closest is not None:
            near = f"; the closest it has: {closest}" if closest else "; it has no headings"
            raise UsageError(one_line(
                f"the draft cites {text[start:m.end()]}, but {doc} has no heading "
                f"'#{one_line(anchor, 80)}' at its base {base[:12]}{near}; cite a heading "
                "it has, as a search result's citation or heading_path gives it"))


def path_start(narrow: str, end: int) -> int:
    """Where the path of a citation in running text starts, read back from its document
    name's end `end` (the `.md` of ``pump.md#x`` or ``pump.md:65``) to a character a path does
    not hold, at most `MAX_CITED_PATH` characters back."""
    start = end
    while start > max(0, end - MAX_CITED_PATH) and narrow[start - 1] not in _PATH_ENDS:
        start -= 1
    return start


def cited_doc(path: str, knowledge: str, folder: str, committed: frozenset[str]) -> str | None:
    """The document of `committed` a citation's `path` names: as written (repo-relative),
    inside the knowledge folder, relative to the draft's `folder` (a link), or by its file
    name when one document alone has it."""
    path = path.removeprefix("./")
    for name in (path, f"{knowledge}/{path}", posixpath.normpath(posixpath.join(folder, path))):
        if name in committed:
            return name
    found = [c for c in committed if c.endswith("/" + path)]
    return found[0] if len(found) == 1 else None


@dataclass(frozen=True)
class Headings:
    """A cited document's headings, parsed once for all its citations."""

    src: SourceDoc
    parsed: Document
    titles: list[str]
    slugs: list[str]
    names: list[set[str]]  # per heading, what names it when running text follows (`norm`ed)


def doc_headings(text: str, doc: str) -> Headings:
    """The headings of document `doc`, whose text is `text`."""
    src = parse_source(text, Path(doc), doc)
    found = scan(src.body, src.body_line)
    titles = [heading_title(found.anchor_texts.get(line, t)) for line, t in found.headings]
    slugs = github_slugs(titles)
    names = [{norm(n) for n in (title, slug, _NUMBER.sub("", title), _NUMBER.sub("", slug),
                                *custom_ids(raw)) if len(n.strip()) > 1}
             for (_, raw), title, slug in zip(found.headings, titles, slugs, strict=True)]
    return Headings(src, parse(src), titles, slugs, names)


def missing_heading(headings: Headings, anchor: str) -> str | None:
    """None when the document has a heading `anchor` names, alone or followed by running
    text; else its heading closest to `anchor`, as ``#anchor (heading)`` ("" for a
    document without headings)."""
    try:
        anchored_section(headings.parsed, headings.src, anchor)
        return None
    except KbError:
        pass
    asked = norm(anchor)
    if any(asked.startswith(n) for names in headings.names for n in names):
        return None  # the heading, then running text
    if not headings.titles:
        return ""
    pairs = list(zip(headings.titles, headings.slugs, strict=True))
    ratio = [max(difflib.SequenceMatcher(None, asked, norm(n)).ratio() for n in pair)
             for pair in pairs]
    best = max(range(len(pairs)), key=lambda i: (ratio[i], -i))
    return f"#{headings.slugs[best]} ({one_line(headings.titles[best], 80)})"
