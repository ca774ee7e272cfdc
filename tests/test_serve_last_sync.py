"""The release page says the device's last failed sync in the page's language. The Chinese
page gave the sync's error in English (a ``lang="en"`` span): a release signed by a key the
device does not trust, a fetch cut off, a disk with no room, a source out of reach. The
failure's record keeps what failed (the error's key and the values its words name,
`sync_record.FailedSync.of_error`) beside what served once it ended, and the page says both in Chinese
(`sync_record.FailedSync`); the English page, `kb status` and /api/releases keep the English.

A real device (`device_fixtures`: signed releases of the example knowledge, `kb sync`), a
real `git daemon` behind a proxy that cuts the fetch, a real file-size limit, and the app
over the device directory."""

from __future__ import annotations

import hashlib
import html
import json
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from device_fixtures import EDITED, Device, make_device
from forge_helpers import REGULAR, forge_tree
from starlette.testclient import TestClient
from test_release_helpers import GitDaemon, Proxy, git
from test_sync import past_a_malformed_commit

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.app import create_app
from kbtools.ship.devicestate import read_state, record_start
from kbtools.ship.release import make_release
from kbtools.ship.signing import keygen, load_private, sign

pytestmark = pytest.mark.slow

KB = str(Path(sys.executable).with_name("kb"))


def _note(client: TestClient, lang: str) -> tuple[str, str]:
    """The release page's note of the last sync in `lang`: its HTML and its text."""
    page = client.get("/release", params={"lang": lang}).text
    [body] = re.findall(r'<p class="last-sync" role="note">(.*?)</p>', page, re.S)
    return body, html.unescape(re.sub(r"<[^>]+>", "", body))


def _edited(d: Device, line: str) -> None:
    """A new commit of the knowledge, built and not yet released."""
    doc = d.kr / EDITED
    doc.write_text(doc.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    git(d.kr, "commit", "-qam", line)


def _says(d: Device, want: str, *, then: str = "kb-r1 仍在使用，未改变") -> None:
    """The Chinese page says the failure (`want`) and what serves (`then`) in Chinese, no
    English of it; the English page and the API give `kb status`'s English error."""
    code, out = d.kb("status", "--to", str(d.dev), "--json")
    error = json.JSONDecoder().raw_decode(out)[0]["last_sync"]["error"]
    with TestClient(create_app(d.dev), base_url="http://127.0.0.1") as client:
        body, text = _note(client, "zh")
        assert text.startswith("上次同步（") and want in text and then in text, text
        assert 'lang="en"' not in body and error not in text, text
        assert not re.search(r"[A-Za-z]{3,} [A-Za-z]{3,} [A-Za-z]{3,}", text), text  # English
        _, en = _note(client, "en")
        assert en.endswith(error), (en, error)
        assert client.get("/api/releases").json()["last_sync"]["error"] == error


def test_a_release_signed_by_a_key_the_device_does_not_trust(tmp_path):
    d = make_device(tmp_path)
    _edited(d, "Signed by another key.")
    other = tmp_path / "other.key"
    keygen(other)
    cfg = load_config(d.kr)
    build(cfg, BuildOptions(progress=False))
    assert make_release(d.kr, cfg.path("dist"), remote=str(d.art), sign_key=other).tag == "kb-r2"
    code, out = d.kb("sync", str(d.art), "--to", str(d.dev))
    assert code == 1 and "verifies with the trusted keys" in out, out
    _says(d, "不是由本设备信任的密钥签名的")


def test_a_fetch_cut_off(tmp_path):
    d = make_device(tmp_path)
    _edited(d, "A second release, its fetch cut off.")
    assert d.publish() == "kb-r2"
    daemon = GitDaemon(tmp_path)
    proxy = Proxy(daemon.port)
    try:
        proxy.mode, proxy.after = "cut", 2_000  # the listing passes, the fetch is cut
        code, out = d.kb("sync", proxy.url("art.git"), "--to", str(d.dev))
        assert code == 1 and "git fetch failed" in out, out
    finally:
        proxy.close()
        daemon.stop()
    _says(d, "获取发布版本 kb-r2 时连接中断或没有响应")


def _limited(limit: int):
    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def test_a_disk_with_no_room_and_a_source_out_of_reach(tmp_path):
    d = make_device(tmp_path)
    _edited(d, "A second release, too big for the device's file-size limit.")
    assert d.publish() == "kb-r2"
    proc = subprocess.run([KB, "sync", str(d.art), "--to", str(d.dev)], capture_output=True,
                          text=True, preexec_fn=_limited(20_000))
    assert proc.returncode == 1 and "room" in proc.stderr, proc.stderr
    _says(d, "设备空间不足")
    code, out = d.kb("sync", str(tmp_path / "nowhere"), "--to", str(d.dev))
    assert code == 1, out
    _says(d, "无法从来源获取发布版本")


def test_a_sync_killed_before_it_finished(tmp_path):
    """A sync killed (SIGKILL, a power cut) right after it recorded its start: the record
    it left, read against `current`, is said in Chinese too."""
    d = make_device(tmp_path)
    state = read_state(d.dev)
    record_start(d.dev, state, str(d.art), "kb-r1", "2026-12-07T03:00:00+00:00")
    _says(d, "同步在完成前被强行终止")


def _newer_format(e) -> None:
    rel = json.loads(e["release.json"][1])
    rel["release_format"] = 99
    e["release.json"] = (REGULAR, (json.dumps(rel, sort_keys=True, indent=1) + "\n").encode())


def _manifest_altered(e) -> None:
    m = json.loads(e["manifest.json"][1])
    m["counts"] = {"chunks": 1}
    e["manifest.json"] = (REGULAR, (json.dumps(m) + "\n").encode())


@pytest.mark.parametrize(("mutate", "signed", "want"), [
    (_manifest_altered, True, "发布版本 kb-r2 的 manifest.json 与 release.json 或标签记录的哈希不符"),
    (lambda e: e.update({"notes.txt": (REGULAR, b"not listed\n")}), True,
     "发布版本 kb-r2 的文件与 manifest.json 列出的不符（1 处问题）"),
    (lambda e: e.pop("release.sig"), False, "最新的 kb-r2 没有签名"),
    ("forged", False, "最新的 kb-r2 的签名无效：release.json 在签名后被改动过"),
    (_newer_format, True, "发布版本 kb-r2 的格式不是本设备的 kbtools 能读取的"),
], ids=["manifest-hash", "unlisted-file", "unsigned", "bad-signature", "newer-format"])
def test_a_release_refused_says_what_failed_in_chinese(tmp_path, mutate, signed, want):
    """A release the device refuses by its verification or its signature: the Chinese page
    said a hash mismatch as "no release passed the checks or could be installed", an
    unsigned one as one signed by an untrusted key; each error now carries its key."""
    d = make_device(tmp_path)
    key = load_private(d.key)
    if mutate == "forged":  # release.sig by the pinned key, over other bytes
        def mutate(e) -> None:
            e["release.sig"] = (REGULAR, sign(key, e["release.json"][1] + b" "))
    forge_tree(d.art, mutate, key=key if signed else None)
    code, out = d.sync()
    assert code == 1, out
    _says(d, want)


@pytest.mark.parametrize("passed", [False, True], ids=["newest", "below-a-refused-one"])
def test_a_sync_passing_over_refused_releases_says_why_the_newest_was(tmp_path, passed):
    """The newest release altered, one below it unsigned: the sync passes over both, and the
    Chinese page says what failed of the newest (not "signed by an untrusted key")."""
    d = make_device(tmp_path)
    if passed:
        forge_tree(d.art, lambda e: e.pop("release.sig"))
    forge_tree(d.art, _manifest_altered, key=load_private(d.key))
    code, out = d.sync()
    assert code == 1 and "manifest.json does not match" in out, out
    tag = "kb-r3" if passed else "kb-r2"
    _says(d, f"发布版本 {tag} 的 manifest.json 与 release.json 或标签记录的哈希不符")


def _other_model(e) -> None:
    """The release's vectors said to come from another model, its manifest's hash in its
    release.json (which the publisher's key signs): a release that passes its checks."""
    m = json.loads(e["manifest.json"][1])
    for meta in m["models"].values():
        meta["fingerprint"] = "0" * 16
    data = (json.dumps(m) + "\n").encode()
    e["manifest.json"] = (REGULAR, data)
    rel = json.loads(e["release.json"][1])
    rel["manifest_sha256"] = hashlib.sha256(data).hexdigest()
    e["release.json"] = (REGULAR, (json.dumps(rel, sort_keys=True, indent=1) + "\n").encode())


def test_a_release_this_device_cannot_install_says_why_in_chinese(tmp_path):
    """Installing a release (`ship.install`) ended a sync with errors that carried no key: a
    release whose vectors come from another embedding model was said on the Chinese page
    as the generic "同步没有完成". It now says the release and the model."""
    d = make_device(tmp_path)
    forge_tree(d.art, _other_model, key=load_private(d.key))
    code, out = d.sync()
    assert code == 1 and "release vectors come from model" in out, out
    _says(d, "发布版本 kb-r2 的向量来自与本设备不同的嵌入模型")


def test_a_release_carrying_a_malformed_object_says_so_in_chinese(tmp_path):
    """A release whose history holds a commit git's fsck refuses (`ship.fetching`): the
    Chinese page said it in the generic words of a failure without a key ("同步没有完成")."""
    d = make_device(tmp_path)
    tip = git(d.art, "rev-parse", "refs/heads/kb-index").strip()
    past_a_malformed_commit(d.art, "refs/heads/kb-index", tip)
    forge_tree(d.art, lambda e: None, key=load_private(d.key))
    code, out = d.sync()
    assert code == 1 and "malformed" in out, out
    assert "git refuses an object in the release itself as malformed" in out, out
    _says(d, "来源中的发布版本 kb-r2 本身含有 Git 判定为格式错误的对象")
