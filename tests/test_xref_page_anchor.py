"""A prose reference on a device's page links to the heading it names, by the `id` that
heading's page gives it.

The page linked a resolved reference ("见 3.1 节") to the slug of the heading's title alone:
where that title was written before (a callout's `> ## 3.1 注意事项` above the section, which
the page numbers first, GitHub's de-duplication), the link landed on the first one. Each
link now names the anchor its heading's page gives it (`Link.anchor`, from the build's
heading index, which de-duplicates as the page does)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from urllib.parse import unquote

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.build.chunk import chunk_document
from kbtools.build.xref import HeadingIndex
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext, xrefs_of
from tests.kbfixtures import GOOD_FM

REL = "knowledge/eq/pump.md"
BODY = ("# 液压泵\n\n> [!warning]\n> ## 3.1 注意事项\n> 先读本节。\n\n见 3.1 节和第 4 章。\n\n"
        "## 2 安装\n\n先对中。\n\n## 3 调试\n\n### 3.1 注意事项\n\n先排气。\n\n## 第4章 维护 {#care}\n\n"
        "定期保养，见 3.1 节。\n")


def _page(body: str) -> tuple[str, list[dict]]:
    src = parse_source(GOOD_FM + body, Path("/r") / REL, REL)
    index = HeadingIndex.build([parse(src)])
    links = [link.__dict__ for chunk in chunk_document(src, resolver=index)
             for link in chunk.links]
    html = render_markdown(src.body, RenderContext(
        doc=REL, xrefs=xrefs_of(links, lambda kind, rel: f"/{kind}/{rel}"),
        line_offset=src.body_line - 1))
    return html, links


def _ids(html: str) -> dict[str, str]:
    """Each heading's id on the page, with its text."""
    return {unescape(m.group(2)): re.sub(r"<[^>]+>", "", m.group(3)).strip()
            for m in re.finditer(r'<h([1-6])[^>]* id="([^"]+)"[^>]*>(.*?)</h\1>', html, re.S)}


def _xref_targets(html: str) -> list[str]:
    return [unquote(unescape(m.group(1))) for m in re.finditer(
        r'<a class="xref" href="/doc/[^"#]*#([^"]+)"', html)]


def test_a_reference_links_to_the_section_not_to_a_callout_s_heading_before_it():
    html, _ = _page(BODY)
    ids = _ids(html)
    assert ids["31-注意事项"] == "3.1 注意事项"  # the callout's
    assert ids["31-注意事项-1"] == "3.1 注意事项"  # the section's
    assert _xref_targets(html) == ["31-注意事项-1", "第4章-维护", "31-注意事项-1"]


NAMES = st.sampled_from(["3.1 注意事项", "注意事项", "3.1 注意事项 {#n}", "3.1 注意事项-1",
                         "3.1 注意 事项"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "> ", "- "]), st.integers(2, 4), NAMES),
                min_size=1, max_size=6))
def test_every_reference_lands_on_a_heading_of_the_number_it_names(heads):
    """Whatever headings come before (the same title in quotes, list items or sections, a
    title GitHub's suffix would make, a custom id), "见 3.1 节" links to an id the page gives
    the first section numbered 3.1."""
    body = "# 手册\n\n见 3.1 节。\n\n" + "".join(
        f"{where}{'#' * level} {text}\n\n正文。\n\n" for where, level, text in heads)
    html, links = _page(body)
    targets = _xref_targets(html)
    sections = [text for where, _, text in heads if not where and text.startswith("3.1 ")]
    if not sections:
        assert targets == []
        return
    ids = _ids(html)
    assert len(targets) == 1 and targets[0] in ids, (targets, ids)
    # the heading the link lands on is the one the build resolved: the first section 3.1
    heads_on_page = re.findall(r'<h[1-6][^>]* id="([^"]+)"', html)
    first = next(i for i, (where, _, text) in enumerate(heads) if not where
                 and text.startswith("3.1 "))
    assert heads_on_page.index(targets[0]) == first + 1  # (the page's first is 手册)
