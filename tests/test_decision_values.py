"""Numbers in decision-table cells and inputs as authors and field users write them (issues
17 and 5, session 41): thousands grouped by spaces (``<1 200``, ``1 000-10 000``, an input
``1 300 L/h``), a decimal comma refused naming the number it would be (``1 200,5``), and a
tolerance in percent of the value (``200±5%`` is 190–210; ``50%±5%`` is points), refused
where a column in % cannot tell the two apart."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kbtools.check.decision_tables import table_findings
from kbtools.cli import main
from kbtools.decision import build_table, match_rules, parse_condition
from kbtools.errors import TableError

FRONT = "---\ntitle: 判定\n---\n\n# 判定\n\n"


def _table(header, *cells):
    return build_table([header, "措施"], [[c, str(n)] for n, c in enumerate(cells)],
                       decision=f"inputs={header}; outputs=措施")


def _malformed(tmp_path, header, *rows):
    """A document holding the decision table `header` → 措施 of `rows` (condition, advice):
    its path and the message of its one finding, decision-malformed at the last row."""
    path = tmp_path / "k.md"
    path.write_text(FRONT + f"<!-- decision: inputs={header}; outputs=措施 -->\n"
                    f"| {header} | 措施 |\n|---|---|\n"
                    + "".join(f"| {cell} | {advice} |\n" for cell, advice in rows),
                    encoding="utf-8")
    [(line, code, message)] = table_findings(path)
    assert (line, code) == (11, "decision-malformed")
    return path, message


def _answer(table, value):
    return [v for out in match_rules(table, {table.header[0]: value}).outputs for v in out.values()]


# ------------------------------------------------------------- thousands grouped by spaces

@pytest.mark.parametrize(("cell", "lo", "hi"), [
    ("<1 200", None, 1200), (">=1 200 h", 1200, None), ("1 000-10 000", 1000, 10000),
    ("1 200 kg", 1200, 1200), ("≥12 500小时", 12500, None), ("<1\u00a0200", None, 1200),
    ("<1\u202f200", None, 1200), ("1 200.5-1 300", 1200.5, 1300),
])
def test_thousands_grouped_by_spaces_are_one_number(cell, lo, hi):
    """Each was a text cell: a table of <1 200 / ≥1 200 was no numeric table at all, so a
    flow of 1300 matched no row as text."""
    c = parse_condition(cell)
    assert c.numeric
    assert (c.lo if lo is not None else None, c.hi if hi is not None else None) == (lo, hi)


@pytest.mark.parametrize(("value", "want"), [
    ("1 100", ["0"]), ("1 300", ["1"]), ("1 300 L/h", ["1"]), ("1,300", ["1"]), ("1199.5", ["0"]),
])
def test_a_table_in_spaced_thousands_answers_values_in_any_grouping(value, want):
    table = _table("流量(L/h)", "<1 200", ">=1 200")
    assert table is not None and table.numeric == (0,)
    assert _answer(table, value) == want


@pytest.mark.parametrize(("value", "says", "zh"), [
    ("1 200,5", "a decimal comma, or two values: write 1200.5", "若指 1200.5"),
    ("1.200,5", "write 1200.5 if", "1200.5"),
    ("1 2000", "is not a number", "不是数"),
])
def test_a_decimal_comma_given_is_refused_naming_the_number_it_may_be(value, says, zh):
    """1 200,5 was refused as two values, 1 200 and 5, which no one meant."""
    table = _table("流量(L/h)", "<1 200", ">=1 200")
    with pytest.raises(TableError, match=says) as caught:
        match_rules(table, {"流量(L/h)": value})
    assert "\n" not in str(caught.value)
    assert zh in caught.value.message_in("zh")


@pytest.mark.parametrize(("cells", "says"), [
    (("<1 200,5", ">=1 200,5"), "row 1, column 流量\\(L/h\\): '<1 200,5': a decimal comma, or two "
                                "numbers: write 1200.5"),
    (("<1,5", ">=1,5"), "'<1,5': a decimal comma, or two numbers: write 1.5"),
    (("<1 2000", ">=1 2000"), "'<1 2000' is not a numeric condition"),
])
def test_a_bound_no_number_reads_is_malformed_not_text(cells, says):
    """A column of such cells was a text column: its table checked clean and matched no
    value given, or the literal text alone."""
    with pytest.raises(TableError, match=says):
        _table("流量(L/h)", *cells)


def test_kb_check_names_the_file_and_line_of_a_decimal_comma(tmp_path):
    path, message = _malformed(tmp_path, "流量(L/h)", ("<1 200", "小"), (">=1 200,5", "大"))
    assert "write 1200.5" in message
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 1 and "k.md:11:" in result.output


# ------------------------------------------------------- a tolerance in percent of the value

@pytest.mark.parametrize(("cell", "lo", "hi"), [
    ("100±5%", 95, 105), ("200±5%", 190, 210), ("200 ± 5 %", 190, 210),
    ("6.5±10%", 5.85, 7.15), ("200 kPa ± 5%", 190, 210), ("-20±10%", -22, -18),
    ("200 +/- 5 percent", 190, 210),
    ("50%±5%", 45, 55),  # in the value's own %: points
    ("25±2", 23, 27), ("25℃±2℃", 23, 27),  # in the value's unit, as before
])
def test_a_tolerance_in_percent_is_a_share_of_the_value(cell, lo, hi):
    """200±5% was 195–205 and 6.5±10% −3.5–16.5: the percent was read as points of the value."""
    c = parse_condition(cell)
    assert (c.kind, c.lo, c.hi) == ("range", pytest.approx(lo), pytest.approx(hi))


def test_a_table_of_tolerances_in_percent_answers_by_the_share():
    """200 kPa ± 5% under 压力(kPa) was refused as a cell in %, the column in kPa."""
    table = _table("压力(kPa)", "<190", "200±5%", ">210")
    assert table is not None
    assert _answer(table, "192") == ["1"]
    assert _answer(table, "209 kPa") == ["1"]
    assert _answer(table, "189") == ["0"]


@pytest.mark.parametrize(("value", "want"), [("50±10%", ["1"]), ("50 kPa ± 10 %", ["1"]),
                                             ("40±10%", ["0"])])
def test_a_tolerance_in_percent_given_is_a_share_of_the_value(value, want):
    """50±10% (45-55) was read as 40-60 and refused as spanning three rows; 40±10% (36-44)
    as 30-50."""
    table = _table("压力(kPa)", "<45", "45-55", ">55")
    assert _answer(table, value) == want


def test_a_tolerance_in_percent_given_a_column_in_percent_is_refused_as_ambiguous():
    table = _table("湿度(%)", "<45", "45-55", ">55")
    with pytest.raises(TableError, match="share of the value \\(47.5-52.5\\) or points \\(45-55\\)") \
            as caught:
        match_rules(table, {"湿度(%)": "50±5%"})
    assert "百分点（45-55）" in caught.value.message_in("zh")
    assert _answer(table, "50%±5%") == ["1"]  # in the value's own unit: points


def test_a_tolerance_in_percent_under_a_column_in_percent_is_refused_as_ambiguous(tmp_path):
    with pytest.raises(TableError, match="row 1, column 湿度\\(%\\): '50±5%': the column is in %, "
                                         "so the tolerance may be a share of the value "
                                         "\\(47.5-52.5\\) or points \\(45-55\\)"):
        _table("湿度(%)", "50±5%", ">55")
    table = _table("湿度(%)", "50%±5%", ">55")  # the tolerance in the value's own unit
    assert table is not None and _answer(table, "46") == ["0"]
    _, message = _malformed(tmp_path, "湿度(%)", ("<45", "干"), ("50±5%", "适"))
    assert "or points (45-55)" in message
