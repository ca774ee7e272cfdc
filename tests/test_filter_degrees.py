"""``--where 温度>=20度`` in a field of temperatures (session 45, f45b; issue 1).

``度`` was a unit of its own (a degree of angle, or of temperature): ``温度>=20度`` beside
documents writing ``温度: 25℃`` was refused as "in a unit none of the values here is in",
and in a field mixing ``度`` and ``℃`` each matched only its own. In a field whose values
are temperatures a number of ``度`` is now degrees Celsius, the filter's and a document's
alike (as the decision tables read it); elsewhere (``角度: 30度``) it stays its own unit.
On a built release and the same release published, alike."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.query.filter_units import celsius, reads_temperatures
from tests.milvus_server import milvus, published_pumps  # noqa: F401 - fixture

PUMPS = {"warm": ("25℃", "30度"), "hot": ("30度", "5度"), "cold": ("5℃", "45度"),
         "frozen": ("零下5度", "10度")}


@pytest.fixture(scope="module")
def released(tmp_path_factory, milvus):  # noqa: F811
    return published_pumps(milvus, tmp_path_factory.mktemp("degrees") / "kd", "degrees", {
        name: {"温度": temperature, "角度": angle} for name, (temperature, angle) in PUMPS.items()})


@pytest.mark.parametrize(("where", "docs"), [
    ("温度>=20度", ["hot", "warm"]),  # was refused: 20度 beside 25℃
    ("温度>=20℃", ["hot", "warm"]),  # 30度 in a field of temperatures is 30 ℃
    ("温度<=42°F", ["cold", "frozen"]),  # 5℃ is 41 °F; 零下5度 is -5 ℃
    ("温度=零下5度", ["frozen"]), ("温度=25度..30度", ["hot", "warm"]),
    ("角度>=20度", ["cold", "warm"]),  # angles stay degrees of angle
])
def test_degrees_are_celsius_in_a_field_of_temperatures_locally_and_in_the_engine(
        released, where, docs):
    dist, url = released
    for target in (["--index", str(dist)], ["--engine", url]):
        res = CliRunner().invoke(main, ["query", "--json", "-k", "20", "--no-log",
                                        "pump seal replacement", "--where", where, *target])
        assert res.exit_code == 0, res.output
        out = json.loads(res.output)
        found = sorted({r["doc"].rsplit("/", 1)[-1][:-3] for r in out["results"]})
        assert found == docs, (where, target)


def test_a_field_is_of_temperatures_by_its_values():
    assert reads_temperatures(["25℃", "30度"]) and reads_temperatures(["77°F"])
    assert not reads_temperatures(["30度", "5度"])  # 角度: no value says temperature
    assert [celsius(t) for t in ("20度", "零下5度", "1.5度", "25℃", "abc")] == \
        ["20℃", "-5℃", "1.5℃", "25℃", "abc"]
