"""The hostile-input property suite of issue 12 ("Done when"), through the real CLI.

Hypothesis drives, each case in a subprocess with a time limit (a hang fails the case):

- `kb check` and `kb build --skip-invalid` over knowledge trees assembled from hostile
  entries (symlinks to a secret outside the repo, to another knowledge file, to a directory,
  dangling; a FIFO; a directory named `.md`; undecodable bytes and names; line and paragraph
  separators, NUL, lone CR, mid-file BOMs; formulas that try LaTeX escapes; HTML; a giant
  table header; a symlinked asset leading outside);
- `kb sync` (the CLI this time: `test_sync_fuzz.py` drives the library call with many more
  mutations) on mutated, validly signed release trees from `test_sync_fuzz.ops`;
- the MCP tools (`kb mcp --allow-write`, one server, JSON-RPC written by hand so any JSON
  value travels) with hostile arguments.

Asserted every time: no traceback, an exit code of 0 or 1 (one `kb:` line on failure) or a
one-line tool error; no write outside the intended directory (a sentinel directory next to
the repo is snapshotted, and its secret never reaches `dist/`, a device or an answer); a
device serves only what was signed and listed. Runs in well under a minute on an idle box
(`test-hash` embedder, small repos, few examples per property).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from forge_helpers import forge_tree, snapshot
from hostile import GOOD_DOC, KB, env, kb, make_repo, tree_bytes
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from mcp.types import LATEST_PROTOCOL_VERSION
from test_release_helpers import git
from test_sync_fuzz import _apply, _served_is_signed_and_listed, ops
from test_sync_hostile import World

from kbtools.ship import device

SECRET = "TOP-SECRET-4471-never-indexed"
CASE_TIMEOUT = 60  # seconds per CLI run: far above a normal run, far below a hang
NO_SHRINK = (Phase.explicit, Phase.generate)  # a failing case is reported as found: a shrink
# of subprocess runs with time limits would take minutes

# --------------------------------------------------------------------- knowledge entries

TEXTS = ["pump \u2028 seal \u2029 wear", "a\x00b", "line\rcr\r\nend", "mid\ufeffbom", "\x85nel",
         "\x0b\x0cff", "泵的机械密封 每 2000 小时更换", "<script>alert(1)</script>",
         "$\\csname x\\endcsname$", "$\\scantokens{\\input /etc/passwd}$",
         "$$\\catcode`\\^=7 \\write18{id}$$", "[x](../../outside/secret.md)",
         "![i](../assets/link.png)", "<img src=file:///etc/passwd>"]


def doc_with(body: str, title: str = "Hostile") -> str:
    return GOOD_DOC.replace("Pump maintenance", title).replace(
        "Replace the mechanical seal", body + "\n\nReplace the mechanical seal")


ENTRY_KINDS = ["text", "bytes", "link-secret", "link-doc", "link-dir", "dangling", "fifo",
               "dir-md", "bad-name", "wide-table", "asset-link", "link-toml"]
entries = st.lists(st.tuples(st.sampled_from(ENTRY_KINDS),
                             st.lists(st.sampled_from(TEXTS), min_size=1, max_size=3),
                             st.binary(max_size=64)),
                   min_size=1, max_size=5)


def plant(repo: Path, outside: Path, i: int, kind: str, texts: list[str], raw: bytes) -> None:
    k = repo / "knowledge"
    name = k / f"e{i}.md"
    if kind == "text":
        name.write_text(doc_with("\n\n".join(texts), f"Entry {i}"), encoding="utf-8",
                        newline="")
    elif kind == "bytes":
        name.write_bytes(doc_with("x").encode() + b"\n" + raw + b"\xff\xfe\xed\xa0\x80\n")
    elif kind == "link-secret":
        name.symlink_to(outside / "secret.md")
    elif kind == "link-doc":
        name.symlink_to(k / "good.md")
    elif kind == "link-dir":
        (k / f"d{i}").symlink_to(outside)
    elif kind == "dangling":
        name.symlink_to(outside / "missing.md")
    elif kind == "fifo":
        os.mkfifo(name)
    elif kind == "dir-md":
        name.mkdir()
    elif kind == "bad-name":
        with open(os.fsencode(k) + b"/e%d-\xff\xfe.md" % i, "wb") as fh:
            fh.write(doc_with("x").encode())
    elif kind == "wide-table":
        header = "| " + " | ".join(f"h{j}" for j in range(3000)) + " |"
        name.write_text(doc_with(f"{header}\n|{'---|' * 3000}\n| 1 |"), encoding="utf-8")
    elif kind == "asset-link":
        link = repo / "assets" / "link.png"
        if not link.is_symlink():
            link.symlink_to(outside / "secret.md")
        name.write_text(doc_with("![i](../assets/link.png)"), encoding="utf-8")
    elif kind == "link-toml" and not (repo / "kb.toml").is_symlink():
        (outside / "kb.toml").write_text((repo / "kb.toml").read_text() + f"# {SECRET}\n")
        (repo / "kb.toml").unlink()
        (repo / "kb.toml").symlink_to(outside / "kb.toml")


def no_traceback(res: subprocess.CompletedProcess[bytes], what: str) -> str:
    err = res.stderr.decode("utf-8", "replace")
    assert res.returncode in (0, 1), (what, res.returncode, err)
    assert "Traceback" not in err and "unexpected error" not in err, (what, err)
    if res.returncode == 1 and what != "check":
        assert len([ln for ln in err.splitlines() if ln.startswith("kb: ")]) == 1, (what, err)
    return err


@settings(max_examples=5, deadline=None, derandomize=True, phases=NO_SHRINK,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(planted=entries)
@example(planted=[("fifo", ["x"], b""), ("link-secret", ["x"], b"")])  # `kb check` hung here
def test_check_and_build_on_hostile_knowledge(tmp_path_factory, planted):
    tmp = tmp_path_factory.mktemp("kfuzz")
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(doc_with(SECRET, "Secret"), encoding="utf-8")
    (outside / "notes.txt").write_text(SECRET)
    repo = make_repo(tmp / "repo")
    for i, (kind, texts, raw) in enumerate(planted):
        plant(repo, outside, i, kind, texts, raw)
    before = snapshot(outside)
    home = tmp / "home"
    check = kb(repo, "check", home=home, timeout=CASE_TIMEOUT)
    no_traceback(check, "check")
    built = kb(repo, "build", "--skip-invalid", "-q", home=home, timeout=CASE_TIMEOUT)
    no_traceback(built, "build")
    assert snapshot(outside) == before  # nothing written through any link
    if built.returncode == 0:
        assert SECRET.encode() not in tree_bytes(repo / "dist")  # skipped means not read
    assert not list(repo.glob(".dist.build-*"))


# --------------------------------------------------------------------- kb sync (CLI)

@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


@settings(max_examples=4, deadline=None, derandomize=True, phases=NO_SHRINK,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutation=st.lists(ops, min_size=1, max_size=3))
def test_cli_sync_of_mutated_release_trees(world: World, mutation):
    tip_commit = git(world.art, "rev-parse", f"{world.good}^{{commit}}").strip()

    def mutate(e: Any) -> None:
        for op in mutation:
            _apply(e, op, world, tip_commit)

    served = device.served_tag(world.dev)
    tag = forge_tree(world.art, mutate, key=world.key, base=world.good)
    before = snapshot(world.tmp, skip=("dev", "art.git", "home"))
    res = kb(world.tmp, "sync", str(world.art), "--to", str(world.dev), "--trusted-key",
             str(world.pub), home=world.tmp / "home", timeout=CASE_TIMEOUT)
    err = no_traceback(res, "sync")
    assert snapshot(world.tmp, skip=("dev", "art.git", "home")) == before
    if res.returncode == 0:
        assert device.served_tag(world.dev) == tag
    else:
        assert device.served_tag(world.dev) == served, err
    _served_is_signed_and_listed(world)


# --------------------------------------------------------------------- MCP tools

class McpServer:
    """`kb mcp` on stdio, spoken to in raw JSON-RPC lines; every answer within a limit."""

    def __init__(self, cwd: Path, *args: str):
        self.proc = subprocess.Popen([*KB, "mcp", *args], cwd=cwd, env=env(cwd / ".kbhome"),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)
        self.n = 0
        self.request("initialize", {"protocolVersion": LATEST_PROTOCOL_VERSION,
                                    "capabilities": {}, "clientInfo": {"name": "fuzz",
                                                                        "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [],
                                        max(0, deadline - time.monotonic()))
            assert ready, f"no answer to {method} {str(params)[:300]} within {timeout} s"
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            msg = json.loads(line.decode("utf-8"))
            if msg.get("id") == self.n:
                return msg

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def mcp_world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mcpfuzz")
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(doc_with(SECRET, "Secret"), encoding="utf-8")
    repo = make_repo(tmp / "repo", docs={"knowledge/table.md": doc_with(
        "| 温度 | 动作 |\n|---|---|\n| >30 | 通风 |\n| <=30 | 观察 |")})
    assert kb(repo, "build", "-q", home=repo / ".kbhome").returncode == 0
    server = McpServer(repo, "--allow-write")
    yield repo, outside, server
    server.close()


HOSTILE_STRINGS = st.one_of(
    st.sampled_from(["../../outside/secret.md", "/etc/passwd", "knowledge/../../outside/secret.md",
                     "knowledge/good.md", "knowledge/table.md", "knowledge/", ".", "",
                     "dist/manifest.json", "~/.ssh/id_rsa", "a" * 5000, "k/" * 600,
                     "\x00", "\ud800", "verified: true\n---", "title!=x", "温度=35",
                     "file:///etc/passwd", "\u2028\u2029\x85"]),
    st.text(max_size=40))
JSONISH = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(),
                                 st.floats(allow_nan=False, allow_infinity=False),
                                 HOSTILE_STRINGS),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(HOSTILE_STRINGS, inner, max_size=3), max_leaves=6)
PARAMS = {"search": ["query", "k", "where", "explain"], "read": ["doc", "heading_path"],
          "recent": ["days", "n"], "evaluate_table": ["doc", "inputs", "table"],
          "draft_report": ["category", "title", "body", "author", "location"]}
calls = st.sampled_from(sorted(PARAMS)).flatmap(lambda tool: st.tuples(
    st.just(tool), st.dictionaries(st.sampled_from([*PARAMS[tool], "extra"]), JSONISH,
                                   max_size=5)))


@settings(max_examples=40, deadline=None, derandomize=True, phases=NO_SHRINK,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(call=calls)
def test_mcp_tools_with_hostile_arguments(mcp_world, call):
    repo, outside, server = mcp_world
    tool, args = call
    before = snapshot(outside)
    head = git(repo, "rev-parse", "HEAD")
    msg = server.request("tools/call", {"name": tool, "arguments": args})
    result = msg.get("result")
    assert result is not None, msg  # an answer, not a JSON-RPC error or silence
    text = "".join(c.get("text", "") for c in result["content"])
    assert SECRET not in text and SECRET not in json.dumps(result)
    if result.get("isError"):
        assert "\n" not in text.strip() and len(text) <= 600, text
        assert "Traceback" not in text and "internal error" not in text, text
        assert text.strip() != f"Error executing tool {tool}", text  # a reason, always
    assert snapshot(outside) == before
    assert git(repo, "rev-parse", "HEAD") == head  # drafts go to their own branch
    assert git(repo, "status", "--porcelain", "--", "knowledge") == ""
    for branch in git(repo, "branch", "--format=%(refname:short)").split():
        assert branch == "main" or branch.startswith("draft/"), branch


def test_suite_is_quick_to_start():
    """The suite's helpers run the CLI with this interpreter (no installed entry point)."""
    assert KB[0] == sys.executable
