"""`kb mcp` across releases and as an agent cites: a server following `kb sync`'s switch,
calls that overlap a switch, a release's first search settling what it loaded, and a
result's citation passed back as the document to read or evaluate."""

from __future__ import annotations

import gc
import hashlib
import json
import os
from pathlib import Path

from mcpfixtures import INJECTED, RISK, built, data, error_text, session

__all__ = ["built"]  # the module-scoped fixture, imported for pytest to find

def edit_release(release: Path, rel: str, text: str) -> None:
    """Another release: `rel` rewritten with `text` and listed so in its manifest (a
    device's file edited without its manifest is refused, `kbtools.ship.intact`)."""
    data = text.encode("utf-8")
    (release / rel).write_bytes(data)
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    manifest["artifacts"][rel].update(size=len(data), sha256=hashlib.sha256(data).hexdigest())
    (release / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def two_releases(built: Path, tmp_path: Path) -> Path:
    """A device serving r1 of the built index, with r2 (risk.md's measures edited) beside."""
    import shutil

    device = tmp_path / "device"
    for tag in ("r1", "r2"):
        shutil.copytree(built / "dist", device / "releases" / tag)
    edit_release(device / "releases" / "r2", "data/source/knowledge/crops/risk.md",
                 RISK.replace("摘除病叶", "摘除并带出病叶"))
    os.symlink("releases/r1", device / "current")
    return device


def test_server_follows_the_served_release(built, tmp_path):
    """After `kb sync` switches `current`, the next tool call reads the new release."""

    from kbtools.agents.mcp_server import Context, tool_read

    device = two_releases(built, tmp_path)
    ctx = Context(index=device, root=tmp_path)
    first = tool_read(ctx, "knowledge/crops/risk.md", "3. 防治措施")
    assert "摘除病叶" in first["markdown"]
    os.replace(device / "current", device / "old")
    os.symlink("releases/r2", device / "current")
    second = tool_read(ctx, "knowledge/crops/risk.md", "3. 防治措施")
    assert "摘除并带出病叶" in second["markdown"]
    assert Path(ctx.idx().root).name == "r2"


def test_a_sync_during_a_call_does_not_close_the_release_under_it(built, tmp_path,
                                                                  monkeypatch):
    """The SDK runs tool calls in worker threads at once. A call that noticed a `kb sync`
    closed the release another call was still reading (the server segfaulted, or the
    other call failed with "Cannot operate on a closed database"); now each call reads
    one release throughout, and a replaced one is closed when its last call ends."""
    import threading

    import anyio

    from kbtools.agents import cited_read, mcp_server

    device = two_releases(built, tmp_path)
    server = mcp_server.build_server(index=device, root=tmp_path, query_log=False)
    section = {"doc": "knowledge/crops/risk.md", "heading_path": "3. 防治措施"}

    def call(args: dict) -> dict:
        res = anyio.run(server.call_tool, "read", args)
        assert not res.is_error, res.content[0].text
        return res.structured_content

    real_read, other, switched = cited_read.read_section, [], []

    def read_during_a_sync(*args, **kwargs):
        if not switched:  # the first call: a sync switches, another call reads meanwhile
            switched.append(True)
            os.replace(device / "current", device / "old")
            os.symlink("releases/r2", device / "current")
            worker = threading.Thread(target=lambda: other.append(call(section)))
            worker.start()
            worker.join()
        return real_read(*args, **kwargs)

    monkeypatch.setattr(cited_read, "read_section", read_during_a_sync)
    first = call(section)
    assert "摘除病叶" in first["markdown"]  # the release it started on, still open
    assert "摘除并带出病叶" in other[0]["markdown"]  # the other call read the new one
    assert call(section)["markdown"] == other[0]["markdown"]


def test_a_releases_first_search_settles_what_it_loaded(built, monkeypatch):
    """After its first search the objects a release loaded (models, tokenizer
    dictionaries) are out of the collector's full passes; later searches do not collect
    or freeze again. (Counted by calls: the permanent generation's size also falls when a
    frozen object is freed, so comparing sizes was flaky.)"""
    from kbtools.agents.mcp_server import Context, tool_search

    real_freeze, real_collect = gc.freeze, gc.collect
    calls: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: (calls.append("freeze"), real_freeze())[1])
    monkeypatch.setattr(gc, "collect", lambda *a: (calls.append("collect"), real_collect(*a))[1])
    gc.unfreeze()
    try:
        ctx = Context(index=built / "dist", query_log=False)
        tool_search(ctx, "霜霉病 发生条件 湿度", 3)
        assert calls == ["collect", "freeze"]
        assert gc.get_freeze_count() > 0
        tool_search(ctx, "卷帘机", 3)
        assert calls == ["collect", "freeze"]
    finally:
        gc.unfreeze()


def test_a_results_citation_is_passed_back_as_given(built, tmp_path):
    """An agent told to cite each result's `citation` passes that text back as `doc`, as
    `kb table eval` takes it: `read` and `evaluate_table` refused it as "a document path
    names the file alone" and made the agent take it apart (session 31)."""
    texts = {"knowledge/crops/risk.md": RISK.splitlines(),
             "knowledge/notes/injected.md": INJECTED.splitlines()}
    risk = texts["knowledge/crops/risk.md"]

    async def scenario(c):
        got: dict = {"search": data(await c.call_tool("search", {"query": "霜霉病 风险等级 表",
                                                                 "k": 5}))}
        for r in got["search"]["results"]:
            got[r["citation"]] = data(await c.call_tool("read", {"doc": r["citation"]}))
        row = "knowledge/crops/risk.md:27"  # a table row cited alone, without § heading
        got["row"] = data(await c.call_tool("read", {"doc": row}))
        got["table"] = data(await c.call_tool("evaluate_table", {
            "doc": row + " § 霜霉病风险判定 > 2. 风险等级表", "inputs": {"温度": "18℃", "相对湿度": "90 %"}}))
        got["nothing"] = await c.call_tool("evaluate_table", {
            "doc": "knowledge/crops/risk.md:15-16", "inputs": {"温度": "18"}})
        got["both"] = await c.call_tool("read", {"doc": row, "heading_path": "1"})
        got["twice"] = await c.call_tool("evaluate_table", {
            "doc": row, "table": 1, "inputs": {"温度": "18", "相对湿度": "90"}})
        return got

    got = session(tmp_path, "--index", str(built / "dist"), scenario=scenario)
    results = got["search"]["results"]
    assert results
    for r in results:
        section = got[r["citation"]]
        assert section["doc"] == r["doc"]
        assert section["line_start"] <= r["line_start"] and r["line_end"] <= section["line_end"]
        for line in texts[r["doc"]][r["line_start"] - 1:r["line_end"]]:
            assert line in section["markdown"]
    assert got["row"]["line_start"] == got["row"]["line_end"] == 27
    assert got["row"]["markdown"] == risk[26]
    assert got["table"]["outputs"] == [{"风险等级": "高", "建议措施": "立即喷药"}]
    assert error_text(got["nothing"]).endswith(
        "no decision table at knowledge/crops/risk.md lines 15-16 (its decision tables: "
        "lines 23-28)")
    assert "is a citation" in error_text(got["both"])
    assert "names one too" in error_text(got["twice"])
