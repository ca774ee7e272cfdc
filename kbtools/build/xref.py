"""Cross references: "见 4.3 节", "see section 2.1", "§2.1", Markdown links (inline and
reference links: `[text][label]` with `[label]: other.md#anchor`) and HTML links
(`<a href="other.md#anchor">`), resolved.

`HeadingIndex.build(docs)` indexes the headings of every document of a corpus (by doc
path, section number, anchor and document title); `find_links(text, first_line, doc,
index)` finds the references written in a run of text and resolves each to a `Link`
(target document and heading path; empty when unresolved). A heading is keyed by its section
number (`section_number`), its anchor (`kbtools.markdown.parser.github_slugs`, the slugs
`kb check` validates `#anchor` links with, a repeated heading's `-1`, `-2`…) and its
`{#custom-id}`s.
"""

from __future__ import annotations

import bisect
import posixpath
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from markdown_it.common.utils import normalizeReference

from kbtools.build.records import Link
from kbtools.corpus import SourceDoc
from kbtools.markdown.doctree import Document, Paragraph, parse
from kbtools.markdown.heading_paths import SECTION_NUMBER, ascii_number, section_number
from kbtools.markdown.html_tags import start_tags
from kbtools.markdown.nodes import Heading
from kbtools.markdown.parser import block_id_at, custom_ids, github_slugs, heading_title
from kbtools.textfind import occurrences

# Simplified and Traditional (節, 見, 參見 …) forms alike
_REF_NUM = re.compile(rf"(?<![\d.．])(?P<num>{SECTION_NUMBER})[ \t]{{0,2}}(?:小节|小節|节|節|章)")
_REF_BEFORE = re.compile(r"(?P<pre>详见|詳見|参见|參見|参阅|參閱|参考|參考|请见|請見|见|見)?[ \t]{0,2}"
                         r"(?:《(?P<title>[^》\n]{1,60})》[ \t]{0,2}(?:的|中的)?[ \t]{0,2})?"
                         r"(?P<di>第)?[ \t]{0,2}$")
_REF_EN = re.compile(rf"(?i)(?:\b(?:section|chapter|sect\.)\s*|§\s*)(?P<num>{SECTION_NUMBER})")
# Linear time: the link text holds no `[` and the destination at most one level of balanced
# parentheses, so no attempt reads past the opener of the next one; or the destination is
# written in `<…>` (spaces allowed: `[手册](<液压 手册.md#4.3>)`, as `kb check` suggests).
_MD_LINK = re.compile(r"(?<!!)\[(?P<label>[^\[\]\n]*)\]\((?:<(?P<angle>[^<>\n]*)>|"
                      r"(?P<href>(?:[^()\s]|\([^()\s]*\))++))(?:\s+\"[^\"]*\")?\)")
# A link written as HTML (`<a href="泵.md#安装">泵的安装</a>`, Typora's and a pasted page's,
# its text in tags or not: `<a href="x.md"><b>泵</b></a>`), read by `html_tags`; text holding
# no `<a` followed by a blank has none.
_HTML_LINK_OPEN = re.compile(r"<a\s", re.I)
_LINK_TAG = frozenset({"a"})
# A reference link, `[text][label]`, `[label][]` or `[label]`, resolved through the document's
# definitions (`Document.references`); not an image, a definition (`[label]: href`), an
# inline link's text or a wikilink's inside. Linear time: no bracket inside either part.
_REF_LINK = re.compile(r"(?<![!\[\]\\])\[(?P<text>[^\[\]\n]*)\](?:\[(?P<label>[^\[\]\n]*)\])?"
                       r"(?![(\[:\]])")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


# (path, section number, anchors, the anchor its page gives it)
HeadingRows = tuple[tuple[tuple[str, ...], str, frozenset[str], str], ...]
Target = tuple[tuple[str, ...], str]  # a heading's path and the anchor its page gives it


def heading_rows(doc: Document) -> HeadingRows:
    """Every heading of `doc` as `HeadingIndex` keys it: path, section number, anchors (the
    slug of its title, or of the text its anchor is made of: `Heading.anchor`, with GitHub's
    de-duplication, as `kb check` and a device's page make them: the second `## 注意事项` is
    `#注意事项-1`; and its `{#custom-id}`s) and the one of them its page gives it (the `id`
    a link to it ends with)."""
    heads = list(doc.headings())
    # a heading in a quote or a list (`> ## 注意`, a callout's) is no section, yet GitHub
    # counts it among the repeated ones
    nested = [(block.line_start, heading_title(block.text if block.anchor is None
                                               else block.anchor))
              for _, block in doc.blocks() if isinstance(block, Heading)]
    titles = sorted([*((heading.line_start, path[-1] if heading.anchor is None
                        else heading_title(heading.anchor)) for path, heading in heads),
                     *nested], key=lambda row: row[0])
    slug_at = dict(zip((line for line, _ in titles),
                       github_slugs(title for _, title in titles), strict=True))
    ids = block_anchors(doc, [heading for _, heading in heads])
    return tuple((path, section_number(path[-1]),
                  frozenset([slug_at[heading.line_start], *custom_ids(heading.text), *ids[i]]),
                  slug_at[heading.line_start])
                 for i, (path, heading) in enumerate(heads))


def block_anchors(doc: Document, heads: list[Heading]) -> list[list[str]]:
    """The Obsidian block ids (`… 停机。 ^leak-rule`, `## 上限 ^limits`, `^id` on a line of its
    own below a table or callout) as anchors (`^leak-rule`) of the section heading each
    stands under, one list per heading of `heads` (the sections' headings, in order): a link
    to `#^leak-rule` names that heading, the nearest place a page opens (it gives a block no
    anchor; `kbtools.check.blocks` says so of such links). An id above the first heading
    names none."""
    starts = [heading.line_start for heading in heads]
    out: list[list[str]] = [[] for _ in heads]
    written = [(h.line_start, h.text) for h in heads]
    written += [(block.line_start, block.text if isinstance(block, Heading) else block.inline.text)
                for _, block in doc.blocks() if isinstance(block, (Heading, Paragraph))]
    for line, text in written:
        at = block_id_at(text) if "^" in text else -1
        section = bisect.bisect_right(starts, line) - 1
        if at >= 0 and section >= 0:
            out[section].append(text.rstrip()[at:].lstrip())
    return out


@dataclass(frozen=True)
class HeadingIndex:
    """Headings of every document of a corpus, for resolving cross references.

    `HeadingIndex.build(docs)` accepts SourceDocs or parsed Documents (pass Documents when
    you have them: a SourceDoc is parsed here). Lookups by doc path, section number,
    anchor and document title.
    """

    headings: dict[str, HeadingRows]
    titles: dict[str, str]

    @classmethod
    def build(cls, docs: Iterable[SourceDoc | Document]) -> HeadingIndex:
        parsed = (item if isinstance(item, Document) else parse(item) for item in docs)
        return cls.from_rows((doc.rel, doc.title, heading_rows(doc)) for doc in parsed)

    @classmethod
    def from_rows(cls, docs: Iterable[tuple[str, str, HeadingRows]]) -> HeadingIndex:
        """From (doc path, title, `heading_rows` of the doc), in corpus order."""
        headings: dict[str, HeadingRows] = {}
        titles: dict[str, str] = {}
        for rel, title, rows in docs:
            headings[rel] = rows
            titles.setdefault(title, rel)
        return cls(headings, titles)

    def find_doc(self, rel: str) -> str | None:
        """The indexed doc for a path: exact, else the one whose path ends with it; in
        either Unicode form (a link typed composed to a file a Mac named decomposed, or
        the reverse, names it as Obsidian and a Mac find it; `kb check` flags it)."""
        rel = rel.lstrip("/")
        if rel in self.headings:
            return rel
        key = _nfc(rel)
        # a path ending with "/<rel>" has rel's last part as its own
        hits = sorted(d for d in self._by_name().get(posixpath.basename(key), ())
                      if _nfc(d) == key or _nfc(d).endswith("/" + key))
        exact = [d for d in hits if _nfc(d) == key]
        return (exact or hits)[0] if hits else None

    def _by_name(self) -> dict[str, list[str]]:
        """The indexed doc paths by their last part, composed (made on first use)."""
        names: dict[str, list[str]] | None = self.__dict__.get("_names")
        if names is None:
            names = {}
            for d in self.headings:
                names.setdefault(_nfc(posixpath.basename(d)), []).append(d)
            object.__setattr__(self, "_names", names)  # a cache of a frozen value
        return names

    def _lookup(self, kind: str, rel: str) -> dict[str, Target]:
        """`rel`'s headings by section number (`kind` "numbers") or by each anchor in lower
        case ("anchors"), the first heading for each (made on first use, so a document's
        references look up, not scan, its headings: a manual of thousands of sections)."""
        cache: dict[tuple[str, str], dict[str, Target]] = self.__dict__.setdefault("_lookups", {})
        found = cache.get((kind, rel))
        if found is None:
            found = {}
            for path, num, slugs, anchor in self.headings.get(rel, ()):
                for key in ([num] if kind == "numbers" else [_nfc(s).lower() for s in slugs]):
                    found.setdefault(key, (path, anchor))
            cache[(kind, rel)] = found
        return found

    def by_number(self, rel: str, number: str) -> Target | None:
        """The first heading of `rel` numbered `number`: its path and page anchor."""
        return self._lookup("numbers", rel).get(number)

    def by_number_near(self, rel: str, number: str) -> tuple[str, Target] | None:
        """Section `number` in `rel`, else in the one sibling document (same folder) that has
        it — manuals split into chapter files refer to "见 4.4 节" across files. When several
        siblings have it, the one sharing the longest file-name prefix wins (ties: none)."""
        path = self.by_number(rel, number)
        if path:
            return rel, path
        hits = [hit for hit in self._numbered_in(posixpath.dirname(rel)).get(number, ())
                if hit[0] != rel]
        if len(hits) > 1:
            name = posixpath.basename(rel)
            score = [len(posixpath.commonprefix([name, posixpath.basename(d)])) for d, _ in hits]
            best = max(score)
            hits = [h for h, sc in zip(hits, score, strict=True) if sc == best]
        return hits[0] if len(hits) == 1 else None

    def _numbered_in(self, folder: str) -> dict[str, list[tuple[str, Target]]]:
        """The first heading numbered each section number in each indexed doc of `folder`,
        docs in sorted order (made on first use, once per folder: a fault-code table of
        thousands of rows, each citing "见 3.2 节", looks its number up, not every sibling
        document's headings)."""
        numbered: dict[str, dict[str, list[tuple[str, Target]]]] = \
            self.__dict__.setdefault("_numbered", {})
        found = numbered.get(folder)
        if found is None:
            folders: dict[str, list[str]] | None = self.__dict__.get("_folders")
            if folders is None:  # the indexed docs by folder, sorted (made on first use)
                folders = {}
                for d in sorted(self.headings):
                    folders.setdefault(posixpath.dirname(d), []).append(d)
                object.__setattr__(self, "_folders", folders)  # a cache of a frozen value
            found = {}
            for d in folders.get(folder, ()):
                for number, target in self._lookup("numbers", d).items():
                    found.setdefault(number, []).append((d, target))
            numbered[folder] = found
        return found

    def by_anchor(self, rel: str, anchor: str) -> tuple[str, ...] | None:
        target = self.target_of(rel, anchor)
        return target[0] if target else None

    def target_of(self, rel: str, anchor: str) -> Target | None:
        """The heading of `rel` an `#anchor` names (any of its anchors, in any case and
        Unicode form): its path and the anchor its page gives it."""
        return self._lookup("anchors", rel).get(_nfc(unquote(anchor)).lower())

    def by_title(self, title: str) -> str | None:
        return self.titles.get(title.strip())


def find_links(text: str, first_line: int, doc: Document, index: HeadingIndex,
               heading_lines: frozenset[int] | None = None) -> tuple[Link, ...]:
    """Cross references in `text` (which starts at file line `first_line`), resolved;
    `heading_lines`: the first lines of `doc`'s headings (found here when not given)."""
    found: list[tuple[int, Link]] = []
    md_links = list(_MD_LINK.finditer(text))
    html_links = _html_links(text)
    ref_links = [(m, href) for m in _REF_LINK.finditer(text) if doc.references
                 and (href := doc.references.get(normalizeReference(m.group("label")
                                                                    or m.group("text"))))
                 is not None]
    ref_nums = list(_REF_NUM.finditer(text))
    ref_en = list(_REF_EN.finditer(text))
    if not (md_links or html_links or ref_links or ref_nums or ref_en):
        return ()  # most chunks: no scan for lines and titles
    newlines, opens, closes = (occurrences(text, ch) for ch in ("\n", "《", "》"))

    def line_at(pos: int) -> int:
        return first_line + bisect.bisect_left(newlines, pos)

    if heading_lines is None:
        heading_lines = frozenset(heading.line_start for _, heading in doc.headings())

    def labels_heading(pos: int) -> bool:
        """Whether the reference at `pos` opens a heading's text (`# 第4章 故障诊断`,
        `## Chapter 5 Fault codes`): the heading's own number, no reference."""
        start = text.rfind("\n", 0, pos) + 1
        return line_at(pos) in heading_lines and not text[start:pos].strip(" \t#")

    def inside_title(pos: int) -> bool:
        """A 《 before `pos` more recent than any 》 (as two rfinds, in log time)."""
        o = bisect.bisect_left(opens, pos) - 1
        c = bisect.bisect_left(closes, pos) - 1
        return o >= 0 and (c < 0 or opens[o] > closes[c])

    for m in md_links:
        href = m.group("href") if m.group("angle") is None else m.group("angle")
        link = _resolve_href(href, m.group(0), doc.rel, index, line_at(m.start()))
        if link is not None:
            found.append((m.start(), link))
    for start, written, href in [*((m.start(), m.group(0), href) for m, href in ref_links),
                                 *html_links]:
        link = _resolve_href(href, written, doc.rel, index, line_at(start))
        if link is not None:
            found.append((start, link))
    for m in ref_nums:
        if inside_title(m.start()):
            continue  # inside a title: 《HX 手册第 1 章》
        # what may stand before it: 《a title》 within 80 characters, else at most 8 (见, 第,
        # blanks, and a line end `$` matches before): no 80 tries of the pattern per reference
        lo = max(0, m.start() - 80)
        if text.find("》", lo, m.start()) < 0:
            lo = max(lo, m.start() - 8)
        b = _REF_BEFORE.search(text, lo, m.start())
        pre, title, di = (b.group("pre"), b.group("title"), b.group("di")) if b else (None,) * 3
        number = ascii_number(m.group("num"))
        if not (pre or di or title or "." in number):
            continue  # "3 节电池" counts batteries; a reference needs 见/第/《》 or "4.3"
        start = b.start() if b and b.end() > b.start() else m.start()
        if not pre and labels_heading(start):
            continue  # (`## 参见 4.1 节` is one)
        hit = None
        if title:
            target = index.by_title(title)
            path = index.by_number(target, number) if target else None
            hit = (target, path) if target and path else None
        else:
            hit = index.by_number_near(doc.rel, number)
        found.append((start, _link(text[start:m.end()].strip(), hit, line_at(start))))
    for m in ref_en:
        if labels_heading(m.start()):
            continue
        hit = index.by_number_near(doc.rel, ascii_number(m.group("num")))
        found.append((m.start(), _link(m.group(0).strip(), hit, line_at(m.start()))))
    found.sort(key=lambda x: x[0])
    return tuple(dict.fromkeys(link for _, link in found))


def _nfc(text: str) -> str:
    """`text` composed (NFC): names and anchors compared as a Mac and Obsidian compare them."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _link(text: str, hit: tuple[str, Target] | None, line: int) -> Link:
    """The reference `text` on `line`, to the heading `hit` names (None: unresolved)."""
    if hit is None:
        return Link(text, "", (), line)
    return Link(text, hit[0], hit[1][0], line, hit[1][1])


def _html_links(text: str) -> list[tuple[int, str, str]]:
    """Each HTML link `<a href=…>text</a>` of `text` as (its start, what is written from its
    `<a` to its `</a>`, or the tag alone with no end tag; its `href` as `kb check` reads it,
    character references decoded)."""
    if not _HTML_LINK_OPEN.search(text):
        return []
    return [(tag.start, text[tag.start:max(tag.end, tag.close)], tag.attrs["href"])
            for tag in start_tags(text, _LINK_TAG) if tag.attrs.get("href")]


def _resolve_href(href: str, written: str, rel: str, index: HeadingIndex, line: int) -> Link | None:
    if _SCHEME.match(href) or href.startswith("//"):
        return None  # external: not a cross reference
    path, _, anchor = href.partition("#")
    path = unquote(path.split("?")[0])
    if not path:
        target: str | None = rel
    else:
        if not path.lower().endswith((".md", ".markdown")):
            return None  # an asset (image, csv, pdf): checked by `kb check`, not a reference
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path)) \
            if not path.startswith("/") else path.lstrip("/")
        target = index.find_doc(joined) or index.find_doc(path.lstrip("./"))
    if target is None:
        return Link(written, "", (), line)
    heading = index.target_of(target, anchor) if anchor else None
    return Link(written, target, heading[0] if heading else (), line,
                heading[1] if heading else "")
