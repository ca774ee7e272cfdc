"""``--where`` values in Chinese numerals (session 44, issues 5, 14).

``数量=二十``, ``功率>=五千瓦``, ``温度=零下10到零下2度`` were text, or refused with "write
20": the filters read no Chinese numerals, though the question reader does. They are read
by the one reader (`kbtools.decision.numerals.chinese_number`), in a filter and in a
document's value alike, locally and in Milvus."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.query.filter_checks import _check_order
from kbtools.query.filter_numbers import in_digits, order_number, quantity
from kbtools.query.filter_text import parse_where
from tests.milvus_server import (  # noqa: F401 - milvus: a fixture
    engine_rows,
    facts_fixture,
    local_rows,
    milvus,
    rows_alike,
)

FACTS = [{"数量": n, "功率": p, "温度": t} for n, p, t in [
    (20, "5kW", "-5度"),  # 0
    ("二十", "3000 W", "零下十二度"),  # 1: in Chinese numerals, as an author may write them
    (8, "五千瓦", "1度"),  # 2
    ("很多", "7.5kW", "零下2度"),  # 3: text (after every number, as an order has it)
]]


@pytest.mark.parametrize(("written", "digits"), [
    ("二十", "20"), ("两千五百", "2500"), ("十亩", "10亩"), ("三点五千瓦", "3.5千瓦"),
    ("五千瓦", "5000瓦"), ("零下五度", "-5度"), ("零下10度", "-10度"), ("负5", "-5"),
    ("二十个", "20个"),
    # text that begins with a numeral's character but writes no number
    ("三七", "三七"), ("十字花科", "十字花科"), ("负责人", "负责人"), ("一号机", "一号机"),
    ("百日咳", "百日咳"), ("20", "20"),
])
def test_a_chinese_numeral_before_a_unit_or_nothing_is_its_number(written, digits):
    assert in_digits(written) == digits


def test_a_quantity_in_chinese_numerals_is_the_quantity():
    assert quantity("五千瓦") == quantity("5000 瓦") and order_number("二十") == 20
    assert quantity("零下十二度") == ("度", -12) and quantity("十字花科") is None
    _check_order("面积", ">=", "十亩", ["15亩", "2 公顷"])  # was "write 10亩"
    _check_order("功率", ">=", "三点五千瓦", ["5kW", "800 W"])


coll = facts_fixture("numerals", FACTS)


@pytest.mark.parametrize(("where", "rows"), [
    ("数量=二十", [0, 1]), ("数量=20", [0, 1]), ("数量>=十", [0, 1, 3]), ("数量>=10", [0, 1, 3]), ("数量<十", [2]),
    ("数量=很多", [3]),
    # text orders after every number however the filter writes it (session 45: 很多 < 零点五
    # and < ２０ as strings, so 数量<=２０ held for it where 数量<=20 did not)
    ("数量<=２０", [0, 1, 2]), ("数量<零点五", []), ("数量>=零", [0, 1, 2, 3]), ("数量<一百", [0, 1, 2]),
    ("功率=五千瓦", [0, 2]), ("功率>=五千瓦", [0, 2, 3]), ("功率=三千瓦..六千瓦", [0, 1, 2]),
    ("功率<三点五千瓦", [1]),
    ("温度=零下10到零下2度", [0, 3]), ("温度<零下五度", [1]), ("温度>=零下2度", [2, 3]),
    ("温度=零下十二度", [1]), ("温度=-12度", [1]),
])
def test_chinese_numerals_filter_alike_locally_and_in_milvus(coll, where, rows):
    assert rows_alike(coll, "numerals", FACTS, where) == rows


_DIGITS = "零一二三四五六七八九"


def _chinese(n: int) -> str:
    """0 to 99 in Chinese numerals, written apart from the product's reader: 十二, 二十, 九十九."""
    tens, ones = divmod(n, 10)
    if not tens:
        return _DIGITS[n]
    return ("" if tens == 1 else _DIGITS[tens]) + "十" + (_DIGITS[ones] if ones else "")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(0, 40), op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]),
       form=st.sampled_from(["chinese", "wide"]))
def test_a_number_written_in_numerals_or_full_width_filters_as_its_digits(coll, n, op, form):
    """However a filter writes its number, it keeps the documents its digits keep, 很多 (text)
    among them or not alike: 数量<=２０ kept 很多 where 数量<=20 did not (session 45)."""
    written = _chinese(n) if form == "chinese" else str(n).translate(
        {ord(d): 0xFF10 + int(d) for d in "0123456789"})
    (key, got_op, want), = parse_where([f"数量{op}{written}"])
    assert local_rows(FACTS, key, got_op, want) == local_rows(FACTS, "数量", op, str(n)) == \
        engine_rows(coll, "numerals", key, got_op, want, FACTS)
