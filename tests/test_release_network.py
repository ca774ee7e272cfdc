"""`kb release` pushing over a link that goes silent: `git daemon` (accepting pushes) on
loopback behind a TCP proxy that stops forwarding what the publisher sends.

git:// and ssh have no speed limit of their own and the kernel does not close a silent
connection for hours, so a push used to hold a CI job forever. It is now given up in one
line after STALL_SECONDS without progress, the release stays recorded locally, and the next
`kb release` pushes it."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import GitDaemon, Proxy, git, make_dist, make_knowledge_repo, sample_files

from kbtools.cli import main
from kbtools.ship import gitrun


@pytest.fixture
def link(tmp_path: Path) -> Iterator[tuple[Path, Proxy, Path]]:
    """A knowledge repo, an empty artifacts repo served by git daemon behind a proxy, and a
    dist of ~300 kB of incompressible files."""
    kr = make_knowledge_repo(tmp_path / "kr")
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "art.git")], check=True)
    files = {**sample_files(1), **{f"blob/{i}.bin": os.urandom(20_000) for i in range(15)}}
    dist = make_dist(tmp_path / "dist", files, commit="s1")
    daemon = GitDaemon(tmp_path, push=True)
    proxy = Proxy(daemon.port)
    try:
        yield kr, proxy, dist
    finally:
        proxy.close()
        daemon.stop()


def kb_release(kr: Path, dist: Path, url: str) -> tuple[int, str, str]:
    cwd = Path.cwd()
    os.chdir(kr)
    try:
        res = CliRunner().invoke(main, ["release", "--dist", str(dist), "--remote", url])
    finally:
        os.chdir(cwd)
    return res.exit_code, res.stdout, res.stderr


def test_a_push_over_a_silent_link_is_given_up_in_one_line(link, tmp_path, monkeypatch):
    kr, proxy, dist = link
    monkeypatch.setattr(gitrun, "STALL_SECONDS", 3)
    proxy.mode, proxy.after, proxy.upstream = "stall", 2_000, True
    url = proxy.url("art.git")
    outcome: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: outcome.append(kb_release(kr, dist, url)),
                              daemon=True)
    worker.start()
    worker.join(120)  # a bound against hanging the suite, not a timing assertion
    assert outcome, "kb release hung on a silent link"
    code, _, err = outcome[0]
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, err
    assert lines[0] == ("kb: error: git push failed: no progress for 3 s (the remote stopped "
                        "answering); try again later"), err
    assert git(tmp_path / "art.git", "for-each-ref") == ""  # nothing published
    proxy.mode = "pass"
    code, out, err = kb_release(kr, dist, url)  # recorded locally: pushed as it is
    assert code == 0 and out.startswith("kb-r1\talready released\t"), err
    assert git(tmp_path / "art.git", "rev-parse", "refs/tags/kb-r1^{commit}") == \
        git(kr, "rev-parse", "refs/kb/heads/kb-index")
