"""The release page of a device after `kb rollback`: it says the served release is a rollback,
which release was served before it and that `kb sync` skips that one (as `kb status` says),
in Chinese and English; the kept releases mark the one rolled back from (as `kb releases`).

A real device (`device_fixtures`: signed releases of the example knowledge, `kb sync`), the
real `kb rollback` command and the app over the device directory."""

from __future__ import annotations

import html
import re

import pytest
from device_fixtures import make_device, second_release
from servefixtures import unread_headers
from starlette.testclient import TestClient

from kbtools.serve.app import create_app

pytestmark = pytest.mark.slow


def said(page: str, css: str) -> list[str]:
    """The text of each element of class `css` on `page` (tags dropped, entities read)."""
    found = re.findall(rf'<(\w+) class="{css}"[^>]*>(.*?)</\1>', page, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", body)) for _, body in found]


def test_the_release_page_says_a_rollback_and_the_release_served_before(tmp_path):
    d = make_device(tmp_path)
    second_release(d)
    with TestClient(create_app(d.dev), base_url="http://127.0.0.1") as client:
        page = client.get("/release", params={"lang": "en"}).text
        assert said(page, "served-tag") == ["kb-r2"] and not said(page, "rollback")

        code, out = d.kb("rollback", "kb-r1", "--to", str(d.dev))
        assert code == 0, out
        page = client.get("/release", params={"lang": "en"}).text
        assert said(page, "served-tag") == ["kb-r1"]
        [note] = said(page, "rollback")
        assert "is a rollback" in note and "kb-r2 was served before" in note, note
        assert "`kb sync` skips kb-r2" in note, note
        assert said(page, "rolled-back") == ["(rolled back from: `kb sync` skips it)"]
        zh = client.get("/release", params={"lang": "zh"}).text
        [note] = said(zh, "rollback")
        assert "这是一次回滚" in note and "此前使用的是 kb-r2" in note and "跳过 kb-r2" in note, note
        assert said(zh, "rolled-back") == ["(已从它回滚：kb sync 跳过它)"]
        # the API says it too
        rollback = client.get("/api/releases").json()["rollback"]
        assert rollback["from"] == "kb-r2" and rollback["forward"] is False

        # undone: served again by `kb rollback`, no longer skipped
        code, out = d.kb("rollback", "kb-r2", "--to", str(d.dev))
        assert code == 0, out
        page = client.get("/release", params={"lang": "en"}).text
        [note] = said(page, "rollback")
        assert "kb-r1 was served before" in note and "a rollback undone" in note, note
        assert not said(page, "rolled-back")


def test_a_failed_sync_then_a_rollback_is_one_statement_on_every_surface(tmp_path):
    """A sync fails while kb-r2 serves ("kb-r2 still serves (unchanged)"), then the operator
    rolls back to kb-r1. What was tried, when, what served then and what serves now is one
    record: `kb status --json` carries it as data (``statement``), and the release page says
    it in the reader's language beside the failure, whose words of what served are in the
    past; /api/releases carries the same data. Before, the failure's words were rewritten
    by a string replace, `kb status` alone said what serves now, and the page said nothing."""
    import json

    d = make_device(tmp_path)
    second_release(d)
    code, out = d.kb("sync", str(tmp_path / "nowhere"), "--to", str(d.dev))
    assert code == 1 and "kb-r2 still serves (unchanged)" in out, out
    code, out = d.kb("rollback", "--to", str(d.dev), "--json")
    assert code == 0, out
    at = json.loads(out)["at"]
    code, out = d.kb("status", "--to", str(d.dev), "--json")  # a warning after the JSON
    last = json.JSONDecoder().raw_decode(out)[0]["last_sync"]
    assert last["statement"] == {
        "source": last["source"], "tag": None, "at": last["at"], "ok": False,
        "served_then": "kb-r2", "serves_now": "kb-r1",
        "rollback": {"at": at, "from": "kb-r2", "why": None, "cause": None}}, last
    assert last["error"].endswith("; kb-r2 served on (unchanged)"), last
    assert "said" not in last and "still serves" not in last["error"], last
    since = f"kb-r1 serves since `kb rollback` at {at}, not kb-r2"
    assert last["since"] == since, last
    with TestClient(create_app(d.dev), base_url="http://127.0.0.1") as client:
        [note] = said(client.get("/release", params={"lang": "en"}).text, "last-sync")
        assert note.startswith(f"The last sync ({last['at']}) failed: {last['error']}"), note
        assert note.endswith(f"Since then: {since}"), note
        [note] = said(client.get("/release", params={"lang": "zh"}).text, "last-sync")
        assert note.startswith(f"上次同步（{last['at']}）失败：") and "served on" not in note
        assert "无法从来源获取发布版本" in note and "同步结束时由 kb-r2 提供服务" in note, note
        assert note.endswith(f"此后：自 {at} 的回滚起由 kb-r1 提供服务，而非同步结束时的 kb-r2"), note
        api = client.get("/api/releases").json()["last_sync"]
        assert api == {"at": last["at"], "ok": False, "error": last["error"],
                       "statement": last["statement"]}, api


def test_the_kept_releases_table_has_its_headers_said(tmp_path):
    """The kept releases' table had its header row as a plain row of <th> without a scope
    and each release's tag as a data cell: a screen reader on a tablet read "tag, source
    commit, created, signed by" as a release and never named the release a cell is of.
    The header row is a <thead> of `scope="col"` cells, each row begins with its tag as
    `scope="row"`, in English and Chinese."""
    d = make_device(tmp_path)
    second_release(d)
    with TestClient(create_app(d.dev), base_url="http://127.0.0.1") as client:
        for lang in ("en", "zh"):
            page = client.get("/release", params={"lang": lang}).text
            assert 'class="releases"' in page
            assert unread_headers(page) == (1, []), page
            assert re.search(r'<th scope="row">kb-r2 \(', page), page  # the served one
