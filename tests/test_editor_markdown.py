"""Markdown as Typora and Obsidian authors write it: what `kb check` says of what kbtools does
not read (an HTML table pasted from Word or Excel), and what the build indexes of what it does."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.chunk import chunk_document
from kbtools.cli import main
from kbtools.corpus import parse_source
from kbtools.decision.documents import evaluate_table
from kbtools.markdown.doctree import parse
from kbtools.markdown.frontend import scan
from kbtools.markdown.parser import inline_text, parse_tokens
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body starts on line FM_LINES + 1

WORD_TABLE = """<table>
<tr><th>部件</th><th>周期</th></tr>
<tr><td>轴承</td><td rowspan="2">3 个月</td></tr>
<tr><td>叶轮</td></tr>
</table>
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


@pytest.mark.parametrize(("body", "lines"), [
    ("# 保养\n\n" + WORD_TABLE, [3]),
    ("# 保养\n\n<div class=\"x\">\n\n<TABLE border=1>\n<tr><td>a</td></tr>\n</TABLE>\n</div>\n",
     [5]),
    ("# 保养\n\n- 周期：\n\n  <table><tr><td>a</td></tr></table>\n\n> <table>\n> <tr><td>b</td></tr>\n"
     "> </table>\n", [5, 7]),
    ("# 保养\n\n<!-- <table> kept out -->\n\n<tablet>x</tablet>\n\n| a | b |\n|---|---|\n"
     "| 1 | 2 |\n\n```html\n<table></table>\n```\n\n`<table>` in text\n", []),
])
def test_html_tables_are_found_at_their_tag(body, lines):
    assert scan(body, 10).html_tables == [line + 9 for line in lines]


def test_check_warns_of_an_html_table_at_its_line(repo):
    """A table pasted as HTML was shown as its source on devices and indexed as no table,
    and `kb check` said nothing."""
    (repo / "knowledge" / "t" / "f.md").write_text(
        GOOD_FM + "# 保养周期\n\n下表摘自厂家手册：\n\n" + WORD_TABLE, encoding="utf-8")
    res = check("knowledge/t/f.md")
    assert res.exit_code == 0, res.output
    line = FM_LINES + 5
    assert f"knowledge/t/f.md:{line}:1: warning: html-table: an HTML <table>" in res.output
    assert res.output.count("html-table") == 1


@pytest.mark.parametrize(("body", "found"), [
    # a comment the parser closes is hidden everywhere: nothing to say
    ("# 笔记\n\n正文 %% 私人注释 %% 正文。\n", []),
    ("# 笔记\n\n%%\n## 草稿：待确认\n| 项目 | 值 |\n|---|---|\n| 待定 | 1 |\n%%\n\n正文。\n", []),
    ("# 笔记\n\n| 列 | 说明 |\n|---|---|\n| a | 占 %%注%% 位 |\n", []),
    ("# 笔记\n\n`printf(\"%%d\")` 与\n\n```c\nprintf(\"%%d\");\n```\n\n$x %% y$ 与 50\\%\\%\n", []),
    # one never closed, or closed in another block by a `%%` with text after it: text
    ("# 笔记\n\n一 %%a%% 二 %%b\n\n多行 %% 三\n", [(3, 11)]),
    ("# 笔记\n\n%%\n草稿\n\n更多 %% 可见\n", [(3, 1)]),
    ("# 笔记 %%未闭合\n", [(1, 6)]),
])
def test_obsidian_comments_left_as_text_are_found_where_they_open(body, found):
    assert scan(body, 10).comments == [(line + 9, col) for line, col in found]


def test_a_heading_holds_no_obsidian_comment():
    assert scan("# 检修 %%草稿%%\n", 1).headings == [(1, "检修")]


def test_check_warns_of_an_obsidian_comment_never_closed(repo):
    """Obsidian hides `%% … %%`, and so does kbtools: a closed comment is no finding; one
    never closed stays text, shown and searched, and is named where it opens."""
    (repo / "knowledge" / "t" / "f.md").write_text(
        GOOD_FM + "# 检修\n\n正文 %%备注%%。\n\n%%\n## 草稿\n供应商报价有误\n%%\n\n"
        "尾注 %%没有闭合\n", encoding="utf-8")
    res = check("knowledge/t/f.md")
    assert res.exit_code == 0, res.output
    assert f"knowledge/t/f.md:{FM_LINES + 10}:4: warning: obsidian-comment: " in res.output
    assert res.output.count("obsidian-comment") == 1


@pytest.mark.parametrize(("text", "plain"), [
    ("泄漏超过 ==每分钟 5 滴== 时停机", "泄漏超过 每分钟 5 滴 时停机"),
    ("这是==重点==内容", "这是重点内容"),
    ("see ==this== now, ==**bold**==", "see this now, bold"),
    ("x == 1 and y == 2", "x == 1 and y == 2"),  # spaces on both sides: no marker
    ("pip install numpy==1.21 pandas==1.3", "pip install numpy==1.21 pandas==1.3"),
    ("`a==b==c` and $a==b$ ==c==", "a==b==c and a==b c"),  # code and math keep theirs
    ("==unclosed and =single=", "==unclosed and =single="),
])
def test_highlight_markers_are_no_text(text, plain):
    assert inline_text(parse_tokens(text)[1].children or []) == plain


HIGHLIGHTS = """# 密封泄漏处置

## ==紧急== 停机条件

<!-- decision: inputs=泄漏量(滴/分钟); outputs=处置 -->
| 泄漏量(滴/分钟) | 处置 |
|---|---|
| <5 | ==继续运行== |
| ≥5 | 停机==更换密封== |
"""


def test_highlights_leave_no_markers_in_headings_rows_and_decisions():
    """`==…==` was text: the heading path, the rows, the CSV and a decision's output held it
    (`处置===继续运行==`)."""
    src = parse_source(GOOD_FM + HIGHLIGHTS, Path("/r/knowledge/t/h.md"), "knowledge/t/h.md")
    chunks = chunk_document(src)
    rows = [c for c in chunks if c.kind == "table_row"]
    assert [c.text for c in rows] == ["泄漏量(滴/分钟): <5\n处置: 继续运行",
                                      "泄漏量(滴/分钟): ≥5\n处置: 停机更换密封"]
    assert {c.heading_path for c in rows} == {("密封泄漏处置", "紧急 停机条件")}
    assert "## 紧急 停机条件" in chunks[0].text  # its words, on the line they are written
    result = evaluate_table(src, None, {"泄漏量(滴/分钟)": "3"})
    assert result.to_dict()["matches"][0]["outputs"] == {"处置": "继续运行"}


HIGHLIGHTED_PROSE = """# 停机

泄漏超过==每分钟 5 滴==时停机。Keep the ==torque at 12 N·m== always.

| 部件 | 周期 |
|---|---|
| ==轴承== | 3 个月 |

- 步骤 ==断电== 后检查；`a==b==c` and numpy==1.21 stay as written.
"""


def test_highlight_marks_are_no_chunk_text_and_lines_stay():
    """A highlight's `==` was chunk text: a section, a table and a list item showed and
    embedded `泄漏超过==每分钟 5 滴==时停机`. The marks are left out as the page leaves them
    out, the words stay where they are written, and code and version pins keep theirs."""
    text = GOOD_FM + HIGHLIGHTED_PROSE
    lines = text.split("\n")
    src = parse_source(text, Path("/r/knowledge/t/h.md"), "knowledge/t/h.md")
    chunks = chunk_document(src)
    kinds = {c.kind for c in chunks}
    assert {"section", "table", "table_row"} <= kinds
    for c in chunks:
        for field in (c.text, c.embed_text):
            assert "==每" not in field and "==torque" not in field and "==轴承" not in field
            assert "==断电" not in field
    section = next(c for c in chunks if c.kind == "section")
    assert "泄漏超过每分钟 5 滴时停机。Keep the torque at 12 N·m always." in section.text
    assert "`a==b==c` and numpy==1.21 stay as written." in section.text
    assert section.line_start == FM_LINES + 1 and section.line_end == FM_LINES + 9
    [table] = [c for c in chunks if c.kind == "table"]
    assert table.text.endswith("| 轴承 | 3 个月 |")
    assert table.line_end == lines.index("| ==轴承== | 3 个月 |") + 1


def test_highlights_are_shown_apart_from_the_question_s_terms():
    html = render_markdown("泄漏超过 ==每分钟 5 滴== 时停机\n", RenderContext(
        doc="knowledge/t/h.md", terms=["停机"], cited=(1, 1)))
    assert '<mark class="hl">每分钟 5 滴</mark> 时<mark>停机</mark>' in html
    assert "==" not in html


@pytest.mark.parametrize(("text", "plain"), [
    ("~~先加热~~ 直接喷施", "先加热 直接喷施"),
    ("这是~~旧方法~~内容", "这是旧方法内容"),
    ("范围 15~20 ℃，a~b，x ~~ y", "范围 15~20 ℃，a~b，x ~~ y"),  # no pair: text
    ("`a~~b~~c` and $a~~b$ ~~c~~", "a~~b~~c and a~~b c"),  # code and math keep theirs
    ("~~unclosed and ~single~", "~~unclosed and ~single~"),
])
def test_strikethrough_markers_are_no_text(text, plain):
    assert inline_text(parse_tokens(text)[1].children or []) == plain


STRUCK = """# 处置 ~~旧版~~ 新版

步骤：~~先加热~~ 直接喷施，温度 15~20 ℃。

<!-- decision: inputs=温度(℃); outputs=处置 -->
| 温度(℃) | 处置 |
|---|---|
| <15 | ~~加热~~ 等待 |
| ≥15 | 喷施 |
"""


def test_strikethrough_leaves_no_markers_in_headings_chunks_rows_and_pages():
    """`~~struck~~` (Typora's, Obsidian's and GitHub's strikethrough) was text: the heading
    path, chunk text, rows, the CSV and a decision's output held the tildes, and the page
    showed them. Now the words stay, struck on the page, their marks left out elsewhere."""
    text = GOOD_FM + STRUCK
    src = parse_source(text, Path("/r/knowledge/t/s.md"), "knowledge/t/s.md")
    assert [s.heading_path for s in parse(src).sections()][1] == ("处置 旧版 新版",)
    assert "处置 旧版 新版" in [h for _, h in scan(src.body, src.body_line).headings]
    chunks = chunk_document(src)
    for c in chunks:
        assert "~~" not in c.text and "~~" not in c.embed_text, c
    section = next(c for c in chunks if c.kind == "section")
    assert "步骤：先加热 直接喷施，温度 15~20 ℃。" in section.text
    rows = [c.text for c in chunks if c.kind == "table_row"]
    assert rows[0] == "温度(℃): <15\n处置: 加热 等待"
    result = evaluate_table(src, None, {"温度(℃)": "10"})
    assert result.to_dict()["matches"][0]["outputs"] == {"处置": "加热 等待"}
    html = render_markdown(STRUCK, RenderContext(doc="knowledge/t/s.md"))
    assert "<s>先加热</s>" in html and "<td><s>加热</s> 等待</td>" in html
    assert "~~" not in html and "15~20" in html


def test_editor_settings_in_front_matter_say_what_they_are(repo):
    """`typora-copy-images-to` (written by Typora's per-document image folder) was only an
    "unknown key", with no word of where it came from or what to do."""
    fm = GOOD_FM.replace("verified: false\n", "verified: false\ntypora-copy-images-to: "
                         "../../assets/images\ncssclasses: [wide]\nsourse: x\n")
    (repo / "knowledge" / "t" / "f.md").write_text(fm + "# 标题\n\n正文。\n", encoding="utf-8")
    res = check("knowledge/t/f.md")
    assert res.exit_code == 1
    lines = [line for line in res.output.splitlines() if "fm-unknown-key" in line]
    assert len(lines) == 3
    assert lines[0].startswith("knowledge/t/f.md:9:1: error: fm-unknown-key: unknown key "
                               "'typora-copy-images-to'; an editor's setting for this file")
    assert "'cssclasses'; an editor's setting" in lines[1]
    assert "'sourse'; did you mean 'source'?" in lines[2]


BLOCK_ID_HEADING = """# 密封

## Leak limits ^limits

漏油不得超过每分钟 3 滴。见 [上限](#leak-limits)。

## 指数 2^10 与 ^中文
"""


def test_an_obsidian_block_id_is_no_part_of_a_heading_s_title_or_anchor(repo):
    """`## Leak limits ^limits` kept `^limits` in the heading path and the anchor, so
    `[x](#leak-limits)` was a `link-anchor` error; Obsidian does not show it."""
    src = parse_source(GOOD_FM + BLOCK_ID_HEADING, Path("/r/knowledge/t/b.md"), "knowledge/t/b.md")
    paths = [path for path, _ in parse(src).headings()]
    assert paths == [("密封",), ("密封", "Leak limits"), ("密封", "指数 2^10 与 ^中文")]
    (repo / "knowledge" / "t" / "b.md").write_text(GOOD_FM + BLOCK_ID_HEADING, encoding="utf-8")
    result = check()
    assert result.exit_code == 0, result.output
    html = render_markdown(BLOCK_ID_HEADING, RenderContext(doc="knowledge/t/b.md"))
    # the heading's anchor is its title's; the block id is an anchor of its own (session 40:
    # a block reference `[[b#^limits]]` lands on it), not part of the title
    assert ('<h2 id="leak-limits" data-lines="3-3"><span id="^limits" class="anchor"></span>'
            'Leak limits</h2>') in html, html


def _table(rows: int) -> str:
    return "# 备件\n\n| 编号 | 名称 |\n|---|---|\n" + "".join(
        f"| P{i:05d} | 零件{i} |\n" for i in range(rows))


def test_a_table_longer_than_max_table_rows_is_a_warning_at_its_header(repo):
    """A spare-parts list pasted as a 1,001-row table: one warning at the table's header
    line naming the setting (the build goes on); kb.toml [check] max_table_rows moves the
    limit, and a cached result does not outlive the setting."""
    doc = repo / "knowledge" / "t" / "parts.md"
    doc.write_text(GOOD_FM + _table(1001), encoding="utf-8")
    header = FM_LINES + 3
    ok = CliRunner().invoke(main, ["check", "--no-cache", "knowledge/t/parts.md"])
    assert ok.exit_code == 0
    assert (f"knowledge/t/parts.md:{header}:1: warning: table-large: a table of 1,001 rows "
            "(over [check] max_table_rows, 1,000)") in ok.output
    doc.write_text(GOOD_FM + _table(1000), encoding="utf-8")
    assert "table-large" not in check("knowledge/t/parts.md").output
    (repo / "kb.toml").write_text("[check]\nmax_table_rows = 3\n")
    for _ in range(2):  # the second run reads the results cache
        found = CliRunner().invoke(main, ["check", "knowledge/t/parts.md"]).output
        assert "table-large: a table of 1,000 rows (over [check] max_table_rows, 3)" in found
    (repo / "kb.toml").write_text("[check]\nmax_table_rows = 5000\n")
    assert "table-large" not in CliRunner().invoke(main, ["check", "knowledge/t/parts.md"]).output
    (repo / "kb.toml").write_text("[check]\nmax_table_rows = 0\n")
    bad = CliRunner().invoke(main, ["check", "knowledge/t/parts.md"])
    assert bad.exit_code != 0 and "max_table_rows" in bad.output


def test_a_table_row_of_the_wrong_width_says_what_to_write(repo):
    """Typora writes a merged-looking cell as a missing one: "table row has 2 cells, the
    header has 3 cells" did not say what to write."""
    table = "| 时期 | 用量 | 备注 |\n|---|---|---|\n| 苗期 | 10 |\n| 穗期 | 20 | 30 | 40 |\n"
    (repo / "knowledge" / "a.md").write_text(GOOD_FM + "\n# 稻瘟病\n\n" + table, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:15:1: error: table-cells: table row has 2 cells, the header (line 13) "
        "has 3 cells: add 1 empty cell ('| |'), or repeat a merged cell's value",
        "knowledge/a.md:16:1: error: table-cells: table row has 4 cells, the header (line 13) "
        "has 3 cells: remove 1 cell, or write a '|' inside a cell as '\\|'"]


def test_a_picture_pasted_from_the_author_s_disk_says_to_copy_it_into_the_repository(repo):
    """Typora links a pasted picture where it lies (`C:\\Users\\…`, `/Users/…`): "use a path
    relative to the document" did not say that the file must come into the repository."""
    body = "![病斑](C:\\Users\\张三\\Pictures\\x.png)\n\n![病斑](/Users/jane/Desktop/y.png)\n"
    (repo / "knowledge" / "a.md").write_text(GOOD_FM + "\n# 稻瘟病\n\n" + body, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    todo = ("a file outside the repository (devices and other authors lack it): copy it into "
            "the repository (a picture into the assets folder) and link it by a path relative "
            "to the document")
    assert res.stdout.splitlines() == [
        f"knowledge/a.md:13:7: error: path-absolute: absolute Windows path "
        f"'C:\\\\Users\\\\张三\\\\Pictures\\\\x.png': {todo}",
        f"knowledge/a.md:15:7: error: path-absolute: absolute path "
        f"'/Users/jane/Desktop/y.png': {todo}"]


def test_a_formula_block_left_open_says_where_to_close_it(repo):
    body = "$$\n\\text{用量} = 面积 \\times 2\n\n下一段。\n"
    (repo / "knowledge" / "a.md").write_text(GOOD_FM + "\n# 稻瘟病\n\n" + body, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:13:1: error: math-unbalanced: '$$' without a matching '$$' (math block "
        "not closed): add a line $$ where the formula ends (or write \\$\\$ for two dollar "
        "signs)"]
