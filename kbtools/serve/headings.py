"""A rendered document's headings: their anchors, and their levels in a passage shown among
search results."""

from __future__ import annotations

from markdown_it.token import Token

from kbtools.markdown.parser import (
    anchor_text,
    heading_text,
    heading_title,
    inline_text,
    slugify,
)


def anchor_headings(tokens: list[Token]) -> None:
    """Each heading's ``id``: the slug of its title (`kb check` validates ``#anchor`` links
    with the same rule), ``-1``, ``-2``… after a title seen before."""
    seen: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open" or i + 1 >= len(tokens):
            continue
        inline = tokens[i + 1]
        anchor = anchor_text(inline.content, inline.children or [])
        text = heading_text(inline.content, inline_text(inline.children or [])) \
            if anchor is None else anchor
        base = slug = slugify(heading_title(text))
        while slug in seen:
            seen[base] += 1
            slug = f"{base}-{seen[base]}"
        seen[slug] = 0
        if slug:
            tok.attrSet("id", slug)


def passage_headings(tokens: list[Token]) -> None:
    """A passage's headings below its result's `<h2>`, and without ids (a page of results
    holds the same section more than once; a `[TOC]` links to the document's): a screen
    reader's list of headings is the results, each with its sections, not the passages'
    `<h1>`s among them."""
    heads = [tok for tok in tokens if tok.type in ("heading_open", "heading_close")]
    shift = 3 - min((int(tok.tag[1]) for tok in heads), default=3)  # its first level: h3
    for tok in heads:
        tok.tag = f"h{min(int(tok.tag[1]) + shift, 6)}"
        tok.attrs.pop("id", None)


def first_heading_level(html: str) -> int | None:
    """The level of the first heading in rendered HTML (`<h1>` … `<h6>`; a document's raw
    HTML is escaped, so these tags are its Markdown headings), None when it has none. A
    document may begin at `##` (its title, in the front matter, heads it as level 1, as
    `kb check` reads it): its page then shows that title as its `<h1>`, else the page had
    none and a screen reader's list of headings began at level 2."""
    found = [(at, level) for level in range(1, 7) if (at := html.find(f"<h{level}")) >= 0]
    return min(found)[1] if found else None
