"""A search of the release a citation came from: MCP `search` and ``/api/search`` take
`commit`/`release` as `read`, `evaluate_table` and `kb query --commit` or `--release` do, and
answer alike (`kbtools.agents.asked.asked_search`).

A real device serving kb-r2 keeps kb-r1 beside it (tests/device_fixtures.py): kb-r2 removed
sprayer-calibration.md, so a question about calibrating sprayers finds it in kb-r1 only.
Once kb-r1 is pruned, a search of it fails in one line naming kb-r1 and the releases kept,
never answering from kb-r2 as if it were kb-r1.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from device_fixtures import REMOVED, make_device, second_release
from mcpfixtures import calls, session
from servefixtures import app_client, error_of

from kbtools.agents.local_paths import unlocated_values

QUESTION = "喷雾器 施药液量 校准"
# the temporary folder, as `kb mcp` says a path in it (`kbtools.agents.local_paths`)
TMP = [(str(Path(tempfile.gettempdir()).resolve()), "$TMPDIR"), (tempfile.gettempdir(), "$TMPDIR")]


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> Path:
    d = make_device(tmp_path_factory.mktemp("searches"))
    second_release(d)
    return d.dev


def release_commit(dev: Path, tag: str) -> str:
    manifest = json.loads((dev / "releases" / tag / "manifest.json").read_text("utf-8"))
    return str(manifest["source"]["commit"])


def cli(*args: str) -> tuple[int, str, str]:
    res = subprocess.run([sys.executable, "-m", "kbtools", *args], capture_output=True,
                         text=True, timeout=300)
    return res.returncode, res.stdout, res.stderr


def answer(got: dict) -> tuple[str, str, list[str]]:
    """What a search answered: the release its results cite (tag, commit) and their
    citations."""
    return (got["release"]["tag"], got["release"]["source_commit"],
            [r["citation"] for r in got["results"]])


def http_searches(dev: Path, asks: list[dict]) -> list[tuple[str, object]]:
    """Each ask by GET and by POST: one answer from the two."""
    out: list[tuple[str, object]] = []
    gen = app_client(dev)
    client = next(gen)
    try:
        for ask in asks:
            params = {("q" if k == "query" else k): v for k, v in ask.items()}
            got, posted = client.get("/api/search", params=params), \
                client.post("/api/search", json=ask)
            if got.status_code == 200:
                assert posted.status_code == 200, posted.text
                assert answer(got.json()) == answer(posted.json())
                out.append(("ok", answer(got.json())))
            else:
                message = error_of(got, got.status_code)
                assert error_of(posted, got.status_code) == message
                out.append(("error", message))
    finally:
        gen.close()
    return out


def both(dev: Path, tmp_path: Path, asks: list[dict]) -> list[tuple[str, object]]:
    mcp = session(tmp_path, "--index", str(dev), "--no-log",
                  scenario=lambda c: calls(c, "search", asks, answer))
    http = http_searches(dev, asks)
    for ask, a, b in zip(asks, mcp, http, strict=True):  # MCP: the machine's paths by name
        assert a == unlocated_values(b, TMP), (ask, a, b)
    return http  # the paths as the API and the CLI say them


def test_a_search_of_an_earlier_release_the_device_keeps_cites_it(device, tmp_path):
    r1, r2 = release_commit(device, "kb-r1"), release_commit(device, "kb-r2")
    asks = [{"query": QUESTION},
            {"query": QUESTION, "release": "kb-r1"},
            {"query": QUESTION, "commit": r1[:7]},
            {"query": QUESTION, "commit": r1.upper(), "release": "kb-r1"},
            {"query": QUESTION, "release": "kb-r2"},  # the one served now, named
            {"query": QUESTION, "release": "kb-r1", "where": f"doc={REMOVED}"}]
    got = both(device, tmp_path, asks)
    kind, now = got[0]
    assert kind == "ok" and now[:2] == ("kb-r2", r2)
    assert not any(REMOVED in cited for cited in now[2])  # kb-r2 removed it
    for kind, earlier in got[1:4]:
        assert kind == "ok" and earlier[:2] == ("kb-r1", r1), earlier
        assert earlier[2] and REMOVED in earlier[2][0], earlier  # it answers first there
    assert got[4] == got[0]
    for ask, (_, searched) in zip(asks[1:3], got[1:3], strict=True):  # `kb query` alike
        args = [a for k, v in ask.items() if k != "query" for a in (f"--{k}", v)]
        code, out, err = cli("query", QUESTION, "--index", str(device), "--no-log", "--json",
                             *args)
        assert code == 0 and answer(json.loads(out)) == searched, (ask, err)
    kind, filtered = got[5]
    assert kind == "ok" and filtered[2] and all(REMOVED in c for c in filtered[2])


def test_a_search_of_a_pruned_or_unknown_release_names_what_is_kept(device, tmp_path):
    dev = tmp_path / "device"
    shutil.copytree(device, dev, symlinks=True)
    r1 = release_commit(dev, "kb-r1")
    shutil.rmtree(dev / "releases" / "kb-r1")  # as `kb sync` prunes it
    asks = [{"query": QUESTION, "release": "kb-r1"},
            {"query": QUESTION, "commit": r1[:12]},
            {"query": QUESTION, "release": "kb-r9"},
            {"query": QUESTION, "commit": "not-a-commit"}]
    got = both(dev, tmp_path, asks)
    # kb-r1 was pruned; kb-r9 was never on it (a tag newer than any it keeps): not "no longer"
    for (kind, message), named in zip(got[:3], ("release kb-r1 is no longer",
                                               f"commit {r1[:12]} is no longer",
                                               "release kb-r9 is not"), strict=True):
        assert kind == "error" and isinstance(message, str), message
        assert "\n" not in message and message.startswith(f"{named} on this device"), message
        assert "it keeps release kb-r2" in message and "search without" in message
    kind, message = got[3]
    assert kind == "error" and "'commit' must be a commit's 7 to 64 hexadecimal" in message
    # pruned, not never there: the device's source still has it, and a git clone serves it
    art = json.loads((dev / "state.json").read_text("utf-8"))["source"]
    assert f"; a git clone of the source serves any of its releases: `git clone {art} DIR " \
        "&& git -C DIR checkout kb-r1`" in got[0][1]
    assert "git clone" not in got[1][1] + got[2][1]  # no tag named / newer than any here
    # `kb query --release/--commit` is refused in the same line, naming its own options
    for ask, (_, message) in zip(asks, got, strict=True):
        args = [a for k, v in ask.items() if k != "query" for a in (f"--{k}", v)]
        code, out, err = cli("query", QUESTION, "--index", str(dev), "--no-log", *args)
        assert code == (2 if ask.get("commit") == "not-a-commit" else 1), (ask, err)
        assert out == "" and err == "kb: error: " + str(message).replace(
            "'commit' and 'release'", "--commit and --release") + "\n", (ask, err)


def test_a_search_of_an_earlier_release_is_logged_as_that_release(device, tmp_path):
    dev = tmp_path / "device"
    shutil.copytree(device, dev, symlinks=True)
    gen = app_client(dev)
    client = next(gen)
    try:
        assert client.get("/api/search", params={"q": QUESTION, "release": "kb-r1"}
                          ).status_code == 200
    finally:
        gen.close()
    lines = (dev / "queries.jsonl").read_text("utf-8").splitlines()
    entry = json.loads(lines[-1])
    assert (entry["interface"], entry["release"], entry["question"]) == ("api", "kb-r1",
                                                                         QUESTION)


def test_each_tools_release_parameters_say_what_that_tool_does(device, tmp_path):
    """One factory words `commit` and `release` of search, read and evaluate_table: each
    tool's input schema says its own verb and what it does once the release is gone."""

    async def listed(c):
        return {t.name: t.input_schema["properties"] for t in (await c.list_tools()).tools}

    props = session(tmp_path, "--index", str(device), scenario=listed)
    said = {tool: (props[tool]["commit"]["description"], props[tool]["release"]["description"])
            for tool in ("search", "read", "evaluate_table")}
    for tool, verb in (("search", "search"), ("read", "read"), ("evaluate_table", "evaluate")):
        commit, release = said[tool]
        assert f"Leave out to {verb} the release served now." in commit, commit
        assert "source_commit" in commit and release.endswith("by its tag (a result's "
                                                              "`release.tag`), as `commit`.")
    assert "the search fails, naming the releases kept here" in said["search"][0]
    assert "`release_gone`" in said["read"][0] and "that release's text" in said["read"][0]
    assert "table" in said["evaluate_table"][0] and "table" in said["evaluate_table"][1]
    assert len({c for c, _ in said.values()}) == 3 and len({r for _, r in said.values()}) == 3
    assert props["search"]["release"]["examples"] == ["kb-r7"]


def test_a_tag_and_another_releases_commit_are_refused_as_two_releases(device, tmp_path):
    """`release` kb-r1 with kb-r2's commit was answered "release kb-r1 (commit …) is no
    longer on this device (it keeps …, kb-r1, kb-r2)", and `read` then gave kb-r2's text
    as a stand-in: the two name different releases, both kept. Refused on every tool."""
    from kbtools.agents.mcp_server import Context, tool_evaluate_table, tool_read, tool_search
    from kbtools.errors import UsageError

    r2 = release_commit(device, "kb-r2")
    ctx = Context(index=device, root=tmp_path, query_log=False)
    table = "knowledge/crops/wheat-scab.md"
    calls = [lambda: tool_search(ctx, QUESTION, release="kb-r1", commit=r2[:8]),
             lambda: tool_read(ctx, REMOVED, release="kb-r1", commit=r2[:8]),
             lambda: tool_evaluate_table(ctx, table, {"温度": 18}, release="kb-r1",
                                         commit=r2)]
    for call in calls:
        with pytest.raises(UsageError) as info:
            call()
        assert info.value.message == (f"release kb-r1 is commit "
                                      f"{release_commit(device, 'kb-r1')[:12]}, not "
                                      f"{r2[:8] if call is not calls[2] else r2}: give the "
                                      "release or the commit alone"), info.value.message
    assert tool_search(ctx, QUESTION, 1, release="kb-r2", commit=r2[:8])["release"]["tag"] \
        == "kb-r2"


def test_a_server_sees_a_release_pruned_and_one_synced_without_restarting(device, tmp_path):
    """The releases a device keeps are listed on every call that asks for one, each
    manifest read once per write of it (`asked._source_commit`): a release pruned while
    the server runs is refused on the next call, and one a sync adds is found."""
    dev = tmp_path / "device"
    shutil.copytree(device, dev, symlinks=True)
    r1 = release_commit(dev, "kb-r1")
    away = tmp_path / "kb-r1"
    asks = [{"query": QUESTION, "release": "kb-r1"}, {"query": QUESTION, "commit": r1[:9]}]

    async def scenario(c):
        got = [await calls(c, "search", asks, answer)]
        (dev / "releases" / "kb-r1").rename(away)  # pruned, as `kb sync` does
        got.append(await calls(c, "search", asks, answer))
        shutil.copytree(away, dev / "releases" / "kb-r1.staging", symlinks=True)
        (dev / "releases" / "kb-r1.staging").rename(dev / "releases" / "kb-r1")  # synced
        got.append(await calls(c, "search", asks, answer))
        return got

    before, pruned, synced = session(tmp_path, "--index", str(dev), "--no-log",
                                     scenario=scenario)
    for kind, got in before + synced:
        assert kind == "ok" and got[:2] == ("kb-r1", r1), got
        assert got[2] and REMOVED in got[2][0], got
    for (kind, message), named in zip(pruned, ("release kb-r1", f"commit {r1[:9]}"),
                                      strict=True):
        assert kind == "error" and str(message).startswith(
            f"{named} is no longer on this device (it keeps release kb-r2"), message
