"""Units the filters and the decision tables convert beside those of session 43 (session 48,
issues 5, 14): a current in mA and A, a frequency in Hz to GHz, energy in Wh to MWh (千瓦时)
and a ton (吨, ``tons``: metric). Each was compared only with its own spelling: ``电流>5mA``
left out ``0.5A``. Locally and in Milvus alike."""

from __future__ import annotations

import pytest

from kbtools.decision.units import scale
from tests.milvus_server import facts_fixture, milvus, rows_alike  # noqa: F401 - fixtures

FACTS = [{"x": v} for v in ("500mA", "0.5A", "2 amperes", "5毫安", "50Hz", "2.4GHz", "100 kHz",
                            "5千瓦时", "10kWh", "1200 Wh", "3吨", "5 tons", "1500 kg", "2.5t")]
coll = facts_fixture("units48", FACTS)


@pytest.mark.parametrize(("where", "rows"), [
    ("x>=100mA", [0, 1, 2]), ("x=0.5A", [0, 1]), ("x<1A", [0, 1, 3]), ("x=500毫安", [0, 1]),
    ("x>1kHz", [5, 6]), ("x=2400MHz", [5]), ("x<=50赫兹", [4]),
    ("x>=5kWh", [7, 8]), ("x=1.2千瓦时", [9]), ("x=5000Wh", [7]),
    ("x>=2吨", [10, 11, 13]), ("x=1.5t", [12]), ("x=3 tons", [10]), ("x<2000kg", [12]),
])
def test_current_frequency_energy_and_tons_convert_locally_and_in_milvus(coll, where, rows):
    assert rows_alike(coll, "units48", FACTS, where) == rows


@pytest.mark.parametrize(("unit", "column", "factor"), [
    ("ma", "a", (1, 1000)), ("a", "ma", (1000, 1)), ("khz", "hz", (1000, 1)),
    ("kwh", "千瓦时", None), ("千瓦时", "wh", (1000, 1)), ("tons", "kg", (1000, 1)),
    ("吨", "t", None), ("hz", "a", None)])
def test_the_decision_tables_convert_them_by_the_same_table(unit, column, factor):
    assert scale(unit, column) == factor
