"""`kb mcp`'s stdio wire as raw clients drive it: Ctrl-C, a client that closes its input right
after its requests, a client that stops reading (the SDK client is in test_mcp.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcpfixtures import committed_repo

HELLO = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "0"}}}


def env(home: Path) -> dict[str, str]:
    """A `kb mcp` process's environment: its own KB_HOME, the code under test."""
    return {"KB_HOME": str(home), "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": os.environ.get("PYTHONPATH", "")}


def start(cwd: Path, home: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kbtools", "mcp"], cwd=cwd, env=env(home),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


@pytest.fixture
def plain(tmp_path) -> Path:
    """A repo without an index: read, evaluate_table and recent work from files and Git."""
    return committed_repo(tmp_path / "plain")


def test_ctrl_c_stops_the_server_as_interrupted(tmp_path):
    """Ctrl-C on `kb mcp` in a terminal: the event loop cancelled the SDK's tasks
    mid-message (exit 3, "unexpected error" and a crash log) or hung on the blocked stdin
    read. Now the input ends as if closed: exit 130, "kb: interrupted", nothing on stdout
    but the protocol."""
    proc = start(tmp_path, tmp_path / "home")
    try:
        proc.stdin.write(json.dumps(HELLO).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0  # serving
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)  # stdin stays open: the client has not gone
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        proc.stdin.close()
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip().splitlines()[-1] == "kb: interrupted"
    assert out == b""
    assert not (tmp_path / "home" / "kb-crash.log").exists()


def test_requests_sent_before_stdin_closes_are_all_answered(plain):
    """A client that writes its requests and closes stdin at once (`printf '…' | kb mcp`,
    a script): the SDK ended the session at the end of its input and dropped every call
    still running, so only `initialize` was answered. Now each request gets its answer
    before the server stops; one the client cancelled is not waited for, and a line the
    SDK cannot read (an id that is no id) is not either."""
    risk = "knowledge/crops/risk.md"
    calls = {i: ("read", {"doc": risk, "heading_path": "风险等级表"}) if i % 3 == 0 else
             ("evaluate_table", {"doc": risk, "inputs": {"温度": 18, "相对湿度": 90}})
             if i % 3 == 1 else ("recent", {"days": 3650}) for i in range(1, 13)}
    lines = [HELLO,
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             *({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": name, "arguments": args}} for i, (name, args) in calls.items()),
             {"jsonrpc": "2.0", "id": "p", "method": "ping"},
             {"jsonrpc": "2.0", "id": 1.0, "method": "ping"},  # a notification to the SDK
             {"jsonrpc": "2.0", "id": "gone", "method": "tools/call",
              "params": {"name": "recent", "arguments": {}}},
             {"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": "gone"}}]
    proc = subprocess.run([sys.executable, "-m", "kbtools", "mcp"], cwd=plain,
                          env=env(plain / ".kbhome"),
                          input=b"".join(json.dumps(m).encode() + b"\n" for m in lines),
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    answers = {m["id"]: m for m in map(json.loads, proc.stdout.decode().splitlines())}
    assert set(answers) - {"gone"} == {0, "p", *calls}
    for i, (name, _) in calls.items():
        result = answers[i]["result"]
        assert not result.get("isError"), (name, result)
    assert "立即喷药" in answers[3]["result"]["structuredContent"]["markdown"]
    assert answers[1]["result"]["structuredContent"]["outputs"][0]["风险等级"] == "高"


def test_a_client_that_closes_stdout_ends_the_server_cleanly(plain):
    """A client that stops listening (closes its end of the server's stdout) while calls
    run: the SDK's writer met a broken pipe and `kb mcp` ended with exit 3, "unexpected
    error" and a crash log. The stdio wire sees the client gone and ends the input."""
    home = plain / ".kbhome"
    read = {"name": "read", "arguments": {"doc": "knowledge/crops/risk.md"}}
    proc = start(plain, home)
    try:
        proc.stdin.write(json.dumps(HELLO).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        proc.stdout.close()  # the client stops listening; its requests follow, stdin stays open
        for i in range(1, 6):
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                         "params": read}).encode() + b"\n")
        proc.stdin.flush()
        proc.wait(timeout=120)  # the first answer finds no reader: the server stops
        err = proc.stderr.read().decode()
    finally:
        proc.kill()
        proc.stdin.close()
    assert proc.returncode == 0, err
    assert "unexpected error" not in err and not (home / "kb-crash.log").exists()


def test_a_request_the_sdk_cannot_read_gets_an_invalid_request_error(tmp_path):
    """A request with an id the SDK cannot read as a message ("params" a string, a list or a
    number, no "jsonrpc", a method that is no string) was dropped without an answer, and the
    client waited for ever. Each now gets JSON-RPC's "Invalid Request" error with its id;
    a response is still not answered, and the rest are (a line that is no JSON gets
    JSON-RPC's "Parse error", test_a_line_that_is_not_json_gets_a_parse_error)."""
    bad = {"s": {"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": "x"},
           7: {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": []},
           8: {"id": 8, "method": "tools/list"},
           9: {"jsonrpc": "2.0", "id": 9, "method": 123},
           10: {"jsonrpc": "2.0", "id": 10, "method": "ping", "params": 5}}
    lines = [json.dumps(HELLO).encode(), b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
             *(json.dumps(m).encode() for m in bad.values()), b"{not json",
             b'{"jsonrpc": "2.0", "id": 99, "result": {}}',  # a response: never answered
             json.dumps({"jsonrpc": "2.0", "id": "p", "method": "ping"}).encode()]
    proc = subprocess.run([sys.executable, "-m", "kbtools", "mcp"], cwd=tmp_path,
                          env=env(tmp_path / "home"), input=b"\n".join(lines) + b"\n",
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    answers = {m["id"]: m for m in map(json.loads, proc.stdout.decode().splitlines())}
    assert set(answers) == {0, "p", None, *bad}
    assert answers[None]["error"]["code"] == -32700  # `{not json`
    assert answers["p"]["result"] == {} and "result" in answers[0]
    for key in bad:
        assert answers[key]["error"]["code"] == -32600
        assert "Invalid Request" in answers[key]["error"]["message"]



def test_a_line_that_is_not_json_gets_a_parse_error(tmp_path):
    """A line that is no JSON (a request cut short, a stray log line, a batch missing its
    bracket) was dropped without an answer, so a client waiting for its request waited for
    ever. JSON-RPC 2.0 answers it with "Parse error" (-32700) and id null, and JSON that is
    no message (a number, a string, an object with no id and no method) with "Invalid
    Request" and id null, each in one line; a blank line, a notification that is not valid
    and a response are still not answered, and the session goes on. A UTF-8 byte order
    mark before the first line (a Windows tool's pipe) is no parse error: it is let go."""
    broken = [b'{"jsonrpc": "2.0", "id": 5, "method": "tools/list"', b"[1, 2",
              b'{"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"a": "\xff\xfe',
              "温度 18 ℃".encode(), b"\xff\xfe"]
    invalid = [b"42", b'"ping"', b"{}", b'{"foo": "boo"}', b'{"jsonrpc": "2.0", "method": 1}']
    silent = [b"", b"   ", b'{"jsonrpc": "2.0", "method": "notifications/x", "params": 5}',
              b'{"id": 99, "result": {}}']
    lines = [b"\xef\xbb\xbf" + json.dumps(HELLO).encode(), *broken, *invalid, *silent,
             json.dumps({"jsonrpc": "2.0", "id": "p", "method": "ping"}).encode()]
    proc = subprocess.run([sys.executable, "-m", "kbtools", "mcp"], cwd=tmp_path,
                          env=env(tmp_path / "home"), input=b"\n".join(lines) + b"\n",
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    nulls = [a["error"] for a in answers if a["id"] is None]  # in the order sent
    assert sorted(str(a["id"]) for a in answers if a["id"] is not None) == ["0", "p"]
    assert [e["code"] for e in nulls] == [-32700] * len(broken) + [-32600] * len(invalid)
    assert nulls[0]["message"].startswith("Parse error: the line is not JSON (EOF while ")
    assert all("\n" not in e["message"] for e in nulls)
    assert {"jsonrpc": "2.0", "id": "p", "result": {}} in answers

def test_a_tools_call_the_sdk_cannot_read_says_which_tool_and_what_is_wrong(tmp_path):
    """A ``tools/call`` without a tool name, or with arguments that are no object, got the
    SDK's bare "Invalid request parameters" (and empty data), the same for every mistake.
    Each now gets JSON-RPC's invalid-params error with one line naming the tool and what is
    wrong; arguments left out or null are still no arguments."""
    calls = {1: {"name": "recent", "arguments": [7]},
             2: {"arguments": {"days": 7}},
             3: {"name": "read", "arguments": "knowledge/crops/risk.md"},
             4: {"name": 5, "arguments": {}},
             5: {"name": "nope", "arguments": 3},
             6: {"name": "recent", "arguments": None},
             7: {"name": "recent"}}
    lines = [HELLO, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             *({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": p}
               for i, p in calls.items())]
    repo = committed_repo(tmp_path / "repo")
    proc = subprocess.run([sys.executable, "-m", "kbtools", "mcp"], cwd=repo,
                          env=env(tmp_path / "home"),
                          input=b"".join(json.dumps(m).encode() + b"\n" for m in lines),
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    answers = {m["id"]: m for m in map(json.loads, proc.stdout.decode().splitlines())}
    tools = "search, read, recent, evaluate_table, status"
    said = {1: "invalid tools/call of recent: 'arguments' is a list, not an object of "
               "argument: value (recent takes days, n)",
            2: f"invalid tools/call: no 'name' (the tool to call: {tools})",
            3: "invalid tools/call of read: 'arguments' is a string, not an object of argument: "
               "value (read takes doc, heading_path, line_start, line_end, commit, release)",
            4: f"invalid tools/call: 'name' is a number, not the name of a tool ({tools})",
            5: "invalid tools/call of nope: 'arguments' is a number, not an object of "
               f"argument: value (no tool 'nope'; the tools: {tools})"}
    for i, message in said.items():
        assert answers[i]["error"] == {"code": -32602, "message": message}, answers[i]
    for i in (6, 7):
        assert answers[i]["result"]["structuredContent"]["source"] == "git", answers[i]


MAX_MESSAGE_BYTES = 64 * 2**20  # `kbtools.agents.stdio`'s limit of one line


def peak_kib(pid: int) -> int:
    """A live process's peak resident memory (VmHWM), in KiB."""
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmHWM:"):
            return int(row.split()[1])
    raise AssertionError("no VmHWM")


def test_a_message_over_the_size_limit_is_refused_by_its_id_and_the_next_is_served(plain):
    """A `draft_report` carrying a 100 MiB photo is one line of 140 MB: the wire read it whole
    and the SDK parsed it before the tool refused the photo (0.8 GB of memory at its peak;
    a larger one could end the server). A line over `MAX_MESSAGE_BYTES` is now read on in
    pieces and let go, and its request answered by its id (placed after its params, as the
    TypeScript SDK writes it) with one error naming the limit, in bounded memory; a
    notification that long is not answered; the next request is served as usual."""
    data = "QUJD" * (MAX_MESSAGE_BYTES // 4 + 2**20)
    call = {"method": "tools/call", "params": {"name": "draft_report", "arguments": {
        "category": "field-report", "title": "水泵", "body": "叶轮裂纹",
        "photos": [{"name": "pump.jpg", "data": data}]}}, "jsonrpc": "2.0", "id": "big"}
    notice = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"x": data}}
    proc = start(plain, plain / ".kbhome")
    try:
        proc.stdin.write(json.dumps(HELLO).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        before = peak_kib(proc.pid)
        for message in (notice, call, {"jsonrpc": "2.0", "id": "p", "method": "ping"}):
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        refused, served = json.loads(proc.stdout.readline()), json.loads(proc.stdout.readline())
        grown = peak_kib(proc.pid) - before
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        proc.kill()
    limit = MAX_MESSAGE_BYTES // 2**20
    assert refused == {"jsonrpc": "2.0", "id": "big", "error": {"code": -32600, "message":
                       f"Invalid Request: the message is over {limit} MiB, the most one line "
                       "may hold (a draft's photos are at most 40 MiB together); send fewer "
                       "or smaller pictures"}}
    assert served == {"jsonrpc": "2.0", "id": "p", "result": {}}
    assert grown < 2 * limit * 1024, f"the server grew {grown} KiB reading the line"
    assert proc.returncode == 0


top_values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=40),
                       st.text(alphabet='\\"{}[]', max_size=8))
nested = st.recursive(top_values, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(alphabet='id"\\{[', max_size=4), nested, max_size=5),
       st.integers(1, 17), st.booleans())
def test_the_skeleton_of_a_message_keeps_its_top_level_wherever_it_is_cut(obj, step, ascii):
    """`Skeleton` reads an over-long line's top level in pieces cut anywhere (inside an
    escape, a string, a bracket): the top-level scalars come back as they were, and what
    is nested as an empty object or list."""
    from kbtools.agents.stdio import Skeleton

    text = json.dumps(obj, ensure_ascii=ascii).encode()
    skeleton = Skeleton()
    for at in range(0, len(text), step):
        skeleton.feed(text[at:at + step])
    expected = {k: {} if isinstance(v, dict) else [] if isinstance(v, list) else v
                for k, v in obj.items()}
    assert skeleton.message() == expected
