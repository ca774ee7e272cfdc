"""`kb releases`: the newest releases and every one the device keeps, up to a limit (split
from test_sync.py; its `pub` fixture)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from test_release_helpers import Pub
from test_sync import pub

from kbtools.cli import main
from kbtools.ship.operate import RELEASES_LIMIT, limit_releases
from kbtools.ship.sync import sync

__all__ = ["pub"]  # the fixture this module's tests use


def test_releases_lists_the_newest_and_every_local_one_up_to_a_limit(pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    for _ in range(3):
        pub.release()
    runner = CliRunner()
    res = runner.invoke(main, ["releases", "--to", str(dev), "--json", "--limit", "1"])
    assert res.exit_code == 0, res.output
    assert [r["tag"] for r in json.loads(res.stdout)] == ["kb-r5", "kb-r2"]  # r2 is local
    assert "kb: 3 older releases not listed (--limit 0 lists all)" in res.stderr
    res = runner.invoke(main, ["releases", "--to", str(dev), "--limit", "2"])
    assert [line.split()[0] for line in res.stdout.splitlines()[2:]] == ["kb-r5", "kb-r4", "*"]
    assert "2 older releases not listed" in res.stderr
    for args in (["--limit", "0"], []):  # all, and five is within the default limit
        res = runner.invoke(main, ["releases", "--to", str(dev), "--json", *args])
        assert [r["serial"] for r in json.loads(res.stdout)] == [5, 4, 3, 2, 1]
        assert "not listed" not in res.stderr
    res = runner.invoke(main, ["releases", "--to", str(dev), "--limit", "-1"])
    assert res.exit_code == 2


def test_the_default_limit_keeps_a_year_of_releases_to_a_screen():
    rows = [{"tag": f"kb-r{s}", "serial": s, "local": s in (3, 200)}
            for s in range(400, 0, -1)]
    kept, omitted = limit_releases(rows, RELEASES_LIMIT)
    assert [r["serial"] for r in kept] == [*range(400, 400 - RELEASES_LIMIT, -1), 200, 3]
    assert omitted == 400 - RELEASES_LIMIT - 2
    assert limit_releases(rows, 0) == (rows, 0)


def test_a_source_gone_is_said_without_a_longer_wait_to_try(pub: Pub, tmp_path: Path):
    """The last source moved away (no repository there any more): `kb releases` lists the
    device's and says so in one line, pointing at --local, not at waiting longer (which
    only helps a source that does not answer)."""
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    pub.art.rename(tmp_path / "moved.git")
    res = CliRunner().invoke(main, ["releases", "--to", str(dev)])
    assert res.exit_code == 0 and "served" in res.stdout, res.output
    [line] = res.stderr.splitlines()
    assert line.startswith(f"kb: warning: remote releases not listed: {pub.art}: git "
                           "ls-remote failed: "), line
    assert line.endswith("; `kb releases --local` lists this device's without asking it"), line
