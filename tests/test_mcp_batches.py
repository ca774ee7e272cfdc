"""`kb mcp` given JSON-RPC batches over stdio, as a raw client sends them: the protocol
revision 2025-03-26 (which the server still negotiates) has clients send several messages as
one JSON array, and the server answers the requests among them as one array."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from mcpfixtures import committed_repo

from tests.test_mcp_stdio import HELLO, env

RISK = "knowledge/crops/risk.md"


@pytest.fixture
def plain(tmp_path):
    return committed_repo(tmp_path / "plain")


def run(cwd, lines: list, timeout: float = 120) -> list:
    """Send `lines` (each a message or a batch) to a `kb mcp` in `cwd`, close stdin, return
    every line it answered, parsed."""
    data = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n"
                    for m in [HELLO, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                              *lines])
    proc = subprocess.run([sys.executable, "-m", "kbtools", "mcp"], cwd=cwd,
                          env=env(cwd / ".kbhome"), input=data, capture_output=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    # the wire answers what the SDK cannot read at once, maybe before `initialize` is answered
    return [a for a in answers if not (isinstance(a, dict) and a.get("id") == 0)]


def call(i, name: str, args: dict) -> dict:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": name, "arguments": args}}


def test_a_batch_of_requests_is_answered_as_one_array(plain):
    """A batch was dropped without a word (the SDK reads one message a line): a client that
    sent one waited for ever. Each request of it is answered, in one array; a notification
    in it gets no answer; an element that is no request is refused in the array."""
    batch = [call(1, "read", {"doc": RISK, "heading_path": "风险等级表"}),
             call("two", "evaluate_table", {"doc": RISK, "inputs": {"温度": 18, "相对湿度": 90}}),
             {"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": "t", "progress": 1}},
             {"jsonrpc": "2.0", "id": 3, "method": "ping"},
             {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": "read"},
             call(5, "read", {"doc": "../secret.md"})]
    answers = run(plain, [batch, {"jsonrpc": "2.0", "id": "after", "method": "ping"}])
    array = next(a for a in answers if isinstance(a, list))
    assert sorted(map(str, (a["id"] for a in array))) == ["1", "3", "4", "5", "two"]
    by_id = {a["id"]: a for a in array}
    assert "立即喷药" in by_id[1]["result"]["structuredContent"]["markdown"]
    assert by_id["two"]["result"]["structuredContent"]["outputs"][0]["风险等级"] == "高"
    assert by_id[3]["result"] == {}
    assert by_id[4]["error"]["code"] == -32600
    assert by_id[5]["result"]["isError"] and "'..' is not allowed" in \
        by_id[5]["result"]["content"][0]["text"]
    assert {"jsonrpc": "2.0", "id": "after", "result": {}} in answers
    assert not any(isinstance(a, dict) and a.get("id") in (1, "two", 3, 4, 5) for a in answers)


def test_batches_that_hold_no_request(plain):
    """An empty batch is one Invalid Request (id null, as JSON-RPC says); a batch of
    notifications alone is answered with nothing; one of values that are no messages is
    an array of Invalid Request errors, one each."""
    notes = [{"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": "t", "progress": 1}}]
    answers = run(plain, [[], notes, [1, "x"], {"jsonrpc": "2.0", "id": 9, "method": "ping"}])
    assert len(answers) == 3, answers
    single = [a for a in answers if isinstance(a, dict) and a["id"] is None]
    assert [(a["error"]["code"], "batch" in a["error"]["message"]) for a in single] == [
        (-32600, True)]
    arrays = [a for a in answers if isinstance(a, list)]
    assert [[(e["id"], e["error"]["code"]) for e in a] for a in arrays] == [
        [(None, -32600), (None, -32600)]]
    assert {"jsonrpc": "2.0", "id": 9, "result": {}} in answers


def test_a_request_before_initialize_says_so(tmp_path):
    """A client that calls a tool before `initialize` got "Invalid request parameters",
    as if its arguments were wrong; the answer now says the session is not initialized."""
    repo = committed_repo(tmp_path / "repo")
    early = [call(1, "recent", {}), {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    data = b"".join(json.dumps(m).encode() + b"\n" for m in [*early, HELLO])
    proc = subprocess.run([sys.executable, "-m", "kbtools", "mcp"], cwd=repo,
                          env=env(repo / ".kbhome"), input=data, capture_output=True,
                          timeout=120)
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.decode().splitlines())}
    for i in (1, 2):
        error = answers[i]["error"]
        assert error["code"] == -32602 and "initialize" in error["message"], error
        assert "\n" not in error["message"]
    assert "result" in answers[0]


def test_a_batch_that_cancels_one_of_its_requests_answers_the_others(plain):
    """A batch holding a request and its cancellation (a client giving up on a slow search
    while it sends the next ones) was never answered: the array waited for the cancelled
    request, which the protocol does not answer, and the ping's answer never reached the
    client. The others are answered in the array; a cancellation before its request in the
    batch cancels nothing, and one naming a request of another message leaves this batch
    alone."""
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": 1, "reason": "the user moved on"}}
    batch = [call(1, "read", {"doc": RISK, "heading_path": "风险等级表"}),
             {"jsonrpc": "2.0", "id": 2, "method": "ping"}, cancel]
    early = [{**cancel, "params": {"requestId": 3}},
             call(3, "read", {"doc": RISK, "heading_path": "风险等级表"})]
    answers = run(plain, [batch, early, {"jsonrpc": "2.0", "id": "after", "method": "ping"}])
    arrays = [a for a in answers if isinstance(a, list)]
    assert [[e["id"] for e in a] for a in arrays] == [[2], [3]], answers
    assert "立即喷药" in arrays[1][0]["result"]["structuredContent"]["markdown"]
    assert {"jsonrpc": "2.0", "id": "after", "result": {}} in answers
