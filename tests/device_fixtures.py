"""A real device for operator tests (no tests here): example knowledge built with the
`test-hash` embedder, released as signed tags into a bare artifacts repo, synced into a
device directory with the signing key trusted on first use.

`make_device` publishes kb-r1 and syncs it; `second_release` then edits a verified
document after its review (a section loses verification), removes a document and adds
one, publishes kb-r2 and returns the `kb sync` output that switched to it.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner
from kbfixtures import copy_example
from servefixtures import en_doc
from test_release_helpers import git

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.ship.release import make_release
from kbtools.ship.signing import keygen

DOCS = ["knowledge/crops/wheat-scab.md", "knowledge/crops/sprayer-calibration.md",
        "knowledge/crops/pesticide-dilution-and-phi.md",
        "knowledge/crops/pesticide-operator-safety.md", "knowledge/crops/field-survey-methods.md"]
EDITED = "knowledge/crops/wheat-scab.md"
EDITED_SECTION = ("小麦赤霉病监测与防控操作规程", "2. 监测时间窗口")
REMOVED = "knowledge/crops/sprayer-calibration.md"
ADDED = "knowledge/engineering/pump-seals.md"
NEW_DOC = en_doc("Pump seals", "# Pump seals\n\nReplace the mechanical seal of the irrigation pump "
                 "every 2000 operating hours.\n")


@dataclass
class Device:
    kr: Path
    art: Path
    dev: Path
    key: Path

    def publish(self) -> str:
        cfg = load_config(self.kr)
        build(cfg, BuildOptions(progress=False))
        return make_release(self.kr, cfg.path("dist"), remote=str(self.art),
                            sign_key=self.key).tag

    def kb(self, *args: str) -> tuple[int, str]:
        res = CliRunner().invoke(main, [*args])
        return res.exit_code, res.output

    def sync(self) -> tuple[int, str]:
        return self.kb("sync", str(self.art), "--to", str(self.dev),
                       "--trusted-key", str(self.key) + ".pub")


def make_device(base: Path) -> Device:
    kr = copy_example(base / "kr", DOCS)
    toml = (kr / "kb.toml").read_text(encoding="utf-8").replace(
        'model = "use"', 'model = "test-hash"\nlanguages = { en = "test-hash" }')
    (kr / "kb.toml").write_text(toml, encoding="utf-8")
    git(kr, "commit", "-qam", "config: test-hash embedder")
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    key = base / "release.key"
    keygen(key)
    d = Device(kr, art, base / "device", key)
    assert d.publish() == "kb-r1"
    code, out = d.sync()
    assert code == 0, out
    return d


def second_release(d: Device) -> str:
    doc = d.kr / EDITED
    text = doc.read_text(encoding="utf-8")
    assert "## 2. 监测时间窗口" in text
    doc.write_text(text.replace("## 2. 监测时间窗口\n", "## 2. 监测时间窗口\n\n扬花期前三天开始巡查。\n"),
                   encoding="utf-8")
    (d.kr / REMOVED).unlink()
    (d.kr / ADDED).parent.mkdir(parents=True, exist_ok=True)
    (d.kr / ADDED).write_text(NEW_DOC, encoding="utf-8")
    git(d.kr, "add", "-A")
    git(d.kr, "commit", "-qm", "edit after review, remove, add")
    assert d.publish() == "kb-r2"
    code, out = d.sync()
    assert code == 0, out
    return out


def copy_of(d: Device, tmp_path: Path) -> Device:
    """A copy of `d` whose device directory (tmp_path/device) a test may change."""
    target = tmp_path / "device"
    shutil.copytree(d.dev, target, symlinks=True)
    return Device(d.kr, d.art, target, d.key)


def kb(*args: object) -> tuple[int, str, str]:
    """`kb ARGS` in this process: (exit code, stdout, stderr)."""
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


def can_mount_read_only(tmp_path: Path) -> bool:
    """Can this process bind-mount a directory read-only in a user namespace (`unshare`)?
    A real read-only device directory; runners that forbid it skip the tests needing one."""
    probe = tmp_path / "probe"
    probe.mkdir()
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount --bind {probe} {probe} && "
                           f"mount -o remount,bind,ro {probe} && ! touch {probe}/x"],
                          capture_output=True)
    return proc.returncode == 0
