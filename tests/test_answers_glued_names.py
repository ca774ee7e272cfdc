"""A short form of an input's name typed against its value, with no space (``rh85%``,
``RH90%``, ``temp24``, 湿度 named ``rh`` before a percentage): a technician's shorthand
from a logger's display. The value is the named input's, as ``rh 85%`` is, and the
question's other values keep their inputs (session 31)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from kbfixtures import scab_table

from kbtools.cli import main
from kbtools.query.inputs import read_inputs

SCAB = scab_table(("小麦赤霉病监测与防控操作规程", "3. 发病风险判定", "3.2 风险等级判定表"))


@pytest.mark.parametrize("question, values", [
    ("小麦赤霉病风险 24度 rh85% 连续降雨3天",
     {"温度(℃)": "24", "相对湿度(%)": "85", "连续降雨天数": "3"}),
    ("24度，RH90%，连续降雨2天", {"温度(℃)": "24", "相对湿度(%)": "90", "连续降雨天数": "2"}),
    ("wheat scab risk: temp24 C, rh88%, 连续降雨4天",
     {"温度(℃)": "24", "相对湿度(%)": "88", "连续降雨天数": "4"}),
    ("温度22度 Rh86.5%", {"温度(℃)": "22", "相对湿度(%)": "86.5"}),
])
def test_a_short_name_glued_to_its_value_gives_it(question, values):
    assert read_inputs(question, SCAB).values == values


@pytest.mark.parametrize("question", ["温度22度 hrh85%", "温度22度 srh85%", "温度22度 temper85%"])
def test_a_longer_token_holding_the_letters_names_nothing(question):
    """Only the short form as a word of its own names the input (not the rh of hrh85)."""
    assert "相对湿度(%)" not in read_inputs(question, SCAB).values


@pytest.mark.parametrize("question", ["小麦赤霉病风险 24度 rh85% 连续降雨3天",
                                      "小麦赤霉病风险 24度 RH 85% 连续降雨3天",
                                      "wheat scab risk 24 C RH88% 3 rain days"])
def test_the_search_evaluates_it_and_names_no_missing_code(example_index, question):
    """`kb query --json`: the table is decided with the humidity read, and neither rh85 nor
    ``RH 85`` is reported as a name or code the knowledge lacks."""
    result = CliRunner().invoke(main, ["query", "--index", str(example_index), "--no-log",
                                       "--json", "-k", "1", question])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    evaluation = out["results"][0]["evaluation"]
    assert evaluation["status"] == "match"
    assert float(evaluation["inputs"]["相对湿度(%)"]) in (85, 88)
    assert not out.get("not_in_knowledge")
