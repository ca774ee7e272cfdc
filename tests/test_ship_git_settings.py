"""A user's git settings do not change what shipping's git commands do: `kb release` on a
machine whose ~/.gitconfig signs every commit and tag with a key that is not there
(``commit.gpgSign``, ``tag.gpgSign``, ``push.gpgSign``, ``user.signingkey``) or runs hooks of
its own (``core.hooksPath``), and `kb sync` on a device set up that way. Real git, HOME in a
temp dir (`kbtools.ship.gitrun.PINNED`)."""

from __future__ import annotations

import datetime as dt
import ssl
import subprocess
import threading
from collections.abc import Iterator
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from test_device_clock import Quiet, certificate
from test_release_helpers import Pub

from kbtools.errors import ReleaseError, SyncError
from kbtools.ship import device
from kbtools.ship.sync import sync


def hostile_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME with a ~/.gitconfig signing everything with a missing key, and a hooks folder
    whose every hook fails."""
    home = tmp_path / "home"
    hooks = home / "hooks"
    hooks.mkdir(parents=True)
    for name in ("pre-push", "reference-transaction", "post-commit"):
        (hooks / name).write_text("#!/bin/sh\necho \"user hook $0 ran\" >&2\nexit 1\n")
        (hooks / name).chmod(0o755)
    (home / ".gitconfig").write_text(
        "[user]\n\tsigningkey = 0xDEADBEEFDEADBEEF\n\tname = Someone\n\temail = s@example.org\n"
        "[commit]\n\tgpgSign = true\n[tag]\n\tgpgSign = true\n\tforceSignAnnotated = true\n"
        "[push]\n\tgpgSign = true\n[gpg]\n\tprogram = false\n"
        f"[core]\n\thooksPath = {hooks}\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_SSL_CAINFO"):  # over .gitconfig
        monkeypatch.delenv(name, raising=False)
    return home


def test_release_and_sync_with_a_users_signing_and_hooks_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pub = Pub(tmp_path)  # its knowledge repo is committed before the settings come in
    # the artifacts repository stands for a server: its hooks are its own (none)
    (tmp_path / "server-hooks").mkdir()
    subprocess.run(["git", "--git-dir", str(pub.art), "config", "core.hooksPath",
                    str(tmp_path / "server-hooks")], check=True)
    hostile_home(tmp_path, monkeypatch)
    # the settings are in force for plain git on this machine
    probe = subprocess.run(["git", "config", "--global", "commit.gpgSign"], capture_output=True,
                           text=True, check=True)
    assert probe.stdout.strip() == "true"
    assert pub.release() == "kb-r1"  # commit-tree, mktag, update-ref, push to the remote
    assert pub.release() == "kb-r2"
    dev = tmp_path / "dev"
    assert sync(str(pub.art), dev).tag == "kb-r2"
    assert device.served_tag(dev) == "kb-r2"
    # the release commits are plain (no gpgsig header): kb signs the manifest itself
    head = subprocess.run(["git", "--git-dir", str(pub.art), "cat-file", "commit", "kb-index"],
                          capture_output=True, text=True, check=True).stdout
    assert "gpgsig" not in head


def test_a_device_whose_user_runs_hooks_of_their_own_syncs(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """A device's ``core.hooksPath`` (a failing ``reference-transaction`` hook) aborted the
    fetch into its repository: every sync failed; now the served release moves."""
    pub = Pub(tmp_path)
    pub.release()
    (tmp_path / "server-hooks").mkdir()
    subprocess.run(["git", "--git-dir", str(pub.art), "config", "core.hooksPath",
                    str(tmp_path / "server-hooks")], check=True)
    hostile_home(tmp_path, monkeypatch)
    dev = tmp_path / "dev"
    assert sync(str(pub.art), dev).tag == "kb-r1"


def test_the_remotes_own_hooks_still_run(tmp_path: Path) -> None:
    """Guard: what is pinned is the user's side only; an artifacts repository's own
    ``pre-receive`` (a server's policy) still decides a push."""
    pub = Pub(tmp_path)
    hooks = pub.art / "hooks"
    (hooks / "pre-receive").write_text("#!/bin/sh\necho 'policy: no releases today' >&2\n"
                                       "exit 1\n")
    (hooks / "pre-receive").chmod(0o755)
    with pytest.raises(ReleaseError) as refused:
        pub.release()
    # why, in the one line: the ref the hook declined and what the hook said
    assert "git push failed: [remote rejected]" in refused.value.message
    assert "(pre-receive hook declined) (the remote says: policy: no releases today)" \
        in refused.value.message, refused.value.message
    assert subprocess.run(["git", "--git-dir", str(pub.art), "for-each-ref"],
                          capture_output=True, text=True, check=True).stdout == ""


@pytest.fixture
def https_art(tmp_path: Path) -> Iterator[tuple[Pub, str, Path]]:
    """A published artifacts repository served over https (dumb HTTP) with a self-signed
    certificate nobody was told to trust: (publisher, URL, the certificate's PEM)."""
    pub = Pub(tmp_path)
    pub.release()
    subprocess.run(["git", "--git-dir", str(pub.art), "update-server-info"], check=True)
    where = tmp_path / "tls"
    where.mkdir()
    pem, key = certificate(where, dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pem, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(tmp_path)))
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield pub, f"https://127.0.0.1:{server.server_address[1]}/{pub.art.name}", pem
    finally:
        server.shutdown()
        server.server_close()


def users_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """HOME in `tmp_path` with a ~/.gitconfig of `text`."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text(text, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_SSL_CAINFO"):  # over .gitconfig
        monkeypatch.delenv(name, raising=False)


def test_a_users_git_settings_cannot_turn_tls_checks_off(
        https_art: tuple[Pub, str, Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``http.sslVerify=false`` in ~/.gitconfig (for every URL, and for the source's host,
    which outranks ``-c http.sslVerify``) and $GIT_SSL_NO_VERIFY made `kb sync` take an
    https source whose certificate nobody vouches for: a device with no pinned key served
    whatever answered there. TLS is checked whatever they say; the user's own CA
    (``http.sslCAInfo``) still counts."""
    _, url, pem = https_art
    host = url.rsplit("/", 1)[0] + "/"
    settings = f"[http]\n\tsslVerify = false\n[http \"{host}\"]\n\tsslVerify = false\n"
    users_settings(tmp_path, monkeypatch, settings)
    monkeypatch.setenv("GIT_SSL_NO_VERIFY", "1")
    plain = subprocess.run(["git", "ls-remote", url], capture_output=True, text=True)
    assert plain.returncode == 0 and "refs/tags/kb-r1" in plain.stdout, plain.stderr  # in force
    dev = tmp_path / "dev"
    with pytest.raises(SyncError) as refused:
        sync(url, dev)
    assert "certificate" in refused.value.message, refused.value.message
    assert device.served_tag(dev) is None
    users_settings(tmp_path, monkeypatch, settings + f"[http]\n\tsslCAInfo = {pem}\n")
    assert sync(url, dev).tag == "kb-r1"


def test_transports_are_kbs_and_routes_the_users(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``protocol.allow=always`` in ~/.gitconfig let a source ``ext::sh -c …`` run a command
    (directly, or through a ``url.*.insteadOf`` rewriting a source to it). The transports
    are kb's (file, git, http(s), ssh); where a fetch goes stays the user's: a mirror named
    by ``url.*.insteadOf`` is fetched from, and still verified."""
    pub = Pub(tmp_path)
    pub.release()
    ran = tmp_path / "ran"
    users_settings(tmp_path, monkeypatch, (
        "[protocol]\n\tallow = always\n[protocol \"ext\"]\n\tallow = always\n"
        f"[url \"ext::sh -c touch% {ran}% #\"]\n\tinsteadOf = https://evil.invalid/\n"
        f"[url \"file://{pub.art}\"]\n\tinsteadOf = https://mirror.invalid/art.git\n"))
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "ext:file:https")  # narrows, never widens
    for source in (f"ext::sh -c touch% {ran}", "https://evil.invalid/art.git"):
        with pytest.raises(SyncError) as refused:
            sync(source, tmp_path / "dev")
        assert "transport 'ext' not allowed" in refused.value.message, refused.value.message
        assert not ran.exists()
    assert sync("https://mirror.invalid/art.git", tmp_path / "dev").tag == "kb-r1"
