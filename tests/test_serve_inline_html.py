"""Inline formatting a Typora or Obsidian author writes as HTML, on a device's page.

Typora's toolbar writes an underline as `<u>接地</u>`; authors write units `m<sup>2</sup>`,
keys `<kbd>Ctrl</kbd>`, `<mark>` for a highlight and `<font color="red">`/`<span style=…>`
for a warning's colour. Search read their words, but the page showed every such tag as its
escaped source (`&lt;u&gt;接地&lt;/u&gt;`), in text, headings and table cells. The page now
shows each as its own tag with no attribute (`<mark>` as an author's `==highlight==`), and
a `<font>` or `<span>` as its text alone; anything else stays escaped."""

from __future__ import annotations

import re

import pytest

from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext

CTX = RenderContext(doc="knowledge/eq/pump.md")


@pytest.mark.parametrize(("written", "shown"), [
    ("先 <u>接地</u> 再通电", "先 <u>接地</u> 再通电"),
    ("面积 10 m<sup>2</sup>，H<sub>2</sub>O", "面积 10 m<sup>2</sup>，H<sub>2</sub>O"),
    ("按 <kbd>Ctrl</kbd>+<KBD>C</KBD> 停止", "按 <kbd>Ctrl</kbd>+<kbd>C</kbd> 停止"),
    ("<mark>重点</mark>检查", '<mark class="hl">重点</mark>检查'),
    ('<font color="red" size="5">注意</font>：高压', "注意：高压"),
    ('<span style="color:red" onclick="alert(1)">Danger</span> zone', "Danger zone"),
    ("<strike>旧值</strike> <del>8</del> <ins>9</ins>", "<s>旧值</s> <del>8</del> <ins>9</ins>"),
    ('<b class="x">粗</b><i>斜</i><em>强</em><strong>重</strong><small>小</small>',
     "<b>粗</b><i>斜</i><em>强</em><strong>重</strong><small>小</small>"),
])
def test_inline_formatting_written_as_html_is_shown_as_formatting(written, shown):
    html = render_markdown(f"{written}\n", CTX)
    assert re.sub(r"<p[^>]*>|</p>\n", "", html) == shown
    assert "&lt;" not in html and "onclick" not in html and "style" not in html


def test_formatting_in_a_heading_and_a_cell_and_other_tags_still_escaped():
    html = render_markdown("## 面积 m<sup>2</sup>\n\n| 单位 | 值 |\n|---|---|\n"
                           "| m<sup>3</sup> | <u>5</u> |\n\n<u onmouseover=\"x()\">y</u> "
                           "<script>alert(1)</script> <blink>z</blink>\n", CTX)
    assert "m<sup>2</sup></h2>" in html and "<td>m<sup>3</sup></td>" in html
    assert "<td><u>5</u></td>" in html and "<u>y</u>" in html and "onmouseover" not in html
    assert "&lt;script&gt;" in html and "&lt;blink&gt;" in html


@pytest.mark.parametrize(("written", "shown"), [
    ("<center>第一章 安装</center>", '<p data-lines="1-1" class="centred">第一章 安装</p>'),
    ('<font color="red">注意：高压危险</font>', '<p data-lines="1-1">注意：高压危险</p>'),
    ('<div align="center"><b>Warning</b> &amp; note</div>',
     '<p data-lines="1-1" class="centred">Warning &amp; note</p>'),
    ('<p align="center">\n  <span style="font-size:20px">泵站</span>\n</p>',
     '<p data-lines="1-3" class="centred">泵站</p>'),
])
def test_words_in_wrapper_tags_on_lines_of_their_own_are_a_paragraph(written, shown):
    """Typora's centred title (`<center>第一章 安装</center>`) or a red warning in `<font>` on
    a line of its own is an HTML block: the page showed its source in a box of raw HTML
    (`<center>第一章 安装</center>` as text). Words in wrapper tags alone are a paragraph of
    those words, centred when the wrapper centres; any other block is as before."""
    assert render_markdown(f"{written}\n", CTX) == shown + "\n"


def test_a_block_of_other_tags_is_still_its_source():
    html = render_markdown("<div>\n<script>alert(1)</script>\n</div>\n\n<table><tr><td>1</td>"
                           "</tr></table>\n", CTX)
    assert html.count('<pre class="raw-html">') == 2 and "<script" not in html


@pytest.mark.parametrize(("written", "shown"), [
    ('<p align="center"><a href="x.md">链接</a></p>',
     '<p data-lines="1-1" class="centred"><a href="/doc/knowledge/eq/x.md">链接</a></p>'),
    ('<p align="center">\n  <a href="x.md" target="_blank">泵 &amp; 阀</a>\n</p>',
     '<p data-lines="1-3" class="centred"><a href="/doc/knowledge/eq/x.md">泵 &amp; 阀</a></p>'),
    ('<div align="center"><a href="x.md"><b>链接</b></a> 和 <u>说明</u></div>',
     '<p data-lines="1-1" class="centred"><a href="/doc/knowledge/eq/x.md"><b>链接</b></a> 和 '
     '<u>说明</u></p>'),
    ('<center><a href="https://example.com/manual" onclick="x()">手册</a><br>第二行</center>',
     '<p data-lines="1-1" class="centred"><a href="https://example.com/manual" '
     'rel="noopener noreferrer nofollow" class="external">手册</a><br>第二行</p>'),
])
def test_links_in_wrapper_tags_on_lines_of_their_own_are_a_paragraph(written, shown):
    """`<p align="center"><a href="x.md">链接</a></p>` (a GitHub README's centred links) on
    lines of its own was shown as its raw source: a link in wrapper tags is a paragraph of
    the link, as the same tags are inside a paragraph."""
    assert render_markdown(f"{written}\n", CTX) == shown + "\n"


@pytest.mark.parametrize(("written", "shown"), [
    ('<picture>\n<source srcset="a.png 1x, a@2x.png 2x">\n<img src="a.png" alt="泵">\n</picture>',
     '<p data-lines="1-4"><span class="missing-image">[泵]</span></p>'),
    ('泵 <picture><SOURCE SRCSET="a@2x.png 2x"><img src="a.png" alt="泵"></picture> 外观',
     '<p data-lines="1-1">泵 <span class="missing-image">[泵]</span> 外观</p>'),
    ('见 <video controls><source src="x.mp4"></video> 下',
     '<p data-lines="1-1">见 <span class="missing-file">x.mp4</span> <span class="missing-note">'
     '(not on this device)</span> 下</p>'),
])
def test_a_picture_element_shows_its_img(written, shown):
    """`<picture><source srcset=…><img src=…></picture>` was shown as escaped source: the
    page shows its `<img>` (the `srcset`'s files are checked and shipped); a video's
    `<source src>` is its player, or said as a file the release lacks (`serve.media`)."""
    assert render_markdown(f"{written}\n", CTX) == shown + "\n"


@pytest.mark.parametrize(("written", "shown"), [
    ('<p align="center"><a href="x.md">首页</a>&nbsp;&nbsp;|&nbsp;&nbsp;<a href="y.md">安装</a></p>',
     '<p data-lines="1-1" class="centred"><a href="/doc/knowledge/eq/x.md">首页</a>'
     '\xa0\xa0|\xa0\xa0<a href="/doc/knowledge/eq/y.md">安装</a></p>'),
    ("<center>第一章&nbsp;&nbsp;安装\n  说明</center>",
     '<p data-lines="1-2" class="centred">第一章\xa0\xa0安装 说明</p>'),
    ('<center><img src="a.png"><br>图&nbsp;1&#160;泵</center>',
     '<figure data-lines="1-1" class="centred"><span class="missing-image">[]</span>'
     "<figcaption>图\xa01\xa0泵</figcaption></figure>"),
])
def test_a_no_break_space_in_a_block_of_wrapper_tags_is_kept(written, shown):
    """`<p align="center"><a …>首页</a>&nbsp;&nbsp;|&nbsp;&nbsp;<a …>安装</a></p>` (a README's
    centred links with a gap held by `&nbsp;`) had each `&nbsp;` collapsed with the blanks
    into one space: a browser collapses only ASCII blanks, and so does the page."""
    assert render_markdown(f"{written}\n", CTX) == shown + "\n"


@pytest.mark.parametrize(("written", "shown"), [
    ('<img alt="a<b" src="x.png">', '<p data-lines="1-1"><span class="missing-image">[a&lt;b]</span></p>'),
    ('文 <IMG ALT="压力<5MPa" src="x.png"/> 字',
     '<p data-lines="1-1">文 <span class="missing-image">[压力&lt;5MPa]</span> 字</p>'),
    ("<center>\n<img src=x.png alt=泵's onerror=alert(1)>\n</center>",
     '<p data-lines="1-3" class="centred"><span class="missing-image">[泵\'s]</span></p>'),
    ('<p align="center"><a href="x.md" title="a<b">链接</a></p>',
     '<p data-lines="1-1" class="centred"><a href="/doc/knowledge/eq/x.md">链接</a></p>'),
    ('<div><script>alert("<")</script></div>',
     '<pre class="raw-html">&lt;div&gt;&lt;script&gt;alert(&quot;&lt;&quot;)&lt;/script&gt;'
     "&lt;/div&gt;\n</pre>"),
])
def test_a_tag_holding_a_less_than_in_a_quoted_value_or_a_quote_unquoted_is_read(written, shown):
    """`<img alt="a<b" src="x.png">` (a `<` in a quoted value) and `<img alt=泵's …>` (a quote
    in an unquoted one) are tags to a browser and to html.parser, but the page's patterns
    stopped at the `<` or wanted the quote closed and showed the tag as escaped source: each
    is read as html.parser reads it; a script is still its source."""
    assert render_markdown(f"{written}\n", CTX) == shown + "\n"
