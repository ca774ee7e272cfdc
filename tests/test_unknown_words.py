"""What a question's unknown words tell the user (kbtools.query.unknown): the words as the
question writes them (``cycle``, not the stem cycl; ``servo.overload_guard_ms``, not
servo.overload_guard_m), and the codes and names no document holds said also when the
rest of the question is answered (`SearchResponse.not_in_knowledge`): a pasted log naming a
known alarm and a setting no document holds was answered about the alarm with nothing
saying the setting is not in the knowledge."""

from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from kbtools.cli import main
from kbtools.index.reader import ReleaseInfo, open_index
from kbtools.index.tokenize import Tokenizer
from kbtools.query.results import NAMES_SHOWN, SearchFilters, SearchResponse
from kbtools.query.search import search
from kbtools.query.unknown import as_written, shown_unknown
from kbtools.serve.app import create_app
from kbtools.serve.openapi import openapi_document

LOG = ("2026-03-18 14:05:11 [ALARM] E17 伺服过载 保压压力过高\n"
       "2026-03-18 14:05:11 [CFG] servo.overload_guard_ms=300 not applied\n"
       "2026-03-18 14:05:12 [INFO] cycle stopped\n")
KEY = "servo.overload_guard_ms"


def test_unknown_terms_are_shown_as_the_question_writes_them():
    tok = Tokenizer()
    text = "Cycle stopped: servo.overload_guard_ms=300, 叉車 and ＴＬＳ"
    terms = tok(text)
    assert "cycl" in terms and "servo.overload_guard_m" in terms  # the index's terms
    written = as_written(tok, text, ["cycl", "servo.overload_guard_m", "叉车", "tls", "zzz"])
    assert written == {"cycl": "Cycle", "servo.overload_guard_m": KEY, "叉车": "叉車",
                       "tls": "TLS", "zzz": "zzz"}
    # a code typed as two words that is nowhere in the knowledge: as typed, in its words' place
    shown, names = shown_unknown(tok, "reset E 99 cycle", ["e", "99", "cycl"], [("E", "99")])
    assert shown == ("E 99", "cycle") and names == ("E 99",)
    shown, names = shown_unknown(tok, text, ["cycl", "servo.overload_guard_m"], [])
    assert shown == ("Cycle", KEY) and names == (KEY,)


@pytest.fixture(scope="module")
def example(example_index):
    return open_index(example_index)


def test_a_paste_answered_about_its_alarm_says_the_key_no_document_holds(example):
    res = search(example, LOG, k=3)
    assert not res.no_answer and res.results[0].text.startswith("故障码: E17")
    assert res.not_in_knowledge == (KEY,)
    assert res.to_dict()["not_in_knowledge"] == [KEY]
    unknown = res.filters.unknown_terms or ()
    assert KEY in unknown and "cycle" in unknown and "cycl" not in unknown
    answered = search(example, "E17 伺服过载怎么处理", k=3)  # nothing unknown: no field
    assert answered.not_in_knowledge == () and "not_in_knowledge" not in answered.to_dict()


def test_kb_query_says_in_one_line_what_the_knowledge_does_not_hold(example_index):
    runner = CliRunner()
    res = runner.invoke(main, ["query", LOG, "--index", str(example_index), "-k", "1"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == (f"Not in the knowledge: {KEY}. The results answer "
                                          f"the rest of the question.")
    assert res.output.count("Not in the knowledge") == 1 and "故障码: E17" in res.output
    none = runner.invoke(main, ["query", "E 99 报警怎么处理", "--index", str(example_index)])
    assert none.exit_code == 0 and none.output.startswith("No answer in the knowledge")
    assert none.output.splitlines()[1] == "Not in the knowledge: E 99"


def test_the_api_document_names_every_field_of_a_search_response():
    """`not_in_knowledge` is part of the JSON contract the API's OpenAPI document describes."""
    full = SearchResponse("q", ReleaseInfo("v1", "c" * 40), SearchFilters(unknown_terms=()),
                          no_answer=True, reason="r", took_ms=1.0, condensed={},
                          not_in_knowledge=(KEY,))
    schema = openapi_document()["components"]["schemas"]["SearchResponse"]["properties"]
    assert set(full.to_dict()) <= set(schema)
    assert schema["not_in_knowledge"]["type"] == "array"


def traceback_paste(frames: int) -> str:
    """A pasted Python traceback: a module path and a function no document holds per frame."""
    lines = [f'  File "/srv/plc/job_{i}.py", line {i + 3}, in stage_{i}_run' for i in range(frames)]
    return "Traceback (most recent call last):\n" + "\n".join(lines) + "\n伺服过载 E17\n"


def test_a_long_paste_names_the_first_few_it_lacks_and_counts_the_rest(example, example_index):
    """A pasted traceback named every one of its files in "Not in the knowledge: …", a screen
    of names on a phone; the CLI, the web page and the JSON now say the first NAMES_SHOWN
    and how many more."""
    paste = traceback_paste(30)
    res = search(example, paste, k=1)
    names, more = res.names_shown()
    assert len(res.not_in_knowledge) > NAMES_SHOWN + 5
    assert names == res.not_in_knowledge[:NAMES_SHOWN] and more == len(res.not_in_knowledge) - NAMES_SHOWN
    out = res.to_dict()
    assert out["not_in_knowledge"] == list(names) and out["not_in_knowledge_more"] == more
    runner = CliRunner()
    cli = runner.invoke(main, ["query", paste, "--index", str(example_index), "-k", "1"])
    [line] = [x for x in cli.output.splitlines() if x.startswith("Not in the knowledge")]
    assert line.startswith("Not in the knowledge: " + ", ".join(names) + f" and {more} more")
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as client:
        for lang, said in (("en", ", ".join(names) + f" and {more} more"),
                           ("zh", "、".join(names) + f"，另有 {more} 个")):
            page = client.post("/", data={"q": paste, "lang": lang}).text
            [shown] = re.findall(r'<p class="not-in-knowledge">(.*?)</p>', page)
            assert said in html.unescape(shown) and names[-1] in shown
            assert res.not_in_knowledge[NAMES_SHOWN] not in shown
    schema = openapi_document()["components"]["schemas"]["SearchResponse"]["properties"]
    assert schema["not_in_knowledge_more"]["type"] == "integer"


def test_a_long_paste_lists_the_first_few_unknown_terms_and_counts_the_rest(example,
                                                                             example_index):
    """`filters.unknown_terms` listed every unknown word of a pasted log (hundreds) in the
    JSON of `kb query --json` and the web API; now the first NAMES_SHOWN and a count, as
    `not_in_knowledge`."""
    paste = traceback_paste(30)
    every = search(example, paste, k=1).filters.unknown_terms or ()
    assert len(every) > NAMES_SHOWN + 5
    cli = CliRunner().invoke(main, ["query", paste, "--index", str(example_index), "-k", "1",
                                    "--json"])
    assert cli.exit_code == 0, cli.output
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as client:
        api = client.post("/api/search", json={"query": paste, "k": 1}).json()
    for out in (json.loads(cli.output)["filters"], api["filters"]):
        assert out["unknown_terms"] == list(every[:NAMES_SHOWN])
        assert out["unknown_terms_more"] == len(every) - NAMES_SHOWN
    few = SearchFilters(unknown_terms=tuple(every[:NAMES_SHOWN])).to_dict()
    assert few["unknown_terms"] == list(every[:NAMES_SHOWN]) and "unknown_terms_more" not in few
    description = openapi_document()["components"]["schemas"]["SearchResponse"]["properties"]
    assert "unknown_terms_more" in description["filters"]["description"]


def test_a_version_or_address_no_document_holds_is_shown_whole():
    """`v2.3.1` is the term 2.3.1, `10.0.0.1:8080` the terms 10.0.0.1 and 8080: neither
    looked like a code or a name, so neither was said to be missing from the knowledge."""
    tok = Tokenizer()
    assert shown_unknown(tok, "v2.3.1 升级 步骤", ["2.3.1", "升级"], []) == (
        ("v2.3.1", "升级"), ("v2.3.1",))
    assert shown_unknown(tok, "10.0.0.1:8080 连不上", ["10.0.0.1", "8080", "连不上"], []) == (
        ("10.0.0.1:8080", "连不上"), ("10.0.0.1:8080",))
    assert shown_unknown(tok, "Upgrade to V1.2.0-rc1.", ["v1.2.0-rc1"], [])[1] == ("V1.2.0-rc1",)
    # a decimal is a value, a known address's port alone no address the knowledge lacks
    assert shown_unknown(tok, "压力 2.5 MPa", ["2.5", "mpa"], [])[1] == ()
    assert shown_unknown(tok, "10.0.0.1:9090", ["9090"], [])[1] == ()


@pytest.mark.parametrize(("question", "no_answer", "names"), [
    ("v2.3.1 升级 步骤", True, ("v2.3.1",)),
    ("10.0.0.1:8080 连不上", True, ("10.0.0.1:8080",)),
    ("192.168.1.20 无法访问", True, ("192.168.1.20",)),
    ("upgrade to 2.3.1 steps", True, ("2.3.1",)),
    ("E17 伺服过载 v9.8.7 固件怎么处理", False, ("v9.8.7",)),
    ("E17 servo overload after upgrading to 4.17.2", False, ("4.17.2",)),
    ("E71 报警怎么处理", True, ("E71",)),
    ("保压压力 2.5 MPa 正常吗", False, ())])
def test_a_version_or_address_is_listed_as_a_code_is(example, question, no_answer, names):
    """Listed under "Not in the knowledge" as E71 is; which questions are answered stays."""
    res = search(example, question, k=3)
    assert (res.no_answer, res.not_in_knowledge) == (no_answer, names)


def test_kb_query_names_the_version_the_knowledge_lacks(example_index):
    res = CliRunner().invoke(main, ["query", "v2.3.1 升级 步骤", "--index", str(example_index)])
    assert res.exit_code == 0 and res.output.startswith("No answer in the knowledge")
    assert res.output.splitlines()[1] == "Not in the knowledge: v2.3.1"
