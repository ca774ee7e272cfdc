"""A merged cell as experts write it in a Markdown table: `〃`, `同上`, `ditto` ("as above").
A table row is a passage of its own (a `table_row` chunk), so a row whose cell said only
`〃` lost what it continued: "品种: 〃" matched no search for the variety. The row's text
reads the value it repeats; the CSV and the table chunk keep the cell as written, and an
empty cell (which may mean "none") is left out of the row as before."""

from __future__ import annotations

from pathlib import Path

from kbtools.build.chunk import chunk_document
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from kbtools.render.table_csv import table_csv
from tests.kbfixtures import GOOD_FM

ZH = ("# 品种产量\n\n| 品种 | 地区 | 产量 |\n|---|---|---|\n| 郑麦 9023 | 河南 | 1,200 |\n"
      "| 〃 | 山东 | 1 200 |\n| 同上 | 〃 | 1.2万 |\n|  | 河北 | 800 |\n| 济麦 22 | 同上 | 900 |\n")
EN = ("# Torque\n\n| Part | Size | Torque |\n|---|---|---|\n| Bolt | M8 | 25 N·m |\n"
      "| ditto | M10 | 49 N·m |\n| Do. | \" | 50 N·m |\n| Nut | M8 | 〃 |\n")
FIRST_ROW_DITTO = "# 表\n\n| 名称 | 值 |\n|---|---|\n| 〃 | 1 |\n| 甲 | 同上 |\n"


def rows(body: str) -> list[str]:
    src = parse_source(GOOD_FM + body, Path("/kb/knowledge/t.md"), "knowledge/t.md")
    return [c.text for c in chunk_document(src) if c.kind == "table_row"]


def test_a_row_reads_the_value_its_ditto_mark_repeats():
    assert rows(ZH) == [
        "品种: 郑麦 9023\n地区: 河南\n产量: 1,200",
        "品种: 郑麦 9023\n地区: 山东\n产量: 1 200",
        "品种: 郑麦 9023\n地区: 山东\n产量: 1.2万",  # 〃 under 〃's value: the value
        "地区: 河北\n产量: 800",  # an empty cell is no ditto: it may mean "none"
        "品种: 济麦 22\n地区: 河北\n产量: 900",
    ]


def test_english_ditto_marks():
    assert rows(EN) == [
        "Part: Bolt\nSize: M8\nTorque: 25 N·m",
        "Part: Bolt\nSize: M10\nTorque: 49 N·m",
        "Part: Bolt\nSize: M10\nTorque: 50 N·m",
        "Part: Nut\nSize: M8\nTorque: 50 N·m",
    ]


def test_a_ditto_with_nothing_above_stays_as_written():
    assert rows(FIRST_ROW_DITTO) == ["名称: 〃\n值: 1", "名称: 甲\n值: 1"]


def test_the_csv_and_the_table_keep_the_cells_as_written():
    src = parse_source(GOOD_FM + ZH, Path("/kb/knowledge/t.md"), "knowledge/t.md")
    table = next(parse(src).tables())
    assert table_csv(table).decode("utf-8-sig").splitlines()[2:4] == ["〃,山东,1 200",
                                                                     "同上,〃,1.2万"]
    whole = next(c for c in chunk_document(src) if c.kind == "table")
    assert "| 〃 | 山东 | 1 200 |" in whole.text
