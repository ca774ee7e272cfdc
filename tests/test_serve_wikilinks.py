"""Obsidian's wikilinks and embeds on a device's page (`kbtools.serve.wikilinks`): a page
showed `![[pump.png|300]]`, `![[泵站检修]]` and `[[泵站检修#停机 步骤|停机步骤]]` as written
(a vault built with `--lenient` keeps them). Now an embedded picture is an image, a note,
embedded or linked, a link to its page at its heading, and a target the release lacks is
its text."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, unquote

from servefixtures import app_client

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM

DOC = "knowledge/设备/巡检.md"
FILES = ["knowledge/设备/巡检.md", "knowledge/设备/泵站检修.md", "knowledge/旧/泵站检修.md",
         "knowledge/规程/阀门 检修.md", "assets/img/pump.png"]


def ctx(**kw):
    def named(key: str) -> list[str]:
        return [f for f in FILES if f.rsplit("/", 1)[-1].lower() == key]
    return RenderContext(doc=DOC, files_named=named, has_asset=lambda rel: rel in FILES, **kw)


def _link(href: str, text: str) -> str:
    """A link of the page as the renderer writes it (the readable target to print after)."""
    shown = f' data-print="{unquote(href)}"' if unquote(href) != href else ""
    return f'<a href="{href}"{shown}>{text}</a>'


def test_an_embedded_picture_is_an_image_at_its_width():
    html = render_markdown("图：![[pump.png|300]] 和 ![[pump.png|泵站外观|200x100]]\n", ctx())
    assert "[[" not in html
    imgs = re.findall(r"<img [^>]*>", html)
    assert len(imgs) == 2, html
    assert 'src="/asset/assets/img/pump.png"' in imgs[0] and 'width="300"' in imgs[0]
    assert 'alt="pump"' in imgs[0]
    assert 'alt="泵站外观"' in imgs[1] and 'width="200"' in imgs[1] and 'height="100"' in imgs[1]


def test_a_note_embedded_or_linked_is_a_link_to_its_page():
    html = render_markdown("读 ![[泵站检修]]，见 [[泵站检修#停机 步骤|停机步骤]] 与 "
                           "[[阀门 检修]]、[[../规程/阀门 检修#拆卸]]、[[#检查项]]。\n", ctx())
    assert "[[" not in html
    page = "/doc/" + quote("knowledge/设备/泵站检修.md")  # its own folder's, of two
    valve = "/doc/" + quote("knowledge/规程/阀门 检修.md")
    for href, text in ((page, "泵站检修"), (f"{page}#{quote('停机-步骤')}", "停机步骤"),
                       (valve, "阀门 检修"), (f"{valve}#{quote('拆卸')}", "../规程/阀门 检修 &gt; 拆卸"),
                       (f"#{quote('检查项')}", "检查项")):
        assert _link(href, text) in html, (href, html)


def test_a_target_the_release_lacks_is_its_text_and_code_stays_as_written():
    html = render_markdown("见 [[不存在的笔记|别处]] 和 ![[缺失.png]]\n\n`[[ -f x ]]`\n\n"
                           "[外链 [[x]]](https://example.org)\n", ctx())
    assert "见 别处 和" in html and "<a href" not in html.split("<code>")[0].split("外链")[0]
    assert '<span class="missing-image">[缺失]</span>' in html
    assert "<code>[[ -f x ]]</code>" in html
    assert 'href="https://example.org"' in html and "[[x]]" in html


def test_a_served_vault_page_shows_its_embeds(tmp_path: Path):
    png = (Path(__file__).parent.parent / "assets" / "images" / "rice-blast-leaf.png").read_bytes()
    repo = make_repo(tmp_path / "vault", docs={
        DOC: GOOD_FM + "\n# 巡检\n\n巡检前读 ![[泵站检修]]，步骤见 [[泵站检修#停机 步骤|停机步骤]]。"
        "\n\n图：![[pump.png|300]]\n\n![泵站](../../assets/img/pump.png)\n",
        "knowledge/设备/泵站检修.md": GOOD_FM + "\n# 泵站检修\n\n## 停机 步骤\n\n先断电。\n"})
    (repo / "assets" / "img").mkdir(parents=True)
    (repo / "assets" / "img" / "pump.png").write_bytes(png)
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    for client in app_client(repo / "dist"):
        html = client.get("/doc/" + quote(DOC)).text
        assert "[[" not in html, html
        assert re.search(r'<img class="photo" src="/asset/assets/img/pump.png[^"]*"[^>]*'
                         r'width="300"', html), html
        page = "/doc/" + quote("knowledge/设备/泵站检修.md")
        assert _link(page, "泵站检修") in html
        assert _link(f"{page}#{quote('停机-步骤')}", "停机步骤") in html


def test_a_wikilink_split_by_emphasis_is_read_first_as_obsidian_reads_it():
    """markdown-it reads the marks inside a wikilink as emphasis and cut its text: the page
    showed `[[泵站<em>检修</em>]]`. Obsidian reads the wikilink first: a link (or its text,
    when no file is named so), its label the text the index holds, and a mark whose partner
    the wikilink holds is the text written."""
    page = "/doc/" + quote("knowledge/设备/泵站检修.md")
    html = render_markdown("别名 [[泵站检修|*操作规程*]]，[[泵站检修|说**明**书]]；"
                           "读 **[[泵站检修]]**；跨 **[[泵站检修]] 与 [[阀门**检修]] 完；"
                           "缺 [[设备*手册*]]；==[[泵站检修#停机 *步骤*]]==\n", ctx())
    assert "[[" not in html and "<em>" not in html, html
    assert _link(page, "操作规程") in html and _link(page, "说**明**书") in html
    assert f"读 <strong>{_link(page, '泵站检修')}</strong>；" in html
    assert f"跨 **{_link(page, '泵站检修')} 与 阀门**检修 完" in html  # no <strong> across
    assert "缺 设备*手册*；" in html  # no such file: its text, as written
    step = _link(f"{page}#{quote('停机-步骤')}", "泵站检修 &gt; 停机 *步骤*")
    assert f'<mark class="hl">{step}</mark>' in html
    embed = render_markdown("![[pump.png|*泵站*外观|300]]\n", ctx())
    assert 'alt="*泵站*外观"' in embed and 'width="300"' in embed and "<em>" not in embed


def test_a_block_reference_lands_on_its_block():
    """`[[泵站检修#^rule1]]` linked the page to `#rule1`, an anchor no page had (a block's id
    was only left out of its text): the link opened the page's top, or nothing. Each block
    id is now its block's anchor, `^id` (a paragraph's, a heading's beside its own, the
    list's or table's an id on a line of its own stands below), where the link lands."""
    html = render_markdown("# 巡检\n\n先断电。 ^rule1\n\n- 一\n- 二\n\n^steps\n\n| a | b |\n|---|---|"
                           "\n| 1 | 2 |\n\n^tbl\n\n段一\n段二\n^two-lines\n\n## 检查 ^h1\n\n"
                           "见 [[#^rule1]]、[[泵站检修#^stop|停机规则]]、[[巡检#^steps]]。\n", ctx())
    assert '<p data-lines="3-3"><span id="^rule1" class="anchor"></span>先断电。</p>' in html
    assert re.search(r'<ul id="\^steps"', html) and re.search(r'<table id="\^tbl"', html), html
    assert '<span id="^two-lines" class="anchor"></span>段一' in html and "^two-lines\n" not in html
    assert '<h2 id="检查" data-lines="20-20"><span id="^h1" class="anchor"></span>检查</h2>' in html
    page = "/doc/" + quote("knowledge/设备/泵站检修.md")
    assert _link("#%5Erule1", "^rule1") in html
    assert _link(f"{page}#%5Estop", "停机规则") in html
    assert _link("#%5Esteps", "巡检") in html
