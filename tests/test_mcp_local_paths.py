"""What `kb mcp` tells an agent names no absolute path of its machine: KB_HOME, the
temporary folder, the home folder and the knowledge repository are said by their names
(`kbtools.agents.local_paths`), in a failed call's line and in `status`."""

from __future__ import annotations

import errno
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcpfixtures import committed_repo

from kbtools.agents.local_paths import places, unlocated
from kbtools.agents.mcp_server import build_server
from kbtools.config import kb_home


def calls(server: Any, *asks: tuple[str, dict[str, Any]]) -> list[str]:
    """Each call's error line, or its result as text."""
    from mcp.server.mcpserver.exceptions import ToolError

    async def run() -> list[str]:
        said = []
        for name, args in asks:
            try:
                said.append(str(await server.call_tool(name, args)))
            except ToolError as exc:
                said.append(str(exc))
        return said

    return anyio.run(run)


def absolute_paths_in(text: str, *paths: Path) -> list[str]:
    return [str(p) for p in paths if str(p) in text or str(p.resolve()) in text]


def test_a_path_is_said_by_the_nearest_place_holding_it(tmp_path):
    repo, home = tmp_path / "kb", kb_home()
    known = places(repo, (Path("/srv/kb/device"), "$KB_INDEX"))
    said = unlocated(f"{repo}/dist: no build; {repo}: here; {home}/device: none; "
                     f"'/srv/kb/device/releases' and /srv/kb/device2, /var{repo}", known)
    assert said == ("dist: no build; .: here; $KB_HOME/device: none; "
                    f"'$KB_INDEX/releases' and /srv/kb/device2, /var{repo}")
    tmp = str(Path(tempfile.gettempdir()))
    assert unlocated(f"open {tmp}/x.md", known) == "open $TMPDIR/x.md"


def test_no_failed_call_names_a_local_absolute_path(tmp_path, monkeypatch):
    """`/…/.kbhome/device: no index here …` and an unexpected error's `Permission denied:
    '/…'` reached the agent with the machine's paths: each is said by its place's name."""
    repo = committed_repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    home = kb_home()
    nowhere = tmp_path / "elsewhere" / "device"
    plain, missing = build_server(root=repo), build_server(index=nowhere, root=repo)

    def denied(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise PermissionError(errno.EACCES, "Permission denied", str(home / "logs" / "x"))

    monkeypatch.setattr("kbtools.agents.mcp_server.tool_recent", denied)
    said = calls(plain, ("search", {"query": "霜霉病"}), ("recent", {}))
    said += calls(missing, ("read", {"doc": "knowledge/crops/risk.md"}),
                  ("search", {"query": "x"}))
    assert "$KB_HOME/device: no index here" in said[0], said[0]
    assert "internal error (PermissionError" in said[1] and "$KB_HOME/logs/x" in said[1]
    assert "$TMPDIR/" in said[2] and "/elsewhere/device: no index here" in said[2], said[2]
    for text in said:
        assert not absolute_paths_in(text, home, tmp_path, repo, nowhere), text


@pytest.mark.parametrize("outside", [False, True])
def test_status_names_the_device_without_its_absolute_path(tmp_path, outside, monkeypatch):
    device = tmp_path / "device"
    (device / "releases").mkdir(parents=True)
    if outside:  # a device neither under KB_HOME, the temporary folder nor home: by name
        monkeypatch.setattr("kbtools.agents.local_paths.tempfile.gettempdir", lambda: "/nowhere")
    (got,) = calls(build_server(index=device, root=tmp_path), ("status", {}))
    assert "serves nothing yet" in got and not absolute_paths_in(got, device, tmp_path), got
    assert ("$KB_INDEX" if outside else "$TMPDIR/") in got
