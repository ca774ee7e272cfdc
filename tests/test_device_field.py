"""A field device on a patchy link: `kb releases` against a source that never answers,
`kb status` of a device whose served release is gone, release tags that are not canonical,
syncs killed at each stage.

Real devices synced from real artifacts repositories (`device_fixtures`), real listeners on
loopback, real `kb` processes killed with SIGKILL.
"""

from __future__ import annotations

import json
import shutil
import socket
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from device_fixtures import Device, make_device

from kbtools.cli import main
from kbtools.ship import gitrun, operate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> Device:
    return make_device(tmp_path_factory.mktemp("field"))


def copy_of(d: Device, tmp_path: Path) -> Device:
    target = tmp_path / "device"
    shutil.copytree(d.dev, target, symlinks=True)
    return Device(d.kr, d.art, target, d.key)


def kb(*args: object) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


def set_source(device_dir: Path, source: str) -> None:
    state_file = device_dir / "state.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    state["source"] = source
    state_file.write_text(json.dumps(state), encoding="utf-8")


# ------------------------------------------------------- 1: `kb releases`, a silent source


@pytest.mark.parametrize("scheme", ["git", "http"])
def test_releases_gives_up_on_a_silent_source_within_its_timeout(device, tmp_path, scheme):
    """A source that accepts the connection and never answers held `kb releases` for
    `kb sync`'s listing limit (4 minutes); it waits --timeout seconds, lists the device's
    releases and says in one line which source did not answer and what to run instead."""
    d = copy_of(device, tmp_path)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # the kernel accepts connections; nothing ever answers
        url = f"{scheme}://127.0.0.1:{listener.getsockname()[1]}/art.git"
        set_source(d.dev, url)
        t0 = time.monotonic()
        code, out, err = kb("releases", "--to", d.dev, "--timeout", 2)
        took = time.monotonic() - t0
    assert took < 15, took
    assert code == 0 and "kb-r1" in out and "local" in out, out + err
    [line] = err.splitlines()
    assert line.startswith(f"kb: warning: remote releases not listed: {url}: git ls-remote "
                           "failed: no answer within 2 s"), line
    assert "`kb releases --local`" in line and "--timeout" in line, line


def test_releases_waits_less_for_its_source_than_sync_does():
    assert operate.RELEASES_TIMEOUT < (gitrun.NETWORK_TIMEOUT["ls-remote"] or 0)
    code, out, _ = kb("releases", "--help")
    assert code == 0 and f"[default: {operate.RELEASES_TIMEOUT};" in " ".join(out.split())


def test_releases_timeout_must_be_positive(device, tmp_path):
    code, _, err = kb("releases", "--to", device.dev, "--timeout", 0)
    assert code == 2 and "--timeout" in err


# ------------------------------------------------ 2: `kb status`, the served release gone


def test_status_of_a_device_whose_served_release_was_deleted(device, tmp_path):
    """`current` naming a release directory that was deleted read as "serving nothing yet"
    (exit 0): the device answers no question, and status says why and what to run."""
    d = copy_of(device, tmp_path)
    shutil.rmtree(d.dev / "releases" / "kb-r1")
    for args in (["status", "--to", d.dev], ["status", "--to", d.dev, "--quick", "--json"]):
        code, out, err = kb(*args)
        assert code == 1, out + err
        assert err == (f"kb: error: {d.dev}: serves nothing: `current` names releases/kb-r1, "
                       "which is missing (deleted?); `kb sync` installs the newest release "
                       "from the source again\n"), err
        assert "serving nothing yet" not in out
    assert json.loads(out)["current_problem"].startswith("serves nothing: `current` names")
    code, out, err = kb("sync", "--to", d.dev)  # what it says to run
    assert code == 0 and out.startswith("serving kb-r1 (was nothing)"), out + err
    assert kb("status", "--to", d.dev)[0] == 0


def test_status_names_the_releases_a_rollback_can_serve(device, tmp_path):
    d = copy_of(device, tmp_path)
    shutil.copytree(d.dev / "releases" / "kb-r1", d.dev / "releases" / "kb-r2", symlinks=True)
    (d.dev / "current").unlink()
    (d.dev / "current").symlink_to("releases/kb-r2")
    shutil.rmtree(d.dev / "releases" / "kb-r2")
    code, _, err = kb("status", "--to", d.dev, "--quick")
    assert code == 1 and f"`kb rollback --to {d.dev}` serves the newest one here (kb-r1; " \
        "local: kb-r1)" in err, err
    (d.dev / "releases" / "kb-r2").mkdir()  # there, but no release
    code, _, err = kb("status", "--to", d.dev, "--quick")
    assert code == 1 and "`current` names releases/kb-r2, which is not a release (no " \
        "manifest.json)" in err, err
    (d.dev / "current").unlink()
    (d.dev / "current").symlink_to("/etc")
    code, _, err = kb("status", "--to", d.dev, "--quick")
    assert code == 1 and "`current` names '/etc', not a release of this device" in err, err
    (d.dev / "current").unlink()  # never switched yet: nothing wrong
    code, out, err = kb("status", "--to", d.dev, "--quick")
    assert code == 0 and "serving nothing yet" in out, out + err
