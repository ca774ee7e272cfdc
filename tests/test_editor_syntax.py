"""Documents as Typora and Obsidian write them: `kb check` accepts what those editors show
correctly, and the doc tree, chunks and citations point at the lines written."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.chunk import chunk_document
from kbtools.cli import main
from kbtools.corpus import parse_source
from kbtools.decision.documents import evaluate_table
from kbtools.markdown.doctree import Paragraph, parse
from kbtools.markdown.frontend import scan
from kbtools.render.table_csv import table_csv
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body starts on line FM_LINES + 1


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    (tmp_path / "assets" / "images").mkdir(parents=True)
    (tmp_path / "assets" / "images" / "小麦 病害.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


def doc(body: str, rel: str = "knowledge/t/d.md"):
    return parse_source(GOOD_FM + body, Path("/r") / rel, rel)


FOOTNOTES = ("# 施药\n\n用量按标签[^1]，安全间隔期见国标[^gb]。\n\n"
             "[^1]: 以登记为准。\n[^gb]: GB/T8321\n")


def test_footnotes_are_text_not_links_to_files(repo):
    """`[^1]: 以登记为准。` is a footnote, not a link definition to a file named 以登记为准。"""
    (repo / "knowledge" / "t" / "fn.md").write_text(GOOD_FM + FOOTNOTES, encoding="utf-8")
    result = check()
    assert result.exit_code == 0, result.output
    src = doc(FOOTNOTES)
    assert scan(src.body, src.body_line).refs == []
    tree = parse(src)
    assert [lk for _, b in tree.blocks() if isinstance(b, Paragraph) for lk in b.inline.links] == []
    paragraphs = [(b.line_start, b.inline.text) for _, b in tree.blocks() if isinstance(b, Paragraph)]
    assert paragraphs == [(FM_LINES + 3, "用量按标签，安全间隔期见国标。"),  # references are marks
                          (FM_LINES + 5, "以登记为准。"), (FM_LINES + 6, "GB/T8321")]


def test_link_definitions_still_work_next_to_footnotes(repo):
    (repo / "knowledge" / "t" / "ref.md").write_text(
        GOOD_FM + FOOTNOTES + "\n见 [说明][doc]。\n\n[doc]: missing.md\n", encoding="utf-8")
    assert check().stdout.splitlines() == [
        f"knowledge/t/ref.md:{FM_LINES + 10}:8: error: path-missing: 'missing.md' does not exist "
        "(knowledge/t/missing.md)"]


def test_percent_encoded_image_paths_in_html_tags(repo):
    """Typora writes a resized picture as `<img src="…%20…" style="zoom:50%;" />`: the
    `src` is a URL, read like a Markdown image's destination."""
    enc = "../../assets/images/%E5%B0%8F%E9%BA%A6%20%E7%97%85%E5%AE%B3.png"
    (repo / "knowledge" / "t" / "img.md").write_text(
        GOOD_FM + f'# 图\n\n<img src="{enc}" alt="穗" style="zoom:50%;" />\n\n'
        f'病穗 <img src="../../assets/images/小麦 病害.png" alt="病穗"> 和 ![穗]({enc})\n\n'
        '<img src="../../assets/images/no%20such.png" alt="无">\n', encoding="utf-8")
    assert check().stdout.splitlines() == [
        f"knowledge/t/img.md:{FM_LINES + 7}:11: error: path-missing: "
        "'../../assets/images/no such.png' does not exist (assets/images/no such.png)"]


def test_a_percent_encoded_destination_is_located_where_it_is_written(repo):
    """`[a](x%20y.PNG)` was located at a later `<x y.PNG>` (its decoded text): its finding
    had the other link's column, and `--fix` rewrote the other link and left it broken."""
    page = repo / "knowledge" / "t" / "two.md"
    page.write_text(GOOD_FM + "# 图\n\n[a](../../assets/images/小麦%20病害.PNG) 和 "
                    "[b](<../../assets/images/小麦 病害.PNG>)\n", encoding="utf-8")
    line = FM_LINES + 3
    assert [f.split(": error: ")[0] for f in check().stdout.splitlines()] == [
        f"knowledge/t/two.md:{line}:5", f"knowledge/t/two.md:{line}:45"]
    assert check("--fix").exit_code == 0
    assert page.read_text(encoding="utf-8").endswith(
        "[a](../../assets/images/小麦%20病害.png) 和 [b](<../../assets/images/小麦%20病害.png>)\n")


def test_a_line_of_thousands_of_links_is_checked_in_linear_time(repo):
    """Each link was looked for from its place to the end of the line once per destination
    opener, and by its decoded text first (not on the line): 20,000 links took 40 s."""
    (repo / "knowledge" / "t" / "many.md").write_text(
        GOOD_FM + "# 链接\n\n" + "见 [图](../../assets/images/小麦%20病害.png) " * 20_000 + "\n",
        encoding="utf-8")
    start = time.process_time()  # CPU: a loaded machine's wait for a core is no cost here
    result = check("knowledge/t/many.md")
    assert result.exit_code == 0, result.output
    assert time.process_time() - start < 10


SPANS = ("# 行号\n\n先运行 `kb\ncheck`，公式 $a +\nb$ 之后\n[说明](missing.md) 再看\n"
         "![图\n片](missing.png \"两\n行\") 和 <b\nclass=\"x\">粗</b> ![末](end.png)\n")


def test_lines_counted_through_code_spans_math_and_tags_written_over_lines():
    """A code span, inline math, an image's alt or title, or an HTML tag written over two
    lines moves the reader on: links, images and formulas after it keep their own line."""
    src = doc(SPANS)
    base = FM_LINES + 3  # the paragraph's first line
    tree = parse(src)
    para = [b for _, b in tree.blocks() if isinstance(b, Paragraph)][0]
    assert [(m.line_start, m.line_end) for m in para.inline.math] == [(base + 1, base + 2)]
    assert [lk.line for lk in para.inline.links] == [base + 3]
    assert [im.line for im in para.inline.images] == [base + 4, base + 7]
    checked = scan(src.body, src.body_line)
    assert [line for line, _, _, _ in checked.math] == [base + 1]
    assert [(r.target, r.line) for r in checked.refs] == [
        ("missing.md", base + 3), ("missing.png", base + 5), ("end.png", base + 7)]  # destinations
    images = [c for c in chunk_document(src) if c.kind == "image"]
    assert [(c.extra["src"], c.line_start, c.line_end) for c in images] == [
        ("missing.png", base + 3, base + 5), ("end.png", base + 7, base + 7)]


DISPLAY = ("# 公式\n\n防治效果按下式计算：\n$$\nE = \\frac{a - b}{a} \\times 100\n$$\n\n"
           "> [!note] 病情指数\n> $$\n> D = \\frac{\\sum n_i v_i}{N V}\n> $$\n\n"
           "- 剂量\n  $$ q = c \\cdot v $$\n- 浓度\n\n总价 $$5 和 $$6 不是公式。\n")


def test_a_display_formula_may_follow_a_line_of_text():
    """`$$` on the line after text (Typora and Obsidian show a display formula) is a display
    formula with its own chunk, also in a callout and a list item; the check agrees."""
    src = doc(DISPLAY)
    base = FM_LINES + 1
    tree = parse(src)
    blocks = [(m.line_start, m.line_end, m.latex) for m in tree.formulas()]
    assert blocks == [(base + 3, base + 5, "E = \\frac{a - b}{a} \\times 100"),
                      (base + 8, base + 10, "D = \\frac{\\sum n_i v_i}{N V}"),
                      (base + 13, base + 13, "q = c \\cdot v")]
    assert [(line, x.strip()) for line, _, x, _ in scan(src.body, src.body_line).math] == [
        (s, x) for s, _, x in blocks]
    formulas = [c for c in chunk_document(src) if c.kind == "formula"]
    assert [(c.extra["formula_lines"], c.line_start, c.line_end) for c in formulas] == [
        ([base + 3, base + 5], base + 2, base + 5), ([base + 8, base + 10], base + 7, base + 12),
        ([base + 13, base + 13], base + 12, base + 14)]  # the non-blank lines around (the
    # next callout's title is no line after the first: tests/test_chunk_callouts.py)


FOOTNOTED_TABLE = """# 停机规则

漏油不得超过每分钟 3 滴[^1]。

<!-- decision: inputs=压力(MPa); outputs=处置 -->
| 压力(MPa)[^2] | 处置 |
|---|---|
| >1.6 | 停机 |
| <=1.6 | 继续 |

[^1]: 依据 GB 4285。

    第二段缩进四格，属于脚注，不是代码。

[^2]: 表压。
"""


def test_footnote_marks_are_no_cell_text_and_definitions_no_code(repo):
    """`[^2]` stayed in header text (a decision annotation naming the column without it
    failed, the CSV header kept it), a definition's paragraph indented four spaces was a
    `code` chunk, and pages showed references and definitions as plain text."""
    src = doc(FOOTNOTED_TABLE)
    table = next(parse(src).tables())
    assert table.header == ("压力(MPa)", "处置")
    assert table_csv(table).decode("utf-8-sig").splitlines()[0] == "压力(MPa),处置"
    result = evaluate_table(src, None, {"压力(MPa)": "2"})
    assert result.to_dict()["matches"][0]["outputs"] == {"处置": "停机"}
    chunks = chunk_document(src)
    assert "code" not in {c.kind for c in chunks}
    assert not [c.text for c in chunks if "[^1]" in c.text.replace("[^1]:", "")]
    assert [c.text for c in chunks if c.kind == "table_row"][0] == "压力(MPa): >1.6\n处置: 停机"
    (repo / "knowledge" / "t" / "fn.md").write_text(GOOD_FM + FOOTNOTED_TABLE, encoding="utf-8")
    assert check().exit_code == 0
    html = render_markdown(FOOTNOTED_TABLE, RenderContext(doc="knowledge/t/fn.md"))
    assert '3 滴<sup class="footnote-ref">1</sup>。' in html
    assert '<p data-lines="11-11"><sup class="footnote-ref">1</sup> 依据 GB 4285。</p>' in html
    assert '<p data-lines="13-13">第二段缩进四格，属于脚注，不是代码。</p>' in html
    assert "[^" not in html and "<pre" not in html
