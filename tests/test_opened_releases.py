"""Earlier releases kept open by a server (`kbtools.agents.opened`): an agent that cites
kb-r1 and then searches, reads and evaluates tables on kb-r1 through `kb mcp` or `kb serve`
has kb-r1 opened by its first call only; a release a sync pruned is refused, never answered
from what was kept open; one replaced or edited on disk is opened anew or refused as an
open refuses it.

A real device serving kb-r2 keeps kb-r1 beside it (tests/device_fixtures.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from device_fixtures import EDITED, EDITED_SECTION, REMOVED, make_device, second_release
from starlette.testclient import TestClient
from test_release_helpers import git

from kbtools.agents.mcp_server import Context, tool_evaluate_table, tool_read, tool_search
from kbtools.cli import main
from kbtools.errors import IndexLoadError, KbError
from kbtools.serve.app import create_app
from kbtools.serve.source import ServedIndex
from kbtools.ship import intact

QUESTION = "喷雾器 施药液量 校准"
TABLE_INPUTS = {"温度": "25", "相对湿度": "90", "连续降雨天数": "3"}


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> Path:
    d = make_device(tmp_path_factory.mktemp("opened"))
    second_release(d)
    return d.dev


@pytest.fixture
def dev(device, tmp_path, monkeypatch) -> Path:
    """A copy of the device; every use of a release checks its files (no 5 s grace)."""
    monkeypatch.setattr(intact, "RECHECK_S", 0.0)
    copy = tmp_path / "device"
    shutil.copytree(device, copy, symlinks=True)
    return copy


def mcp(ctx: Context, fn: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    with ctx.call():
        out: dict[str, Any] = fn(ctx, *args, **kwargs)
        return out


def test_an_agents_calls_on_an_earlier_release_open_it_once(dev):
    ctx = Context(index=dev, query_log=False)
    found = mcp(ctx, tool_search, QUESTION, release="kb-r1")
    assert found["release"]["tag"] == "kb-r1" and REMOVED in found["results"][0]["citation"]
    read = mcp(ctx, tool_read, found["results"][0]["citation"], release="kb-r1")
    table = mcp(ctx, tool_evaluate_table, EDITED, TABLE_INPUTS, release="kb-r1")
    again = mcp(ctx, tool_search, QUESTION, commit=found["release"]["source_commit"])
    assert read["release"]["tag"] == table["release"]["tag"] == "kb-r1"
    assert again["results"] == found["results"]
    assert ctx.earlier.opens == 1 and len(ctx.earlier) == 1  # not once per call
    now = mcp(ctx, tool_search, QUESTION)  # the served release is not one of them
    assert now["release"]["tag"] == "kb-r2" and ctx.earlier.opens == 1


def test_the_web_apps_calls_on_an_earlier_release_open_it_once(dev):
    source = ServedIndex(dev)
    with TestClient(create_app(dev, source=source), base_url="http://127.0.0.1") as client:
        for _ in range(2):
            got = client.get("/api/search", params={"q": QUESTION, "release": "kb-r1"})
            assert got.status_code == 200 and got.json()["release"]["tag"] == "kb-r1"
            read = client.get("/api/read", params={"doc": EDITED, "release": "kb-r1",
                                                   "heading_path": EDITED_SECTION[-1]})
            assert read.status_code == 200 and read.json()["release"]["tag"] == "kb-r1"
            table = client.post("/api/table/evaluate", json={
                "doc": EDITED, "inputs": TABLE_INPUTS, "release": "kb-r1"})
            assert table.status_code == 200 and table.json()["release"]["tag"] == "kb-r1"
    assert source.earlier.opens == 1


def test_a_pruned_release_is_refused_not_answered_from_the_one_kept_open(dev):
    ctx = Context(index=dev, query_log=False)
    citation = mcp(ctx, tool_search, QUESTION, release="kb-r1")["results"][0]["citation"]
    shutil.rmtree(dev / "releases" / "kb-r1")  # as `kb sync` prunes it
    with pytest.raises(KbError, match="release kb-r1 is no longer on this device"):
        mcp(ctx, tool_search, QUESTION, release="kb-r1")
    with pytest.raises(KbError, match="release kb-r1 is no longer on this device"):
        mcp(ctx, tool_read, citation, release="kb-r1")  # kb-r2 removed it: gone, said so
    table = mcp(ctx, tool_evaluate_table, EDITED, TABLE_INPUTS, release="kb-r1")
    assert table["release"]["tag"] == "kb-r2" and "no longer" in table["release_gone"]
    assert ctx.earlier.opens == 1 and len(ctx.earlier) == 0  # and closed: its files let go


def test_a_release_replaced_or_edited_on_disk_is_opened_anew_or_refused(dev, tmp_path):
    ctx = Context(index=dev, query_log=False)
    first = mcp(ctx, tool_search, QUESTION, release="kb-r1")
    kept = dev / "releases" / "kb-r1"
    shutil.copytree(kept, tmp_path / "r1", symlinks=True)
    shutil.rmtree(kept)
    shutil.copytree(tmp_path / "r1", kept, symlinks=True)  # pruned, then synced again
    assert mcp(ctx, tool_search, QUESTION, release="kb-r1")["results"] == first["results"]
    assert ctx.earlier.opens == 2
    shard = next((kept / "data" / "chunks").glob("*.jsonl"))
    shard.write_bytes(shard.read_bytes().replace(b"}", b"} ", 1))  # edited after its sync
    with pytest.raises(IndexLoadError, match="kb-r1, kept on this device, fails verification"):
        mcp(ctx, tool_search, QUESTION, release="kb-r1")


def test_two_agents_on_one_device_across_a_sync(tmp_path):
    """Guard (already right, with the releases kept open): two `kb mcp` servers on one
    device (two contexts), a `kb sync` switching kb-r2 → kb-r3 between their calls. Each
    follows the switch for what it asks plainly, and the citation an agent took from kb-r2
    still reads kb-r2 when it names it, on either server, after its section grew in kb-r3."""
    d = make_device(tmp_path)
    second_release(d)
    a, b = Context(index=d.dev, query_log=False), Context(index=d.dev, query_log=False)
    question = "小麦赤霉病 监测时间窗口"
    cited = mcp(a, tool_search, question)["results"][0]
    assert mcp(b, tool_search, question)["release"]["tag"] == "kb-r2"
    doc = d.kr / EDITED
    doc.write_text(doc.read_text(encoding="utf-8").replace(
        f"## {EDITED_SECTION[-1]}\n", f"## {EDITED_SECTION[-1]}\n\n新增一行。\n"), encoding="utf-8")
    git(d.kr, "commit", "-qam", "the section grew")
    assert d.publish() == "kb-r3" and d.sync()[0] == 0
    for ctx in (a, b):
        now = mcp(ctx, tool_read, cited["citation"])
        assert now["release"]["tag"] == "kb-r3" and "新增一行" in now["markdown"]
        then = mcp(ctx, tool_read, cited["citation"], release="kb-r2")
        assert then["release"]["tag"] == "kb-r2" and then["served_release"]["tag"] == "kb-r3"
        assert "新增一行" not in then["markdown"] and then["citation"] == cited["citation"]
        assert mcp(ctx, tool_search, question)["release"]["tag"] == "kb-r3"
    assert (a.earlier.opens, b.earlier.opens) == (1, 1)


def test_a_release_rolled_back_to_is_served_not_kept_open_twice(dev):
    """kb-r1 kept open for an agent's calls, then `kb rollback kb-r1` serves it: the calls
    read it as the served release, and the copy kept open for them was kept (a second
    opening of the same release, ~80 MiB at 54k chunks) until two other releases were
    asked for. It is let go at the switch, on both servers."""
    ctx = Context(index=dev, query_log=False)
    source = ServedIndex(dev)
    with TestClient(create_app(dev, source=source), base_url="http://127.0.0.1") as client:
        assert mcp(ctx, tool_search, QUESTION, release="kb-r1")["release"]["tag"] == "kb-r1"
        got = client.get("/api/search", params={"q": QUESTION, "release": "kb-r1"})
        assert got.json()["release"]["tag"] == "kb-r1"
        assert len(ctx.earlier) == len(source.earlier) == 1
        res = CliRunner().invoke(main, ["rollback", "kb-r1", "--to", str(dev)])
        assert res.exit_code == 0, res.output
        assert mcp(ctx, tool_search, QUESTION)["release"]["tag"] == "kb-r1"
        assert client.get("/api/search", params={"q": QUESTION}).json()["release"]["tag"] \
            == "kb-r1"
        assert len(ctx.earlier) == len(source.earlier) == 0
