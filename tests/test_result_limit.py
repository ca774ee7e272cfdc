"""One bound on the number of results a search returns (`kbtools.config.MAX_K`), the same on
every surface: `kb query -k` took 1-100 while the JSON API and the MCP tools refused more
than 20, so a question asked with `-k 50` could not be asked the same way of the web app
or by an agent."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import click
import pytest

from kbtools.agents.mcp_server import build_server
from kbtools.agents.tool_texts import SEARCH_DOC
from kbtools.cli import main
from kbtools.config import MAX_K
from kbtools.serve.openapi import openapi_document
from kbtools.serve.ops import ApiError, check_k

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"


def cli_bound(command: str) -> tuple[int | float | None, int | float | None]:
    found = main.get_command(click.Context(main), command)
    assert found is not None
    option = next(p for p in found.params if p.name == "k")
    assert isinstance(option.type, click.IntRange)
    return option.type.min, option.type.max


def test_every_surface_takes_k_from_1_to_the_same_bound(tmp_path):
    assert cli_bound("query") == cli_bound("eval") == (1, MAX_K)
    config = json.loads((SCHEMAS / "kb.schema.json").read_text(encoding="utf-8"))
    assert config["properties"]["query"]["properties"]["k"]["maximum"] == MAX_K
    api = openapi_document()
    search = api["paths"]["/api/search"]["get"]["parameters"]
    assert next(p for p in search if p["name"] == "k")["schema"]["maximum"] == MAX_K
    body_k = api["components"]["schemas"]["SearchRequest"]["properties"]["k"]
    # (a body may send k as a number or as digits: the number's bound is the bound)
    assert [b["maximum"] for b in body_k["anyOf"] if b.get("type") == "integer"] == [MAX_K]

    async def listed():
        return {t.name: t for t in await build_server(root=tmp_path).list_tools()}

    tool = anyio.run(listed)["search"]
    assert tool.input_schema["properties"]["k"]["maximum"] == MAX_K
    assert f"k (1-{MAX_K}\nresults" in SEARCH_DOC


@pytest.mark.parametrize("k", [1, 50, MAX_K])
def test_the_api_and_the_web_app_accept_what_kb_query_accepts(k):
    assert check_k(k) == check_k(str(k)) == k


def test_one_more_is_refused_everywhere_in_words():
    with pytest.raises(ApiError) as exc:
        check_k(MAX_K + 1)
    assert exc.value.message == f"'k' must be a whole number from 1 to {MAX_K}"
