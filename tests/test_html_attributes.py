"""The attributes of a picture or a link an author writes as HTML, read as a browser reads
them, by one reader (`kbtools.markdown.html_tags`) for `kb check`, the build and the page.

`<img src="a.png" alt="压力>5MPa">` had its `alt` cut at the `>` by the build's pattern
(`压力`), and the device's page showed the whole tag as escaped source; an upper-case,
unquoted tag whose values hold character references, or a tag spread over two lines, read
otherwise than `kb check` (Python's `html.parser`) read it."""

from __future__ import annotations

from html import escape
from pathlib import Path

import pytest

from kbtools.build.chunk import chunk_document
from kbtools.corpus import parse_source
from kbtools.markdown.frontend import scan
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


# a picture's tag holding a `<` or a quote, which the build's tag pattern (`TAG_BODY`) and
# CommonMark's inline HTML did not read: in a captioned wrapper, on a line between two
# paragraphs' lines, inside a sentence
LT_FIGURE = ('<center>\n    <img alt="压力<5MPa" src="a.png">\n    <br>\n'
             '    <div style="color:#999">图 4 压力表读数</div>\n</center>\n')
UNQUOTED_FIGURE = "<center><img alt=压力<5 src=a.png><br>图 4 压力表读数</center>\n"
BETWEEN = '读数说明在下图。\n<img alt="压力<5" src="a.png">\n读数低于五兆帕时停机。\n'
SPREAD = '读数说明在下图。\n<img\n  alt="压力<5"\n  src="a.png">\n读数低于五兆帕时停机。\n'
INLINE = {"The seal <img alt=it's src=a.png> is worn on one side.\n": "it's",
          "读数 <img alt=压力<5 src=a.png> 时停机。\n": "压力<5"}


def _pictures(body: str):
    src = parse_source(f"{GOOD_FM}# 泵\n\n前文。\n\n{body}\n后文。\n", Path("/r/knowledge/p.md"),
                       "knowledge/p.md")
    return [c for c in chunk_document(src) if c.kind == "image"]


@pytest.mark.parametrize("body", [LT_FIGURE, UNQUOTED_FIGURE], ids=["quoted", "unquoted"])
def test_a_captioned_picture_whose_alt_holds_a_lt_keeps_its_caption(body):
    [picture] = _pictures(body)
    assert picture.extra["alt"].startswith("压力<5")
    assert "图 4 压力表读数" in picture.text and "图 4 压力表读数" in picture.embed_text


@pytest.mark.parametrize("body", [BETWEEN, SPREAD], ids=["one-line", "spread"])
def test_a_picture_whose_alt_holds_a_lt_takes_the_lines_around_it(body):
    [picture] = _pictures(body)
    assert "读数说明在下图" in picture.text and "读数低于五兆帕时停机" in picture.text


@pytest.mark.parametrize(("written", "alt"), list(INLINE.items()), ids=["quote", "lt"])
def test_an_inline_picture_commonmark_leaves_as_text_is_a_picture(written, alt):
    [picture] = _pictures(written)
    assert (picture.extra["src"], picture.extra["alt"]) == ("a.png", alt)
    assert alt in picture.embed_text
    page = render_markdown(written, RenderContext(doc="knowledge/p.md"))
    assert "&lt;img" not in page.lower() and f"[{escape(alt, quote=False)}]" in page


@pytest.mark.parametrize(("written", "line"), [('<IMG SRC="../assets/拆卸.png" ALT="拆卸">', 9),
                                             ('<P ALIGN="center">\n  <IMG SRC="../assets/拆卸.png">'
                                              '\n</P>', 10),
                                             ('<A HREF="../assets/拆卸.png">拆卸图</A>', 9)],
                         ids=["img", "wrapped", "a"])
def test_an_html_block_in_capitals_has_its_file_checked(written, line):
    """An HTML block whose attributes were written in capitals (an old HTML export's
    `<IMG SRC=…>`) was shown on the page and shipped by the build, but `kb check` never read
    its path: a missing file went unsaid."""
    refs = scan(f"# 泵\n\n{written}\n\n后文。\n", 7).refs
    assert [(r.target, r.line) for r in refs] == [("../assets/拆卸.png", line)]
