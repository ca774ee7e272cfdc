"""Decision tables' overlap and gap analysis (`kb check`'s decision-overlap and
decision-gap): its findings, its cost on large tables, and its agreement with brute force."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

import kbtools.check.decision_tables
from kbtools.check.decision_tables import analyse, overlap_candidates
from kbtools.decision import build_table, match_rules, parse_condition

UNDECLARED = ("no policy declared: the first matching row wins; declare policy=first or "
              "policy=all in the decision annotation if that is meant")

def test_overlap_found():
    table = build_table(["温度", "风险"], [["≤15", "低"], ["15-20", "中"], [">20", "高"]],
                        decision="inputs=温度", row_lines=(3, 4, 5), line_start=1)
    findings = analyse(table)
    assert [(f[0], f[1]) for f in findings] == [(4, "decision-overlap")]
    assert "rows 1 and 2" in findings[0][2]


def test_an_overlap_names_both_lines_and_a_declared_policy_silences_it(tmp_path):
    """Overlapping rows of a table that declares no policy were answered by the first row
    silently, and the warning named one row's line; a table that declares its policy
    overlaps on purpose."""
    body = ("---\ntitle: t\n---\n\n# 冷藏\n\n<!-- decision: inputs=温度(℃); outputs=处置{} -->\n"
            "| 温度(℃) | 处置 |\n|---|---|\n| ≤4 | 正常 |\n| 4-8 | 观察 |\n| >8 | 报警 |\n")
    path = tmp_path / "k.md"
    path.write_text(body.format(""), encoding="utf-8")
    assert kbtools.check.decision_tables.table_findings(path) == [
        (11, "decision-overlap", f"冷藏: rows 1 and 2 (lines 10 and 11) both match some inputs "
                                 f"({UNDECLARED})")]
    for policy in ("; policy=first", "; policy=all"):
        path.write_text(body.format(policy), encoding="utf-8")
        assert kbtools.check.decision_tables.table_findings(path) == []


def test_overlap_check_of_a_large_table_compares_only_rows_sharing_a_value():
    # 6,000 rules, two per temperature span (one per crop): the rows that may overlap are the
    # 3,000 pairs sharing a span, not the 18 million pairs of rows (minutes of `kb check`)
    rows = [[f"{i}.0-{i}.5", crop, "x"] for i in range(3000) for crop in ("小麦", "玉米")]
    rows.append(["2999.5", "玉米", "y"])  # meets the row before the one before it
    table = build_table(["温度", "作物", "措施"], rows, decision="inputs=温度,作物; outputs=措施")
    assert sum(1 for _ in overlap_candidates(table)) == 3000 + 2
    overlaps = [f[2] for f in analyse(table) if f[1] == "decision-overlap"]
    assert overlaps == ["table at line 0: rows 6000 and 6001 both match some inputs "
                        f"({UNDECLARED})"]


def test_gap_check_of_a_large_table_is_not_cells_times_rows():
    # 12,000 disjoint spans make 47,999 elementary cells: each was tested against every row
    # (about a minute); each row now marks the cells it covers
    table = build_table(["温度", "措施"], [[f"{i}.0-{i}.5", "x"] for i in range(12_000)],
                        decision="inputs=温度; outputs=措施")
    start = time.monotonic()
    gaps = [f[2] for f in analyse(table) if f[1] == "decision-gap"]
    assert time.monotonic() - start < 15
    assert gaps[0] == "table at line 0: no row covers 温度 >0.5 and <1"
    assert gaps[-1] == "table at line 0: 11994 more uncovered ranges"


def test_overlap_check_stops_after_its_budget(monkeypatch):
    monkeypatch.setattr(kbtools.check.decision_tables, "MAX_OVERLAP_CHECKS", 100)
    table = build_table(["温度", "措施"], [["*", str(n)] for n in range(30)],
                        decision="inputs=温度; outputs=措施")
    overlaps = [f[2] for f in analyse(table)]
    assert overlaps[0] == f"table at line 0: rows 1 and 2 both match some inputs ({UNDECLARED})"
    assert overlaps[4].startswith("table at line 0: rows 1 and 6 both match")
    assert overlaps[5:] == ["table at line 0: 30 rows share inputs so widely that the overlap "
                            "check stopped after 100 row pairs (100 overlapping so far)"]


def test_gap_found():
    table = build_table(["温度", "风险"], [["<15", "低"], [">20", "高"]], decision="inputs=温度",
                        line_start=1)
    assert analyse(table) == [(1, "decision-gap", "table at line 1: no row covers 温度 ≥15 and ≤20")]
    table = build_table(["温度", "风险"], [["0-10", "低"], ["12-20", "高"]], decision="inputs=温度")
    assert [f[2] for f in analyse(table)] == ["table at line 0: no row covers 温度 >10 and <12"]


def test_gap_in_two_dimensions():
    rows = [["<15", "*", "低"], ["15-20", "<85", "中"], [">20", "*", "低"]]
    table = build_table(["温度", "湿度", "风险"], rows, decision="inputs=温度,湿度")
    assert [f[2] for f in analyse(table)] == [
        "table at line 0: no row covers 温度 ≥15 and ≤20, 湿度 ≥85"]


def test_gap_with_text_input():
    table = build_table(["作物", "温度", "风险"], [["a", "<15", "低"], ["b", ">=15", "高"]],
                        decision="inputs=作物,温度")
    assert [f[2] for f in analyse(table)] == ["table at line 0: no row covers 温度 <15, 作物=b",
                                              "table at line 0: no row covers 温度 ≥15, 作物=a"]


def test_open_ends_and_whole_number_steps_are_not_gaps():
    table = build_table(["运行小时", "保养"], [["≥2000", "换油"]], decision="inputs=运行小时")
    assert analyse(table) == []
    days = build_table(["天数", "措施"], [["1-3", "a"], ["4-7", "b"], [">7", "c"]],
                       decision="inputs=天数")
    assert analyse(days) == []


# ----------------------------------------------------------------- properties

_bound = st.integers(min_value=0, max_value=20)
_cell = st.one_of(
    st.tuples(st.sampled_from(["<", "≤", ">", "≥", ""]), _bound).map(lambda t: f"{t[0]}{t[1]}"),
    st.tuples(_bound, _bound).map(lambda t: f"{min(t)}-{max(t)}"),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(_cell, min_size=1, max_size=6))
def test_analysis_agrees_with_brute_force(cells):
    table = build_table(["x", "y"], [[c, str(n)] for n, c in enumerate(cells)],
                        decision="inputs=x")
    codes = {code for _, code, _ in analyse(table)}
    conds = [r[0] for r in table.conditions]
    lo, hi = min(c.lo for c in conds), max(c.hi for c in conds)
    for x in [v / 2 for v in range(-6, 48)]:
        n = sum(c.accepts_number(x) for c in conds)
        assert match_rules(table, {"x": str(x)}).status == ("match" if n else "no_match")
        if n > 1:
            assert "decision-overlap" in codes, (cells, x)
        if n == 0 and lo <= x <= hi and float(x).is_integer() and table.numeric:
            # (a column of bare numbers only is categorical: no gap analysis)
            assert "decision-gap" in codes, (cells, x)


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
       st.floats(min_value=-1e3, max_value=1e3, allow_nan=False),
       st.floats(min_value=0, max_value=1e3, allow_nan=False))
def test_three_rows_tile_any_breakpoints(x, a, width):
    a, b = round(a, 2), round(a + width, 2)
    rows = [parse_condition(f"<{a}"), parse_condition(f"{a}~{b}"), parse_condition(f">{b}")]
    assert sum(c.accepts_number(x) for c in rows) == 1


def test_gap_names_only_the_columns_it_narrows():
    # the docs' own example table: the gap at 15-20 with more than 3 rainy days holds any
    # humidity, which the message showed as a bare column name ("相对湿度(%) , 连续降雨天数 >3")
    rows = [["<15", "*", "*", "低"], ["15-20", "≥85", "≤3", "中"]]
    table = build_table(["温度(℃)", "相对湿度(%)", "连续降雨天数", "风险等级"], rows,
                        decision="inputs=温度(℃),相对湿度(%),连续降雨天数")
    gaps = [f[2] for f in analyse(table) if f[1] == "decision-gap"]
    assert gaps == ["table at line 0: no row covers 温度(℃) ≥15 and ≤20, 相对湿度(%) <85, "
                    "连续降雨天数 ≤3",
                    "table at line 0: no row covers 温度(℃) ≥15 and ≤20, 连续降雨天数 >3"]


# ------------------------------------------------------ times of day across midnight

def _clock_findings(*cells: str) -> list[tuple[str, str]]:
    table = build_table(["时间", "班次"], [[c, str(n)] for n, c in enumerate(cells)],
                        decision="inputs=时间")
    return [(code, message) for _, code, message in analyse(table)]


def test_an_overlap_across_midnight_is_found():
    """22:00-6:00 beside 5:00-9:00 share 5:00 to 6:00: the check said nothing (a range whose
    start is after its end was taken for an empty one)."""
    findings = _clock_findings("22:00-6:00", "5:00-9:00", ">9:00 and <22:00")
    assert [c for c, _ in findings] == ["decision-overlap"]
    assert "rows 1 and 2 both match" in findings[0][1]


def test_a_gap_beside_a_range_across_midnight_is_found():
    """22:00-6:00 and 7:00-22:00 leave 6:00 to 7:00, and 22:00-6:00 with 6:00-12:00 leaves
    the afternoon and evening: neither was reported."""
    assert ("decision-gap", "table at line 0: no row covers 时间 >6:00 and <7:00") in \
        _clock_findings("22:00-6:00", "7:00-22:00")
    assert ("decision-gap", "table at line 0: no row covers 时间 >12:00 and <22:00") in \
        _clock_findings("22:00-6:00", "6:00-12:00")


def test_a_whole_day_covered_across_midnight_has_no_gap_or_overlap():
    assert _clock_findings("22:00-6:00", ">6:00 and <22:00") == []
    assert _clock_findings(">=22:00", "<6:00", ">=6:00 and <22:00") == []  # no range crosses


def test_a_gap_between_times_is_written_as_times():
    """The gap between 8:00-12:00 and 13:00-17:00 read "时间 >720 and <780"."""
    assert _clock_findings("8:00-12:00", "13:00-17:00") == [
        ("decision-gap", "table at line 0: no row covers 时间 >12:00 and <13:00")]


_hour = st.integers(min_value=0, max_value=23).map(lambda h: f"{h}:00")
_clock_cell = st.one_of(
    st.tuples(st.sampled_from(["<", "≤", ">", "≥"]), _hour).map("".join)
    .filter(lambda c: c != "<0:00"),  # (before midnight on no day)
    st.tuples(_hour, _hour).filter(lambda t: t[0] != t[1]).map("-".join),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(_clock_cell, min_size=1, max_size=5))
def test_analysis_across_midnight_agrees_with_brute_force(cells):
    """Every minute of the day matched by two rows is an overlap; when a range crosses
    midnight, every minute matched by none is a gap (and none is reported otherwise)."""
    codes = {code for code, _ in _clock_findings(*cells)}
    table = build_table(["时间", "班次"], [[c, str(n)] for n, c in enumerate(cells)],
                        decision="inputs=时间")
    conds = [r[0] for r in table.conditions]
    counts = [sum(c.accepts_number(m) for c in conds) for m in range(24 * 60)]
    assert ("decision-overlap" in codes) == any(n > 1 for n in counts), cells
    if any(c.lo > c.hi for c in conds):
        assert ("decision-gap" in codes) == (0 in counts), cells
