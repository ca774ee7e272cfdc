"""MCP `search`'s `where` and `k` refused in words an agent can act on, alike over MCP and
/api/search: one small index (the test-hash embedder) built once for the module, the MCP
server in process beside the web app over the same index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import build_server
from kbtools.query.filters import MAX_WHERE_CHARS
from kbtools.serve.app import create_app
from tests.hostile import built_repo_index


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    return built_repo_index(tmp_path_factory.mktemp("where") / "repo", {}, model="test-hash")


@pytest.fixture(scope="module")
def api(dist) -> Iterator[TestClient]:
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        yield client


def mcp_search(dist: Path, *asks: dict[str, Any]) -> list[str]:
    """Each of `asks` sent to MCP `search`: the error's line ("ok" when it answered)."""
    from mcp.server.mcpserver.exceptions import ToolError

    server = build_server(index=dist, root=dist.parent)

    async def run() -> list[str]:
        said = []
        for ask in asks:
            try:
                await server.call_tool("search", ask)
                said.append("ok")
            except ToolError as exc:
                said.append(str(exc))
        return said

    return anyio.run(run)


def api_search(api: TestClient, ask: dict[str, Any]) -> tuple[int, str]:
    resp = api.post("/api/search", json=ask)
    return resp.status_code, resp.json().get("error", {}).get("message", "")


# each value and key within the bound of one filter string, the filter they make over it
OVER = {"many values": {"crop": ["a" * 600, "b" * 600]},
        "long key and value": {"k" * 900: "v" * 900},
        "an operator's value": {"功率" * 10: ">" + "5" * (MAX_WHERE_CHARS - 10)}}


@pytest.mark.parametrize("label", list(OVER))
def test_an_object_key_whose_filter_is_over_the_bound_is_refused_naming_it(dist, api, label):
    """A `where` object's key made one filter of its key and all its values; each was
    bounded, the filter was not, and one over `MAX_WHERE_CHARS` was refused as a bad
    operator ("use KEY=VALUE, …") on both surfaces. The filter each key gives is bounded
    as one filter string is: refused naming the key, its length and the bound."""
    ask = {"query": "pump", "where": OVER[label]}
    key = next(iter(OVER[label]))[:39]
    (said,) = mcp_search(dist, ask)
    status, message = api_search(api, ask)
    for text in (said, message):
        assert f"where.{key}" in text and f"over the {MAX_WHERE_CHARS} of one filter" in text
        assert "use KEY=VALUE" not in text and "\n" not in text
    assert status == 400 and said.endswith(message)


def test_an_object_key_whose_filter_is_at_the_bound_is_searched(dist, api):
    value = "x" * (MAX_WHERE_CHARS - len("category="))
    ask = {"query": "pump", "where": {"category": value}}
    assert mcp_search(dist, ask) == ["ok"]
    assert api_search(api, ask)[0] == 200


# a `where` value of another type than a filter takes, and where each is named
WRONG = {"null": ({"category": None}, "where.category", "不能是 null"),
         "object": ({"crop": {"a": 1}}, "where.crop", "不能是对象"),
         "listed object": ({"crop": ["小麦", {"a": 1}]}, "where.crop.1", "不能是对象"),
         "number": (5, "where", "不能是数字"),
         "listed number": (["category=x", 5], "where.1", "不能是数字（5）")}


@pytest.mark.parametrize("label", list(WRONG))
def test_a_wrong_where_value_is_said_in_the_questions_language(dist, label):
    """A `where` value of a type no filter takes was refused in English whatever the
    question's language. For a Chinese question it is said in Chinese, naming the key (or
    the place in the list) and what it takes; an English question's is as before."""
    where, named, given = WRONG[label]
    zh, en = mcp_search(dist, {"query": "水泵 怎么维护", "where": where},
                        {"query": "pump maintenance", "where": where})
    assert f"参数无效：{named}：应为" in zh and given in zh, zh
    assert "expected" not in zh and "\n" not in zh
    assert f"invalid arguments: {named}: expected" in en and "应为" not in en, en


def test_a_where_key_over_the_bound_is_said_in_chinese_for_a_chinese_question(dist):
    zh, en = mcp_search(dist, *({"query": q, "where": OVER["many values"]}
                                for q in ("小麦 赤霉病", "wheat scab")))
    assert "where.crop：它组成的筛选条件" in zh and f"最多 {MAX_WHERE_CHARS} 个字符" in zh, zh
    assert f"over the {MAX_WHERE_CHARS} of one filter" in en


@pytest.mark.parametrize("where, said", [
    ({"crop": None}, "where.crop：应为字符串、数字、true 或 false（或它们的列表），不能是 null"),
    ({"crop": [{}]}, "where.crop：应为字符串、数字、true 或 false（或它们的列表），不能是对象"),
    ({" ": "x"}, "where：对象的键必须是一个 front matter 键名，不能为空")])
def test_a_where_refused_past_the_schema_has_chinese_words(where, said):
    """`filters` (what a direct call and /api/search read `where` with) refuses these with
    a key whose Chinese words the tool says for a Chinese question."""
    from kbtools.agents.arguments import filters
    from kbtools.agents.calls import tool_error
    from kbtools.errors import UsageError

    with pytest.raises(UsageError) as exc:
        filters(where)
    assert tool_error(exc.value, zh={"where"}) == said
    assert tool_error(exc.value) == exc.value.message


def test_k_is_refused_outside_its_range_and_its_schema_says_so(dist, api):
    """`k` of 0, a negative, a fraction, true or over `MAX_K` is refused naming the range on
    both surfaces, never clamped; `MAX_K` over an index holding fewer passages returns
    those it has. The tool's schema says all of it (it said only "1-100")."""
    from kbtools.config import MAX_K

    server = build_server(index=dist, root=dist.parent)

    async def schema() -> dict[str, Any]:
        tool = next(t for t in await server.list_tools() if t.name == "search")
        return dict(tool.input_schema["properties"]["k"])

    k = anyio.run(schema)
    assert (k["type"], k["minimum"], k["maximum"]) == ("integer", 1, MAX_K)
    assert "fewer come back" in k["description"] and "never clamped" in k["description"]
    bad = [0, -1, 2.5, 5.0, True, MAX_K + 1, 10**12]
    said = mcp_search(dist, *({"query": "pump", "k": v} for v in bad))
    for value, text in zip(bad, said, strict=True):
        assert f"k: must be a whole number from 1 to {MAX_K}, not " in text, (value, text)
        assert api_search(api, {"query": "pump", "k": value})[0] == 400, value
    resp = api.post("/api/search", json={"query": "pump", "k": MAX_K})
    assert resp.status_code == 200 and 0 < len(resp.json()["results"]) < MAX_K
    assert mcp_search(dist, {"query": "pump", "k": MAX_K}) == ["ok"]
