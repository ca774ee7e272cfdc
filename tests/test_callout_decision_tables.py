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
from tests.hostile import built_repo_index
from tests.kbfixtures import GOOD_FM, titled_page, top_evaluation

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


FILTER = """<!-- decision: inputs=压差(MPa),运行时间(h); outputs=处理 -->
| 压差(MPa) | 运行时间(h) | 处理 |
|---|---|---|
| <0.2 | <500 | 继续使用 |
| <0.2 | >=500 | 更换滤芯 |
| >=0.2 | * | 立即更换滤芯 |"""
FILTER_EN = """<!-- decision: inputs=Pressure drop (MPa),Running time (h); outputs=Action -->
| Pressure drop (MPa) | Running time (h) | Action |
|---|---|---|
| <0.2 | <500 | keep using |
| <0.2 | >=500 | replace the element |
| >=0.2 | * | replace the element now |"""


def test_a_callout_s_title_says_what_its_decision_table_is_about(tmp_path: Path):
    """A value the question says of the callout's subject (过滤器压差 for the table of
    `> [!note] 过滤器更换判定`) is the table's: it was "said of 过滤器压差, not 压差(MPa)", as
    if of another thing, where the same table under a heading 过滤器更换判定 took it. The
    callout's title is what the table is about, as a heading is (the build ships it)."""
    docs = {"knowledge/filter.md": titled_page("液压站维护规程", "## 判定规则\n\n> [!note]- 过滤器更换判定\n"
                                               f"> 按压差和运行时间判定：\n>\n{quoted(FILTER, '>')}\n"),
            "knowledge/filter-en.md": titled_page(
                "Hydraulic maintenance", "## Rules\n\n> [!tip] Return filter replacement\n"
                f"{quoted(FILTER_EN, '>')}\n")}
    dist = built_repo_index(tmp_path / "kr", docs)
    ev = top_evaluation(dist, "过滤器压差0.25MPa，运行了300小时，怎么处理", "filter.md")
    assert (ev["status"], ev["inputs"], ev["outputs"]) == (
        "match", {"压差(MPa)": "0.25", "运行时间(h)": "300"}, [{"处理": "立即更换滤芯"}]), ev
    ev = top_evaluation(dist, "return filter pressure drop 0.25 MPa after 300 hours",
                        "filter-en.md")
    assert (ev["status"], ev["outputs"]) == ("match", [{"Action": "replace the element now"}]), ev
