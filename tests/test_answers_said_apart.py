"""Values a field user says apart from the plain ``name value``: a common short form of a
kind of the input's quantity (``RH 85`` for ``Humidity (%)`` and 湿度(%), ＲＨ８５％ typed
full-width), and a difference said from a reference value (温度比25度高3度, ``3 degrees
above 25 C``), which is no reading: neither number is used, and the answer says so."""

from __future__ import annotations

import pytest
from hostile import make_repo
from kbfixtures import (
    GREENHOUSE_PAGE,
    VENT_PAGE,
    bare_table,
    top_evaluation,
    vent_table,
    zh_vent_table,
)

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.query.inputs import read_inputs

VENT, BARE = vent_table(), zh_vent_table()


@pytest.mark.parametrize(("table", "question", "values"), [
    (VENT, "RH 85, temperature 25 C", {"Temperature (°C)": "25", "Humidity (%)": "85"}),
    (VENT, "temp 25C rh 85%", {"Temperature (°C)": "25", "Humidity (%)": "85"}),
    (VENT, "ｔｅｍｐ２５Ｃ，ＲＨ８５％", {"Temperature (°C)": "25", "Humidity (%)": "85"}),
    (BARE, "温度25度，RH85%", {"温度(℃)": "25", "湿度(%)": "85"}),
    (BARE, "ＲＨ８５％，温度25度", {"温度(℃)": "25", "湿度(%)": "85"}),
])
def test_a_short_form_of_a_kind_of_the_quantity_names_the_input(table, question, values):
    """``RH`` (relative humidity) was read for ``Relative humidity (%)`` only: ``RH 85`` by a
    ``Humidity (%)`` table was said not used, and ＲＨ８５％ dropped unsaid."""
    assert table is not None
    assert read_inputs(question, table).values == values


def test_a_short_form_names_no_other_kind_of_the_quantity():
    """RH is relative humidity: no value of an absolute humidity."""
    got = read_inputs("RH 85", bare_table("Absolute humidity (g/m3)"))
    assert got.values == {} and got.unused == ("RH 85",)


@pytest.mark.parametrize(("table", "question", "values", "differences"), [
    (BARE, "温度比25度高3度，湿度90%", {"湿度(%)": "90"}, ("比25度高3度",)),
    (BARE, "温度比设定值25度低2度，湿度90%", {"湿度(%)": "90"}, ("比设定值25度低2度",)),
    (BARE, "温度比２５度高３度，湿度90%", {"湿度(%)": "90"}, ("比25度高3度",)),
    (VENT, "temperature 3 degrees above 25 C, humidity 90%", {"Humidity (%)": "90"},
     ("3 degrees above 25 C",)),
    (VENT, "temperature 3 C below 25 C, humidity 90%", {"Humidity (%)": "90"},
     ("3 C below 25 C",)),
    (VENT, "temperature 3 degrees higher than 25 C, humidity 90%", {"Humidity (%)": "90"},
     ("3 degrees higher than 25 C",)),
    # a bound, and a value over a time, are no difference
    (VENT, "temperature above 25 C, humidity 90%",
     {"Temperature (°C)": "above 25 C", "Humidity (%)": "90"}, ()),
    (BARE, "温度25度比较高，湿度90%", {"温度(℃)": "25", "湿度(%)": "90"}, ()),
    # a reading after a difference from another time is the reading
    (BARE, "温度比昨天高3度，25度，湿度90%", {"温度(℃)": "25", "湿度(%)": "90"},
     ("比昨天高3度",)),
    (VENT, "temperature 3 degrees higher than yesterday 25 C, humidity 90%",
     {"Temperature (°C)": "25", "Humidity (%)": "90"}, ("3 degrees higher than yesterday",)),
])
def test_a_difference_from_a_reference_value_is_no_reading(table, question, values,
                                                           differences):
    """比25度高3度 gave 温度 the reference 25 (the temperature is 28), ``3 degrees higher than
    25 C`` the bound ``higher than 25 C``; ``3 degrees above 25 C`` was dropped unsaid."""
    assert table is not None
    got = read_inputs(question, table)
    assert (got.values, got.differences) == (values, differences)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/greenhouse.md": GREENHOUSE_PAGE, "knowledge/vent.md": VENT_PAGE})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


def test_kb_query_reads_rh_and_says_a_difference_unused(dist):
    ev = top_evaluation(dist, "greenhouse ventilation: temperature 25 C, RH 90%", "vent.md")
    assert (ev["status"], ev["inputs"], ev["outputs"]) == (
        "match", {"Temperature (°C)": "25", "Humidity (%)": "90"},
        [{"Action": "open the vents"}])
    ev = top_evaluation(dist, "大棚通风：温度比25度高3度，湿度90%", "greenhouse.md")
    assert (ev["status"], ev["inputs"], ev["missing"]) == (
        "missing_inputs", {"湿度(%)": "90"}, ["温度(℃)"])
    assert "（未使用：比25度高3度，这是差值，不是读数）" in ev["message"]
