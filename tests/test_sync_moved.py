"""A release tag moved at the source (force-pushed to another commit): a tag a device has
accepted names one release for good. A sync whose newest release is a tag the device
already installed (an interrupted sync left it unserved) but that the source has moved used
to serve the copy it held, saying nothing; it now refuses in one line, the served release
unchanged. A moved tag of the served release keeps it served, with one warning line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import git
from test_trust import Keys, Pub, kb

from kbtools.cli import main
from kbtools.ship import device

pytestmark = pytest.mark.slow


def _move(art: Path, tag: str, onto: str) -> None:
    """Force-move annotated tag `tag` at the source onto the commit of tag `onto`, with that
    tag's message (what a publisher re-tagging another release commit pushes)."""
    commit = git(art, "rev-parse", f"{onto}^{{commit}}").strip()
    message = git(art, "tag", "-l", "--format=%(contents)", onto)
    git(art, "tag", "-f", "-a", tag, commit, "-m", message)


def _sync(src: Path, dev: Path) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, ["sync", str(src), "--to", str(dev)])
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture
def synced(tmp_path: Path) -> tuple[Pub, Path, Keys]:
    """kb-r1 and kb-r2 synced (kb-r2 served), kb-r3 published and not synced yet."""
    keys, pub = Keys(tmp_path), Pub(tmp_path)
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev)[0] == 0 and device.served_tag(dev) == "kb-r2"
    pub.release(keys.a)
    return pub, dev, keys


def test_the_served_release_moved_at_the_source_stays_served_with_one_warning(synced):
    pub, dev, _ = synced
    git(pub.art, "tag", "-d", "kb-r3")
    _move(pub.art, "kb-r2", "kb-r1")
    code, out, err = _sync(pub.art, dev)
    assert code == 0 and out.startswith("up to date: serving kb-r2"), out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: warning: kb-r2 was moved at the "
                                                   "source"), err
    assert "keeps serving the kb-r2 it verified" in lines[0]
    assert device.served_tag(dev) == "kb-r2"
    zh = CliRunner().invoke(main, ["status", "--to", str(dev)], env={
        "LANG": "zh_CN.UTF-8", "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None}).stdout
    said = [line for line in zh.splitlines() if line.startswith("  警告：")]
    assert len(said) == 1 and said[0].startswith("  警告：kb-r2 在来源处被移动（其标签现在指向 ") and \
        said[0].endswith("发布版本的标签从不改变）：本设备继续提供它校验过的 kb-r2"), zh


def test_an_installed_release_moved_at_the_source_is_refused_in_one_line(synced, monkeypatch):
    pub, dev, keys = synced

    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(device, "switch_to", killed)  # killed after install, before the swap
    code, _, err = _sync(pub.art, dev)
    assert code == 130 and device.served_tag(dev) == "kb-r2", err
    assert (dev / "releases" / "kb-r3").is_dir()
    monkeypatch.undo()
    pub.release(keys.a)  # kb-r4: its commit, re-tagged as kb-r3 and force-pushed
    _move(pub.art, "kb-r3", "kb-r4")
    git(pub.art, "tag", "-d", "kb-r4")
    code, out, err = _sync(pub.art, dev)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, out + err
    assert lines[0].startswith("kb: error: ") and "kb-r3 was moved at the source" in lines[0]
    assert "the served release is unchanged" in lines[0]
    assert device.served_tag(dev) == "kb-r2"
