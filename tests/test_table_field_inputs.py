"""Decision tables as a field user types into them (session 32): `kb table eval`, MCP
`evaluate_table` and ``/api/table/evaluate`` (one path: `kbtools.decision.match_rules`).

1. column names in the other language, through the knowledge's synonyms (``temperature=24``
   for 温度(℃), 温度=24 for ``Temperature (°C)``); a name that names nothing or two inputs is
   refused naming the inputs;
2. values no such quantity can be (湿度 130%, -300度, a date 2026-02-30, a growth stage the
   table does not list): one refusal naming the column and what it takes;
3. ranges and rough values (22-25度, 22~25℃, 二十五度, 25℃左右, 约25度): answered when one row
   holds all of the range, else the rows it spans named;
4. two values at once (E17和E71) refused, each to be evaluated; place words as values;
5. tables as Typora/Obsidian leave them: an empty cell under a filled one deciding the row, a
   blank row, a blank line cutting the table.
"""

from __future__ import annotations

import pytest
from hostile import make_repo
from kbfixtures import GOOD_FM, RAIN_TABLE, three_ways
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.check.decision_tables import table_findings
from kbtools.config import load_config
from kbtools.decision import build_table, match_rules
from kbtools.decision.documents import evaluate_table
from kbtools.errors import TableError
from kbtools.serve.app import create_app

SCAB = GOOD_FM.replace("Generated", "小麦赤霉病风险") + "\n# 小麦赤霉病风险\n\n" + RAIN_TABLE
GREENHOUSE = GOOD_FM.replace("Generated", "Greenhouse vents") + """
# Greenhouse vents

<!-- decision: inputs=Temperature (°C),Humidity (%),Growing; outputs=Action -->
| Temperature (°C) | Humidity (%) | Growing | Action |
|---|---|---|---|
| <20 | * | 大棚 | close the vents |
| ≥20 | ≥85 | 大棚 | open the vents |
| ≥20 | <85 | 大棚 | keep as is |
| * | * | 露地 | no vents to set |
"""
CODES = GOOD_FM.replace("Generated", "故障码处理") + """
# 故障码处理

<!-- decision: inputs=故障码; outputs=处理 -->
| 故障码 | 处理 |
|---|---|
| E17 | 降低保压压力 10% 试运行 |
| E21 | 检查油位 |
| E71 | 检查编码器电缆 \\| 接头 |
"""
SYNONYMS = "温度 = temperature\n相对湿度 = relative humidity = humidity\n" \
           "连续降雨天数 = rain days\n露地 = 露天 = 大田 = open field\n"
DOCS = {"knowledge/scab.md": SCAB, "knowledge/vents.md": GREENHOUSE,
        "knowledge/codes.md": CODES, "knowledge/_synonyms.txt": SYNONYMS}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs=DOCS)
    build(load_config(root), BuildOptions(progress=False))
    return root


def assert_refused(results: list[dict], *words: str) -> None:
    for r in results:
        assert "error" in r and all(w in r["error"] for w in words), (r, words)


# 1. names in the other language ---------------------------------------------------------

@pytest.mark.parametrize("inputs", [
    {"temperature": "24", "humidity": "90%", "rain days": "2"},
    {"Temperature": "24", "relative humidity": "90", "连续降雨天数": "2"},
    {"温度": "24", "湿度": "90", "rain days": "2"},
])
def test_a_chinese_table_takes_the_english_names_its_synonyms_give(repo, monkeypatch, inputs):
    for r in three_ways(repo, monkeypatch, "scab.md", inputs):
        assert r["status"] == "match" and r["outputs"] == [{"风险等级": "高"}], r


def test_an_english_table_takes_a_chinese_name_and_a_chinese_value(repo, monkeypatch):
    for r in three_ways(repo, monkeypatch, "vents.md",
                        {"温度": "24", "Humidity": "90", "Growing": "大棚"}):
        assert r["outputs"] == [{"Action": "open the vents"}], r
    # a place word its synonyms make 露地 (露天, 大田, open field) is that value
    for place in ("露天", "大田", "open field"):
        for r in three_ways(repo, monkeypatch, "vents.md",
                            {"Temperature": "24", "Humidity": "90", "Growing": place}):
            assert r["outputs"] == [{"Action": "no vents to set"}], (place, r)


def test_a_name_no_synonym_gives_is_refused_naming_the_inputs(repo, monkeypatch):
    results = three_ways(repo, monkeypatch, "scab.md",
                         {"air": "24", "humidity": "90", "rain days": "2"})
    assert_refused(results, "no column 'air'", "温度(℃), 相对湿度(%), 连续降雨天数")


def test_a_part_two_inputs_share_is_refused_naming_both():
    table = build_table(["棚内温度(℃)", "棚外温度(℃)", "措施"], [["<20", "<10", "关窗"]],
                        decision="inputs=棚内温度,棚外温度")
    assert table is not None
    with pytest.raises(TableError, match=r"no column '温度': it names 2 inputs "
                                         r"\(棚内温度\(℃\), 棚外温度\(℃\)\); give the whole name"):
        match_rules(table, {"温度": "18", "棚外温度": "5"})
    with pytest.raises(TableError, match="no column '室外温度'"):
        match_rules(table, {"棚内温度": "18", "室外温度": "5"})


# 2. values no such quantity can be ----------------------------------------------------------

@pytest.mark.parametrize(("inputs", "words"), [
    ({"温度": "24", "湿度": "130%", "连续降雨天数": "2"},
     ("相对湿度(%)='130%'", "impossible: this column takes 0–100 %")),
    ({"温度": "-300度", "湿度": "90", "连续降雨天数": "2"},
     ("温度(℃)='-300度'", "impossible: this column takes -273.15 °C or more")),
    ({"温度": "24", "湿度": "90", "连续降雨天数": "-2"},
     ("连续降雨天数='-2'", "impossible: this column takes 0 天 or more")),
    ({"温度": "2026-02-30", "湿度": "90", "连续降雨天数": "2"},
     ("温度(℃)='2026-02-30'", "no such date (2026-02 has 28 days)")),
])
def test_an_impossible_value_is_refused_naming_what_the_column_takes(repo, monkeypatch,
                                                                       inputs, words):
    assert_refused(three_ways(repo, monkeypatch, "scab.md", inputs), *words)


@pytest.mark.parametrize(("value", "words"), [
    ("-500", "impossible: this column takes -459.67 °F or more"),
    ("2026/13/01", "no such date (there is no month 13)"),
])
def test_impossible_values_in_an_english_table(value, words):
    table = build_table(["Seal temperature (°F)", "Action"], [["<140", "run"], ["≥140", "stop"]],
                        decision="inputs=Seal temperature")
    assert table is not None
    with pytest.raises(TableError, match=words.replace("(", r"\(").replace(")", r"\)")):
        match_rules(table, {"Seal temperature": value})


def test_a_percent_column_whose_bounds_pass_100_takes_values_beyond_it():
    table = build_table(["增长率(%)", "措施"], [["≤100", "观察"], [">100", "加密调查"]],
                        decision="inputs=增长率")
    assert table is not None
    assert match_rules(table, {"增长率": "130%"}).outputs == ({"措施": "加密调查"},)
    share = build_table(["病叶率(%)", "措施"], [["<5", "观察"], ["≥5", "喷药"]],
                        decision="inputs=病叶率")
    assert share is not None
    with pytest.raises(TableError, match="takes 0–100 %"):
        match_rules(share, {"病叶率": "105"})


def test_a_value_no_row_of_a_text_column_names_is_refused_naming_its_values():
    table = build_table(["生育期", "温度(℃)", "措施"],
                        [["苗期", "<15", "观察"], ["拔节期", "≥15", "喷药"], ["扬花期", "*", "立即喷药"]],
                        decision="inputs=生育期,温度")
    assert table is not None
    with pytest.raises(TableError, match=r"生育期='灌浆期': not a value this column takes "
                                         r"\(its rows take: 苗期, 拔节期, 扬花期\)"):
        match_rules(table, {"生育期": "灌浆期", "温度": "20"})
    assert match_rules(table, {"生育期": "扬花期", "温度": "20"}).outputs == ({"措施": "立即喷药"},)


# 3. ranges and rough values -------------------------------------------------------------------

@pytest.mark.parametrize("value", ["22-25度", "22~25℃", "22～25℃", "22到25度", "二十五度",
                                   "二十二至二十五度", "25度以上"])
def test_a_range_one_row_holds_or_a_chinese_numeral_is_answered(repo, monkeypatch, value):
    for r in three_ways(repo, monkeypatch, "scab.md",
                        {"温度": value, "湿度": "90", "连续降雨天数": "两天"}):
        assert r["status"] == "match" and r["outputs"] == [{"风险等级": "高"}], r


@pytest.mark.parametrize(("inputs", "rows"), [
    ({"温度": "18-25度", "湿度": "90", "连续降雨天数": "2"}, "row 3 (15-20 → 中), row 6 (>20 → 高)"),
    ({"温度": "25", "湿度": "80~90%", "连续降雨天数": "2"}, "row 5 (<85 → 中), row 6 (≥85 → 高)"),
    ({"温度": "25", "湿度": "90", "连续降雨天数": "2-5"}, "row 6 (≤3 → 高), row 7 (>3 → 极高)"),
])
def test_a_range_rows_split_names_the_rows_rather_than_pick_one(repo, monkeypatch, inputs, rows):
    assert_refused(three_ways(repo, monkeypatch, "scab.md", inputs),
                   f"a range over more than one rule: {rows} each apply to part of it; "
                   "give one value")


@pytest.mark.parametrize(("value", "note"), [
    ("25℃左右", "(approximate value: 温度(℃) 25℃左右)"),
    ("约25度", "(approximate value: 温度(℃) 约25度)"),
    ("about 25 C", "(approximate value: 温度(℃) about 25 C)"),
    ("20度左右", "(approximate value: 温度(℃) 20度左右; the answer depends on the exact "
                "value: 温度(℃) 15-20)"),
])
def test_a_rough_value_is_answered_and_said_to_be_rough(repo, monkeypatch, value, note):
    for r in three_ways(repo, monkeypatch, "scab.md",
                        {"温度": value, "湿度": "90", "连续降雨天数": "2"}):
        assert r["status"] == "match" and r["message"].endswith(note), r


def test_a_range_in_another_unit_is_converted_or_refused():
    table = build_table(["Filter age (months)", "Action"], [["≤12", "keep"], [">12", "replace"]],
                        decision="inputs=Filter age")
    assert table is not None
    assert match_rules(table, {"Filter age": "2-3 years"}).outputs == ({"Action": "replace"},)
    heat = build_table(["温度(℃)", "措施"], [["<30", "正常"], ["≥30", "遮阴"]], decision="inputs=温度")
    assert heat is not None
    with pytest.raises(TableError, match="give the value in °C"):
        match_rules(heat, {"温度": "70-80°F"})


# 4. two values at once ----------------------------------------------------------------------

@pytest.mark.parametrize("value", ["E17和E71", "E17, E71", "E17、E71", "E17/E71"])
def test_two_codes_at_once_are_refused_each_to_be_evaluated(repo, monkeypatch, value):
    assert_refused(three_ways(repo, monkeypatch, "codes.md", {"故障码": value}),
                   "2 values (E17, E71): a table answers one value at a time; evaluate each "
                   "(故障码=E17, then 故障码=E71)")


def test_one_code_and_an_unknown_code(repo, monkeypatch):
    for r in three_ways(repo, monkeypatch, "codes.md", {"故障码": "e71"}):
        assert r["outputs"] == [{"处理": "检查编码器电缆 | 接头"}], r  # \\| is a pipe in a cell
    assert_refused(three_ways(repo, monkeypatch, "codes.md", {"故障码": "E99"}),
                   "故障码='E99': not a value this column takes (its rows take: E17, E21, E71)")


def test_two_numbers_at_once_are_refused():
    table = build_table(["温度(℃)", "措施"], [["<30", "正常"], ["≥30", "遮阴"]], decision="inputs=温度")
    assert table is not None
    with pytest.raises(TableError, match=r"2 values \(18, 32\)"):
        match_rules(table, {"温度": "18和32"})
    assert match_rules(table, {"温度": "1,000"}).outputs == ({"措施": "遮阴"},)  # one number


# 5. tables as editors leave them -----------------------------------------------------------

MERGED = build_table(["温度(℃)", "湿度(%)", "风险"],
                     [["15-20", "<85", "低"], ["", "≥85", "中"], [">20", "<85", "中"],
                      ["", "≥85", "高"]], decision="inputs=温度,湿度")


def test_an_empty_cell_under_a_filled_one_that_decides_the_row_is_refused():
    assert MERGED is not None
    with pytest.raises(TableError, match=r"row 2 leaves 温度\(℃\) empty under '15-20' \(row 1\); "
                                         r"an empty cell means any value, not \"as above\", so "
                                         r"rows 2, 4 all match"):
        match_rules(MERGED, {"温度": "25", "湿度": "90"})
    # where "as above" and "any value" give the same row, the row is the answer
    assert match_rules(MERGED, {"温度": "18", "湿度": "90"}).outputs == ({"风险": "中"},)
    assert match_rules(MERGED, {"温度": "25", "湿度": "80"}).outputs == ({"风险": "中"},)


def test_a_blank_row_is_no_rule(tmp_path):
    path = tmp_path / "t.md"
    path.write_text("# 表\n\n<!-- decision: inputs=温度(℃); outputs=风险 -->\n"
                    "| 温度(℃) | 风险 |\n|---|---|\n| <15 | 低 |\n| | |\n| >20 | 高 |\n",
                    encoding="utf-8")
    assert evaluate_table(path, None, {"温度": "18"}).status == "no_match"
    assert evaluate_table(path, None, {"温度": "25"}).outputs == ({"风险": "高"},)


def test_a_blank_line_that_cuts_an_annotated_table_is_an_error(tmp_path):
    path = tmp_path / "t.md"
    path.write_text("# 表\n\n<!-- decision: inputs=温度(℃); outputs=风险 -->\n"
                    "| 温度(℃) | 风险 |\n|---|---|\n| <15 | 低 |\n\n| ≥15 | 高 |\n",
                    encoding="utf-8")
    with pytest.raises(TableError, match="the blank line 7 ends the table, so the row at line 8 "
                                         "is no rule: remove the blank line"):
        evaluate_table(path, None, {"温度": "20"})


def test_kb_check_reads_a_blank_row_as_no_rule(tmp_path):
    """The blank row was reported overlapping every row, and hid the gap it leaves."""
    path = tmp_path / "t.md"
    path.write_text("# 表\n\n<!-- decision: inputs=温度(℃); outputs=风险 -->\n"
                    "| 温度(℃) | 风险 |\n|---|---|\n| <15 | 低 |\n| | |\n| >20 | 高 |\n",
                    encoding="utf-8")
    assert table_findings(path) == [(4, "decision-gap", "表: no row covers 温度(℃) ≥15 and ≤20")]


@pytest.mark.parametrize(("value", "row"), [
    ("零下5度", "低"), ("负5", "低"), ("零下五度", "低"), ("twenty-five C", "高"),
    ("about twenty five degrees", "高"), ("fifteen to eighteen", "中"),
])
def test_below_zero_words_and_english_number_words_are_numbers(value, row):
    table = build_table(["温度(℃)", "风险"], [["<15", "低"], ["15-20", "中"], [">20", "高"]],
                        decision="inputs=温度")
    assert table is not None
    assert match_rules(table, {"温度": value}).outputs == ({"风险": row},)


def test_the_table_form_refuses_in_the_page_language(repo):
    """The web page's table form takes the same path: its refusals read in Chinese."""
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        def form(**values: str):
            return client.get("/table/knowledge/scab.md", params={"table": "1", "go": "1",
                                                                   **values})
        wet = form(**{"in.0": "24", "in.1": "130%", "in.2": "2"})
        spans = form(**{"in.0": "18-25度", "in.1": "90", "in.2": "2"})
        rough = form(**{"in.0": "约25度", "in.1": "90", "in.2": "2"})
    assert wet.status_code == 400 and "不可能的值：这一列的取值范围是0–100 %" in wet.text
    assert spans.status_code == 400 and \
        "这个范围跨了多条规则：第 3 行（15-20 → 中）、第 6 行（&gt;20 → 高）各管其中一部分" in spans.text
    assert rough.status_code == 200 and "25 满足 &gt; 20" in rough.text


def test_a_range_written_backwards_is_the_same_range():
    table = build_table(["温度(℃)", "风险"], [["<15", "低"], ["15-20", "中"], [">20", "高"]],
                        decision="inputs=温度")
    assert table is not None
    assert match_rules(table, {"温度": "25-22度"}).outputs == ({"风险": "高"},)
    with pytest.raises(TableError, match=r"row 2 \(15-20 → 中\), row 3 \(>20 → 高\)"):
        match_rules(table, {"温度": "25-18度"})
