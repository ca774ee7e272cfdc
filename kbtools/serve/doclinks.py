"""Where a link written in a knowledge document leads on the web app.

`link_target` reads a link's destination as `kb check` and the build read it (relative to the
document, `%20` for a space as Typora writes it): another document's page, a file the
release ships (a picture, a PDF manual, at its `#page=`), a heading of the same document, an
http(s)/mailto address; None drops it (another scheme, a path leaving the knowledge folder).
`missing_file` tells a file the release does not hold (a spreadsheet, a drawing: said on the
page, not a link to nowhere); `printed_href` is the target printed after a link's text.
`kbtools.serve.docview` renders the links these name.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from urllib.parse import quote, unquote, urlsplit

from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from kbtools.render.images import file_path, shipped_path
from kbtools.serve.passes import RenderContext


def printed_href(href: str) -> str:
    """The ``data-print`` attribute of a link to `href` when it differs from it: the target
    printed after a link's text, readable (``#4-药剂与用量``, not ``#4-%E8%8D%AF…``)."""
    shown = unquote(href)
    return f' data-print="{escapeHtml(shown)}"' if shown != href else ""


def doc_href(ctx: RenderContext, doc: str, anchor: str = "") -> str:
    return ctx.url("doc", doc) + (f"#{quote(anchor)}" if anchor else "")


def missing_file(ctx: RenderContext, href: str) -> bool:
    """Whether `href` (written in `ctx.doc`) links a file, neither a document nor a picture,
    that the release does not hold (a spreadsheet, a drawing, a video: `kb check` warned)."""
    parts = urlsplit(href.strip())
    if parts.scheme or parts.netloc:  # `javascript:…` in an HTML `<a href>`: no file
        return False
    rel = file_path(ctx.doc, parts.path) if parts.path else None
    return rel is not None and not ctx.has_asset(rel)


def link_opener(tokens: Sequence[Token], idx: int) -> Token | None:
    """The `link_open` token the `link_close` at `idx` closes (links nest in images' text)."""
    depth = 0
    for j in range(idx - 1, -1, -1):
        if tokens[j].type == "link_close":
            depth += 1
        elif tokens[j].type == "link_open":
            if depth == 0:
                return tokens[j]
            depth -= 1
    return None


def link_target(ctx: RenderContext, href: str) -> str | None:
    """Where a link written in `ctx.doc` leads on the web app; None drops it."""
    href = href.strip()
    parts = urlsplit(href)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https", "mailto"):
        return href
    if scheme or parts.netloc or href.startswith(("/", "\\")):
        return None
    if not parts.path:  # "#anchor": a heading of this document, on its own page
        if not parts.fragment:
            return None
        return f"#{parts.fragment}" if ctx.on_doc_page else doc_href(ctx, ctx.doc, parts.fragment)
    # as `kb check` and the build read it: `水泵%20密封.md` (Typora's way with a space) names
    # `水泵 密封.md`, which the page's address encodes once
    target = posixpath.normpath(posixpath.join(posixpath.dirname(ctx.doc), unquote(parts.path)))
    if target.startswith(".."):
        return None
    if target.lower().endswith((".md", ".markdown")):
        return doc_href(ctx, target, unquote(parts.fragment))
    rel = shipped_path(ctx.doc, parts.path)  # a picture or a PDF the release ships
    if rel is not None and ctx.has_asset(rel):  # `manual.pdf#page=12` opens at that page
        return ctx.url("asset", rel) + (f"#{quote(unquote(parts.fragment), safe='=&')}"
                                        if parts.fragment else "")
    return None
