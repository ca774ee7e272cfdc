"""Two ways a question writes a value the tables used to leave unread: ``22 degrees`` (no C
or F) for a column of ℃ or °F, and a count noun between a number and its unit of time
(``4 rainy days``, 4个雨天) naming what the number counts — in Chinese and in English."""

from __future__ import annotations

from pathlib import Path

from kbtools.decision import build_table
from kbtools.decision.documents import decision_tables
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import find_inputs, read_inputs

SCAB = build_table(["温度(℃)", "相对湿度(%)", "连续降雨天数", "风险等级"],
                   [["<15", "*", "*", "低"], ["15-20", "<85", "*", "低"], ["≥15", "≥85", "≤3", "中"],
                    ["≥15", "≥85", ">3", "高"]],
                   decision="inputs=温度(℃),相对湿度(%),连续降雨天数; outputs=风险等级")
RAIN = build_table(["Temperature (°C)", "Humidity (%)", "Rain days", "Dry days", "Risk"],
                   [["<15", "*", "*", "*", "low"], ["≥15", "≥80", ">3", "<5", "high"],
                    ["≥15", "<80", "≤3", "≥5", "medium"]],
                   decision="inputs=Temperature (°C),Humidity (%),Rain days,Dry days; "
                            "outputs=Risk")
SEAL = build_table(["Seal temperature (°F)", "Action"], [["<150", "run"], ["≥150", "stop"]],
                   decision="inputs=Seal temperature (°F); outputs=Action")
KNOWLEDGE = Path(__file__).resolve().parents[1] / "knowledge"
LOAD = build_table(["Load (%)", "Action"], [["<80", "run"], ["≥80", "stop"]],
                   decision="inputs=Load (%); outputs=Action")


def test_degrees_alone_are_the_degrees_of_a_temperature_column():
    assert RAIN is not None and SEAL is not None and LOAD is not None and SCAB is not None
    assert find_inputs("it was 22 degrees", RAIN) == {"Temperature (°C)": "22"}
    assert find_inputs("temperature 22 degrees", RAIN) == {"Temperature (°C)": "22"}
    assert find_inputs("it is 160 degrees, stop?", SEAL) == {"Seal temperature (°F)": "160"}
    assert find_inputs("温度 22 degrees", SCAB)["温度(℃)"] == "22"
    # no temperature column: degrees are no value of it (an angle, or a mistake); named
    # for it, the table refuses them saying why (session 44: they were dropped unsaid)
    assert find_inputs("it is 90 degrees", LOAD) == {}
    assert find_inputs("load 90 degrees", LOAD) == {"Load (%)": "90degrees"}
    ev = evaluate_inputs("d.md", 1, LOAD, find_inputs("load 90 degrees", LOAD))
    assert ev.status == "no_match" and "it is in 'degrees', the column in '%'" in ev.message
    # a scale named is that scale: 22 °F against a ℃ column is refused, not read as 22
    assert find_inputs("22 degrees fahrenheit", RAIN) != {"Temperature (°C)": "22"}


def test_a_count_noun_names_the_column_it_counts_in_english():
    assert RAIN is not None
    q = "it was 22 degrees, 90% humidity, 4 rainy days and 6 dry days"
    found = find_inputs(q, RAIN)
    assert found == {"Temperature (°C)": "22", "Humidity (%)": "90", "Rain days": "4",
                     "Dry days": "6"}
    ev = evaluate_inputs("d.md", 1, RAIN, found)
    assert ev.status == "no_match"  # 4 rainy days but 6 dry ones: no row; nothing guessed
    found = find_inputs("temperature 22 degrees and 4 rainy days, 2 dry days, humidity 90%",
                        RAIN)
    assert found == {"Temperature (°C)": "22", "Rain days": "4", "Dry days": "2",
                     "Humidity (%)": "90"}
    assert evaluate_inputs("d.md", 1, RAIN, found).outputs == {"Risk": "high"}
    # what names no column: missing; a bound is given as the table reads it, without the
    # words naming what it counts; ``Rain days`` is in days (its last word): 4 weeks convert
    assert "Rain days" not in find_inputs("4 sunny days", RAIN)
    assert find_inputs("4 rainy days or more", RAIN) == {"Rain days": "4 days or more"}
    assert find_inputs("4 rainy weeks", RAIN) == {"Rain days": "4weeks"}
    assert find_inputs("4 more days", RAIN) == {}


def test_a_count_noun_names_the_column_it_counts_in_chinese():
    assert SCAB is not None
    found = find_inputs("温度22度，湿度90%，有4个雨天", SCAB)
    assert found == {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}
    assert evaluate_inputs("d.md", 1, SCAB, found).outputs == {"风险等级": "高"}
    # a bound of the count is given as written, which the table reads (≥4)
    found = find_inputs("温度22度，湿度90%，4个阴雨天以上", SCAB)
    assert found["连续降雨天数"] == "4个阴雨天以上"
    assert evaluate_inputs("d.md", 1, SCAB, found).outputs == {"风险等级": "高"}  # >3
    for q in ("温度22度，湿度90%，4个晴天",
              "温度22度，湿度90%，已经4个工作日", "温度22度，湿度90%，20多天",
              "温度22度，湿度90%，今年第3个雨天"):
        assert "连续降雨天数" not in find_inputs(q, SCAB), q


def test_the_bundled_wheat_scab_table_reads_degrees_and_count_nouns():
    table = decision_tables(KNOWLEDGE / "crops" / "wheat-scab.md")[0]
    found = find_inputs("温度22度，湿度90%，已经有4个雨天了，赤霉病风险多大？", table)
    assert found == {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}
    assert evaluate_inputs("wheat-scab.md", 1, table, found).outputs["风险等级"] == "极高"
    q = "it was 22 degrees, humidity 90%, 4 rainy days"
    # rainy: not known; humidity names 相对湿度 as a part of its built-in synonym
    # ``relative humidity`` (`wording.ABBREVIATIONS`), as it names ``Relative humidity (%)``
    assert find_inputs(q, table) == {"温度(℃)": "22", "相对湿度(%)": "90"}
    assert find_inputs("it was 22 degrees, soil humidity 90%, 4 rainy days", table) == \
        {"温度(℃)": "22"}  # another thing's humidity: no word names 相对湿度
    assert find_inputs(q, table, {"湿度": ["humidity"]}) == {"温度(℃)": "22", "相对湿度(%)": "90"}
    for synonyms in ({"连续降雨天数": ["rainy days"]}, {"降雨": ["rain"]}):
        assert find_inputs(q, table, synonyms)["连续降雨天数"] == "4", synonyms
    assert "连续降雨天数" not in find_inputs(q, table, {"连续降雨天数": ["wet days"]})


WET = build_table(["连续降雨天数", "相对湿度(%)", "措施"],
                  [["<3", "*", "观察"], [">=3", ">=85", "喷药"], [">=3", "<85", "排水"]],
                  decision="inputs=连续降雨天数,相对湿度(%); outputs=措施")


def test_a_count_after_rain_with_no_unit_is_the_days_it_rained_said_so():
    """下雨3, 下雨三, ``it rained 3`` (a count after the word of what fell, no unit): the days
    it fell, as 下雨3天 says, given the column counting them and said as read; never another
    column's value, nor a count after another weather word (大风3: a wind's force)."""
    assert WET is not None
    for question, typed in (("下雨3，湿度90%", "下雨3"), ("湿度90%，下雨三", "下雨三"),
                            ("连续阴雨3 湿度90", "连续阴雨3")):
        given = read_inputs(question, WET)
        assert given.values["连续降雨天数"] == "3", question
        assert given.readings["连续降雨天数"] == (typed, "3 天"), question
    ev = evaluate_inputs("d.md", 1, WET, read_inputs("下雨三，湿度90%", WET).values,
                         readings=read_inputs("下雨三，湿度90%", WET).readings)
    assert ev.outputs == {"措施": "喷药"} and "下雨三 as 3 天" in ev.message, ev.message
    given = read_inputs("it rained 3, humidity 90%, temperature 22 C", RAIN)
    assert given.values == {"Temperature (°C)": "22", "Humidity (%)": "90", "Rain days": "3"}
    assert given.readings["Rain days"] == ("rained 3", "3 days")
    assert find_inputs("大风3，湿度90%", WET) == {"相对湿度(%)": "90"}
    assert find_inputs("下雪3，湿度90%", WET) == {"相对湿度(%)": "90"}  # no rain
    assert find_inputs("wind 3, humidity 90%", RAIN) == {"Humidity (%)": "90"}
    # no column of the days it fell: the count is no other column's value
    assert find_inputs("下雨3，温度22度", build_table(
        ["温度(℃)", "相对湿度(%)", "措施"], [["<20", "*", "a"], [">=20", "*", "b"]],
        decision="inputs=温度(℃),相对湿度(%); outputs=措施")) == {"温度(℃)": "22"}
