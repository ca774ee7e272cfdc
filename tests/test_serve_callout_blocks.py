"""A document's page (`kb serve`) showing what callouts and Typora's HTML blocks hold.

Session 35 read the page of documents holding callouts of every kind of block, and Typora's
HTML: the callouts were already right (a titled box of its kind; its list a list, its table a
table, a line inside it cited where a deep link points), and stay guarded here. A picture
Typora centres or sizes inside a wrapper (`<center>`, `<p align="center">`, `<div
align="center">` around `<img … width=300>`) was shown as its HTML source in a grey box,
though the build read it as a picture (an image chunk at its own line)."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest
from servefixtures import app_client

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from tests.kbfixtures import GOOD_FM, REPO

DOC = "knowledge/t/x.md"
SHIPPED = {"assets/叶斑.png", "assets/seal.png", "assets/pump.png"}

CALLOUTS = """# 液压站维护

> [!warning] 安全注意事项
> - 检修前必须切断主电源并挂牌上锁。
> - 佩戴防护眼镜和耐油手套。

> [!tip]- Replacing the seal
> 1. Stop the pump and let it cool.
> 2. Fit the new seal, lip facing the impeller.

> [!note] 油温判定表
> | 油温 | 处理 |
> |---|---|
> | 60以上 | 停机检查冷却器 |

> [!example] Check
> ```bash
> systemctl status hydraulic-monitor
> ```

> [!caution] 外层
> > [!danger] 内层
> > 严禁混用不同牌号的液压油[^1]。

[^1]: 见油品手册。
"""


def page(text: str, cited: tuple[int, int] | None = None) -> str:
    return render_markdown(text, RenderContext(doc=DOC, cited=cited,
                                               has_asset=lambda rel: rel in SHIPPED))


def cited_block(html: str) -> str:
    """The opening tag of the block the page scrolls to (`id="cited"`), or the block after
    the anchor placed before it."""
    m = re.search(r'<span id="cited" class="anchor"></span>(<[^>]+>)|(<[^>]*id="cited"[^>]*>)',
                  html)
    assert m, html
    return m.group(1) or m.group(2)


def test_each_callout_is_a_box_of_its_kind_holding_its_blocks_as_such():
    html = page(CALLOUTS)
    assert "[!" not in html
    for kind, title in (("warning", "安全注意事项"), ("tip", "Replacing the seal"),
                        ("note", "油温判定表"), ("example", "Check"), ("danger", "内层")):
        assert re.search(rf'<blockquote class="callout callout-{kind}"[^>]*>\n<p[^>]*>'
                         rf'<span class="callout-title">{title}</span>', html), kind
    assert re.search(r'<ul data-lines="4-5">\n<li data-lines="4-4">检修前', html)
    assert re.search(r'<ol data-lines="8-9">\n<li data-lines="8-8">Stop the pump', html)
    assert "<td>停机检查冷却器</td>" in html and 'class="language-bash"' in html
    assert '<sup class="footnote-ref">1</sup>' in html


@pytest.mark.parametrize(("line", "tag"), [
    (5, '<li data-lines="5-5" class="cited" id="cited">'),
    (9, '<li data-lines="9-9" class="cited" id="cited">'),
    (14, '<tr data-lines="14-14" class="cited" id="cited">'),
    (18, '<pre data-lines="17-19" class="cited" id="cited">'),
    (23, '<p data-lines="22-23" class="cited" id="cited">'),  # the title's paragraph
])
def test_a_deep_link_to_a_line_inside_a_callout_marks_that_part(line, tag):
    assert cited_block(page(CALLOUTS, (line, line))) == tag


@pytest.mark.parametrize(("markup", "centred"), [
    ('<p align="center">\n<img src="../../assets/叶斑.png" alt="叶斑" style="zoom:50%">\n</p>\n',
     True),
    ('<center><img src="../../assets/seal.png" alt="seal" /></center>\n', True),
    ('<div align="center"><img src="../../assets/pump.png" alt="pump" width="300"></div>\n',
     True),
    ('<CENTER>\n<img src="../../assets/叶斑.png" alt="叶斑">\n<br>\n'
     '<img src="../../assets/seal.png" alt="seal">\n</CENTER>\n', True),
    ('<div style="text-align: center;"><img src="../../assets/pump.png" alt="pump"></div>\n',
     True),
    ('<div><img src="../../assets/pump.png" alt="pump" height=120></div>\n', False),
], ids=["p-align", "center", "div-align", "two-pictures", "style", "plain-div"])
def test_typora_pictures_in_a_wrapper_are_shown_as_pictures(markup, centred):
    """The pictures, and their size in pixels, shown as the page's own images; the wrapper's
    centring kept as the page's class, every other attribute dropped."""
    html = page(f"# 图\n\n{markup}\n正文。\n")
    assert "raw-html" not in html and "&lt;" not in html, html
    srcs = [unquote(a) for a in re.findall(r'<img class="photo" src="/asset/([^"]+)"', html)]
    assert srcs == [a.split("/", 2)[2] for a in re.findall(r'src="([^"]+)"', markup)]
    assert ('class="centred"' in html) == centred
    assert "zoom" not in html and "align" not in html and "style" not in html
    if "width" in markup:
        assert 'width="300"' in html
    assert re.search(r'<p data-lines="3-\d+"(?: class="centred")?>', html), html


def test_a_cited_picture_in_a_wrapper_in_a_callout_has_one_class_attribute():
    html = page('> [!note] 图\n> <center>\n> <img src="../../assets/pump.png" alt="pump" '
                'width="200">\n> </center>\n', (3, 3))
    assert '<p data-lines="2-4" class="centred cited">' in html, html
    assert html.count('class="callout-title"') == 1 and "&lt;" not in html


@pytest.mark.parametrize("markup", [
    '<div><script>alert(1)</script><img src="../../assets/pump.png"></div>\n',
    '<table><tr><td><img src="../../assets/pump.png"></td></tr></table>\n',
    '<center><img src="../../assets/pump.png"><!-- 图 1 --></center>\n',
])
def test_a_wrapper_holding_more_than_pictures_and_words_is_still_shown_as_escaped_source(
        markup):
    html = page(f"{markup}\n")
    assert '<pre class="raw-html">' in html and "<img" not in html and "<script" not in html


def test_a_wrapper_of_a_picture_and_a_link_is_a_paragraph_of_them_and_no_script_runs():
    """(session 45, k45b) A picture and a link in a wrapper are shown as a paragraph, as the
    same tags inside one are: the page's own image, a `javascript:` link dropped to its text."""
    html = page('<center><img src="../../assets/pump.png"><br><a href="javascript:x()">图 1</a>'
                '</center>\n\n')
    assert '<pre class="raw-html">' not in html and "javascript" not in html
    assert '<span class="dropped-link">图 1</span>' in html and "<img" in html


def test_the_served_page_of_a_built_document_marks_a_line_inside_a_callout(tmp_path):
    """Through a build and the app (`kb serve`): the document's page at `?lines=` of a list
    item and of a table row inside callouts marks that item and row, in their boxes."""
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    text = GOOD_FM + "\n" + CALLOUTS
    (tmp_path / "knowledge" / "t" / "callouts.md").write_text(text, encoding="utf-8")
    build(load_config(tmp_path), BuildOptions(progress=False))
    lines = text.split("\n")
    item = lines.index("> - 佩戴防护眼镜和耐油手套。") + 1
    row = lines.index("> | 60以上 | 停机检查冷却器 |") + 1
    for client in app_client(tmp_path / "dist"):
        for line, tag in ((item, "li"), (row, "tr")):
            html = client.get("/doc/knowledge/t/callouts.md", params={"lines": f"{line}-{line}"}).text
            assert f'<{tag} data-lines="{line}-{line}" class="cited" id="cited">' in html
            box = html[:html.index('id="cited"')].rsplit("<blockquote", 1)[1]
            assert box.startswith(' class="callout callout-'), box


TYPORA_CAPTION = """<center>
    <img style="border-radius: 0.3125em; box-shadow: 0 2px 4px 0 rgba(34,36,38,.12);"
    src="../../assets/pump.png" alt="泵">
    <br>
    <div style="color:orange; border-bottom: 1px solid #d9d9d9; display: inline-block; color: #999; padding: 2px;">图 4 液压泵 &amp; 电机</div>
</center>
"""


@pytest.mark.parametrize(("markup", "caption", "centred", "above"), [
    ('<center><img src="../../assets/pump.png" width="300"><br>图 1 液压泵外观</center>\n',
     "图 1 液压泵外观", True, False),
    ('<p align="center"><img src="../../assets/pump.png"><br/>Figure 2 The pump from the side'
     '</p>\n', "Figure 2 The pump from the side", True, False),
    ('<figure><img src="../../assets/pump.png" alt="pump"><figcaption>图 3 泵的剖面</figcaption>'
     '</figure>\n', "图 3 泵的剖面", False, False),
    (TYPORA_CAPTION, "图 4 液压泵 &amp; 电机", True, False),
    ('<div align="center"><img src="../../assets/pump.png"><b onclick="x()">Pump</b></div>\n',
     "Pump", True, False),
    ('<p align="center">图 5 上方的标题<br>\n<img src="../../assets/pump.png"></p>\n',
     "图 5 上方的标题", True, True),
    ('<center><img src="../../assets/pump.png"><br>&lt;script&gt;alert(1)&lt;/script&gt; 图 6'
     '</center>\n', "&lt;script&gt;alert(1)&lt;/script&gt; 图 6", True, False),
], ids=["center-br", "p-align", "figcaption", "typora-div", "b-onclick", "above", "hostile"])
def test_a_caption_written_in_a_picture_s_wrapper_is_its_caption(markup, caption, centred,
                                                                 above):
    """Typora's and GitHub's captioned pictures: the picture as the page's own image and the
    caption's words, escaped, as its `<figcaption>` (they were the block's HTML source)."""
    html = page(f"# 图\n\n{markup}\n正文。\n")
    last = 2 + markup.count("\n")
    cls = ' class="centred"' if centred else ""
    img = r'<img class="photo" src="/asset/assets/pump.png"[^<>]*>'
    figcaption = f"<figcaption>{re.escape(caption)}</figcaption>"
    inner = figcaption + img if above else img + figcaption
    assert re.search(rf'<figure data-lines="3-{last}"{cls}>{inner}</figure>', html), html
    assert "raw-html" not in html and html.count("<img") == 1
    for gone in ("<script", "onclick", "style=", "align=", "<b>", "<div", "<center"):
        assert gone not in html


def test_a_caption_s_words_the_question_matched_are_marked():
    html = render_markdown("<center><img src=\"../../assets/pump.png\"><br>图 1 液压泵外观"
                           "</center>\n", RenderContext(doc=DOC, cited=(1, 1), terms=["外观"],
                                                        has_asset=lambda rel: rel in SHIPPED))
    assert "<figcaption>图 1 液压泵<mark>外观</mark></figcaption>" in html, html


def test_a_result_s_passage_holding_a_captioned_picture_shows_it(tmp_path):
    """Through a build and the app: a section ending in Typora's captioned picture is shown
    on the results page from its lines as the document page shows them (its last line,
    whose caption chunk text reads without the tags, made the passage fall back to its
    chunk text: the indented `<img …>` a code block)."""
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "pump.png").write_bytes(
        (REPO / "assets" / "images" / "hx260-return-filter.png").read_bytes())
    text = GOOD_FM + "\n# 液压泵\n\n液压泵外观如下图所示，安装前核对铭牌型号。\n\n" + TYPORA_CAPTION
    (tmp_path / "knowledge" / "t" / "pump.md").write_text(text, encoding="utf-8")
    build(load_config(tmp_path), BuildOptions(progress=False))
    for client in app_client(tmp_path / "dist"):
        html = client.get("/", params={"q": "液压泵 电机 铭牌型号"}).text
        passage = html.split('<div class="passage"', 1)[1].split("</article>", 1)[0]
        assert re.search(r'<figure data-lines="\d+-\d+" class="centred cited"><img class="photo"'
                         r'[^<>]*><figcaption>图 4 <mark>液压泵</mark> &amp; <mark>电机'
                         r'</mark></figcaption></figure>', passage), passage
        assert "<pre" not in passage and "&lt;img" not in passage
