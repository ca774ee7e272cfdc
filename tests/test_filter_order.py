"""``--where key>=N`` / ``<=`` order numbers exactly, infinities included, on the local mask
and in Milvus alike. Before, both sides compared floats: 9007199254740992 was ``>=
9007199254740993`` (one float), and Milvus capped infinity at the largest float, so
``size>=inf`` allowed a chunk of size 1.7976931348623157e308 there and not locally."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.engine import expr
from kbtools.query.filter_numbers import order_number
from kbtools.query.filters import _compare, number_key
from tests.milvus_server import facts_collection, milvus  # noqa: F401 - fixture

BIG = 2 ** 53  # 9007199254740992: the first integer beyond which floats skip integers
FACTS = [
    {"size": BIG}, {"size": str(BIG + 1)}, {"size": [BIG - 1, "x"]},
    {"size": float("inf")}, {"size": "-inf"}, {"size": 1.7976931348623157e308},
    {"size": "-1.7976931348623157e308"}, {"size": "1e400"}, {"size": "-1e400"},
    {"size": "0.1000000000000000000000001"}, {"size": 0.1}, {"size": "Infinity"},
    {"size": ["-Infinity", 5]}, {"size": "nan"}, {"size": "abc"}, {"size": 0},
    {"size": "-0.0"}, {"size": str(10 ** 40 + 1)}, {"size": "1e999999999999999999"},
]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    with facts_collection(milvus, "orders", "order", [(f, False) for f in FACTS]) as engine:
        yield engine


def _local(op: str, want: str) -> list[int]:
    return [i for i, f in enumerate(FACTS) if _compare(f["size"], op, want)]


def _remote(engine, op: str, want: str) -> list[int]:
    got = engine.client.query("order", filter=expr.condition("size", op, want),
                              output_fields=["num"], consistency_level="Strong")
    return sorted(int(r["num"]) for r in got)


@pytest.mark.parametrize(("op", "want", "rows"), [  # 2, 13, 14: text ("x", "nan", "abc"), after
    # every number however it is written (session 45: "abc" < "inf" as strings, > "+Infinity")
    (">=", str(BIG + 1), [1, 2, 3, 5, 7, 11, 13, 14, 17, 18]),  # not 2**53 itself: exact
    ("<=", str(BIG), [0, 2, 4, 6, 8, 9, 10, 12, 15, 16]),
    (">=", "9007199254740992.5", [1, 2, 3, 5, 7, 11, 13, 14, 17, 18]),
    (">=", "inf", [2, 3, 11, 13, 14]),  # infinity only, not the largest float; text after it
    (">=", "+Infinity", [2, 3, 11, 13, 14]), ("<=", "-inf", [4, 12]), ("<=", "-INF", [4, 12]),
    (">=", "1.7976931348623157e308", [2, 3, 5, 7, 11, 13, 14, 18]),
    ("<=", "-1.7976931348623157e308", [4, 6, 8, 12]),
    (">=", "1e400", [2, 3, 7, 11, 13, 14, 18]), ("<=", "-1e400", [4, 8, 12]),  # beyond floats
    ("<=", "inf", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17, 18]),  # not abc
    (">=", "0.1000000000000000000000001", [0, 1, 2, 3, 5, 7, 9, 11, 12, 13, 14, 17, 18]),
    ("<=", "0.1", [4, 6, 8, 10, 12, 15, 16]),  # 0.1 is not 0.1000…01 (one float)
    (">=", str(10 ** 40), [2, 3, 5, 7, 11, 13, 14, 17, 18]),
    ("<=", "-0", [4, 6, 8, 12, 15, 16]),
])
def test_orders_are_exact_in_both(coll, op, want, rows):
    assert _local(op, want) == rows
    assert _remote(coll, op, want) == rows


@pytest.mark.parametrize(("op", "want", "rows"), [
    ("=", "Infinity", [3, 11]), ("=", "+inf", [3, 11]), ("=", "-INF", [4, 12]),
    ("!=", "inf", [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18]),
    ("=", "nan", [13]),  # text
])
def test_infinities_are_equal_as_numbers_in_both(coll, op, want, rows):
    """``=`` / ``!=`` read infinities as the orders do: ``inf`` is ``Infinity``."""
    assert _local(op, want) == rows
    assert _remote(coll, op, want) == rows


def test_infinity_is_a_number_to_compare_with():
    assert order_number("inf") == order_number("Infinity") == Decimal("Infinity")
    assert order_number("-inf") == Decimal("-Infinity")
    assert order_number("nan") is None and order_number("1.0.0") is None
    assert order_number("1e400") == Decimal("1e400")


wants = st.one_of(
    st.sampled_from(["inf", "-inf", "Infinity", "+INF", "-Infinity", "nan", "x", "0", "-0",
                     "1.7976931348623157e308", "1e400", "-1e400", "4.9e-324", "1e-400"]),
    st.sampled_from(["INFINITY", "+Inf", "-infinity", "NaN", "-nan"]),
    st.integers(BIG - 3, BIG + 3).map(str), st.integers(-(BIG + 3), -(BIG - 3)).map(str),
    st.integers(-10 ** 45, 10 ** 45).map(str),
    st.decimals(allow_nan=False).map(str),
    st.floats(allow_nan=False).map(str))


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=wants, op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]))
def test_any_number_orders_alike_locally_and_in_milvus(coll, want, op):
    assert _remote(coll, op, want) == _local(op, want)


numbers = st.one_of(
    st.decimals(allow_nan=False), st.integers().map(Decimal),
    st.builds(lambda d, e: Decimal(f"{d}e{e}"), st.integers(-10 ** 30, 10 ** 30),
              st.integers(-10 ** 17, 10 ** 17)),
    st.sampled_from([Decimal("Infinity"), Decimal("-Infinity"), Decimal(0), Decimal("-0")]))


@settings(max_examples=600, deadline=None)
@given(a=numbers, b=numbers)
def test_order_text_orders_as_the_numbers(a, b):
    """Milvus compares the texts of two numbers as the numbers compare: exactly, for every
    size and precision, infinities included."""
    ta, tb = expr.order_text(a), expr.order_text(b)
    assert (ta < tb, ta == tb) == (a < b, a == b), (a, b, ta, tb)


# numbers whose exponent lies beyond Decimal's (±999999999999999999): they were text
HUGE = "1e1000000000000000000"
FAR = ["1e1000000000000000000", "-1e1000000000000000000", "1e-10000000000000000000",
       "-1e-10000000000000000000", "10e999999999999999999", "1e999999999999999999", "inf",
       "5", "2.5E+99999999999999999999999", "abc", "0e99999999999999999999",
       ["1e1000000000000000001", "x"], "1_0e1000000000000000000", "-0.0e-99999999999999999999",
       "1e" + "9" * 4001]  # 14: an exponent of more digits than an int reads: text


@pytest.fixture(scope="module")
def far(milvus):  # noqa: F811
    with facts_collection(milvus, "far", "far", [({"size": f}, False) for f in FAR]) as engine:
        yield engine


def _far_local(op: str, want: str) -> list[int]:
    return [i for i, f in enumerate(FAR) if _compare(f, op, want)]


def _far_remote(engine, op: str, want: str) -> list[int]:
    got = engine.client.query("far", filter=expr.condition("size", op, want),
                              output_fields=["num"], consistency_level="Strong")
    return sorted(int(r["num"]) for r in got)


@pytest.mark.parametrize(("op", "want", "rows"), [  # 9, 11, 14: by text ("abc", "x", "1e99…")
    (">=", HUGE, [0, 4, 6, 8, 9, 11, 12, 14]), ("<=", HUGE, [0, 1, 2, 3, 4, 5, 7, 10, 13]),
    (">=", "1e999999999999999999", [0, 4, 5, 6, 8, 9, 11, 12, 14]),
    ("<=", "-1e400", [1]), (">=", "1e-400", [0, 4, 5, 6, 7, 8, 9, 11, 12, 14]),
    ("<=", "1e-9999999999999999999", [1, 2, 3, 10, 13]), (">=", "0", [0, 2, 4, 5, 6, 7, 8, 9,
                                                                       10, 11, 12, 13, 14]),
    ("=", "1.0E+1000000000000000000", [0, 4]), ("!=", HUGE, [1, 2, 3, 5, 6, 7, 8, 9, 10, 11,
                                                              12, 13, 14]),
    ("=", "0", [10, 13]), ("=", "100e999999999999999999", [11, 12]),
    ("<=", "-1e1000000000000000001", []), (">=", "1e10000000000000000000000", [6, 8, 9, 11, 14]),
])
def test_exponents_beyond_decimals_are_numbers_in_both(far, op, want, rows):
    """``size>=1e1000000000000000000`` compared strings: Decimal refuses an exponent beyond
    ±999999999999999999, so such values were text, on the local mask and in Milvus alike
    ("1e1000…" was less than "5"). They are now numbers, compared exactly."""
    assert _far_local(op, want) == rows
    assert _far_remote(far, op, want) == rows


def test_a_far_number_is_a_number_written_one_way():
    assert order_number(HUGE) > order_number("1e999999999999999999") > Decimal("1e400")
    assert order_number(HUGE) == order_number("10e999999999999999999") == order_number(
        "0.1e1000000000000000001")
    assert number_key(HUGE) == number_key("10e999999999999999999") == "1e1000000000000000000"
    assert Decimal(0) < order_number("1e-10000000000000000000") < Decimal("1e-400")
    assert Decimal("-Infinity") < order_number("-" + HUGE) < Decimal("-1e400")
    assert order_number("0e99999999999999999999") == 0
    assert order_number("1e" + "9" * 4001) is None and order_number("1e1000000000000000000x") is None


far_numbers = st.builds(
    lambda d, e: (d, e, f"{d}e{e}"), st.integers(-10 ** 25, 10 ** 25),
    st.one_of(st.integers(-10 ** 25, 10 ** 25), st.integers(-10 ** 20, -10 ** 18),
              st.integers(10 ** 18, 10 ** 20), st.integers(-10, 10)))


far_wants = st.one_of(wants, far_numbers.map(lambda n: n[2]),
                      st.sampled_from([HUGE, "-" + HUGE, "1e-10000000000000000000", "0e99999999999999999999"]))


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=far_wants, op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]))
def test_any_far_number_filters_alike_locally_and_in_milvus(far, want, op):
    assert _far_remote(far, op, want) == _far_local(op, want)


def _reference(d: int, e: int) -> tuple:
    """The order of d * 10**e, computed apart from the code: class, then the exponent of the
    leading digit and the mantissa in [0.1, 1), negated for a negative number."""
    if d == 0:
        return (0,)
    digits = str(abs(d))
    place, mantissa = e + len(digits), Fraction(int(digits), 10 ** len(digits))
    return (1, place, mantissa) if d > 0 else (-1, -place, -mantissa)


@settings(max_examples=600, deadline=None)
@given(a=far_numbers, b=far_numbers)
def test_far_numbers_order_and_equal_as_the_numbers(a, b):
    """Locally (`order_number`, `number_key`) and as Milvus compares them (`order_text`),
    two numbers of any exponent order and equal as d * 10**e do."""
    ra, rb = _reference(a[0], a[1]), _reference(b[0], b[1])
    na, nb = order_number(a[2]), order_number(b[2])
    ta, tb = expr.order_text(na), expr.order_text(nb)
    assert (na < nb, na == nb, na > nb) == (ra < rb, ra == rb, ra > rb), (a, b)
    assert (ta < tb, ta == tb) == (ra < rb, ra == rb), (a, b, ta, tb)
    assert (number_key(a[2]) == number_key(b[2])) == (ra == rb)
