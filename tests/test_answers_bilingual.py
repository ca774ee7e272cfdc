"""Decision tables asked about in the other language: a Chinese question on a table whose
inputs are named in English, an English one on a Chinese table. A value is bound to an input
only by its name, a synonym from the knowledge's synonyms file, or a unit only one input is
in — and the evaluation names the input each value went to."""

from __future__ import annotations

import pytest
from kbfixtures import GOOD_FM

from kbtools.decision import build_table, column_key
from kbtools.index.synonyms import Synonyms
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import find_inputs

SYNONYMS = {column_key(t): o for t, o in Synonyms(
    (("软管", "hose"), ("滤芯", "滤心", "filter element"), ("温度", "气温"))).mapping().items()}
HOSE = build_table(["Hose age (years)", "Operating temperature (°C)", "Action"],
                   [["<5", "<80", "inspect"], ["<5", ">=80", "replace"], [">=5", "*", "replace"]],
                   decision="inputs=Hose age (years),Operating temperature (°C); outputs=Action")
FILTER = build_table(["Filter age (years)", "Action"], [["<5", "keep"], [">=5", "replace"]],
                     decision="inputs=Filter age (years); outputs=Action")
BOTH = build_table(["Hose age (years)", "Filter age (years)", "Action"],
                   [["<5", "<2", "keep"], [">=5", "*", "hose"], ["<5", ">=2", "filter"]],
                   decision="inputs=Hose age (years),Filter age (years); outputs=Action")
ZH = build_table(["软管使用年限(年)", "处理"], [["<5", "检查"], ["≥5", "更换"]],
                 decision="inputs=软管使用年限(年); outputs=处理")


def test_a_chinese_question_on_an_english_table_is_evaluated_and_names_the_input():
    """软管用了5年 gave no value: 软管用 shares no character with 'Hose age', so the one
    years column refused the one number in years."""
    assert HOSE is not None
    found = find_inputs("软管用了5年，要换吗？", HOSE)
    assert found == {"Hose age (years)": "5"}
    ev = evaluate_inputs("m.md", 1, HOSE, found)  # any temperature: replace
    assert (ev.status, ev.row, ev.outputs) == ("match", 3, {"Action": "replace"})
    ev = evaluate_inputs("m.md", 1, HOSE, find_inputs("软管用了3年，要换吗？", HOSE))
    assert ev.status == "missing_inputs" and ev.missing == ("Operating temperature (°C)",)
    found = find_inputs("软管用了3年，油温85度", HOSE)
    assert found == {"Hose age (years)": "3", "Operating temperature (°C)": "85"}
    ev = evaluate_inputs("m.md", 1, HOSE, found)
    assert (ev.status, ev.row, ev.outputs) == ("match", 2, {"Action": "replace"})
    assert ev.inputs == found  # what the answer shows: the input each value was bound to


def test_an_english_question_on_a_chinese_table_is_evaluated():
    assert ZH is not None
    for q in ("the hose is 6 years old, replace?", "hose used 6 years", "6 years in service"):
        found = find_inputs(q, ZH)
        assert found == {"软管使用年限(年)": "6"}, q
        assert evaluate_inputs("m.md", 1, ZH, found).outputs == {"处理": "更换"}


def test_synonyms_say_which_input_a_word_of_the_other_language_names():
    assert FILTER is not None and BOTH is not None and ZH is not None
    # the synonyms file knows 软管 is the hose: not the filter, whose column it was the
    # only one in years
    assert find_inputs("软管用了5年", FILTER, SYNONYMS) == {}
    assert find_inputs("滤芯用了5年", FILTER, SYNONYMS) == {"Filter age (years)": "5"}
    # a synonym of a word of the header names it: 软管 for 'Hose age', with two years columns
    assert find_inputs("软管5年", BOTH, SYNONYMS) == {"Hose age (years)": "5"}
    assert find_inputs("软管5年", BOTH) == {}  # by the unit alone: two columns, not known
    assert find_inputs("filter element 6 years", ZH, SYNONYMS) == {}
    assert find_inputs("hose 6 years", ZH, SYNONYMS) == {"软管使用年限(年)": "6"}


HOSE_DOC = GOOD_FM.replace("Generated", "Hydraulic hose replacement") + """
# Hydraulic hose replacement

Replace hydraulic hoses by age, whatever they look like.

<!-- decision: inputs=Hose age (years); outputs=Action -->
| Hose age (years) | Action |
|---|---|
| <3 | Inspect at every service |
| 3-5 | Inspect monthly, plan replacement |
| >5 | Replace the hose |
"""


def test_kb_query_answers_a_chinese_question_from_an_english_table(tmp_path):
    """The known gap end to end: 软管用了6年，要换吗？ found the table (its synonyms file
    says 软管 = hose) but gave no evaluation."""
    from hostile import make_repo

    from kbtools.api import open_index, search
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config
    repo = make_repo(tmp_path, docs={"knowledge/hose.md": HOSE_DOC,
                                     "knowledge/_synonyms.txt": "hose = 软管\n"})
    build(load_config(repo), BuildOptions(progress=False))
    index = open_index(repo / "dist")
    top = search(index, "软管用了6年，要换吗？", k=3).results[0]
    ev = top.evaluation
    assert ev is not None and ev["status"] == "match", top
    assert ev["inputs"] == {"Hose age (years)": "6"}  # the input the value was bound to
    assert ev["outputs"] == [{"Action": "Replace the hose"}]


RUN = build_table(["Run time (hours)", "Action"], [["<4", "ok"], [">=4", "check"]],
                  decision="inputs=Run time (hours); outputs=Action")


@pytest.mark.parametrize(("question", "value", "action"), [
    ("运行了5个小时", "5", "check"), ("运行了3个小时", "3", "ok"), ("运行了三个小时", "3", "ok"),
    ("运行5小时", "5", "check")])
def test_a_measure_word_between_a_number_and_its_unit_keeps_the_unit(question, value, action):
    """5个小时 (with the measure word 个) carried no unit: the one hours column of an English
    table did not get it, though 5小时 and 三个小时 did."""
    assert RUN is not None
    found = find_inputs(question, RUN)
    assert found == {"Run time (hours)": value}
    ev = evaluate_inputs("m.md", 1, RUN, found)
    assert (ev.status, ev.outputs) == ("match", {"Action": action})


FILTER_MONTHS = build_table(["Filter age (months)", "Action"], [["<18", "keep"], [">=18", "replace"]],
                            decision="inputs=Filter age (months); outputs=Action")
RUN_H = build_table(["Runtime (h)", "Action"], [["<48", "ok"], [">=48", "check"]],
                    decision="inputs=Runtime (h); outputs=Action")
ZH_MONTHS = build_table(["滤芯使用时间(月)", "处理"], [["<18", "保留"], ["≥18", "更换"]],
                        decision="inputs=滤芯使用时间(月); outputs=处理")


@pytest.mark.parametrize(("table", "question", "value", "reason"), [
    (FILTER_MONTHS, "滤芯用了2年", "2年", "2年 = 24 months; 24 is ≥ 18"),
    (FILTER_MONTHS, "2 years", "2years", "2years = 24 months; 24 is ≥ 18"),
    (FILTER_MONTHS, "it has been 2 years", "2years", "2years = 24 months; 24 is ≥ 18"),
    (RUN_H, "运行了3天", "3天", "3天 = 72 h; 72 is ≥ 48"),
    (RUN_H, "3 days", "3days", "3days = 72 h; 72 is ≥ 48"),
    (ZH_MONTHS, "滤芯用了2年", "2年", "2年 = 24 月; 24 is ≥ 18"),  # (月): months
    (ZH_MONTHS, "filter used 2 years", "2years", "2years = 24 月; 24 is ≥ 18"),
])
def test_a_value_in_another_unit_of_the_one_column_of_its_family_is_converted(
        table, question, value, reason):
    """By its unit alone a number went only to a column in that very unit: 滤芯用了2年 left
    an English table's one months column missing though 'filter age 2 years' (named) was
    converted to 24 months; the factor is as exact either way."""
    assert table is not None
    found = find_inputs(question, table)
    assert found == {table.header[0]: value}
    ev = evaluate_inputs("m.md", 1, table, found)
    assert ev.status == "match" and ev.cells[0]["reason"] == reason


def test_a_value_of_a_family_two_columns_are_in_is_bound_to_neither():
    table = build_table(["Runtime (h)", "Rest (days)", "Action"], [["*", "*", "ok"]],
                        decision="inputs=Runtime (h),Rest (days); outputs=Action")
    assert table is not None
    assert find_inputs("运行了3周", table) == {}
    assert find_inputs("3 weeks", table) == {}


WEATHER = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                      [["<25", "<80", "wait"], [">=25", ">=80", "spray"], ["*", "*", "watch"]],
                      decision="inputs=Temperature (°C),Humidity (%); outputs=Action")
RISK = build_table(["温度(℃)", "相对湿度(%)", "风险"], [["<15", "*", "低"], ["≥15", "≥85", "高"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=风险")
HUMIDITY = {"湿度": ["humidity"]}


@pytest.mark.parametrize(("table", "question", "synonyms", "expected"), [
    # 病叶率 (the diseased-leaf rate) named the 3: no humidity, though the one column in %
    (WEATHER, "病叶率3%，温度26度", {}, {"Temperature (°C)": "26"}),
    (WEATHER, "3%的病叶，温度26度", {}, {"Temperature (°C)": "26"}),
    (WEATHER, "3% of the leaves are spotted, 26 C", {}, {"Temperature (°C)": "26"}),
    (RISK, "disease rate 3%, 温度22度", {}, {"温度(℃)": "22"}),
    (RISK, "温度22度，3%的病叶", {}, {"温度(℃)": "22"}),
    # a word the synonyms tie to the header, or one of its own, names it; so does none
    (WEATHER, "湿度85%，温度26度", HUMIDITY, {"Humidity (%)": "85", "Temperature (°C)": "26"}),
    (WEATHER, "85%的湿度，温度26度", HUMIDITY, {"Humidity (%)": "85", "Temperature (°C)": "26"}),
    (WEATHER, "85% humidity, 26 C", {}, {"Humidity (%)": "85", "Temperature (°C)": "26"}),
    (WEATHER, "26度，85%", {}, {"Humidity (%)": "85", "Temperature (°C)": "26"}),
    (RISK, "humidity 85%, 温度22度", HUMIDITY, {"相对湿度(%)": "85", "温度(℃)": "22"}),
    # 空气湿度 is no 相对湿度 without a synonym, whichever side of the value it stands on
    # (as 空气湿度 90%: test_answers.test_synonyms_name_inputs); with one, it is
    (RISK, "温度22度，85%的空气湿度", {}, {"温度(℃)": "22"}),
    (RISK, "温度22度，85%的空气湿度", {"相对湿度": ["空气湿度"]},
     {"相对湿度(%)": "85", "温度(℃)": "22"}),
    # the word unknown (no synonym): not taken as naming the one column in %
    (WEATHER, "湿度85%，温度26度", {}, {"Temperature (°C)": "26"}),
    # the noun right after the %, with no 的 or "of" between, says what it is a fraction of
    # (3%病叶 gave Humidity 3)
    (WEATHER, "3%病叶，温度26度", {}, {"Temperature (°C)": "26"}),
    (RISK, "温度22度，3%病叶", {}, {"温度(℃)": "22"}),
    (WEATHER, "3% leaves spotted, 26 C", {}, {"Temperature (°C)": "26"}),
    (WEATHER, "26 C, 3% diseased leaves", {}, {"Temperature (°C)": "26"}),
    (RISK, "温度22度，85%空气湿度", {}, {"温度(℃)": "22"}),
    (WEATHER, "85% relative humidity, 26 C", {}, {"Humidity (%)": "85", "Temperature (°C)": "26"}),
    # … but what starts a clause, or the name of the next number, is no such noun
    (WEATHER, "26度，85%要不要喷药", {}, {"Humidity (%)": "85", "Temperature (°C)": "26"}),
    (RISK, "85%温度22度", {}, {"相对湿度(%)": "85", "温度(℃)": "22"}),
    (WEATHER, "26 C, 85% what should I do", {}, {"Humidity (%)": "85", "Temperature (°C)": "26"}),
    (WEATHER, "85% and 26 C", {}, {"Humidity (%)": "85", "Temperature (°C)": "26"}),
])
def test_a_percentage_said_of_another_thing_is_no_value_of_the_percent_column(
        table, question, synonyms, expected):
    """病叶率3% gave an English table's one % column, Humidity, the value 3: a number in %
    (a unit many quantities are measured in) went there by its unit alone, whatever the
    question said it was a rate of."""
    assert table is not None
    assert find_inputs(question, table, synonyms) == expected


RUN_HOURS = build_table(["运行小时", "保养项目"], [["<500", "检查"], ["≥500", "换油"]],
                        decision="inputs=运行小时; outputs=保养项目")


@pytest.mark.parametrize("text", ["2026-03-14 08:00周期 1060 注射完成", "3天气温高，运行了", "5日志里报警",
                                  "2年级学生"])
def test_a_one_character_unit_that_begins_a_longer_word_is_no_unit(text):
    """08:00周期 (a log line's time, then "cycle") became 00 weeks = 0 hours of a column of
    hours once a unit converts to another of its family: the 周 of 周期 is no week, nor
    the 天 of 天气, the 日 of 日志, the 年 of 年级."""
    assert RUN_HOURS is not None
    assert find_inputs(text, RUN_HOURS) == {}
    assert find_inputs("运行了2周", RUN_HOURS) == {"运行小时": "2周"}  # a week is one
