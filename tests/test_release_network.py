"""`kb release` pushing over a link that goes silent: `git daemon` (accepting pushes) on
loopback behind a TCP proxy that stops forwarding what the publisher sends.

git:// and ssh have no speed limit of their own and the kernel does not close a silent
connection for hours, so a push used to hold a CI job forever. It is now given up in one
line after STALL_SECONDS without progress, the release stays recorded locally, and the next
`kb release` pushes it."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import GitDaemon, Proxy, git, make_dist, make_knowledge_repo, sample_files

from kbtools.cli import main
from kbtools.config import load_config
from kbtools.ship import gitrun
from kbtools.ship.gitrun import NetLimits
from kbtools.ship.release import release_limits
from kbtools.ship.sync import sync_limits


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


def kb_release(kr: Path, dist: Path, url: str, *args: str) -> tuple[int, str, str]:
    cwd = Path.cwd()
    os.chdir(kr)
    try:
        res = CliRunner().invoke(main, ["release", "--dist", str(dist), "--remote", url,
                                        *args])
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
    assert lines[0] == (f"kb: error: {url}: git push failed: no progress for 3 s (the remote "
                        "stopped answering); try again later"), err
    assert git(tmp_path / "art.git", "for-each-ref") == ""  # nothing published
    proxy.mode = "pass"
    code, out, err = kb_release(kr, dist, url)  # recorded locally: pushed as it is
    assert code == 0 and out.startswith("kb-r1\talready released\t"), err
    assert git(tmp_path / "art.git", "rev-parse", "refs/tags/kb-r1^{commit}") == \
        git(kr, "rev-parse", "refs/kb/heads/kb-index")


# ------------------------------------------------------------------ the limits of kb release


@pytest.mark.parametrize("setting", ["kb.toml", "option"])
def test_a_push_gives_up_after_the_stall_limit_kb_toml_or_the_option_sets(link, tmp_path,
                                                                          setting):
    """`kb release` gave a silent remote up after a fixed 60 s, whatever a user set: now
    kb.toml ``[release] stall_seconds`` (or `--stall-seconds`) sets it, as ``[sync]`` does
    for a device."""
    kr, proxy, dist = link
    args: tuple[str, ...] = ()
    if setting == "kb.toml":
        (kr / "kb.toml").write_text("[release]\nkeep = 3\nstall_seconds = 3\n",
                                    encoding="utf-8")
    else:
        args = ("--stall-seconds", "3")
    proxy.mode, proxy.after, proxy.upstream = "stall", 2_000, True
    outcome: list[tuple[int, str, str]] = []
    worker = threading.Thread(
        target=lambda: outcome.append(kb_release(kr, dist, proxy.url("art.git"), *args)),
        daemon=True)
    worker.start()
    worker.join(120)  # a bound against hanging the suite, not a timing assertion
    assert outcome, "kb release hung on a silent link"
    code, _, err = outcome[0]
    assert (code, err) == (1, f"kb: error: {proxy.url('art.git')}: git push failed: no "
                              "progress for 3 s (the remote stopped answering); try again "
                              "later\n"), err
    assert git(tmp_path / "art.git", "for-each-ref") == ""  # nothing published


def test_listing_a_remote_that_never_answers_is_given_up_at_the_list_timeout(link):
    kr, _, dist = link
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # the kernel accepts; nothing ever answers
        url = f"git://127.0.0.1:{listener.getsockname()[1]}/art.git"
        outcome: list[tuple[int, str, str]] = []
        worker = threading.Thread(
            target=lambda: outcome.append(kb_release(kr, dist, url, "--list-timeout", "2")),
            daemon=True)
        worker.start()
        worker.join(120)
    assert outcome, "kb release hung on a remote that never answers"
    code, _, err = outcome[0]
    assert (code, err) == (1, f"kb: error: {url}: git ls-remote failed: no answer within 2 s "
                              "(the remote stopped answering); try again later\n"), err
    assert git(kr, "for-each-ref", "refs/kb/") == ""  # nothing recorded


@pytest.mark.parametrize(("text", "line", "message"), [
    ("[release]\nstall_seconds = 0\n", 2,
     "release.stall_seconds: 0 is less than the minimum of 1"),
    ("[sync]\nstall_seconds = 90\n\n[release]\nremote = \"\"\nstall_bytes = \"fast\"\n", 6,
     "release.stall_bytes: 'fast' is not of type 'integer'"),
    ("[release]\n# 发布：慢速链路\nlist_timeout = 100000\n", 3,
     "release.list_timeout: 100000 is greater than the maximum of 86400"),
])
def test_a_bad_release_limit_in_kb_toml_is_one_line_naming_file_line_and_key(link, text,
                                                                             line, message):
    kr, proxy, dist = link
    (kr / "kb.toml").write_text(text, encoding="utf-8")
    code, out, err = kb_release(kr, dist, proxy.url("art.git"))
    assert (code, out) == (1, "") and err == f"kb: error: kb.toml:{line}: " \
        f"{message}\n", err


@pytest.mark.parametrize("option", ["--stall-seconds", "--stall-bytes", "--list-timeout"])
def test_a_bad_release_limit_on_the_command_line_is_refused_by_name(link, option):
    kr, proxy, dist = link
    code, _, err = kb_release(kr, dist, proxy.url("art.git"), option, "0")
    assert code == 2 and f"Invalid value for '{option}'" in err, err


def test_release_limits_keep_the_defaults_and_are_not_a_devices(tmp_path):
    """Unset, the defaults (60 s, 1000 bytes/s, 240 s); a device's ``[sync]`` (a satellite
    link's patience) does not slow a CI job's push, and an option wins over kb.toml."""
    # (and no size limit on the fetch from its own remote, which a device has: [sync])
    assert release_limits(load_config(tmp_path)) == NetLimits(60.0, 1000, 240.0, None)
    (tmp_path / "kb.toml").write_text("[sync]\nstall_seconds = 900\n\n[release]\n"
                                      "stall_bytes = 200\nbranch = \"kb-index\"\n",
                                      encoding="utf-8")
    cfg = load_config(tmp_path)
    assert release_limits(cfg) == NetLimits(60.0, 200, 240.0, None)
    assert sync_limits(cfg) == NetLimits(900.0, 1000, 240.0)
    assert release_limits(cfg, {"stall_seconds": 5, "stall_bytes": None,
                                "list_timeout": 30}) == NetLimits(5.0, 200, 30.0, None)


class HeadStalls(Proxy):
    """Passes kb release's first two connections (listing the remote, the push) and stalls
    the rest (reading the remote's HEAD after the push). `Proxy._accept` reads `mode` twice
    for each connection it forwards."""

    def __init__(self, port: int):
        self.reads = 0
        super().__init__(port)

    @property  # type: ignore[override]
    def mode(self) -> str:
        self.reads += 1
        return "stall" if self.reads > 4 else "pass"

    @mode.setter
    def mode(self, value: str) -> None:
        pass


def test_a_published_release_whose_remote_head_cannot_be_read_is_a_warning(tmp_path):
    """The push succeeded, then reading the remote's HEAD stalled: `kb release` failed
    ("git ls-remote failed") as if nothing were published."""
    kr = make_knowledge_repo(tmp_path / "kr")
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "art.git")], check=True)
    dist = make_dist(tmp_path / "dist", sample_files(1), commit="s1")
    daemon = GitDaemon(tmp_path, push=True)
    proxy = HeadStalls(daemon.port)
    try:
        url = proxy.url("art.git")
        code, out, err = kb_release(kr, dist, url, "--list-timeout", "2")
    finally:
        proxy.close()
        daemon.stop()
    assert code == 0 and out.startswith("kb-r1\tnew release\t"), err
    assert err == (f"warning: {url}: kb-r1 is published, but its HEAD could not be read (git "
                   "ls-remote failed: no answer within 2 s (the remote stopped answering); try "
                   "again later); make sure kb-index is the repository's default branch\n"), err
    assert git(tmp_path / "art.git", "rev-parse", "refs/tags/kb-r1^{commit}") == \
        git(kr, "rev-parse", "refs/kb/heads/kb-index")
