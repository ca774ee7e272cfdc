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
from tests.kbfixtures import GOOD_FM

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
    '<div align="center"><img src="../../assets/pump.png"><b onclick="x()">Pump</b></div>\n',
    '<p align="center"><img src="../../assets/pump.png"> 图 1 水泵</p>\n',
    '<div><script>alert(1)</script><img src="../../assets/pump.png"></div>\n',
    '<table><tr><td><img src="../../assets/pump.png"></td></tr></table>\n',
])
def test_a_wrapper_holding_more_than_pictures_is_still_shown_as_escaped_source(markup):
    html = page(f"{markup}\n")
    assert '<pre class="raw-html">' in html and "<img" not in html and "<script" not in html


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
