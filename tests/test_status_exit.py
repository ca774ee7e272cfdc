"""`kb status` as a monitoring check (cron, a systemd timer, a Nagios-style plugin) reads
it: exit 0 healthy, 4 degraded (answering, but the last sync failed or the release is
stale), 1 refused (no question answered: nothing served, a signer the operator removed);
and cron's `kb sync` after a revocation: one line saying what the operator does, every run
alike, nothing piling up, the first release a pinned key signs taken at once.

Real signed releases in a bare artifacts repo (`test_trust.Pub`), real device dirs."""

from __future__ import annotations

import json
import shlex
import shutil
import time
from pathlib import Path

from click.testing import CliRunner
from device_fixtures import kb
from test_release_helpers import forge_release
from test_trust import Keys, Pub, keys, pub

from kbtools.cli import main
from kbtools.ship import device
from kbtools.ship.signing import load_private

__all__ = ["keys", "pub"]  # fixtures this module's tests use


def _health(dev: Path) -> tuple[int, dict[str, object]]:
    code, out, _ = kb("status", "--to", dev, "--quick", "--json")
    return code, json.loads(out)["health"]


def test_status_exit_codes_healthy_degraded_refused(keys: Keys, pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    empty = tmp_path / "empty.git"
    empty.mkdir()
    assert kb("sync", empty, "--to", dev)[0] == 1  # a device dir, serving nothing
    code, out, err = kb("status", "--to", dev)
    assert code == 1 and "serving nothing yet" in out, out
    assert err == (f"kb: error: {dev}: serves nothing yet: no question is answered until "
                   f"`kb sync SOURCE --to {dev}` installs a release\n"), err
    assert _health(dev)[1]["state"] == "refused"

    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    code, out, err = kb("status", "--to", dev)
    assert (code, err) == (0, "") and "serving kb-r1" in out, out + err
    assert _health(dev) == (0, {"state": "ok", "reasons": []})

    # the source gone (a dead link, a moved server): still answering, but degraded
    assert kb("sync", tmp_path / "nowhere", "--to", dev)[0] == 1
    code, out, err = kb("status", "--to", dev)
    assert code == 4 and "FAILED: " in out, out
    warned = err.splitlines()
    assert len(warned) == 1 and warned[0].startswith("kb: warning: the last sync (") and \
        "failed: " in warned[0] and "git ls-remote failed" in warned[0], err
    code, health = _health(dev)
    assert code == 4 and health["state"] == "degraded" and len(health["reasons"]) == 1

    assert kb("sync", pub.art, "--to", dev)[0] == 0  # the next good sync clears it
    assert _health(dev) == (0, {"state": "ok", "reasons": []})

    # a release made long ago (the publisher's CI stopped): stale, degraded
    forge_release(pub.art, lambda f: f.update({"release.json": f["release.json"].replace(
        json.loads(f["release.json"])["created"].encode(), b"2020-01-01T00:00:00+00:00")}),
        resign=load_private(keys.a))
    assert kb("sync", pub.art, "--to", dev)[0] == 0
    code, out, err = kb("status", "--to", dev)
    assert code == 4 and "STALE" in out, out
    assert err.startswith("kb: warning: the served release kb-r2 is ") and \
        "older than 30 days (kb.toml [release] max_age_days)" in err, err

    # the operator removes the signer's key: nothing answers, refused
    assert kb("trust", "add", keys.b_pub, "--to", dev)[0] == 0
    assert kb("trust", "remove", keys.a_id, "--to", dev)[0] == 0
    code, out, err = kb("status", "--to", dev)
    assert code == 1 and err.startswith(f"kb: error: {dev}: the served release kb-r2 is signed "
                                        f"by key {keys.a_id}, which is not pinned"), err
    assert err.count("\n") == 1, err
    code, health = _health(dev)
    assert code == 1 and health["state"] == "refused"


def test_cron_sync_after_a_revocation_says_what_to_do_and_takes_the_first_trusted_release(
        keys: Keys, pub: Pub, tmp_path: Path):
    """The served release's signer removed, and the source offering nothing newer: the sync
    used to say "up to date: serving kb-r1" and exit 0 while every question was refused.
    It fails now in one line (every run the same, nothing appended to the device's logs),
    and the first release a pinned key signs is served by the next run."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    assert kb("trust", "add", keys.b_pub, "--to", dev)[0] == 0
    assert kb("trust", "remove", keys.a_id, "--to", dev)[0] == 0
    logs = {p.name: p.read_bytes() for p in dev.iterdir() if p.suffix == ".log"}
    said = []
    for _ in range(3):
        code, out, err = kb("sync", pub.art, "--to", dev)
        assert (code, out) == (1, ""), out + err
        said.append(err)
    assert said[0] == said[1] == said[2] == (
        f"kb: error: {pub.art}: the source offers nothing newer than kb-r1, and the served "
        f"release kb-r1 is signed by key {keys.a_id}, which is not pinned on this device "
        f"(removed by operator; pinned now: {keys.b_id}): no question is answered from it; "
        "the next `kb sync` takes the first release signed by a pinned key as soon as the "
        "publisher publishes one (`kb trust add PUB` trusts its key again)\n")
    assert {p.name: p.read_bytes() for p in dev.iterdir() if p.suffix == ".log"} == logs
    state = json.loads((dev / "state.json").read_text(encoding="utf-8"))
    assert state["last_sync"]["ok"] is False and state["highest_serial"] == 1
    # the publisher still signs with the removed key: refused, saying the same of kb-r1
    pub.release(keys.a)
    code, out, err = kb("sync", pub.art, "--to", dev)
    assert code == 1 and err.startswith(f"kb: error: kb-r2: release signed by untrusted key "
                                        f"{keys.a_id}"), err
    assert err.endswith("no release newer than kb-r1 verifies with the trusted keys, the "
                        f"served release kb-r1 is signed by key {keys.a_id}, which is not "
                        f"pinned on this device (removed by operator; pinned now: "
                        f"{keys.b_id}): no question is answered from it; the next `kb sync` "
                        "takes the first release signed by a pinned key as soon as the "
                        "publisher publishes one (`kb trust add PUB` trusts its key again)\n")
    assert "still serves" not in err
    pub.release(keys.b)  # the publisher's new key
    code, out, err = kb("sync", pub.art, "--to", dev)
    assert code == 0 and out.startswith("serving kb-r3 (was kb-r1)") and err == "", out + err
    assert device.served_tag(dev) == "kb-r3"
    assert kb("status", "--to", dev)[0] == 0


def test_a_pinned_key_file_damaged_by_hand_is_degraded_not_refused(keys: Keys, pub: Pub,
                                                                   tmp_path: Path):
    """A technician edits trusted_keys/<id>.pub (a line garbled): `kb sync` refuses until it
    is repaired, naming the file, while questions are answered (the served release's signer
    has its file): `kb status` exits 4 saying so, as `kb query` decides it, not 1."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    key_file = dev / "trusted_keys" / f"{keys.a_id}.pub"
    lines = key_file.read_text(encoding="ascii").splitlines()
    lines[1] = "!!" + lines[1][2:]
    key_file.write_text("\n".join(lines) + "\n", encoding="ascii")
    code, out, err = kb("sync", pub.art, "--to", dev)
    assert code == 1 and err.startswith(f"kb: error: {key_file}: pinned key {keys.a_id} cannot "
                                        "be read"), err
    code, out, err = kb("status", "--to", dev)
    assert code == 4 and "pinned keys: cannot read: " in out, out
    assert f"kb: warning: pinned keys: pinned key {keys.a_id} cannot be read" in err, err
    assert _health(dev)[1]["state"] == "degraded"


def test_commands_suggested_for_a_device_dir_with_spaces_and_chinese_run_as_given(
        keys: Keys, pub: Pub, tmp_path: Path):
    """A technician's device dir `现场 设备/kb`: the command an error or `kb status` tells
    them to run names it shell-quoted, so pasting it acts on that device (it used to be
    unquoted: the shell split it at the space)."""
    dev = tmp_path / "现场 设备" / "kb"
    empty = tmp_path / "empty.git"
    empty.mkdir()
    kb("sync", empty, "--to", dev)
    err = kb("status", "--to", dev)[2]
    assert shlex.split(err.split("`")[1]) == ["kb", "sync", "SOURCE", "--to", str(dev)], err
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    (dev / "trusted_keys" / f"{keys.a_id}.pub").write_text("-----BEGIN PUBLIC KEY-----\n!!\n")
    code, _, err = kb("sync", pub.art, "--to", dev)
    said = err.split("; `kb trust add PUB --to ")[1].split("` with")[0]
    assert code == 1 and shlex.split(said) == [str(dev)], err


def test_a_key_file_edited_by_hand_names_its_bad_line(keys: Keys, pub: Pub, tmp_path: Path):
    """A pinned key (or one given to `kb trust add`) with a line garbled by an editor: the
    error names the file and the line, which the library's "not a PEM public key" did
    not; nothing is synced meanwhile."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    key_file = dev / "trusted_keys" / f"{keys.a_id}.pub"
    lines = key_file.read_text(encoding="ascii").split("\n")
    lines[1] = lines[1][:8] + "，" + lines[1][9:]  # a full-width comma typed into it
    key_file.write_text("\n".join(lines), encoding="utf-8")
    pub.release(keys.a)
    code, _, err = kb("sync", pub.art, "--to", dev)
    assert code == 1 and err.startswith(
        f"kb: error: {key_file}: pinned key {keys.a_id} cannot be read (line 2 is not base64: "
        f"'{lines[1][:40]}': not a PEM public key"), err
    assert device.served_tag(dev) == "kb-r1"
    given = tmp_path / "given.pub"
    pem = keys.a_pub.read_text(encoding="ascii")  # copied from a chat, its last line lost
    given.write_text(pem[:pem.index("-----END")], encoding="ascii")
    code, _, err = kb("trust", "add", given, "--to", dev)
    assert code == 1 and f"{given}: cannot read public key: no -----END PUBLIC KEY----- line " \
        "after line 1: not a PEM public key" in err, err


EXIT = {"ok": 0, "degraded": 4, "refused": 1}


def _agree(dev: Path) -> str:
    """`kb status` and `kb status --json` of `dev` say the same: one exit code, the same
    stderr (each degraded reason a warning line, the refusal one error line, both the
    `health` of --json), and the text shows each field --json has (served tag,
    verification, staleness, clock, problems, trust, last sync). Returns the state."""
    code, out, err = kb("status", "--to", dev)
    jcode, jout, jerr = kb("status", "--to", dev, "--json")
    st = json.loads(jout)
    state, reasons = st["health"]["state"], st["health"]["reasons"]
    assert (code, err) == (jcode, jerr) and code == EXIT[state], (out, err, jout)
    assert err == {"ok": "", "refused": f"kb: error: {dev}: {reasons[0]}\n" if reasons else "",
                   "degraded": "".join(f"kb: warning: {r}\n" for r in reasons)}[state], err
    served = st["served"]
    if served is None:
        assert "serving " not in out.replace("serving nothing yet", ""), out
    else:
        checked = {True: "verified", False: "FAILS VERIFICATION", None: "not re-checked"}
        assert f"serving {served['tag']} (" in out, out
        assert f"; files {checked[served['verified_now']]}" in out, out
        assert ("STALE" in out) == served["stale"], out
        assert (f"  clock: {served['clock_behind']}" in out) == bool(served["clock_behind"])
        assert all(f"  problem: {p}" in out for p in served["problems"]), out
        assert (f"  trust: {served['signer_unpinned']}" in out) == bool(
            served["signer_unpinned"]), out
    last = st["last_sync"]
    if isinstance(last, dict) and last.get("ok") is False:
        assert f": FAILED: {last['error']}\n" in out, out
    elif isinstance(last, dict) and last.get("ok"):
        assert ": ok" in out, out
    if isinstance(last, dict) and last.get("since"):
        assert f"\n  since then: {last['since']}\n" in out, out
    return state


def test_status_after_a_failed_sync_and_a_rollback_says_what_serves_now(
        keys: Keys, pub: Pub, tmp_path: Path):
    """A sync fails while kb-r3 serves ("kb-r3 still serves (unchanged)"), then the operator
    rolls back to kb-r2: `kb status` quoted the failure's words as the device's health, now
    false. The failure still degrades (its source still fails), in the past tense, with what
    serves now and since which rollback; text and --json agree. Rolled forward again, the
    words are true again and shown as they were."""
    dev = tmp_path / "dev"
    for n in range(3):
        pub.release(keys.a)
        assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0, n
    assert kb("sync", tmp_path / "nowhere", "--to", dev)[0] == 1
    failed = json.loads(kb("status", "--to", dev, "--json")[1])["last_sync"]
    assert failed["error"].endswith("; kb-r3 still serves (unchanged)"), failed
    assert "since" not in failed
    code, out, err = kb("rollback", "--to", dev, "--json")
    assert code == 0 and json.loads(out)["to"] == "kb-r2", err
    at = json.loads(out)["at"]
    assert _agree(dev) == "degraded"
    code, out, err = kb("status", "--to", dev)
    assert "kb-r3 still serves" not in out + err, out + err
    since = f"kb-r2 serves since `kb rollback` at {at}, not kb-r3"
    assert f"\n  since then: {since}\n" in out, out
    [warning] = err.splitlines()
    assert warning.startswith("kb: warning: the last sync (") and warning.endswith(
        f"; kb-r3 served on (unchanged); {since}"), err
    last = json.loads(kb("status", "--to", dev, "--json")[1])["last_sync"]
    assert last["since"] == since and last["ok"] is False, last

    assert kb("rollback", "kb-r3", "--to", dev)[0] == 0  # forward: true again, as it was
    assert _agree(dev) == "degraded"
    assert json.loads(kb("status", "--to", dev, "--json")[1])["last_sync"] == failed

    assert kb("sync", pub.art, "--to", dev)[0] == 0
    assert kb("rollback", "--to", dev)[0] == 0  # an ok sync's "up to date (kb-r3)", then
    assert _agree(dev) == "ok"
    code, out, _ = kb("status", "--to", dev)
    assert "ok, up to date (kb-r3)\n  since then: kb-r2 serves since `kb rollback` at " in out


def test_status_text_and_json_agree_in_every_state(keys: Keys, pub: Pub, tmp_path: Path):
    """Never synced, healthy, a failed sync, a stale release, files edited after sync, a
    revoked signer, `current` naming a release that is gone: text and --json agree on each
    (exit, stderr, every field). A sync killed before its switch: test_revoked_serves."""
    dev = tmp_path / "dev"
    empty = tmp_path / "empty.git"
    empty.mkdir()
    kb("sync", empty, "--to", dev)
    assert _agree(dev) == "refused"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    assert _agree(dev) == "ok"
    kb("sync", tmp_path / "nowhere", "--to", dev)
    assert _agree(dev) == "degraded"
    forge_release(pub.art, lambda f: f.update({"release.json": f["release.json"].replace(
        json.loads(f["release.json"])["created"].encode(), b"2020-01-01T00:00:00+00:00")}),
        resign=load_private(keys.a))
    assert kb("sync", pub.art, "--to", dev)[0] == 0
    assert _agree(dev) == "degraded"
    shard = dev / "releases" / "kb-r2" / "data" / "chunks" / "01.jsonl"
    kept = shard.read_bytes()
    shard.write_bytes(kept.replace(b"x", b"y", 1))
    assert _agree(dev) == "refused"
    shard.write_bytes(kept)
    assert _agree(dev) == "degraded"
    assert kb("trust", "add", keys.b_pub, "--to", dev)[0] == 0
    assert kb("trust", "remove", keys.a_id, "--to", dev)[0] == 0
    assert _agree(dev) == "refused"
    pub.release(keys.b)
    assert kb("sync", pub.art, "--to", dev)[0] == 0
    assert _agree(dev) == "ok"
    shutil.rmtree(dev / "releases" / "kb-r3")
    assert _agree(dev) == "refused"


def test_an_up_to_date_sync_names_the_signer_of_the_release_it_keeps(
        keys: Keys, pub: Pub, tmp_path: Path):
    """`kb sync --json` finding nothing newer said "signed_by": null of a signed release, as
    of an unsigned one; it names the signer `kb status` names, and null only for an unsigned
    release."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    first = json.loads(kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub,
                          "--json")[1])
    assert first["changed"] and first["signed_by"] == keys.a_id, first
    code, out, err = kb("sync", pub.art, "--to", dev, "--json")
    again = json.loads(out)
    assert code == 0 and not again["changed"] and again["signed_by"] == keys.a_id, out + err
    assert json.loads(kb("status", "--to", dev, "--json")[1])["served"]["signed_by"] == \
        keys.a_id
    unsigned = tmp_path / "unsigned"
    pub.release(None)
    assert kb("sync", pub.art, "--to", unsigned)[0] == 0
    code, out, err = kb("sync", pub.art, "--to", unsigned, "--json")
    assert code == 0 and json.loads(out)["signed_by"] is None, out + err


def test_status_after_a_sync_refused_by_its_signer_says_the_key_pinned_since(
        keys: Keys, pub: Pub, tmp_path: Path):
    """A sync refuses kb-r2, signed by a key not pinned ("pin it with `kb trust add PUB`");
    the operator pins it. `kb status` still gave that advice as the device's health, as if
    not done: the failure stays the last sync (degraded until a sync), followed by the key
    pinned since; text and --json agree."""
    dev = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.b)
    assert kb("sync", pub.art, "--to", dev)[0] == 1
    assert "since" not in json.loads(kb("status", "--to", dev, "--json")[1])["last_sync"]
    time.sleep(1.1)  # trust.log and state.json times are to the second
    assert kb("trust", "add", keys.b_pub, "--to", dev)[0] == 0
    assert _agree(dev) == "degraded"
    last = json.loads(kb("status", "--to", dev, "--json")[1])["last_sync"]
    assert last["since"].startswith(f"key {keys.b_id} pinned at "), last
    assert "kb-r1 still serves" in last["error"], last  # still true: kept as it was
    code, out, err = kb("status", "--to", dev)
    assert f"\n  since then: key {keys.b_id} pinned at " in out and err.rstrip().endswith(
        f"; {last['since']}"), out + err
    zh = CliRunner().invoke(main, ["status", "--to", str(dev)], env={
        "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": "zh_CN.UTF-8"}).stdout
    at = last["since"].split(" pinned at ")[1]  # the Chinese line was the English one, glued
    assert f"\n  此后：密钥 {keys.b_id} 于 {at} 固定\n" in zh, zh
    assert kb("sync", "--to", dev)[0] == 0
    assert _agree(dev) == "ok"


def test_status_after_a_revocation_names_the_rollback_trust_remove_ran(
        keys: Keys, pub: Pub, tmp_path: Path):
    """`kb trust remove` of the served release's signer rolls back to the newest release a
    pinned key signs; `kb status` then said the last sync was "ok, switched to kb-r2" with
    nothing after it, or "since `kb rollback`", a command nobody ran: it says why."""
    dev = tmp_path / "dev"
    pub.release(keys.b)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.b_pub)[0] == 0
    assert kb("trust", "add", keys.a_pub, "--to", dev)[0] == 0
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev)[0] == 0
    assert kb("trust", "remove", keys.a_id, "--to", dev)[0] == 0
    assert _agree(dev) == "ok"
    since = json.loads(kb("status", "--to", dev, "--json")[1])["last_sync"]["since"]
    assert since.startswith("kb-r1 serves since the rollback at ") and since.endswith(
        f" (kb-r2: key {keys.a_id} was removed by the operator), not kb-r2"), since
