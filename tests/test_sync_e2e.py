"""End to end with real builds: kb init → kb build → kb release → kb sync (git daemon on
loopback) → kb query on the device; an edit → second release → small transfer; rollback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import GitDaemon, git

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.index.manifest import load_manifest, verify_files
from kbtools.ship import device
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync

pytestmark = pytest.mark.slow

DOC = """---
title: Pump maintenance
category: engineering
project: knowledge-base
source: test
author: t@example.org
timestamp: "2026-01-01T09:00:00+00:00"
verified: false
lang: en
---
# Pump maintenance

## Seals

Replace the mechanical seal of the irrigation pump every 2000 operating hours.

## Filters

Clean the intake filter weekly during the growing season.
"""


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A knowledge repo with one real release published to a bare artifacts repo."""
    base = tmp_path_factory.mktemp("e2e")
    kr = base / "kr"
    assert CliRunner().invoke(main, ["init", str(kr)]).exit_code == 0
    (kr / "knowledge" / "pump.md").write_text(DOC)
    git(kr, "add", "-A")
    git(kr, "commit", "-q", "-m", "knowledge")
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    cfg = load_config(kr)
    build(cfg, BuildOptions(progress=False))
    first = make_release(kr, cfg.path("dist"), remote=str(art))
    return kr, art, first


def _query(dev: Path, question: str) -> dict:
    res = CliRunner().invoke(main, ["query", "--index", str(dev), question, "-k", "1", "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_release_sync_query_edit_rollback(published, tmp_path: Path):
    kr, art, first = published
    daemon = GitDaemon(art.parent)
    try:
        dev = tmp_path / "device"
        r1 = sync(daemon.url("art.git"), dev)
        assert r1.tag == first.tag == "kb-r1"
        rel = device.served_release(dev)
        assert rel is not None and verify_files(rel, load_manifest(rel), derived=True) == []
        out = _query(dev, "how often to replace the pump seal")
        assert out["release"]["tag"] == "kb-r1"
        assert out["results"][0]["doc"] == "knowledge/pump.md"
        # a one-paragraph edit → second release → a small transfer
        doc = kr / "knowledge" / "pump.md"
        doc.write_text(doc.read_text().replace("weekly", "twice a week"))
        git(kr, "commit", "-qam", "edit")
        cfg = load_config(kr)
        build(cfg, BuildOptions(progress=False))
        second = make_release(kr, cfg.path("dist"), remote=str(art))
        r2 = sync(daemon.url("art.git"), dev)
        assert (second.tag, r2.tag, r2.previous) == ("kb-r2", "kb-r2", "kb-r1")
        print(f"first sync fetched {r1.fetched_bytes} B, second {r2.fetched_bytes} B")
        assert 0 < r2.fetched_bytes < r1.fetched_bytes
        assert "twice a week" in json.dumps(_query(dev, "intake filter cleaning"))
        res = CliRunner().invoke(main, ["rollback", "--to", str(dev)])
        assert res.exit_code == 0, res.output
        out = _query(dev, "intake filter cleaning")
        assert out["release"]["tag"] == "kb-r1" and "weekly" in json.dumps(out)
    finally:
        daemon.stop()
