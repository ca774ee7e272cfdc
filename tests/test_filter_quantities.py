"""``--where`` on values with units (session 40, issues 5, 14, 8): ``power: 7.5kW``.

A number with its unit after it (``7.5kW``, ``3 kW``, ``20%``, ``15亩``, ``1500 r/min``) was
text: ``power>5kW`` missed ``12kW`` ("1" sorts before "5") and ``power=7.5 kW`` missed
``7.5kW``. Two quantities in one unit (case aside) compare as their numbers; in two units
never (no conversion: ``500W`` is neither above nor below ``5kW``); a bare number compares
with a quantity's number in the quantity's unit. Locally and in Milvus alike."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.query.filter_kinds import member_class
from kbtools.query.filter_numbers import quantity
from tests.milvus_server import engine_rows, facts_collection, local_rows, milvus  # noqa: F401

FACTS = [{"power": v, "面积": a} for v, a in [
    ("7.5kW", "15亩"),  # 0
    ("3 kW", "8 亩"),  # 1
    (11, 20),  # 2: bare numbers
    ("500W", "1.5公顷"),  # 3: another unit
    ("12kW", "120亩"),  # 4: "12kW" < "5kW" as text
    (["2kW", "15 ＫＷ"], "30亩"),  # 5: a list; full-width
    ("unknown", "未知"),  # 6: text
]]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    with facts_collection(milvus, "units", "units", [(f, False) for f in FACTS]) as engine:
        yield engine


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("power", ">", "5kW", [0, 2, 4, 5, 6]),  # 11 bare: 11 kW; unknown: text, after digits
    ("power", ">=", "12 KW", [4, 5, 6]), ("power", "<", "5kW", [1, 5]),
    ("power", "=", "7.5 kW", [0]), ("power", "=", "7.50KW", [0]), ("power", "=", "15kw", [5]),
    ("power", "=", "11kW", []), ("power", "=", "7.5", []),  # a bare number: no unit to be equal in
    ("power", "=", "500w", [3]), ("power", ">=", "11kW", [2, 4, 5, 6]),
    ("power", "!=", "12kW", [0, 1, 2, 3, 5, 6]),
    ("power", ">=", "5000W", [6]),  # in watts: only 500W is in that unit, below it
    ("power", ">", "5", [0, 2, 3, 4, 5, 6]),  # bare: each quantity's number
    ("面积", ">", "10亩", [0, 2, 4, 5, 6]), ("面积", "<=", "10 亩", [1]), ("面积", "=", "1.5公顷", [3]),
])
def test_quantities_in_one_unit_compare_as_numbers_locally_and_in_milvus(coll, key, op, want,
                                                                         rows):
    assert local_rows(FACTS, key, op, want) == rows
    assert engine_rows(coll, "units", key, op, want, FACTS) == rows


def test_what_is_a_quantity():
    assert [quantity(t) is not None for t in (
        "7.5kW", "3 kW", "20%", "15亩", "1500 r/min", "-5 °C", "30℃", "２．５ｋＷ")] == [True] * 8
    assert [member_class(t) for t in (
        "HX-260", "E17", "3000-12", "1.2.3a1", "2024年", "24V DC", "7.5", "v2", "x²")] == [
        "t", "t", "d", "t", "d", "t", "m", "v", "t"]


amounts = st.builds(lambda n, sp, u: f"{n}{sp}{u}", st.sampled_from(
    ["0", "5", "7.5", "11", "12", "-3", "500", "1e3", "007"]), st.sampled_from(["", " "]),
    st.sampled_from(["kW", "KW", "W", "亩", "%", "r/min"]))
wants = st.one_of(amounts, st.sampled_from(["5", "11", "2024", "1.9", "abc", "2024-03-01"]))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=wants, op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]),
       key=st.sampled_from(["power", "面积"]))
def test_any_quantity_or_number_filters_alike_locally_and_in_milvus(coll, want, op, key):
    assert engine_rows(coll, "units", key, op, want, FACTS) == local_rows(FACTS, key, op, want)
