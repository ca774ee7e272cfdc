"""A numbered heading is no cross reference to itself.

`# 第4章 故障诊断` (every chapter of a manual split into files), `## Chapter 3 Operation`
and `## Section 2.1 Overview` read as references ("第4章", "Chapter 3"), resolved to the
heading they are written in: each chunk holding the heading listed a link to its own
section (`kb chunks`, `kb query --json`, MCP), and a device's page showed the heading's
number as a link to the heading. A reference in prose to the same section stays one, as
does one in a heading to another section."""

from __future__ import annotations

from pathlib import Path

from kbtools.build.chunk import chunk_document
from kbtools.build.xref import HeadingIndex
from kbtools.corpus import parse_source, read_doc
from kbtools.markdown.doctree import parse
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext, xrefs_of
from tests.kbfixtures import GOOD_FM, REPO

REL = "knowledge/eq/manual.md"
BODY = ("# 第4章 故障诊断\n\n先看 4.1 节，再查第 5 章。\n\n"
        "## 4.1 诊断顺序\n\n见第4章开头。\n\n"
        "## Chapter 5 Fault codes\n\nSee chapter 5 for codes.\n\n"
        "## Section 5.1 Table (see 4.1 节)\n\nCodes.\n\n"
        "第 6 章 维护\n---\n\n保养。\n\n## 参见 4.1 节\n")


def _links(body: str) -> list[tuple[str, int, tuple[str, ...]]]:
    src = parse_source(GOOD_FM + body, Path("/r") / REL, REL)
    index = HeadingIndex.build([parse(src)])
    return sorted({(link.text, link.line, link.heading_path)
                   for chunk in chunk_document(src, resolver=index) for link in chunk.links})


def test_a_heading_s_own_number_is_no_link_and_prose_references_are():
    title = ("第4章 故障诊断",)
    assert _links(BODY) == [
        ("4.1 节", 12, (*title, "4.1 诊断顺序")),
        ("4.1 节", 22, (*title, "4.1 诊断顺序")),  # in a heading, naming another section
        ("chapter 5", 20, (*title, "Chapter 5 Fault codes")),
        ("参见 4.1 节", 31, (*title, "4.1 诊断顺序")),  # a heading saying 参见: a reference
        ("第 5 章", 12, (*title, "Chapter 5 Fault codes")),  # numbered as 第5章 is
        ("见第4章", 16, title),  # prose naming the section it is in
    ]  # none on the headings' own numbers: 第4章 (line 10), Chapter 5, Section 5.1, 第 6 章


def test_the_bundled_manual_s_chapter_title_is_no_link_on_its_page():
    rel = "knowledge/equipment/hx260-ch04-troubleshooting.md"
    srcs = [read_doc(p, REPO) for p in sorted((REPO / "knowledge" / "equipment").glob("*.md"))]
    index = HeadingIndex.build(srcs)
    [src] = [s for s in srcs if s.rel == rel]
    links = [dict(link.__dict__, heading_path=list(link.heading_path))
             for chunk in chunk_document(src, resolver=index) for link in chunk.links]
    assert not [link for link in links if link["line"] == src.body_line + 1], links
    html = render_markdown(src.body, RenderContext(
        doc=rel, xrefs=xrefs_of(links, lambda kind, r: f"/{kind}/{r}"),
        line_offset=src.body_line - 1))
    h1 = html[:html.index("</h1>")]
    assert "第4章 故障诊断" in h1 and "xref" not in h1
    assert 'class="xref"' in html  # its references in prose are links
