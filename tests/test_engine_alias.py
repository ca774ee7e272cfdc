"""`--alias` for the engine's readers. `kb publish --alias kb_staging` loads a release behind
an alias of its own (to look at before it goes out), but `kb query`, `kb mcp` and `kb serve`
with `--engine` always read the default alias: nothing kb has could read what was staged.
Each now reads the alias given, and the default one without it; `--alias` without
`--engine` is refused (tests/test_engine_options.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from servefixtures import wait_serving

from kbtools.cli import main
from tests.mcpfixtures import data, session
from tests.milvus_server import free_port, milvus  # noqa: F401 - fixture
from tests.test_serve_engine import NEW, NEW_QUESTION, devices  # noqa: F401 - fixture

pytestmark = pytest.mark.slow

STAGING = "kb_staging"


@pytest.fixture(scope="module")
def url(devices, milvus):  # noqa: F811
    """kb-r1 published behind the default alias, kb-r2 (which adds NEW) behind STAGING."""
    u = milvus.url("alias")
    for dev, alias in ((devices[0], []), (devices[1], ["--alias", STAGING])):
        res = CliRunner().invoke(main, ["publish", "--engine", u, "--index", str(dev), *alias])
        assert res.exit_code == 0, res.output
    return u


def first(hits: list[dict]) -> str:
    return hits[0]["doc"] if hits else ""


@pytest.mark.parametrize(("alias", "tag", "doc"), [([], "kb-r1", None),
                                                    (["--alias", STAGING], "kb-r2", NEW)])
def test_kb_query_reads_the_alias_given(url, alias, tag, doc):
    res = CliRunner().invoke(main, ["query", "--engine", url, *alias, NEW_QUESTION, "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["release"]["tag"] == tag
    docs = [r["doc"] for r in got["results"]]
    assert (docs[0] == doc) if doc else NEW not in docs, docs


def test_kb_mcp_reads_the_alias_given(url, tmp_path):
    async def scenario(client):
        return data(await client.call_tool("search", {"query": NEW_QUESTION}))

    got = session(tmp_path, "--engine", url, "--alias", STAGING, scenario=scenario)
    assert got["release"]["tag"] == "kb-r2"
    assert first(got["results"]) == NEW


def test_kb_serve_reads_the_alias_given(url):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kbtools", "serve", "--engine", url,
                             "--alias", STAGING, "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_serving(proc, base)
        with urllib.request.urlopen(f"{base}/api/search?q={quote(NEW_QUESTION)}",
                                    timeout=60) as resp:
            got = json.load(resp)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert got["release"]["tag"] == "kb-r2"
    assert first(got["results"]) == NEW


def test_an_alias_nothing_was_published_to_is_said_in_one_line(url):
    res = CliRunner().invoke(main, ["query", "--engine", url, "--alias", "kb_nothing", "x"])
    assert res.exit_code != 0
    assert "alias kb_nothing is missing" in res.output, res.output


def test_a_staged_release_goes_out_by_publishing_it_again_without_alias(devices, milvus):  # noqa: F811
    """What a staging alias is for: try the release there, then publish it for everyone (the
    engine holds it: the default alias moves to it, nothing loaded again)."""
    u = milvus.url("promote")
    runner = CliRunner()
    said = []
    for args in (["--index", str(devices[0])], ["--index", str(devices[1]), "--alias", STAGING],
                 ["--index", str(devices[1])]):
        res = runner.invoke(main, ["publish", "--engine", u, *args, "--json"])
        assert res.exit_code == 0, res.output
        said.append(json.loads(res.stdout))
    staged, out = said[1:]
    assert out["moved"] and out["collection"] == staged["collection"]  # the same rows
    for alias in ([], ["--alias", STAGING]):
        res = runner.invoke(main, ["query", "--engine", u, *alias, NEW_QUESTION, "--json"])
        got = json.loads(res.stdout)
        assert got["release"]["tag"] == "kb-r2" and first(got["results"]) == NEW, alias
