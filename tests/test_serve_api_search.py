"""`kb serve`'s search API (`/api/search`) over a real built index: the `kb query --json`
contract, GET and POST, filters, request bodies and addresses refused in words, and English
questions over Chinese knowledge answered with citations that read back (split from
`test_serve_api.py`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from servefixtures import (
    error_of,
    served_client,  # noqa: F401 - the `client` fixture
    served_repo,  # noqa: F401 - the `repo` fixture
)

from kbtools.index.reader import open_index
from kbtools.query.search import search

pytestmark = pytest.mark.slow

SCAB = "knowledge/crops/wheat-scab.md"


def test_search_is_exactly_the_kb_query_json_contract(client, repo):
    question = "小麦扬花期 温度 22 度 湿度 90% 连续降雨 4 天 风险多高"
    resp = client.get("/api/search", params={"q": question, "k": 3})
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("application/json")
    got = resp.json()
    expected = search(open_index(repo / "dist"), question, k=3).to_dict()
    got.pop("took_ms"), expected.pop("took_ms")
    assert got == json.loads(json.dumps(expected, ensure_ascii=False))
    top = got["results"][0]
    assert top["doc"] == SCAB and top["heading_path"][-1] == "3.2 风险等级判定表"
    cli = subprocess.run([sys.executable, "-m", "kbtools", "query", "--index",
                          str(repo / "dist"), "--json", "-k", "3", question],
                         capture_output=True, text=True, check=True)
    printed = json.loads(cli.stdout)
    printed.pop("took_ms")
    assert printed == got


def test_search_by_post_with_filters(client):
    resp = client.post("/api/search", json={"query": "施药", "k": 5, "where": ["crop=水稻"],
                                            "verified_only": True})
    assert resp.status_code == 200
    body = resp.json()
    assert body["filters"]["where"] == ["crop=水稻"] and body["filters"]["verified_only"]
    assert body["results"] and all("水稻" in r["metadata"]["crop"] and r["verified"]
                                   for r in body["results"])


@pytest.mark.parametrize("params, status, words", [
    ({}, 400, "missing 'q'"),
    ({"q": "x" * 8200}, 414, "query string longer than 8192 bytes"),  # longer: by POST
    ({"q": "赤霉病", "k": "0"}, 400, "'k'"),
    ({"q": "赤霉病", "k": "abc"}, 400, "'k'"),
    ({"q": "赤霉病", "k": "101"}, 400, "'k'"),
    ({"q": "赤霉病", "where": "no filter"}, 400, "bad 'where' filter 'no filter'"),
    ({"q": "赤霉病", "verified_only": "maybe"}, 400, "true or false"),
])
def test_search_errors(client, params, status, words):
    message = error_of(client.get("/api/search", params=params), status)
    assert words is None or words in message


def test_search_post_body_errors(client):
    assert "not a JSON object" in error_of(
        client.post("/api/search", content=b"[1,2]", headers={"content-type": "application/json"}), 400)
    assert "not UTF-8 (byte 0xFF at byte 1)" in error_of(
        client.post("/api/search", content=b"\xff\xfe", headers={"content-type": "application/json"}), 400)
    assert "larger than" in error_of(
        client.post("/api/search", content=b"{" + b" " * 70_000 + b"}"), 413)
    assert "'where'" in error_of(client.post("/api/search", json={"query": "x", "where": [1]}), 400)


def test_a_json_body_saved_with_a_byte_order_mark_is_read(client):
    """A JSON file written by Windows PowerShell 5 (``Set-Content -Encoding UTF8``) begins
    with a UTF-8 byte order mark; `curl --data-binary @q.json` sent it and got 400 "not a
    JSON object" (session 37)."""
    body = "\ufeff" + json.dumps({"query": "赤霉病", "k": 2}, ensure_ascii=False)
    sent = client.post("/api/search", content=body.encode("utf-8"),
                       headers={"content-type": "application/json"})
    assert sent.status_code == 200 and len(sent.json()["results"]) == 2
    assert "not UTF-8 (byte 0xFF at byte 5)" in error_of(client.post(
        "/api/search", content=b"\xef\xbb\xbf{\xff}", headers={"content-type": "application/json"}),
        400)


def test_a_form_body_is_415_naming_the_type_to_send(client):
    """A form's fields posted to the API answered 400 "not a JSON object" (session 37): the
    client is told the type it sent and the one to send; a JSON object sent with a form's
    type (``curl -d '{…}'``) is still read."""
    form = "application/x-www-form-urlencoded"
    for path, fields in (("/api/search", {"query": "赤霉病"}),
                         ("/api/table/evaluate", {"doc": SCAB, "inputs": "x"})):
        message = error_of(client.post(path, data=fields), 415)
        assert form in message and "Content-Type: application/json" in message
    assert "multipart/form-data" in error_of(
        client.post("/api/search", files={"query": ("q.txt", b"x")}), 415)
    sent = client.post("/api/search", content='{"query": "赤霉病"}'.encode(),
                       headers={"content-type": form})
    assert sent.status_code == 200 and sent.json()["results"]


@pytest.mark.parametrize("query, field, byte", [
    ("q=%FF", "q", "0xFF at byte 1"),
    ("q=%D0%A1%C2%F3%B3%E0%C3%B9%B2%A1", "q", "0xC2 at byte 3"),  # 小麦赤霉病 in GBK
    ("q=%E8%B5%A4%E9&k=3", "q", "0xE9 at byte 4"),  # a character cut in two
    ("q=x&where=crop%3D%FF", "where", "0xFF at byte 6"),
])
def test_an_address_that_is_not_utf8_is_400_naming_the_byte(client, query, field, byte):
    """`?q=%FF` was searched as an empty question (200, no results, logged), and a question
    percent-encoded from GBK as replacement characters (session 37): the field and the byte
    are named, on the API and on the pages."""
    message = error_of(client.get(f"/api/search?{query}"), 400)
    assert f"'{field}' in the address is not UTF-8 text (byte {byte})" in message
    for page in (f"/?{query}", f"/doc/{SCAB}?{query}"):
        refused = client.get(page)
        assert refused.status_code == 400 and byte.split()[0] in refused.text
    assert client.get("/api/search?q=%E8%B5%A4%EF%BF%BD").status_code == 200  # U+FFFD is text


def test_a_huge_query_string_is_refused_before_any_handler(client):
    assert "query string" in error_of(client.get("/api/search?q=" + "a" * 9000), 414)

def cite(hit) -> str:
    """A result's citation as `kb query` and the MCP tools print it (`Citation.text`)."""
    return (f"{hit['doc']}:{hit['line_start']}-{hit['line_end']} § "
            + " > ".join(hit["heading_path"]))


@pytest.mark.parametrize("question, doc", [
    ("how to calibrate a sprayer", "knowledge/crops/sprayer-calibration.md"),
    ("pesticide dilution calculation", "knowledge/crops/pesticide-dilution-and-phi.md"),
    ("first aid for pesticide poisoning", "knowledge/crops/pesticide-operator-safety.md"),
])
def test_an_english_question_over_chinese_knowledge_is_answered_with_citations(
        client, repo, question, doc):
    """The served knowledge is Chinese only, so its index holds no vectors of the English
    model: an English question was judged as one in the knowledge's own language, every
    word of it one the knowledge never writes, and was "no answer" beside the Chinese page
    answering it (session 31). Its citations read back as given."""
    got = client.get("/api/search", params={"q": question, "k": 3}).json()
    assert got["no_answer"] is False, got
    top = next(r for r in got["results"] if r["doc"] == doc)  # among the first 3
    section = client.get("/api/read", params={"doc": cite(top)}).json()
    assert section["doc"] == doc
    assert section["line_start"] <= top["line_start"] and top["line_end"] <= section["line_end"]
    lines = (repo / doc).read_text(encoding="utf-8").splitlines()
    assert all(line in section["markdown"]
               for line in lines[top["line_start"] - 1:top["line_end"]])


def test_an_off_topic_english_question_over_chinese_knowledge_stays_unanswered(client):
    got = client.get("/api/search", params={"q": "How do I bake sourdough bread?"}).json()
    assert got["no_answer"] is True and got["results"] == []
