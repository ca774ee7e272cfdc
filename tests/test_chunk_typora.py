"""Pictures as Typora writes them, chunked at the lines they stand on.

Typora centres or resizes a picture by writing HTML: `<p align="center">` on a line, then one
`<img src=… style="zoom:50%">` per picture on the lines below, then `</p>`. Every picture of
such an HTML block was dated to the block's first line: its image chunk cited and showed the
`<p>` line (no text a reader sees), so the chunk was empty and dropped, and the picture had no
chunk at all; where the first line was itself a picture, every other picture of the block got
that first picture's line and text (its citation named the wrong picture)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from kbtools.build.chunk import ChunkConfig, chunk_document
from kbtools.cli import main
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from kbtools.markdown.nodes import block_images
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from tests.kbfixtures import GOOD_FM
from tests.test_chunk import SMALL, check_invariants

REL = "knowledge/t/pics.md"
BODY_LINE = GOOD_FM.count("\n") + 1  # the file line of the body's first line


def _src(body: str):
    return parse_source(GOOD_FM + body, Path("/r") / REL, REL)


def _line_of(body: str, needle: str) -> int:
    """The file line of the body line holding `needle` (a picture's `src`, as written or
    percent-encoded as the chunk's `extra.src` is)."""
    [n] = [i for i, line in enumerate(body.split("\n")) if unquote(needle) in line]
    return BODY_LINE + n


CENTRED = ("# 病害图谱\n\n叶片症状如下。\n\n<p align=\"center\">\n"
           "<img src=\"../../assets/叶斑.png\" alt=\"叶斑\" style=\"zoom:50%\">\n"
           "<img src=\"../../assets/病穗.png\" alt=\"病穗\" style=\"zoom:33%\">\n"
           "</p>\n\n发病初期及时用药。\n")
# the first line a picture, the block's other pictures below it (English, a `<div>`)
STACKED = ("# Pump photos\n\nThe housing after ten years.\n\n"
           "<img src=\"housing.png\" alt=\"housing\" width=\"300\">\n"
           "<div>\n  <img alt=\"seal\" src=\"seal.png\">\n</div>\n"
           "<IMG SRC=\"rotor.png\" ALT=\"rotor\">\n\nReplace the seal first.\n")
# inside a list item and a quote: the block's lines are the item's, indented or quoted
NESTED = ("# 安装\n\n1. 拆下外壳：\n\n   <center>\n   <img src=\"a.png\" alt=\"外壳\">\n"
          "   <img src=\"b.png\" alt=\"螺丝\">\n   </center>\n\n2. 装回。\n\n"
          "> <div>\n> <img src=\"c.png\" alt=\"引用里的图\">\n> </div>\n")


@pytest.mark.parametrize("body", [CENTRED, STACKED, NESTED], ids=["centred", "stacked", "nested"])
def test_each_picture_of_an_html_block_is_dated_to_its_own_line(body):
    src = _src(body)
    images = [img for _, b in parse(src).blocks() for img in block_images(b)]
    assert images
    for img in images:
        assert img.line == _line_of(body, img.src), img


@pytest.mark.parametrize("body", [CENTRED, STACKED, NESTED], ids=["centred", "stacked", "nested"])
@pytest.mark.parametrize("cfg", [ChunkConfig(), SMALL], ids=["default", "small"])
def test_each_picture_has_a_chunk_citing_and_showing_its_line(body, cfg):
    src = _src(body)
    chunks = chunk_document(src, cfg)
    check_invariants(src, chunks)
    pictures = [c for c in chunks if c.kind == "image"]
    wanted = [img.src for _, b in parse(src).blocks() for img in block_images(b)]
    assert sorted(c.extra["src"] for c in pictures) == sorted(wanted)
    lines = src.text.split("\n")
    for c in pictures:
        at = _line_of(body, c.extra["src"])
        assert c.line_start <= at <= c.line_end, (c.extra["src"], c.line_start, c.line_end)
        assert lines[at - 1].strip() in c.text  # the picture's own tag is shown
        assert c.extra["alt"] in c.embed_text


def test_kb_check_finds_a_missing_picture_in_a_wrapper_a_callout_or_a_sized_tag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Guard (already right in session 35): a picture's path in Typora's `<img … width=…>`,
    in a centring wrapper or in a callout is checked like `![](…)`'s, at its own line."""
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "here.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    body = ("# 图\n\n<center>\n<img src=\"../../assets/here.png\" alt=\"在\" width=\"300\">\n"
            "<img src=\"../../assets/gone1.png\" alt=\"缺一\" width=\"300\">\n</center>\n\n"
            "<p align=\"center\"><img src=\"../../assets/gone2.png\" alt=\"缺二\"></p>\n\n"
            "> [!note] Photo\n> <img src=\"../../assets/gone3.png\" alt=\"missing\" height=80>\n")
    (tmp_path / "knowledge" / "t" / "pics.md").write_text(GOOD_FM + body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["check"])
    missing = [line for line in res.output.splitlines() if "path-missing" in line]
    assert [m.split(":")[1] for m in missing] == [str(_line_of(body, f"gone{i}")) for i in (1, 2, 3)]
    assert res.exit_code != 0 and "here.png" not in res.output


TYPORA_FIGURE = ("# 液压泵\n\n安装前核对铭牌型号。\n\n<center>\n"
                 "    <img style=\"border-radius: 0.3125em;\" src=\"../../assets/pump.png\" alt=\"泵\">\n"
                 "    <br>\n"
                 "    <div style=\"color:orange; display: inline-block; color: #999;\">"
                 "图 4 液压泵与电机的连接</div>\n</center>\n\n"
                 "<p align=\"center\"><img src=\"../../assets/seal.png\"><br>Figure 5 The seal</p>\n")


@pytest.mark.parametrize("cfg", [ChunkConfig(), SMALL], ids=["default", "small"])
def test_a_picture_s_image_chunk_holds_the_caption_its_wrapper_holds(cfg):
    """Typora's captioned picture over several lines (`<center>`, the `<img>`, `<br>`, the
    caption in a styled `<div>`): its image chunk held the `<img>` line alone, so a search
    for the caption's words found the picture only through its section. It now cites the
    picture's line through the caption's, and holds and embeds the caption."""
    src = _src(TYPORA_FIGURE)
    chunks = chunk_document(src, cfg)
    check_invariants(src, chunks)
    img, cap = _line_of(TYPORA_FIGURE, "<img style"), _line_of(TYPORA_FIGURE, "图 4")
    [pump] = [c for c in chunks if c.kind == "image" and c.line_start == img]
    assert pump.line_end == cap
    assert pump.text.endswith("\n图 4 液压泵与电机的连接") and "<div" not in pump.text
    assert "图 4 液压泵与电机的连接" in pump.embed_text
    seal = _line_of(TYPORA_FIGURE, "seal.png")  # a caption on the picture's line: as before
    assert all(c.text.endswith("Figure 5 The seal") for c in chunks
               if c.line_start <= seal <= c.line_end and c.kind == "image")


def test_image_no_alt_in_a_captioned_wrapper_says_how_to_fix_that_form(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A picture in Typora's captioned wrapper, or a `<figure>` with its `<figcaption>`, with
    no `alt`: the finding said "search finds no words for it" and showed `![…](x.png)`,
    though search finds it by its caption. A caption is text beside the picture, not its
    description to a screen reader, so the warning stays; it names the caption and says to
    write alt in the `<img>` tag, the caption kept. A lone picture's message is as before."""
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    (tmp_path / "assets").mkdir()
    for name in ("pump.png", "seal.png", "gear.png", "lone.png"):
        (tmp_path / "assets" / name).write_bytes(b"\x89PNG\r\n\x1a\n")
    body = ("# 图\n\n<center>\n<img src=\"../../assets/pump.png\">\n<br>\n"
            "图 4 液压泵与电机的连接\n</center>\n\n"
            "<figure>\n<img src=\"../../assets/seal.png\">\n"
            "<figcaption>Figure 5 The seal</figcaption>\n</figure>\n\n"
            "<p align=\"center\"><img src=\"../../assets/gear.png\" alt=\"齿轮\"><br>图 6</p>\n\n"
            "<img src=\"../../assets/lone.png\">\n")
    (tmp_path / "knowledge" / "t" / "pics.md").write_text(GOOD_FM + body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    found = [line for line in res.output.splitlines() if "image-no-alt" in line]
    assert [f.split(":")[1] for f in found] == [
        str(_line_of(body, name)) for name in ("pump.png", "seal.png", "lone.png")]
    pump, seal, lone = found
    assert "captioned '图 4 液压泵与电机的连接'" in pump and "<img alt=" in pump
    assert "keep the caption" in pump and "search finds no words" not in pump
    assert "captioned 'Figure 5 The seal'" in seal
    assert "search finds no words for it" in lone and "captioned" not in lone


HEADING_PICTURES = ("# ![标志](logo.png) 安装指南\n\n先准备扳手与密封胶。\n\n"
                    "## 泵的外观 ![泵](pump.png \"外观图\")\n\n泵体为铸铁，出口朝上。\n")


@pytest.mark.parametrize("cfg", [ChunkConfig(), SMALL], ids=["default", "small"])
def test_a_heading_s_picture_has_its_image_chunk(cfg):
    """A picture in a heading (an Obsidian or Typora author's icon or photo beside the title)
    was copied into the release but had no image chunk, so its alt and title were no image
    search and no answer showed it as a picture; every other picture has one. Its chunk is
    the heading's line, never words of the section above it."""
    src = _src(HEADING_PICTURES)
    chunks = chunk_document(src, cfg)
    check_invariants(src, chunks)
    images = {c.extra["src"]: c for c in chunks if c.kind == "image"}
    logo, pump = images["logo.png"], images["pump.png"]
    assert (logo.line_start, logo.line_end) == (BODY_LINE, BODY_LINE)
    assert logo.heading_path == ("标志 安装指南",)
    line = _line_of(HEADING_PICTURES, "## 泵的外观")
    assert (pump.line_start, pump.line_end) == (line, line)
    assert pump.extra["alt"] == "泵" and pump.extra["title"] == "外观图"
    assert "外观图" in pump.embed_text and "扳手" not in pump.text


# one picture written the ways Typora and a hand write it: an `<img>` with the bare space
# or `%20`, a Markdown image in `<…>` or with `%20`; a Chinese name bare in both
SPELLINGS = ("# 外观\n\n<img src=\"../assets/泵 外观.png\" alt=\"一\" style=\"zoom:50%;\" />\n\n"
             "正面照片。\n\n<img src=\"../assets/泵%20外观.png\" alt=\"二\" width=\"300\">\n\n"
             "侧面照片。\n\n![三](<../assets/泵 外观.png>)\n\n背面照片。\n\n"
             "![四](../assets/泵%20外观.png)\n\n顶部照片。\n\n"
             "<img src=\"../assets/叶斑.png\" alt=\"五\">\n\n叶片。\n\n![六](../assets/叶斑.png)\n")


def test_an_img_tag_s_src_is_spelt_as_a_markdown_image_s():
    """`extra.src` of an `<img>` kept its path as written (`泵 外观.png`, `泵%20外观.png`,
    `叶斑.png`) while a Markdown image's is percent-encoded: one picture had two or three
    spellings, so a consumer matching an answer's picture to the file, or two answers' by
    their `src`, missed. Both are percent-encoded now, as markdown-it writes a link."""
    chunks = chunk_document(_src(SPELLINGS), ChunkConfig())
    src_of = {c.extra["alt"]: c.extra["src"] for c in chunks if c.kind == "image"}
    assert sorted(src_of) == ["一", "三", "二", "五", "六", "四"]
    assert {src_of[a] for a in "一二三四"} == {"../assets/%E6%B3%B5%20%E5%A4%96%E8%A7%82.png"}
    assert src_of["五"] == src_of["六"] == "../assets/%E5%8F%B6%E6%96%91.png"


# pictures whose image chunk's text is its section's: the first of two under a heading, a
# page of one Typora paragraph, of one picture, of one folded box; each as `<img>` and as
# Markdown (`![alt](src)`)
ALONE = {
    "two under a heading": ("## 外观\n\n<img src=\"a.png\" alt=\"正面\">\n\n"
                            "<img src=\"b.png\" alt=\"侧面\">\n"),
    "a Typora paragraph": "先拆外壳 <img src=\"a.png\" alt=\"外壳\" style=\"zoom:50%;\" /> 然后拧螺丝。\n",
    "a picture alone": "<img src=\"a.png\" alt=\"Pump housing\" width=\"300\">\n",
    "a folded box": ("<details>\n<summary>照片</summary>\n\n<img src=\"a.png\" alt=\"叶轮\">\n\n"
                     "</details>\n"),
}
MARKDOWN_IMAGE = re.compile(r'<img src="([^"]+)" alt="([^"]+)"[^>]*>')


@pytest.mark.parametrize("markdown", [False, True], ids=["img", "markdown"])
@pytest.mark.parametrize("body", list(ALONE.values()), ids=list(ALONE))
def test_a_picture_whose_chunk_is_its_section_s_text_keeps_its_image_chunk(body, markdown):
    """A picture whose image chunk held its section's text (the first of two pictures under
    a heading: its lines before and after are the section's all) had no image chunk: it was
    dropped as a repeat of the section's, with its `src`, `alt` and the alt embedded first,
    so no search found the picture as one. Every picture has its image chunk."""
    if markdown:
        body = MARKDOWN_IMAGE.sub(r"![\2](\1)", body)
    src = _src(body)
    chunks = chunk_document(src, ChunkConfig())
    check_invariants(src, chunks)
    images = {c.extra["src"]: c for c in chunks if c.kind == "image"}
    wanted = [img for _, b in parse(src).blocks() for img in block_images(b)]
    assert sorted(images) == sorted(img.src for img in wanted)
    for img in wanted:
        chunk = images[img.src]
        assert chunk.line_start <= img.line <= chunk.line_end
        assert chunk.extra["alt"] == img.alt and img.alt in chunk.embed_text.split("\n")


# Typora's resized pictures under a heading, each with its caption on the line under it, no
# blank line between: one HTML block of pictures and words
CAPTIONED = ("# 水泵\n\n安装前核对铭牌。\n\n## 外观\n"
             "<img src=\"front.png\" alt=\"正面\" style=\"zoom:50%;\" />\n图 1 泵体正面，出口朝上\n"
             "<img src=\"side.png\" alt=\"侧面\" style=\"zoom:50%;\" />\n图 2 泵体侧面，铭牌在左\n\n"
             "安装时先对中。\n")


@pytest.mark.parametrize("cfg", [ChunkConfig(), SMALL], ids=["default", "small"])
def test_pictures_of_one_html_block_take_the_words_around_them_as_markdown_images_do(cfg):
    """Each `<img>` of an HTML block of pictures and their captions had its own line alone as
    its image chunk (an HTML block's lines were no picture's context), so `图 1 泵体正面` was no
    words of the picture; written as `![正面](front.png)` it had its lines around it. Each
    picture now has the lines a Markdown image would have, inside the block."""
    src = _src(CAPTIONED)
    chunks = chunk_document(src, cfg)
    check_invariants(src, chunks)
    spans = {c.extra["src"]: (c.line_start, c.line_end, c.embed_text)
             for c in chunks if c.kind == "image"}
    written = MARKDOWN_IMAGE.sub(r"![\2](\1)", CAPTIONED)
    markdown = {c.extra["src"]: (c.line_start, c.line_end) for c in
                chunk_document(_src(written), cfg) if c.kind == "image"}
    assert {k: v[:2] for k, v in spans.items()} == markdown
    assert "图 1 泵体正面" in spans["front.png"][2] and "图 2 泵体侧面" in spans["side.png"][2]


@pytest.mark.parametrize("written", [
    '先拆外壳，\n<img\n  src="assets/c.png" alt="外壳 > 螺丝">\n然后拧螺丝。',
    '先拆外壳，<img src="assets/c.png"\nalt="外壳 > 螺丝"> 然后拧螺丝。',
    '先拆外壳，<IMG\nSRC="assets/c.png"\nALT="外壳 &gt; 螺丝"\n/>然后拧螺丝。',
], ids=["its own lines", "inside a line", "upper case, three lines"])
def test_a_picture_tag_spread_over_lines_takes_the_words_around_it(written):
    """An `<img>` tag spread over two lines in a paragraph got the line it opens on alone as
    its chunk text (`先拆外壳，<img`), not the words around it as a one-line tag does."""
    body = f"# 泵\n\n## 外观\n\n概述。\n\n{written}\n"
    [image] = [c for c in chunk_document(_src(body)) if c.kind == "image"]
    assert (image.extra["src"], image.extra["alt"]) == ("assets/c.png", "外壳 > 螺丝")
    assert image.text == written
    assert (image.line_start, image.line_end) == (_line_of(body, "先拆外壳"),
                                                  _line_of(body, "然后拧螺丝"))


LONG = "安装前核对铭牌型号，确认电机转向与泵体箭头一致，然后连接进出油管并检查密封。" * 3
# a caption under a picture in a link to its full size (GitHub READMEs), and under a
# `<picture>` offering another format of it (screen sizes, WebP)
LINKED = ('<p align="center">\n  <a href="../../assets/a.png"><img src="../../assets/a.png" '
          'alt="泵"></a>\n  <br>\n  图 1 泵总装\n</p>\n')
PICTURE = ('<center>\n<picture>\n  <source srcset="../../assets/a.webp" type="image/webp">\n'
           '  <img src="../../assets/a.png" alt="泵">\n</picture>\n<br>\n图 2 泵体\n</center>\n')


@pytest.mark.parametrize("figure", [LINKED, PICTURE], ids=["linked", "picture"])
def test_a_linked_picture_or_a_picture_element_s_chunk_holds_its_caption(figure):
    """Both show on the device's page as the picture over its caption; the image chunk held
    the `<img>` line alone (the caption found only through the section), and the page
    showed the `<picture>` block as escaped source."""
    body = f"# 泵\n\n{LONG}\n\n{figure}\n{LONG}\n"
    src = _src(body)
    chunks = chunk_document(src)
    check_invariants(src, chunks)
    [picture] = [c for c in chunks if c.kind == "image"]
    caption = "图 1 泵总装" if figure is LINKED else "图 2 泵体"
    assert picture.text.endswith(caption) and caption in picture.embed_text
    assert LONG not in picture.text
    page = render_markdown(body, RenderContext(doc=REL))
    assert "&lt;" not in page and caption in page
