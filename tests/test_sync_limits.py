"""A device owner sets how long `kb sync` waits on a slow or silent source: kb.toml
``[sync]`` (stall_seconds, stall_bytes, list_timeout; found from the current directory, as
``[release]`` is) and `kb sync --stall-seconds/--stall-bytes/--list-timeout` over it; the
defaults are unchanged, a bad value is one line naming the file, line and key.

Real `git daemon` on loopback behind a TCP proxy that pauses between bursts (a slow field
link) or stalls, and real listeners that never answer.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import GitDaemon, Proxy, Pub

from kbtools.cli import main
from kbtools.config import load_config
from kbtools.ship import device as dev
from kbtools.ship.gitrun import NetLimits
from kbtools.ship.sync import sync, sync_limits

pytestmark = pytest.mark.slow


def kb(*args: object) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture
def net(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Proxy, Path, Path]]:
    """kb-r1 synced through the proxy, kb-r2 published (~300 kB no compression shrinks);
    the current directory an empty folder, for a kb.toml of the test's."""
    pub = Pub(tmp_path)
    pub.release()
    daemon = GitDaemon(tmp_path)
    proxy = Proxy(daemon.port)
    try:
        device = tmp_path / "dev"
        assert sync(proxy.url("art.git"), device).tag == "kb-r1"
        pub.release({f"blob/{i}.bin": os.urandom(20_000) for i in range(15)})
        here = tmp_path / "here"
        here.mkdir()
        monkeypatch.chdir(here)
        yield proxy, device, here
    finally:
        proxy.close()
        daemon.stop()


def bounded(*args: object) -> tuple[int, str, str]:
    """`kb` run in a thread joined with a generous bound (a hang fails, not hangs)."""
    outcome: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: outcome.append(kb(*args)), daemon=True)
    worker.start()
    worker.join(300)
    assert outcome, f"kb {args} hung"
    return outcome[0]


@pytest.mark.parametrize("where", ["kb.toml", "option"])
def test_a_slow_link_syncs_once_its_owner_allows_the_pauses(net, where):
    """A link that pauses 4 s between bursts is given up under a 2 s stall limit; allowed
    8 s (in kb.toml, or by --stall-seconds over kb.toml's 2), the same release syncs."""
    proxy, device, here = net
    proxy.mode, proxy.after, proxy.pause = "slow", 100_000, 4.0
    (here / "kb.toml").write_text("[sync]\nstall_seconds = 2\n", encoding="utf-8")
    code, _, err = bounded("sync", proxy.url("art.git"), "--to", device)
    assert code == 1 and "git fetch failed: no progress for 2 s" in err, err
    assert len(err.splitlines()) == 1 and dev.served_tag(device) == "kb-r1"
    if where == "kb.toml":
        (here / "kb.toml").write_text("[sync]\nstall_seconds = 8\n", encoding="utf-8")
        extra: tuple[object, ...] = ()
    else:
        extra = ("--stall-seconds", 8)
    code, out, err = bounded("sync", proxy.url("art.git"), "--to", device, *extra)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err


def test_a_stalled_source_is_given_up_after_the_seconds_set(net):
    proxy, device, here = net
    proxy.mode, proxy.after = "stall", 60_000
    (here / "kb.toml").write_text("# a field tablet\n[sync]\nstall_seconds = 3\n",
                                  encoding="utf-8")
    code, _, err = bounded("sync", proxy.url("art.git"), "--to", device)
    assert code == 1 and "no progress for 3 s" in err and len(err.splitlines()) == 1, err
    assert dev.served_tag(device) == "kb-r1"


@pytest.mark.parametrize("setting", ["kb.toml", "option"])
def test_a_silent_source_is_given_up_after_the_list_timeout_set(tmp_path, monkeypatch,
                                                                setting):
    monkeypatch.chdir(tmp_path)
    args: tuple[object, ...] = ()
    if setting == "kb.toml":
        (tmp_path / "kb.toml").write_text("[sync]\nlist_timeout = 2\n", encoding="utf-8")
    else:
        args = ("--list-timeout", 2)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # the kernel accepts; nothing ever answers
        url = f"git://127.0.0.1:{listener.getsockname()[1]}/art.git"
        code, _, err = bounded("sync", url, "--to", tmp_path / "dev", *args)
    assert code == 1 and err == (f"kb: error: {url}: git ls-remote failed: no answer within "
                                 "2 s (the source stopped answering); try again later; no "
                                 "release is served yet\n"), err


@pytest.mark.parametrize(("text", "line", "message"), [
    ("[sync]\nstall_seconds = 0\n", 2, "sync.stall_seconds: 0 is less than the minimum of 1"),
    ("[release]\nkeep = 3\n\n[sync]\nstall_bytes = \"fast\"\n", 5,
     "sync.stall_bytes: 'fast' is not of type 'integer'"),
    ("[sync]\nlist_timeout = 2\nstall = 5\n", 3,
     "sync: Additional properties are not allowed ('stall' was unexpected) "
     "(did you mean 'stall_bytes'?)"),
    ("[sync]\n# 同步：慢速链路\nstall_seconds = -1.5\n", 3,
     "sync.stall_seconds: -1.5 is less than the minimum of 1"),
])
def test_a_bad_limit_in_kb_toml_is_one_line_naming_file_line_and_key(tmp_path, monkeypatch,
                                                                    text, line, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kb.toml").write_text(text, encoding="utf-8")
    code, out, err = kb("sync", tmp_path / "nowhere", "--to", tmp_path / "dev")
    assert (code, out) == (1, "") and err == f"kb: error: kb.toml:{line}: " \
        f"{message}\n", err
    assert not (tmp_path / "dev" / "repo.git").exists()


@pytest.mark.parametrize("value", ["0", "-3", "fast"])
def test_a_bad_limit_on_the_command_line_is_refused_by_name(tmp_path, value):
    code, _, err = kb("sync", tmp_path / "nowhere", "--to", tmp_path / "dev",
                      "--stall-seconds", value)
    assert code == 2 and "Invalid value for '--stall-seconds'" in err, err


def test_the_defaults_are_unchanged_and_each_setting_overrides_only_itself(tmp_path):
    assert sync_limits(load_config(tmp_path)) == NetLimits(60.0, 1000, 240.0)
    (tmp_path / "kb.toml").write_text("[sync]\nstall_bytes = 200\nlist_timeout = 600\n",
                                      encoding="utf-8")
    cfg = load_config(tmp_path)
    assert sync_limits(cfg) == NetLimits(60.0, 200, 600.0)
    assert sync_limits(cfg, {"stall_seconds": 300, "stall_bytes": None,
                             "list_timeout": 30}) == NetLimits(300.0, 200, 30.0)
