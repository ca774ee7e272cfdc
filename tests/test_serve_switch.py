"""`kb serve --workers N` while the served release switches: a request that began on a
release finishes on it, however many switches happen meanwhile (a page or a read does not
hold the release's search lock, and the release it read was once closed under it)."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import KbIndex, open_index
from kbtools.serve import ops
from kbtools.serve.app import create_app
from kbtools.serve.source import KEEP_OPEN, ServedIndex

BASE = "http://127.0.0.1"
DOC = """---
title: Pump seal check
category: field-report
source: test
author: t
timestamp: "2026-03-01T10:00:00+08:00"
verified: false
lang: en
location: plant
reported_at: "2026-03-01T09:00:00+08:00"
---

# Pump seal check

The seal of pump P-7 leaked after the valve was reset.
"""


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("switch") / "kr"
    (root / "knowledge").mkdir(parents=True)
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash" }\n', encoding="utf-8")
    (root / "knowledge" / "seal.md").write_text(DOC, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e.org",
                    "commit", "-qm", "seal"], check=True)
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


class Switching(ServedIndex):
    """Serves release number `self.serial` (each one the same files opened anew), as a
    device's ``current`` after as many syncs."""

    def __init__(self, dist: Path):
        super().__init__(dist)
        self.serial = 1
        self.opened: list[KbIndex] = []

    def _locate(self) -> Any:
        def opener() -> KbIndex:
            idx = open_index(self.index)
            self.opened.append(idx)
            return idx
        return ("release", self.serial), opener


def test_a_page_finishes_on_its_release_while_two_syncs_switch_it(dist, monkeypatch):
    source = Switching(dist)
    inside, carry_on = threading.Event(), threading.Event()
    document = ops.document

    def paused(served, doc, **kw):  # the page has its release and pauses before reading it
        if threading.current_thread().name != "MainThread" and not inside.is_set():
            inside.set()
            assert carry_on.wait(60)
        return document(served, doc, **kw)
    monkeypatch.setattr(ops, "document", paused)
    app = create_app(None, source=source, workers=3)
    with TestClient(app, base_url=BASE) as client:
        assert client.get("/api/healthz").status_code == 200  # release 1 opened
        first = source.opened[0]
        answers: list[Any] = []
        page = threading.Thread(target=lambda: answers.append(
            client.get("/doc/knowledge/seal.md", params={"q": "pump seal"})))
        page.start()
        assert inside.wait(60)
        for serial in range(2, KEEP_OPEN + 2):  # syncs: release 1 leaves the kept ones
            source.serial = serial
            assert client.get("/api/search", params={"q": "pump seal"}).status_code == 200
        assert len(source.opened) == KEEP_OPEN + 1
        carry_on.set()
        page.join(60)
        assert answers and answers[0].status_code == 200, answers[0].text[-500:]
        assert "P-7" in answers[0].text
        # the release nobody uses any more is closed once its last request ended
        with pytest.raises(Exception, match="closed"):
            first.store.con.execute("select 1")
        assert client.get("/doc/knowledge/seal.md").status_code == 200


def test_a_client_that_stops_reading_does_not_keep_a_replaced_release_open(dist):
    """A client that stops reading its response (a tablet gone to sleep, a client that
    pipelines requests and never reads) held the release its request had pinned until the
    response was sent, however long that took: each sync meanwhile left one more release
    open, its files and maps with it. A request lets its release go once its response is
    ready; the response still arrives whole."""
    import anyio

    source = Switching(dist)
    app = create_app(None, source=source, workers=2)

    def scope(path: str, query: bytes = b"") -> dict[str, Any]:
        return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
                "query_string": query, "root_path": "", "client": ("127.0.0.1", 5000),
                "server": ("127.0.0.1", 8080), "headers": [(b"host", b"127.0.0.1:8080")]}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def request(path: str, query: bytes = b"") -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
        await app(scope(path, query), receive, send)
        return sent

    async def scenario() -> tuple[list[dict[str, Any]], bool]:
        started, reading = anyio.Event(), anyio.Event()
        stalled: list[dict[str, Any]] = []

        async def stalled_send(message: dict[str, Any]) -> None:
            stalled.append(message)
            if message["type"] == "http.response.start":
                started.set()
                await reading.wait()  # the client reads nothing until the syncs are done

        async with anyio.create_task_group() as tg:
            tg.start_soon(app, scope("/doc/knowledge/seal.md", b"q=pump"), receive, stalled_send)
            await started.wait()
            for serial in range(2, KEEP_OPEN + 2):  # syncs: release 1 leaves the kept ones
                source.serial = serial
                assert (await request("/api/search", b"q=pump+seal"))[0]["status"] == 200
            try:
                source.opened[0].store.con.execute("select 1")
                closed = False
            except Exception:
                closed = True
            reading.set()
        return stalled, closed

    stalled, closed = anyio.run(scenario)
    assert len(source.opened) == KEEP_OPEN + 1
    assert closed, "the release replaced under a client that stopped reading was kept open"
    assert stalled[0]["status"] == 200
    assert b"P-7" in b"".join(m.get("body", b"") for m in stalled[1:])
