"""``--where key>=N`` / ``<=`` order numbers exactly, infinities included, on the local mask
and in Milvus alike. Before, both sides compared floats: 9007199254740992 was ``>=
9007199254740993`` (one float), and Milvus capped infinity at the largest float, so
``size>=inf`` allowed a chunk of size 1.7976931348623157e308 there and not locally."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.engine import expr
from kbtools.query.filters import _compare, order_number
from tests.milvus_server import facts_collection, milvus  # noqa: F401 - the session fixture

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


@pytest.mark.parametrize(("op", "want", "rows"), [  # 2, 13, 14: by text ("x", "nan", "abc")
    (">=", str(BIG + 1), [1, 2, 3, 5, 7, 11, 13, 14, 17, 18]),  # not 2**53 itself: exact
    ("<=", str(BIG), [0, 2, 4, 6, 8, 9, 10, 12, 15, 16]),
    (">=", "9007199254740992.5", [1, 2, 3, 5, 7, 11, 13, 14, 17, 18]),
    (">=", "inf", [2, 3, 11, 13]),  # infinity only, not the largest float
    (">=", "+Infinity", [2, 3, 11, 13, 14]), ("<=", "-inf", [4, 12]), ("<=", "-INF", [4, 12]),
    (">=", "1.7976931348623157e308", [2, 3, 5, 7, 11, 13, 14, 18]),
    ("<=", "-1.7976931348623157e308", [4, 6, 8, 12]),
    (">=", "1e400", [2, 3, 7, 11, 13, 14, 18]), ("<=", "-1e400", [4, 8, 12]),  # beyond floats
    ("<=", "inf", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18]),
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
@given(want=wants, op=st.sampled_from([">=", "<=", "=", "!="]))
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
