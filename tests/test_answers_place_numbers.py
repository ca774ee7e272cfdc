"""A number naming which place or machine (3号棚, 第三棚, 三号机, ``#3 pump``, ``no. 2 line``) is
no value of any input, in Chinese and in English: the value said with the input's name is
(issue 17 §2, session 45)."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table
from kbtools.query.inputs import read_inputs

VENT = build_table(["白天温度(℃)", "夜间温度(℃)", "湿度(%)", "通风"],
                   [[">25", "*", "*", "全开"], ["≤25", ">5", "≥85", "半开"],
                    ["≤25", "*", "<85", "关"], ["≤25", "≤5", "≥85", "小开"]],
                   decision="inputs=白天温度(℃),夜间温度(℃),湿度(%); outputs=通风",
                   heading_path=("大棚管理", "通风"))
PUMP = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                   [["<20", "*", "close"], [">=20", ">=85", "open"], [">=20", "<85", "half"]],
                   decision="inputs=Temperature (°C),Humidity (%); outputs=Action",
                   heading_path=("Greenhouse", "Vents"))


@pytest.mark.parametrize(("question", "values"), [
    ("第三棚湿度85", {"湿度(%)": "85"}),
    ("3号棚湿度85，白天25度", {"湿度(%)": "85", "白天温度(℃)": "25"}),
    ("三号棚白天25度", {"白天温度(℃)": "25"}),
    ("2号棚夜间温度3度", {"夜间温度(℃)": "3"}),
    ("湿度：3号棚85", {"湿度(%)": "85"}),  # the place between is skipped, never the 3 (v45b)
    ("白天温度3号棚25度", {"白天温度(℃)": "25"}),
    ("湿度三号棚85", {"湿度(%)": "85"}),
    ("湿度第三块田85", {"湿度(%)": "85"}),
    ("湿度3号大棚为85%", {"湿度(%)": "85"}),
    ("白天温度三号棚二十五度", {"白天温度(℃)": "25"}),
    ("第3天白天25度", {"白天温度(℃)": "25"}),
    ("湿度85 3号棚", {"湿度(%)": "85"}),  # 85 3: no 1 200 grouped, nor two numbers (v46)
    ("白天25度 3#棚", {"白天温度(℃)": "25"}),
])
def test_a_place_number_is_no_value_in_chinese(question, values):
    assert VENT is not None
    given = read_inputs(question, VENT)
    assert given.values == values, question
    assert not any("号" in typed or "第" in typed for typed in given.typed.values()), given.typed


@pytest.mark.parametrize(("question", "values"), [
    ("#3 pump humidity 85%", {"Humidity (%)": "85"}),
    ("humidity #3 85", {"Humidity (%)": "85"}),  # the place between is skipped (v46)
    ("humidity pump no. 3 85", {}),
    ("temperature no. 2 25 C", {"Temperature (°C)": "25"}),
    ("pump #2: temperature 25 C, humidity 85%", {"Temperature (°C)": "25", "Humidity (%)": "85"}),
])
def test_a_place_number_is_no_value_in_english(question, values):
    assert PUMP is not None
    assert read_inputs(question, PUMP).values == values, question


@pytest.mark.parametrize(("question", "values"), [
    ("greenhouse 3 humidity 85", {"Humidity (%)": "85"}),
    ("bay no. 3 temp 25", {"Temperature (°C)": "25"}),
    ("bay 3 temperature 25 C", {"Temperature (°C)": "25"}),
    ("tunnel 2, humidity 85%", {"Humidity (%)": "85"}),
    ("humidity in greenhouse 3 is 85", {"Humidity (%)": "85"}),
    ("humidity at house no. 2: 85%", {"Humidity (%)": "85"}),
    ("greenhouse three humidity 85", {"Humidity (%)": "85"}),
    ("temperature in row 4 is 25 C, humidity 85", {"Temperature (°C)": "25", "Humidity (%)": "85"}),
    ("greenhouse number 3 humidity 85", {"Humidity (%)": "85"}),
])
def test_an_english_place_by_number_is_no_value_nor_unused(question, values):
    """An English place named by a number (``greenhouse 3``, ``bay no. 3``, ``in greenhouse
    three``) is which one, as 3号棚 is: its number is neither a value nor one said unused,
    and the value after it is the input's (issue 17, v46)."""
    assert PUMP is not None
    given = read_inputs(question, PUMP)
    assert (given.values, given.unused) == (values, ()), question


# the example knowledge's wheat-scab table: its heading names no 棚 nor 田 (issue 17, v45b)
SCAB = build_table(["温度(℃)", "相对湿度(%)", "连续降雨天数", "风险等级"],
                   [["<15", "*", "*", "低"], ["15-20", "≥85", "≤3", "中"],
                    [">20", "≥85", ">3", "极高"]],
                   decision="inputs=温度(℃),相对湿度(%),连续降雨天数; outputs=风险等级",
                   heading_path=("小麦赤霉病", "风险等级判定表"))
OIL = build_table(["温度(℃)", "动作"], [["<60", "正常"], [">=60", "停机"]],
                  decision="inputs=温度(℃); outputs=动作", heading_path=("空压机",))


@pytest.mark.parametrize(("question", "values"), [
    ("第三棚湿度85", {"相对湿度(%)": "85"}),
    ("3号田湿度85", {"相对湿度(%)": "85"}),
    ("三号田相对湿度85，温度20", {"相对湿度(%)": "85", "温度(℃)": "20"}),
    ("第三棚温度20 湿度85", {"温度(℃)": "20", "相对湿度(%)": "85"}),
    ("三号大棚湿度85", {"相对湿度(%)": "85"}),
    ("第三块田湿度85", {"相对湿度(%)": "85"}),
    ("第3棚湿度85", {"相对湿度(%)": "85"}),
    # a place's noun of two characters or more (issue 17, v46): not only its first is the place
    ("2号田块湿度85", {"相对湿度(%)": "85"}),
    ("二号地块湿度85，温度20", {"相对湿度(%)": "85", "温度(℃)": "20"}),
    ("3号温室湿度85", {"相对湿度(%)": "85"}),
    ("2号大田块湿度85", {"相对湿度(%)": "85"}),
    ("湿度3号田块85", {"相对湿度(%)": "85"}),
    ("5号鸡舍温度20", {"温度(℃)": "20"}),
    # 3# for 3号, a row by ordinal, a place's inside said in two characters (v46)
    ("3#棚湿度85", {"相对湿度(%)": "85"}),
    ("湿度 3#棚 85", {"相对湿度(%)": "85"}),
    ("第二排湿度85", {"相对湿度(%)": "85"}),
    ("二号大棚里面湿度是85", {"相对湿度(%)": "85"}),
])
def test_a_place_before_a_name_leaves_the_name_its_column(question, values):
    assert SCAB is not None
    assert read_inputs(question, SCAB).values == values, question


@pytest.mark.parametrize(("question", "thing"), [("3号棚油温80度", "油温"),
                                                 ("3号机油温80度", "机油温")])
def test_a_thing_after_a_place_still_qualifies_the_name(question, thing):
    assert OIL is not None
    given = read_inputs(question, OIL)
    assert given.values == {}, question
    assert given.others == {"温度(℃)": ("80度", thing)}, question


@pytest.mark.parametrize("question", ["3号泵湿度85", "二号机湿度85", "3#泵湿度85"])
def test_a_machine_by_number_still_makes_the_name_its_own(question):
    """A machine's number (3号泵, 二号机) is no place the air is measured at: its humidity is
    its own, as 3号泵温度 is the pump's."""
    assert SCAB is not None
    assert read_inputs(question, SCAB).values == {}, question


@pytest.mark.parametrize(("question", "values", "conflicts"), [
    ("湿度：3号棚85，2号棚80", {}, {"相对湿度(%)": ("85", "80")}),
    ("湿度85，2号棚是80，温度20", {"温度(℃)": "20"}, {"相对湿度(%)": ("85", "80")}),
    ("温度：1号棚20度、2号棚25度", {}, {"温度(℃)": ("20度", "25度")}),
    ("湿度：3号棚85、2号棚85", {"相对湿度(%)": "85"}, {}),  # one value at both: that one
    ("湿度3号棚85，2号棚温度20", {"相对湿度(%)": "85", "温度(℃)": "20"}, {}),
    ("湿度85，2号棚25度", {"相对湿度(%)": "85", "温度(℃)": "25"}, {}),  # 25度: by its unit
])
def test_two_places_values_of_one_input_are_two_values(question, values, conflicts):
    """One input's values at two places (湿度：3号棚85，2号棚80) are two values, of which the
    table takes neither and says so, as 3号棚湿度85，2号棚湿度80: the second was dropped
    silently (issue 17, v46)."""
    assert SCAB is not None
    given = read_inputs(question, SCAB)
    assert (given.values, given.conflicts, given.unused) == (values, conflicts, ()), question


@pytest.mark.parametrize(("question", "values", "conflicts"), [
    ("humidity 85 in house 3 and 80 in house 4", {}, {"Humidity (%)": ("85", "80")}),
    ("humidity 85% in bay 2 and 85% in bay 3", {"Humidity (%)": "85"}, {}),
    ("humidity 85 in house 3, temperature 25 C", {"Humidity (%)": "85", "Temperature (°C)": "25"},
     {}),
])
def test_two_english_places_values_are_two_values(question, values, conflicts):
    """``humidity 85 in house 3 and 80 in house 4``: the humidity at two places, two values,
    as 湿度：3号棚85，2号棚80 (issue 17, v46)."""
    assert PUMP is not None
    given = read_inputs(question, PUMP)
    assert (given.values, given.conflicts, given.unused) == (values, conflicts, ()), question


@pytest.mark.parametrize(("question", "values", "unused"), [
    ("humidity 85 no 3", {"Humidity (%)": "85"}, ()),
    ("humidity 85 pump no. 3", {"Humidity (%)": "85"}, ()),
    ("humidity 85% pump #3", {"Humidity (%)": "85"}, ()),
    ("humidity 85 no rain", {}, ()),  # a negation still: no value
    ("pump #3 85", {}, ("pump #3 85",)),
    ("humidity 85%, pump no 3 85", {"Humidity (%)": "85"}, ("pump no 3 85",)),
])
def test_a_machines_number_after_or_before_a_value_is_told_apart(question, values, unused):
    """``humidity 85 no 3`` gave no value (its no read as a negation of the 85) and the
    value after ``pump #3`` was said not used as ``pump#3 85`` (the space before the # was
    dropped): a machine's number is no value in either order, and quoted as typed (v49)."""
    assert PUMP is not None
    given = read_inputs(question, PUMP)
    assert (given.values, given.unused) == (values, unused), question
