"""A Milvus server that stops answering (a real `milvus-lite server`, stopped with SIGSTOP and
resumed with SIGCONT): every read — the alias, a search, a connection — ends within its
bound as one line naming the engine, for `kb query`, the library, `kb serve` and MCP, and
the same connection serves again once the server answers."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from kbtools.agents.calls import tool_error
from kbtools.agents.mcp_server import Context, tool_search
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine import milvus as engine_milvus
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError
from kbtools.query.search import search
from kbtools.serve.app import create_app, open_source
from tests.hostile import make_repo
from tests.milvus_server import MilvusLite

QUESTION = "how often to replace the pump seal"
BOUND = 1.0  # the read bound in these tests (the product's is READ_TIMEOUT)
SLACK = 4.0  # what a loaded 2-core machine may add to a bounded call


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[MilvusLite]:
    """A server of this module's own (stopping the shared one would stall other tests),
    with one release published."""
    base = tmp_path_factory.mktemp("stall")
    kr = make_repo(base / "kr")
    build(load_config(kr), BuildOptions(progress=False))
    srv = MilvusLite(base / "data")
    try:
        publish(connect_url(srv.url("stall"), create_db=True), check_release(kr / "dist"))
        yield srv
    finally:
        os.kill(srv.proc.pid, signal.SIGCONT)
        srv.stop()


@pytest.fixture(autouse=True)
def short_bounds(monkeypatch):
    monkeypatch.setattr(engine_milvus, "READ_TIMEOUT", BOUND, raising=False)
    monkeypatch.setattr(engine_milvus, "CONNECT_TIMEOUT", BOUND)


@contextmanager
def stalled(srv: MilvusLite) -> Iterator[None]:
    """The server process stopped (alive, its port open, answering nothing) until exit."""
    os.kill(srv.proc.pid, signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 10  # kill() returns before every thread has stopped
        stat = Path(f"/proc/{srv.proc.pid}/stat")
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "T":
            assert time.monotonic() < deadline, "the server did not stop"
            time.sleep(0.01)
        yield
    finally:
        os.kill(srv.proc.pid, signal.SIGCONT)


@contextmanager
def within(seconds: float) -> Iterator[None]:
    start = time.monotonic()
    yield
    took = time.monotonic() - start
    assert took < seconds, f"took {took:.1f} s"


def one_line_timeout(text: str, url: str) -> None:
    assert len(text.strip().splitlines()) == 1 and "Traceback" not in text
    assert url in text and f"did not answer within {BOUND:g} s" in text
    # what to do about a server that is slow, not one that is gone
    assert "ask again in a moment" in text and "is the server running" not in text


def test_reads_end_within_their_bound_and_recover(server):
    """A read the stalled server does not answer in time says it is slow, and what to do
    (ask again; the server's load and log), not "is the server running and reachable?",
    which sent an operator looking for a server that was up (as after a large publish)."""
    url = server.url("stall")
    reader = EngineReader(connect_url(url))
    idx = reader.current()
    assert search(idx, QUESTION).results
    with stalled(server):
        for read in (reader.current, lambda: search(idx, QUESTION)):
            with within(BOUND + SLACK), pytest.raises(EngineError) as err:
                read()
            one_line_timeout(err.value.format(), url)
        with within(BOUND + SLACK):  # a fresh `kb query` connects to the stalled server
            res = CliRunner().invoke(main, ["query", "--engine", url, QUESTION])
        assert res.exit_code == 1 and url in res.output
        assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
    with within(SLACK):  # the same connection, at once
        assert search(reader.current(), QUESTION).results


def test_serve_and_mcp_answer_503_and_recover(server):
    url = server.url("stall")
    ctx = Context(opener=EngineReader(connect_url(url)).current)
    assert tool_search(ctx, QUESTION, 3)["results"]
    with TestClient(create_app(None, source=open_source(None, url)),
                    base_url="http://127.0.0.1") as c:
        assert c.get("/api/search", params={"q": QUESTION}).status_code == 200
        with stalled(server):
            with within(BOUND + SLACK):
                resp = c.get("/api/search", params={"q": QUESTION})
            assert resp.status_code == 503
            one_line_timeout(resp.json()["error"]["message"], url)
            with within(BOUND + SLACK):
                assert c.get("/api/healthz").status_code == 503
            with within(BOUND + SLACK), pytest.raises(EngineError) as err:
                tool_search(ctx, QUESTION, 3)
            one_line_timeout(tool_error(err.value), url)
        with within(SLACK):
            assert c.get("/api/search", params={"q": QUESTION}).status_code == 200
            assert tool_search(ctx, QUESTION, 3)["results"]


def test_long_publish_calls_have_no_bound_and_reads_do():
    """Flushing, indexing and loading grow with the release: no bound (a stalled server
    is ended by gRPC's keepalive); every read and write of a publish has one."""
    assert [engine_milvus.timeout_of(m) for m in engine_milvus.LONG_CALLS] == [None] * 3
    assert engine_milvus.timeout_of("search") == engine_milvus.READ_TIMEOUT == BOUND
    assert engine_milvus.timeout_of("describe_alias") == BOUND
    assert engine_milvus.timeout_of("insert") == engine_milvus.WRITE_TIMEOUT > BOUND
