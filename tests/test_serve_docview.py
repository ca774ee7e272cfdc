"""Knowledge Markdown as HTML for `kb serve` (`kbtools.serve.docview`): raw HTML escaped,
terms highlighted after escaping, formulas and images only from the release, cited lines
marked, cross references linked, unsafe links dropped."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from kbtools.markdown.frontend import scan
from kbtools.render.formula import formula_relpath, normalize_latex
from kbtools.serve.docview import render_markdown
from kbtools.serve.marks import highlight_terms
from kbtools.serve.passes import RenderContext, xrefs_of

DOC = "knowledge/crops/x.md"


def ctx(**kw):
    return RenderContext(doc=DOC, **kw)


def test_raw_html_is_escaped_and_comments_dropped():
    html = render_markdown("<script>alert(1)</script>\n\nhi <b onclick=x()>b</b>\n\n"
                           "<!-- decision: inputs=a -->\n", ctx())
    assert "<script" not in html and "<b " not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "onclick" not in html
    assert "<b>b</b>" in html  # inline formatting: the page's own tag, no attribute
    assert "decision" not in html


def test_terms_are_highlighted_after_escaping():
    html = render_markdown("温度 <大于> 20 & 湿度", ctx(terms=["温度", "<大于>", "&"]))
    assert "<mark>温度</mark>" in html and "<mark>&lt;大于&gt;</mark>" in html
    assert "<mark>&amp;</mark>" in html
    assert highlight_terms("<i>x</i>", ["i"]) == "&lt;<mark>i</mark>&gt;x&lt;/<mark>i</mark>&gt;"


def test_english_terms_are_marked_as_words_not_inside_other_words():
    """'160 F, leak rate 2' marked the f of 'Safety' and 'off' and the 2 of 'P-200'."""
    html = highlight_terms("P-200 Pump: Safety, switch off. Seal temperature 2 F", ["f", "2"])
    assert html == "P-200 Pump: Safety, switch off. Seal temperature <mark>2</mark> <mark>F</mark>"
    html = highlight_terms("Running hours; seal temperatures", ["run", "hour", "temperatur"])
    assert html == ("<mark>Running</mark> <mark>hours</mark>; seal "
                    "<mark>temperatures</mark>")
    assert highlight_terms("E17 and E170", ["e17"]) == "<mark>E17</mark> and E170"
    assert highlight_terms("小麦赤霉病", ["赤霉病"]) == "小麦<mark>赤霉病</mark>"


@given(st.text(max_size=200), st.lists(st.text(min_size=1, max_size=5), max_size=4))
def test_highlighting_never_lets_markup_through(text, terms):
    html = highlight_terms(text, terms)
    assert re.sub(r"</?mark>", "", html).count("<") == 0
    assert re.sub(r"</?mark>", "", html).replace("&lt;", "<").replace("&gt;", ">") \
        .replace("&quot;", '"').replace("&amp;", "&") == text


def test_formulas_only_from_the_release():
    latex = r"\frac{a}{b}"
    rel = formula_relpath(normalize_latex(latex))
    html = render_markdown(f"$${latex}$$\n\nand ${latex}$ too", ctx(has_formula=lambda r: r == rel))
    assert html.count(f'src="/{rel}"') == 2 and 'class="formula display"' in html
    missing = render_markdown("$x+y$", ctx())
    assert "<img" not in missing and "<code" in missing


def test_images_resolve_against_the_document_and_must_be_shipped():
    text = "![叶片](../../assets/images/leaf.png \"t\")\n\n![外部](https://evil.example/a.png)"
    html = render_markdown(text, ctx(has_asset=lambda rel: rel == "assets/images/leaf.png"))
    assert 'src="/asset/assets/images/leaf.png"' in html and 'alt="叶片"' in html
    assert "evil.example" not in html and "[外部]" in html


def test_links_to_documents_and_unsafe_schemes():
    html = render_markdown("[a](other.md#sec) [b](javascript:alert(1)) [c](https://x.org) "
                           "[d](file:///etc/passwd) [e](../../../../etc/passwd.md)", ctx())
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs == ["/doc/knowledge/crops/other.md#sec", "https://x.org"]
    assert 'rel="noopener noreferrer nofollow"' in html
    assert '<span class="dropped-link">d</span>' in html
    assert '<span class="dropped-link">e</span>' in html


def test_cited_lines_are_marked_and_anchored():
    text = "# T\n\npara one\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"
    html = render_markdown(text, ctx(line_offset=10, cited=(18, 18)))
    assert '<tr data-lines="18-18" class="cited" id="cited">' in html
    assert html.count("cited") == 2  # the row only: class and anchor
    heading = render_markdown(text, ctx(line_offset=10, cited=(11, 13)))
    assert heading.startswith('<span id="cited" class="anchor"></span><h1 id="t"')


def test_a_one_character_term_is_marked_in_the_cited_lines_only():
    """用 of a question marked the 用 of 使用 and 作用 all over a document page."""
    text = "# 使用说明\n\n先用清水冲洗。\n\n作用时间 药效 药剂"
    html = render_markdown(text, ctx(cited=(3, 3), terms=["用", "药剂"]))
    assert "使用说明" in html and "先<mark>用</mark>清水" in html and "作用时间" in html
    assert "<mark>药剂</mark>" in html  # a longer term is marked anywhere
    assert "<mark>" not in render_markdown("先用清水", ctx(terms=["用"]))  # no lines cited
    assert render_markdown("先用清水", ctx(cited=(1, 1), terms=["用"])).count("<mark>") == 1


def test_cross_references_become_links():
    links = [{"doc": "knowledge/crops/y.md", "heading_path": ["Y", "4.3 药剂选择"], "line": 3,
              "text": "见 4.3 节"}, {"doc": None, "text": "x", "line": 1}]
    xrefs = xrefs_of(links, lambda kind, rel: f"/{kind}/{rel}")
    html = render_markdown("# T\n\n详情见 4.3 节。", ctx(xrefs=xrefs))
    assert '<a class="xref" href="/doc/knowledge/crops/y.md#43-%E8%8D%AF%E5%89%82%E9%80%89%E6%8B%A9" data-print="/doc/knowledge/crops/y.md#43-药剂选择">见 4.3 节</a>' in html


def test_every_item_of_a_tight_list_is_cited_the_last_one_too():
    text = "# T\n\n1. one\n2. two\n3. three\n\nafter\n"  # the last item's map takes line 6
    html = render_markdown(text, ctx(line_offset=10, cited=(13, 15)))
    assert re.findall(r'<li data-lines="(\d+-\d+)" class="cited"', html) == \
        ["13-13", "14-14", "15-16"]
    assert '<li data-lines="13-13" class="cited" id="cited">' in html
    last = render_markdown(text, ctx(line_offset=10, cited=(15, 15)))
    assert '<li data-lines="15-16" class="cited" id="cited">' in last
    assert last.count("cited") == 2 and "anchor" not in last


def test_a_nested_item_is_cited_without_its_parent():
    text = "- a\n  - b\n  - c\n- d\n"
    html = render_markdown(text, ctx(cited=(3, 3)))
    assert re.findall(r'<li data-lines="(\d+-\d+)"( class="cited")?', html) == \
        [("1-3", ""), ("2-2", ""), ("3-3", ' class="cited"'), ("4-4", "")]


def test_links_to_a_heading_of_the_same_document():
    text = "# T\n\nsee [the steps](#steps) and [x](#)\n\n## Steps\n"
    on_page = render_markdown(text, ctx())
    assert re.findall(r'href="([^"]*)"', on_page) == ["#steps"]
    elsewhere = render_markdown(text, ctx(on_doc_page=False))
    assert re.findall(r'href="([^"]*)"', elsewhere) == [f"/doc/{DOC}#steps"]


def test_typora_img_tags_show_the_shipped_picture_and_nothing_else():
    """Typora resizes a picture by writing `<img src="x.png" style="zoom:50%">`: the page
    showed that HTML as code; it shows the picture (src, alt, title only) when shipped."""
    shipped = ctx(has_asset=lambda rel: rel == "assets/images/leaf.png")
    block = render_markdown('<img src="../../assets/images/leaf.png" style="zoom:50%" '
                            'alt="叶片" onerror="alert(1)">\n', shipped)
    assert '<img class="photo" src="/asset/assets/images/leaf.png" alt="叶片">' in block
    assert "zoom" not in block and "onerror" not in block and "raw-html" not in block
    inline = render_markdown('见图 <img src="../../assets/images/leaf.png" width=300 '
                             'onload=alert(2)> 和 <img src="gone.png" alt="缺">', shipped)
    assert inline.count("<img") == 1 and "onload" not in inline
    assert 'src="/asset/assets/images/leaf.png" width="300" alt=""' in inline
    assert '<span class="missing-image">[缺]</span>' in inline
    # a wrapper holding more than pictures and a caption stays source (one holding only them:
    # session 35; with a caption, `<b>叶</b>` its words: session 36; both in
    # tests/test_serve_callout_blocks.py)
    mixed = render_markdown('<div><img src="../../assets/images/leaf.png"><iframe src="x">'
                            '</iframe></div>\n', shipped)
    assert "<img" not in mixed and "&lt;img" in mixed


def test_percent_encoded_links_name_the_file_once_encoded():
    """Typora writes a space in a file name as `%20` (and some editors encode every
    non-ASCII character): the page links the file `kb check` and the build found, encoded
    once, not `%2520`; an encoded `..` still cannot leave the knowledge."""
    text = ("[a](水泵%20密封.md) [b](%E6%B0%B4%E6%B3%B5%20%E5%AF%86%E5%B0%81.md#%E6%AD%A5%E9%AA%A4) "
            "[c](<水泵 密封.md>) [d](%2E%2E/%2E%2E/%2E%2E/etc/passwd.md)")
    hrefs = re.findall(r'href="([^"]*)"', render_markdown(text, ctx()))
    page = "/doc/knowledge/crops/%E6%B0%B4%E6%B3%B5%20%E5%AF%86%E5%B0%81.md"
    assert hrefs == [page, page + "#%E6%AD%A5%E9%AA%A4", page]


def test_task_list_boxes_are_checkboxes_not_escaped_tags():
    """`- [ ]` / `- [x]` showed the plugin's `<input class=…>` tag as escaped text."""
    html = render_markdown("- [ ] 清理滤网\n- [x] 记录轴承温度\n\n- [X] Done <input type=text>\n",
                           ctx())
    assert "&lt;input" not in html.replace("&lt;input type=text&gt;", "")
    assert html.count('<input type="checkbox" class="task-box" disabled> 清理滤网') == 1
    assert '<input type="checkbox" class="task-box" disabled checked> 记录轴承温度' in html
    assert '<input type="checkbox" class="task-box" disabled checked> Done' in html
    assert "&lt;input type=text&gt;" in html  # an author's own tag is still escaped


def test_an_img_tag_s_size_in_pixels_is_the_picture_s_size_on_the_page():
    """`kb check --fix` writes Obsidian's `![[leaf.png|300]]` as `<img … width="300">`: the
    page showed the picture at its own size, the author's width dropped."""
    sized = ctx(has_asset=lambda rel: rel == "assets/images/leaf.png",
                size_of=lambda rel: (1200, 800) if rel.endswith("leaf.png") else None)
    src = '<img src="../../assets/images/leaf.png" alt="A &amp; B"'
    assert 'width="300" height="200" alt="A &amp; B">' in render_markdown(
        f'{src} width="300">\n', sized)
    assert 'width="150" height="100" alt=' in render_markdown(f"{src} height=100px>\n", sized)
    assert 'width="300" height="50" alt=' in render_markdown(
        f'见 {src} width="300" height="50">', sized)
    for other in ('width="x"', 'style="width:300px"', 'style="zoom:abc"', 'style="zoom:0%"'):
        assert 'width="1200" height="800" alt=' in render_markdown(f"{src} {other}>\n", sized)


def test_typora_s_zoom_and_a_share_of_the_width_are_the_picture_s_size_on_the_page():
    """Typora resizes a picture as `<img src=… style="zoom:50%;" />`: the page showed it at
    its file's full size (the zoom dropped with the style), and a `width="50%"` too."""
    sized = ctx(has_asset=lambda rel: rel.startswith("assets/images/"),
                size_of=lambda rel: (1200, 800) if rel.endswith("leaf.png") else None)
    src = '<img src="../../assets/images/leaf.png" alt="叶"'
    assert 'width="600" height="400" alt="叶">' in render_markdown(
        f'{src} style="zoom:50%;" />\n', sized)
    assert 'width="300" height="200" alt="叶">' in render_markdown(  # inline, Typora's spacing
        f'见 {src} style="color: red; ZOOM: 25% !important" /> 图', sized)
    assert 'width="360" height="240" alt="叶">' in render_markdown(  # a zoom of the width given
        f'{src} width="300" style="zoom:1.2">', sized)
    assert 'width="600" height="400" alt="叶"></figure>' not in render_markdown(
        f'<center>{src} style="zoom:50%;" /><br>图 1 叶片</center>\n', sized)
    assert '<img class="photo" src="/asset/assets/images/leaf.png" width="600" height="400"' \
        in render_markdown(f'<center>{src} style="zoom:50%;" /><br>图 1 叶片</center>\n', sized)
    assert 'leaf.png" width="50%" alt="叶">' in render_markdown(f'{src} width="50%">', sized)
    unknown = '<img src="../../assets/images/other.png" alt="叶" style="zoom:50%">'
    assert 'other.png" alt="叶">' in render_markdown(unknown, sized)  # no size known: none


def test_obsidian_callouts_are_titled_boxes_without_their_marker():
    """`> [!warning] 断电挂牌` showed `[!warning]` as text in a plain quote."""
    html = render_markdown("> [!WARNING]- 断电挂牌\n> 检修前必须**断电**。\n\n> [!tip]\n> 正文\n\n"
                           "> [!unknown] 标题\n\n> 普通引用 [!x]\n", ctx(terms=["断电"]))
    assert "[!" not in html.replace("普通引用 [!x]", "")
    assert ('<blockquote class="callout callout-warning" data-lines="1-2">\n<p data-lines="1-2">'
            '<span class="callout-title"><mark>断电</mark>挂牌</span>\n检修前必须') in html
    assert '<blockquote class="callout callout-tip"' in html
    assert '<span class="callout-title">Tip</span>\n正文' in html  # no title: the type's name
    assert '<blockquote class="callout" data-lines="7-7">' in html
    assert '<blockquote data-lines="9-9">\n<p data-lines="9-9">普通引用 [!x]</p>' in html


def test_typora_toc_is_a_list_of_the_headings():
    """Typora's `[TOC]` was shown as the text "[TOC]"."""
    text = "# 标题\n\n[TOC]\n\n## 一、准备 ##\n\n正文\n\n### 1.1 ==工具==\n\nSetext\n---\n"
    html = render_markdown(text, ctx())
    assert "[TOC]" not in html
    assert ('<ul class="toc" data-lines="3-3">\n<li class="toc-h1"><a href="#标题">标题</a></li>\n'
            '<li class="toc-h2"><a href="#一准备">一、准备</a></li>\n'
            '<li class="toc-h3"><a href="#11-工具">1.1 工具</a></li>\n'
            '<li class="toc-h2"><a href="#setext">Setext</a></li>\n</ul>') in html
    passage = render_markdown(text, ctx(on_doc_page=False))  # a search result: the page's
    assert f'<a href="/doc/{DOC}#setext">Setext</a>' in passage
    assert render_markdown("[toc]\n\n正文\n", ctx()) == '<p data-lines="3-3">正文</p>\n'


def test_obsidian_block_ids_are_left_out_of_paragraphs_only():
    """`… 停机。 ^leak-rule` showed `^leak-rule`, as Obsidian does not; each id is its
    block's anchor (a block reference lands there), none is text."""
    html = render_markdown("密封泄漏超过 5 滴时停机。 ^leak-rule\n\n- 项一 ^item-1\n- 项二\n\n"
                           "| a |\n|---|\n| 2 ^3 |\n\n^table-id\n\n"
                           "指数 2^10 与 x ^ y 与 **粗**^id 与 a ^中文\n\n多行\n最后一行 ^multi\n", ctx())
    assert '<p data-lines="1-1"><span id="^leak-rule" class="anchor"></span>密封泄漏超过 5 滴时' \
        '停机。</p>' in html
    assert '<li data-lines="3-3"><span id="^item-1" class="anchor"></span>项一</li>' in html
    assert "<td>2 ^3</td>" in html  # a cell's text
    assert '<table id="^table-id" data-lines="6-8">' in html and "<p data-lines=\"10-10\"" \
        not in html
    assert '<span id="^multi" class="anchor"></span>多行\n最后一行</p>' in html
    assert "指数 2^10 与 x ^ y 与 <strong>粗</strong>^id 与 a ^中文" in html


def test_an_html_link_in_text_is_a_link_with_its_href_only():
    """`<a href>` written in a paragraph was shown as escaped text; only its href is kept,
    an unsafe one is dropped as a Markdown link's is, and one its text leaves open is
    closed; `<a id>` is the anchor `#…` links reach (docs/knowledge-authoring.md)."""
    html = render_markdown(
        'Read <a href="other.md#torque" target="_blank" onclick="x()">the table</a>, '
        '<a id="seal"></a>the seal, <a href="javascript:alert(1)">evil</a>, '
        '<a href="https://e.com/?a=1&amp;b=2">ext</a> and <a href="#seal">open', ctx())
    assert '<a href="/doc/knowledge/crops/other.md#torque">the table</a>' in html
    assert '<span id="seal" class="anchor"></span>the seal' in html
    assert '<span class="dropped-link">evil</span>' in html
    assert '<a href="https://e.com/?a=1&amp;b=2" rel="noopener noreferrer nofollow" ' \
           'class="external">ext</a>' in html
    assert html.rstrip().endswith('<a href="#seal">open</a></p>')
    assert "onclick" not in html and "target" not in html and "javascript" not in html
    assert "&lt;a" not in html


def test_a_heading_s_custom_id_and_title_both_reach_it_as_kb_check_accepts():
    """`## Title {#cid}` got the page id `title-cid` and showed `{#cid}`: neither `#title`
    nor `#cid` (both of which `kb check` accepts) jumped to it."""
    text = ("[TOC]\n\n## Title {#cid}\n\n## Title\n\n## 阈值 {#limits} ^blk\n\n## {#only}\n\n"
            "## `code {#c}`\n")
    html = render_markdown(text, ctx())
    assert '<h2 id="title" data-lines="3-3">Title<span id="cid" class="anchor"></span></h2>' in html
    assert '<h2 id="title-1" data-lines="5-5">Title</h2>' in html
    assert '<h2 id="阈值" data-lines="7-7"><span id="^blk" class="anchor"></span>阈值<span ' \
        'id="limits" class="anchor"></span></h2>' in html
    assert '<a href="#title">Title</a>' in html and "{#cid}" not in html
    assert "<code>code {#c}</code>" in html  # code is shown as written
    ids = set(re.findall(r' id="([^"]+)"', html))
    # the anchors the link-anchor rule accepts, and a block's (`#^blk`, which it names)
    assert ids == set(scan(text, 1).slugs()) - {""} | {"^blk"}


def test_script_in_a_heading_is_no_part_of_its_anchor():
    html = render_markdown("## 标题带 <script>alert(1)</script>脚本\n", ctx())
    assert 'id="标题带-脚本"' in html and "<script>" not in html


def test_escaped_custom_id_is_shown_as_text():
    """`## 语法 \\{#x}` on the page: the `{#x}` was cut from the heading and became the
    anchor `x`, which `kb check` and the chunker now read as text too."""
    html = render_markdown("## 语法 \\{#x}\n\n## 真 {#real}\n", ctx())
    assert '<h2 id="语法-x" data-lines="1-1">语法 {#x}</h2>' in html
    assert 'id="x"' not in html and '<span id="real" class="anchor">' in html


def test_details_and_summary_are_a_disclosure_box_open_on_the_page():
    """Typora, GitHub and Obsidian show `<details><summary>…</summary> … </details>` as a
    box titled by its summary; the page showed the tags as code. It is the page's own
    `<details open>` (a cited line inside is never folded away), balanced within what is
    rendered; a tag with attributes, or any other tag in the block, stays escaped text."""
    md = "<details>\n<summary>展开故障排查</summary>\n\n电机不转时先检查保险丝。\n\n</details>\n"
    html = render_markdown(md, ctx(terms=["故障"]))
    assert "raw-html" not in html and "&lt;" not in html
    assert "<details open" in html and html.count("</details>") == 1
    assert "<summary>展开<mark>故障</mark>排查</summary>" in html
    assert html.index("<summary>") < html.index("保险丝") < html.index("</details>")
    opened = render_markdown("<DETAILS open>\n<summary>a &amp; b</summary>\n\ntext\n", ctx())
    assert opened.count("<details open") == 1 and opened.rstrip().endswith("</details>")
    assert "<summary>a &amp; b</summary>" in opened
    closed = render_markdown("text\n\n</details>\n", ctx())
    assert "details" not in closed
    for raw in ('<details onclick="x()">\n<summary>s</summary>\n',
                "<details>\n<summary>s <b>b</b></summary>\n"):
        assert "raw-html" in render_markdown(raw, ctx())


def test_a_disclosure_box_s_lines_cover_the_box_not_its_opening_block():
    """A `<details>` box's `data-lines` named its `<details>`/`<summary>` lines alone: the
    page's line of the box left out the Markdown inside it. They run through the block
    closing it (a box inside another closing first), or through the text's end when none
    does; a box in an HTML comment opens none."""
    md = ("<details>\n<summary>排查</summary>\n\n电机不转。\n\n<details>\n<summary>内</summary>\n"
          "\n保险丝。\n\n</details>\n\n</details>\n\n<!-- <details> -->\n\n后文\n\n"
          "<details open>\n<summary>未关</summary>\n\n末行\n")
    html = render_markdown(md, ctx())
    assert re.findall(r'<details open data-lines="([^"]+)"', html) == ["1-13", "19-22"]
    assert '<p data-lines="17-17">后文</p>' in html


def test_an_inline_footnote_is_its_note_in_place_not_raw_text():
    """`滴^[依据 GB 4285]` was shown as written, `^[` and `]` included."""
    html = render_markdown("每亩 5 滴^[依据 **GB** 4285]。`^[码]` \\^[转义] ^[] a^[b^[c]]\n",
                           ctx(terms=["依据"]))
    assert ('滴<small class="footnote-inline">(<mark>依据</mark> <strong>GB</strong> 4285)'
            '</small>。') in html
    assert "<code>^[码]</code> ^[转义] ^[] a" in html
    assert '(b<small class="footnote-inline">(c)</small>)</small>' in html


def test_a_block_in_the_other_language_says_its_own():
    """An English paragraph, heading or table cell in a Chinese manual (a Chinese note in an
    English one) was inside the page's ``lang="zh-CN"`` only: a screen reader read "Replace
    the filter" with its Chinese voice. Such a block now carries its own ``lang``; a block
    in the document's language, and one without letters (a dose), carry none."""
    text = ("## 更换滤芯\n\nReplace the hydraulic filter every 500 hours.\n\n每 500 小时更换。\n\n"
            "## Fault codes\n\n| 代码 | 说明 |\n|---|---|\n| E01 | Low oil pressure |\n"
            "| 22 | 油压低 |\n")
    html = render_markdown(text, ctx(text_lang="zh-CN"))
    tagged = re.findall(r'<(\w+)[^>]*\blang="([^"]+)"[^>]*>([^<]*)', html)
    assert [(tag, lang, words) for tag, lang, words in tagged] == [
        ("p", "en", "Replace the hydraulic filter every 500 hours."),
        ("h2", "en", "Fault codes"), ("td", "en", "E01"), ("td", "en", "Low oil pressure")]
    english = render_markdown("## Filter\n\n按说明书更换滤芯。\n\nSee the manual.\n",
                              ctx(text_lang="en"))
    assert re.findall(r'<p[^>]*\blang="([^"]+)"', english) == ["zh-CN"]
    assert 'lang="' not in render_markdown(text, ctx())  # no language given: none tagged
