"""Trusted keys stay trusted: pinned on first use, unsigned or differently signed releases
refused afterwards whatever the command line says, explicit rotation (a trusted key hands its
trust over to cosigning next keys), and `kb trust list|add|remove`."""

from __future__ import annotations

import base64
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from forge_helpers import forge_tree
from test_release_helpers import make_dist, make_knowledge_repo, sample_files

from kbtools.cli import main
from kbtools.ship import device, trust
from kbtools.ship.release import make_release
from kbtools.ship.signing import key_id, keygen, load_private


def public_record(public) -> dict[str, str]:
    """How release.json names a key it introduces (written out here, not imported)."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {"key_id": key_id(public), "public_key": base64.b64encode(raw).decode()}


class Keys:
    def __init__(self, tmp: Path):
        self.a, self.a_pub, self.a_id = keygen(tmp / "keys" / "a")
        self.b, self.b_pub, self.b_id = keygen(tmp / "keys" / "b")
        self.evil, self.evil_pub, self.evil_id = keygen(tmp / "keys" / "evil")


class Pub:
    def __init__(self, tmp: Path):
        self.kr = make_knowledge_repo(tmp / "kr")
        self.art = tmp / "art.git"
        subprocess.run(["git", "init", "-q", "--bare", str(self.art)], check=True)
        self.tmp, self.n = tmp, 0

    def release(self, sign_key: Path | None, next_keys: tuple[Path, ...] = ()) -> str:
        self.n += 1
        dist = make_dist(self.tmp / "dist", sample_files(self.n), commit=f"src{self.n}")
        extra = {"next_keys": next_keys} if next_keys else {}
        return make_release(self.kr, dist, remote=str(self.art), sign_key=sign_key,
                            **extra).tag


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    return Keys(tmp_path)


@pytest.fixture
def pub(tmp_path: Path) -> Pub:
    return Pub(tmp_path)


def kb(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


def pinned(dev: Path) -> list[str]:
    folder = dev / "trusted_keys"
    return sorted(p.stem for p in folder.glob("*.pub")) if folder.is_dir() else []


def refused(dev: Path, src: Path, fragment: str, *extra: str) -> None:
    before = device.served_tag(dev)
    code, out = kb("sync", src, "--to", dev, *extra)
    errors = [line for line in out.splitlines() if line.startswith("kb: error: ")]
    assert code == 1 and len(errors) == 1 and fragment in errors[0], out
    assert device.served_tag(dev) == before


def test_key_pinned_on_first_use_then_required(keys: Keys, pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    pub.release(keys.a)
    code, out = kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)
    assert code == 0, out
    assert f"pinned key {keys.a_id} (first use, release kb-r1)" in out
    assert pinned(dev) == [keys.a_id]
    assert (dev / "trusted_keys" / f"{keys.a_id}.pub").read_bytes() == keys.a_pub.read_bytes()
    log = [json.loads(x) for x in (dev / "trust.log").read_text().splitlines()]
    assert [(e["action"], e["key_id"]) for e in log] == [("pin", keys.a_id)]
    # an unsigned release, without the flag: refused
    pub.release(None)
    refused(dev, pub.art, "release is not signed")
    # a release signed by another key: refused, and naming that key on the command line
    # does not widen trust once keys are pinned
    forge_tree(pub.art, lambda e: None, key=load_private(keys.evil))
    refused(dev, pub.art, f"untrusted key {keys.evil_id}")
    code, out = kb("sync", pub.art, "--to", dev, "--trusted-key", keys.evil_pub)
    assert code == 1 and f"key {keys.evil_id}" in out and "not pinned on this device" in out
    assert pinned(dev) == [keys.a_id] and device.served_tag(dev) == "kb-r1"
    # the genuine key still works, and pins nothing new
    forge_tree(pub.art, lambda e: None, key=load_private(keys.a))
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0 and "serving kb-r4" in out and "pinned" not in out, out


def test_first_use_pin_when_already_up_to_date(keys: Keys, pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev)[0] == 0  # no key given: nothing pinned
    assert pinned(dev) == []
    code, out = kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)
    assert code == 0 and "up to date" in out and f"pinned key {keys.a_id}" in out, out
    pub.release(None)
    refused(dev, pub.art, "release is not signed")
    # a key that did not sign the served release is not pinned by an up-to-date sync
    dev2 = tmp_path / "dev2"
    pub2 = Pub(tmp_path / "two")
    pub2.release(None)
    assert kb("sync", pub2.art, "--to", dev2)[0] == 0
    code, out = kb("sync", pub2.art, "--to", dev2, "--trusted-key", keys.a_pub)
    assert code == 0 and "no key pinned yet" in out and pinned(dev2) == [], out


def test_rotation_hands_trust_over(keys: Keys, pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a, next_keys=(keys.b,))
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0, out
    assert f"pinned key {keys.b_id} (introduced by kb-r2, signed by {keys.a_id}" in out
    assert f"unpinned key {keys.a_id} (handed over by kb-r2)" in out
    assert pinned(dev) == [keys.b_id]
    # kb-r2, signed by the key it hands over, is vouched for by the key it hands over to
    # (its cosigner): it still answers (a revoked signer's release does not)
    served = json.loads(kb("status", "--index", dev, "--json")[1])["served"]
    assert served["tag"] == "kb-r2" and served["signer_unpinned"] is None, served
    assert trust.untrusted_release(dev, dev / "releases" / "kb-r2", "kb-r2") is None
    pub.release(keys.b)
    assert kb("sync", pub.art, "--to", dev)[0] == 0 and device.served_tag(dev) == "kb-r3"
    # the old key is no longer trusted, and the refusal says that a rotation handed it over
    pub.release(keys.a)
    refused(dev, pub.art, f"untrusted key {keys.a_id}: it was pinned here and unpinned "
            f"(handed over by kb-r2; pinned now: {keys.b_id})")


def test_a_device_that_skipped_the_rotation_follows_it(keys: Keys, pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a, next_keys=(keys.a, keys.b))  # overlap: a stays, b joins
    pub.release(keys.b)
    code, out = kb("sync", pub.art, "--to", dev, "--json")
    assert code == 0, out
    res = json.loads(out)
    assert (res["tag"], res["signed_by"]) == ("kb-r3", keys.b_id)
    assert pinned(dev) == sorted([keys.a_id, keys.b_id])


def test_a_device_off_for_many_releases_follows_a_rotation_early_in_the_gap(
        keys: Keys, pub: Pub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A tablet off for months misses hundreds of releases (CI releasing on every push); a
    key rotation early in that gap must still be followed. Sync used to look at no more than
    1000 release commits back (`MAX_CHAIN`), then refused the release as signed by an
    untrusted key; every commit down to the last accepted serial is read now, a page of
    `CHAIN_PAGE` at a time (both set low here: the gap spans several pages)."""
    monkeypatch.setattr(trust, "MAX_CHAIN", 2, raising=False)
    monkeypatch.setattr(trust, "CHAIN_PAGE", 2, raising=False)
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a)
    pub.release(keys.a, next_keys=(keys.b,))  # kb-r3 rotates a -> b
    for _ in range(5):
        pub.release(keys.b)
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0, out
    assert device.served_tag(dev) == "kb-r8" and pinned(dev) == [keys.b_id]
    assert f"pinned key {keys.b_id} (introduced by kb-r3, signed by {keys.a_id})" in out
    # the key was handed over by kb-r3, not by kb-r8 (the release installed), here and in
    # trust.log
    assert f"unpinned key {keys.a_id} (handed over by kb-r3)" in out
    log = [json.loads(x) for x in (dev / "trust.log").read_text().splitlines()]
    assert (log[-1]["action"], log[-1]["key_id"], log[-1]["why"]) == (
        "unpin", keys.a_id, "handed over by kb-r3")


def test_a_publisher_key_replaced_without_rotation_is_refused_saying_how_to_pin_it(
        keys: Keys, pub: Pub, tmp_path: Path):
    """Mid-year the signing key is lost or compromised and CI signs with a new key, with
    no rotation release (the old key must not sign the handover): devices refuse it, and
    the refusal says which keys are pinned and that the operator pins the new one."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.b)
    refused(dev, pub.art, f"release signed by untrusted key {keys.b_id} (pinned: {keys.a_id}; "
            "no release since kb-r1 hands trust over to it: if the publisher replaced its "
            "key, confirm the new key's id with them and pin it with `kb trust add PUB`)")
    assert kb("trust", "add", keys.b_pub, "--to", dev)[0] == 0
    assert kb("trust", "remove", keys.a_id, "--to", dev)[0] == 0  # the old key revoked
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0 and device.served_tag(dev) == "kb-r2", out
    pub.release(keys.a)  # whoever holds the revoked key
    # the operator revoked it: the refusal says so instead of "pin the publisher's new key"
    refused(dev, pub.art, f"untrusted key {keys.a_id}: it was pinned here and unpinned "
            f"(removed by operator; pinned now: {keys.b_id}), so what it signs is no longer "
            "taken")


def test_a_new_device_trusting_the_old_key_follows_the_rotation(keys: Keys, pub: Pub,
                                                               tmp_path: Path):
    """A device's first fetch is shallow (the newest release only): a device provisioned
    with the key of before a rotation must still reach the release the new key signed,
    through the rotating release it did not fetch. A key that never signed stays refused."""
    pub.release(keys.a)
    pub.release(keys.a, next_keys=(keys.b,))
    pub.release(keys.b)
    source = f"file://{pub.art}"  # (a path source would make git ignore --depth)
    pinned_first = tmp_path / "pinned"
    assert kb("trust", "add", keys.a_pub, "--to", pinned_first)[0] == 0
    given = tmp_path / "given"
    for dev, extra in ((pinned_first, ()), (given, ("--trusted-key", keys.a_pub))):
        code, out = kb("sync", source, "--to", dev, *extra)
        assert code == 0, out
        assert device.served_tag(dev) == "kb-r3" and pinned(dev) == [keys.b_id]
        assert f"pinned key {keys.b_id} (introduced by kb-r2" in out
    stranger = tmp_path / "stranger"
    refused(stranger, source, f"untrusted key {keys.b_id}", "--trusted-key", keys.evil_pub)


def test_rotation_needs_a_trusted_signer_and_the_new_keys_signature(
        keys: Keys, pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    evil_pub = load_private(keys.evil).public_key()
    # signed by the trusted key, naming a new key that did not cosign
    forge_tree(pub.art, lambda e: None, key=load_private(keys.a),
               rel_change=lambda r: r.update(next_keys=[public_record(evil_pub)]))
    refused(dev, pub.art, f"introduces key {keys.evil_id} without its signature")
    # a key record whose id does not match its bytes
    record = public_record(evil_pub) | {"key_id": keys.a_id}
    forge_tree(pub.art, lambda e: None, key=load_private(keys.a),
               rel_change=lambda r: r.update(next_keys=[record]))
    refused(dev, pub.art, "next_keys entry is malformed")
    # a rotation signed by an untrusted key, then a release by its successor: both refused
    forge_tree(pub.art, lambda e: None, key=load_private(keys.evil),
               rel_change=lambda r: r.update(next_keys=[public_record(
                   load_private(keys.b).public_key())]))
    refused(dev, pub.art, f"untrusted key {keys.evil_id}")
    pub.release(keys.b)
    refused(dev, pub.art, f"untrusted key {keys.b_id}")
    assert pinned(dev) == [keys.a_id] and device.served_tag(dev) == "kb-r1"


def test_next_key_needs_a_signing_key(keys: Keys, pub: Pub):
    from kbtools.errors import ReleaseError

    with pytest.raises(ReleaseError, match="--next-key needs --sign-key"):
        pub.release(None, next_keys=(keys.b,))


def test_kb_trust_list_add_remove(keys: Keys, pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    assert kb("trust", "list", "--to", dev) == (0, "no pinned keys in this device: `kb sync` "
                                                  "takes any release whose files match its "
                                                  "manifest, unsigned or signed by any key (no "
                                                  "signature is checked); `kb trust add PUB --to "
                                                  f"{dev}` pins the publisher's key\n")
    code, out = kb("trust", "add", keys.a_pub, "--to", dev)
    assert (code, out) == (0, f"pinned {keys.a_id}\n")
    assert kb("trust", "add", keys.a_pub, "--to", dev) == (0, f"already pinned {keys.a_id}\n")
    code, out = kb("trust", "list", "--to", dev, "--json")
    rows = json.loads(out)
    assert [r["key_id"] for r in rows] == [keys.a_id]
    assert rows[0]["why"].startswith("added by operator") and rows[0]["pinned_at"]
    # pinned before the first sync: an unsigned release is refused from the start
    pub.release(None)
    refused(dev, pub.art, "release is not signed")
    pub.release(keys.b)
    refused(dev, pub.art, f"untrusted key {keys.b_id}")
    assert kb("trust", "add", keys.b_pub, "--to", dev)[0] == 0
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0 and "serving kb-r2" in out, out
    assert kb("trust", "remove", keys.a_id, "--to", dev) == (0, f"unpinned {keys.a_id}\n")
    code, out = kb("trust", "remove", keys.b_id, "--to", dev)
    assert code == 2 and "last pinned key" in out and "--allow-unsigned" in out
    code, out = kb("trust", "remove", "nope", "--to", dev)
    assert code == 2 and f"no pinned key nope (pinned: {keys.b_id})" in out
    assert kb("trust", "remove", f"{keys.b_id}.pub", "--to", dev, "--allow-unsigned")[0] == 0
    assert pinned(dev) == []
    log = [json.loads(x) for x in (dev / "trust.log").read_text().splitlines()]
    assert [(e["action"], e["key_id"]) for e in log] == [
        ("pin", keys.a_id), ("pin", keys.b_id), ("unpin", keys.a_id), ("unpin", keys.b_id)]
    code, out = kb("trust", "add", tmp_path / "kr" / "kb.toml", "--to", dev)
    assert code == 1 and "cannot read public key" in out


def test_an_installed_but_unserved_release_is_checked_again(keys: Keys, pub: Pub,
                                                             tmp_path: Path):
    """A release directory left by an interrupted sync (or put there) is not switched to
    unless its own release.json is signed by a pinned key."""
    import shutil

    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(None)  # unsigned kb-r2 at the source ...
    left = dev / "releases" / "kb-r2"  # ... and already on disk, as if half-synced
    shutil.copytree(dev / "releases" / "kb-r1", left)
    rel = json.loads((left / "release.json").read_text())
    (left / "release.json").write_text(json.dumps(rel | {"tag": "kb-r2", "serial": 2}))
    (left / "release.sig").unlink()
    refused(dev, pub.art, "release is not signed")
    pub.release(keys.a)
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0 and "serving kb-r3" in out, out


def test_a_sync_of_a_rotating_release_killed_before_its_switch_completes_next_time(
        keys: Keys, pub: Pub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A sync pins the keys a rotating release hands trust over to, then switches to it.
    Killed between the two, the next sync used to refuse that release, signed by the key it
    had itself unpinned ("signed by untrusted key"), until a newer one came; it now checks
    it with the keys the stopped sync checked it with, and serves it."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a, next_keys=(keys.b,))

    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(device, "switch_to", killed)
    assert kb("sync", pub.art, "--to", dev)[0] == 130
    assert device.served_tag(dev) == "kb-r1" and pinned(dev) == [keys.b_id]
    monkeypatch.undo()
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0 and "serving kb-r2 (was kb-r1)" in out, out
    assert pinned(dev) == [keys.b_id]
    pub.release(keys.a)  # the key handed over: still refused
    refused(dev, pub.art, f"untrusted key {keys.a_id}")


def _unreadable_sync(dev: Path, src: Path) -> subprocess.CompletedProcess[str]:
    """`kb sync` in a process that may not list DIR/trusted_keys (mode 000): as another
    account would be, or, run as root, without the capabilities that read any directory."""
    cmd = [sys.executable, "-m", "kbtools", "sync", str(src), "--to", str(dev)]
    if os.geteuid() == 0:
        if shutil.which("capsh") is None:
            pytest.skip("running as root without capsh: every directory is readable")
        cmd = ["capsh", "--drop=cap_dac_override,cap_dac_read_search", "--",
               "-c", shlex.join(cmd)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("how", ["file", "unreadable"])
def test_pinned_keys_that_cannot_be_listed_refuse_an_unsigned_release(
        keys: Keys, pub: Pub, tmp_path: Path, how: str):
    """A trusted_keys/ that is there but cannot be listed (a file copied to its name, a
    directory another account made) was taken for "no key pinned": the next sync served an
    unsigned release. It is one line naming it now, and the served release stays."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(None)
    folder = dev / "trusted_keys"
    if how == "file":
        shutil.rmtree(folder)
        folder.write_bytes(keys.a_pub.read_bytes())
        code, out = kb("sync", pub.art, "--to", dev)
        listed = kb("trust", "list", "--to", dev)
        assert listed[0] == 1 and "cannot list the pinned keys" in listed[1], listed
    else:
        folder.chmod(0)
        try:
            run = _unreadable_sync(dev, pub.art)
        finally:
            folder.chmod(0o755)
        code, out = run.returncode, run.stdout + run.stderr
    errors = [line for line in out.splitlines() if line.startswith("kb: error: ")]
    assert code == 1 and len(errors) == 1, out
    assert errors[0].startswith(f"kb: error: {folder}: cannot list the pinned keys"), out
    assert device.served_tag(dev) == "kb-r1" and "kb-r2" not in device.release_dirs(dev)


def test_a_revoked_key_that_signed_the_served_release_is_said_every_time(
        keys: Keys, pub: Pub, tmp_path: Path):
    """The operator revokes the key the served release is signed by (`kb trust remove`), or
    pins a key while an unsigned release serves, and no kept release is signed by a pinned
    key. The release used to keep serving; `kb trust remove`, every sync and `kb status`
    say in one line now that no question is answered from it, and what brings one back,
    until a release signed by a pinned key replaces it (the switch to a kept one, and the
    refused questions: test_revoked_signer.py)."""
    dev = tmp_path / "dev"
    for pub_key in (keys.a_pub, keys.b_pub):
        assert kb("trust", "add", pub_key, "--to", dev)[0] == 0
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev)[0] == 0
    said = (f"the served release kb-r1 is signed by key {keys.a_id}, which is not pinned on "
            f"this device (removed by operator; pinned now: {keys.b_id}): no question is "
            "answered from it; `kb trust add PUB` trusts its key again, `kb sync` brings a "
            "release signed by a pinned key")
    code, out = kb("trust", "remove", keys.a_id, "--to", dev)
    assert code == 0 and f"kb: warning: {said}; no kept release is signed by a pinned " \
        "key" in out, out
    code, out = kb("sync", pub.art, "--to", dev)  # nothing newer: fails, for cron to see
    assert code == 1 and out == ("kb: error: " + str(pub.art) + ": the source offers nothing "
                                 "newer than kb-r1, and " + said.split("; `kb trust add")[0]
                                 + "; the next `kb sync` takes the first release signed by a "
                                 "pinned key as soon as the publisher publishes one (`kb trust"
                                 " add PUB` trusts its key again)\n"), out
    code, out = kb("status", "--index", dev, "--json")  # refused: exit 1 (test_status_exit)
    served = json.JSONDecoder().raw_decode(out)[0]["served"]  # the error line follows
    assert code == 1 and served["signer_unpinned"].startswith(said), out
    assert f"  trust: {said}" in kb("status", "--index", dev)[1]
    pub.release(keys.b)  # the publisher's new key: served, and nothing more to say
    code, out = kb("sync", pub.art, "--to", dev)
    assert code == 0 and "serving kb-r2" in out and "warning" not in out, out
    assert json.loads(kb("status", "--index", dev, "--json")[1])["served"][
        "signer_unpinned"] is None
    # a key pinned while an unsigned release serves
    other = tmp_path / "other"
    pub2 = Pub(tmp_path / "two")
    pub2.release(None)
    assert kb("sync", pub2.art, "--to", other)[0] == 0
    unsigned = (f"the served release kb-r1 is not signed (pinned now: {keys.a_id}): no "
                "question is answered from it")
    code, out = kb("trust", "add", keys.a_pub, "--to", other)
    assert code == 0 and f"kb: warning: {unsigned}" in out, out
    code, out = kb("sync", pub2.art, "--to", other)
    assert code == 1 and f"kb: error: {pub2.art}: the source offers nothing newer than " \
        f"kb-r1, and {unsigned}; the next `kb sync` takes" in out, out


def test_a_pruned_release_names_the_git_clone_that_serves_it(keys: Keys, pub: Pub,
                                                            tmp_path: Path):
    """`kb rollback` to a release the device pruned said why and stopped there: the release
    is still a tag of the source, which a plain git clone serves. The line names the
    commands now, with the source the device syncs from and the pin its keys need there (a
    clone pinning none would check no signature); they work as given. (`kb query
    --release`, MCP `search` and /api/search say the same: tests/test_search_releases.py.)"""
    from kbtools.ship.sync import sync

    dev = tmp_path / "dev"
    for _ in range(4):
        pub.release(keys.a)
        sync(str(pub.art), dev, trusted=[keys.a_pub], keep=2)
    assert sorted(device.release_dirs(dev)) == ["kb-r3", "kb-r4"]
    for args in (("rollback", "kb-r1", "--to", dev), ("diff", "kb-r1", "--to", dev)):
        code, out = kb(*args)
        assert code == 1 and len(out.splitlines()) == 1, out
        assert out.rstrip().endswith(
            "(local: kb-r3, kb-r4); a git clone of the source serves any of its releases: "
            f"`git clone {pub.art} DIR && git -C DIR checkout kb-r1`, `kb trust add PUB --to "
            "DIR` with this device's keys, then `kb query --index DIR`"), out
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(pub.art), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "kb-r1"], check=True)
    assert kb("trust", "add", keys.a_pub, "--to", clone)[0] == 0
    code, out = kb("status", "--index", clone)
    assert code == 0 and f"checkout {clone}: release kb-r1 " in out, out
    assert f"pinned keys: {keys.a_id}" in out and device.served_tag(dev) == "kb-r4"


def test_a_pruned_release_names_the_keep_the_device_pruned_with(
        pub: Pub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The line for a pruned release said syncs keep "`[release] keep`, 5 by default" on a
    device keeping 2, and `kb diff` to it gave no git clone that serves it (`kb rollback`
    did). Now `kb rollback` and `kb diff` name the keep the device's syncs
    pruned with (kb.toml's where they ran), wherever the command runs, and the clone."""
    site, elsewhere, dev = tmp_path / "site", tmp_path / "elsewhere", tmp_path / "dev"
    site.mkdir()
    elsewhere.mkdir()
    (site / "kb.toml").write_text("[release]\nkeep = 2\n")
    monkeypatch.chdir(site)
    for _ in range(4):
        pub.release(None)
        assert kb("sync", pub.art, "--to", dev)[0] == 0
    assert sorted(device.release_dirs(dev)) == ["kb-r3", "kb-r4"]
    for where in (site, elsewhere):  # elsewhere: no kb.toml, whose default is 5
        monkeypatch.chdir(where)
        # (`kb query --release` says it in search's words, `agents.asked`: a device of
        # searchable releases in tests/test_search_releases.py)
        for args in (("rollback", "kb-r1", "--to", dev), ("diff", "kb-r1", "--to", dev)):
            code, out = kb(*args)
            assert code == 1 and len(out.splitlines()) == 1, out
            assert ("release kb-r1 is not on this device: it is older than every release "
                    "kept here (each `kb sync` deletes all but the newest 2, this device's "
                    "`[release] keep`, and never installs an older one) (local: kb-r3, "
                    "kb-r4); a git clone of the source serves any of its releases: `git "
                    f"clone {pub.art} DIR && git -C DIR checkout kb-r1`, then `kb query "
                    "--index DIR`") in out, out


@pytest.mark.parametrize("damage", ["garbage", "empty", "cut"])
def test_a_damaged_pinned_key_stops_syncs_naming_its_repair_which_kb_trust_makes(
        keys: Keys, pub: Pub, tmp_path: Path, damage: str):
    """A pinned key file damaged on the device (a card's bad block, a write cut short, an
    editor) stopped every sync with the cryptography library's words and a link to its FAQ
    (never taken for "no key pinned": right), and `kb trust add` and `kb trust remove`, the
    commands that repair it, stopped on it too: no kb command could. The line now names
    the key and its repair, and both commands act past the damaged file."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(None)  # an unsigned release at the source: must stay refused throughout
    stored = dev / "trusted_keys" / f"{keys.a_id}.pub"
    good = stored.read_bytes()
    stored.write_bytes({"garbage": b"garbage\n", "empty": b"", "cut": good[:40]}[damage])
    line = {"garbage": "line 1 is not -----BEGIN PUBLIC KEY-----: 'garbage'",  # session 40
            "empty": "the file is empty",
            "cut": "no -----END PUBLIC KEY----- line after line 1"}[damage]
    said = (f"kb: error: {stored}: pinned key {keys.a_id} cannot be read ({line}: not a PEM public "
            "key (as `kb keygen` writes the .pub file)): nothing is synced or rolled back "
            f"until it is repaired, since a device whose keys cannot be read would take what "
            f"they refuse; `kb trust add PUB --to {dev}` with the publisher's key writes it "
            f"again (`kb trust remove {keys.a_id}` unpins it)")
    for args in (("sync", pub.art, "--to", dev), ("trust", "list", "--to", dev)):
        code, out = kb(*args)
        assert code == 1 and out.strip() == said, out
    assert device.served_tag(dev) == "kb-r1" and "kb-r2" not in device.release_dirs(dev)
    assert kb("trust", "add", keys.a_pub, "--to", dev) == (0, f"pinned {keys.a_id}\n")
    assert stored.read_bytes() == good
    refused(dev, pub.art, "release is not signed")  # the key is pinned again, and required
    stored.write_bytes(b"garbage\n")
    assert kb("trust", "add", keys.b_pub, "--to", dev)[0] == 0  # another key: pinned too
    code, out = kb("trust", "remove", keys.a_id, "--to", dev)
    assert code == 0 and out.startswith(f"unpinned {keys.a_id}\n"), out
    assert pinned(dev) == [keys.b_id]
    refused(dev, pub.art, "release is not signed")
