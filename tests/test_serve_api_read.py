"""`kb serve`'s read and decision-table APIs (`/api/read`, `/api/table/evaluate`) over a real
built index: sections, line ranges, links and citations taken as the document, paths outside
the knowledge and bad inputs refused in words (split from `test_serve_api.py`)."""

from __future__ import annotations

import pytest
from servefixtures import (
    error_of,
    served_client,  # noqa: F401 - the `client` fixture
    served_repo,  # noqa: F401 - the `repo` fixture
)

pytestmark = pytest.mark.slow

SCAB = "knowledge/crops/wheat-scab.md"


def test_read_a_section_and_a_line_range(client):
    body = client.get("/api/read", params={"doc": SCAB, "heading_path": "3.2"}).json()
    assert body["heading_path"][-1] == "3.2 风险等级判定表" and "极高" in body["markdown"]
    assert body["citation"].startswith(f"{SCAB}:") and body["release"]["source_commit"]
    lines = client.get("/api/read", params={"doc": SCAB, "line_start": 20, "line_end": 22}).json()
    assert (lines["line_start"], lines["line_end"]) == (20, 22)


@pytest.mark.parametrize("doc", [SCAB + "#32-风险等级判定表", SCAB + "#3.2 风险等级判定表",
                                 SCAB.replace("/", "%2F") + "#32-%E9%A3%8E%E9%99%A9%E7%AD%89"
                                 "%E7%BA%A7%E5%88%A4%E5%AE%9A%E8%A1%A8"])
def test_read_a_link_or_an_address_as_mcp_reads_it(client, doc):
    """A link's anchor and a URL-escaped path read what they name, as over MCP (session
    34): the link was refused (400), the escaped path not found (404)."""
    body = client.get("/api/read", params={"doc": doc}).json()
    assert (body["doc"], body["heading_path"][-1]) == (SCAB, "3.2 风险等级判定表")


@pytest.mark.parametrize("doc, status", [
    ("../../etc/passwd.md", 400), ("/etc/passwd", 400), ("knowledge/../../x.md", 400),
    ("knowledge\\crops\\wheat-scab.md", 400), ("C:/x.md", 400), ("knowledge/crops/x.txt", 400),
    ("knowledge/crops/nothing-here.md", 404),
    ("%2e%2e/%2e%2e/etc/passwd.md", 400),  # no such file; decoded, '..' (session 34: 404)
])
def test_read_refuses_paths_outside_the_knowledge(client, doc, status):
    error_of(client.get("/api/read", params={"doc": doc}), status)


def test_read_errors(client):
    assert "missing 'doc'" in error_of(client.get("/api/read"), 400)
    assert "no section" in error_of(client.get("/api/read", params={"doc": SCAB, "heading_path": "9.9"}), 404)
    assert "line_start" in error_of(client.get("/api/read", params={"doc": SCAB, "line_start": "x"}), 400)
    # a range typed from its end reads its lines, as `kb read` and MCP read it (d45)
    backwards = client.get("/api/read", params={"doc": SCAB, "line_start": 5, "line_end": 2})
    assert backwards.status_code == 200 and backwards.json()["citation"] == f"{SCAB}:2-5"


def test_table_evaluate_the_wheat_scab_inputs(client):
    resp = client.post("/api/table/evaluate", json={
        "doc": SCAB, "inputs": {"温度": 22, "相对湿度": "90", "连续降雨天数": 4}})
    assert resp.status_code == 200
    body = resp.json()
    assert body["status"] == "match" and body["selected"] == [7]
    assert body["outputs"][0]["风险等级"] == "极高"
    assert [c["condition"] for c in body["matches"][0]["cells"]] == [">20", "≥85", ">3"]
    assert body["release"]["source_commit"]


def test_table_evaluate_refuses_a_value_no_such_quantity_can_be(client):
    """-1 rainy days was answered from a row taking ``≤3`` (session 32: refused, naming what
    the column takes, as `kb table eval` and the MCP tool refuse it)."""
    message = error_of(client.post("/api/table/evaluate", json={
        "doc": SCAB, "inputs": {"温度": 18, "相对湿度": 90, "连续降雨天数": -1}}), 400)
    assert "input 连续降雨天数='-1': impossible: this column takes 0 天 or more" in message


@pytest.mark.parametrize("payload, status, words", [
    ({"inputs": {}}, 400, "missing 'doc'"),
    ({"doc": SCAB}, 400, "'inputs'"),
    ({"doc": SCAB, "inputs": {"温度": "热"}}, 400, None),
    ({"doc": SCAB, "inputs": {"风速": 3}}, 400, None),
    ({"doc": SCAB, "inputs": {"温度": [1]}}, 400, "string or a number"),
    ({"doc": SCAB, "inputs": {"温度": 22}, "policy": "best"}, 400, "'policy'"),
    ({"doc": SCAB, "inputs": {"温度": 22}, "table": 9}, 400, "no decision table 9"),
    ({"doc": "../x.md", "inputs": {"温度": 22}}, 400, "'..'"),
    ({"doc": "knowledge/crops/none.md", "inputs": {"温度": 22}}, 404, None),
    ({"doc": "knowledge/crops/rice-blast.md", "inputs": {"x": "1"}, "table": "nope"}, 400, None),
    # a link is the table of the section it names (session 35; session 30 refused it, telling
    # to give the section as 'table'), a citation the table at its lines (session 31): each
    # asks for the inputs it lacks
    ({"doc": f"{SCAB}#32-风险等级判定表", "inputs": {"温度": 22}}, 400,
     "3.2 风险等级判定表: missing input for column(s) 相对湿度(%), 连续降雨天数"),
    ({"doc": f"{SCAB}:65-73", "inputs": {"温度": 22}}, 400,
     "3.2 风险等级判定表: missing input for column(s) 相对湿度(%), 连续降雨天数"),
    ({"doc": f"{SCAB}:65-73 § 3.2 风险等级判定表", "inputs": {"温度": 22}}, 400,
     "3.2 风险等级判定表: missing input for column(s) 相对湿度(%), 连续降雨天数"),
])
def test_table_evaluate_errors(client, payload, status, words):
    message = error_of(client.post("/api/table/evaluate", json=payload), status)
    assert words is None or words in message


def test_a_citation_is_taken_as_the_document(client):
    """What search cites (`x.md:65-73 § A > B`, or `x.md:71`) is taken where a document is
    asked for, as `kb table eval` takes it (session 31): the API refused it as a path."""
    inputs = {"温度": "22℃", "相对湿度": "90 %", "连续降雨天数": "4天"}
    for doc in (f"{SCAB}:71", f"{SCAB}:65-73 § 3.2 风险等级判定表", f"{SCAB} § 3.2 风险等级判定表"):
        resp = client.post("/api/table/evaluate", json={"doc": doc, "inputs": inputs})
        assert resp.status_code == 200, resp.text
        assert resp.json()["outputs"][0]["风险等级"] == "极高"
    row = client.get("/api/read", params={"doc": f"{SCAB}:71"}).json()
    assert (row["line_start"], row["line_end"]) == (71, 71) and row["markdown"].startswith("| >20")
    section = client.get("/api/read", params={"doc": f"{SCAB}:71-71 § 3.2 风险等级判定表"}).json()
    assert section["heading_path"][-1] == "3.2 风险等级判定表" and "| 温度(℃)" in section["markdown"]
    message = error_of(client.post("/api/table/evaluate", json={
        "doc": f"{SCAB}:1-3", "inputs": inputs}), 400)
    assert message.startswith(f"no decision table at {SCAB} lines 1-3 (its decision tables: ")
    message = error_of(client.get("/api/read", params={"doc": f"{SCAB}:71", "line_start": 1}), 400)
    assert "is a citation" in message
    # a link's anchor reads its section (session 34; refused before), a section number too
    assert client.get("/api/read", params={"doc": f"{SCAB}#3"}).json()["heading_path"][-1] \
        == "3. 发病风险判定"
    assert "has the anchor '#9'" in error_of(client.get("/api/read",
                                                        params={"doc": f"{SCAB}#9"}), 404)
