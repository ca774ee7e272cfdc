"""A sync source whose URL carries credentials (`https://user:token@host/art.git`, a token as
the user name): the device syncs with them, and `kb sync --to DIR` without SOURCE (a cron
job) uses them again, but no line kb prints (`kb sync` and its errors, `kb status`, `kb
releases`, their `--json`) and nothing `kb serve` answers names them.

A real dumb-HTTP server on loopback that refuses a request without the right Basic
authorization (so the credentials are really used), real signed releases (`Pub`).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from device_fixtures import kb
from test_release_helpers import Pub, git, make_dist, sample_files

from kbtools.errors import ReleaseError
from kbtools.ship import device as dev
from kbtools.ship.release import make_release
from kbtools.ship.signing import keygen
from kbtools.ship.sourceurl import scrub, shown_source
from tests.ports import refusing_port

pytestmark = pytest.mark.slow

USER, TOKEN = "fieldkit", "s3cr3t-t0ken"
SECRETS = (TOKEN, f"{USER}:")


class AuthHandler(SimpleHTTPRequestHandler):
    """Serves files under `directory` only to a request with USER:TOKEN as Basic auth."""

    expected = "Basic " + base64.b64encode(f"{USER}:{TOKEN}".encode()).decode()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.headers.get("Authorization") != self.expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="art"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[Pub, str]]:
    """kb-r1 published and offered over authenticated dumb HTTP; yields (pub, url with the
    credentials in it)."""
    key = tmp_path / "release.key"
    keygen(key)
    pub = Pub(tmp_path, sign_key=key)
    pub.release()
    git(pub.art, "update-server-info")
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 partial(AuthHandler, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield pub, f"http://{USER}:{TOKEN}@127.0.0.1:{server.server_address[1]}/art.git"
    finally:
        server.shutdown()
        server.server_close()


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, text


def test_a_source_with_credentials_is_used_but_never_echoed(served, tmp_path):
    pub, url = served
    device = tmp_path / "device"
    key = str(pub.sign_key) + ".pub"
    code, out, err = kb("sync", url, "--to", device, "--trusted-key", key)
    assert code == 0 and out.startswith("serving kb-r1 (was nothing)"), err
    assert_no_secret(out, err)
    code, out, err = kb("sync", url, "--to", device, "--json")
    assert code == 0 and json.loads(out)["source"] == shown_source(url)
    assert_no_secret(out, err)
    pub.release()
    git(pub.art, "update-server-info")
    code, out, err = kb("sync", "--to", device)  # the last source, credentials and all
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err
    assert_no_secret(out, err)
    for args in (["status"], ["status", "--json"], ["releases"], ["releases", "--json"]):
        code, out, err = kb(*args, "--to", device)
        assert code == 0, err
        assert_no_secret(out, err)
    assert "kb-r2" in kb("releases", "--to", device)[1]


def test_an_unreachable_or_refusing_source_with_credentials_is_named_without_them(
        served, tmp_path):
    pub, url = served
    device = tmp_path / "device"
    assert kb("sync", url, "--to", device, "--trusted-key", str(pub.sign_key) + ".pub")[0] == 0
    with refusing_port() as port:  # nothing listens there
        for bad in (f"https://{USER}:{TOKEN}@127.0.0.1:{port}/art.git",
                    f"http://{TOKEN}@127.0.0.1:{port}/art.git",  # a token as the user name
                    url.replace("/art.git", "/missing.git"),  # found, but no repository
                    url.replace(TOKEN, TOKEN + "-wrong")):  # refused
            code, out, err = kb("sync", bad, "--to", device)
            shown = shown_source(bad)
            assert code == 1 and err.startswith(f"kb: error: {shown}: ") and \
                err.endswith("kb-r1 still serves (unchanged)\n") and err.count("\n") == 1, err
            assert_no_secret(out, err, shown)
            code, out, err = kb("status", "--to", device)
            assert "last sync" in out and "FAILED" in out
            assert_no_secret(out, err)
            assert_no_secret(kb("status", "--json", "--to", device)[1])
            assert dev.served_tag(device) == "kb-r1"
    # state.json keeps the last good source to sync from again; `kb releases` asks the
    # one the failed sync named, and says it cannot without naming the credentials
    code, out, err = kb("releases", "--to", device)
    assert code == 0 and "kb-r1" in out
    assert_no_secret(out, err)


@pytest.mark.parametrize(("url", "shown"), [
    ("https://u:p@host/a.git", "https://***@host/a.git"),
    ("https://tok@host:8443/a.git", "https://***@host:8443/a.git"),
    ("http://用户:密码@例子.中国/知识.git", "http://***@例子.中国/知识.git"),
    ("git://host/a.git", "git://host/a.git"),
    ("ssh://git@host/a.git", "ssh://git@host/a.git"),  # a user name, no secret
    ("ssh://git:pw@host/a.git", "ssh://***@host/a.git"),
    ("git@host:a.git", "git@host:a.git"),
    ("/srv/art.git", "/srv/art.git"),
    ("/srv/user:pw@x/art.git", "/srv/user:pw@x/art.git"),  # a path, not a URL
    ("file:///srv/a.git", "file:///srv/a.git"),
])
def test_shown_source(url: str, shown: str) -> None:
    assert shown_source(url) == shown


def test_a_message_naming_the_source_is_scrubbed_wherever_it_says_it() -> None:
    text = ("git ls-remote failed: fatal: unable to access 'https://a:b@h/x.git/': refused; "
            "then HTTPS://tok@h2/y.git and ssh://git@h3/z.git")
    assert scrub(text) == ("git ls-remote failed: fatal: unable to access 'https://***@h/x.git/"
                           "': refused; then HTTPS://***@h2/y.git and ssh://git@h3/z.git")
    assert scrub(Path("/srv/a:b@c").as_posix()) == "/srv/a:b@c"


def test_a_release_remote_with_credentials_is_named_without_them(served, tmp_path):
    """`kb release` in CI pushing to KB_ARTIFACTS_REMOTE with a token in its URL: the
    authenticated dumb-HTTP remote lists and fetches, then refuses the push (dumb HTTP takes
    none); an unreachable one fails at once. The error names the remote, not the token."""
    pub, url = served
    dist = make_dist(tmp_path / "dist2", sample_files(7), commit="src7")
    with refusing_port() as port:  # nothing listens there
        for remote in (url, f"https://{TOKEN}@127.0.0.1:{port}/art.git"):
            with pytest.raises(ReleaseError) as caught:
                make_release(pub.kr, dist, remote=remote, sign_key=pub.sign_key)
            assert str(caught.value).startswith(f"{shown_source(remote)}: git "), caught.value
            assert_no_secret(str(caught.value))


def test_a_last_sync_recorded_with_credentials_by_an_older_kb_is_shown_without(served,
                                                                               tmp_path):
    pub, url = served
    device = tmp_path / "device"
    assert kb("sync", url, "--to", device, "--trusted-key", str(pub.sign_key) + ".pub")[0] == 0
    state = json.loads((device / "state.json").read_text(encoding="utf-8"))
    state["last_sync"] = {"ok": False, "source": url, "at": "2026-01-01T00:00:00+00:00",
                          "error": f"{url}: git ls-remote failed: …", "warnings": [url]}
    (device / "state.json").write_text(json.dumps(state), encoding="utf-8")
    for args in (["status"], ["status", "--json"]):
        code, out, err = kb(*args, "--to", device, "--quick")
        assert code == 4 and shown_source(url) in out, out  # last sync failed
        assert_no_secret(out, err)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_state_json_keeping_the_credentials_is_readable_by_its_owner_only(
        served, tmp_path, monkeypatch, umask):
    """state.json keeps the source as given, token and all (what `kb sync` without SOURCE
    runs with): it is written 0600 from its first byte, whatever the umask (a service's may
    be 0), stays so when rewritten, and one an older kb left world-readable is tightened by
    the next write; as git's credential store keeps ~/.git-credentials."""
    pub, url = served
    device = tmp_path / "device"
    state = device / "state.json"
    created: list[int] = []
    real_replace = os.replace

    def replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        if dst == "state.json":  # the temp file, as it is about to become state.json
            created.append(stat.S_IMODE(os.stat(src, dir_fd=src_dir_fd).st_mode))
        return real_replace(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    monkeypatch.setattr(os, "replace", replace)
    old = os.umask(umask)
    try:
        code, _, err = kb("sync", url, "--to", device, "--trusted-key",
                          str(pub.sign_key) + ".pub")
        assert code == 0, err
        assert json.loads(state.read_text(encoding="utf-8"))["source"] == url
        assert _mode(state) == 0o600 and created and set(created) == {0o600}, created
        state.chmod(0o644)  # as kb wrote it before
        pub.release()
        git(pub.art, "update-server-info")
        code, out, err = kb("sync", "--to", device)  # the token read back from it
        assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err
        assert _mode(state) == 0o600
        code, _, err = kb("rollback", "--to", device)  # other writers of it too
        assert code == 0, err
        assert _mode(state) == 0o600 and set(created) == {0o600}, created
    finally:
        os.umask(old)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root to run kb as another account")
def test_another_account_reading_the_device_is_told_whose_state_it_is(served, tmp_path):
    """`kb status` run by an account that only reads the device (a service user running
    `kb serve`) cannot read state.json any more: it says whose file it is and why, never
    "remove it" (which would forget the rollbacks and the highest serial accepted)."""
    pub, url = served
    shared = Path(tempfile.mkdtemp(prefix="kb-shared-"))  # outside root's 0700 pytest dir
    try:
        shared.chmod(0o755)
        device = shared / "device"
        code, _, err = kb("sync", url, "--to", device, "--trusted-key",
                          str(pub.sign_key) + ".pub")
        assert code == 0, err
        home = shared / "home"
        home.mkdir()
        shutil.chown(home, "nobody")
        proc = subprocess.run(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
             sys.executable, "-m", "kbtools", "status", "--to", str(device), "--quick"],
            capture_output=True, text=True, cwd=home, timeout=120,
            env={"PATH": os.environ["PATH"], "KB_HOME": str(home), "HOME": str(home),
                 "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
        said = proc.stdout + proc.stderr
        assert "state.json cannot be read (Permission denied): only the account that syncs " \
            "this device may read it" in said, said
        assert "remove it" not in said and "serving kb-r1" in said, said
        assert_no_secret(said)
    finally:
        shutil.rmtree(shared)
