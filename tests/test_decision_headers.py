"""Decision-table headers as engineers write them: the unit after the name with a space or a
comma (``Temp °C``, ``Temperature, °F``, ``Vibration mm/s``), not in brackets."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table, match_rules
from kbtools.decision.column_units import column_unit
from kbtools.decision.headers import column_key
from kbtools.errors import TableError
from kbtools.query.inputs import find_inputs


@pytest.mark.parametrize("header,key,unit", [
    ("Temp °C", "temp", "°C"), ("Temperature, °F", "temperature", "°F"),
    ("Vibration mm/s", "vibration", "mm/s"), ("振动速度 mm/s", "振动速度", "mm/s"),
    ("Flow L/min", "flow", "L/min"), ("Pressure bar", "pressure", "bar"), ("Load %", "load", "%"),
    # as before: a bracket, a slash after the name, no unit; a single letter is a name
    ("温度(℃)", "温度", "°C"), ("流量/L·h⁻¹", "流量", "L·h-1"), ("Zone C", "zonec", ""),
    ("Pump A", "pumpa", ""),
])
def test_a_unit_after_the_name_is_the_header_unit(header, key, unit):
    assert (column_key(header), column_unit(header)) == (key, unit)


def test_an_input_in_another_unit_than_a_spaced_header_unit_is_refused():
    """'Temp °C' had no unit: 77°F was compared as 77 °C (and sprayed 'no: too hot'); 'Vibration
    mm/s' had the unit s: the right input 5 mm/s was refused ('give the value in s')."""
    temp = build_table(["Temp °C", "Spray"], [["<20", "no"], ["20-30", "yes"], [">30", "no"]],
                       decision="inputs=Temp °C")
    assert temp is not None
    with pytest.raises(TableError, match="it is in 'kPa', the column in '°C'"):
        match_rules(temp, {"Temp": "77 kPa"})
    assert match_rules(temp, {"Temp": "77°F"}).outputs == ({"Spray": "yes"},)  # 25 °C
    assert match_rules(temp, {"temp": "25 °C"}).outputs == ({"Spray": "yes"},)
    vib = build_table(["Vibration mm/s", "Action"], [["≤2.8", "run"], [">2.8", "inspect"]],
                      decision="inputs=Vibration mm/s")
    assert vib is not None
    assert match_rules(vib, {"Vibration": "5 mm/s"}).outputs == ({"Action": "inspect"},)
    assert find_inputs("vibration 5 mm/s what to do", vib) == {"Vibration mm/s": "5"}


@pytest.mark.parametrize("header", ["Running hours", "Rain days", "Pressure min", "Age years"])
def test_a_unit_word_that_is_a_word_of_the_name_stays_in_it(header):
    assert column_key(header) == header.casefold().replace(" ", "")
