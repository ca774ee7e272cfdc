"""``--where 温度>=20度`` in a field of temperatures (session 45, f45b; issue 1).

``度`` was a unit of its own (a degree of angle, or of temperature): ``温度>=20度`` beside
documents writing ``温度: 25℃`` was refused as "in a unit none of the values here is in",
and in a field mixing ``度`` and ``℃`` each matched only its own. In a field whose values
are temperatures a number of ``度`` is now degrees Celsius, the filter's and a document's
alike (as the decision tables read it); elsewhere (``角度: 30度``) it stays its own unit.
On a built release and the same release published, alike."""

from __future__ import annotations

import html
import json

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from kbtools.cli import main
from kbtools.query.filter_units import celsius, reads_temperatures
from kbtools.serve.app import create_app
from tests.milvus_server import milvus, published_pumps  # noqa: F401 - fixture

PUMPS = {"warm": ("25℃", "30度"), "hot": ("30度", "5度"), "cold": ("5℃", "45度"),
         "frozen": ("零下5度", "10度")}


@pytest.fixture(scope="module")
def released(tmp_path_factory, milvus):  # noqa: F811
    return published_pumps(milvus, tmp_path_factory.mktemp("degrees") / "kd", "degrees", {
        **{name: {"温度": temperature, "角度": angle} for name, (temperature, angle) in PUMPS.items()},
        "odd": {"角度": "25℃"}})  # a temperature in a field of angles: its 度 read as ℃, said


@pytest.mark.parametrize(("where", "docs"), [
    ("温度>=20度", ["hot", "warm"]),  # was refused: 20度 beside 25℃
    ("温度>=20℃", ["hot", "warm"]),  # 30度 in a field of temperatures is 30 ℃
    ("温度<=42°F", ["cold", "frozen"]),  # 5℃ is 41 °F; 零下5度 is -5 ℃
    ("温度=零下5度", ["frozen"]), ("温度=25度..30度", ["hot", "warm"]),
    ("角度>=20度", ["cold", "odd", "warm"]),  # 25℃ among angles: 度 is ℃ here (said, below)
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


def test_degrees_read_as_celsius_beside_a_temperature_are_said_on_every_surface(released):
    """``角度: 30度`` in one document and ``角度: 25℃`` in another (session 46, f46; issue
    2): the field holds a temperature, so its 度 is read as ℃, which compared angles with
    temperatures silently; every surface now names the values so read, with their
    documents."""
    dist, url = released
    for target in (["--index", str(dist)], ["--engine", url]):
        args = ["query", "--no-log", "-k", "20", "pump seal replacement", "--where", "角度>=20度",
                *target]
        out = json.loads(CliRunner().invoke(main, [args[0], "--json", *args[1:]]).output)
        said = out["filters"]["degrees_as_celsius"]
        assert sorted(s.split(" (")[0] for s in said) == ["角度: 10度", "角度: 30度", "角度: 45度",
                                                          "角度: 5度"], target
        assert all(s.endswith(".md)") for s in said)
        text = CliRunner().invoke(main, args).output
        assert "角度: 30度 (" in text and "read as degrees Celsius" in text, text
    plain = json.loads(CliRunner().invoke(main, ["query", "--json", "--no-log", "pump", "--where",
                                                 "角度>=20℃", "--where", "温度>=0℃", "--index",
                                                 str(dist)]).output)
    assert sorted(s.split(" (")[0] for s in plain["filters"]["degrees_as_celsius"]) == sorted([
        "角度: 10度", "角度: 30度", "角度: 45度", "角度: 5度", "温度: 30度", "温度: 零下5度"])
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        page = client.get("/", params=[("q", "pump"), ("where", "角度>=20度"), ("lang", "zh")])
        assert "角度: 30度 (" in html.unescape(page.text) and "按摄氏度比较" in page.text
        api = client.get("/api/search", params={"q": "pump", "where": "角度>=20度"}).json()
        assert len(api["filters"]["degrees_as_celsius"]) == 4  # MCP answers with this JSON
