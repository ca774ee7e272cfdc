"""What a duration in a question is said of (session 42): the time a thing ran or was used
(``the machine ran 2100 hours``, ``the pump has 300 hours on it``, 机器运行了2100小时) is no
value of a column counting something else (连续降雨天数, ``Consecutive rain days``), whatever
script each is written in: the answer says which column it is not (`Inputs.others`), rather
than read 2100 hours as rainy days; it still fills a column of a use time (运行小时,
``Operating hours``, ``Hose age``). And an English header whose last word is its unit
(``Operating hours``, ``Rain days``) converts a value said in another unit of time, as
运行小时 and 连续降雨天数 do (4 days run are 96 hours, not 4).

A time of day said before a temperature with no name (夜里负5度, 晚上零下3度, 今早10度) says when
it was read, not of what: it fills the one column of temperature, unless that column is of
another time (日均温: a day's mean; 夜温 is named by 夜里 as before). 夜里 is no place (not
"said of 夜里" as 锅炉里 is a boiler's).
"""

from __future__ import annotations

import pytest
from kbfixtures import bare_table, scab_table

from kbtools.decision import build_table
from kbtools.decision.matching import match_rules
from kbtools.query.inputs import read_inputs

SCAB = scab_table(("小麦赤霉病监测与防控操作规程", "3.2 风险等级判定表"))
RAIN_EN = build_table(["Temperature (°C)", "Consecutive rain days", "Risk"],
                      [["<15", "*", "low"], ["≥15", "≤3", "medium"], ["≥15", ">3", "high"]],
                      decision="inputs=Temperature (°C),Consecutive rain days; outputs=Risk")


@pytest.mark.parametrize(("question", "value", "thing"), [
    ("temperature 22, humidity 90%, the machine ran 2100 hours", "2100hours", "machine ran"),
    ("the pump has 300 hours on it, 22 C", "300hours", "pump has"),
    ("22度，90%，the engine has run 2100 hours", "2100hours", "engine has"),
    ("this pump logged 300 hrs", "300hrs", "pump logged"),
    ("the tractor worked 5 days straight", "5days", "tractor worked"),
    ("温度22度，机器运行了2100小时", "2100小时", "机器运行"),
    ("泵已经运转了300个小时", "300小时", "泵已经运转"),
    ("设备开机48小时，湿度90%", "48小时", "设备开机")])
@pytest.mark.parametrize("table", [SCAB, RAIN_EN], ids=["zh", "en"])
def test_a_things_run_time_is_no_count_of_rainy_days(question, value, thing, table):
    column = table.header[table.inputs[-1]] if table is RAIN_EN else "连续降雨天数"
    got = read_inputs(question, table)
    assert column not in got.values and got.others[column] == (value, thing), got


@pytest.mark.parametrize("question", [
    "temperature 22, it rained for 4 days", "4 days", "rain 4 days", "for 4 days",
    "about 4 days", "it has been 4 days", "连续下雨4天", "已经连续下了4天雨", "下雨已经4天了"])
@pytest.mark.parametrize("table", [SCAB, RAIN_EN], ids=["zh", "en"])
def test_a_duration_said_of_no_use_still_fills_the_one_column_of_days(question, table):
    column = table.header[table.inputs[-1]] if table is RAIN_EN else "连续降雨天数"
    assert read_inputs(question, table).values.get(column) == "4"


@pytest.mark.parametrize("header", ["运行小时", "Operating hours", "Run time (h)", "Hours (h)",
                                    "累计运行时长(h)", "开机时长(小时)"])
@pytest.mark.parametrize("question", ["the machine ran 2100 hours", "机器运行了2100小时",
                                      "the pump has 2100 hours on it", "设备开机2100小时"])
def test_a_run_time_fills_a_column_of_use_time(header, question):
    got = read_inputs(question, bare_table(header))
    assert got.values == {header: "2100"} and got.others == {}, got


@pytest.mark.parametrize(("header", "question", "reason"), [
    ("Operating hours", "the pump ran 4 days", "4days = 96 hours; 96 is ≥ 40"),
    ("Operating hours", "it ran for 2 weeks", "2weeks = 336 hours; 336 is ≥ 40"),
    ("Consecutive rain days", "it rained for 30 hours", "30hours = 1.25 days; 1.25 is < 40"),
    ("Rain days", "4 rainy weeks", "4weeks = 28 days; 28 is < 40"),
    ("Service life in years", "6 months", "6months = 0.5 years; 0.5 is < 40")])
def test_an_english_header_ending_in_its_unit_converts_a_value_in_another(header, question,
                                                                          reason):
    table = bare_table(header)
    result = match_rules(table, read_inputs(question, table).values)
    assert [c.reason for m in result.matches for c in m.cells] == [reason], result


@pytest.mark.parametrize(("question", "value"), [
    ("夜里负5度", "-5"), ("晚上零下3度", "-3"), ("今早10度，湿度90%", "10"), ("白天25度", "25"),
    ("昨晚-2℃", "-2"), ("凌晨 零下1度", "-1"), ("温度夜里负5度", "-5")])
def test_a_time_of_day_before_a_temperature_names_no_other_thing(question, value):
    got = read_inputs(question, SCAB)
    assert got.values.get("温度(℃)") == value and got.others == {}, got


@pytest.mark.parametrize(("header", "question", "value"), [
    ("日均温(℃)", "夜里负5度", None), ("日均温(℃)", "白天25度", None),
    ("夜温(℃)", "夜里负5度", "-5"), ("最低气温(℃)", "晚上零下3度", "-3")])
def test_a_time_of_day_fills_no_column_of_another_time(header, question, value):
    assert read_inputs(question, bare_table(header)).values.get(header) == value
