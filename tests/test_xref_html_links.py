"""A link written as HTML (`<a href="pump.md#安装">`, as Typora writes one pasted from a web
page, or an author who wants `target="_blank"`) is a chunk's link as `[…](pump.md#安装)` is.

`kb check` checked such a link and the web page showed it, but the build's chunks listed
only Markdown links: a search result's `links` (what an agent follows to read on) left it
out, so the document and heading it names were never offered."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtools.build.chunk import chunk_document
from kbtools.build.xref import HeadingIndex
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from tests.kbfixtures import GOOD_FM

PUMP = "# 液压泵\n\n概述。\n\n## 安装\n\n先对中。\n\n## Seal & gasket\n\nReplace both.\n"
# each way an author writes the link, as HTML and as Markdown
WRITTEN = {
    "inline": ('维护前请看 <a href="pump.md#安装">泵的安装</a>。',
               "维护前请看 [泵的安装](pump.md#安装)。"),
    "a block, upper case, single quotes": (
        "<center><A HREF='pump.md#安装' target=\"_blank\">泵的安装</A></center>",
        "[泵的安装](pump.md#安装)"),
    "an English anchor": ('See <a href="pump.md#seal--gasket">the seal</a>.',
                          "See [the seal](pump.md#seal--gasket)."),
    "character references": ('见 <a href="pump.md#&#x5B89;&#x88C5;">安装</a>。',
                             "见 [安装](pump.md#安装)。"),
    "the page alone": ('Read <a href="pump.md" title="pump">the pump page</a>.',
                       "Read [the pump page](pump.md)."),
    "a missing page": ('见 <a href="gone.md">旧页</a>。', "见 [旧页](gone.md)。"),
}


def _links(body: str) -> list[tuple[str, tuple[str, ...], str, int]]:
    docs = [parse_source(GOOD_FM + text, Path("/r") / rel, rel) for rel, text in
            (("knowledge/eq/pump.md", PUMP), ("knowledge/eq/care.md", f"# 保养\n\n{body}\n"))]
    index = HeadingIndex.build([parse(src) for src in docs])
    return sorted({(link.doc, link.heading_path, link.anchor, link.line)
                   for chunk in chunk_document(docs[1], resolver=index)
                   for link in chunk.links})


@pytest.mark.parametrize(("html", "markdown"), list(WRITTEN.values()), ids=list(WRITTEN))
def test_an_html_link_is_a_chunk_link_as_a_markdown_link_is(html, markdown):
    found = _links(html)
    assert found and found == _links(markdown)


def test_an_html_link_names_the_heading_it_links():
    [(doc, path, anchor, _)] = _links('维护前请看 <a href="pump.md#安装">泵的安装</a>。')
    assert (doc, path, anchor) == ("knowledge/eq/pump.md", ("液压泵", "安装"), "安装")


@pytest.mark.parametrize("html", [
    '维护前请看 <a href="pump.md#安装"><b>泵的安装</b></a>。',
    '维护前请看 <a href="pump.md#安装">泵的<em>安装</em>步骤</a>。',
    '维护前请看 <a href="pump.md#安装"><img src="pump.png" alt="泵"></a>。',
    '维护前请看 <a title="a > b" href="pump.md#安装">泵的安装</a>。',
    '维护前请看 <a\nhref="pump.md#安装">泵的安装</a>。',
], ids=["bold", "emphasis inside", "a picture", "> in a quoted value", "tag over two lines"])
def test_an_html_link_whose_text_holds_tags_is_a_chunk_link(html):
    """`<a href="x.md"><b>泵</b></a>`: the link's text in tags (or the tag's attributes
    holding `>`) gave no chunk link: the link was read up to the next `<` alone."""
    [(doc, path, anchor, line)] = _links(html)
    assert (doc, path, anchor, line) == ("knowledge/eq/pump.md", ("液压泵", "安装"), "安装",
                                         _links("维护前请看 [泵的安装](pump.md#安装)。")[0][3])
