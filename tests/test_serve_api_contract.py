"""`kb serve`'s JSON API against its own OpenAPI description: what it accepts and returns
validates against the served document's schemas, and what it refuses is refused there too
(split from tests/test_serve_api.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from servefixtures import app_client, error_of, make_served_repo

from kbtools.agents.parameters import filter_list, filter_object
from kbtools.query.question import is_blank
from kbtools.serve.openapi import openapi_document

pytestmark = pytest.mark.slow

BASE = "http://127.0.0.1"
SCAB = "knowledge/crops/wheat-scab.md"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    yield from app_client(make_served_repo(tmp_path_factory.mktemp("contract") / "kr") / "dist",
                          BASE)


def conforms(name: str, instance) -> list[str]:
    """What in `instance` the served OpenAPI document's schema `name` refuses ([]: nothing)."""
    import jsonschema

    schema = {"$ref": f"#/components/schemas/{name}",
              "components": openapi_document()["components"]}
    validator = jsonschema.Draft202012Validator(schema)
    return [e.message for e in validator.iter_errors(instance)]


def test_the_openapi_description_is_what_the_api_accepts_and_returns(client):
    """The OpenAPI document described a search body as `query` alone, `where` a list, `k`
    an integer and `verified_only` a boolean, while the API takes `q` too, one filter as a
    string, digits and flag words, as the MCP tool does (session 31): a client generated
    from it refused what the API answers. Real responses validate against it too."""
    accepted = [{"query": "赤霉病", "where": "crop=小麦"}, {"q": "赤霉病", "k": "3"},
                {"q": "赤霉病", "k": " \u3000"},
                {"query": "赤霉病", "verified_only": "yes", "k": None},
                {"query": "赤霉病", "where": ["crop=小麦", "verified=true"], "k": 2,
                 "verified_only": False}]
    for body in accepted:
        resp = client.post("/api/search", json=body)
        assert resp.status_code == 200, (body, resp.text)
        assert conforms("SearchRequest", body) == [], body
        assert conforms("SearchResponse", resp.json()) == []
    refused = [{"query": "赤霉病", "q": "赤霉病"}, {"query": "赤霉病", "k": 0},
               {"query": "赤霉病", "verified_only": "maybe"}, {"k": 3},
               {"query": "赤霉病", "top": 3},
               {"query": ""}, {"q": " \u3000\n"}]  # a blank question: nothing asked
    for body in refused:
        assert client.post("/api/search", json=body).status_code == 400, body
        assert conforms("SearchRequest", body), body
    inputs = {"温度": "22℃", "相对湿度": 90, "连续降雨天数": "4"}
    for body in ({"doc": SCAB, "inputs": inputs}, {"doc": f"{SCAB}:71", "inputs": inputs,
                                                    "policy": "all"}):
        assert conforms("TableRequest", body) == []
        assert conforms("TableResult", client.post("/api/table/evaluate", json=body).json()) == []
    assert conforms("Section", client.get("/api/read", params={"doc": f"{SCAB}:71"}).json()) == []
    assert conforms("Error", client.get("/api/read", params={"doc": "nope.md"}).json()) == []
    assert conforms("Health", client.get("/api/healthz").json()) == []


def test_a_where_object_is_read_as_the_mcp_tool_reads_it(client):
    """The MCP tool `search` reads `where` as an object (one filter per key, a value with an
    operator the key's condition, a list any of its values) while /api/search and its
    OpenAPI schema refused one as "must be a list" (session 48): both read it alike now."""
    def found(where):
        sent = client.post("/api/search", json={"query": "施药", "k": 5, "where": where})
        assert sent.status_code == 200, (where, sent.text)
        return [r["chunk_id"] for r in sent.json()["results"]], sent.json()["filters"]["where"]

    listed = found(["crop=水稻,玉米", "verified=true", "category!=nothing"])
    got = found({"crop": ["水稻", "玉米"], "verified": True, "category": "!=nothing"})
    assert got == listed and got[0]
    assert conforms("SearchRequest", {"query": "施药", "where": {"crop": ["水稻"], "n": 2}}) == []
    for where, words in (({"crop": None}, "where.crop: expected a string"),
                         ({"crop": {"x": 1}}, "where.crop: expected a string"),
                         ({f"k{i}": "x" for i in range(21)}, "at most 20 'where' filters"),
                         ({"crop": ["x"] * 21}, "at most 20 'where.crop' filters"),
                         ({"crop": "x" * 1001}, "'where.crop' filter longer than 1000")):
        assert words in error_of(client.post("/api/search", json={"query": "施药",
                                                                   "where": where}), 400)
        assert conforms("SearchRequest", {"query": "施药", "where": where}), where


def test_a_where_is_bounded_by_the_mcp_tools_own_types(client):
    """/api/search bounded a `where` by hand with the limits the MCP tool's types
    (`parameters.FilterObject`, `FilterList`) declare; it is validated through those types
    now: at each bound it is searched, one past it refused in one line naming the key."""
    obj, listed = filter_object().json_schema(), filter_list().json_schema()
    keys, chars = obj["maxProperties"], obj["propertyNames"]["maxLength"]
    values, filters = obj["additionalProperties"]["anyOf"][-1]["maxItems"], listed["maxItems"]
    at_bound = [{f"k{i}": "x" for i in range(keys)}, {"k" * chars: "x"},
                {"crop": ["x"] * values}, {"crop": "x" * chars}, ["crop=x"] * filters]
    past = [({f"k{i}": "x" for i in range(keys + 1)}, f"at most {keys} 'where' filters"),
            ({"k" * (chars + 1): "x"}, f"a 'where' filter longer than {chars} characters"),
            ({"crop": ["x"] * (values + 1)}, f"at most {values} 'where.crop' filters"),
            ({"crop": ["x", "y" * (chars + 1)], "n": None},
             f"a 'where.crop' filter longer than {chars} characters"),
            (["crop=x"] * (filters + 1), f"at most {filters} 'where' filters")]
    for where in at_bound:
        sent = client.post("/api/search", json={"query": "施药", "where": where})
        assert sent.status_code == 200 or not any(
            words in error_of(sent, 400) for words in ("' filters", "filter longer than")), \
            sent.text  # (a key of the most characters makes a filter the parser refuses)
    for where, said in past:
        assert error_of(client.post("/api/search", json={"query": "施药", "where": where}),
                        400) == said


# `kb serve`'s modules imported with pydantic's TypeAdapter refusing to be built, then the
# OpenAPI document asked for with it back: prints the document's `where` object schema
_LAZY_SCHEMA = """
import json, pydantic
real = pydantic.TypeAdapter
class Refused:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a TypeAdapter built on import")
pydantic.TypeAdapter = Refused
import kbtools.serve.app, kbtools.agents.parameters as parameters
parameters.TypeAdapter = real
from kbtools.serve.openapi import openapi_document
where = openapi_document()["components"]["schemas"]["SearchRequest"]["properties"]["where"]
print(json.dumps(where["anyOf"][2]))
"""


def test_the_where_schema_is_built_when_the_document_is_asked_for():
    """`serve/openapi.py` built the `where` object's schema with pydantic's TypeAdapter when
    `kb serve` imported it, whether or not a client ever asked for the document; it is built
    when the document is first asked for, and is the MCP tool's `FilterObject` schema."""
    out = subprocess.run([sys.executable, "-c", _LAZY_SCHEMA], capture_output=True,
                         text=True, check=False)
    assert out.returncode == 0, out.stderr[-500:]
    shown = json.loads(out.stdout)
    assert shown.pop("description").startswith("one filter per key")
    assert shown == filter_object().json_schema()


def test_the_openapi_where_says_what_a_filter_matches():
    """A client reading the OpenAPI document learnt only "filters KEY=VALUE, ...": not which
    keys, that values compare as numbers or text, nor that `tags=病害` matches the nested
    `病害/赤霉病` (session 34's filters) as the MCP tool's schema says."""
    params = {p["name"]: p for p in openapi_document()["paths"]["/api/search"]["get"]["parameters"]}
    said = params["where"]["description"]
    for part in ("KEY!=VALUE", "KEY>=VALUE", "`doc`", "numbers", "nested under X", "no_answer"):
        assert part in said, (part, said)


@pytest.mark.parametrize("value, said", [(None, "null (leave a value not known out)"),
                                         ([22], "a list"), ({"v": 22}, "an object"),
                                         (True, "a boolean")])
def test_an_input_that_is_no_string_or_number_is_named_as_json_names_it(client, value, said):
    """An LLM sends null for a value it does not know: the error said "not NoneType"
    (session 31), a name from the server's language, not the request's."""
    message = error_of(client.post("/api/table/evaluate", json={
        "doc": SCAB, "inputs": {"温度": value, "相对湿度": "90", "连续降雨天数": "4"}}), 400)
    assert message == f"input '温度' must be a string or a number, not {said}"


# a NUL, zero-width and colour-code questions the API refuses; the nearest it takes
BLANKISH = ["\x00", "\u200b", "\u200b\u2060\ufeff", "\t\x00 \u3000\u200d", "\x1b[31m",
            "\x1b[0m \x1b[1;32m\u200b", "\U000e0041"]
SOMETHING = ["\x00a", "\u200b小麦", "\x1b[31m报警 E17", "\x1bx", "😀", "\u00ad-"]


def test_the_openapi_question_pattern_refuses_what_the_api_refuses(client):
    """The question's pattern was `\\S`: a NUL, a zero-width space or a terminal colour code
    alone passed a client's validation and the API refused it as blank. The pattern now
    says the server's rule (`is_blank`) for every character of the Basic Multilingual Plane
    and for colour codes; the invisible characters above it (a tag) are said in words."""
    import re

    schemas = openapi_document()["components"]["schemas"]["SearchRequest"]["properties"]
    pattern = re.compile(schemas["q"]["pattern"])
    assert schemas["query"]["pattern"] == pattern.pattern
    plane = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    assert [c for c in plane if bool(pattern.search(c)) == is_blank(c)] == []
    for q in BLANKISH + SOMETHING:
        refused = client.post("/api/search", json={"q": q}).status_code == 400
        assert refused == is_blank(q), repr(q)
        if not q.startswith("\U000e0041"):  # above the plane: in the description
            assert bool(conforms("SearchRequest", {"q": q})) == refused, repr(q)
    assert "tag character" in schemas["q"]["description"]


def test_the_openapi_document_says_every_bound_the_api_enforces(client):
    """The JSON API bounds a heading path, a table's section, its headings and its inputs
    (since session 45), which the OpenAPI document did not say: a client generated from it
    sent what the API refuses. Each bound is read from the document and the API is asked at
    it and past it: refused past it alone, as the document's schema refuses it."""
    import jsonschema

    doc = openapi_document()
    table = doc["components"]["schemas"]["TableRequest"]["properties"]
    text, headings = table["table"]["anyOf"][0], table["table"]["anyOf"][2]
    inputs = table["inputs"]
    read_params = {p["name"]: p["schema"] for p in doc["paths"]["/api/read"]["get"]["parameters"]}
    n_text, n_headings = text["maxLength"], headings["maxItems"]
    n_key, n_value = inputs["propertyNames"]["maxLength"], \
        inputs["additionalProperties"]["anyOf"][0]["maxLength"]
    n_inputs, n_line = inputs["maxProperties"], read_params["line_start"]["maximum"]
    assert read_params["heading_path"]["items"]["maxLength"] == n_text
    assert read_params["heading_path"]["maxItems"] == n_headings

    def evaluate(**body) -> tuple[int, str]:
        resp = client.post("/api/table/evaluate", json={"doc": SCAB, **body})
        return resp.status_code, resp.text

    cases = [  # (body, whether past a bound)
        ({"table": "病" * n_text, "inputs": {"温度": "1"}}, False),
        ({"table": "病" * (n_text + 1), "inputs": {"温度": "1"}}, True),
        ({"table": ["病"] * n_headings, "inputs": {"温度": "1"}}, False),
        ({"table": ["病"] * (n_headings + 1), "inputs": {"温度": "1"}}, True),
        ({"inputs": {"温" * n_key: "1"}}, False), ({"inputs": {"温" * (n_key + 1): "1"}}, True),
        ({"inputs": {"温度": "1" * n_value}}, False),
        ({"inputs": {"温度": "1" * (n_value + 1)}}, True),
        ({"inputs": {f"c{i}": "1" for i in range(n_inputs)}}, False),
        ({"inputs": {f"c{i}": "1" for i in range(n_inputs + 1)}}, True),
    ]
    for body, past in cases:
        status, said = evaluate(**body)
        bound_said = status == 400 and ("at most" in said or "longer than" in said)
        assert bound_said == past, (body if len(str(body)) < 200 else list(body), said)
        assert bool(conforms("TableRequest", {"doc": SCAB, **body})) == past
    for name, value, past in [("heading_path", "病" * n_text, False),
                              ("heading_path", "病" * (n_text + 1), True),
                              ("line_start", n_line, False), ("line_start", n_line + 1, True)]:
        resp = client.get("/api/read", params={"doc": SCAB, name: value})
        assert (resp.status_code == 400 and name in resp.json()["error"]["message"]) == past
        given = [value] if name == "heading_path" else value
        assert not jsonschema.Draft202012Validator(read_params[name]).is_valid(given) == past


def test_the_openapi_document_bounds_doc_as_every_surface_does(client):
    """`doc` takes a whole citation (`x.md:65-73 § A > B @ kb-r3`), which had no bound but
    the path's: a heading path of any length after a short path was read (a heading path
    given alone is bounded), and the document stated no maxLength for it, nor MCP a bound
    it did not hold. The bound is now stated for /api/read, /api/table/evaluate and MCP,
    and `doc` is refused past it alone, in the request's language."""
    from pydantic import TypeAdapter

    from kbtools.agents.parameters import Doc

    doc = openapi_document()
    read_doc = next(p["schema"] for p in doc["paths"]["/api/read"]["get"]["parameters"]
                    if p["name"] == "doc")
    n = read_doc["maxLength"]
    assert doc["components"]["schemas"]["TableRequest"]["properties"]["doc"]["maxLength"] == n
    assert TypeAdapter(Doc).json_schema()["maxLength"] == n
    # (a GET's query string holds at most the document's stated bytes: a Chinese heading
    # path that long goes by POST, letters by either)
    for lines, lang, fill in ((":65-73", "en", "a"), ("", "zh", "a"), ("", "zh", "病")):
        head = f"{SCAB}{lines} § "
        for size, past in ((n, False), (n + 1, True)):
            cited = head + fill * (size - len(head))
            headers = {"Accept-Language": lang}
            asked = [client.post("/api/table/evaluate", headers=headers,
                                 json={"doc": cited, "inputs": {"温度": "1"}})]
            if fill == "a":
                asked.append(client.get("/api/read", params={"doc": cited}, headers=headers))
            for resp in asked:
                said = resp.json()["error"]["message"] if resp.status_code >= 400 else ""
                bound_said = resp.status_code == 400 and (f"longer than {n}" in said
                                                          or f"超过 {n}" in said)
                assert bound_said == past, (size, resp.status_code, said[:200])
            assert bool(conforms("TableRequest", {"doc": cited, "inputs": {}})) == past


def test_the_openapi_document_bounds_commit_as_the_api_and_mcp_do(client):
    """`commit` had no stated bound in the OpenAPI document (MCP's schema held 64 and said
    "7 or more digits"): a client generated from it sent a longer one the API refuses. Each
    `commit` states the API's bound, as MCP's does, and the API refuses past it alone."""
    from pydantic import TypeAdapter

    from kbtools.agents.parameters import ReleaseCommit, SearchCommit, TableCommit

    doc = openapi_document()
    schemas = doc["components"]["schemas"]
    stated = [next(p["schema"] for p in doc["paths"][path]["get"]["parameters"]
                   if p["name"] == "commit") for path in ("/api/search", "/api/read")]
    stated += [schemas["TableRequest"]["properties"]["commit"],
               schemas["SearchRequest"]["properties"]["commit"]["anyOf"][0]]
    n = stated[0]["maxLength"]
    assert [s["maxLength"] for s in stated] == [n] * 4
    for each in (SearchCommit, ReleaseCommit, TableCommit):
        mcp = TypeAdapter(each).json_schema()
        assert mcp["anyOf"][0]["maxLength"] == n and f"to {n} hexadecimal" in \
            mcp["description"], mcp
    for size, past in ((n, False), (n + 1, True)):
        resp = client.get("/api/search", params={"q": "赤霉病", "commit": "a" * size})
        said = resp.json()["error"]["message"] if resp.status_code >= 400 else ""
        assert (resp.status_code == 400 and "'commit'" in said) == past, said
        assert bool(conforms("SearchRequest", {"q": "赤霉病", "commit": "a" * size})) == past


def test_the_openapi_document_says_a_chinese_citation_meets_the_query_bound_first(client):
    """`doc` is bounded at MAX_CITED_CHARS characters, but a Chinese citation that long
    sent to /api/read by GET passes the query string's bound (9 bytes a character) and is
    answered 414: the document said neither. It says how many Chinese characters fit,
    and that is what the server takes."""
    from kbtools.serve.openapi import READ_CHINESE_CHARS

    read_doc = next(p for p in openapi_document()["paths"]["/api/read"]["get"]["parameters"]
                    if p["name"] == "doc")
    n = READ_CHINESE_CHARS
    assert n < read_doc["schema"]["maxLength"]
    assert f"{n} Chinese characters" in read_doc["description"] and "414" in \
        read_doc["description"]
    for size, past in ((n, False), (n + 1, True)):
        resp = client.get("/api/read", params={"doc": "病" * size})
        assert (resp.status_code == 414) == past, (size, resp.status_code)


def test_the_openapi_document_bounds_release_as_the_api_and_mcp_do(client):
    """MCP's `release` held at most MAX_TAG_CHARS characters, but the OpenAPI document stated
    no bound and the API looked any length up (a 404 naming the releases kept): one bound,
    stated on each `release` and refused past it alone, 400 naming the argument."""
    from pydantic import TypeAdapter

    from kbtools.agents.arguments import MAX_TAG_CHARS
    from kbtools.agents.parameters import ReleaseTag, SearchRelease, TableRelease

    doc = openapi_document()
    schemas = doc["components"]["schemas"]
    stated = [next(p["schema"] for p in doc["paths"][path]["get"]["parameters"]
                   if p["name"] == "release") for path in ("/api/search", "/api/read")]
    stated += [schemas["TableRequest"]["properties"]["release"],
               schemas["SearchRequest"]["properties"]["release"]["anyOf"][0]]
    n = MAX_TAG_CHARS
    assert [s["maxLength"] for s in stated] == [n] * 4
    for each in (SearchRelease, ReleaseTag, TableRelease):
        assert TypeAdapter(each).json_schema()["anyOf"][0]["maxLength"] == n
    for size, past in ((n, False), (n + 1, True)):
        tag = "x" * size
        answers = [client.get("/api/search", params={"q": "赤霉病", "release": tag}),
                   client.get("/api/read", params={"doc": SCAB, "release": tag}),
                   client.post("/api/table/evaluate",
                               json={"doc": SCAB, "inputs": {}, "release": tag})]
        for resp in answers:
            said = resp.json()["error"]["message"]
            assert resp.status_code in (400, 404), (resp.status_code, said)
            assert (resp.status_code == 400 and "'release'" in said
                    and f"at most {n}" in said) == past, said
        assert bool(conforms("SearchRequest", {"q": "赤霉病", "release": tag})) == past
