"""A device's trusted keys choosing among a source's releases: newer releases no pinned key
vouches for passed over for the newest one that is, a new device taking the newest release
its key signs, and status telling a signature no key checked (split from test_trust.py;
its fixtures and helpers)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from test_trust import Keys, Pub, kb, keys, pinned, pub, refused

from kbtools.cli import main
from kbtools.ship import device

__all__ = ["keys", "pub"]  # fixtures this module's tests use


def test_newer_releases_no_trusted_key_vouches_for_are_passed_over_for_one_that_is(
        keys: Keys, pub: Pub, tmp_path: Path):
    """CI publishes kb-r2 signed, then kb-r3 unsigned (a misconfigured job) and kb-r4 signed
    by a key nobody pinned: a device serving kb-r1 takes kb-r2, the newest release its
    pinned key signs, and says why kb-r3 and kb-r4 were refused (by `kb sync` and again by
    `kb status`, text and --json alike); a sync once kb-r2 serves refuses in one line."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a)
    pub.release(None)
    pub.release(keys.evil)
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0 and device.served_tag(dev) == "kb-r2", out
    said = [line.removeprefix("kb: warning: ") for line in out.splitlines()
            if line.startswith("kb: warning: ")]
    assert said == [
        f"kb-r4 refused: release signed by untrusted key {keys.evil_id} (pinned: "
        f"{keys.a_id}; no release since kb-r1 hands trust over to it: if the publisher "
        "replaced its key, confirm the new key's id with them and pin it with `kb trust add "
        "PUB`); kb-r2, the newest release that verifies with the trusted keys, is taken "
        "instead",
        "kb-r3 refused: release is not signed, but this device requires a signature by a "
        "trusted key (`kb trust list`); kb-r2, the newest release that verifies with the "
        "trusted keys, is taken instead"], out
    code, text = kb("status", "--to", dev, "--quick")
    last = json.loads(kb("status", "--to", dev, "--quick", "--json")[1])["last_sync"]
    assert (last["ok"], last["tag"], last["changed"], last["warnings"]) == (
        True, "kb-r2", True, said)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("last sync "))
    assert lines[at] == f"last sync {last['at']} from {pub.art}: ok, switched to kb-r2"
    assert lines[at + 1:] == [f"  warning: {w}" for w in said], text
    zh = CliRunner().invoke(main, ["status", "--to", str(dev), "--quick"], env={
        "LANG": "zh_CN.UTF-8", "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None}).stdout
    instead = "；改用 kb-r2，即用受信任密钥校验通过的最新发布版本"
    assert [line for line in zh.splitlines() if line.startswith("  警告：")] == [
        f"  警告：kb-r4 被拒绝：发布版本由本设备未固定的密钥 {keys.evil_id} 签名{instead}",
        "  警告：kb-r3 被拒绝：发布版本没有签名，而本设备要求由受信任的密钥签名（`kb trust list`）"
        f"{instead}"], zh  # the why inside each said in Chinese too
    assert pinned(dev) == [keys.a_id]
    refused(dev, pub.art, f"kb-r4: release signed by untrusted key {keys.evil_id}")
    code, out = kb("sync", pub.art, "--to", dev)
    assert out.endswith("(kb-r3 below it refused too); no release newer than kb-r2 verifies "
                        "with the trusted keys, kb-r2 still serves\n"), out
    code, text = kb("status", "--to", dev, "--quick")
    assert f"from {pub.art}: FAILED: kb-r4: release signed" in text, text


def test_a_new_device_takes_the_newest_release_its_key_signs(keys: Keys, pub: Pub,
                                                            tmp_path: Path):
    """A technician sets up a tablet with the publisher's key while the newest tag at the
    source is signed by another key: the tablet serves the newest release the key signs,
    pins that key only, and says why the newer one was refused; with no release the key
    signs at all, nothing is served and the one line says so."""
    pub.release(keys.a)
    pub.release(keys.evil)
    dev = tmp_path / "dev"
    code, out = kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)
    assert code == 0 and device.served_tag(dev) == "kb-r1", out
    assert f"kb: warning: kb-r2 refused: release signed by untrusted key {keys.evil_id}; " \
           "kb-r1, the newest release that verifies with the trusted keys" in out
    assert pinned(dev) == [keys.a_id]
    other = tmp_path / "other"
    code, out = kb("sync", pub.art, "--to", other, "--trusted-key", keys.b_pub)
    assert code == 1 and device.served_tag(other) is None, out
    assert out == (f"kb: error: kb-r2: release signed by untrusted key {keys.evil_id} (kb-r1 "
                   "below it refused too); no release at the source verifies with the trusted "
                   "keys, no release is served yet\n")


def test_status_tells_a_signature_no_key_checked_from_none(keys: Keys, pub: Pub,
                                                           tmp_path: Path):
    """A device synced with no key given serves a signed release whose signature nothing
    checked: `kb status` said "unsigned", as of a release that carries none."""
    pub.release(keys.a)
    dev = tmp_path / "dev"
    assert kb("sync", pub.art, "--to", dev)[0] == 0
    code, out = kb("status", "--to", dev, "--quick")
    assert code == 0 and "; signature not checked (no key pinned)\n" in out, out
    served = json.loads(kb("status", "--to", dev, "--quick", "--json")[1])["served"]
    assert (served["signed_by"], served["has_signature"]) == (None, True)
    pub.release(None)
    assert kb("sync", pub.art, "--to", dev)[0] == 0
    code, out = kb("status", "--to", dev, "--quick")
    assert code == 0 and "; unsigned\n" in out, out
    served = json.loads(kb("status", "--to", dev, "--quick", "--json")[1])["served"]
    assert (served["tag"], served["signed_by"], served["has_signature"]) == (
        "kb-r2", None, False)


def test_a_refused_release_after_a_rollback_names_the_one_rolled_back_from(
        keys: Keys, pub: Pub, tmp_path: Path):
    """kb-r2 rolled back from on purpose, then kb-r3 signed by a key nobody pinned: the sync
    refuses in one line that names kb-r2 as skipped, not as if no release newer than kb-r1
    verified; `kb rollback kb-r2` then serves it."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev)[0] == 0 and device.served_tag(dev) == "kb-r2"
    assert kb("rollback", "--to", dev)[0] == 0 and device.served_tag(dev) == "kb-r1"
    pub.release(keys.evil)
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 1 and device.served_tag(dev) == "kb-r1", out
    assert out.startswith(f"kb: error: kb-r3: release signed by untrusted key {keys.evil_id}")
    assert out.endswith("; no release newer than kb-r1 verifies with the trusted keys but "
                        "kb-r2, rolled back from on purpose (`kb rollback kb-r2` serves it "
                        "again), kb-r1 still serves\n"), out
    code, out = kb("rollback", "kb-r2", "--to", dev)
    assert code == 0 and device.served_tag(dev) == "kb-r2", out


def _refused_rows(dev: Path) -> dict[str, str | None]:
    return {r["tag"]: r["refused"] for r in json.loads(kb("releases", "--to", dev, "--json")[1])}


def test_releases_says_why_a_newer_release_at_the_source_is_not_taken(keys: Keys, pub: Pub,
                                                                      tmp_path: Path):
    """A newer release the sync refused (signed by a key nobody pinned, or unsigned) was
    listed by `kb releases` as "remote" with no note, as if the next sync would take it; it
    says why it is not taken, as `kb status` does, text and --json alike, after a sync that
    took an older one and after one that took none (session 41). A sync that takes the
    newest release says nothing of it any more."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a)
    pub.release(None)
    pub.release(keys.evil)
    untrusted = f"release signed by untrusted key {keys.evil_id}"
    for code in (0, 1):  # kb-r2 taken over them; then nothing newer the key signs
        assert kb("sync", pub.art, "--to", dev)[0] == code
        assert device.served_tag(dev) == "kb-r2"
        rows = _refused_rows(dev)
        assert [t for t, why in rows.items() if why] == ["kb-r4", "kb-r3"]
        assert str(rows["kb-r4"]).startswith(untrusted)
        assert str(rows["kb-r3"]).startswith("release is not signed, but this device "
                                             "requires a signature by a trusted key")
    code, text = kb("releases", "--to", dev)
    assert code == 0, text
    r4 = next(line for line in text.splitlines() if "kb-r4" in line)
    assert "remote" in r4 and f"not taken: the last sync refused it ({untrusted}" in r4, text
    assert kb("trust", "add", keys.evil_pub, "--to", dev)[0] == 0
    assert kb("sync", pub.art, "--to", dev)[0] == 0 and device.served_tag(dev) == "kb-r4"
    assert not any(_refused_rows(dev).values())


def test_a_release_past_the_fetch_limit_under_a_refused_one_is_not_called_refused(
        keys: Keys, pub: Pub, tmp_path: Path):
    """kb-r4 is signed by a key nobody pinned; kb-r3 below it, the one a sync would take in
    its place, is past this device's fetch limit (its tag carries megabytes at the source).
    The sync stopped naming kb-r3's fetch alone, not why kb-r4 was passed over, and `kb
    releases` had nothing to say of kb-r3. A limit of the device is no verdict on the
    release: the line names both, kb-r4 is noted refused and kb-r3 not fetched, and the
    limit raised, the same source syncs past it."""
    import os
    import subprocess

    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    for key in (keys.a, keys.a, keys.evil):
        pub.release(key)
    art = ["git", "-C", str(pub.art)]
    body = subprocess.run([*art, "cat-file", "tag", "kb-r3"], capture_output=True,
                          check=True).stdout.split(b"\n\n", 1)[1]
    subprocess.run([*art, "-c", "user.name=ci", "-c", "user.email=ci@example.org", "tag", "-f",
                    "-a", "kb-r3", "kb-r3^{commit}", "-F", "-"], check=True,
                   input=body + b"\n" + os.urandom(3 << 20).hex().encode() + b"\n")
    code, out = kb("sync", pub.art, "--to", dev, "--max-fetch-bytes", 1 << 20)
    untrusted = f"release signed by untrusted key {keys.evil_id}"
    [line] = out.splitlines()
    assert code == 1 and "kb-r3: the fetch stored " in line, out
    assert f"(taken in place of kb-r4, refused: {untrusted}" in line, out
    assert device.served_tag(dev) == "kb-r1"
    rows = {r["tag"]: r for r in json.loads(kb("releases", "--to", dev, "--json")[1])}
    assert rows["kb-r4"]["refused"].startswith(untrusted) and not rows["kb-r4"]["not_fetched"]
    assert rows["kb-r3"]["refused"] is None, rows["kb-r3"]
    assert rows["kb-r3"]["not_fetched"].startswith("kb-r3: the fetch stored "), rows["kb-r3"]
    r3 = next(x for x in kb("releases", "--to", dev)[1].splitlines() if " kb-r3 " in x)
    assert "not taken: the last sync did not fetch it (kb-r3: the fetch stored" in r3, r3
    assert kb("sync", pub.art, "--to", dev)[0] == 0  # the default limit: no longer noted
    assert not any(r["not_fetched"] for r in json.loads(kb("releases", "--to", dev,
                                                           "--json")[1])), dev
