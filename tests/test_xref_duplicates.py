"""Links to a repeated heading's anchor (`#注意事项-1`, GitHub's de-duplication, which
`kb check` accepts and a device's page gives the second heading) resolve to that heading.

The build's cross references made each heading's anchor without the de-duplication, so
`[二](#注意事项-1)` resolved to the document alone (no heading path: a chunk's links, a
query's and MCP's results named no section), and `#注意事项` could name a heading GitHub
calls `#注意事项-1`."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.build.chunk import chunk_document
from kbtools.build.xref import HeadingIndex
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from kbtools.markdown.frontend import scan
from kbtools.markdown.parser import parse_tokens
from kbtools.serve.headings import anchor_headings
from tests.kbfixtures import GOOD_FM

REL = "knowledge/eq/pump.md"
OTHER = "knowledge/eq/notes.md"
BODY = ("# 液压泵\n\n## 拆卸\n\n### 注意事项\n\n先断电。\n\n## 安装\n\n### 注意事项\n\n"
        "先对中。\n\n## 注意事项-1\n\n写成的标题。\n\n## 调试 {#tune}\n\n### 注意事项\n\n先排气。\n")


def _src(rel: str, body: str):
    return parse_source(GOOD_FM + body, Path("/r") / rel, rel)


def _page_ids(body: str) -> list[str]:
    tokens = parse_tokens(body)
    anchor_headings(tokens)
    return [str(t.attrGet("id")) for t in tokens if t.type == "heading_open"]


def test_each_anchor_names_the_heading_the_page_gives_it():
    src = _src(REL, BODY)
    ids = _page_ids(src.body)
    assert ids == ["液压泵", "拆卸", "注意事项", "安装", "注意事项-1", "注意事项-1-1", "调试",
                   "注意事项-2"]
    assert set(ids) <= scan(src.body, src.body_line).slugs()  # kb check accepts each
    doc = parse(src)
    index = HeadingIndex.build([doc])
    paths = [path for path, _ in doc.headings()]
    for anchor, path in zip(ids, paths, strict=True):
        assert index.by_anchor(REL, anchor) == path, anchor
    assert index.by_anchor(REL, "tune") == ("液压泵", "调试")
    assert index.by_anchor(REL, "注意事项-3") is None


def test_a_chunk_s_link_to_a_repeated_heading_names_its_section():
    src = _src(REL, BODY)
    other = _src(OTHER, "# 笔记\n\n装前看 [安装的注意事项](pump.md#注意事项-1)，"
                        "调试看 [这里](pump.md#注意事项-2)。\n")
    index = HeadingIndex.build([parse(src), parse(other)])
    links = {link.text: link for chunk in chunk_document(other, resolver=index)
             for link in chunk.links}
    first, second = "[安装的注意事项](pump.md#注意事项-1)", "[这里](pump.md#注意事项-2)"
    assert set(links) == {first, second}
    assert links[first].doc == links[second].doc == REL
    assert links[first].heading_path == ("液压泵", "安装", "注意事项")
    assert links[second].heading_path == ("液压泵", "调试", "注意事项")


HEADING = st.lists(st.sampled_from(["注意事项", "注意事项-1", "注意事项 1", "Note", "note",
                                    "note-1", "NOTE!", "1", "-", "注意 事项"]),
                   min_size=1, max_size=5).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "", "> ", "- "]), st.integers(1, 4), HEADING),
                min_size=1, max_size=12))
def test_any_headings_anchor_as_the_page_and_the_check_do(heads):
    """Whatever the headings (repeated, written with a suffix GitHub would add, differing in
    case or punctuation only, some in a quote or a list item: no section, but counted among
    the repeated ones), each anchor the page gives a section's heading resolves to it."""
    body = "".join(f"{where}{'#' * level} {text}\n\n正文。\n\n" for where, level, text in heads)
    src = _src(REL, body)
    ids = _page_ids(src.body)
    assert len(ids) == len(heads)
    assert set(ids) <= scan(src.body, src.body_line).slugs()
    doc = parse(src)
    index = HeadingIndex.build([doc])
    sections = iter(doc.headings())
    for anchor, (where, _, _) in zip(ids, heads, strict=True):
        expected = next(sections)[0] if not where else None
        assert index.by_anchor(REL, anchor) == expected, (anchor, ids)
