"""A key removed from a device (`kb trust remove`: it leaked, its holder left) while the
served release is signed by it. The device used to keep answering from that release, only
saying so in `kb trust remove`, `kb sync` and `kb status`. Now it serves the newest kept
release a pinned key signed (a rollback, logged with why), or, with none, refuses every
question (`kb query`, `kb serve`, `kb mcp`) in one line naming `kb trust add` and `kb sync`;
re-pinning the key and syncing serve the newest again.

Real signed releases of the example knowledge (`device_fixtures`): kb-r1 signed by key 1,
kb-r2 by key 2, both keys pinned."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from device_fixtures import Device, copy_of, kb, make_device, second_release
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import Context, tool_search
from kbtools.errors import IndexLoadError
from kbtools.serve import i18n
from kbtools.serve.app import create_app
from kbtools.ship import device, intact
from kbtools.ship.signing import keygen

pytestmark = pytest.mark.slow
QUESTION = "小麦赤霉病 监测时间"


@dataclass
class Signed:
    d: Device
    one: str  # key id of kb-r1's signer
    two: str  # key id of kb-r2's signer
    two_pub: Path


@pytest.fixture(scope="module")
def signed(tmp_path_factory) -> Signed:
    base = tmp_path_factory.mktemp("revoked")
    d = make_device(base)
    one = json.loads(kb("trust", "list", "--to", d.dev, "--json")[1])[0]["key_id"]
    _, two_pub, two = keygen(base / "second.key")
    assert kb("trust", "add", two_pub, "--to", d.dev)[0] == 0
    d.key = base / "second.key"
    second_release(d)  # kb-r2, signed by key 2
    assert device.served_tag(d.dev) == "kb-r2"
    return Signed(d, one, two, two_pub)


@pytest.fixture
def dev(signed: Signed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Device:
    """A copy of the device; every open checks again (as each `kb query` process does)."""
    monkeypatch.setattr(intact, "RECHECK_S", 0.0)
    monkeypatch.setattr(intact, "_CLEAN", {})
    return copy_of(signed.d, tmp_path)


def _asked(d: Device) -> tuple[int, str, str]:
    return kb("query", "--json", "--index", d.dev, QUESTION)


def _release(out: str) -> str:
    return str(json.loads(out)["release"]["tag"])


def test_removing_the_served_release_signer_serves_the_newest_kept_release_signed_by_another(
        signed: Signed, dev: Device):
    code, out, err = kb("trust", "remove", signed.two, "--to", dev.dev)
    assert code == 0 and err == "", err
    assert out.splitlines() == [
        f"unpinned {signed.two}",
        f"switched from kb-r2 to kb-r1: kb-r2 is signed by key {signed.two}, no longer "
        f"pinned (key {signed.two} was removed by the operator), so it answers no more; "
        f"kb-r1 is the newest kept release signed by a pinned key ({signed.one}), served as "
        f"`kb rollback kb-r1` would; `kb trust add PUB` with key {signed.two} and `kb sync` "
        "serve kb-r2 again"]
    assert device.served_tag(dev.dev) == "kb-r1"
    last = json.loads((dev.dev / "rollback.log").read_text().splitlines()[-1])
    assert (last["from"], last["to"]) == ("kb-r2", "kb-r1") and signed.two in last["why"]
    code, out, err = _asked(dev)
    assert code == 0 and _release(out) == "kb-r1", err
    status = json.loads(kb("status", "--to", dev.dev, "--json")[1])
    assert status["served"]["tag"] == "kb-r1" and status["served"]["signer_unpinned"] is None
    # the kept release its key signed, asked for by name: refused as well
    code, out, err = kb("query", "--json", "--index", dev.dev, "--release", "kb-r2", QUESTION)
    assert (code, out) == (1, "") and err == (
        f"kb: error: {dev.dev}: the release kb-r2 is signed by key {signed.two}, which is not "
        f"pinned on this device (removed by operator; pinned now: {signed.one}): no question "
        "is answered from it; `kb trust add PUB` trusts its key again, `kb sync` brings a "
        "release signed by a pinned key\n"), err
    # the revoked key's release is not taken back by a sync while its key stays unpinned
    code, out, err = kb("sync", dev.art, "--to", dev.dev)
    assert code == 1 and f"untrusted key {signed.two}" in err and "removed by operator" in err
    assert device.served_tag(dev.dev) == "kb-r1"
    # pinned again: the next sync serves the newest (it was not remembered as rolled back)
    code, out, err = kb("trust", "add", signed.two_pub, "--to", dev.dev)
    assert code == 0 and out == f"pinned {signed.two}\n" and err == "", out + err
    code, out, err = kb("sync", dev.art, "--to", dev.dev)
    assert code == 0 and "serving kb-r2" in out, out + err
    code, out, err = _asked(dev)
    assert code == 0 and _release(out) == "kb-r2", err


def test_with_no_kept_release_signed_by_a_pinned_key_every_question_is_refused(
        signed: Signed, dev: Device, tmp_path: Path):
    _, third_pub, third = keygen(tmp_path / "third.key")
    assert kb("trust", "add", third_pub, "--to", dev.dev)[0] == 0
    code, out, err = kb("trust", "remove", signed.one, "--to", dev.dev)
    assert (code, out, err) == (0, f"unpinned {signed.one}\n", "")  # kb-r2 is not its
    code, out, err = kb("trust", "remove", signed.two, "--to", dev.dev)
    said = (f"the served release kb-r2 is signed by key {signed.two}, which is not pinned on "
            f"this device (removed by operator; pinned now: {third}): no question is "
            "answered from it; `kb trust add PUB` trusts its key again, `kb sync` brings a "
            "release signed by a pinned key")
    assert code == 0 and out == f"unpinned {signed.two}\n", out
    assert err == f"kb: warning: {said}; no kept release is signed by a pinned key\n", err
    assert device.served_tag(dev.dev) == "kb-r2"  # nothing switched, nothing answers
    code, out, err = _asked(dev)
    assert (code, out) == (1, "") and err == f"kb: error: {dev.dev}: {said}\n", err
    with pytest.raises(IndexLoadError) as refused:
        tool_search(Context(index=dev.dev, query_log=False), QUESTION, 3)
    assert refused.value.message == said
    with TestClient(create_app(dev.dev), base_url="http://127.0.0.1") as client:
        resp = client.get("/api/search", params={"q": QUESTION})
        assert resp.status_code == 503 and resp.json()["error"]["message"].endswith(said)
        zh = client.get("/", params={"q": QUESTION, "lang": "zh"})
        assert i18n.ERRORS["release_untrusted"].format(release="kb-r2") in zh.text
    status = json.loads(kb("status", "--to", dev.dev, "--json")[1])
    assert status["served"]["signer_unpinned"] == said
    assert f"  trust: {said}" in kb("status", "--to", dev.dev)[1]
    # the key pinned again: answered at once, from the release it signed
    assert kb("trust", "add", signed.two_pub, "--to", dev.dev)[0] == 0
    code, out, err = _asked(dev)
    assert code == 0 and _release(out) == "kb-r2", err


def test_a_key_file_deleted_by_hand_refuses_questions_too(signed: Signed, dev: Device):
    """Not only `kb trust remove`: whatever unpinned the signer, questions are refused."""
    (dev.dev / "trusted_keys" / f"{signed.two}.pub").unlink()
    code, out, err = _asked(dev)
    assert code == 1 and f"the served release kb-r2 is signed by key {signed.two}" in err
    assert err.endswith("; `kb rollback kb-r1` serves the newest kept release signed by one\n")
    # a key pinned under another file name (copied in by hand) still counts
    shutil.copy(signed.two_pub, dev.dev / "trusted_keys" / "publisher.pub")
    code, out, err = _asked(dev)
    assert code == 0 and _release(out) == "kb-r2", err


def test_a_kept_release_that_fails_its_checks_is_not_switched_to(signed: Signed, dev: Device):
    """The kept release a pinned key signed was edited after sync: it is passed over (as
    `kb rollback` refuses it), said in the warning, and questions are refused."""
    kept = dev.dev / "releases" / "kb-r1"
    manifest = json.loads((kept / "manifest.json").read_text(encoding="utf-8"))
    rel = sorted(r for r in manifest["artifacts"] if r.startswith("data/chunks/"))[0]
    (kept / rel).chmod(0o644)
    (kept / rel).write_bytes((kept / rel).read_bytes() + b"\n")
    code, out, err = kb("trust", "remove", signed.two, "--to", dev.dev)
    assert code == 0 and out == f"unpinned {signed.two}\n", out
    assert "no kept release is signed by a pinned key (kept releases refused: kb-r1: kb-r1 " \
        f"no longer verifies: {rel}" in err, err
    assert device.served_tag(dev.dev) == "kb-r2"
    code, out, err = _asked(dev)
    assert code == 1 and "no question is answered from it" in err, err


def test_the_release_page_says_which_kept_release_no_pinned_key_vouches_for(
        signed: Signed, dev: Device):
    """After `kb trust remove` switched to kb-r1, `kb serve`'s release page listed kb-r2,
    whose signer was removed, like any kept release (`kb releases` notes that no pinned key
    vouches for it and `kb rollback` refuses it): it says so now, in Chinese and English."""
    assert kb("trust", "remove", signed.two, "--to", dev.dev)[0] == 0
    with TestClient(create_app(dev.dev), base_url="http://127.0.0.1") as client:
        for lang in ("en", "zh"):
            html = client.get("/release", params={"lang": lang}).text
            rows = {tag: row for row in html.split("<tr")[1:]
                    for tag in ("kb-r1", "kb-r2") if f"scope=\"row\">{tag}" in row}
            said = i18n.translator(lang)("kept_untrusted")
            assert said in rows["kb-r2"] and 'class="untrusted"' in rows["kb-r2"], html
            assert "untrusted" not in rows["kb-r1"], rows["kb-r1"]
        [r2] = [r for r in client.get("/api/releases").json()["releases"]
                if r["tag"] == "kb-r2"]
        assert r2["untrusted"].startswith(f"the release kb-r2 is signed by key {signed.two}")
    assert "`kb rollback` refuses it" in i18n.translator("en")("kept_untrusted")


def test_the_release_page_says_the_served_release_answers_nothing_once_its_key_is_gone(
        signed: Signed, dev: Device, monkeypatch: pytest.MonkeyPatch):
    """A server that opened kb-r2 before its key file was deleted by hand shows the release
    page until it checks the release again (`intact.RECHECK_S`): the served row says what
    `kb releases` says of it."""
    monkeypatch.setattr(intact, "RECHECK_S", 3600.0)
    with TestClient(create_app(dev.dev), base_url="http://127.0.0.1") as client:
        assert "untrusted" not in client.get("/release").text
        (dev.dev / "trusted_keys" / f"{signed.two}.pub").unlink()
        for lang in ("en", "zh"):
            html = client.get("/release", params={"lang": lang}).text
            row = next(r for r in html.split("<tr")[1:] if "scope=\"row\">kb-r2" in r)
            assert i18n.translator(lang)("served_untrusted") in row, html


def test_the_rollback_a_key_removal_made_is_explained_in_the_pages_language(
        signed: Signed, dev: Device):
    """The release page's note of the rollback `kb trust remove` made gave its reason in
    English on the Chinese page (`(kb-r2: key … was removed by the operator)`, a lang="en"
    span), and so did the note of a sync that failed before it: rollback.log keeps the
    reason as data too (`cause`), which each language says."""
    assert kb("sync", dev.dev / "nowhere", "--to", dev.dev)[0] == 1
    assert kb("trust", "remove", signed.two, "--to", dev.dev)[0] == 0
    last = json.loads((dev.dev / "rollback.log").read_text().splitlines()[-1])
    assert last["cause"] == {"release": "kb-r2", "event": "key_removed", "key": signed.two}
    with TestClient(create_app(dev.dev), base_url="http://127.0.0.1") as client:
        notes = {lang: client.get("/release", params={"lang": lang}).text.split(
            '<p class="rollback" role="note">')[1].split("</p>")[0] for lang in ("zh", "en")}
        since = {lang: client.get("/release", params={"lang": lang}).text.split(
            '<p class="last-sync" role="note">')[1].split("</p>")[0] for lang in ("zh", "en")}
    assert f"（kb-r2：运维人员移除了为它签名的密钥 {signed.two}，它不再回答问题）" in since["zh"], since
    assert f"(kb-r2: key {signed.two} was removed by the operator)" in since["en"], since
    assert "was removed by the operator" not in notes["zh"] and 'lang="en"' not in notes["zh"]
    assert f"kb-r2：运维人员移除了为它签名的密钥 {signed.two}" in notes["zh"], notes["zh"]
    assert f"(kb-r2: key {signed.two} was removed by the operator)" in notes["en"], notes["en"]
