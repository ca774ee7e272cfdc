"""Values as field users say them, to a decision table and in a question (issue 17 §1, issue
5; session 38): halves and quarters of an hour (两个半小时, 1天半, 半小时, 3刻钟), the measure
word 个 before a unit (2个小时), fractions (三分之二, 2/3, ½), spans below zero (-5~-2℃),
counts with their measure words (三台), and the refusals that stay (°F in a ℃ column)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.decision import build_table, match_rules
from kbtools.errors import TableError
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import find_inputs

HOURS = build_table(["时长(小时)", "措施"], [["<0.6", "短"], ["0.6-2", "中"], [">2, <2.5", "较长"],
                                         ["2.5-30", "长"], [">30", "很长"]],
                    decision="inputs=时长(小时); outputs=措施")
MINUTES = build_table(["时长(分钟)", "措施"], [["<60", "短"], ["≥60", "长"]],
                      decision="inputs=时长(分钟); outputs=措施")
SHARE = build_table(["病叶率(%)", "措施"], [["<40", "观察"], ["40-60", "喷药"], [">60", "连喷"]],
                    decision="inputs=病叶率(%); outputs=措施")
FROST = build_table(["温度(℃)", "措施"], [["<-3", "防冻"], ["-3~0", "覆盖"], [">0", "正常"]],
                    decision="inputs=温度(℃); outputs=措施")
MACHINES = build_table(["台数", "措施"], [["<3", "少"], ["≥3", "多"]],
                       decision="inputs=台数; outputs=措施")


def output(table, value: str) -> str:
    result = match_rules(table, {table.header[0]: value})
    assert result.status == "match", result.message
    return str(result.outputs[0][table.header[1]])


@pytest.mark.parametrize(("value", "want"), [
    ("两个半小时", "长"), ("2个半小时", "长"),  # 2.5 hours, not 2
    ("1天半", "很长"),  # 36 hours, not 1
    ("半小时", "短"), ("半个小时", "短"), ("一个半小时", "中"),
    ("3刻钟", "中"),  # 0.75 hours, not 3
    ("2.2个钟头", "较长"), ("三分之一天", "长"),  # 8 hours
    ("½小时", "短"),
])
def test_a_length_of_time_said_with_a_half_or_quarters_is_its_value(value, want):
    """两个半小时 was read as 2 (its unit 个半小时 unknown, so not judged), 1天半 as 1 hour
    and 3刻钟 as 3 hours: each answered from another row, silently."""
    assert output(HOURS, value) == want


@pytest.mark.parametrize(("value", "want"), [("2个小时", "长"), ("半小时", "短"), ("1个半小时", "长")])
def test_the_measure_word_before_a_unit_keeps_the_unit(value, want):
    """2个小时 in a column of minutes was 2 minutes (the unit 个小时 unknown)."""
    assert output(MINUTES, value) == want


@pytest.mark.parametrize("value", ["1年半", "2个半月"])
def test_a_half_in_a_unit_not_converted_is_refused_saying_why(value):
    """The refusal named the column and then said nothing (the unit 年半 was unknown)."""
    with pytest.raises(TableError) as err:
        match_rules(HOURS, {"时长": value})
    assert "the column in '小时'; give the value in 小时" in err.value.message
    assert "请换算成 小时 后输入" in err.value.message_in("zh")


@pytest.mark.parametrize(("value", "want"), [
    ("三分之二", "连喷"), ("2/3", "连喷"), ("½", "喷药"), ("1/2", "喷药"), ("五分之一", "观察"),
])
def test_a_fraction_in_a_percent_column_is_that_share(value, want):
    """三分之二 and ½ were "not a number", 2/3 was "2 values (2, 3)"."""
    assert output(SHARE, value) == want


def test_a_slash_outside_a_share_column_is_still_two_values():
    with pytest.raises(TableError, match="2 values"):
        match_rules(HOURS, {"时长": "2/3"})


@pytest.mark.parametrize(("question", "table", "status", "given"), [
    ("温度-5~-2℃要怎么处理", FROST, "spans_rows", "-5~-2°C"),  # not -5 alone
    ("温度-5到-2度要怎么处理", FROST, "spans_rows", "-5到-2度"),
    ("温度-2~-1℃要怎么处理", FROST, "match", "-2~-1°C"),
    ("病叶率2/3要喷药吗", SHARE, "match", "66.666667"),  # not 2 %: two thirds, as eval reads it
    ("时长1天半怎么办", HOURS, "match", "1.5天"),  # not 1 day: 1.5 (was asked for; session 48)
    ("台数三台，怎么办", MACHINES, "match", "3"),
    ("坏了的台数5台", MACHINES, "match", "5"),
])
def test_a_question_value_is_read_as_said_or_asked_for(question, table, status, given):
    """A question's -5~-2℃ gave -5 (防冻), 2/3 gave 2 and 1天半 gave 1天, each a row's answer
    for a value not said; 三台 was no number at all."""
    found = find_inputs(question, table)
    assert found.get(table.header[0]) == given
    assert evaluate_inputs("d.md", 1, table, found).status == status


# found right, kept so ----------------------------------------------------------------

SCAB = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                   [["<20", "*", "低"], ["≥20", "≥85", "高"], ["≥20", "<85", "中"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=风险")


@pytest.mark.parametrize(("question", "inputs"), [
    ("温度25度湿度九成", {"温度(℃)": "25", "相对湿度(%)": "90"}),
    ("温度20℃到30度，湿度八成五", {"温度(℃)": "20°C到30度", "相对湿度(%)": "85"}),
])
def test_two_values_of_different_things_in_one_question(question, inputs):
    found = find_inputs(question, SCAB)
    assert found == inputs
    assert evaluate_inputs("d.md", 1, SCAB, found).status == "match"


@pytest.mark.parametrize("value", ["80°F", "华氏80度", "80 degrees F"])
def test_fahrenheit_in_a_celsius_column_is_converted_and_said(tmp_path, value):
    """Refused in one line until session 45: converted now, as ``--where`` converts, and said."""
    doc = tmp_path / "t.md"
    doc.write_text("# 防冻\n\n<!-- decision: inputs=温度(℃); outputs=措施 -->\n"
                   "| 温度(℃) | 措施 |\n|---|---|\n| <-3 | 防冻 |\n| -3~0 | 覆盖 |\n| >0 | 正常 |\n",
                   encoding="utf-8")
    out = CliRunner().invoke(main, ["table", "eval", str(doc), f"温度={value}"])
    assert out.exit_code == 0 and f"converted: 温度(℃) {value} = 26.666667°C" in out.output, out.output
    assert "措施=正常" in out.output, out.output


def test_kelvin_in_a_celsius_column_is_refused_as_another_unit():
    """300K was refused as "'K' multiplies the number" (the k of 2k)."""
    with pytest.raises(TableError) as err:
        match_rules(FROST, {"温度": "300K"})
    assert "it is in 'K', the column in '°C'" in err.value.message
    kelvin = build_table(["温度 K", "措施"], [["<300 K", "a"], ["≥300 K", "b"]],
                         decision="inputs=温度 K")
    assert match_rules(kelvin, {"温度": "310K"}).outputs[0]["措施"] == "b"


RUN = build_table(["Run time (h)", "Action"], [["<2", "short"], ["2-3", "mid"], [">3", "long"]],
                  decision="inputs=Run time (h); outputs=Action")
COLD = build_table(["Temperature (°C)", "Action"], [["<-3", "frost"], ["-3-0", "cover"], [">0", "ok"]],
                   decision="inputs=Temperature (°C); outputs=Action")


@pytest.mark.parametrize(("value", "want"), [
    ("90 minutes", "short"), ("90 mins", "short"), ("1 minute", "short"), ("150 min", "mid"),
    ("7200 seconds", "mid"),
])
def test_minutes_and_seconds_spelled_out_are_converted(value, want):
    """``90 minutes`` in an hours column was 90 hours (``minutes`` was no unit the tables
    knew, so not judged): the longest row's answer for an hour and a half."""
    assert output(RUN, value) == want


@pytest.mark.parametrize(("question", "want"), [
    ("run time 90 minutes, what now", "short"), ("the run time was 7200 seconds", "mid")])
def test_a_question_in_minutes_is_converted(question, want):
    ev = evaluate_inputs("d.md", 1, RUN, find_inputs(question, RUN))
    assert (ev.status, ev.outputs) == ("match", {"Action": want})


@pytest.mark.parametrize(("value", "want"), [("minus 5 C", "frost"), ("negative 2", "cover"),
                                             ("Minus 1 °C", "cover")])
def test_minus_said_in_english_is_below_zero(value, want):
    """``minus 5 C`` was "not a number" (a question's minus 5 C was read as -5 already)."""
    assert output(COLD, value) == want


def test_a_number_minus_another_is_no_range():
    with pytest.raises(TableError, match="not a number"):
        match_rules(COLD, {"Temperature": "5 minus 2"})
