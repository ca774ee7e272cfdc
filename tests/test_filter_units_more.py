"""Units the filters and the decision tables convert beside those of session 43 (session 48,
issues 5, 14): a current in mA and A, a frequency in Hz to GHz, energy in Wh to MWh (千瓦时)
and a ton (吨, ``tons``: metric). Each was compared only with its own spelling: ``电流>5mA``
left out ``0.5A``. Locally and in Milvus alike."""

from __future__ import annotations

import pytest

from kbtools.decision.units import scale
from kbtools.query.filter_numbers import quantity
from kbtools.query.filters import value_matches
from tests.milvus_server import facts_fixture, milvus, rows_alike  # noqa: F401 - fixtures

FACTS = [{"x": v} for v in ("500mA", "0.5A", "2 amperes", "5毫安", "50Hz", "2.4GHz", "100 kHz",
                            "5千瓦时", "10kWh", "1200 Wh", "3吨", "5 tons", "1500 kg", "2.5t")]
coll = facts_fixture("units48", FACTS)


@pytest.mark.parametrize(("where", "rows"), [
    ("x>=100mA", [0, 1, 2]), ("x=0.5A", [0, 1]), ("x<1A", [0, 1, 3]), ("x=500毫安", [0, 1]),
    ("x>1kHz", [5, 6]), ("x=2400MHz", [5]), ("x<=50赫兹", [4]),
    ("x>=5kWh", [7, 8]), ("x=1.2千瓦时", [9]), ("x=5000Wh", [7]),
    ("x>=2吨", [10, 11, 13]), ("x=1.5t", [12]), ("x=3 tons", [10]), ("x<2000kg", [12]),
    ("x=400mA..1A", [0, 1]), ("x=1kWh..1300Wh", [9]),  # f49b: a range kept, its end converted
])
def test_current_frequency_energy_and_tons_convert_locally_and_in_milvus(coll, where, rows):
    assert rows_alike(coll, "units48", FACTS, where) == rows


@pytest.mark.parametrize(("unit", "column", "factor"), [
    ("ma", "a", (1, 1000)), ("a", "ma", (1000, 1)), ("khz", "hz", (1000, 1)),
    ("kwh", "千瓦时", None), ("千瓦时", "wh", (1000, 1)), ("tons", "kg", (1000, 1)),
    ("吨", "t", None), ("hz", "a", None)])
def test_the_decision_tables_convert_them_by_the_same_table(unit, column, factor):
    assert scale(unit, column) == factor


@pytest.mark.parametrize(("text", "unit", "number"), [  # session 49 (f49b, issue 5): each was text
    ("5kW·h", "kwh", 5), ("5 kW⋅h", "kwh", 5), ("5kW.h", "kwh", 5), ("5 kW h", "kwh", 5),
    ("5KW・H", "kwh", 5), ("5千瓦·时", "千瓦时", 5), ("3 MW·h", "mwh", 3), ("2瓦·时", "瓦时", 2),
    ("1万5千瓦", "瓦", 15000), ("-2万5千瓦", "瓦", -25000), ("1万5千瓦时", "瓦时", 15000),
    ("5 m in", None, None), ("5 k h", None, None), ("5千瓦", "千瓦", 5), ("1万5千kW", "kw", 15000)])
def test_an_energy_as_a_product_and_a_numeral_before_a_unit_of_thousands(text, unit, number):
    got = quantity(text)
    assert ((None, None) if got is None else (got[0], got[1])) == (unit, number)


@pytest.mark.parametrize(("held", "want"), [
    ("5kW·h", "5000Wh"), ("5 kW h", "5kWh"), ("5千瓦·时", "5kW时"), ("5000 Wh", "5kW.h"),
    ("1万5千瓦", "15kW"), ("15 kW", "1万5千瓦"), ("2万5千瓦时", "25kWh")])
def test_documents_and_filters_read_them_alike(held, want):
    assert value_matches("电量", held, "=", want)
    assert not value_matches("电量", held, "=", "5kW")
