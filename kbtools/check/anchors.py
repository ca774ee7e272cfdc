"""Anchors that must name a heading of a document, resolved once every document is read.

- `#fragment` links whose file exists (`AnchorTarget`): `link-anchor` when no heading,
  `{#id}` or HTML id of that document has the slug, saying the anchor of a heading it
  writes as its title (`#安装步骤（二）` for `#安装步骤二`), else suggesting the one closest heading, or
  naming those tied for closest (`closest_headings`: the rule `settle` follows), and, when
  a path fix rewrites the link, what `--fix` writes of the anchor.
- the anchor of the link `kb check --fix` writes for an Obsidian `[[note#Heading]]`
  (`Edit.doc`, `Edit.fragment`): a heading the note lacks is found here, and `settle` says
  what `--fix` writes instead: the closest heading when exactly one is closest, else the
  link to the note without an anchor (to a heading of the same document: nothing). The
  wikilink's own finding, which says what `--fix` writes, is made here too: the results
  cache keeps a document's findings by its own bytes, and the note's headings may change.
- the anchor a path fix (`path-case`, `path-backslash`, `path-absolute`, `path-unicode`)
  keeps: `settle` writes the closest heading or none, as for a wikilink (its `link-anchor`
  is the link's `AnchorTarget`'s); a path fix whose finding names what it writes
  (`path-absolute`: `Edit.said`) has that finding made here, for the same reason. A fix
  never writes an anchor `kb check` would then flag.
- an anchor written twice (`[安装](pump.md#安装#安装)`, a heading path's paste): the one
  fragment is suggested, and `--fix` writes it only when it names a heading
  (`anchor_edit`, `settle`); so is one written in decomposed Unicode (NFD), composed, and
  one written as a heading's title (`#Replacing%20the%20seal`), as its anchor.
- a `path-missing` suggestion with an anchor (`Edit.hint`, never written): its "did you
  mean" names the closest heading of the suggested document, or none, as `settle` would.
"""

from __future__ import annotations

import dataclasses
import difflib
import posixpath
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import unquote

from kbtools.check import aliases, wikilinks
from kbtools.check.blocks import BlockAt, Blocks, block_advice
from kbtools.check.fscache import close_names
from kbtools.check.links import ASKED, AnchorTarget, Edit, written_path
from kbtools.corpus import decode, parse_source, read_source
from kbtools.errors import SourceError
from kbtools.findings import Finding, finding
from kbtools.markdown.frontend import Ref, scan
from kbtools.markdown.parser import slugify

SlugsOf = Callable[[str], frozenset[str] | None]  # a document's anchors (None: unreadable)
BlocksOf = Callable[[str], Blocks | None]  # a note's block ids (`kbtools.check.blocks`)


def read_slugs(rel: str, known: dict[str, frozenset[str] | None], root: Path,
               max_bytes: int) -> frozenset[str] | None:
    """The anchors of the document `rel` (root-relative), read once into `known`."""
    if rel not in known:
        try:
            text, _ = decode(read_source(root / rel, root, max_bytes))
            src = parse_source(text, root / rel, rel)
            known[rel] = scan(src.body, src.body_line).slugs()
        except (SourceError, RecursionError):
            known[rel] = None
    return known[rel]


def _block_hint(fragment: str, doc: str, rel: str, blocks_of: BlocksOf | None) -> str:
    """What to link instead of an Obsidian block reference (`#^leak-rule`: what Obsidian
    writes for a link to a paragraph when it writes standard links): the heading the block
    stands under, or that `doc` has no such block; "" for another fragment."""
    if not fragment.startswith("^"):
        return ""
    blocks = blocks_of(doc) if blocks_of is not None else None
    at, said = block_advice(fragment[1:], blocks, _where(doc, rel))
    head = (f"; '#{fragment}' is an Obsidian block reference, and GitHub's page gives a block "
            "no anchor")
    if not said:
        return f"{head}: link the heading above the block (or the document)"
    if at is None:
        return f"{head}; {said}: link a heading of it (or the document)"
    return f"{head}; {said}: " + (f"link '#{at.slug}'" if at.slug else
                                   "link the document, without an anchor")


def anchor_findings(rel: str, anchors: Iterable[AnchorTarget], edits: Iterable[Edit],
                    slugs_of: SlugsOf, blocks_of: BlocksOf | None = None) -> list[Finding]:
    """`link-anchor` for each anchor of the document `rel` that names no heading of its
    document; the finding of each edit whose finding says what `--fix` writes, which
    depends on the headings (`settle`: a wikilink's one `link-wikilink` line says too what
    is wrong with the heading it names), and of each wikilink to a block of a note
    (`blocks_of`: what it says depends on the note)."""
    edits = list(edits)
    fixed = {(e.line, e.col): e for e in edits if e.fragment and e.old and not e.wikilink}
    out = []
    for a in anchors:
        slugs = slugs_of(a.doc) if a.fragment else None
        fragment = unquote(a.fragment)
        if slugs is None or fragment in slugs:
            continue
        message = _title_said(fragment, slugs, _where(a.doc, rel)) or (
            f"no heading '#{fragment}' in {_where(a.doc, rel)}" + (
                _block_hint(fragment, a.doc, rel, blocks_of)
                or _hint(closest_headings(fragment, slugs)))) + (
            " (it is written in decomposed Unicode, NFD, as a Mac writes a name: an anchor "
            "is composed, NFC, and a browser compares them byte for byte)"
            if decomposed(fragment) else "")
        edit = fixed.get((a.line, a.col))
        settled = settle(edit, slugs_of, rel)[0] if edit is not None else None
        if edit is not None and (settled is not None
                                 or edit.code not in (ANCHOR_ONLY, TITLE_ANCHOR)):
            # a fix rewrites this link: say what it does to the anchor
            written = settled or edit
            message += f"; `kb check --fix` links to '#{written.fragment}'" \
                if written.fragment else "; `kb check --fix` drops the anchor"
        out.append(finding(rel, a.line, a.col, "error", "link-anchor", message))
    for edit in edits:
        if not edit.told_with_anchors:
            continue
        if edit.wikilink and edit.hint:  # a block reference: named, never written
            out.append(_block_wikilink(edit, rel, blocks_of))
            continue
        settled, note = settle(edit, slugs_of, rel)
        if not edit.wikilink:  # a path fix: its anchor is an `AnchorTarget`, flagged above
            asked = "?" if edit.said.endswith(ASKED) else ""
            out.append(finding(rel, edit.line, edit.col, "error", edit.code,
                               f"{edit.said}{(settled or edit).new!r}{asked}"))
            continue
        link = wikilinks.parse_wikilink(edit.old)
        new = settled.new if settled else None
        # one line: what is wrong with its heading (`note`) told before what `--fix` writes
        out.append(finding(rel, edit.line, edit.col, "error", wikilinks.CODE,
                           wikilinks.fix_message(link, new, wikilinks.case_note(
                               link, edit.doc, rel) + (f"; {note}" if note else ""))
                           if wikilinks.names_file(link, edit.doc, rel) else
                           aliases.fix_said(link, edit.doc, rel, new, note)))
    return out


def _block_wikilink(edit: Edit, rel: str, blocks_of: BlocksOf | None) -> Finding:
    """The finding of a wikilink to a block of the note `edit.doc` (`[[note#^id]]`): the
    standard link to the heading the block stands under, which `--fix` does not write (the
    link would open the section, not the block: the author's call), or that the note has
    no such block."""
    link = wikilinks.parse_wikilink(edit.old)
    blocks = blocks_of(edit.doc) if blocks_of is not None else None
    at, said = block_advice(edit.fragment[1:], blocks, _where(edit.doc, rel))
    message = f"{wikilinks.describe(link)}; " + (
        "" if wikilinks.names_file(link, edit.doc, rel) else
        f"{aliases.alias_said(link, edit.doc, rel)}; ") + \
        "a block reference (#^…) has no Markdown equivalent"
    if not said:  # no note read (a picture's name, an unreadable file): as before
        message += ": write a standard link to the document or one of its headings"
    elif at is None:
        message += f", and GitHub's page gives a block no anchor; {said}: write a standard link to " \
            "the note or one of its headings"
    else:
        message += f", and GitHub's page gives a block no anchor; {said}: write " \
            f"{wikilinks.quoted(_heading_link(link, at, edit.doc, rel))}"
    return finding(rel, edit.line, edit.col, "error", wikilinks.CODE,
                   f"{message} ({wikilinks.SETTINGS})")


def _heading_link(link: wikilinks.Wikilink, at: BlockAt, doc: str, rel: str) -> str:
    """The standard link to the heading a block stands under (`at`), from `rel`: the
    wikilink's label kept, else `note > heading` as a wikilink's fix writes it; the note
    without an anchor when no heading is above the block."""
    shown = link.label or " > ".join(p for p in (link.target, at.heading) if p) or \
        posixpath.splitext(posixpath.basename(doc))[0]  # the note's name, as Obsidian shows it
    written = wikilinks.standard_link(dataclasses.replace(
        link, embed=False, heading="", label=shown), doc, rel)  # `[shown](the note)`
    if not at.slug:
        return written
    dest = "" if doc == rel else written[written.rindex("](") + 2:-1]
    return f"{written[:written.rindex('](')]}]({dest}#{written_path(at.slug)})"


def title_anchor(fragment: str) -> str | None:
    """The anchor of a heading whose title `fragment` writes otherwise than its anchor
    (`安装步骤（二）` and `安装步骤(二)` -> `安装步骤二`, `Setup Steps` -> `setup-steps`): the
    fragment as a heading's title is made an anchor (`slugify`, spaces as the title's text
    reads them); None when that is the fragment but for case (`closest_headings` says so)."""
    slug = slugify(" ".join(fragment.split()))
    return slug if slug and slug != unicodedata.normalize("NFC", fragment).lower() else None


def _title_said(fragment: str, slugs: frozenset[str], where: str) -> str:
    """What a `link-anchor` finding says of an anchor written as a heading's title, as
    Typora and Obsidian follow one (`#安装步骤（二）`, its full-width or half-width
    punctuation either way): a browser, on GitHub's page and the web app's, finds no such
    anchor; the one to write. "" when the fragment is no heading's title."""
    slug = title_anchor(fragment)
    if slug is None or slug not in slugs:
        return ""
    return (f"'#{fragment}' names a heading of {where} by its title, not its anchor: write "
            f"'#{slug}' (an anchor is the title in lower case, its punctuation dropped and "
            "each space a '-', as GitHub's page and the web app make it; Typora and Obsidian "
            "follow a title, a browser does not)")


def _hint(close: list[str]) -> str:
    """What a `link-anchor` finding suggests for the headings `close` (`closest_headings`):
    the one closest, else those tied for closest, which `--fix` never chooses between."""
    if len(close) == 1:
        return f"; did you mean '#{close[0]}'?"
    if not close:
        return ""
    listed = [f"'#{c}'" for c in close[:MAX_NAMED]] + ["…"] * (len(close) > MAX_NAMED)
    return f"; no one heading is the closest: {' or '.join(listed)}?"


MAX_NAMED = 3  # headings tied for closest a finding names


def closest_headings(fragment: str, slugs: frozenset[str]) -> list[str]:
    """The anchors of `slugs` a missing `fragment` most likely means, sorted: those the same
    but for letter case, else the one more alike (`close_names`) than any other, or those
    at least as alike as the first close one (at most MAX_NAMED + 1 of them)."""
    key = unicodedata.normalize("NFC", fragment).lower()
    same = sorted(s for s in slugs if unicodedata.normalize("NFC", s).lower() == key)
    if same:
        return same
    if (slug := title_anchor(fragment)) is not None and slug in slugs:  # `#安装步骤（二）`
        return [slug]
    if (once := _once(fragment)) is not None:  # `安装#安装`: the heading `安装`, or near it
        return [once] if once in slugs else closest_headings(once, slugs)
    near = close_names(fragment, slugs)
    if not near:
        return []
    tied = near
    while len(tied) <= MAX_NAMED:
        runner_up = close_names(fragment, slugs - set(tied))
        if not runner_up or _alike(fragment, runner_up[0]) < _alike(fragment, near[0]):
            break
        tied = tied + runner_up
    return sorted(tied)


def _once(fragment: str) -> str | None:
    """The fragment written more than once in `fragment` (`安装#安装` -> `安装`; decoded,
    `%E5%AE%89%E8%A3%85#安装` too), None when it is no repetition."""
    first, *more = fragment.split("#")
    return first if more and first and all(unquote(m) == unquote(first) for m in more) \
        else None


ANCHOR_ONLY = "link-anchor"  # `Edit.code` of an edit rewriting a link's anchor alone
# ... to the anchor of the heading its fragment writes as a title: written when that names a
# heading, else no edit at all (its finding says what is wrong; nothing was a guess)
TITLE_ANCHOR = "link-anchor-title"


def anchor_edit(ref: Ref, anchor: AnchorTarget) -> Edit | None:
    """The edit of the anchor alone of the link `ref`, as written: the fragment written
    twice written once (`pump.md#安装#安装` -> `pump.md#安装`), a heading's title written
    as its anchor (`#Replacing%20the%20seal` -> `#replacing-the-seal`), or one written in decomposed
    Unicode (NFD: pasted from a Mac's file name or title) composed, as GitHub's anchors
    and `kb check`'s are (`#réglage`); `settle` writes it only when it names a heading.
    None for another fragment, or a destination not located as written."""
    path, hash_, fragment = ref.raw.partition("#")
    once = _once(fragment) if hash_ else None
    if once is not None and _once(anchor.fragment) is not None:
        return Edit(ref.line, ref.col, ref.raw, f"{path}#{once}", anchor.doc, once,
                    code=ANCHOR_ONLY)
    # `#Replacing%20the%20seal`, as Typora and Obsidian follow a title (not a block's `#^id`)
    plain = unicodedata.normalize("NFC", unquote(fragment))
    title = title_anchor(plain) if hash_ and not plain.startswith("^") else None
    if title is not None:
        written = written_path(title)
        return Edit(ref.line, ref.col, ref.raw, f"{path}#{written}", anchor.doc, written,
                    code=TITLE_ANCHOR)
    if not hash_ or not decomposed(fragment):
        return None
    composed = unicodedata.normalize("NFC", fragment)
    return Edit(ref.line, ref.col, ref.raw, f"{path}#{composed}", anchor.doc, composed,
                code=ANCHOR_ONLY)


def decomposed(fragment: str) -> bool:
    """Whether `fragment` (as written, or percent-decoded) is not in composed Unicode."""
    return not unicodedata.is_normalized("NFC", fragment)


def closest_heading(fragment: str, slugs: frozenset[str]) -> str | None:
    """The anchor of `slugs` a missing `fragment` most likely means, when exactly one is
    closest (`closest_headings`): what `--fix` links to."""
    close = closest_headings(fragment, slugs)
    return close[0] if len(close) == 1 else None


def _alike(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def settle(edit: Edit, slugs_of: SlugsOf, rel: str) -> tuple[Edit | None, str]:
    """The edit `--fix` may write in place of `edit` (made in the document `rel`), and why
    it differs ("": `edit` as it is; None: no edit, said why, or no edit to speak of when
    "" too: a title's anchor naming no heading): the anchor ending what it writes (a
    wikilink's link, a path rewritten with its `#anchor` kept) must name a heading."""
    if not edit.fragment:
        return edit, ""
    slugs = slugs_of(edit.doc)
    wanted = unquote(edit.fragment)
    if slugs is not None and edit.wikilink and (ambiguous := _path_repeated(edit, wanted, slugs)):
        return None, ambiguous
    if slugs is None or wanted in slugs:
        return edit, ""
    if edit.code == TITLE_ANCHOR:  # the title names no heading: nothing to write
        return None, ""
    if edit.code == ANCHOR_ONLY:  # the anchor written once names no heading either
        return None, f"no heading '#{wanted}' in {_where(edit.doc, rel)}: link one by hand"
    close = ")" if edit.wikilink else ""  # a wikilink's fix writes a whole link
    suffix = f"#{edit.fragment}{close}"
    if not edit.new.endswith(suffix):
        return edit, ""
    head = edit.new[:-len(suffix)]
    missing = f"no heading '#{wanted}' in {_where(edit.doc, rel)}"
    near = closest_heading(wanted, slugs)
    if near is not None:
        written = written_path(near)
        return (dataclasses.replace(edit, new=f"{head}#{written}{close}", fragment=written),
                f"{missing}; linked to '#{near}', the one closest heading")
    if edit.wikilink and head.endswith("]("):  # a heading of this document: no link to write
        return None, f"{missing}, and no heading is the one closest: link to one by hand"
    return (dataclasses.replace(edit, new=head + close, doc="", fragment=""),
            f"{missing}, and no heading is the one closest: linked to the document, "
            "without an anchor")


def _path_repeated(edit: Edit, wanted: str, slugs: frozenset[str]) -> str:
    """Why a wikilink naming a heading by its path (`[[pump#安装#注意事项]]`: the one under
    `安装`, as Obsidian follows it) is not fixed when the note has several headings of that
    text: its anchor (`#注意事项`, `#注意事项-1`…) is not read from the path ("" = fixed)."""
    heading = wikilinks.parse_wikilink(edit.old).heading
    if "#" not in heading.strip("#"):
        return ""  # a heading by its text alone: Obsidian's is the first, as the anchor's
    same = [wanted] + sorted((s for s in slugs if s.startswith(wanted + "-")
                              and s[len(wanted) + 1:].isdigit()),
                             key=lambda s: int(s[len(wanted) + 1:]))
    if wanted not in slugs or len(same) < 2:
        return ""
    title = heading.rsplit("#", 1)[-1].strip()
    listed = ", ".join(f"'#{s}'" for s in same[:MAX_NAMED]) + (", …" if len(same) > MAX_NAMED
                                                             else "")
    return (f"the note has {len(same)} headings {title!r} ({listed}): which one the heading "
            "path names is not read here, so link to it by hand")


def _where(doc: str, rel: str) -> str:
    return "this document" if doc == rel else doc
