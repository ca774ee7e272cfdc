"""``--where`` ranges among a list's values, ranges open at one end, and units written in
words a blank apart (session 44, issues 5, 14, 8, 13).

``power=5–10kW,20kW`` was the two text values "5–10kW" and "20kW" (a range is read only
alone); ``power=5kW..``, ``..10kW``, ``5kW~``, ``5kW以上`` were text no document holds (a
"no document has" warning and nothing found); ``200 sq ft``, ``30 square metres``, ``2
cubic metres`` were no quantities, and m³ did not convert with litres at all. Locally and
in Milvus alike."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.decision import build_table, match_rules
from kbtools.errors import FilterError
from kbtools.query.filter_numbers import quantity
from kbtools.query.filter_text import Between, parse_where, where_text
from kbtools.query.filter_units import measured
from kbtools.query.filters import value_matches
from tests.milvus_server import (  # noqa: F401 - milvus: a fixture
    engine_rows,
    facts_fixture,
    local_rows,
    milvus,
    published_pumps,
    rows_alike,
)

FACTS = [{"power": p, "area": a} for p, a in [
    ("3kW", "20 m²"),  # 0
    ("7.5 kW", "200 sq ft"),  # 1: 18.58 m²
    ("20kW", "1亩"),  # 2: 666.7 m²
    ("12000 W", "30 square metres"),  # 3: 12 kW
    (["2kW", "25 kW"], "5 square feet"),  # 4: a list
    ("unknown", "很大"),  # 5: text
]]


@pytest.mark.parametrize(("where", "read"), [
    ("power=5–10kW,20kW", [("power", "=", (Between("5kW", "10kW"), "20kW"))]),
    ("power=[5~10kW, 20kW]", [("power", "=", (Between("5kW", "10kW"), "20kW"))]),
    ("power=..2kW、20kW..", [("power", "=", (Between(None, "2kW"), Between("20kW", None)))]),
    ("power=5kW..", [("power", ">=", "5kW")]), ("power=..10kW", [("power", "<=", "10kW")]),
    ("power=5kW~", [("power", ">=", "5kW")]), ("power=5kW～", [("power", ">=", "5kW")]),
    ("power=5kW以上", [("power", ">=", "5kW")]), ("power=5kW及以上", [("power", ">=", "5kW")]),
    ("power=10kW以下", [("power", "<=", "10kW")]), ("power=5kW+", [("power", ">=", "5kW")]),
    ("power=5kW或以上", [("power", ">=", "5kW")]), ("power=10kW及以下", [("power", "<=", "10kW")]),
    ("power=10kW或以下", [("power", "<=", "10kW")]), ("power=10kW以内", [("power", "<=", "10kW")]),
    ("power=5kW或更多", [("power", ">=", "5kW")]), ("power=5kW or more", [("power", ">=", "5kW")]),
    ("power=5 kW OR LESS", [("power", "<=", "5 kW")]), ("power>=5kW以上", [("power", ">=", "5kW")]),
    ("power<=10kW及以下", [("power", "<=", "10kW")]),  # session 47: the bound said twice
    ("power=5kW或以上,2kW", [("power", "=", (Between("5kW", None), "2kW"))]),
    ("power=500W..2kW", [("power", "=", Between("500W", "2000W"))]),  # one unit, f49b
    ("power=5kW及其以上", [("power", ">=", "5kW")]), ("power=10kW及其以下", [("power", "<=", "10kW")]),
    ("power=5到10kW之间", [("power", ">=", "5kW"), ("power", "<=", "10kW")]),  # said in words
    ("power=介于5和10kW之间", [("power", ">=", "5kW"), ("power", "<=", "10kW")]),  # (session 47)
    ("power=在5kW与10kW之间,20kW", [("power", "=", (Between("5kW", "10kW"), "20kW"))]),
    ("power=Between 5 and 10kW", [("power", ">=", "5kW"), ("power", "<=", "10kW")]),
    ("power=from 5 to 10kW", [("power", ">=", "5kW"), ("power", "<=", "10kW")]),
    ("x=between us", [("x", "=", "between us")]), ("x=之间", [("x", "=", "之间")]),
    ("x=0.5%..6‰,1‰", [("x", "=", (Between("0.5%", "0.6%"), "1‰"))]),  # (session 47)
    ("x=1公顷..20亩", [("x", "=", Between("1公顷", "1.3333333333333333334公顷"))]),  # f49, f49b
    ("date=2024-03..", [("date", ">=", "2024-03")]),
    ("power=不低于5kW", [("power", ">=", "5kW")]), ("power=不超过10kW", [("power", "<=", "10kW")]),
    ("power=At least 5 kW", [("power", ">=", "5 kW")]),
    ("power=at most 2kW,20kW", [("power", "=", (Between(None, "2kW"), "20kW"))]),
    ("power＝５ｋＷ．．", [("power", ">=", "5kW")]), ("power＝．．５ｋＷ", [("power", "<=", "5kW")]),
    ("power=10±2.5kW", [("power", ">=", "7.5kW"), ("power", "<=", "12.5kW")]),  # session 45
    ("power=10kW±2.5kW,20kW", [("power", "=", (Between("7.5kW", "12.5kW"), "20kW"))]),
    ("x=220V±10%", [("x", "=", "220V±10%")]), ("x=85+/-5%", [("x", ">=", "80%"), ("x", "<=", "90%")]),
    ('power="5..10kW",20kW', [("power", "=", ("5..10kW", "20kW"))]),  # quoted: that text
    ('power="5kW.."', [("power", "=", "5kW..")]), ("name=C++", [("name", "=", "C++")]),
])
def test_a_range_in_a_list_or_open_at_one_end_is_read_as_one(where, read):
    got = parse_where([where])
    assert got == read
    assert [type(v) for _, _, w in got for v in (w if isinstance(w, tuple) else (w,))] == \
        [type(v) for _, _, w in read for v in (w if isinstance(w, tuple) else (w,))]
    assert parse_where([where_text(*c) for c in got]) == got  # pastes back the same


@pytest.mark.parametrize(("where", "inside", "outside"), [  # session 49 (f49, issue 5)
    ("面积=1公顷..20亩", ["20亩", "1公顷", "1.2", "13333.33 m2", "15亩", "1.3333公顷"],
     ["10", "20.000001亩", "0.99公顷", "13333.34 m2", "1.33333333333333333341公顷"]),
    ("面积=1 acre..5000 m2", ["5000 m2", "1 acre", "7.5亩", "1.2", "4046.8564224 m2"],
     ["5000.001 m2", "1.3", "4046.8564 m2", "0.999 acre"]),
    ("p=1psi..1bar", ["1 bar", "100000 Pa", "14.5", "1 psi"], ["100001 Pa", "14.6", "0.99psi"]),
])
def test_a_range_whose_ends_do_not_convert_exactly_holds_both_ends(where, inside, outside):
    """Ends in units whose ratio has no ending decimal (20亩 is 4/3 公顷) were left as
    written, so a bare number was read in 公顷 against one end and in 亩 against the other
    (``面积: 10`` was within 1公顷..20亩); the last end is now in the first's unit, rounded
    up in decimals, and a document of exactly either end is within."""
    conditions = parse_where([where])
    ends = [e for _, _, w in conditions for e in ((w.low, w.high) if isinstance(w, Between) else (w,))]
    assert len({quantity(end)[0] for end in ends}) == 1  # type: ignore[index]
    for value in inside + outside:
        held = all(value_matches(key, value, op, end) for key, op, end in conditions)
        assert held == (value in inside), value


@pytest.mark.parametrize(("where", "shown"), [  # session 49 (f49b, issue 5): the end converted
    ("面积=1公顷..20亩", "面积=1公顷..20亩"), ("面积=1公顷～20亩", "面积=1公顷..20亩"),
    ("面积=1公顷..20亩,5亩", "面积=1公顷..20亩,5亩"), ("p=1psi..1bar", "p=1psi..1bar"),
    ("面积=1 acre..5000 m2,2亩..1公顷", "面积=1 acre..5000 m2,2亩..1公顷"),
    ("power=500W..2kW", "power=500W..2kW"),
])
def test_a_range_whose_end_is_converted_is_shown_as_typed(where, shown):
    """``面积=1公顷..20亩`` was shown as ``面积<=1.3333333333333333334公顷``: every surface
    shows filters by `where_text`, which now writes the end as typed, pasting back the same
    filter, compared exactly as before."""
    conditions = parse_where([where])
    assert [where_text(*c) for c in conditions] == [shown]
    assert parse_where([shown]) == conditions
    assert not any(value_matches("面积", "1.5", op, w) for _, op, w in conditions[:1]
                   if "20亩" in where)  # 1.5 公顷: compared with 4/3 公顷, not 20 (亩)


def test_a_range_is_never_the_text_it_writes():
    """A document's value ``5kW..10kW`` (chosen from a menu, or quoted) is that text, and a
    filter holding it is not the range's (the masks are cached by filter)."""
    assert Between("5kW", "10kW") != "5kW..10kW" and "5kW..10kW" != Between("5kW", "10kW")
    assert len({Between("5kW", "10kW"), "5kW..10kW"}) == 2
    assert where_text("power", "=", "5kW..10kW") == 'power="5kW..10kW"'
    assert where_text("power", ">=", "~5") == 'power>="~5"'


@pytest.mark.parametrize(("where", "says"), [
    ("power=~10kW", "a ~ before 10kW may mean about 10kW or up to it; write power<=10kW"),
    ("power=3kW,～10kW", "a ~ before 10kW may mean about 10kW or up to it"),
    ("power>=~5kW", "a ~ before 5kW may mean about 5kW or up to it; write power>=5kW"),
    ("power!=5–10kW,20kW", "a range (5–10kW) is read with = alone (power=5–10kW); else give one "
                           "bound (power>=5kW)"),
    ("power!=5kW..", "else give one bound (power<5kW)"), ("power!=..5kW", "(power>5kW)"),
    ("power>=5kW..", "a range (5kW..) is read with = alone (power=5kW..); else give one bound "
                     "(power>=5kW)"),
    ("power=10..5kW,20kW", "the range 10..5kW holds nothing, its first end above its last; "
                           "write power=5kW..10kW"),
])
def test_a_range_a_filter_cannot_mean_is_refused_in_one_line(where, says):
    with pytest.raises(FilterError, match=re.escape(says)):
        parse_where([where])


@pytest.mark.parametrize(("where", "instead"), [  # session 45 (f45b, issue 4): was "use KEY=VALUE…"
    ("数量≈10", "数量=9..11 or 数量=10±1"), ("数量 ≈ 10", "数量=9..11 or 数量=10±1"),
    ("数量~=10", "数量=9..11 or 数量=10±1"), ("数量约10", "数量=9..11 or 数量=10±1"),
    ("数量大约十", "数量=9..11 or 数量=10±1"), ("数量=约10", "数量=9..11 or 数量=10±1"),
    ("数量=10左右", "数量=9..11 or 数量=10±1"), ("power=about 5kW", "power=4.5kW..5.5kW or "
                                                              "power=5kW±0.5kW"),
    ("count approx. 10", "count=9..11 or count=10±1"), ("温度！＝约25℃", "write 温度!=25℃ (a range"),
    ("数量>=约10", "write 数量>=10"), ("数量=约0", "数量=A..B or 数量=0±D"),
])
def test_a_value_said_approximately_is_refused_naming_what_to_write(where, instead):
    with pytest.raises(FilterError, match="said approximately") as refused:
        parse_where([where])
    assert instead in str(refused.value)
    for written in instead.removeprefix("write ").split(" or "):  # each suggestion reads
        if "A..B" not in written and "±D" not in written and "(" not in written:
            assert parse_where([written]), written


@pytest.mark.parametrize(("where", "read"), [  # text holding the words is text as before
    ("title=about us", ("title", "=", "about us")), ("crop=约克", ("crop", "=", "约克")),
    ('数量="约10"', ("数量", "=", "约10")), ("note=around the pump", ("note", "=", "around the pump")),
])
def test_text_holding_an_about_word_is_read_as_typed(where, read):
    assert parse_where([where]) == [read]


@given(st.decimals(min_value=-10**6, max_value=10**6, places=2, allow_nan=False),
       st.sampled_from(["≈", "~=", "约", "=about "]), st.sampled_from(["", "kW", "℃", " mm"]))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_any_number_said_approximately_names_a_range_holding_it(number, mark, unit):
    value = f"{number}{unit}"
    with pytest.raises(FilterError, match="said approximately") as refused:
        parse_where([f"x{mark}{value}"])
    ranged = str(refused.value).split("write a range or a tolerance: ")[1].split(" or ")[0]
    if number != 0:
        (_, _, low), (_, _, high) = parse_where([ranged])
        assert quantity(low) <= quantity(value) <= quantity(high) if unit else \
            float(low) <= float(number) <= float(high)


@pytest.mark.parametrize(("written", "same"), [
    ("200 sq ft", "200 ft²"), ("200 sq. ft.", "200 sqft"), ("30 square metres", "30 m²"),
    ("30 Square Meters", "30㎡"), ("5 square feet", "5 ft2"), ("2 cubic metres", "2000 L"),
    ("2 m³", "2000000 ml"), ("1 cubic foot", "28.316846592 l"), ("3 cu in", "49.161192 ml"),
    ("9 sq yd", "81 sq ft"), ("1 yard", "3 ft"), ("2 立方米", "2000 升"), ("5 cc", "5 ml"),
    ("450 kg per ha", "30 kg/亩"), ("30 degrees F", "30°F"), ("2 square kilometres", "200 公顷"),
])
def test_units_in_words_a_blank_apart_and_volumes_convert(written, same):
    """``area>=200 sq ft`` or ``tank>=2 cubic metres`` compared text; m³ and litres never."""
    a, b = quantity(written), quantity(same)
    assert a is not None and b is not None and measured(*a) == measured(*b), (a, b)
    assert quantity("12 in the field") is None and quantity("5 square") == ("square", 5)


coll = facts_fixture("ranges", FACTS)


@pytest.mark.parametrize(("where", "rows"), [
    # 4 (2kW and 25kW): a list is in a range when a member is above its low end and one
    # below its high end, as a range alone reads it (Milvus keeps a list's extremes)
    ("power=5–10kW,20kW", [1, 2, 4]), ("power=[5~10kW, 20kW]", [1, 2, 4]),
    ("power=..3kW,20kW..", [0, 2, 4, 5]),  # 5: text orders after digits, as >= has it
    ("power=5kW..", [1, 2, 3, 4, 5]), ("power=..5kW", [0, 4]), ("power=10kW以下", [0, 1, 4]),
    ("power=10kW及以下", [0, 1, 4]), ("power=5kW或以上", [1, 2, 3, 4, 5]),  # session 47: were
    ("power=7.5kW or more,3kW", [0, 1, 2, 3, 4, 5]),  # a list (5kW, 以上) and 10kW及 a unit
    ("power=5kW~,2kW", [1, 2, 3, 4, 5]), ("power=7.5kW..12kW,3kW", [0, 1, 3, 4]),
    ("area>=200 sq ft", [0, 1, 2, 3, 5]), ("area<25 square metres", [0, 1, 4]),
    ("area=..19 m²,1亩", [1, 2, 4]), ("area=5 square feet", [4]),
    # a value and its tolerance (session 45: the text "10±2.5kW", which no document holds)
    ("power=10±2.5kW", [1, 3, 4]), ("power=20kW±1kW,3kW", [0, 2, 4]), ("area=20±2 m²", [0, 1]),
])
def test_ranges_and_units_in_words_filter_alike_locally_and_in_milvus(coll, where, rows):
    assert rows_alike(coll, "ranges", FACTS, where) == rows


ends = st.sampled_from(["", "2kW", "5", "7.5kW", "8000W", "12 kW", "20kW", "25kW", "1hp"])


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(low=ends, high=ends, other=st.sampled_from(["3kW", "20kW", "200 sq ft", "5..6kW"]),
       mark=st.sampled_from(["..", "–", "~", "至"]))
def test_any_range_in_a_list_filters_alike_locally_and_in_milvus(coll, low, high, other, mark):
    value = f"{low}{mark}{high}" if low and high else f"{low}..{high}"  # open: 5kW.., ..5kW
    try:
        conditions = parse_where([f"power={value},{other}"])
    except FilterError:  # a reversed range, an end another dimension: said in one line
        return
    for key, op, want in conditions:
        assert engine_rows(coll, "ranges", key, op, want, FACTS) == local_rows(FACTS, key, op, want)


RELEASED = {"small": ("3kW", "20 m²"), "mid": ("7.5 kW", "200 sq ft"),
            "big": ("20kW", "1亩"), "huge": ("40 kW", "2 cubic metres")}


@pytest.fixture(scope="module")
def released(tmp_path_factory, milvus):  # noqa: F811
    return published_pumps(milvus, tmp_path_factory.mktemp("ranges") / "kr", "ranges", {
        name: {"power": power, "area": area} for name, (power, area) in RELEASED.items()})


def _found(args: list[str]) -> tuple[list[str], dict]:
    res = CliRunner().invoke(main, ["query", "--json", "-k", "20", "--no-log", *args])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    return sorted({r["doc"].rsplit("/", 1)[-1][:-3] for r in out["results"]}), out


@pytest.mark.parametrize(("where", "docs", "shown"), [
    ("power=5–10kW,20kW", ["big", "mid"], ["power=5kW..10kW,20kW"]),
    ("power=30kW..", ["huge"], ["power>=30kW"]), ("power=5kW以上", ["big", "huge", "mid"], None),
    ("power=..5kW,40kW", ["huge", "small"], None),
    ("area>=150 square feet", ["big", "mid", "small"], None),
    ("area=1 cubic metre..", ["huge"], None),
])
def test_kb_query_where_ranges_locally_and_in_the_engine(released, where, docs, shown):
    """`kb query --where` end to end, on a built release and the same release published:
    the documents in range, no "no document has" warning, the filter shown as it reads."""
    dist, url = released
    question = ["pump seal replacement", "--where", where]
    for target in (["--index", str(dist)], ["--engine", url]):
        found, out = _found([*question, *target])
        assert found == docs, target
        assert not out.get("reason_values", {}).get("filters"), out.get("reason_values")
        if shown:
            assert out["filters"]["where"] == shown


def test_a_decision_table_in_litres_takes_cubic_metres():
    """The tables convert by the filters' table of units: m³ against a column in L."""
    table = build_table(["Tank (L)", "措施"], [["<1000", "小"], [">=1000", "大"]],
                        decision="inputs=Tank (L); outputs=措施")
    result = match_rules(table, {"Tank (L)": "2 m³"})
    assert result.selected == (2,)  # rows from 1


@pytest.mark.parametrize(("text", "read"), [  # session 47 (f47): a unit kw之间, kw及, kw起
    ("10kW之间", None), ("5kW及", None), ("5kW起", None), ("5kW左右", None),
    ("25kg每亩", ("kg每亩", 25)), ("3万kW", ("kw", 30000)), ("5千瓦", ("千瓦", 5)),
    ("5kW时", ("kw时", 5)), ("5 KW时", ("kw时", 5)), ("2MW时", ("mw时", 2)),  # f49: kWh
    ("5千瓦时", ("千瓦时", 5)), ("3.5万千瓦时", ("万千瓦时", 3.5)), ("5万3千2kW时", ("kw时", 53200)),
])
def test_a_latin_unit_with_a_chinese_word_after_it_is_no_unit(text, read):
    got = quantity(text)
    assert (None if got is None else (got[0], float(got[1]))) == read


@pytest.mark.parametrize(("want", "held"), [  # session 49 (f49, issue 5): 5kW时 was text
    ("5kW时", ["5kWh", "5000 Wh", "5千瓦时", "0.005MWh"]), ("5千瓦时", ["5kW时", "5 kwh"]),
    ("3.5万千瓦时", ["35000kWh", "35MWh", "3.5万kW时"]), ("2MW时", ["2000千瓦时"]),
])
def test_a_power_unit_then_hours_in_chinese_is_an_energy(want, held):
    assert all(value_matches("电量", h, "=", want) for h in held)
    assert not value_matches("电量", "5kW", "=", "5kW时")  # a power, not an energy
    assert parse_where([f"电量={want}"]) == [("电量", "=", want)]
    assert measured(*quantity(want))[0] == "wh"  # type: ignore[misc]
