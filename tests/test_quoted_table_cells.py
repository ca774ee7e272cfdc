"""A table in a quote (an Obsidian callout's, `> | 参数 | 值 |`): `table-cells` counted the
quote's `>` as a cell, so a row one cell too long was "4 cells, the header has 3" when the
author wrote 3 and 2, and a row written without outer pipes under a header with them was
refused. The cells are counted after the quote markers, as the table reads."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

BODY = ("# 参数\n\n> [!info] 参数\n> | 参数 | 值 |\n> |---|---|\n> | 压力 | 21 MPa |\n"
        "> | 温度 | 55 ℃ | 多 |\n\n> > 参数 | 值\n> > ---|---\n> > 转速 | 1500 | 多 | 又多\n\n"
        "> | 部件 | 周期 |\n> |---|---|\n> 滤芯 | 500 h\n")  # outer pipes optional: no finding


def test_a_quoted_table_s_cells_are_counted_as_written(tmp_path: Path, monkeypatch):
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "q.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache"])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "knowledge/q.md:16:1: error: table-cells: table row has 3 cells, the header (line 13) "
        "has 2 cells: remove 1 cell, or write a '|' inside a cell as '\\|'",
        "knowledge/q.md:20:1: error: table-cells: table row has 4 cells, the header (line 18) "
        "has 2 cells: remove 2 cells, or write a '|' inside a cell as '\\|'",
    ]
