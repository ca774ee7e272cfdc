"""What every view of a document's page shares, made once per opened release.

A document page is asked for again and again with another cited range or question (each a
page of its own in `pagecache.PageCache`): the document's Markdown parsed, through every
pass that is the same on each view (`docview.prepare_markdown`: the editors' boxes,
headings' anchors, line numbers, cross references), its chunks read from the store and its
language are made at its first view and kept in `Served.prepared` (bounded by token count,
least recently used dropped first). The one parse also reads the document's decision tables
(`ops.tables_of`: the page offers the first), before the passes change its tokens. A view applies its cited lines and the question's
terms to them (`docview.render_prepared`) without changing them. A 2,000-line manual's
next view costs its render, not its parse (`benchmarks/bench_docpage.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from kbtools.corpus import SourceDoc
from kbtools.markdown.parser import Env, parse_tokens
from kbtools.serve import ops
from kbtools.serve.docview import prepare_markdown
from kbtools.serve.i18n import content_lang
from kbtools.serve.passes import app_url, xrefs_of
from kbtools.serve.results import render_context
from kbtools.serve.source import Served


@dataclass(frozen=True)
class DocParts:
    """A document as its page's views share it: its Markdown's prepared tokens (read-only),
    its chunks and its language."""

    tokens: list[Token]
    chunks: list[dict[str, Any]]
    lang: str


def doc_parts(served: Served, src: SourceDoc) -> DocParts:
    """`src`'s parts in the release `served`: kept from an earlier view, else made now."""
    def make() -> tuple[DocParts, int]:
        chunks = ops.doc_chunks(served, src.rel)
        xrefs = xrefs_of([link for c in chunks for link in c.get("links") or []], app_url)
        lang = content_lang(src.meta.get("lang"), src.body)
        ctx = render_context(served, src.rel, line_offset=src.body_line - 1, xrefs=xrefs,
                             text_lang=lang)
        env: Env = {}
        tokens = parse_tokens(src.body, env)
        ops.tables_of(served, src, tokens, env)  # before the passes change the tokens
        tokens = prepare_markdown(src.body, ctx, tokens)
        weight = len(tokens) + sum(len(t.children or ()) for t in tokens)
        return DocParts(tokens, chunks, lang), weight
    parts: DocParts = served.prepared.get(("doc", src.rel), make)
    return parts
