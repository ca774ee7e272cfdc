"""A field device whose clock is far wrong: one that boots in 1970 (no battery-backed
clock) or is set past 2038, syncing signed releases, answering questions, rolling back and
serving pages; and an https source refused because the clock makes its certificate look
not yet valid or expired.

Real `kb` processes whose clock is shifted by a small LD_PRELOAD library compiled here
(`clock_gettime`, `gettimeofday` and `time` read the real clock plus an offset; the file
system still stamps files with the kernel's clock, as it would after the device's clock
was set; Debian's libfaketime 0.9.10 was tried first: with any offset into the future,
every `time.sleep` of the process failed with EINVAL, so `kb sync` died waiting for git), a real device synced from signed releases (`device_fixtures`), a real `kb serve`,
and a real https server with certificates whose dates lie outside the real clock's.
Nothing in a release depends on the time (Ed25519 signatures carry no dates, and a release
has no expiry), so a wrong clock changes no answer; it must show, not confuse.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from browserfixtures import serve
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from device_fixtures import EDITED, Device, copy_of, kb, make_device
from test_release_helpers import git

pytestmark = pytest.mark.slow

KB = str(Path(sys.executable).with_name("kb"))
QUESTION = "小麦赤霉病 扬花期 巡查"
ADDED_LINE = "扬花期前三天开始巡查。"

SHIFT_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
static long long shift(void) {
    const char *s = getenv("KB_TEST_CLOCK_SHIFT");
    return s ? atoll(s) : 0;
}
int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(id, ts);
    if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += shift();
    return r;
}
int gettimeofday(struct timeval *tv, void *tz) {
    struct timespec ts;
    int r = clock_gettime(CLOCK_REALTIME, &ts);
    (void)tz;
    if (tv) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
    return r;
}
time_t time(time_t *t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t) *t = ts.tv_sec;
    return ts.tv_sec;
}
"""

CLOCKS = {"1970": dt.datetime(1970, 1, 2, 12, tzinfo=dt.UTC),
          "2038": dt.datetime(2038, 1, 20, 12, tzinfo=dt.UTC)}  # past a 32-bit time_t


@pytest.fixture(scope="module")
def shifter(tmp_path_factory) -> Path:
    """The LD_PRELOAD library that shifts a process's clock (`KB_TEST_CLOCK_SHIFT` seconds)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the clock-shifting library")
    base = tmp_path_factory.mktemp("clock")
    (base / "shift.c").write_text(SHIFT_C)
    lib = base / "shift.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(base / "shift.c"),
                    "-ldl"], check=True, capture_output=True)
    return lib


def clock_env(shifter: Path, when: dt.datetime) -> dict[str, str]:
    shift = int(when.timestamp() - time.time())
    return {"LD_PRELOAD": str(shifter), "KB_TEST_CLOCK_SHIFT": str(shift)}


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Device:
    """A device serving signed kb-r1 (its key pinned on first use); kb-r2 published, which
    adds `ADDED_LINE` to the edited document."""
    d = make_device(tmp_path_factory.mktemp("clockdev"))
    doc = d.kr / EDITED
    text = doc.read_text(encoding="utf-8")
    doc.write_text(text.replace("## 2. 监测时间窗口\n", f"## 2. 监测时间窗口\n\n{ADDED_LINE}\n"),
                   encoding="utf-8")
    git(d.kr, "commit", "-qam", "a second release")
    assert d.publish() == "kb-r2"
    return d


def run(env: dict[str, str], *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KB, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)


def answer(env: dict[str, str], device: Path) -> tuple[str, bool]:
    """The release `kb query --json` answers from, and whether it cites kb-r2's line."""
    proc = run(env, "query", QUESTION, "--index", device, "--json")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    return body["release"]["tag"], ADDED_LINE in proc.stdout


def test_the_clock_is_what_it_says(shifter):
    proc = subprocess.run(["date", "-u", "+%Y"], capture_output=True, text=True,
                          env={**os.environ, **clock_env(shifter, CLOCKS["1970"])})
    assert proc.stdout.strip() == "1970"


@pytest.mark.parametrize("year", sorted(CLOCKS))
def test_a_device_whose_clock_is_far_wrong_syncs_answers_and_rolls_back(
        published, shifter, tmp_path, year):
    d = copy_of(published, tmp_path)
    env = {**clock_env(shifter, CLOCKS[year]), "KB_HOME": str(tmp_path / "home")}
    proc = run(env, "sync", d.art, "--to", d.dev)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("serving kb-r2 (was kb-r1)"), proc.stdout
    assert answer(env, d.dev) == ("kb-r2", True)
    status = run(env, "status", "--to", d.dev)
    # degraded (exit 4): the clock is behind the release, or the release is stale by it
    assert status.returncode == 4 and "files verified" in status.stdout, status.stdout
    served = json.loads(run(env, "status", "--to", d.dev, "--json", "--quick").stdout)["served"]
    if year == "1970":
        # the release was made after the clock's reading: said so, never "-20000 days old"
        assert " -" not in status.stdout.split("\n")[1], status.stdout
        assert "created in the future by this device's clock" in status.stdout
        assert "clock: this device's clock reads 1970-01-02" in status.stdout
        zh = run({**env, "LANG": "zh_CN.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""},
                 "status", "--to", d.dev).stdout  # a Chinese technician's: said in Chinese
        clock = next(line for line in zh.splitlines() if line.startswith("  时钟："))
        assert clock.startswith("  时钟：本设备时钟显示 1970-01-02 ") and "clock" not in clock, zh
        assert served["clock_behind"] and served["age_days"] < 0
        [warning] = [w for w in proc.stderr.splitlines() if w.startswith("kb: warning:")]
        assert "this device's clock reads 1970-01-02" in warning and "is the clock set" in warning
    else:
        assert "STALE" in status.stdout and served["clock_behind"] is None
        assert "days old by this device's clock (2038-01-20" in proc.stderr, proc.stderr
    code = run(env, "rollback", "--to", d.dev)
    assert code.returncode == 0 and "serving kb-r1 (was kb-r2)" in code.stdout, code.stderr
    assert answer(env, d.dev) == ("kb-r1", False)
    again = run(env, "sync", d.art, "--to", d.dev)
    assert again.returncode == 0 and "skipped kb-r2" in again.stdout, again.stdout
    right = {"KB_HOME": env["KB_HOME"]}  # the clock set right again: nothing to redo
    assert answer(right, d.dev) == ("kb-r1", False)
    assert run(right, "rollback", "kb-r2", "--to", d.dev).returncode == 0
    assert answer(right, d.dev) == ("kb-r2", True)
    status = run(right, "status", "--to", d.dev)
    assert status.returncode == 0 and "files verified" in status.stdout
    assert "clock" not in status.stdout.split("\n")[1], status.stdout


def test_a_server_on_a_device_whose_clock_reads_1970_shows_it_and_answers(
        published, shifter, tmp_path, monkeypatch):
    d = copy_of(published, tmp_path)
    for name, value in {**clock_env(shifter, CLOCKS["1970"]),
                        "KB_HOME": str(tmp_path / "home")}.items():
        monkeypatch.setenv(name, value)
    assert kb("sync", d.art, "--to", d.dev)[0] == 0
    server = serve(d.dev)
    url = next(server)
    try:
        for lang, says in (("en", "is the clock set?"), ("zh", "时钟设置对了吗")):
            with urllib.request.urlopen(f"{url}/release?lang={lang}", timeout=60) as resp:
                html = resp.read().decode("utf-8")
            assert 'class="clock-behind"' in html and says in html
        with urllib.request.urlopen(f"{url}/api/releases", timeout=60) as resp:
            assert "is the clock set?" in json.load(resp)["served"]["clock_behind"]
        with urllib.request.urlopen(f"{url}/api/search?q={urllib.request.quote(QUESTION)}",
                                    timeout=60) as resp:
            assert json.load(resp)["release"]["tag"] == "kb-r2"
    finally:
        next(server, None)


def certificate(directory: Path, start: dt.datetime) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 valid for a year from `start`."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(start + dt.timedelta(days=365))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pem, key_pem = directory / "cert.pem", directory / "key.pem"
    pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return pem, key_pem


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def https(published, tmp_path, monkeypatch) -> Iterator[Callable[[dt.datetime], str]]:
    """`https(start)`: the artifacts repository served over https (dumb HTTP) with a
    certificate valid for a year from `start`, which git is told to trust; its URL."""
    git(published.art, "update-server-info")
    servers: list[ThreadingHTTPServer] = []

    def serve_from(start: dt.datetime) -> str:
        where = tmp_path / f"tls{len(servers)}"
        where.mkdir()
        pem, key = certificate(where, start)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(pem, key)
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(
            Quiet, directory=str(published.art.parent)))
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        monkeypatch.setenv("GIT_SSL_CAINFO", str(pem))
        return f"https://127.0.0.1:{server.server_address[1]}/{published.art.name}"

    yield serve_from
    for server in servers:
        server.shutdown()
        server.server_close()


def test_https_syncs_when_the_clock_is_within_the_certificate(published, https, tmp_path):
    url = https(dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
    d = copy_of(published, tmp_path)
    code, out, err = kb("sync", url, "--to", d.dev)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), out + err


@pytest.mark.parametrize("start", [dt.timedelta(days=3650), dt.timedelta(days=-3650)],
                         ids=["clock-behind-certificate", "clock-past-certificate"])
def test_a_certificate_refused_for_its_dates_names_the_clock(published, https, tmp_path,
                                                            start):
    """The device's clock before a certificate's start (a device booted in 1970 meeting any
    real certificate), or after its end (a clock set years ahead): git's TLS library
    refuses it, Debian's without saying why; the line names the clock's reading."""
    url = https(dt.datetime.now(dt.UTC) + start)
    d = copy_of(published, tmp_path)
    code, out, err = kb("sync", url, "--to", d.dev)
    assert code == 1, out + err
    [line] = err.strip().splitlines()
    today = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    assert line.startswith(f"kb: error: {url}: git ls-remote failed: "), line
    assert "certificate" in line and f"this machine's clock reads {today}" in line, line
    assert "set the clock" in line and line.endswith("kb-r1 still serves (unchanged)"), line
    assert dev_tag(d.dev) == "kb-r1"


def test_a_refused_connection_says_nothing_of_the_clock(published, tmp_path):
    d = copy_of(published, tmp_path)
    with ThreadingHTTPServer(("127.0.0.1", 0), Quiet) as probe:
        port = probe.server_address[1]
    code, out, err = kb("sync", f"https://127.0.0.1:{port}/art.git", "--to", d.dev)
    assert code == 1 and "clock" not in err and "connect" in err, err


def dev_tag(device: Path) -> str:
    return os.readlink(device / "current").rsplit("/", 1)[-1]
