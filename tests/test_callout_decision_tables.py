"""An annotated decision table written inside an Obsidian callout or a quote.

Every row of one was `decision-malformed` ("row 1 has 3 cells, the header has 2"): the rows
were counted as written with the quote's `>` as a cell, so `kb check` failed the document and
`kb build` refused it. Its rows are counted after the quote's markers, as the table reads
them (and as `table-cells` counts them since session 34); a blank quote line (`>`) that cuts
the table before a row of its width is still reported."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

TABLE = """<!-- decision: inputs=油温(℃); outputs=处理 -->
| 油温(℃) | 处理 |
|---|---|
| <40 | 正常运行 |
| 40-60 | 检查冷却水流量 |
| >60 | 停机检查冷却器 |"""


def quoted(text: str, marks: str) -> str:
    return "\n".join(f"{marks} {line}".rstrip() for line in text.split("\n"))


def write(kb: Path, body: str) -> Path:
    path = kb / "knowledge" / "oil.md"
    path.write_text(GOOD_FM + "\n# 油温\n\n" + body + "\n", encoding="utf-8")
    return path


def test_a_decision_table_in_callouts_is_checked_and_evaluated(kb: Path):
    body = (f"> [!warning] 油温判定表\n{quoted(TABLE, '>')}\n\n"
            f"> [!note] 外层\n> > [!danger] 内层\n{quoted(TABLE, '> >')}\n\n"
            f"> [!tip] Escaped pipe\n> <!-- decision: inputs=Code; outputs=Meaning -->\n"
            "> | Code | Meaning |\n> |---|---|\n> | A\\|B | either pump |\n")
    path = write(kb, body)
    result = CliRunner().invoke(main, ["check", "--no-cache"])
    assert result.exit_code == 0, result.stdout
    for table in ("1", "2"):
        result = CliRunner().invoke(main, ["table", "eval", str(path), "--table", table,
                                           "油温=65"])
        assert result.exit_code == 0, result.output
        assert "=> 处理=停机检查冷却器" in result.stdout


def test_a_blank_quote_line_cutting_a_callout_s_decision_table_is_reported(kb: Path):
    lines = quoted(TABLE, ">").split("\n")
    write(kb, "> [!warning] 油温判定表\n" + "\n".join([*lines[:5], ">", *lines[5:]]))
    result = CliRunner().invoke(main, ["check", "--no-cache"])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "knowledge/oil.md:19:1: error: decision-malformed: table at line 15: the blank line 19 "
        "ends the table, so the row at line 20 is no rule: remove the blank line"]
