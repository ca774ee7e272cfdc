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
