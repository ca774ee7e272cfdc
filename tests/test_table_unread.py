"""Tables as experts write them that Markdown reads otherwise: lines that look like a table
but are text (a header and a `|---|` line of different widths; a table written right after
a list item or a quote line, with no blank line, which continues that item or quote), and
text written right after a table, which Markdown reads as one more row. Each was silent
(no table, no rows, no CSV; or a row made of a sentence) or named by a misleading
finding; `kb check` names each at its line with what to write."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.markdown.table_lines import count_cells, has_pipe, is_delimiter_row
from tests.kbfixtures import GOOD_FM

FIRST = GOOD_FM.count("\n") + 1  # the body's first line


def check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> tuple[int, list[str]]:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir(exist_ok=True)
    (tmp_path / "knowledge" / "t.md").write_text(GOOD_FM + body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache"])
    return result.exit_code, result.stdout.splitlines()


def at(body: str, text: str) -> int:
    """The file line of the first body line holding `text`."""
    return FIRST + next(i for i, line in enumerate(body.split("\n")) if text in line)


UNREAD = ("# 表\n\n## 列数不符\n\n| 甲 | 乙 | 丙 |\n|---|---|\n| 1 | 2 | 3 |\n\n"
          "## 列表后\n\n- 项目\n| 部件 | 周期 |\n|---|---|\n| 滤芯 | 500 h |\n\n"
          "## 引用后\n\n> 注意\n| 参数 | 值 |\n| :--- | ---: |\n| 压力 | 21 MPa |\n\n"
          "## Steps\n\n1. Open the valve\nPart | Torque\n--- | ---\nM8 | 25 N·m\n")


def test_lines_that_look_like_a_table_but_are_text_are_named(tmp_path, monkeypatch):
    code, out = check(tmp_path, monkeypatch, UNREAD)
    assert code == 0, out  # warnings: the lines are still shown and searched, as text
    assert [line.split(": warning: ")[0] for line in out] == [
        f"knowledge/t.md:{at(UNREAD, '| 甲 |')}:1", f"knowledge/t.md:{at(UNREAD, '| 部件 |')}:1",
        f"knowledge/t.md:{at(UNREAD, '| 参数 |')}:1", f"knowledge/t.md:{at(UNREAD, 'Part |')}:1"]
    assert all(": warning: table-unread: " in line for line in out)
    widths, after_item, after_quote, english = out
    assert "its header has 3 cells and the '---' line under it 2" in widths
    assert "write one '---' per column" in widths
    for line in (after_item, after_quote, english):
        assert "no blank line" in line and "put a blank line before the table" in line
    assert "no rows, no CSV" in after_item


FULL_WIDTH = ("# 表\n\n## 全角竖线\n\n｜名称｜值｜\n｜---｜---｜\n｜压力｜21 MPa｜\n\n"
              "## 中文破折号\n\n| 名称 | 值 |\n| —— | —— |\n| 温度 | 55 ℃ |\n\n"
              "## 全角减号\n\n| 名称 | 值 |\n|：－－－|－－－：|\n")


def test_a_table_typed_with_a_chinese_input_method_s_bars_or_dashes_is_named(tmp_path,
                                                                              monkeypatch):
    code, out = check(tmp_path, monkeypatch, FULL_WIDTH)
    assert code == 0, out
    assert [line.split(": warning: table-unread: ")[0] for line in out] == [
        f"knowledge/t.md:{at(FULL_WIDTH, '｜名称')}:1",
        f"knowledge/t.md:{at(FULL_WIDTH, '| 名称')}:1",
        f"knowledge/t.md:{at(FULL_WIDTH, '|：') - 1}:1"]
    assert all("full-width '｜' or dashes" in line and "ASCII '|' and '-'" in line
               for line in out)


def test_well_formed_tables_are_not_named(tmp_path, monkeypatch):
    body = ("# 表\n\n说明文字\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- 项目\n\n  | x | y |\n"
            "  |---|---|\n  | 3 | 4 |\n\n- 项目\n  | p | q |\n  |---|---|\n\n"
            "> [!note] 参数\n> | m | n |\n> |---|---|\n> | 5 | 6 |\n\n"
            "text | with a pipe\nand a line --- | --- that is no delimiter row\n")
    code, out = check(tmp_path, monkeypatch, body)
    assert (code, out) == (0, [])


def test_text_right_after_a_table_is_named_as_text_not_as_a_short_row(tmp_path, monkeypatch):
    body = ("# 表\n\n| 部件 | 周期 |\n|---|---|\n| 滤芯 | 500 h |\n表后紧跟的说明文字。\n\n"
            "| Name |\n|---|\n| filter |\nA note right after a one-column table.\n")
    code, out = check(tmp_path, monkeypatch, body)
    assert code == 1, out
    two, one = out
    assert two.startswith(f"knowledge/t.md:{at(body, '表后')}:1: error: table-cells: ")
    assert "has no '|'" in two and "put a blank line between the table and the text" in two
    assert f"(line {at(body, '| 部件 |')})" in two
    # one column: the count matches, so only the missing '|' tells the sentence from a row
    assert one.startswith(f"knowledge/t.md:{at(body, 'A note')}:1: warning: table-text-row: ")
    assert "put a blank line between the table and the text" in one


@pytest.mark.parametrize("line, delimiter", [
    ("|---|---|", True), ("| :--- | ---: |", True), ("--- | ---", True), ("|:-:|", True),
    ("  |  :---  |   ---:   |", True), ("---", False), ("| a | --- |", False),
    ("|  |  |", False), ("| -- - | --- |", False), ("|::|", False), ("", False),
])
def test_delimiter_row(line, delimiter):
    assert is_delimiter_row(line) is delimiter


@pytest.mark.parametrize("line, piped", [
    ("| a |", True), ("a | b", True), ("文字", False), (r"a \| b", False), (r"a \\| b", True),
])
def test_has_pipe(line, piped):
    assert has_pipe(line) is piped


def test_count_cells_still_reads_escaped_pipes():
    assert count_cells(r"| x \| y | `p\|q` |") == 2
