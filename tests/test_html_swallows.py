"""Markdown an HTML block swallows, as Typora authors write it: a resized picture
`<img src=… style="zoom:50%;" />`, a `<br>`, `<div align="center">` or `<details>` on a line
of its own opens an HTML block down to the next blank line, and the Markdown under it was
raw HTML, silently: its pictures and links never checked nor shipped (`kb check` passed a
missing picture), its headings no headings. A comment never closed hid the rest."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.markdown.frontend import scan
from kbtools.markdown.parser import parse_tokens
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body starts on line FM_LINES + 1


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "t" / "assets").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


# (body, [(swallowed line, the block's first line, the line a blank goes above or 0, every
# line)]):
# body lines from 1
@pytest.mark.parametrize(("body", "found"), [
    # Typora's resized picture, a picture under it
    ("<img src=\"a.png\" alt=\"泵\" style=\"zoom:50%;\" />\n![b](x.png)\n", [(2, 1, 2, (2,))]),
    # text, then a link; English; the fix goes above the text, where the tag closed
    ("<br>\nSee the manual\nand [the seal](seal.md).\n", [(3, 1, 2, (3,))]),
    # a centred picture written as Markdown; a heading under a `<br/>`
    ("<div align=\"center\">\n![c](a.png)\n</div>\n\n<br/>\n## 安装\n",
     [(2, 1, 2, (2,)), (6, 5, 6, (6,))]),
    # `<details>`: its list under the summary; a wikilink and bold text
    ("<details>\n<summary>展开</summary>\n- 第一步 **注意**\n</details>\n\n"
     "<u>下划线</u>\n\n<img src=\"a.png\">\n见 [[泵的说明]]\n",
     [(3, 1, 3, (3,)), (9, 8, 9, (9,))]),
    # in a list item: found, no fix (a blank line there is the item's, written by hand)
    ("- 步骤\n\n  <br/>\n  [链接](x.md)\n", [(4, 3, 0, (4,))]),
    # the line above the Markdown leaves its tag open: no fix
    ("<div>\n<span title=\"泵\"\n![b](x.png)\n</div>\n", [(3, 1, 0, (3,))]),
    # Markdown between a line's tags (a README's centred logo): found on that line, no fix
    ("<p align=\"center\">![logo](logo.png)</p>\n\n<div><b>[手册](m.md)</b></div>\n",
     [(1, 1, 0, (1,)), (3, 3, 0, (3,))]),
    # several constructs under one `<br>`: a heading, a list, a picture; text between them
    # not named; the tag lines of the author's HTML not named
    ("<br>\n## 安装\n- 第一步 **断电**\n- 第二步\n纯文字\n<b>粗</b>\n![密封](a.png)\n",
     [(2, 1, 2, (2, 3, 4, 7))]),
    # a folded box's code under its summary; a centred table (its rows); a quote, a formula
    ("<details>\n<summary>代码</summary>\n```bash\nls -l\n```\n</details>\n\n"
     "<div align=\"center\">\n| 型号 | 压力 |\n|---|---|\n| A | 5 |\n</div>\n\n"
     "<br>\n> 注意：先断电\n$$\nE=mc^2\n$$\n",
     [(3, 1, 3, (3, 5)), (9, 8, 9, (9, 10, 11)), (15, 14, 15, (15, 16, 18))]),
    # Markdown on the tag's own line and under it
    ("<p align=\"center\">![logo](logo.png)</p>\n[手册](m.md)\n", [(1, 1, 0, (1, 2))]),
])
def test_markdown_an_html_block_swallows_is_found(body, found):
    assert scan(body, 1).swallowed == found


@pytest.mark.parametrize("body", [
    "<img src=\"a.png\" alt=\"泵\">\n\n![b](x.png)\n",  # a blank line: read as Markdown
    "文字 <img src=\"a.png\"> 和\n![b](x.png)\n",  # inline HTML in a paragraph
    "<table>\n<tr><td>**a** [b](c.md)</td></tr>\n</table>\n",  # the author's HTML cells
    "<pre>\n![code](x.png)\n- not a list\n</pre>\n",  # code
    "<!-- 注释\n![b](x.png)\n-->\n",  # a comment, closed
    "<div>\n<!-- [a](b.md) -->\n</div>\n", "<!-- ![a](b.png) -->\n<div>\n",
    "<div>\n纯文字，没有标记\n</div>\n",  # text alone: nothing a blank line would change
    "```html\n<img src=\"a.png\">\n![b](x.png)\n```\n",
])
def test_nothing_swallowed_is_no_finding(body):
    assert scan(body, 1).swallowed == [] and scan(body, 1).open_comments == []


def test_check_names_the_swallowed_line_and_fix_inserts_the_blank_line(repo):
    """The k44 input: a picture under Typora's `<img>`; its file missing was never said."""
    doc = repo / "knowledge" / "t" / "p.md"
    (repo / "knowledge" / "t" / "assets" / "a.png").write_bytes(b"")
    body = ("# 图片\n\n<img src=\"assets/a.png\" alt=\"泵\" style=\"zoom:50%;\" />\n"
            "![密封](assets/missing.png)\n泵体密封更换。\n\n- 步骤\n\n  <br/>\n  [链接](x.md)\n")
    doc.write_text(GOOD_FM + body, encoding="utf-8")
    res = check("knowledge/t/p.md")
    assert res.exit_code == 0, res.output
    line = FM_LINES + 4
    assert (f"knowledge/t/p.md:{line}:1: warning: html-swallows-markdown: Markdown on this "
            f"line is raw HTML: the line {line - 1} opens with an HTML tag") in res.output
    assert f"insert a blank line above line {line}; kb check --fix inserts it" in res.output
    nested = FM_LINES + 10  # in a list item: said, not fixed
    assert f"p.md:{nested}:1: warning: html-swallows-markdown" in res.output
    assert "missing.png" not in res.output

    res = check("--fix", "knowledge/t/p.md")
    assert (f"knowledge/t/p.md:{line}:1: fixed: '![密封](assets/missing.png)' -> "
            f"'\\n![密封](assets/missing.png)'") in res.output
    # the picture is read now: its missing file is an error
    assert f"p.md:{line + 1}:7: error: path-missing: 'assets/missing.png'" in res.output
    assert res.output.count("html-swallows-markdown") == 1  # the list item's, left
    assert doc.read_text(encoding="utf-8") == GOOD_FM + body.replace(
        "/>\n![密封]", "/>\n\n![密封]")


def test_check_names_every_line_a_block_swallows(repo):
    """A `<br>` over a heading, a list and a picture: the finding named the heading's line
    alone, so an author who freed it by hand (or read the one line) never learnt that the
    list and the picture were raw HTML too. One finding per block, naming each line."""
    body = ("# 安装\n\n<br>\n## 步骤\n- 第一步 **断电**\n- 第二步 拆下外壳\n"
            "泵体说明。\n![密封](assets/missing.png)\n")
    (repo / "knowledge" / "t" / "p.md").write_text(GOOD_FM + body, encoding="utf-8")
    res = check("knowledge/t/p.md")
    first = FM_LINES + 4
    assert res.output.count("html-swallows-markdown") == 1, res.output
    assert (f"p.md:{first}:1: warning: html-swallows-markdown: Markdown on lines "
            f"{first}-{first + 2} and {first + 4} is raw HTML: the line {first - 1} opens "
            f"with an HTML tag") in res.output
    assert f"insert a blank line above line {first}; kb check --fix inserts it" in res.output


def test_check_names_markdown_between_a_line_s_tags(repo):
    (repo / "knowledge" / "t" / "p.md").write_text(
        GOOD_FM + "# Pump\n\n<p align=\"center\">![logo](assets/logo.png)</p>\n",
        encoding="utf-8")
    res = check("knowledge/t/p.md")
    assert (f"knowledge/t/p.md:{FM_LINES + 3}:1: warning: html-swallows-markdown: Markdown on "
            f"this line is raw HTML: the line opens with an HTML tag") in res.output
    assert "write the picture as <img src=… alt=…>" in res.output


def test_check_warns_of_a_comment_never_closed(repo):
    (repo / "knowledge" / "t" / "p.md").write_text(
        GOOD_FM + "# 安装\n\n步骤如下。\n\n<!-- 草稿：以后再写\n\n## 拆卸\n\n先断电。\n",
        encoding="utf-8")
    res = check("knowledge/t/p.md")
    assert res.exit_code == 0, res.output
    assert (f"knowledge/t/p.md:{FM_LINES + 5}:1: warning: html-comment-unclosed: an HTML "
            f"comment `<!--` never closed") in res.output
    assert res.output.count("html-comment-unclosed") == 1


# lines as authors write them around HTML: tags alone, Markdown, text, comments, code,
# indented (a list item's) and quoted
LINES = ["<img src=\"a.png\" style=\"zoom:50%;\" />", "<br>", "<div align=\"center\">",
         "</div>", "<details>", "<summary>展开</summary>", "<span title=\"x\"", "<pre>",
         "</pre>", "<!-- 注释 -->", "<!-- 开", "-->", "![图](a.png)", "[链接](b.md)", "## 安装",
         "- 步骤", "1. 第一", "**注意**", "见 [[泵]]", "纯文字", "", "  <br/>", "  ![图](a.png)",
         "> <div>", "> [链接](b.md)", "- 项", "```", "<table>", "<td>**a**</td>",
         "| a | b |", "|---|---|", "~~~bash", "> 注意", "$$", ">"]


def _html_rows(body: str) -> set[int]:
    """The body lines (from 1) inside an HTML block, as the parser reads them."""
    return {row + 1 for tok in parse_tokens(body) if tok.type == "html_block" and tok.map
            for row in range(*tok.map)}


@given(st.lists(st.sampled_from(LINES), max_size=14))
def test_a_named_line_is_swallowed_and_its_fix_frees_it(lines):
    """Each line named is inside an HTML block (every one of its block's); the blank line
    `--fix` inserts above the line it names makes the swallowed line read as Markdown."""
    body = "\n".join(lines) + "\n"
    found = scan(body, 1)
    inside = _html_rows(body)
    for line, opener, fix, lines in found.swallowed:
        assert line in inside and opener in inside and opener <= line
        assert lines[0] == line and list(lines) == sorted(set(lines)) and set(lines) <= inside
        assert opener < line or not fix  # Markdown on the block's own line: no fix
        if fix:
            assert opener < fix <= line
            rows = body.split("\n")
            fixed = "\n".join([*rows[:fix - 1], "", *rows[fix - 1:]])
            assert line + 1 not in _html_rows(fixed), fixed


def test_fix_writes_a_windows_file_s_line_break(repo):
    """A document saved with CRLF (Typora on Windows) gets a CRLF blank line, not a bare LF
    in the middle of its CRLF lines (a Windows team's checkout, whose CRLF Git turns into
    LF on commit: no `encoding-crlf` for `--fix` to mend, so the CRLF stays)."""
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitattributes").write_text("* text=auto eol=crlf\n")
    doc = repo / "knowledge" / "t" / "p.md"
    body = GOOD_FM + "# 图\n\n<br>\n## 安装\n\n步骤。\n"
    doc.write_bytes(body.replace("\n", "\r\n").encode())
    res = check("--fix", "knowledge/t/p.md")
    assert f"p.md:{FM_LINES + 4}:1: fixed: '## 安装' -> '\\n## 安装'" in res.output
    assert doc.read_bytes() == body.replace("<br>\n", "<br>\n\n").replace("\n", "\r\n").encode()


def test_fix_of_a_sized_embed_does_not_swallow_the_line_under_it(repo):
    """`--fix` writes Obsidian's `![[叶斑.png|300]]` as `<img … width="300">`: alone on its
    line, that tag opened an HTML block swallowing the picture on the next line, which a
    second `--fix` then had to free; one run writes both."""
    (repo / "knowledge" / "t" / "assets" / "叶斑.png").write_bytes(b"")
    doc = repo / "knowledge" / "t" / "p.md"
    doc.write_text(GOOD_FM + "# 图\n\n![[叶斑.png|300]]\n![病穗](assets/missing.png)\n",
                   encoding="utf-8")
    res = check("--fix", "knowledge/t/p.md")
    assert "html-swallows-markdown" not in res.output
    assert f"p.md:{FM_LINES + 5}:7: error: path-missing: 'assets/missing.png'" in res.output
    assert doc.read_text(encoding="utf-8").endswith(
        "alt=\"叶斑\" width=\"300\">\n\n![病穗](assets/missing.png)\n")
    assert "fixed:" not in check("--fix", "knowledge/t/p.md").output
