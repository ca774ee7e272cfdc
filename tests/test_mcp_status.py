"""The MCP `status` tool: an agent asks the device's state — which release serves, its
commit, when it last synced and how that went — and gets what `kb status --json` says, the
same facts in the same words (`kbtools.ship.health.report`, one source). A real signed
device (`device_fixtures.make_device`) and a real `kb mcp` over stdio."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from device_fixtures import kb, make_device
from mcpfixtures import built, data, error_text, plain, session

from kbtools.agents.local_paths import unlocated_values

__all__ = ["built", "plain"]  # the fixtures, imported for pytest to find


def test_status_says_what_kb_status_json_says(tmp_path: Path) -> None:
    d = make_device(tmp_path)
    code, _, _ = kb("sync", tmp_path / "gone.git", "--to", d.dev)  # a sync that fails
    assert code != 0

    async def scenario(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert tools["status"].annotations.read_only_hint
        return (data(await c.call_tool("status", {})),
                data(await c.call_tool("status", {"quick": True})),
                await c.call_tool("status", {"quick": "perhaps"}))

    full, quick, wrong = session(tmp_path, "--index", str(d.dev), scenario=scenario)
    code, out, _ = kb("status", "--to", d.dev, "--json")
    assert code == 4  # degraded: the last sync failed
    said = json.loads(out)
    # the same, but for the machine's paths, said by their places' names (session 49)
    tmp = [(str(Path(tempfile.gettempdir()).resolve()), "$TMPDIR"),
           (tempfile.gettempdir(), "$TMPDIR")]
    assert full == unlocated_values(said, tmp) and full["device"].startswith("$TMPDIR/")
    assert full["served"]["tag"] == "kb-r1" and full["served"]["verified_now"] is True
    assert len(full["served"]["source_commit"]) == 40
    last = full["last_sync"]
    assert last["ok"] is False and "gone.git" in last["error"] and last["at"]
    assert full["health"]["state"] == "degraded"
    assert full["health"]["reasons"][0].startswith(f"the last sync ({last['at']}) failed: ")
    _, out, _ = kb("status", "--to", d.dev, "--json", "--quick")
    assert quick == unlocated_values(json.loads(out), tmp) and quick["served"]["verified_now"] is None
    assert "\n" not in error_text(wrong) and "quick" in error_text(wrong)


def test_status_of_a_fresh_device_says_it_serves_nothing(tmp_path: Path) -> None:
    device = tmp_path / "device"
    (device / "releases").mkdir(parents=True)

    async def scenario(c):
        return data(await c.call_tool("status", {}))

    got = session(tmp_path, "--index", str(device), scenario=scenario)
    assert got["served"] is None and got["health"]["state"] == "refused"
    assert got["health"]["reasons"][0].startswith("serves nothing yet")


def test_status_of_a_build_says_there_is_no_device_in_one_line(built: Path) -> None:
    async def scenario(c):
        return (data(await c.call_tool("search", {"query": "霜霉病 风险"})),
                await c.call_tool("status", {}))

    found, refused = session(built, scenario=scenario)
    assert not found["no_answer"]
    reason = error_text(refused)
    assert "\n" not in reason and "not from a device synced with `kb sync`" in reason, reason


def test_status_of_a_repository_read_from_its_files_says_so(plain: Path) -> None:
    """No index anywhere: the tools read the repository's files, so there is no release to
    report, and the device `kb sync` would fill is not what this server reads."""
    async def scenario(c):
        return await c.call_tool("status", {})

    reason = error_text(session(plain, scenario=scenario))
    assert "\n" not in reason and "knowledge repository's own files" in reason, reason
