"""Decision tables: condition forms, evaluation, documents, CLI (their overlap and gap
analysis: tests/test_table_analysis.py)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import kbtools.check.decision_tables
import kbtools.decision
from kbtools.check.decision_tables import analyse, table_findings
from kbtools.cli import main
from kbtools.decision import (
    NO_MATCH_MESSAGE,
    build_table,
    column_key,
    match_rules,
    parse_condition,
    parse_number,
)
from kbtools.decision.documents import decision_tables, evaluate_table
from kbtools.decision.matching import CellMatch
from kbtools.errors import TableError
from kbtools.query.inputs import find_inputs

RISK_HEADER = ["温度(℃)", "相对湿度(%)", "风险等级", "建议措施"]
RISK_ROWS = [["<15", "*", "低", "常规巡查"],
             ["15-20", "<85", "中", "加强通风"],
             ["15~20", "≥85", "高", "立即喷药"],
             [">20", "*", "低", "常规巡查"]]
RISK_ANN = "inputs=温度(℃),相对湿度(%); outputs=风险等级,建议措施"

DOC = """---
title: 霜霉病风险
---

# 霜霉病风险判定

## 风险等级表

<!-- decision: inputs=温度(℃),相对湿度(%); outputs=风险等级,建议措施 -->
<!-- csv: risk.csv -->
| 温度(℃) | 相对湿度(%) | 风险等级 | 建议措施 |
|---|---|---|---|
| <15 | * | 低 | 常规巡查 |
| 15-20 | <85 | 中 | 加强通风 |
| 15~20 | ≥85 | 高 | 立即喷药 |
| >20 | * | 低 | 常规巡查 |

## 保养周期

每运行 2000 小时更换液压油：

| 运行小时 | 保养项目 |
|---|---|
| ≥2000 h | 更换液压油 |

## 说明

| 项目 | 说明 |
|---|---|
| 温度 | 叶面温度 |
"""


def risk():
    return build_table(RISK_HEADER, RISK_ROWS, decision=RISK_ANN, row_lines=(13, 14, 15, 16),
                       line_start=11, line_end=16, heading_path=("风险",))


@pytest.fixture
def doc(tmp_path):
    path = tmp_path / "risk.md"
    path.write_text(DOC, encoding="utf-8")
    return path


# ----------------------------------------------------------------- condition forms

@pytest.mark.parametrize("cell,inside,outside", [
    ("<15", [14.9, -3], [15, 16]),
    ("＜15", [14], [15]),
    ("<=15", [15, 0], [15.1]),
    ("≤15", [15], [15.01]),
    ("≦15", [15], [16]),
    (">20", [20.1], [20, 3]),
    (">=85", [85, 99], [84.9]),
    ("≥85", [85], [84]),
    ("≥85%", [85], [80]),
    ("≥2000 h", [2000, 5000], [1999]),
    ("15-20", [15, 17.5, 20], [14.99, 20.01]),
    ("15~20", [15, 20], [21]),
    ("15～20", [15, 20], [21]),
    ("15–20", [15, 20], [14]),
    ("15至20", [15, 20], [21]),
    ("15℃-20℃", [15, 20], [21]),
    ("-5-0", [-5, 0], [-6, 1]),
    ("-10~-5", [-10, -5], [-4]),
    ("20", [20], [20.5]),
    ("20℃", [20], [19]),
    ("2000小时以上", [2000], [1999]),
    ("10以下", [10], [11]),
    # thousands separators (English tables): these were text, so no number ever matched
    ("<1,000", [999], [1000]),
    ("1,000-10,000", [1000, 5000, 10000], [999, 10001]),
    (">12,500 h", [12500.5], [12500]),
    ("≥1,000,000", [1e6], [999999]),
])
def test_numeric_condition_forms(cell, inside, outside):
    cond = parse_condition(cell)
    assert cond.numeric, cell
    assert all(cond.accepts_number(x) for x in inside), (cell, inside)
    assert not any(cond.accepts_number(x) for x in outside), (cell, outside)


def test_thousands_separators_in_inputs_and_a_whole_english_table():
    assert parse_number("5,000") == 5000 and parse_number("12,500 h") == 12500
    assert parse_number("1,5") is None and parse_number("1,50") is None
    table = build_table(["Running hours", "Action"],
                        [["<1,000", "none"], ["1,000-10,000", "inspect"], [">10,000", "overhaul"]],
                        decision="inputs=Running hours; outputs=Action")
    assert table is not None and table.numeric == (0,)
    assert match_rules(table, {"Running hours": "5,000"}).outputs[0]["Action"] == "inspect"
    assert match_rules(table, {"Running hours": "10001"}).outputs[0]["Action"] == "overhaul"


@pytest.mark.parametrize("cell", ["", "*", " * ", "＊"])
def test_any_condition(cell):
    assert parse_condition(cell).kind == "any"


@pytest.mark.parametrize("cell", ["高", "Yes", "A1", "< high", "15-20-25", "1,5", ">1,0000"])
def test_text_condition(cell):
    assert parse_condition(cell).kind == "text"


def test_adjacent_rows_tile_the_number_line():
    rows = [parse_condition(c) for c in ("<15", "15-20", ">20")]
    for x in (-100, 14.999, 15, 17, 20, 20.001, 1e6):
        assert sum(c.accepts_number(x) for c in rows) == 1, x


@pytest.mark.parametrize("header,key", [("温度(℃)", "温度"), ("温度（℃）", "温度"),
                                        ("温度 [℃]", "温度"), ("运行小时 (h)", "运行小时"),
                                        ("Temp (°C)", "temp"), ("风险等级", "风险等级")])
def test_column_key_drops_units(header, key):
    assert column_key(header) == key


# ----------------------------------------------------------------- evaluation

@pytest.mark.parametrize("temp,hum,level,row", [("10", "99", "低", 1), ("15", "50", "中", 2),
                                               ("20", "85", "高", 3), ("20.1", "85", "低", 4),
                                               ("18℃", "90%", "高", 3)])
def test_evaluate_risk_levels(temp, hum, level, row):
    r = match_rules(risk(), {"温度": temp, "相对湿度": hum})
    assert r.status == "match"
    assert r.selected == (row,)
    assert r.outputs[0]["风险等级"] == level
    assert r.matches[0].line == 12 + row
    assert all(c.matched for c in r.matches[0].cells)


def test_evaluate_explains_each_cell():
    r = match_rules(risk(), {"温度(℃)": "18", "相对湿度(%)": "90"})
    reasons = {c.column: c.reason for c in r.matches[0].cells}
    assert reasons == {"温度(℃)": "18 is in 15–20 (both ends inclusive)",
                       "相对湿度(%)": "90 is ≥ 85"}


def test_cell_reasons_in_chinese_say_the_same_as_the_english_ones():
    r = match_rules(risk(), {"温度(℃)": "18", "相对湿度(%)": "90"})
    cells = {c.column: c for c in r.matches[0].cells}
    assert cells["温度(℃)"].reason_in("zh") == "18 满足 在 15–20 之间（含两端）"
    assert cells["相对湿度(%)"].reason_in("zh") == "90 满足 ≥ 85"
    assert all(c.reason_in("en") == c.reason for c in cells.values())
    fails = [CellMatch("作物", "水稻", "Rice", False, ""), CellMatch("温度", "<10", "12", False, ""),
             CellMatch("温度", "*", "12", True, "")]
    assert [c.reason_in("zh") for c in fails] == [
        "“Rice”不等于“水稻”（文本，不区分大小写）", "12 不满足 < 10", "接受任意值（* 或空单元格）"]


def test_refused_inputs_are_also_explained_in_chinese():
    with pytest.raises(TableError) as info:
        match_rules(risk(), {"温度(℃)": "72 kPa", "相对湿度(%)": "90"})
    assert "it is in 'kPa', the column in '°C'" in info.value.message
    assert "单位是 kPa，这一列是 °C" in info.value.message_in("zh")
    assert info.value.message_in("en") == info.value.message
    with pytest.raises(TableError) as info:
        match_rules(risk(), {"温度(℃)": "2k", "相对湿度(%)": "90"})
    assert "“k”会放大数值" in info.value.message_in("zh")


def test_inputs_by_column_index():
    r = match_rules(risk(), {"1": "16", "2": "10"})
    assert r.outputs[0]["风险等级"] == "中"


def test_one_column_named_twice_with_two_values_is_refused():
    """温度=10 and 温度(℃)=30 (or the column's number) name one column: the last value given
    silently decided the row. Two values are refused; the same value twice is one input."""
    for inputs in ({"温度": "10", "温度(℃)": "30", "相对湿度": "90"},
                   {"1": "10", "温度": "30", "相对湿度": "90"}):
        with pytest.raises(TableError) as info:
            match_rules(risk(), inputs)
        first, second = list(inputs.items())[:2]
        assert ("two values for column 温度(℃): "
                f"{first[0]}={first[1]} and {second[0]}={second[1]}; give one") in info.value.message
    same = match_rules(risk(), {"温度": "18", "温度(℃)": "18", "相对湿度": "90"})
    assert same.selected == (3,)


def test_no_match_never_guesses():
    table = build_table(["温度", "风险"], [["<15", "低"], ["20-30", "高"]])
    r = match_rules(table, {"温度": "17"})
    assert r.status == "no_match"
    assert r.message == NO_MATCH_MESSAGE
    assert r.outputs == () and r.matches == ()
    assert r.to_dict()["outputs"] == []


def test_several_matches_policy_first_and_all():
    table = build_table(["温度", "动作"], [["≥10", "通风"], ["≥20", "遮阳"], ["*", "记录"]])
    first = match_rules(table, {"温度": "25"})
    assert [m.row for m in first.matches] == [1, 2, 3]
    assert first.selected == (1,) and first.outputs == ({"动作": "通风"},)
    assert "policy 'first'" in first.message
    everything = match_rules(table, {"温度": "25"}, policy="all")
    assert everything.selected == (1, 2, 3)
    assert [o["动作"] for o in everything.outputs] == ["通风", "遮阳", "记录"]


def test_annotation_policy_all():
    table = build_table(["x", "y"], [[">1", "a"], [">2", "b"]], decision="inputs=x; policy=all")
    assert match_rules(table, {"x": "5"}).selected == (1, 2)


def test_text_inputs_case_insensitive():
    table = build_table(["作物", "温度", "措施"], [["Tomato", "<15", "覆膜"], ["黄瓜", "*", "通风"]],
                        decision="inputs=作物,温度; outputs=措施")
    assert match_rules(table, {"作物": " tomato ", "温度": "10"}).outputs[0] == {"措施": "覆膜"}
    assert match_rules(table, {"作物": "黄瓜", "温度": "30"}).outputs[0] == {"措施": "通风"}
    # a crop no row names is refused naming the crops the table takes (session 32: it was
    # no_match, which read as "the rules say nothing" rather than "not a value here")
    with pytest.raises(TableError, match=r"作物='辣椒': not a value this column takes "
                                         r"\(its rows take: Tomato, 黄瓜\)"):
        match_rules(table, {"作物": "辣椒", "温度": "10"})


def test_maintenance_rule_as_decision_table():
    table = build_table(["运行小时", "保养项目"], [["≥2000 h", "更换润滑油"]])
    assert table is not None and table.inputs == (0,)
    assert match_rules(table, {"运行小时": "2500"}).outputs[0] == {"保养项目": "更换润滑油"}
    assert match_rules(table, {"运行小时": "1999"}).status == "no_match"


@pytest.mark.parametrize("inputs,needle", [
    ({"温度": "18"}, "missing input for column(s) 相对湿度(%)"),
    ({"温度": "hot", "相对湿度": "50"}, "input 温度(℃)='hot' is not a number"),
    ({"温度": "18", "相对湿度": "50", "风速": "3"}, "no column '风速'"),
    ({"温度": "18", "相对湿度": "50", "风险等级": "高"}, "'风险等级' is an output column"),
])
def test_evaluate_errors_name_the_column(inputs, needle):
    with pytest.raises(TableError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        match_rules(risk(), inputs)


def test_a_caller_names_a_column_as_a_question_does():
    """MCP `evaluate_table` with {"cycles": "4"} said "no column 'cycles'" while a question
    naming the column by its leading word was evaluated: one rule names a column in both."""
    table = build_table(
        ["Cycles of concentration", "Basin temperature (°F)", "Tower temperature (°F)", "Do"],
        [["<5", "<40", "<100", "heat"], ["*", ">=40", "*", "ok"], [">=5", "<40", "<100", "blow"]],
        decision="inputs=Cycles of concentration,Basin temperature (°F),Tower temperature (°F);"
                 " outputs=Do")
    assert table is not None
    asked = find_inputs("cycles 4 basin 30 tower 50", table)
    assert asked == {"Cycles of concentration": "4", "Basin temperature (°F)": "30",
                     "Tower temperature (°F)": "50"}
    given = match_rules(table, {"cycles": "4", "Basin": "30", "tower": "50"})
    assert given.status == "match" and given.outputs[0] == {"Do": "heat"}
    assert match_rules(risk(), {"温度": "18", "湿度": "90"}).status == "match"  # 相对湿度
    # a part that names two inputs names neither, in a question and in a call alike
    assert "Basin temperature (°F)" not in find_inputs("temperature 30", table)
    with pytest.raises(TableError, match="no column 'temperature'"):
        match_rules(table, {"cycles": "4", "temperature": "30", "tower": "50"})


def test_bad_policy():
    with pytest.raises(TableError, match="policy"):
        match_rules(risk(), {"温度": "1", "相对湿度": "1"}, policy="best")


# ----------------------------------------------------------------- malformed tables

@pytest.mark.parametrize("header,rows,ann,needle", [
    (RISK_HEADER, RISK_ROWS, "inputs=风速; outputs=风险等级", "names column '风速'"),
    (RISK_HEADER, RISK_ROWS, "inputs=温度 outputs=风险等级", "decision annotation"),
    (RISK_HEADER, RISK_ROWS, "inputs=温度; colour=red", "cannot read 'colour=red'"),
    (RISK_HEADER, RISK_ROWS, "outputs=风险等级", "names no inputs"),
    (RISK_HEADER, RISK_ROWS, "inputs=温度; outputs=温度", "both input and output"),
    (RISK_HEADER, RISK_ROWS, "inputs=温度; policy=best", "policy must be first or all"),
    (["温度", "风险"], [["<15", "低"], ["暖和", "高"]], "inputs=温度", "'暖和' is not a numeric"),
    (["温度", "风险"], [["20-15", "低"]], "inputs=温度", "runs backwards"),
    (["温度", "风险"], [], "inputs=温度", "no rows"),
    (["温度", "温度(℃)", "风险"], [["<1", "<2", "x"]], "inputs=温度", "duplicate column"),
    (["温度", "风险"], [["<15", "低", "extra"]], "inputs=温度", "row 1 has 3 cells"),
    (["温度"], [["<15"]], "inputs=温度", "no output column"),
])
def test_malformed_annotated_tables_raise(header, rows, ann, needle):
    with pytest.raises(TableError, match=needle):
        build_table(header, rows, decision=ann, line_start=7)


def test_malformed_error_carries_line():
    with pytest.raises(TableError) as info:
        build_table(["温度", "风险"], [["<15", "低"], ["暖和", "高"]], decision="inputs=温度",
                    row_lines=(9, 10), line_start=7)
    assert info.value.line == 10


def test_plain_tables_are_not_decision_tables():
    assert build_table(["项目", "说明"], [["温度", "叶面温度"]]) is None
    assert build_table(["编号", "名称"], [["1", "a"], ["2", "b"]]) is None  # bare numbers only
    assert build_table(["温度", "湿度"], [["<1", "<2"]]) is None  # no output column


# ----------------------------------------------------------------- analysis

def test_clean_tiling_has_no_findings():
    assert analyse(risk()) == []


# ----------------------------------------------------------------- documents

def test_document_tables_and_selection(doc):
    tables = decision_tables(doc)
    assert [t.label() for t in tables] == ["risk.csv", "霜霉病风险判定 > 保养周期"]
    assert tables[0].annotated and not tables[1].annotated
    for which in ("risk.csv", "risk", "1", 1, "风险等级表", "霜霉病风险判定 > 风险等级表"):
        r = evaluate_table(doc, which, {"温度": "18", "相对湿度": "90"})
        assert r.outputs[0]["风险等级"] == "高" and r.table_index == 1
    r = evaluate_table(doc, "保养周期", {"运行小时": "2100"})
    assert r.outputs == ({"保养项目": "更换液压油"},) and r.matches[0].line == 24


@pytest.mark.parametrize("which,needle", [(None, "2 decision tables; choose one by number or name"),
                                          ("3", "no decision table 3"),
                                          ("说明", "no decision table named '说明'")])
def test_document_selection_errors(doc, which, needle):
    with pytest.raises(TableError, match=needle) as info:
        evaluate_table(doc, which, {"温度": "1"})
    assert info.value.path and info.value.path.endswith("risk.md")


def test_document_without_decision_tables(tmp_path):
    path = tmp_path / "plain.md"
    path.write_text("---\ntitle: x\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", encoding="utf-8")
    with pytest.raises(TableError, match="no decision table"):
        evaluate_table(path, None, {})


def test_missing_document(tmp_path):
    with pytest.raises(TableError, match="cannot read"):
        evaluate_table(tmp_path / "nope.md", None, {})


def test_table_findings_for_check(tmp_path):
    text = DOC.replace("| 15-20 | <85 |", "| 14-20 | <85 |") + """
<!-- decision: inputs=风速; outputs=措施 -->
| 温度 | 措施 |
|---|---|
| <1 | x |
"""
    path = tmp_path / "k.md"
    path.write_text(text, encoding="utf-8")
    findings = table_findings(path)
    codes = [(line, code) for line, code, _ in findings]
    assert (14, "decision-overlap") in codes  # rows 1 (<15) and 2 (14-20) overlap
    malformed = [f for f in findings if f[1] == "decision-malformed"]
    assert len(malformed) == 1 and "'风速'" in malformed[0][2] and malformed[0][0] == 33
    assert findings == sorted(findings)


def test_table_findings_skip_unannotated(tmp_path):
    path = tmp_path / "k.md"
    path.write_text("---\ntitle: x\n---\n\n| t | r |\n|---|---|\n| <1 | a |\n| <2 | b |\n",
                    encoding="utf-8")
    assert table_findings(path) == []


# ----------------------------------------------------------------- CLI

def test_cli_eval_text_and_json(doc):
    runner = CliRunner()
    res = runner.invoke(main, ["table", "eval", str(doc), "--table", "1", "温度=18", "相对湿度=90"])
    assert res.exit_code == 0, res.output
    assert "row 3 matches" in res.output and "风险等级=高" in res.output
    res = runner.invoke(main, ["table", "eval", str(doc), "--table", "risk", "温度=30",
                               "相对湿度=10", "--json"])
    data = json.loads(res.output)
    assert data["status"] == "match" and data["outputs"] == [{"风险等级": "低", "建议措施": "常规巡查"}]
    assert data["citation"].endswith("risk.md:16")


def test_cli_eval_takes_a_citation_as_the_document(doc, monkeypatch):
    """A citation pasted as DOC (what `kb query`, `--json` and the MCP tools cite: x.md:16,
    x.md:11-16 § heading) was "no such file": its lines now name the table."""
    runner = CliRunner()
    cited = json.loads(runner.invoke(main, ["table", "eval", str(doc), "--table", "1",
                                            "温度=30", "相对湿度=10", "--json"]).output)
    res = runner.invoke(main, ["table", "eval", cited["citation"], "温度=18", "相对湿度=90"])
    assert res.exit_code == 0 and "row 3 matches" in res.output, res.output
    monkeypatch.chdir(doc.parent)
    res = runner.invoke(main, ["table", "eval", "risk.md:22-24 § 霜霉病风险判定 > 保养周期",
                               "运行小时=10"])
    assert res.exit_code == 0 and "NO MATCH" in res.output, res.output
    res = runner.invoke(main, ["table", "eval", "risk.md:29", "温度=18"])
    assert res.exit_code == 2  # a usage error, as "no such file" was
    assert "no decision table at risk.md line 29 (its decision tables: lines 11-16, lines " \
        "22-24)" in res.output, res.output
    res = runner.invoke(main, ["table", "eval", "risk.md:13", "--table", "2", "运行小时=10"])
    assert res.exit_code == 2 and "give one of them" in res.output, res.output


def test_cli_no_match(doc):
    res = CliRunner().invoke(main, ["table", "eval", str(doc), "--table", "2", "运行小时=10"])
    assert res.exit_code == 0
    assert "NO MATCH: no rule matches, needs human review" in res.output


def test_cli_policy_all(tmp_path):
    path = tmp_path / "p.md"
    path.write_text("---\ntitle: p\n---\n\n| x | y |\n|---|---|\n| >1 | a |\n| >2 | b |\n",
                    encoding="utf-8")
    res = CliRunner().invoke(main, ["table", "eval", str(path), "x=5", "--policy", "all", "--json"])
    assert json.loads(res.output)["selected"] == [1, 2]


@pytest.mark.parametrize("args,code,needle", [
    (["温度18"], 2, "is not KEY=VALUE"),
    (["--table", "1", "温度=18"], 1, "missing input for column(s) 相对湿度(%)"),
    (["温度=18"], 1, "2 decision tables"),
    (["--table", "1", "温度=10", "温度=30", "相对湿度=90"], 2,
     "input 温度 is given twice (温度=10 and 温度=30); give it once"),
    (["--table", "1", "温度=10", "温度(℃)=30", "相对湿度=90"], 1, "two values for column 温度(℃)"),
    (["--table", "1", "温度=warm", "相对湿度=1"], 1, "is not a number"),
])
def test_cli_errors(doc, args, code, needle):
    res = CliRunner().invoke(main, ["table", "eval", str(doc), *args])
    assert res.exit_code == code
    assert needle in res.output


def test_cli_missing_file(tmp_path):
    res = CliRunner().invoke(main, ["table", "eval", str(tmp_path / "x.md"), "a=1"])
    assert res.exit_code == 2 and "no such file" in res.output


def test_cli_list(doc):
    res = CliRunner().invoke(main, ["table", "list", str(doc), "--json"])
    data = json.loads(res.output)
    assert [t["inputs"] for t in data] == [["温度(℃)", "相对湿度(%)"], ["运行小时"]]
    res = CliRunner().invoke(main, ["table", "list", str(doc)])
    assert "2: 霜霉病风险判定 > 保养周期" in res.output


def test_reference_tables_with_later_range_columns_are_not_rules():
    header = ["药剂", "剂型", "每亩用量", "兑水量(L)"]
    assert build_table(header, [["戊唑醇", "水乳剂", "20～25 mL", "30"]]) is None


BROKEN = """---
title: t
---

## 坏表

<!-- decision: inputs=温度; outputs=风险 -->
| 温度 | 风险 |
|---|---|
| <15 | 低 |
| >20 |

## 好表

<!-- decision: inputs=温度; outputs=风险 -->
| 温度 | 风险 |
|---|---|
| <15 | 低 \\| 注意 |
| ≥15 | 高 |
"""


def test_short_row_is_malformed_but_other_tables_still_evaluate(tmp_path):
    path = tmp_path / "b.md"
    path.write_text(BROKEN, encoding="utf-8")
    assert table_findings(path) == [
        (11, "decision-malformed", "table at line 8: row 2 has 1 cell, the header has 2")]
    assert evaluate_table(path, "好表", {"温度": "3"}).outputs == ({"风险": "低 | 注意"},)
    assert evaluate_table(path, "2", {"温度": "30"}).outputs == ({"风险": "高"},)
    with pytest.raises(TableError, match="row 2 has 1 cell,") as info:
        evaluate_table(path, "1", {"温度": "3"})
    assert info.value.line == 11 and info.value.path.endswith("b.md")
    with pytest.raises(TableError, match="1: malformed table at line 11; 2: "):
        evaluate_table(path, None, {"温度": "3"})
    with pytest.raises(TableError, match="row 2 has 1 cell,"):
        decision_tables(path)


# ----------------------------------------------------------------- package shape

DECISION_MODULES = sorted(
    [*(Path(kbtools.decision.__file__).parent.glob("*.py")),
     Path(kbtools.check.decision_tables.__file__)])


def test_decision_package_exports_its_api():
    for name in kbtools.decision.__all__:
        assert getattr(kbtools.decision, name) is not None, name
    assert kbtools.decision.documents.evaluate_table is evaluate_table
    assert not hasattr(kbtools.decision, "evaluate")  # one name per job: match_rules


@pytest.mark.parametrize("path", DECISION_MODULES, ids=lambda p: p.name)
def test_no_private_names_imported_from_other_modules(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    private = [f"{node.module}.{alias.name}" for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kbtools")
               for alias in node.names if alias.name.startswith("_")]
    assert private == []


def test_a_heading_over_several_tables_names_none_of_them(tmp_path):
    """Two decision tables in one section share its heading: `--table <heading>` took the
    first, so the second (same inputs) was answered by the first's rules. Now it is an
    error giving each table's number and lines, as the listing of all tables does."""
    path = tmp_path / "models.md"
    path.write_text("---\ntitle: m\n---\n\n# Gearboxes\n\n## Oil change\n\nModel A:\n\n"
                    "| Running hours | Action |\n|---|---|\n| <2000 | none |\n| >=2000 | change |\n\n"
                    "Model B:\n\n"
                    "| Running hours | Action |\n|---|---|\n| <1000 | none |\n| >=1000 | change |\n",
                    encoding="utf-8")
    res = CliRunner().invoke(main, ["table", "eval", str(path), "--table", "Oil change",
                                    "Running hours=1500"])
    assert res.exit_code == 1 and "matches" not in res.output
    assert "'Oil change' is the heading of 2 decision tables (1: lines 11-14; 2: lines " \
           "18-21); choose one by number" in res.output
    res = CliRunner().invoke(main, ["table", "eval", str(path), "Running hours=1500"])
    assert res.exit_code == 1 and "(1: Gearboxes > Oil change (lines 11-14); " \
           "2: Gearboxes > Oil change (lines 18-21))" in res.output
    res = CliRunner().invoke(main, ["table", "eval", str(path), "--table", "2",
                                    "Running hours=1500"])
    assert res.exit_code == 0 and "Action=change" in res.output
