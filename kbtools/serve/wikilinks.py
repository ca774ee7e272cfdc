"""Obsidian's `[[wikilinks]]` and `![[embeds]]` on a page, as Obsidian shows them.

Standard Markdown reads them as text, so a page showed `![[pump.png|300]]` and
`[[泵站检修#停机 步骤|停机步骤]]` as written (a vault read with `kb build --lenient` keeps
them; `kb check` asks for standard links). `wikilink_tokens` turns each one in a run of text
into what the page's renderer shows for its standard twin (`kbtools.check.wikilinks`
`standard_link` writes the same): an embedded picture an image (at the width its `|300`
gives; the missing-picture mark when the release lacks it), a note, embedded or linked, a
link to its page at the heading it names (no page shows another note inside it), its label
or `note > heading` the link's text; a target the release holds no file for is its text.
Targets resolve as `kb check` resolves them (`relative_names`, `matching`), among the
files the release ships (`RenderContext.files_named`).
"""

from __future__ import annotations

import posixpath
from urllib.parse import quote

from markdown_it.token import Token

from kbtools.check.wikilinks import (
    Wikilink,
    heading_slug,
    image_alt,
    image_size,
    matching,
    parse_wikilink,
    relative_names,
)
from kbtools.markdown.wikitext import WIKILINK
from kbtools.serve.passes import RenderContext


def wikilink_tokens(tokens: list[Token], ctx: RenderContext) -> None:
    """Each wikilink in the text of `tokens`' inline runs (not inside a link) as a link or
    an image, in place."""
    for tok in tokens:
        if tok.type != "inline" or not any(c.type == "text" and "[[" in c.content
                                           for c in tok.children or ()):
            continue
        out: list[Token] = []
        depth = 0  # inside a link's text: a wikilink there is its text
        for child in tok.children or ():
            depth += (child.type == "link_open") - (child.type == "link_close")
            if child.type == "text" and "[[" in child.content and depth == 0:
                out.extend(_read(child.content, ctx))
            else:
                out.append(child)
        tok.children = out


def target_file(link: Wikilink, ctx: RenderContext) -> str | None:
    """The file of the release `link` names from `ctx.doc` (None: none, or several)."""
    if not link.target:
        return ctx.doc
    relative = relative_names(link, ctx.doc)
    if relative is not None:
        return next((name for name in relative if ctx.has_asset(name)), None)
    found = matching(link, ctx.doc, (), ctx.files_named)
    if len(found) > 1:  # Obsidian's own folder first
        found = [f for f in found if posixpath.dirname(f) == posixpath.dirname(ctx.doc)]
    return found[0] if len(found) == 1 else None


def _read(text: str, ctx: RenderContext) -> list[Token]:
    out: list[Token] = []
    at = 0
    for m in WIKILINK.finditer(text):
        link = parse_wikilink(m.group())
        if not m.group(1).strip():
            continue
        out.append(_text(text[at:m.start()]))
        out.extend(_image(link, ctx) if link.image else _link(link, ctx))
        at = m.end()
    out.append(_text(text[at:]))
    return [t for t in out if t.type != "text" or t.content]


def _text(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok


def _image(link: Wikilink, ctx: RenderContext) -> list[Token]:
    file = target_file(link, ctx)
    alt = image_alt(link.label) or posixpath.splitext(posixpath.basename(link.target))[0]
    src = quote(posixpath.relpath(file, posixpath.dirname(ctx.doc) or ".") if file
                else link.target)
    tok = Token("image", "img", 0, attrs={"src": src, "alt": ""}, children=[_text(alt)])
    tok.content = alt
    width, height = image_size(link.label)
    tok.meta.update(width=int(width or 0), height=int(height or 0), wikilink=True)
    return [tok]


def _link(link: Wikilink, ctx: RenderContext) -> list[Token]:
    shown = link.label or " > ".join(p for p in (link.target, *link.heading.split("#")) if p)
    file = target_file(link, ctx)
    if file is None:
        return [_text(shown)]
    slug = heading_slug(link, file)
    path = "" if file == ctx.doc and slug else quote(posixpath.relpath(
        file, posixpath.dirname(ctx.doc) or "."))
    opener = Token("link_open", "a", 1,
                   attrs={"href": path + (f"#{quote(slug)}" if slug else "")})
    opener.meta["wikilink"] = True
    return [opener, _text(shown), Token("link_close", "a", -1)]
