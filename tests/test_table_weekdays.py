"""Days of the week in decision tables (issues 17 and 5, session 40): cells ``周一至周五``,
``周六、周日``, ``工作日``, ``Mon-Fri`` and ``周五至周一`` (wrapping the week) read as days,
inputs said as a field user says them (``周三``, ``星期三``, ``礼拜天``, ``Wednesday``, ``Wed``)
compared as days, and a day and a number never taken for each other."""

from __future__ import annotations

import pytest

from kbtools.check.decision_tables import analyse
from kbtools.decision import build_table, match_rules
from kbtools.errors import TableError
from kbtools.query.inputs import find_inputs

WEEK = build_table(["日期", "安排"], [["周一至周五", "上班"], ["周六、周日", "休息"]],
                   decision="inputs=日期; outputs=安排")
NAMED = build_table(["Day", "Plan"], [["工作日", "work"], ["周末", "rest"]],
                    decision="inputs=Day; outputs=Plan")
ENGLISH = build_table(["Day", "Crew"], [["Mon-Thu", "A"], ["Fri", "B"], ["Sat, Sun", "C"]],
                      decision="inputs=Day; outputs=Crew")
WRAP = build_table(["星期", "班次"], [["周五至周一", "长班"], ["周二至四", "短班"]],
                   decision="inputs=星期; outputs=班次")
ONE_DAY = build_table(["星期", "值班"], [["周一", "张三"], ["周二", "李四"], ["周日", "赵六"]],
                      decision="inputs=星期; outputs=值班")  # one day a cell, as 星期二 says it
DAYS = build_table(["天数", "措施"], [["<3", "观察"], [">=3", "处理"]],
                   decision="inputs=天数; outputs=措施")


def _answer(table, value):
    assert table is not None
    result = match_rules(table, {table.header[0]: value})
    return [v for out in result.outputs for v in out.values()]


@pytest.mark.parametrize(("table", "value", "want"), [
    (WEEK, "周三", "上班"), (WEEK, "星期三", "上班"), (WEEK, "Wednesday", "上班"),
    (WEEK, "wed", "上班"), (WEEK, "礼拜天", "休息"), (WEEK, "星期六", "休息"), (WEEK, "Sun", "休息"),
    (WEEK, "周日", "休息"), (WEEK, "週五", "上班"), (WEEK, "Friday", "上班"),
    (NAMED, "星期二", "work"), (NAMED, "Saturday", "rest"),
    (ENGLISH, "周四", "A"), (ENGLISH, "Fri.", "B"), (ENGLISH, "sunday", "C"),
    (ONE_DAY, "星期二", "李四"), (ONE_DAY, "Tuesday", "李四"), (ONE_DAY, "礼拜天", "赵六"),
])
def test_a_day_of_the_week_is_compared_as_one(table, value, want):
    """Every cell of a column of days was text: 周三 against 周一至周五 was refused as "not a
    value this column takes", and Wednesday matched no cell written in Chinese."""
    assert _answer(table, value) == [want]


@pytest.mark.parametrize(("value", "want"), [
    ("周五", "长班"), ("周六", "长班"), ("星期日", "长班"), ("Monday", "长班"),
    ("周二", "短班"), ("Thursday", "短班"),
])
def test_a_run_of_days_may_wrap_the_week(value, want):
    """周五至周一 is Friday, Saturday, Sunday and Monday, not a range written backwards."""
    assert _answer(WRAP, value) == [want]


def test_the_reason_names_the_days():
    assert WEEK is not None
    cell = match_rules(WEEK, {"日期": "星期三"}).matches[0].cells[0]
    assert cell.reason == "Wed is in Mon–Fri"
    assert cell.reason_in("zh") == "周三 满足 周一至周五"


@pytest.mark.parametrize(("table", "value", "says"), [
    (WEEK, "3", "'3': the column holds days of the week"),
    (WEEK, "9:00", "the column holds days of the week"),
    (WEEK, "3天", "the column holds days of the week"),
    (DAYS, "周三", "'周三': it is a day of the week; the column holds 天"),
    (DAYS, "Wednesday", "it is a day of the week"),
])
def test_a_day_and_a_number_are_not_taken_for_each_other(table, value, says):
    assert table is not None
    with pytest.raises(TableError, match=says) as caught:
        match_rules(table, {table.header[0]: value})
    assert "\n" not in str(caught.value)
    assert "星期" in caught.value.message_in("zh")


def test_days_that_are_no_run_of_the_week_are_refused_in_one_line():
    """周一、周三 is two days apart: no range of the week holds it, so the table is refused
    naming the cell rather than reading it as Monday to Wednesday."""
    with pytest.raises(TableError, match="row 1, column 日期: '周一、周三'") as caught:
        build_table(["日期", "安排"], [["周一、周三", "浇水"], ["周六、周日", "休息"]],
                    decision="inputs=日期; outputs=安排")
    assert "\n" not in str(caught.value)


def test_weeks_are_still_a_duration():
    table = build_table(["周期", "措施"], [["<2周", "短"], [">=2周", "长"]],
                        decision="inputs=周期; outputs=措施")
    assert _answer(table, "3周") == ["长"]


@pytest.mark.parametrize(("table", "value", "want"), [
    (WEEK, "周一至周三", ["上班"]), (WEEK, "工作日", ["上班"]), (WEEK, "Mon-Wed", ["上班"]),
    (WEEK, "周末", ["休息"]), (WRAP, "周六至周一", ["长班"]), (WRAP, "周二到周四", ["短班"]),
])
def test_a_run_of_days_given_is_held_by_the_row_that_holds_every_day_of_it(table, value, want):
    """周一至周三 was read through the Chinese numerals as 周1至周3, no value at all; 周六至周一
    is three days of the row 周五至周一, though 6 > 1 and 1 < 5 as numbers."""
    assert _answer(table, value) == want


@pytest.mark.parametrize(("table", "value", "says"), [
    (WRAP, "工作日", "row 1 .* row 2 .* each apply to part of it"),  # Mon is 长班, Tue 短班
    (WEEK, "周六至周一", "each apply to part of it"),
    (WEEK, "1-3", "'1-3': the column holds days of the week"),  # no days 1 to 3
    (DAYS, "周一至周三", "'周一至周三': it is a day of the week; the column holds 天"),
])
def test_a_run_of_days_is_refused_where_it_is_not_one_answer(table, value, says):
    assert table is not None
    with pytest.raises(TableError, match=says) as caught:
        match_rules(table, {table.header[0]: value})
    assert "\n" not in str(caught.value)


# ------------------------------------------------------ kb check: overlaps and gaps of days

def _week_findings(*cells: str) -> list[tuple[str, str]]:
    table = build_table(["星期", "班次"], [[c, str(n)] for n, c in enumerate(cells)],
                        decision="inputs=星期")
    return [(code, message) for _, code, message in analyse(table)]


def test_an_overlap_across_the_weekend_is_found():
    """周五至周一 beside 周二至周五 share Friday: the check said nothing (a run whose first day
    comes after its last was taken for an empty range)."""
    findings = _week_findings("周五至周一", "周二至周五")
    assert [c for c, _ in findings] == ["decision-overlap"]
    assert "rows 1 and 2 both match" in findings[0][1]


def test_a_gap_in_the_week_is_found_and_named_by_days():
    assert _week_findings("周一至周三", "周五至周日") == [
        ("decision-gap", "table at line 0: no row covers 星期 >Wed and <Fri")]
    assert ("decision-gap", "table at line 0: no row covers 星期 >Thu and <Sat") in \
        _week_findings("周六至周一", "周二至周四")  # Friday, beside a run across the weekend


def test_a_whole_week_has_no_gap_or_overlap():
    assert _week_findings("周五至周一", "周二至四") == []
    assert _week_findings("工作日", "周末") == []
    assert _week_findings("Mon-Fri", "Sat", "Sun") == []


def test_a_question_gives_a_column_of_days_no_number():
    """A question's 星期3 gave the column of days the number 3, which the table then refused
    (the column holds days): the day stays a missing input, the temperature is still read."""
    table = build_table(["星期", "温度(℃)", "灌溉"],
                        [["周一至周五", ">30", "早晚各一次"], ["周一至周五", "<=30", "早上一次"],
                         ["周六、周日", "*", "不灌溉"]], decision="inputs=星期,温度; outputs=灌溉")
    assert table is not None
    assert find_inputs("星期3 温度32度 灌溉几次", table) == {"温度(℃)": "32"}


def test_the_web_form_offers_a_keyboard_for_words_to_a_column_of_days():
    """A column of days became numeric, and the field app's form asked a phone for its
    decimal keyboard there, on which 周三 cannot be typed. (The temperature in ℃ has a
    keyboard with a minus: `test_serve_form_inputs`.)"""
    from kbtools.serve.pages import _table_view

    table = build_table(["星期", "温度(℃)", "灌溉"], [["工作日", ">30", "早晚"], ["周末", "*", "不灌溉"]],
                        decision="inputs=星期,温度; outputs=灌溉")
    assert table is not None
    assert [f["numeric"] for f in _table_view(table, 1, {})["inputs"]] == [False, False]
