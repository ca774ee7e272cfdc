"""Obsidian block references (`#^leak-rule`) resolved against the note they name.

Obsidian gives a paragraph, list item or heading an id written at its end (`… 停机。
^leak-rule`), or a table, quote or callout one on a line of its own below it, and links
to it as `[[note#^leak-rule]]` (with wikilinks) or `[x](note.md#^leak-rule)` (with
standard links). GitHub's page gives a block no anchor, so such a link opens nothing
there (a device's page does: `kbtools.serve.editors.block_ids`); the nearest link that
works everywhere is the heading the block stands under.

- `block_ids(body, body_line)`: the ids a note's text gives its blocks, each with its
  line, read from the parser's block tokens as `kbtools.markdown.hidden` reads the id it
  leaves out of a paragraph or heading (never in code, a table cell or math).
- `read_blocks`: those of a document with the section heading each stands under (its
  title as shown and its anchor, the slug `kb check` accepts for it), read once per run.
- `block_advice`: what a finding of a block reference says of the block: where it is and
  the heading it stands under (the one to link), or that the note has no such block (and
  the one id closest, if any).

A finding built from another document's text is never cached with the linking document
(`kbtools.check.anchors` makes it, as it makes those of headings).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kbtools.check.fscache import close_names
from kbtools.corpus import decode, parse_source, read_source
from kbtools.errors import SourceError
from kbtools.markdown.frontend import scan
from kbtools.markdown.parser import block_id_at, github_slugs, heading_title, parse_blocks

# the block tokens whose inline text may end in a block id (a table cell's may not)
ID_OPENERS = frozenset({"paragraph_open", "heading_open"})
CONTAINERS = frozenset({"blockquote_open", "blockquote_close", "bullet_list_open",
                        "bullet_list_close", "ordered_list_open", "ordered_list_close"})


@dataclass(frozen=True)
class BlockAt:
    """Where a block id stands: its line, and the section heading above it (or on it)."""

    line: int  # the file line of the paragraph, item or heading the id ends
    heading: str  # the heading's title as shown ("" = none above: the document's top)
    slug: str  # the heading's anchor ("" = none)


Blocks = dict[str, BlockAt]


def block_ids(body: str, body_line: int) -> dict[str, int]:
    """The block ids of a document's body, each with the file line of its block (the first
    id of a name wins, as Obsidian links the first): the paragraph, item or heading it
    ends, or, written on a line of its own right below a callout, quote or list (which
    Markdown reads as their last line), the first line of the outermost one."""
    found: dict[str, int] = {}
    tokens = parse_blocks(body, {})
    open_at: list[int] = []  # first lines of the quotes and lists open around a token
    for before, tok in zip(tokens, tokens[1:], strict=False):
        if tok.type in CONTAINERS:
            if tok.nesting == 1:
                open_at.append(tok.map[0] if tok.map else 0)
            elif open_at:
                open_at.pop()
        if tok.type != "inline" or before.type not in ID_OPENERS or not tok.map:
            continue
        text = tok.content.rstrip()
        at = block_id_at(text)
        if at >= 0:
            below = at > 0 and text[at - 1] == "\n" and open_at
            found.setdefault(text[at + 1:], body_line + (open_at[0] if below else tok.map[0]))
    return found


def blocks_of_text(text: str, path: Path, rel: str) -> Blocks:
    """The block ids of a document's text, each with the section heading above it."""
    src = parse_source(text, path, rel)
    result = scan(src.body, src.body_line)
    titles = [heading_title(result.anchor_texts.get(line, shown))
              for line, shown in result.headings]
    anchors = dict(zip([line for line, _ in result.headings],
                       zip(titles, github_slugs(titles), strict=True), strict=True))
    sections = sorted(line for line, _ in result.heading_levels)
    out: Blocks = {}
    for ident, line in block_ids(src.body, src.body_line).items():
        above = [h for h in sections if h <= line]
        title, slug = anchors.get(above[-1], ("", "")) if above else ("", "")
        out[ident] = BlockAt(line, title, slug)
    return out


def read_blocks(rel: str, known: dict[str, Blocks | None], root: Path,
                max_bytes: int) -> Blocks | None:
    """The block ids of the document `rel` (root-relative), read once into `known` (None:
    unreadable, or no note)."""
    if rel not in known:
        known[rel] = None
        if rel.lower().endswith((".md", ".markdown")):
            try:
                text, _ = decode(read_source(root / rel, root, max_bytes))
                known[rel] = blocks_of_text(text, root / rel, rel)
            except (SourceError, RecursionError):
                pass
    return known[rel]


def block_advice(ident: str, blocks: Blocks | None, where: str) -> tuple[BlockAt | None, str]:
    """The block `^ident` of the document shown as `where` (None: no such block, or its
    blocks unknown), and what a finding says of it ("" when unknown): where the block is
    and the heading it stands under, or that the note has no such block (and the one id
    closest). An id in another letter case is the block (Obsidian finds it so)."""
    if blocks is None:
        return None, ""
    at = blocks.get(ident) or next((b for i, b in blocks.items() if i.lower() == ident.lower()),
                                   None)
    if at is None:
        near = close_names(ident, blocks)
        return None, f"{where} has no block '^{ident}'" + \
            (f" (did you mean '^{near[0]}'?)" if near else "")
    place = f"the block (line {at.line} of {where})"
    if not at.slug:
        return at, f"{place} stands under no heading"
    return at, f"{place} stands under the heading '{at.heading}'"
