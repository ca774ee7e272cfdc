"""The attributes of a picture or a link an author writes as HTML, read as a browser reads
them, by one reader (`kbtools.markdown.html_tags`) for `kb check`, the build and the page.

`<img src="a.png" alt="压力>5MPa">` had its `alt` cut at the `>` by the build's pattern
(`压力`), and the device's page showed the whole tag as escaped source; an upper-case,
unquoted tag whose values hold character references, or a tag spread over two lines, read
otherwise than `kb check` (Python's `html.parser`) read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtools.build.chunk import chunk_document
from kbtools.corpus import parse_source
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from tests.kbfixtures import GOOD_FM

# as written -> (src, alt) a browser reads
WRITTEN = {
    '见图 <img src="a.png" alt="压力>5MPa"> 右。': ("a.png", "压力>5MPa"),
    "<img src='a.png' alt='温度 > 40 ℃ 停机' width=50%>": ("a.png", "温度 > 40 ℃ 停机"),
    "<IMG SRC=b.png ALT=&#x4E2D;&amp;B>": ("b.png", "中&B"),
    '先拆 <img\nsrc="c.png"\nalt="两行 > 一行"> 再装。': ("c.png", "两行 > 一行"),
}


@pytest.mark.parametrize(("written", "read"), list(WRITTEN.items()), ids=range(len(WRITTEN)))
def test_a_pictures_attributes_read_as_a_browser_reads_them(written, read):
    src = parse_source(f"{GOOD_FM}# 泵\n\n{written}\n", Path("/r/knowledge/p.md"),
                       "knowledge/p.md")
    images = [(c.extra["src"], c.extra["alt"]) for c in chunk_document(src)
              if c.kind == "image"]
    assert images == [read]
    page = render_markdown(f"{written}\n", RenderContext(doc="knowledge/p.md"))
    assert "&lt;img" not in page.lower()
    assert f"[{read[1].replace('&', '&amp;').replace('>', '&gt;')}]" in page
