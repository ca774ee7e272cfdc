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

    def paused(served, doc):  # the page has its release and pauses before reading it
        if threading.current_thread().name != "MainThread" and not inside.is_set():
            inside.set()
            assert carry_on.wait(60)
        return document(served, doc)
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
