"""Amounts as field users write them, read the same in a table cell, a caller's input (`kb
table eval`, MCP `evaluate_table`, ``/api/table/evaluate``) and a question (issue 17 §1,
issue 5; session 38): 2万, 2.5万, 3千 (`decision.numerals.magnified`), a span of shares in
tenths (八成五到九成五), ‰ in a % column and % in a ‰ one, and a column's name in the other
Chinese script (温度 for 溫度(℃), and the other way)."""

from __future__ import annotations

import pytest
from hostile import make_repo
from kbfixtures import GOOD_FM, three_ways, top_evaluation

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.decision import build_table, match_rules
from kbtools.decision.given import read_given
from kbtools.errors import TableError
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import find_inputs

OIL = GOOD_FM.replace("Generated", "液压油更换") + """
# 液压油更换

液压油按累计运行小时更换。

<!-- decision: inputs=运行小时; outputs=措施 -->
| 运行小时 | 措施 |
|---|---|
| <1.5万 | 巡检 |
| 1.5万-3万 | 换滤芯 |
| >3万 | 换油 |
"""
FEE = GOOD_FM.replace("Generated", "维修费用审批") + """
# 维修费用审批

<!-- decision: inputs=费用(万元); outputs=审批 -->
| 费用(万元) | 审批 |
|---|---|
| <5 | 主管 |
| ≥5 | 总经理 |
"""
def _one_table(title: str, header: str, unit: str, rows: str) -> str:
    return GOOD_FM.replace("Generated", title) + f"""
# {title}

<!-- decision: inputs={header}; outputs={unit} -->
| {header} | {unit} |
|---|---|
{rows}
"""


LEAF = _one_table("病叶率", "病叶率(%)", "措施", "| <0.1 | 观察 |\n| 0.1-1 | 喷药 |\n| >1 | 连续喷药 |")
WATER = _one_table("含水量", "含水量(‰)", "处理", "| <1 | 合格 |\n| ≥1 | 烘干 |")
HUMID = _one_table("湿度", "湿度(%)", "风险", "| <80 | 低 |\n| 80-96 | 中 |\n| >96 | 高 |")
HEAT = _one_table("温度", "温度(℃)", "处理", "| <1 | 保温 |\n| ≥1 | 正常 |")
HANT = GOOD_FM.replace("Generated", "小麥赤黴病風險") + """
# 小麥赤黴病風險

<!-- decision: inputs=溫度(℃),相對濕度(%),連續降雨天數; outputs=風險等級 -->
| 溫度(℃) | 相對濕度(%) | 連續降雨天數 | 風險等級 |
|---|---|---|---|
| <15 | * | * | 低 |
| 15-20 | * | * | 中 |
| >20 | ≥85 | >3 | 極高 |
| >20 | <85 | * | 中 |
| >20 | ≥85 | ≤3 | 高 |
"""
HANS = GOOD_FM.replace("Generated", "大棚通风") + """
# 大棚通风

<!-- decision: inputs=温度(℃),相对湿度(%); outputs=措施 -->
| 温度(℃) | 相对湿度(%) | 措施 |
|---|---|---|
| <20 | * | 关窗 |
| ≥20 | ≥85 | 开窗 |
| ≥20 | <85 | 保持 |
"""
DOCS = {"knowledge/oil.md": OIL, "knowledge/fee.md": FEE, "knowledge/leaf.md": LEAF,
        "knowledge/water.md": WATER, "knowledge/humid.md": HUMID, "knowledge/heat.md": HEAT,
        "knowledge/hant.md": HANT, "knowledge/hans.md": HANS}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs=DOCS)
    build(load_config(root), BuildOptions(progress=False))
    return root


def answers(results: list[dict], key: str, want: str) -> None:
    """Each of the three interfaces answered with output `key` = `want`."""
    for r in results:
        assert "error" not in r and r["status"] == "match" and r["outputs"] == [{key: want}], r


def refused(results: list[dict], *words: str) -> None:
    for r in results:
        assert "error" in r and all(w in r["error"] for w in words), (r, words)


# 1. 2万, 2.5万, 3千: as a cell reads them ----------------------------------------------

@pytest.mark.parametrize(("value", "want"), [
    ("2万", "换滤芯"), ("2.5万", "换滤芯"), ("3千", "巡检"), ("3.5万", "换油"),
    ("1.8万小时", "换滤芯"), ("约2万", "换滤芯"), ("2万5千", "换滤芯"),
    ("3千分钟", "巡检"),  # 3000 minutes are 50 hours
    ("1.5万-2万", "换滤芯"),  # a range one row holds
])
def test_an_amount_times_wan_or_qian_is_its_value_in_every_interface(repo, monkeypatch,
                                                                     value, want):
    """``运行小时=2万`` was refused ("'万' multiplies the number; write it out in full") by
    `kb table eval`, MCP and the API, while the table's own cell 1.5万 was read as 15000."""
    answers(three_ways(repo, monkeypatch, "oil.md", {"运行小时": value}), "措施", want)


def test_a_unit_that_begins_with_qian_stays_a_unit(repo, monkeypatch):
    refused(three_ways(repo, monkeypatch, "oil.md", {"运行小时": "3千克"}), "千克", "小时")
    # colloquial 2万5 (25000, or 20005?) is read by no reader: refused, never 2万
    refused(three_ways(repo, monkeypatch, "oil.md", {"运行小时": "2万5"}), "is not a number")


@pytest.mark.parametrize(("value", "want"), [
    ("5万元", "总经理"), ("3", "主管"), ("3万", "主管"),  # the column's own 万元
    ("30000元", "主管"),  # 3 万元, not 30000 of them
    ("60000元", "总经理"),
])
def test_a_column_counted_in_wan_takes_its_own_unit_and_the_plain_one(repo, monkeypatch,
                                                                      value, want):
    """Under 费用(万元), ``30000元`` was compared as 30000 (万元): the approval of the
    largest amounts for 3万元."""
    answers(three_ways(repo, monkeypatch, "fee.md", {"费用": value}), "审批", want)


HOURS = build_table(["运行小时", "保养项目"], [["<2000", "继续使用"], ["≥2000", "换油"]],
                    decision="inputs=运行小时; outputs=保养项目")
FEES = build_table(["费用(万元)", "审批"], [["<5", "主管"], ["≥5", "总经理"]],
                   decision="inputs=费用(万元); outputs=审批")


@pytest.mark.parametrize(("question", "table", "status", "output"), [
    ("运行了2万分钟，要换油吗", HOURS, "match", "继续使用"),  # 333 hours, not 20000
    ("运行了1.5千小时", HOURS, "match", "继续使用"),
    ("运行了3千小时了", HOURS, "match", "换油"),
    ("运行了不到2万小时", HOURS, "spans_rows", ""),  # <20000 hours, not <2
    ("运行了2万多小时", HOURS, "missing_inputs", ""),  # rough: asked, never 2万 exactly
    ("运行了2万5，要换油吗", HOURS, "missing_inputs", ""),  # 2万5 is no 2万: asked
    ("费用5万元要谁审批", FEES, "match", "总经理"),
    ("费用3万要谁审批", FEES, "match", "主管"),
])
def test_a_question_amount_times_wan_or_qian_is_read_as_the_table_reads_it(
        question, table, status, output):
    """A question's 2万分钟 went to an hours column as 2万 (20000 hours), 不到2万小时 as 不到2
    and 2万多小时 as exactly 2万: the unit, the bound and the roughness after 万 were lost."""
    ev = evaluate_inputs("d.md", 1, table, find_inputs(question, table))
    assert ev.status == status, (ev.status, ev.message)
    if output:
        assert list(ev.outputs.values()) == [output]


def test_a_search_answers_from_the_row_an_amount_in_wan_selects(repo):
    ev = top_evaluation(repo / "dist", "液压油更换：运行小时2.5万，该怎么办", "oil.md")
    assert ev["status"] == "match" and ev["outputs"] == [{"措施": "换滤芯"}], ev


# 2. 八成五到九成五 and ‰ ----------------------------------------------------------------

@pytest.mark.parametrize(("value", "lo", "hi"), [
    ("八成五到九成五", 85, 95), ("8成5到9成", 85, 90), ("七到八成五", 70, 85),
    ("八成到九成", 80, 90),
])
def test_a_span_of_shares_in_tenths_is_read_end_to_end(value, lo, hi):
    """八成五到九成五 was read as 8成50%到95%: the tenth digit 五 of the first end was taken
    for the start of a span of its own."""
    span = read_given(value, True).span
    assert span is not None and (span.lo, span.hi) == (lo, hi)


def test_a_span_of_shares_in_tenths_answers_in_every_interface(repo, monkeypatch):
    answers(three_ways(repo, monkeypatch, "humid.md", {"湿度": "八成五到九成五"}), "风险", "中")


def test_a_question_span_of_shares_in_tenths_reaches_the_table():
    table = build_table(["湿度(%)", "风险"], [["<80", "低"], ["80-96", "中"], [">96", "高"]],
                        decision="inputs=湿度(%); outputs=风险")
    ev = evaluate_inputs("d.md", 1, table, find_inputs("湿度八成五到九成五，风险多大", table))
    assert (ev.status, ev.outputs) == ("match", {"风险": "中"}), ev.message


@pytest.mark.parametrize(("doc", "column", "value", "key", "want"), [
    ("leaf.md", "病叶率", "0.5‰", "措施", "观察"),  # 0.05 %
    ("leaf.md", "病叶率", "5‰", "措施", "喷药"),  # 0.5 %
    ("leaf.md", "病叶率", "千分之五", "措施", "喷药"),
    ("leaf.md", "病叶率", "2‰到5‰", "措施", "喷药"),
    ("water.md", "含水量", "0.05%", "处理", "合格"),  # 0.5 ‰
    ("humid.md", "湿度", "850‰", "风险", "中"),
])
def test_permille_and_percent_are_converted_into_each_other(repo, monkeypatch, doc, column,
                                                            value, key, want):
    """0.5‰ in a % column was refused ("it is in '‰', the column in '%'"): one is ten of the
    other."""
    answers(three_ways(repo, monkeypatch, doc, {column: value}), key, want)


def test_permille_where_no_share_is_counted_is_refused(repo, monkeypatch):
    refused(three_ways(repo, monkeypatch, "heat.md", {"温度": "5‰"}), "‰", "°C")
    refused(three_ways(repo, monkeypatch, "humid.md", {"湿度": "1200‰"}), "0–100 %")


# 3. a column's name in the other script ---------------------------------------------

@pytest.mark.parametrize("inputs", [
    {"温度": "22", "湿度": "90", "连续降雨天数": "4"},  # Simplified names, Traditional table
    {"温度(℃)": "22", "相对湿度": "九成", "降雨天数": "4"},
    {"溫度": "22", "濕度": "90", "連續降雨天數": "4"},  # as written
])
def test_a_traditional_tables_columns_are_named_in_simplified(repo, monkeypatch, inputs):
    """温度=22 against a table headed 溫度(℃) was "no column '温度'"."""
    answers(three_ways(repo, monkeypatch, "hant.md", inputs), "風險等級", "極高")


def test_a_simplified_tables_columns_are_named_in_traditional(repo, monkeypatch):
    answers(three_ways(repo, monkeypatch, "hans.md", {"溫度": "25", "相對濕度": "90"}),
            "措施", "开窗")


def test_an_unknown_name_is_refused_naming_the_columns_as_written(repo, monkeypatch):
    refused(three_ways(repo, monkeypatch, "hant.md", {"气压": "1000", "温度": "22"}),
            "no column '气压'", "溫度(℃), 相對濕度(%), 連續降雨天數")


def test_a_column_named_in_both_scripts_with_two_values_is_refused(repo, monkeypatch):
    refused(three_ways(repo, monkeypatch, "hant.md",
                       {"温度": "22", "溫度(℃)": "25", "湿度": "90", "连续降雨天数": "4"}),
            "two values for column 溫度(℃)")


TRAD = build_table(["溫度(℃)", "相對濕度(%)", "風險"],
                   [["<20", "*", "低"], ["≥20", "≥85", "高"], ["≥20", "<85", "中"]],
                   decision="inputs=溫度(℃),相對濕度(%); outputs=風險")


@pytest.mark.parametrize("question", ["温度25度湿度九成风险多高", "溫度25度濕度90%風險多高",
                                      "温度二十五度，相对湿度90%风险多高"])
def test_a_question_names_a_traditional_tables_columns_by_their_parts(question):
    """A question's 湿度 was no name of 相對濕度(%) (its parts were taken in Traditional, the
    question read in Simplified): the humidity was asked for though the question gave it."""
    found = find_inputs(question, TRAD)
    assert found == {"溫度(℃)": "25", "相對濕度(%)": "90"}
    ev = evaluate_inputs("d.md", 1, TRAD, found)
    assert (ev.status, ev.outputs) == ("match", {"風險": "高"})


def test_a_search_answers_a_simplified_question_from_a_traditional_table(repo):
    ev = top_evaluation(repo / "dist", "小麦赤霉病风险：温度22度，湿度九成，连续降雨4天", "hant.md")
    assert ev["status"] == "match" and ev["outputs"] == [{"風險等級": "極高"}], ev


# 3. 2k, 3K, 2w; 8千元 and 30000元 under 万元; 半小时, 一刻钟 (session 39) -----------------------

YUAN = build_table(["金额(元)", "审批"], [["<50000", "主管"], ["≥50000", "总经理"]],
                   decision="inputs=金额; outputs=审批")
HALF = build_table(["时长(小时)", "措施"], [["<1", "短时"], ["≥1", "长时"]],
                   decision="inputs=时长; outputs=措施")


@pytest.mark.parametrize(("table", "value", "want"), [
    (YUAN, "2k", "主管"), (YUAN, "60k", "总经理"), (YUAN, "1.5k", "主管"),
    (YUAN, "60K", "总经理"),  # 60000, not 60 (K is kelvin only in a temperature column)
    (YUAN, "2w", "主管"), (YUAN, "6w", "总经理"),  # 60000, not 6
    (YUAN, "40k-45k", "主管"), (YUAN, "6万元", "总经理"),
    (FEES, "6w", "总经理"), (FEES, "60k", "总经理"),  # 6 万元
    (FEES, "8千元", "主管"), (FEES, "0.6亿元", "总经理"), (FEES, "2千", "主管"),
])
def test_thousands_and_ten_thousands_as_typed_are_their_value(table, value, want):
    """``6w`` and ``60K`` under 金额(元) were compared as 6 and 60 (the smallest approval for
    60000 元); ``2k`` was refused, and under 费用(万元) ``8千元`` and ``0.6亿元`` too."""
    assert table is not None
    assert list(match_rules(table, {table.header[0]: value}).outputs[0].values()) == [want]


@pytest.mark.parametrize(("table", "value", "refusal"), [
    (YUAN, "2k-xxx", "is not a number"),  # a code, not 2000-xxx
    (build_table(["温度(℃)", "措施"], [["<30", "a"], ["≥30", "b"]], decision="inputs=温度"),
     "300K", "give the value in °C"),  # kelvin there
])
def test_a_letter_that_is_a_unit_or_part_of_a_code_multiplies_nothing(table, value, refusal):
    assert table is not None
    with pytest.raises(TableError, match=refusal):
        match_rules(table, {table.header[0]: value})


def test_kilowatts_under_a_column_of_watts_are_converted_not_multiplied():
    """``5kw`` under 功率(W) was refused ("give the value in W"); the tables convert by the
    filters' table of units (session 43): 5 kW is 5000 W, its k no 千 of its own."""
    table = build_table(["功率(W)", "档"], [["<500", "低"], ["≥500", "高"]], decision="inputs=功率")
    assert table is not None
    for value, want in (("5kw", "高"), ("0.4 kW", "低"), ("1 hp", "高"), ("5千瓦", "高")):
        assert list(match_rules(table, {"功率": value}).outputs[0].values()) == [want], value


@pytest.mark.parametrize(("question", "table", "output"), [
    ("费用30000元要谁审批", FEES, "主管"),  # 3 万元, not 30000 of them
    ("费用60000元要谁审批", FEES, "总经理"),
    ("金额6w谁批", YUAN, "总经理"), ("金额60k谁批", YUAN, "总经理"), ("金额2w谁批", YUAN, "主管"),
    ("时长半小时怎么办", HALF, "短时"), ("时长半个小时", HALF, "短时"), ("时长一刻钟", HALF, "短时"),
    ("时长半天", HALF, "长时"), ("时长两个半小时", HALF, "长时"), ("时长1个半小时", HALF, "长时"),
])
def test_a_question_amount_or_half_is_read_as_the_table_reads_it(question, table, output):
    """A question's 30000元 went to 费用(万元) as 30000 (万元) and 6w to 金额(元) as 6; 半小时,
    一刻钟, 半天 and 两个半小时 were no values at all (the input was asked for)."""
    ev = evaluate_inputs("d.md", 1, table, find_inputs(question, table))
    assert (ev.status, list(ev.outputs.values())) == ("match", [output]), ev.message


def test_a_half_of_the_year_is_no_length():
    assert find_inputs("上半年时长2小时", HALF) == {"时长(小时)": "2"}
