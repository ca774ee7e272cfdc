"""``--where`` on values with units and on booleans (session 40, issues 5, 14, 8).

A number with its unit after it (``7.5kW``, ``3 kW``, ``20%``, ``15亩``, ``1500 r/min``) was
text: ``power>5kW`` missed ``12kW`` ("1" sorts before "5") and ``power=7.5 kW`` missed
``7.5kW``. Two quantities in one unit (case aside) compare as their numbers; in two units
of one dimension converted (session 41: ``500W`` is below ``5kW``, `filter_units`); in
units of two dimensions or a unit not known never; a bare number compares with a
quantity's number in the quantity's unit. Locally and in Milvus alike."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.errors import FilterError
from kbtools.query.filter_checks import _check_order
from kbtools.query.filter_kinds import member_class
from kbtools.query.filter_numbers import quantity
from kbtools.query.filter_text import parse_where, where_text
from kbtools.query.filter_units import dimension_problem
from kbtools.query.filters import value_matches
from tests.milvus_server import engine_rows, facts_collection, local_rows, milvus  # noqa: F401

FACTS = [{"power": v, "面积": a, "reviewed": r} for v, a, r in [
    ("7.5kW", "15亩", True),  # 0: YAML's `reviewed: yes` is true
    ("3 kW", "8 亩", False),  # 1
    (11, 20, "yes"),  # 2: bare numbers; a quoted "yes" is text
    ("500W", "1.5公顷", None),  # 3: another unit
    ("12kW", "120亩", [True, "x"]),  # 4: "12kW" < "5kW" as text
    (["2kW", "15 ＫＷ"], "30亩", "true"),  # 5: a list; full-width
    ("unknown", "未知", "否"),  # 6: text
]]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    with facts_collection(milvus, "units", "units", [(f, False) for f in FACTS]) as engine:
        yield engine


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("power", ">", "5kW", [0, 2, 4, 5, 6]),  # 11 bare: 11 kW; unknown: text, after digits
    ("power", ">=", "12 KW", [4, 5, 6]), ("power", "<", "5kW", [1, 3, 5]),
    ("power", "=", "7.5 kW", [0]), ("power", "=", "7.50KW", [0]), ("power", "=", "15kw", [5]),
    ("power", "=", "11kW", []), ("power", "=", "7.5", []),  # a bare number: no unit to be equal in
    ("power", "=", "500w", [3]), ("power", "=", "0.5kW", [3]), ("面积", "=", "22.5亩", [3]), ("power", ">=", "11kW", [2, 4, 5, 6]),
    ("power", "!=", "12kW", [0, 1, 2, 3, 5, 6]),
    ("power", ">=", "5000W", [0, 4, 5, 6]),  # in watts: 7.5kW, 12kW and 15kW (session 41)
    ("power", ">", "5", [0, 2, 3, 4, 5, 6]),  # bare: each quantity's number
    ("面积", ">", "10亩", [0, 2, 3, 4, 5, 6]), ("面积", "<=", "10 亩", [1]), ("面积", "=", "1.5公顷", [3]),
])
def test_quantities_of_one_dimension_compare_as_numbers_locally_and_in_milvus(coll, key, op, want,
                                                                         rows):
    assert local_rows(FACTS, key, op, want) == rows
    assert engine_rows(coll, "units", key, op, want, FACTS) == rows


def test_what_is_a_quantity():
    assert [quantity(t) is not None for t in (
        "7.5kW", "3 kW", "20%", "15亩", "1500 r/min", "-5 °C", "30℃", "２．５ｋＷ", "−1.5 kW")] == [True] * 9
    assert [member_class(t) for t in (
        "HX-260", "E17", "3000-12", "1.2.3a1", "2024年", "24V DC", "7.5", "v2", "x²")] == [
        "t", "t", "d", "t", "d", "t", "m", "v", "t"]


CHINESE = [{"合格": v} for v in (True, False, "真", "假", "对", "错", "是", ["否", "x"], "真的", "yes")]


@pytest.fixture(scope="module")
def chinese(milvus):  # noqa: F811
    with facts_collection(milvus, "yesno", "yesno", [(f, False) for f in CHINESE]) as engine:
        yield engine


@pytest.mark.parametrize(("op", "want", "rows"), [
    ("=", "真", [0, 2, 4, 6]), ("=", "对", [0, 2, 4, 6]), ("=", "是", [0, 2, 4, 6]),
    ("=", "true", [0, 2, 4, 6]), ("=", "yes", [0, 2, 4, 6, 9]),  # 9: a quoted "yes" is text
    ("=", "假", [1, 3, 5, 7]), ("=", "错", [1, 3, 5, 7]), ("=", "no", [1, 3, 5, 7]),
    ("!=", "真", [1, 3, 5, 7, 8, 9]), ("=", "真的", [8]),  # 真的 is text, found as written
])
def test_chinese_yes_and_no_name_booleans_on_both_sides_locally_and_in_milvus(chinese, op, want,
                                                                              rows):
    """``--where 合格=真`` (假, 对, 错) was text, which YAML's ``合格: true`` is not; and a
    document's ``合格: 是`` (YAML has no Chinese boolean: the author's yes) was no
    ``合格=true``. The Chinese words name a boolean in a filter and in a document alike."""
    assert local_rows(CHINESE, "合格", op, want) == rows
    assert engine_rows(chinese, "yesno", "合格", op, want, CHINESE) == rows
    assert value_matches("verified", True, "=", "对") and value_matches("verified", False, "=", "假")


amounts = st.builds(lambda n, sp, u: f"{n}{sp}{u}", st.sampled_from(
    ["0", "5", "7.5", "11", "12", "-3", "500", "1e3", "007"]), st.sampled_from(["", " "]),
    st.sampled_from(["kW", "KW", "W", "亩", "%", "r/min", "公顷", "kg"]))
wants = st.one_of(amounts, st.sampled_from(["5", "11", "2024", "1.9", "abc", "2024-03-01"]))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=wants, op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]),
       key=st.sampled_from(["power", "面积"]))
def test_any_quantity_or_number_filters_alike_locally_and_in_milvus(coll, want, op, key):
    assert engine_rows(coll, "units", key, op, want, FACTS) == local_rows(FACTS, key, op, want)


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("reviewed", "=", "yes", [0, 2, 4]), ("reviewed", "=", "YES", [0, 2, 4]),
    ("reviewed", "=", "是", [0, 4]), ("reviewed", "=", "on", [0, 4]),
    ("reviewed", "=", "true", [0, 4, 5]), ("reviewed", "!=", "yes", [1, 3, 5, 6]),
    ("reviewed", "=", "no", [1, 6]), ("reviewed", "=", "否", [1, 6]), ("reviewed", "=", "1", []),
])
def test_yaml_booleans_are_named_as_authors_write_them_locally_and_in_milvus(coll, key, op,
                                                                             want, rows):
    """Front matter is YAML 1.1: an author's ``reviewed: yes`` is true, but
    ``--where reviewed=yes`` compared the word with "true" and found nothing (``是`` too);
    ``verified=是`` was refused (tests/test_filter_surfaces.py). A boolean is named by true, yes, on, 是 (false, no, off,
    否), case aside; a quoted ``"yes"`` stays the text it is (``否``, which YAML reads as no
    boolean, is the author's no: session 44)."""
    assert local_rows(FACTS, key, op, want) == rows
    assert engine_rows(coll, "units", key, op, want, FACTS) == rows
    # verified (every row's False here) reads them alike, and is no longer refused so
    assert engine_rows(coll, "units", "verified", "=", "否") == list(range(len(FACTS)))
    assert engine_rows(coll, "units", "verified", "=", "是") == []
    assert value_matches("verified", True, "=", "是") and value_matches("verified", False, "!=", "yes")


# --- units converted within one dimension (session 41) ----------------------------------

MEASURED = [{"power": p, "weight": w, "depth": d, "温度": t} for p, w, d, t in [
    ("5kW", "1500kg", "0.5 m", "104°F"),  # 0
    ("300 W", "2.5t", "20cm", "35℃"),  # 1
    ("2 hp", "800 g", "400mm", "-40°F"),  # 2: 2 hp is 1491.4 W; -40 °F is -40 ℃
    ("7.5 KW", ["3斤", "2 t"], "1km", "45 °C"),  # 3: 3 斤 is 1.5 kg
]]


@pytest.fixture(scope="module")
def measured_coll(milvus):  # noqa: F811
    with facts_collection(milvus, "measured", "measured", [(f, False) for f in MEASURED]) as engine:
        yield engine


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("power", ">", "500W", [0, 2, 3]),  # 5kW, 2 hp and 7.5kW: were never compared with watts
    ("power", "=", "5000w", [0]), ("power", "<", "0.5kW", [1]), ("power", ">=", "1.5 hp", [0, 2, 3]),
    ("power", "!=", "300W", [0, 2, 3]), ("power", "=", "0.3 kW", [1]),
    ("weight", "<=", "2t", [0, 2, 3]),  # 1500 kg; 800 g; 3 斤
    ("weight", "=", "1.5kg", [3]), ("weight", ">", "2000kg", [1]),
    ("weight", "=", "1500000g", [0]), ("weight", "<", "1公斤", [2]),
    ("depth", ">=", "30cm", [0, 2, 3]),  # 0.5 m, 400 mm, 1 km
    ("depth", "<", "0.3m", [1]), ("depth", "=", "500 mm", [0]), ("depth", "=", "1000m", [3]),
    ("温度", "<=", "40℃", [0, 1, 2]),  # 104 °F is 40 ℃: equal
    ("温度", "=", "40℃", [0]), ("温度", "=", "-40℃", [2]), ("温度", ">", "100°F", [0, 3]),
    ("温度", "<", "95 ℉", [2]), ("温度", "<=", "95 ℉", [1, 2]),  # 35 ℃ is 95 °F
])
def test_quantities_convert_within_one_dimension_locally_and_in_milvus(measured_coll, key, op,
                                                                        want, rows):
    """``power>500W`` did not match ``5kW`` (units were never converted), nor ``weight<=2t``
    ``1500kg``, ``depth>=30cm`` ``0.5 m`` or ``温度<=40℃`` ``104°F``. Within one dimension
    the units decision tables convert (and W/kW; ℃/°F exactly) compare converted."""
    assert local_rows(MEASURED, key, op, want) == rows
    assert engine_rows(measured_coll, "measured", key, op, want, MEASURED) == rows


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=st.builds(lambda n, u: f"{n}{u}", st.sampled_from(["0", "0.5", "40", "104", "1500"]),
                      st.sampled_from(["W", "kW", "kg", "t", "g", "cm", "m", "℃", "°F", "hp"])),
       op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]),
       key=st.sampled_from(["power", "weight", "depth", "温度"]))
def test_converted_quantities_filter_alike_locally_and_in_milvus(measured_coll, want, op, key):
    assert engine_rows(measured_coll, "measured", key, op, want, MEASURED) == \
        local_rows(MEASURED, key, op, want)


# --- horsepower, psi, inches, gallons and rates converted too (session 42) ---------------

IMPERIAL = [{"power": p, "pressure": b, "size": d, "tank": v, "rate": r, "转速": n}
            for p, b, d, v, r, n in [
    ("7.5kW", "2 bar", "12.7cm", "20L", "20kg/亩", "1500 r/min"),  # 0
    ("3 hp", "0.25 MPa", "2 in", "5 gal", "450 kg/ha", "2000rpm"),  # 1: 2237.1 W; 18.93 L
    ("10马力", "30 psi", "1 ft", "3785.411784 ml", "300公斤每公顷", "1800 转/分"),  # 2: 7355 W
    ("800 W", "150kPa", "0.3m", "1 加仑", "25 kg/mu", "900 RPM"),  # 3
]]


@pytest.fixture(scope="module")
def imperial_coll(milvus):  # noqa: F811
    with facts_collection(milvus, "imperial", "imperial", [(f, False) for f in IMPERIAL]) as engine:
        yield engine


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("power", ">", "5hp", [0, 2]),  # 3728.5 W: 7.5 kW and 10 马力 (metric: 7355 W)
    ("power", "<=", "3hp", [1, 3]), ("power", "=", "3 HP", [1]), ("power", ">", "7.4kW", [0]),
    ("power", "=", "7354.9875W", [2]),  # 10 马力 exactly
    ("pressure", "<=", "30psi", [0, 2, 3]),  # 206.8 kPa: 2 bar, 30 psi, 150 kPa
    ("pressure", ">", "2.05bar", [1, 2]), ("pressure", "<", "30 psi", [0, 3]),
    ("pressure", "=", "30psi", [2]), ("pressure", "!=", "30 PSI", [0, 1, 3]),
    ("size", "=", "5in", [0]), ("size", ">=", "12in", [2]),  # 1 ft is 12 in: 304.8 mm
    ("size", "=", "12 inches", [2]), ("size", "<", "30.48cm", [0, 1, 3]),
    ("tank", "=", "1gal", [2, 3]), ("tank", ">", "4 gal", [0, 1]), ("tank", "<=", "3.8L", [2, 3]),
    ("rate", "=", "300kg/ha", [0, 2]), ("rate", ">=", "25公斤/亩", [1, 3]),
    ("rate", "<", "400 kg/ha", [0, 2, 3]), ("rate", "=", "30kg/亩", [1]),
    ("power", ">", "−1hp", [0, 1, 2, 3]), ("pressure", ">=", "−0.5 bar", [0, 1, 2, 3]),
    ("转速", ">", "1600rpm", [1, 2]), ("转速", "=", "1500 RPM", [0]),  # spellings of one unit
    ("转速", "<=", "1800r/min", [0, 2, 3]), ("转速", "!=", "900转/分", [0, 1, 2]),
])
def test_horsepower_psi_inches_gallons_and_rates_convert(imperial_coll, key, op, want, rows):
    """``power>5hp`` against values in kW, ``pressure<=30psi`` against bar and kPa,
    ``size>=12in`` against cm and ft, gallons against litres and ``rate>=25公斤/亩``
    against kg/ha compared nothing: each unit only with itself (session 41 left them). Each
    converts within its dimension by its exact definition, locally and in Milvus alike;
    ``rpm``, ``r/min`` and ``转/分`` are one unit's spellings (they were three units)."""
    assert local_rows(IMPERIAL, key, op, want) == rows
    assert engine_rows(imperial_coll, "imperial", key, op, want, IMPERIAL) == rows


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=st.builds(lambda n, u: f"{n}{u}", st.sampled_from(["0", "2.5", "30", "450", "7354.9875"]),
                      st.sampled_from(["hp", "W", "psi", "bar", "in", "mm", "gal", "L", "kg/ha",
                                       "kg/亩", "马力", "m/s", "rpm", "r/min"])),
       op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]),
       key=st.sampled_from(["power", "pressure", "size", "tank", "rate", "转速"]))
def test_imperial_units_and_rates_filter_alike_locally_and_in_milvus(imperial_coll, want, op, key):
    assert engine_rows(imperial_coll, "imperial", key, op, want, IMPERIAL) == \
        local_rows(IMPERIAL, key, op, want)


def test_a_unit_of_another_dimension_than_the_values_is_refused():
    """``pressure<=30kg`` beside values in bar and psi, or ``rate>=20kg`` beside kg/亩, is
    refused in one line naming their units, as ``power>5kg`` beside kW was."""
    for values, want in ((["2 bar", "30 psi"], "30kg"), (["20kg/亩", "450 kg/ha"], "20kg"),
                         (["7.5kW", "3 hp"], "5 gal")):
        assert dimension_problem(want, values) is not None, (want, values)
    assert dimension_problem("30psi", ["2 bar", "150kPa"]) is None
    assert dimension_problem("20kg/亩", ["450 kg/ha"]) is None


def test_a_unit_no_value_is_in_is_refused_not_an_empty_result():
    """``pressure>=2巴`` (a unit not known) beside values in bar and psi compared 巴 with
    巴 alone and found nothing, silently; refused in one line naming the values' units. A
    unit some value is in, or a bare number or text among the values, is not judged."""
    assert dimension_problem("2 巴", ["2 bar", "30 psi", "-0.5bar"]) == (
        "2 巴 is in a unit none of the values here is in (2 bar, 30 psi); give one in their "
        "units")
    assert dimension_problem("1kva", ["7.5kW", "5 kvar"]) is not None
    for values in (["2 bar", "3巴"], ["2 bar", "3"], ["2 bar", "high"]):
        assert dimension_problem("2巴", values) is None, values


# --- ranges, and the operators a Chinese input method types (session 41) -----------------

@pytest.mark.parametrize(("where", "read"), [
    ("power=5kW..10kW", [("power", ">=", "5kW"), ("power", "<=", "10kW")]),
    ("power=5..10kW", [("power", ">=", "5kW"), ("power", "<=", "10kW")]),  # the unit carried
    ("power=5~10 kW", [("power", ">=", "5kW"), ("power", "<=", "10 kW")]),
    ("power＝5～10kW", [("power", ">=", "5kW"), ("power", "<=", "10kW")]),
    ("depth=30至60cm", [("depth", ">=", "30cm"), ("depth", "<=", "60cm")]),
    ("周期=3到5天", [("周期", ">=", "3天"), ("周期", "<=", "5天")]),
    ("published=2024-01..2024-03", [("published", ">=", "2024-01"), ("published", "<=", "2024-03")]),
    ("fw=1.2..1.4", [("fw", ">=", "1.2"), ("fw", "<=", "1.4")]),
    ("crop≠小麦", [("crop", "!=", "小麦")]), ("power≧5kW", [("power", ">=", "5kW")]),
    ("power≦5kW", [("power", "<=", "5kW")]), ("power ≥ 5kW", [("power", ">=", "5kW")]),
    ("route=北京到上海", [("route", "=", "北京到上海")]),  # no range of values: text
    ("voltage=12-24V", [("voltage", "=", "12-24V")]),  # a value written so: as it is
    ('power="5..10kW"', [("power", "=", "5..10kW")]),  # quoted: as it is
])
def test_a_range_and_wide_operators_are_read(where, read):
    """``power=5kW..10kW`` was one text value no document holds (nothing, "did you mean
    power=5kW"); ``crop≠小麦`` and ``power≧5kW`` were "use KEY=VALUE". A range of numbers,
    quantities, versions or dates is both ends included; ≠ ≧ ≦ are != >= <=."""
    assert parse_where([where]) == read


@pytest.mark.parametrize(("where", "says"), [
    ("power>=5kW..10kW", "a range (5kW..10kW) is read with = alone (power=5kW..10kW); else "
                         "give one bound (power>=5kW)"),
    ("power!=5~10kW", "a range (5~10kW) is read with = alone"),
])
def test_a_range_with_another_operator_is_refused(where, says):
    with pytest.raises(FilterError, match=re.escape(says)):
        parse_where([where])


@pytest.mark.parametrize(("low", "high", "key", "rows"), [
    ("500W", "6kW", "power", [0, 2]), ("300W", "6kW", "power", [0, 1, 2]), ("300", "1000W", "power", [1]), ("1kg", "2t", "weight", [0, 3]),
    ("35℃", "40℃", "温度", [0, 1]),  # 104 °F is 40 ℃
])
def test_a_range_filters_alike_locally_and_in_milvus(measured_coll, low, high, key, rows):
    conditions = parse_where([f"{key}={low}..{high}"])  # two bounds, or the range (6kW: 6000W)
    local = sorted(set.intersection(*(set(local_rows(MEASURED, *c)) for c in conditions)))
    engine = sorted(set.intersection(*(set(engine_rows(measured_coll, "measured", *c, MEASURED))
                                       for c in conditions)))
    assert local == engine == rows


def test_an_order_on_quantities_given_text_is_refused():
    """``power>=abc`` (or ``power>=5-10kW``) of values such as 5kW compared text with text
    and said "no document has power>=abc", where ``size>=abc`` of numbers is refused."""
    for want in ("abc", "5-10kW"):
        with pytest.raises(FilterError, match="power is a number with its unit in this index "
                                              r"\(e\.g\. 5kW\); compare it with one"):
            _check_order("power", ">=", want, ["5kW", 3, ["800 W"]])
    _check_order("power", ">=", "5", ["5kW", 3])  # a bare number orders with them


@pytest.mark.parametrize(("where", "read"), [
    ("crop=[小麦, 玉米]", [("crop", "=", ("小麦", "玉米"))]),
    ("crop!=[小麦，玉米]", [("crop", "!=", ("小麦", "玉米"))]),
    ('crop=["a,b", c]', [("crop", "=", ("a,b", "c"))]),
    ("crop=[ 小麦 ]", [("crop", "=", "小麦")]),
    ('crop="[a, b]"', [("crop", "=", "[a, b]")]),  # quoted: the text as it is
    ("title=[草稿] 小麦", [("title", "=", "[草稿] 小麦")]),  # no list: as it is
])
def test_a_yaml_flow_list_is_read_as_its_items(where, read):
    """``crop=[小麦, 玉米]``, a list as front matter writes it, was the one value "[小麦" and
    "玉米]" (named as values no document holds); it lists 小麦 and 玉米 (session 41). Written
    back (`where_text`) it reads as the same filter."""
    assert parse_where([where]) == read
    assert [parse_where([where_text(*c)])[0] for c in read] == read


@pytest.mark.parametrize("where", ["crop=[]", "crop!=[ ]", "crop=[,]"])
def test_an_empty_list_is_refused_in_one_line(where):
    with pytest.raises(FilterError, match=r"an empty list names no value; give one or more "
                                          r"\(crop!?=A or crop!?=\[A, B\]\)$"):
        parse_where([where])


@pytest.mark.parametrize(("where", "read"), [
    ("crop=［小麦，玉米］", [("crop", "=", ("小麦", "玉米"))]),
    ("crop!=【小麦、玉米】", [("crop", "!=", ("小麦", "玉米"))]),
    ("crop＝［ 小麦 ］", [("crop", "=", "小麦")]),
    ("size＞＝5", [("size", ">=", "5")]), ("size ≥ 5", [("size", ">=", "5")]),
    ("title=【草稿】小麦", [("title", "=", "【草稿】小麦")]),  # no list: as it is
    ("code=a[1]", [("code", "=", "a[1]")]), ('title="[a"', [("title", "=", "[a")]),
])
def test_a_list_in_full_width_brackets_is_read_as_its_items(where, read):
    """``crop=［小麦，玉米］`` (a Chinese input method's brackets) was the two values "［小麦"
    and "玉米］", named as values no document holds; it lists 小麦 and 玉米 as ``[…]`` does
    (session 42). Written back (`where_text`) each reads as the same filter."""
    assert parse_where([where]) == read
    assert [parse_where([where_text(*c)])[0] for c in read] == read


@pytest.mark.parametrize(("where", "read"), [
    ("日期>＝2024－03－01", [("日期", ">=", "2024－03－01")]), ("size<＝5", [("size", "<=", "5")]),
    ("size > ＝ 5", [("size", ">=", "5")]), ("size!＝5", [("size", "!=", "5")]),
    ("size＞=5", [("size", ">=", "5")]), ('size="＝5"', [("size", "=", "＝5")]),
])
def test_an_operator_typed_half_ascii_half_full_width_is_that_operator(where, read):
    """``日期>＝2024-03-01`` (an input method switched between the two characters) was the
    order ``>`` of the text "＝2024-03-01", which nothing holds (session 45); a value after
    ``=`` that begins with one (``=≥5``) is refused as ``=>=`` is, its quotes named, and
    shown as typed (session 48: it showed ``'=>='``)."""
    assert parse_where([where]) == read
    with pytest.raises(FilterError, match=re.escape("'=≥' is not an operator; for ≥5 write size>=5")):
        parse_where(["size=≥5"])


@pytest.mark.parametrize(("where", "read"), [
    ("功率>=6kW;", [("功率", ">=", "6kW")]), ("功率>=6kW，", [("功率", ">=", "6kW")]),
    ("功率 ≥ 6kW ; ", [("功率", ">=", "6kW")]), ('功率>="6kW;"', [("功率", ">=", "6kW;")]),
    ("price>=1,000", [("price", ">=", "1,000")]),  # inside: as written (a hint says 1000)
])
def test_a_separator_after_an_order_s_value_names_nothing(where, read):
    """``功率>=6kW;`` (a list's habit, or a pasted line) ordered by the text "6kW;" (session
    45): a separator after an order's one value names nothing, as after a list's last; in
    quotes it is kept, and written back so."""
    assert parse_where([where]) == read
    assert [parse_where([where_text(*c)])[0] for c in read] == read


@pytest.mark.parametrize(("where", "same"), [
    ("功率大于6kW", "功率>6kW"), ("功率 不低于 5kW", "功率>=5kW"), ("功率大于等于7.5kW", "功率>=7.5kW"),
    ("数量小于或等于十", "数量<=十"), ("日期早于2024年3月", "日期<2024年3月"), ("日期不晚于2024", "日期<=2024"),
    ("author 不等于 张三", "author!=张三"), ("数量等于十二", "数量=十二"), ('"pH (水)"低于7', '"pH (水)"<7'),
    ("Power At Least 6 kW", "Power>=6 kW"), ("size no more than 5", "size<=5"),
    ("crop不等于小麦，玉米", "crop!=小麦，玉米"), ("date earlier than 2024", "date<2024"),
    ("updated since March 2024", "updated>=March 2024"), ("crop 小麦", None),
])
def test_an_operator_in_words_is_that_operator(where, same):
    """``功率大于6kW`` or ``power at least 5kW`` (no operator at hand on a tablet, or an agent
    writing words) was refused with the generic line, or told to write ``power at least=5kW``
    (session 45): the words are the operator they name, the same filter as written with it."""
    if same is None:  # no operator words known: still refused in one line
        with pytest.raises(FilterError, match="use KEY=VALUE"):
            parse_where([where])
        return
    assert parse_where([where]) == parse_where([same])


@pytest.mark.parametrize(("where", "says"), [
    ("size>=[5]", "'size>=[5]': a list ([5], column 7) is read with = or != alone; give >= "
                  "one value (size>=5)"),
    ("size ≥ ［5］", "'size ≥ ［5］': a list (［5］, column 8) is read with = or != alone"),
    ("crop=[小麦, 玉米", "'crop=[小麦, 玉米': the [ at column 6 is never closed; end the list "
                      "with ] (crop=[小麦, 玉米]), or put a value starting so in quotes"),
    ("crop ＝ 【小麦、玉米 ", "'crop ＝ 【小麦、玉米 ': the 【 at column 8 is never closed; end the "
                         "list with 】"),
    ("crop!=小麦, 玉米]", "'crop!=小麦, 玉米]': the ] at column 13 closes no list; begin the "
                       "list with [ (crop!=[小麦, 玉米])"),
])
def test_an_order_against_a_list_or_an_unclosed_bracket_is_refused_naming_its_column(where,
                                                                                       says):
    """``size>=[5]`` compared text and found nothing; ``crop=[小麦, 玉米`` read the values
    "[小麦" and 玉米 and warned of the first as held by no document. Each is one line naming
    the filter and the column of the bracket (session 42)."""
    with pytest.raises(FilterError) as caught:
        parse_where([where])
    assert str(caught.value).startswith(f"bad --where {says}")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("where", "says"), [
    ("crop: 小麦", "'crop: 小麦': a colon is no operator; use crop=小麦 (or !=, >=, <=, >, <)"),
    ("功率：7.5kW", "'功率：7.5kW': a colon is no operator; use 功率=7.5kW"),
    ('"pH (水)": 6', "use \"pH (水)\"=6"), ("crop: [小麦, 玉米]", "use crop=[小麦, 玉米] ("),
])
def test_a_filter_typed_as_front_matter_writes_it_names_the_filter_to_give(where, says):
    """``crop: 小麦`` (as front matter writes a key, Typora and Obsidian authors' habit) was
    "use KEY=VALUE, …"; it names the filter it means, in one line (session 42)."""
    with pytest.raises(FilterError) as caught:
        parse_where([where])
    assert says in str(caught.value) and "\n" not in str(caught.value)


MISTYPED = [  # session 49 (f49, issue 14): 功率：≤0℃ was told to write 功率=≤0℃, itself refused
    "功率：≤0℃", "功率:≥5kW", "功率: >=5kW", "功率：<5", "功率：＞5kW", "功率: ≠5", "功率:=5",
    "功率: ≤", "功率: ==5", "x: 1万50", "x: ~10kW", "x: 03/04/2024", "x: 10..5kW", "功率：约10",
    "crop: 小麦", "功率：5kW以上", "power 5kW", "温度=≤0℃", "数量≈10",
    "power=~10kW", "价格=1万50", "x: a\"b", "功率=10..5kW",
]


def suggested(message: str) -> list[str]:
    """Each filter an error message tells to write (after ``use`` or ``write``, ``or`` apart)."""
    found = []
    for said in re.findall(r"(?:\buse|\bwrite|如) (.+?)(?= \(or |[;；,]? or use |, or use |$)", message):
        said = said.removeprefix("a range or a tolerance: ")
        found += [s.strip().split(" (")[0] for s in re.split(r",? or (?=\S+[=<>!])", said)]
    return [s for s in found if "KEY" not in s and "VALUE" not in s and "A..B" not in s]


@pytest.mark.parametrize("where", MISTYPED)
def test_every_filter_an_error_suggests_is_one_that_is_read(where):
    with pytest.raises(FilterError) as caught:
        parse_where([where])
    told = suggested(str(caught.value))
    assert told, str(caught.value)
    for instead in told:
        parse_where([instead])


@pytest.mark.parametrize(("where", "instead"), [
    ("功率：≤0℃", "use 功率<=0℃ ("), ("功率: >=5kW", "use 功率>=5kW ("), ("功率: ≠5", "use 功率!=5 ("),
    ("功率: ≤", 'use 功率="≤" ('), ("x: 03/04/2024", 'use x="03/04/2024" ('),
    ("功率：约10", "write a range or a tolerance: 功率=9..11 or 功率=10±1"),
])
def test_a_colon_before_an_order_names_that_order(where, instead):
    with pytest.raises(FilterError, match=re.escape(instead)):
        parse_where([where])


@pytest.mark.parametrize(("where", "instead"), [  # session 49 (f49b, issue 14): the literal
    ("功率: 10..5kW", "use 功率=5kW..10kW ("), ("x：10kW～5kW", "use x=5kW..10kW ("),
    ("温度: 30..-5℃", "use 温度=-5℃..30℃ ("), ("数量: 10..5", "use 数量=5..10 ("),
    ("x: 10..5kW,3kW", 'use x="10..5kW,3kW" ('),  # a correction of one value: not the filter
])
def test_a_colon_before_a_reversed_range_names_the_range_corrected(where, instead):
    """``功率: 10..5kW`` was told to write ``功率="10..5kW"`` (text matching nothing): the
    refusal of ``功率=10..5kW`` knows the range meant, and the advice is that filter."""
    with pytest.raises(FilterError, match=re.escape(instead)):
        parse_where([where])
