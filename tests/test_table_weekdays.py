"""Days of the week in decision tables (issues 17 and 5, session 40): cells ``周一至周五``,
``周六、周日``, ``工作日``, ``Mon-Fri`` and ``周五至周一`` (wrapping the week) read as days,
inputs said as a field user says them (``周三``, ``星期三``, ``礼拜天``, ``Wednesday``, ``Wed``)
compared as days, and a day and a number never taken for each other."""

from __future__ import annotations

import pytest

from kbtools.check.decision_tables import analyse
from kbtools.decision import build_table, match_rules
from kbtools.errors import TableError
from kbtools.query.inputs import find_inputs, read_inputs

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


IRRIGATION = build_table(["星期", "温度(℃)", "灌溉"],
                         [["周一至周五", ">30", "早晚各一次"], ["周一至周五", "<=30", "早上一次"],
                          ["周六、周日", "*", "不灌溉"]], decision="inputs=星期,温度; outputs=灌溉")


def _asked(question):
    assert IRRIGATION is not None
    values = find_inputs(question, IRRIGATION)
    result = match_rules(IRRIGATION, values)
    return values, [v for out in result.outputs for v in out.values()]


@pytest.mark.parametrize(("question", "day", "temperature", "want"), [
    ("周三 温度32度 灌溉几次", "周三", "32", "早晚各一次"),
    ("星期三温度32度灌溉几次", "星期三", "32", "早晚各一次"),  # the temperature was lost: 三温度
    ("星期3 温度32度 灌溉几次", "星期3", "32", "早晚各一次"),  # 星期3 gave the column the number 3
    ("周3，温度25度，怎么灌溉", "周3", "25", "早上一次"),
    ("礼拜三 气温32度", "礼拜三", "32", "早晚各一次"),
    ("下周一温度32度灌溉几次", "周一", "32", "早晚各一次"),  # next week's Monday is a Monday
    ("下个周一温度32度灌溉几次", "周一", "32", "早晚各一次"),
    ("週三溫度32度灌溉幾次", "周三", "32", "早晚各一次"),  # in Traditional script
    ("礼拜天，温度35度，要灌溉吗", "礼拜天", "35", "不灌溉"),
    ("on Wednesday at 32 C how often to irrigate", "wednesday", "32", "早晚各一次"),
    ("irrigation on Sunday, temperature 35 C", "sunday", "35", "不灌溉"),
    ("周末温度35度要灌溉吗", "周末", "35", "不灌溉"),  # a named run of days
    ("工作日，温度25度，怎么灌溉", "工作日", "25", "早上一次"),
    ("on weekdays at 32 C how often", "weekdays", "32", "早晚各一次"),
    # a day shortened (session 42): ``sat`` and ``sun`` with a capital, a period or a lead
    ("on Wed at 32 C how often", "wed", "32", "早晚各一次"),
    ("Thu. 25 C, how to irrigate", "thu", "25", "早上一次"), ("tues, 25 C", "tues", "25", "早上一次"),
    ("Sun 35 C, irrigate?", "sun", "35", "不灌溉"), ("on sat at 35 C", "sat", "35", "不灌溉"),
    ("sat. 35 C", "sat", "35", "不灌溉"),
])
def test_a_question_gives_a_column_of_days_the_day_it_says(question, day, temperature, want):
    """A day said in a question was never read (the column stayed missing), and the day
    before an input's name (周三温度, 星期三温度) made the temperature another thing's."""
    values, answer = _asked(question)
    assert values == {"星期": day, "温度(℃)": temperature}
    assert answer == [want]


@pytest.mark.parametrize("question", [
    "一周三次灌溉，温度32度", "每周三天温度32度", "两个星期三次，温度32度",  # counts, no day
    "明天温度32度灌溉几次", "tomorrow at 32 C how often",  # by today's date: no day known
    "sun 32 C, how often",  # sun is a word, never read as Sunday
    "left in the sun at 32 C, how often", "it sat at 32 C all day, how often",
    "每天灌溉几次？温度32度", "daily at 32 C, how often",  # how often, no day
])
def test_a_count_or_a_relative_day_gives_no_day(question):
    assert IRRIGATION is not None
    assert find_inputs(question, IRRIGATION) == {"温度(℃)": "32"}


def test_two_days_said_are_a_conflict_not_a_guess():
    assert IRRIGATION is not None
    assert read_inputs("周三还是周六灌溉，温度32度", IRRIGATION).conflicts == {"星期": ("周三", "周六")}


@pytest.mark.parametrize(("cells", "value", "want"), [
    (("周1至周5", "周6、周7"), "周3", "上班"), (("周1至周5", "周6、周7"), "星期7", "休息"),
    (("周一至周五", "周六、周日"), "礼拜3", "上班"), (("周1-5", "周6-7"), "Saturday", "休息"),
])
def test_digit_days_in_cells_and_inputs(cells, value, want):
    """周1至周5 was a text cell and 周3 'not a number': days typed with digits are days."""
    table = build_table(["日期", "安排"], [[cells[0], "上班"], [cells[1], "休息"]],
                        decision="inputs=日期; outputs=安排")
    assert _answer(table, value) == [want]


@pytest.mark.parametrize(("value", "says", "zh"), [
    ("明天", "names a day by today's date", "相对今天"),
    ("tomorrow", "names a day by today's date", "相对今天"),
    ("周8", "numbered 1 \\(Monday\\) to 7 \\(Sunday\\)", "周1（周一）到周7（周日）"),
    ("周12", "numbered 1", "周7"),
    ("苹果", "it is no day of the week", "不是星期几"),
])
def test_a_value_that_is_no_day_is_refused_saying_why(value, says, zh):
    """Each was refused as 'not a number', which a column of days never asks for."""
    assert WEEK is not None
    with pytest.raises(TableError, match=says) as caught:
        match_rules(WEEK, {"日期": value})
    assert "\n" not in str(caught.value)
    assert zh in caught.value.message_in("zh")


def test_a_cell_of_digit_days_that_is_no_day_is_found_by_kb_check():
    """周8 is no day: the cell is text in a column of days, which the table refuses naming it."""
    with pytest.raises(TableError, match="row 2, column 日期: '周8'"):
        build_table(["日期", "安排"], [["周1至周5", "上班"], ["周8", "休息"]],
                    decision="inputs=日期; outputs=安排")


def test_the_web_form_offers_a_keyboard_for_words_to_a_column_of_days():
    """A column of days became numeric, and the field app's form asked a phone for its
    decimal keyboard there, on which 周三 cannot be typed. (The temperature in ℃ has a
    keyboard with a minus: `test_serve_form_inputs`.)"""
    from kbtools.serve.pages import _table_view

    table = build_table(["星期", "温度(℃)", "灌溉"], [["工作日", ">30", "早晚"], ["周末", "*", "不灌溉"]],
                        decision="inputs=星期,温度; outputs=灌溉")
    assert table is not None
    assert [f["numeric"] for f in _table_view(table, 1, {})["inputs"]] == [False, False]


def test_search_answers_a_day_and_a_rate_from_the_table_first(tmp_path):
    """Through `kb query`: a question giving a day (周三, ``on Sunday``) or a rate per-unit
    first (每亩施了25公斤) was answered with the table and its inputs missing."""
    from kbfixtures import built_pages, top_evaluation

    dist = built_pages(tmp_path, [
        ("灌溉安排", "按星期和温度安排灌溉。\n\n<!-- decision: inputs=星期,温度(℃); outputs=灌溉 -->\n"
                 "| 星期 | 温度(℃) | 灌溉 |\n|---|---|---|\n| 周一至周五 | >30 | 早晚各一次 |\n"
                 "| 周一至周五 | <=30 | 早上一次 |\n| 周六、周日 | * | 不灌溉 |\n"),
        ("施肥量判定", "按每公顷施肥量判定。\n\n<!-- decision: inputs=施肥量(kg/ha); outputs=判定 -->\n"
                  "| 施肥量(kg/ha) | 判定 |\n|---|---|\n| <300 | 偏少 |\n| >=300 | 足够 |\n"),
    ], stem="farm")
    for question, doc, want in [
        ("周三温度32度，灌溉几次", "farm-0.md", "早晚各一次"),
        ("礼拜天，温度35度，要灌溉吗", "farm-0.md", "不灌溉"),
        ("每亩施了25公斤，施肥量够吗", "farm-1.md", "足够"),  # 375 kg/ha
    ]:
        ev = top_evaluation(dist, question, doc)
        assert ev["status"] == "match", (question, ev)
        assert [v for out in ev["outputs"] for v in out.values()] == [want], (question, ev)

