"""A thing's quantity typed after words of the question's own subject, with no comma
(session 31): "小麦赤霉病风险 油温22度" gave the wheat-scab table's 温度(℃) the oil's 22 (the
run 小麦赤霉病风险油 read as one phrase too long to be a modifier), and "下雨 油温22度" named
下雨油温 in its note. The words of the table's own subject and inputs before the thing are no
part of it: the value stays the oil's, the input is asked for, and the note names 油温.
A word of the outdoors (室外) is named as typed, not with the subject's last character before
it (米室外)."""

from __future__ import annotations

import pytest
from kbfixtures import corn_table, scab_table

from kbtools.query.inputs import read_inputs

SCAB = scab_table(("小麦赤霉病监测与防控操作规程", "3. 发病风险判定", "3.2 风险等级判定表"))
CORN = corn_table(("玉米南方锈病识别与防治", "3. 风险判定表"))
VOCABULARY = {"温度", "相对湿度", "连续降雨天数", "日均温", "日均温度", "运行小时"}


@pytest.mark.parametrize("question, thing", [
    ("小麦赤霉病风险 油温22度 湿度90%", "油温"),
    ("小麦赤霉病风险油温22度", "油温"),
    ("下雨 油温22度 湿度90% 连续降雨3天", "油温"),
    ("赤霉病 水温25度 湿度90%", "水温"),
    ("小麦发病风险 地温18度", "地温"),
    ("今天 油温22度 湿度90%", "油温"),
])
def test_the_subjects_words_before_a_thing_leave_it_the_things(question, thing):
    read = read_inputs(question, SCAB, {}, VOCABULARY)
    assert "温度(℃)" not in read.values
    assert read.others["温度(℃)"][1] == thing


@pytest.mark.parametrize("question, value", [
    ("小麦赤霉病温度22度 湿度90%", "22"),  # the subject's own 温度: the input's
    ("小麦赤霉病风险 温度22度", "22"),
    ("下雨 温度22度", "22"),
    ("赤霉病风险 气温22度", "22"),
])
def test_the_inputs_own_name_after_the_subject_still_fills_it(question, value):
    assert read_inputs(question, SCAB, {}, VOCABULARY).values["温度(℃)"] == value


@pytest.mark.parametrize("question", ["玉米南方锈病 室外28度 湿度85%", "玉米 室外28度",
                                      "南方锈病风险 户外28度", "玉米南方锈病风险 室外 28度"])
def test_an_outdoor_word_is_named_as_typed(question):
    """室外, 户外 are words of their own: the note names them, not 米室外 or 病室外 (the
    character of the subject before them)."""
    read = read_inputs(question, CORN, {}, VOCABULARY)
    assert read.others["日均温(℃)"][1] in ("室外", "户外")
