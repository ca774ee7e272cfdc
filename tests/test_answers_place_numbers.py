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
    ("湿度：3号棚85", {}),  # which value the 湿度 is, is not said: asked, never the 3
    ("白天温度3号棚25度", {}),
    ("第3天白天25度", {"白天温度(℃)": "25"}),
])
def test_a_place_number_is_no_value_in_chinese(question, values):
    assert VENT is not None
    given = read_inputs(question, VENT)
    assert given.values == values, question
    assert not any("号" in typed or "第" in typed for typed in given.typed.values()), given.typed


@pytest.mark.parametrize(("question", "values"), [
    ("#3 pump humidity 85%", {"Humidity (%)": "85"}),
    ("humidity #3 85", {}),
    ("humidity pump no. 3 85", {}),
    ("temperature no. 2 25 C", {"Temperature (°C)": "25"}),
    ("pump #2: temperature 25 C, humidity 85%", {"Temperature (°C)": "25", "Humidity (%)": "85"}),
])
def test_a_place_number_is_no_value_in_english(question, values):
    assert PUMP is not None
    assert read_inputs(question, PUMP).values == values, question
