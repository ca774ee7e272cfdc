"""Values a field user says apart from the plain ``name value``: a common short form of a
kind of the input's quantity (``RH 85`` for ``Humidity (%)`` and 湿度(%), ＲＨ８５％ typed
full-width)."""

from __future__ import annotations

import pytest
from hostile import make_repo
from kbfixtures import GREENHOUSE_PAGE, VENT_PAGE, bare_table, top_evaluation

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.query.inputs import read_inputs

VENT = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                   [["<20", "<85", "close"], [">=20", ">=85", "open"], [">=20", "<85", "keep"]],
                   decision="inputs=Temperature (°C),Humidity (%); outputs=Action")
BARE = build_table(["温度(℃)", "湿度(%)", "措施"],
                   [["<20", "*", "保温"], [">=20", ">=85", "通风"], [">=20", "<85", "保持"]],
                   decision="inputs=温度(℃),湿度(%); outputs=措施")


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


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/greenhouse.md": GREENHOUSE_PAGE, "knowledge/vent.md": VENT_PAGE})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


def test_kb_query_reads_rh(dist):
    ev = top_evaluation(dist, "greenhouse ventilation: temperature 25 C, RH 90%", "vent.md")
    assert (ev["status"], ev["inputs"], ev["outputs"]) == (
        "match", {"Temperature (°C)": "25", "Humidity (%)": "90"},
        [{"Action": "open the vents"}])
