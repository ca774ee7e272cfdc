"""Bad bytes and odd inputs get one line, never a traceback (issue 12 §5).

Through the real `kb` CLI (a subprocess, so argv carries raw bytes and a hang fails the test)
and a real MCP server over stdio: questions with bytes that are not UTF-8 or with lone
surrogates (argv, `--batch` from a file or stdin, MCP `search`), a crash-log writer facing
surrogates, an unwritable log directory, a FIFO or a symlink where the log goes, MCP tools
given over-long paths, NUL bytes and wrong types, and a query that runs while `kb sync`
prunes the release it opened (`keep = 1`).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile import (
    GOOD_DOC,
    can_drop_read_override,
    drop_read_override,
    env,
    git,
    kb,
    make_repo,
    mcp_client,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import LATEST_PROTOCOL_VERSION

from kbtools.agents.docpath import MAX_CITED_CHARS
from kbtools.config import MAX_K
from kbtools.errors import UsageError
from kbtools.index.reader import open_index
from kbtools.query.search import search
from kbtools.ship import device
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A committed knowledge repo with a real build (the shipped embedding model)."""
    root = make_repo(tmp_path_factory.mktemp("built") / "repo", model="use")
    res = kb(root, "build", home=root.parent / "home", timeout=600)
    assert res.returncode == 0, res.stderr.decode()
    return root


def one_line_error(res, code: int) -> str:
    err = res.stderr.decode("utf-8")  # valid UTF-8: nothing undecodable is echoed raw
    assert res.returncode == code, err
    assert "Traceback" not in err and "unexpected error" not in err, err
    lines = [ln for ln in err.splitlines() if ln.startswith("kb: ")]
    assert len(lines) == 1, err
    return lines[0]


# ---------------------------------------------------------------- questions with bad bytes

@pytest.mark.parametrize("raw", [b"pump seal \xff\xfe", b"\xed\xa0\x80 pump seal",
                                 b"pump \xc3 seal", b"\xff" * 5000 + b" pump seal"])
def test_query_argv_that_is_not_utf8(built, raw):
    res = kb(built, "query", raw, "--json", home=built.parent / "home")
    assert res.returncode == 0, res.stderr.decode()
    out = json.loads(res.stdout.decode("utf-8"))
    assert "pump seal" in out["query"] and "\ufffd" not in out["query"]
    assert out["results"] and out["results"][0]["doc"] == "knowledge/good.md"
    text = kb(built, "query", raw, home=built.parent / "home")
    assert text.returncode == 0 and b"Traceback" not in text.stderr
    text.stdout.decode("utf-8")


def test_batch_file_and_stdin_with_bad_bytes(built, tmp_path):
    home = built.parent / "home"
    good = json.dumps({"id": "q1", "query": "pump seal"}).encode()
    escaped = b'{"id": "q\\ud800", "query": "pump \\udcff seal \\ud800"}'
    batch = tmp_path / "q.jsonl"
    batch.write_bytes(good + b"\n" + escaped + b"\n")
    res = kb(built, "query", "--batch", str(batch), "--json", home=home)
    assert res.returncode == 0, res.stderr.decode()
    rows = [json.loads(line) for line in res.stdout.decode("utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q\ufffd"]
    assert rows[1]["query"] == "pump seal" and rows[1]["results"]

    batch.write_bytes(good + b"\n" + b'{"query": "pump \xff seal"}\n')
    line = one_line_error(kb(built, "query", "--batch", str(batch), home=home), 2)
    assert f"{batch}:2: not UTF-8" in line
    line = one_line_error(kb(built, "query", "--batch", "-", home=home,
                             stdin=b'{"query": "\xfe\xff"}\n'), 2)
    assert "<stdin>:1: not UTF-8" in line
    res = kb(built, "query", "--batch", "-", "--json", home=home, stdin=escaped + b"\n")
    assert res.returncode == 0 and json.loads(res.stdout)["query"] == "pump seal"


# Any code point, lone surrogates (which st.text leaves out) included.
ANY_CHAR = st.one_of(st.characters(), st.characters(categories=["Cs"]),
                     st.sampled_from("\x00\x1b\u202e\ufffd"))


def any_text(max_size: int) -> st.SearchStrategy[str]:
    return st.lists(ANY_CHAR, max_size=max_size).map("".join)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(question=any_text(60), where=st.lists(any_text(20), max_size=2))
def test_any_question_is_cleaned_not_a_crash(built, question, where):
    """Any str a caller can hand the library (lone surrogates, controls, NULs): a result
    that encodes as UTF-8, or a one-line UsageError for a bad filter."""
    idx = open_index(built / "dist")
    try:
        res = search(idx, question + " pump", k=2, where=["title=" + w for w in where])
    except UsageError as exc:
        assert "\n" not in exc.format()
        exc.format().encode("utf-8", "backslashreplace")
    else:
        json.dumps(res.to_dict(), ensure_ascii=False).encode("utf-8")
        assert res.query.encode("utf-8")
    finally:
        idx.close()


# ---------------------------------------------------------------- the crash-log writer

CRASH = """
import sys
from kbtools import cli
from kbtools.commands import status

def boom(**kwargs):
    raise RuntimeError("broken \\udcff thing\\nsecond line")

status.status.callback = boom
sys.argv = ["kb", "status", "--to", sys.argv[1]]
cli.main()
"""


@pytest.mark.parametrize("place", ["ok", "home-is-a-file", "home-read-only", "log-is-a-fifo",
                                   "log-is-a-symlink", "log-is-a-directory"])
def test_crash_log_writer_never_crashes(tmp_path, place):
    home = tmp_path / "home"
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    preexec = None
    if place == "home-is-a-file":
        home.write_text("x")
    else:
        home.mkdir()
        log = home / "kb-crash.log"
        if place == "log-is-a-fifo":
            os.mkfifo(log)
        elif place == "log-is-a-symlink":
            log.symlink_to(outside)
        elif place == "log-is-a-directory":
            log.mkdir()
        elif place == "home-read-only":
            if not can_drop_read_override():
                pytest.skip("cannot drop root's permission override")
            home.chmod(0o500)
            preexec = drop_read_override
    arg = os.fsencode(str(tmp_path)) + b"/dev-\xff"  # an argument that is not UTF-8
    res = subprocess.run([sys.executable, "-c", CRASH, arg], env=env(home), capture_output=True,
                         timeout=60, preexec_fn=preexec)
    line = res.stderr.decode("utf-8")
    assert res.returncode == 3, line
    assert line.count("\n") == 1 and "Traceback" not in line, line
    assert line.startswith("kb: unexpected error: RuntimeError: broken \\udcff thing second line")
    assert outside.read_text() == "untouched\n"
    if place == "ok":
        text = (home / "kb-crash.log").read_bytes().decode("utf-8")
        assert "dev-\\udcff" in text and "RuntimeError: broken" in text
        assert f"(traceback in {home / 'kb-crash.log'})" in line
    else:
        assert "(traceback in (log unwritable))" in line


# ---------------------------------------------------------------- MCP: one line per failure

def mcp_session(cwd: Path, *args: str, scenario):
    return mcp_client([sys.executable, "-m", "kbtools", "mcp", *args], cwd,
                      env(cwd / ".kbhome"), scenario)


FAILING_CALLS = {
    "long-path": ("read", {"doc": "knowledge/" + "a" * 5000 + ".md"}),
    "deep-path": ("read", {"doc": "knowledge/" + "a/" * 3000 + "x.md"}),
    "long-name": ("read", {"doc": "knowledge/" + "a" * 300 + ".md"}),
    "nul-path": ("read", {"doc": "knowledge/a\x00.md"}),
    "table-long-path": ("evaluate_table", {"doc": "k/" * 2000 + "x.md", "inputs": {}}),
    "bad-k": ("search", {"query": "pump", "k": "many"}),
    "zero-k": ("search", {"query": "pump", "k": 0}),
    "negative-k": ("search", {"query": "pump", "k": -5}),
    "huge-k": ("search", {"query": "pump", "k": 10**30}),
    "true-k": ("search", {"query": "pump", "k": True}),
    "true-input": ("evaluate_table", {"doc": "knowledge/good.md", "inputs": {"a": True}}),
    "query-not-text": ("search", {"query": ["pump"]}),
    "bad-where": ("search", {"query": "pump", "where": ["x" * 100_000]}),
    "inputs-not-object": ("evaluate_table", {"doc": "knowledge/good.md", "inputs": "a=1"}),
    "no-table": ("evaluate_table", {"doc": "knowledge/good.md", "inputs": {"a": "1"}}),
    "negative-days": ("recent", {"days": -1}),
    "nul-title": ("draft_report", {"category": "field-report", "title": "a\x00b", "body": "x",
                                   "location": "x"}),
    "newline-author": ("draft_report", {"category": "field-report", "title": "t", "body": "x",
                                        "location": "x", "author": "a\nverified: true"}),
    "unknown-tool": ("nope", {}),
}


def test_mcp_tools_fail_with_one_line_reason(built):
    async def scenario(c):
        got = {name: await c.call_tool(tool, args) for name, (tool, args) in FAILING_CALLS.items()}
        got["huge-days"] = await c.call_tool("recent", {"days": 10**30})
        return got

    got = mcp_session(built, "--allow-write", scenario=scenario)
    for name in FAILING_CALLS:
        res = got[name]
        assert res.is_error, name
        text = res.content[0].text
        assert "\n" not in text and len(text) <= 600, (name, text)
        assert text.rstrip() not in (f"Error executing tool {FAILING_CALLS[name][0]}",), name
        assert "internal error" not in text, (name, text)
        text.encode("utf-8")
    assert f"longer than {MAX_CITED_CHARS} characters" in got["long-path"].content[0].text
    assert "longer than 255 bytes" in got["long-name"].content[0].text
    assert "NUL" in got["nul-path"].content[0].text
    takes = f"k: must be a whole number from 1 to {MAX_K}, not"  # as the CLI and /api say it
    assert f'{takes} "many"' in got["bad-k"].content[0].text
    assert f"{takes} 0" in got["zero-k"].content[0].text
    assert f"{takes} {10**30}" in got["huge-k"].content[0].text
    assert f"{takes} true" in got["true-k"].content[0].text  # never read as 1
    assert "expected a string, a whole number or a number, not a boolean" in \
        got["true-input"].content[0].text
    assert "title contains the control character '\\x00'" in got["nul-title"].content[0].text
    assert not got["huge-days"].is_error
    assert git(built, "branch", "--list", "draft/*") == ""  # no draft was written


def raw_mcp(cwd: Path, calls: list[tuple[str, dict]], *args: str) -> list[dict]:
    """Drive `kb mcp` with hand-written JSON-RPC lines: lone surrogates travel as JSON
    escapes (``\\udcff``), which the SDK's own client refuses to send."""
    proc = subprocess.Popen([sys.executable, "-m", "kbtools", "mcp", *args], cwd=cwd,
                            env=env(cwd / ".kbhome"), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None

    def send(msg: dict) -> None:
        proc.stdin.write(json.dumps(msg).encode() + b"\n")  # ensure_ascii: \\uXXXX escapes
        proc.stdin.flush()

    def answer(i: int) -> dict:
        deadline = time.monotonic() + 60
        while True:  # a request the server never answers fails the test, not the run
            ready, _, _ = select.select([proc.stdout], [], [], max(0, deadline - time.monotonic()))
            assert ready, f"no answer to request {i} within 60 s"
            line = proc.stdout.readline()
            assert line, "server closed its output"
            msg = json.loads(line.decode("utf-8"))  # the server writes valid UTF-8
            if msg.get("id") == i:
                return msg

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}})
        answer(0)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        out = []
        for i, (tool, arguments) in enumerate(calls, 1):
            send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                  "params": {"name": tool, "arguments": arguments}})
            out.append(answer(i)["result"])
        return out
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_mcp_lone_surrogates_are_cleaned_or_refused_in_one_line(built):
    """Lone surrogates in a request (valid JSON escapes, not Unicode) used to make the SDK
    drop the request unanswered: now every call gets its answer."""
    search_, read_, table_ = raw_mcp(built, [
        ("search", {"query": "pump \udcff seal \ud800", "where": ["title!=\ud800"]}),
        ("read", {"doc": "knowledge/\udcff.md"}),
        ("evaluate_table", {"doc": "knowledge/good.md", "inputs": {"\ud800": "1"}}),
    ])
    assert not search_["isError"] and search_["structuredContent"]["query"] == "pump seal"
    assert search_["structuredContent"]["results"]
    for res, expected in ((read_, "no such document in the index: knowledge/\ufffd.md"),
                          (table_, "no decision table")):
        text = res["content"][0]["text"]
        assert res["isError"] and expected in text and "\n" not in text, text


def test_draft_text_that_is_not_unicode_is_refused(built):
    from kbtools.agents.draft import create_draft

    for field, value in (("body", "text \udcff"), ("title", "t\ud800"), ("author", "a\x00")):
        args = {"title": "t", "body": "b", "author": None, field: value}
        with pytest.raises(UsageError) as err:
            create_draft(built, "field-report", args["title"], args["body"],
                         author=args["author"], location="x")
        assert "\n" not in err.value.format() and f"draft {field}" in err.value.format()


# ---------------------------------------------------------------- prune while a query runs

DOC_V2 = GOOD_DOC.replace("2000 operating hours", "1500 operating hours")


def test_query_survives_prune_of_its_release(built, tmp_path):
    """A KbIndex opened on release r1 still answers after `kb sync` (keep = 1) has served r2
    and deleted r1's directory."""
    built = Path(shutil.copytree(built, tmp_path / "repo", symlinks=True))
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    dev = tmp_path / "device"
    first = make_release(built, built / "dist", remote=str(art))
    assert sync(str(art), dev, keep=1).tag == first.tag
    idx = open_index(dev)  # opened on r1, as a query in flight holds it
    r1 = Path(idx.root)

    (built / "knowledge" / "good.md").write_text(DOC_V2, encoding="utf-8")
    git(built, "commit", "-qam", "v2")
    res = kb(built, "build", home=tmp_path / "home", timeout=600)
    assert res.returncode == 0, res.stderr.decode()
    second = make_release(built, built / "dist", remote=str(art))
    assert sync(str(art), dev, keep=1).tag == second.tag
    assert not r1.exists() and device.served_release(dev).name == second.tag  # r1 pruned

    out = search(idx, "how often to replace the pump seal", k=2)
    assert out.results and "2000 operating hours" in out.results[0].text
    assert out.release.tag == first.tag
    idx.close()
    fresh = search(open_index(dev), "how often to replace the pump seal", k=2)
    assert "1500 operating hours" in fresh.results[0].text


def test_mcp_line_cleaning_keeps_pairs_and_escaped_backslashes_at_any_depth():
    from kbtools.agents.stdio import clean_message

    assert clean_message(b'{"q": "a\\ud800b \\udcff"}\n') == b'{"q": "a\\ufffdb \\ufffd"}\n'
    pair = b'{"q": "\\ud83d\\ude00 \\ud83d\\ud83d\\ude00 \\ude00\\ud83d"}\n'
    assert json.loads(clean_message(pair)) == {"q": "\U0001f600 \ufffd\U0001f600 \ufffd\ufffd"}
    # an escaped backslash followed by "ud800" is text, not an escape
    assert clean_message(b'{"q": "\\\\ud800 \\\\\\ud800"}') == b'{"q": "\\\\ud800 \\\\\\ufffd"}'
    # nested deeper than Python's parser goes: it once killed the server's stdin thread
    deep = b'{"a": "\\ud800", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}\n"
    assert clean_message(deep) == deep.replace(b"\\ud800", b"\\ufffd")
