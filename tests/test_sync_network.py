"""`kb sync` over a patchy network: `git daemon` on loopback behind a TCP proxy that cuts the
connection after N bytes, stalls mid-transfer or refuses connections (a field tablet on 4G).

Every interrupted sync must leave the previous release served, release the lock, keep no
partial pack in the device's object store, and say in one line which source failed; the
next sync completes.
"""

from __future__ import annotations

import os
import subprocess
import threading
import traceback
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import GitDaemon, Proxy, Pub

from kbtools.cli import main
from kbtools.ship import device as dev
from kbtools.ship import gitrun
from kbtools.ship.sync import sync
from tests.ports import refusing_port


def incompressible() -> dict[str, bytes]:
    """~300 kB a release that no delta or compression shrinks: a transfer to cut mid-way."""
    return {f"blob/{i}.bin": os.urandom(20_000) for i in range(15)}


@pytest.fixture
def net(tmp_path: Path) -> Iterator[tuple[Pub, Proxy, Path]]:
    """kb-r1 synced to a device through the proxy, kb-r2 published (~300 kB to fetch)."""
    pub = Pub(tmp_path)
    pub.release(incompressible())
    daemon = GitDaemon(tmp_path)
    proxy = Proxy(daemon.port)
    try:
        device = tmp_path / "dev"
        assert sync(proxy.url("art.git"), device).tag == "kb-r1"
        pub.release(incompressible())
        yield pub, proxy, device
    finally:
        proxy.close()
        daemon.stop()


def kb_sync(url: str, device: Path) -> tuple[int, str]:
    """`kb sync`'s exit code and what it said on stderr, with the traceback of anything it
    raised besides its exit (CliRunner keeps that apart: a failure showed no cause)."""
    res = CliRunner().invoke(main, ["sync", url, "--to", str(device)])
    raised = "" if res.exception is None or isinstance(res.exception, SystemExit) else \
        "".join(traceback.format_exception(res.exception))
    return res.exit_code, res.stderr + raised


def partial_packs(device: Path) -> list[str]:
    return sorted(p.name for p in (device / "repo.git" / "objects" / "pack").iterdir()
                  if p.name.startswith("tmp_"))


def test_cut_transfers_leave_the_release_served_and_no_partial_pack(net):
    pub, proxy, device = net
    proxy.mode = "cut"
    for after in (50, 400, 3_000, 40_000, 120_000, 250_000):
        proxy.after = after
        code, _ = kb_sync(proxy.url("art.git"), device)
        assert code == 1, after
        assert dev.served_tag(device) == "kb-r1"
        assert partial_packs(device) == [], after  # each cut used to leave its part behind
    proxy.mode = "pass"
    code, err = kb_sync(proxy.url("art.git"), device)
    assert code == 0, err
    assert dev.served_tag(device) == "kb-r2"
    fsck = subprocess.run(["git", "--git-dir", str(device / "repo.git"), "fsck", "--strict"],
                          capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


def test_partial_packs_of_a_killed_sync_are_removed_by_the_next(net):
    _, proxy, device = net
    pack = device / "repo.git" / "objects" / "pack"
    (pack / "tmp_pack_Xy12ab").write_bytes(os.urandom(4096))  # what a SIGKILL leaves
    (pack / "tmp_idx_Xy12ab").write_bytes(b"")
    code, err = kb_sync(proxy.url("art.git"), device)
    assert code == 0, err
    assert dev.served_tag(device) == "kb-r2" and partial_packs(device) == []


def test_a_stalled_transfer_is_given_up_in_one_line(net, monkeypatch):
    """git:// has no speed limit of its own: a connection that goes silent mid-pack used to
    hold `kb sync` (and the device lock) forever."""
    _, proxy, device = net
    monkeypatch.setattr(gitrun, "STALL_SECONDS", 3)
    proxy.mode, proxy.after = "stall", 60_000
    outcome: list[tuple[int, str]] = []
    worker = threading.Thread(target=lambda: outcome.append(
        kb_sync(proxy.url("art.git"), device)), daemon=True)
    worker.start()
    worker.join(300)  # a bound against hanging the suite, not a timing assertion
    assert outcome, "kb sync hung on a stalled connection"
    code, err = outcome[0]
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no progress for 3 s" in lines[0], err
    assert dev.served_tag(device) == "kb-r1" and partial_packs(device) == []
    proxy.mode = "pass"
    code, err = kb_sync(proxy.url("art.git"), device)  # the lock was released
    assert code == 0 and dev.served_tag(device) == "kb-r2", err


def test_a_failed_transfer_names_the_source_and_the_release(net):
    """What a field technician reads: which source, which release, that nothing changed."""
    _, proxy, device = net
    url = proxy.url("art.git")
    proxy.mode, proxy.after = "cut", 120_000  # mid-pack
    code, err = kb_sync(url, device)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, err
    assert lines[0].startswith(f"kb: error: {url}: kb-r2: git fetch failed: "), err
    assert "the served release is unchanged" in lines[0]
    proxy.mode = "refuse"
    code, err = kb_sync(url, device)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, err
    assert lines[0].startswith(f"kb: error: {url}: git ls-remote failed: "), err
    assert dev.served_tag(device) == "kb-r1"


def test_a_refused_connection_says_why(tmp_path):
    """git's "unable to connect to HOST:" goes on on the next line; both are the reason."""
    with refusing_port() as port:  # nothing listens there
        code, err = kb_sync(f"git://127.0.0.1:{port}/art.git", tmp_path / "dev")
    assert code == 1 and "Connection refused" in err.strip().splitlines()[0], err


class Forwarding(SimpleHTTPRequestHandler):
    """A web server whose artifacts repository moved from /old.git to /new.git, its old
    address forwarding there (301), as a publisher moving hosts leaves it for a while."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/old.git/"):
            self.send_response(301)
            self.send_header("Location", "/new.git/" + self.path[len("/old.git/"):])
            self.end_headers()
            return
        super().do_GET()


def test_a_source_that_moved_and_forwards_is_synced_and_its_new_address_named(tmp_path):
    """A device syncing from an http(s) address the publisher moved away from, the old one
    forwarding: git followed the redirect and kb said nothing, so devices learned of the
    move only when the forwarding ended and every sync failed. The sync works as before and
    warns, naming the new address and the command that syncs from it."""
    pub = Pub(tmp_path)
    pub.release()
    www = tmp_path / "www"
    www.mkdir()
    new = www / "new.git"

    def mirror() -> None:  # a dumb-http copy of the artifacts repository
        if not new.exists():
            subprocess.run(["git", "clone", "-q", "--bare", str(pub.art), str(new)], check=True)
        subprocess.run(["git", "-C", str(new), "fetch", "-q", str(pub.art),
                        "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"], check=True)
        subprocess.run(["git", "-C", str(new), "update-server-info"], check=True)

    mirror()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Forwarding, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    device = tmp_path / "dev"
    try:
        assert kb_sync(f"{base}/old.git", device) == (0, "kb: warning: the source redirects to "
                                                     f"{base}/new.git (it moved, and {base}/"
                                                     f"old.git forwards to it): `kb sync {base}/"
                                                     f"new.git --to {device.resolve()}` syncs "
                                                     "from there directly, before the old "
                                                     "address stops forwarding\n")
        assert dev.served_tag(device) == "kb-r1"
        zh = CliRunner().invoke(main, ["status", "--to", str(device)], env={
            "LANG": "zh_CN.UTF-8", "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None})
        assert f"  警告：来源重定向到 {base}/new.git（来源已迁移，{base}/old.git 转发到新地址）：" \
            f"`kb sync {base}/new.git --to {device.resolve()}` 直接从新地址同步，请在旧地址停止" \
            "转发之前改用" in zh.stdout.splitlines(), zh.stdout  # (a Chinese status says it so)
        pub.release()
        mirror()
        code, said = kb_sync(f"{base}/old.git", device)
        assert code == 0 and said.count("\n") == 1 and "redirects to" in said, said
        assert dev.served_tag(device) == "kb-r2"
        assert kb_sync(f"{base}/new.git", device) == (0, "")  # as the warning said: no word
    finally:
        server.shutdown()
