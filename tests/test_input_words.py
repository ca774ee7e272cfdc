"""The words a question names a decision table's input by: common short forms of a quantity
(``rh``, ``temp``) name it as its synonyms do (`query.wording.ABBREVIATIONS`)."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table
from kbtools.query.inputs import read_inputs

RISK = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                   [["<15", "*", "低"], ["≥15", "≥85", "高"], ["≥15", "<85", "中"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=风险")
RISK_EN = build_table(["Temperature (°C)", "Relative humidity (%)", "Risk"],
                      [["<15", "*", "low"], ["≥15", "≥85", "high"], ["≥15", "<85", "mid"]],
                      decision="inputs=Temperature (°C),Relative humidity (%); outputs=Risk")


@pytest.mark.parametrize("question", [
    "26 C and 90% rh", "26 C and rh 90%", "temp 26 C and RH 90%", "temp 26, RH 90%",
    "RH is 90% at 26 C",
])
@pytest.mark.parametrize("table", [RISK, RISK_EN], ids=["zh", "en"])
def test_a_short_form_of_a_quantity_names_its_input(table, question):
    assert table is not None
    assert read_inputs(question, table).values == {table.header[0]: "26",
                                                   table.header[1]: "90"}


def test_a_short_form_names_no_other_quantity():
    assert RISK_EN is not None
    # soc (state of charge) is no humidity: the 90% stays unbound
    assert read_inputs("temp 26 C, soc 90%", RISK_EN).values == {"Temperature (°C)": "26"}


@pytest.mark.parametrize("table", [RISK, RISK_EN], ids=["zh", "en"])
def test_a_part_of_a_headers_synonym_names_it_as_a_part_of_the_header_does(table):
    """``humidity`` names 相对湿度(%) through its synonym ``relative humidity`` as it names
    ``Relative humidity (%)``; another thing's humidity (``soil humidity``) names neither."""
    assert table is not None
    hum = table.header[1]
    assert read_inputs("humidity 90%, 26 C", table).values[hum] == "90"
    assert read_inputs("the humidity is 90%", table).values == {hum: "90"}
    assert hum not in read_inputs("soil humidity 40%, 26 C", table).values
