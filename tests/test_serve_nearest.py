"""A document address the served release holds no document at (`kbtools.serve.nearest`): the
same name in another case or Unicode composition opens the document; a renamed document, a
typo, a title typed as the name are a 404 naming the documents meant, the renamed one first.

A real device synced from two signed releases (`device_fixtures`, test-hash embedder):
kb-r2 renames the wheat-scab SOP, removes the sprayer one and adds a document with an accented name (two names that
differ only in case are refused by `kb check`: `same_document` opens only a single match),
and two of one file name in two folders (`LOGS`); it adds another document of the removed
one's folder and file name under another folder (`SHARED`, an archive's)."""

from __future__ import annotations

import html
import re
import unicodedata
from urllib.parse import quote, unquote

import pytest
from device_fixtures import make_device
from servefixtures import git
from starlette.testclient import TestClient

from kbtools.serve.app import create_app

pytestmark = pytest.mark.slow

OLD = "knowledge/crops/wheat-scab.md"
NEW = "knowledge/crops/wheat-fusarium-head-blight-sop.md"
ACCENTED = "knowledge/crops/blé-fusariose.md"  # NFC on disk
TITLE = "小麦赤霉病监测与防控操作规程"
REMOVED = "knowledge/crops/sprayer-calibration.md"
TITLE_REMOVED = "施药器械校准操作规程"
ACCENTED_DOC = """---
title: Fusariose du blé
category: crop-protection
source: test
author: testeur
timestamp: "2026-04-01T09:00:00+08:00"
verified: false
lang: en
crop: [小麦]
disease: [赤霉病]
---

# Fusariose du blé

Scout the ears at flowering.
"""


LOGS = ["knowledge/crops/field-log.md", "knowledge/equipment/field-log.md"]  # one file name
SHARED = "knowledge/archive/crops/sprayer-calibration.md"  # another document at REMOVED's path's end


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    d = make_device(tmp_path_factory.mktemp("nearest"))
    git(d.kr, "mv", OLD, NEW)
    git(d.kr, "rm", "-q", REMOVED)
    (d.kr / ACCENTED).write_text(ACCENTED_DOC, encoding="utf-8")
    for log in LOGS:
        (d.kr / log).parent.mkdir(exist_ok=True)
        (d.kr / log).write_text(ACCENTED_DOC.replace("Fusariose du blé", f"Log {log[10:15]}"),
                                encoding="utf-8")
    (d.kr / SHARED).parent.mkdir(parents=True)
    (d.kr / SHARED).write_text(ACCENTED_DOC.replace("Fusariose du blé", "Boom sprayer nozzles"),
                               encoding="utf-8")
    git(d.kr, "add", "-A")
    git(d.kr, "commit", "-qm", "rename the scab SOP, remove the sprayer one; an accented name")
    assert d.publish() == "kb-r2"
    code, out = d.sync()
    assert code == 0, out
    with TestClient(create_app(d.dev), base_url="http://127.0.0.1") as c:
        yield c


def suggested(page: str) -> list[tuple[str, bool]]:
    """The documents an error page suggests, in order, and whether each is marked renamed."""
    block = re.search(r'<ul class="suggestions">(.*?)</ul>', page, re.S)
    return [(unquote(href), "badge renamed" in item) for item in
            re.findall(r"<li>(.*?)</li>", block.group(1) if block else "", re.S)
            for href in re.findall(r'href="/doc/([^"?]+)', item)]


@pytest.mark.parametrize("asked", [
    "knowledge/crops/wheat-fusarium-head-blight-sop.MD",
    "knowledge/crops/Wheat-Fusarium-Head-Blight-SOP.md",
    "crops/WHEAT-FUSARIUM-HEAD-BLIGHT-SOP",  # a short path, no `.md`, in capitals
])
@pytest.mark.parametrize("kind", ["doc", "table"])
def test_a_name_in_another_case_opens_the_document(client, asked, kind):
    """`/doc/x.MD`, a phone's capitalised name: a 404 without a word of what was meant."""
    moved = client.get(f"/{kind}/{quote(asked)}", params={"lines": "10-20", "lang": "zh"},
                       follow_redirects=False)
    assert moved.status_code == 307
    assert moved.headers["location"] == f"/{kind}/{quote(NEW)}?lines=10-20&lang=zh"
    assert client.get(moved.headers["location"]).status_code == 200


@pytest.mark.parametrize("form", ["NFD", "NFC"])
def test_an_accented_name_in_either_composition_opens_it(client, form):
    """A URL-encoded NFD name (macOS, some phones' keyboards) for an NFC file name."""
    got = client.get("/doc/" + quote(unicodedata.normalize(form, ACCENTED)))
    assert got.status_code == 200 and "Scout the ears at flowering" in got.text
    upper = client.get("/doc/" + quote(unicodedata.normalize(form, ACCENTED.upper())),
                       follow_redirects=False)
    assert upper.status_code == 307
    assert upper.headers["location"] == "/doc/" + quote(ACCENTED)


@pytest.mark.parametrize("kind", ["doc", "table"])
def test_a_renamed_document_is_named_first_as_renamed(client, kind):
    """A link kept from kb-r1 (a bookmark, a result page in the history): kb-r1, still kept
    on the device, held a document of that title at that path; kb-r2 holds it renamed."""
    got = client.get(f"/{kind}/{OLD}", params={"lines": "20-22", "q": "赤霉病", "lang": "zh"})
    assert got.status_code == 404
    assert suggested(got.text)[0] == (NEW, True)
    assert f'href="/doc/{quote(NEW)}?q=%E8%B5%A4%E9%9C%89%E7%97%85&amp;lang=zh"' in got.text
    assert "您要找的可能是" in got.text and "已改名或移动到这里" in got.text
    # on the English page the Chinese title is still said as Chinese
    english = client.get(f"/{kind}/{OLD}", params={"lang": "en"}).text
    assert f'<span class="title" lang="zh-CN">{TITLE}</span>' in english
    assert "Perhaps you meant" in english


@pytest.mark.parametrize("asked, meant", [
    ("knowledge/crops/wheat-fusarium-head-blight-sops.md", NEW),  # a typo
    ("knowledge/crop/pesticide-operator-safety.md", "knowledge/crops/pesticide-operator-safety.md"),
    (f"knowledge/crops/{TITLE[:5]}.md", NEW),  # the title typed as the name
    ("crops/field-survey-method", "knowledge/crops/field-survey-methods.md"),  # no `.md`: 400
])
def test_a_mistyped_name_suggests_the_documents_meant(client, asked, meant):
    got = client.get("/doc/" + quote(asked), params={"lang": "en"})
    assert got.status_code in (400, 404)
    assert suggested(got.text)[0][0] == meant, suggested(got.text)


def test_a_name_like_no_document_suggests_none(client):
    got = client.get("/doc/knowledge/crops/zzzz.md")
    assert got.status_code == 404 and 'class="suggestions"' not in got.text


def test_a_removed_document_offers_its_former_title_searched(client):
    """A bookmark of a document kb-r2 removed: its title, from kb-r1 still kept here, is
    offered as a search of the release served now (where its content may live on)."""
    got = client.get(f"/doc/{REMOVED}", params={"lang": "zh"})
    assert got.status_code == 404
    link = re.search(r'<a class="look-for" href="([^"]+)">([^<]+)</a>', got.text)
    assert link and TITLE_REMOVED in html.unescape(link.group(2))
    searched = client.get(html.unescape(link.group(1)))
    assert searched.status_code == 200
    assert f'>{TITLE_REMOVED}</textarea>' in searched.text and '<html lang="zh-CN">' in searched.text
    # a renamed one is named instead, not searched
    assert 'class="look-for"' not in client.get(f"/doc/{OLD}").text


@pytest.mark.parametrize("asked", [
    "wheat-fusarium-head-blight-sop.md",  # the file name alone, as a chat or a note gives it
    "wheat-fusarium-head-blight-sop",  # ... without `.md`
    "crops/Wheat-Fusarium-Head-Blight-SOP.md",  # below the knowledge folder, not its sub-folder
])
@pytest.mark.parametrize("kind", ["doc", "table"])
def test_a_name_without_its_folders_opens_the_one_document_so_named(client, asked, kind):
    """`/doc/wheat-scab.md`, a path without its folder under knowledge/: "not found", and
    the page suggested it among look-alikes. When one document of the release has that
    file name it opens, its lines and language kept; a pasted citation so shortened opens
    its lines, in the address and in the search box, and /api/read (`kb read`'s and the
    MCP read's reader) reads it."""
    moved = client.get(f"/{kind}/{quote(asked)}", params={"lines": "10-12", "lang": "zh"},
                       follow_redirects=False)
    assert moved.status_code == 307
    assert moved.headers["location"] == f"/{kind}/{quote(NEW)}?lines=10-12&lang=zh"
    if kind == "table":
        return
    accented = client.get("/doc/" + quote(unicodedata.normalize("NFD", "blé-fusariose.md")))
    assert accented.status_code == 200 and "Scout the ears at flowering" in accented.text
    page = client.get("/doc/wheat-fusarium-head-blight-sop.md:20-22", params={"lang": "en"})
    assert page.status_code == 200 and 'id="cited"' in page.text
    assert str(page.url).split("?")[0].endswith(f"/doc/{quote(NEW)}")
    pasted = client.get("/", params={"q": "wheat-fusarium-head-blight-sop.md:20-22", "lang": "en"})
    client.cookies.clear()
    assert str(pasted.url).endswith(f"/doc/{quote(NEW)}?lines=20-22&lang=en#cited"), pasted.url
    read = client.get("/api/read", params={"doc": "wheat-fusarium-head-blight-sop.md"})
    assert read.status_code == 200 and read.json()["doc"] == NEW, read.text


def test_a_whole_path_the_kept_releases_never_held_opens_no_other_document(client):
    """`knowledge/wheat-fusarium-head-blight-sop.md` names no document, and the releases
    this device keeps never held one there (one removed before them): the page opened
    `knowledge/crops/…`, another document of its file name, and `/api/read` read it. Both
    refuse it now, as with no release kept: the page lists that document."""
    for asked in ("knowledge/Wheat-Fusarium-Head-Blight-SOP.md",
                  "knowledge/wheat-fusarium-head-blight-sop"):
        got = client.get(f"/doc/{quote(asked)}", params={"lang": "en"}, follow_redirects=False)
        assert got.status_code in (400, 404), got.status_code  # (400: without `.md`)
        assert NEW in [doc for doc, _ in suggested(got.text)], suggested(got.text)
        read = client.get("/api/read", params={"doc": asked})
        assert read.status_code in (400, 404) and "doc" not in read.json(), read.text


def test_a_file_name_several_documents_have_lists_them(client):
    """`/doc/field-log.md` with a field-log.md in two folders: neither is opened, the page
    lists both (and /api/read names both, in the language asked)."""
    got = client.get("/doc/field-log.md", params={"lang": "zh"})
    assert got.status_code == 404
    assert [doc for doc, _ in suggested(got.text)][:2] == LOGS, suggested(got.text)
    read = client.get("/api/read", params={"doc": "field-log.md"})
    assert read.status_code == 400 and all(log in read.text for log in LOGS), read.text
    assert "have that file name" in read.json()["error"]["message"], read.text
    zh = client.get("/api/read", params={"doc": "Field-Log.md"},
                    headers={"accept-language": "zh-CN"}).json()
    said = zh["error"]["message"]
    assert "有 2 个文档是这个文件名" in said and all(log in said for log in LOGS), zh


def test_a_whole_path_two_documents_share_the_file_name_of_is_refused_as_with_one(client):
    """`knowledge/field-log.md` (a whole path, perhaps a removed document's) with a
    field-log.md in two other folders: /api/read answered 400 "give the one meant with its
    folders", not the 404 "no such document" a whole path with one such document gets (and
    the follow-ups it leads to); now the one refusal, naming both, as the page lists both."""
    asked = "knowledge/field-log.md"
    got = client.get(f"/doc/{asked}", params={"lang": "en"})
    assert got.status_code == 404 and [d for d, _ in suggested(got.text)][:2] == LOGS
    read = client.get("/api/read", params={"doc": asked})
    said = read.json()["error"]["message"]
    assert read.status_code == 404 and said == (
        f"no such document in the index: {asked}; the index has 2 documents of that file "
        f"name in another folder: {', '.join(LOGS)}; if one is meant, read and cite it by "
        "that path"), read.text
    zh = client.get("/api/read", params={"doc": asked}, headers={"accept-language": "zh-CN"})
    assert zh.json()["error"]["message"] == (
        f"本发布版本中没有这个文档：{asked}；本发布版本的其他文件夹中有这个文件名的文档："
        f"{', '.join(LOGS)}。若所指的是其中一个，请按那个路径阅读和引用"), zh.text


@pytest.mark.parametrize("asked", [REMOVED, f"{REMOVED}:10-12"])
def test_a_removed_document_s_path_never_opens_another_of_its_file_name(client, asked):
    """A link from kb-r1 to the sprayer SOP, which kb-r2 removed: kb-r2 holds one document
    whose path ends as that link's does (`archive/crops/sprayer-calibration.md`), a
    different document (boom sprayer nozzles), and the fallback for a path given without
    its folders opened it as if the link named it. The page says the document is
    gone (its former title searched), listing the other one; /api/read says no such
    document, and that kb-r1, kept here, has it."""
    got = client.get(f"/doc/{asked}", params={"lang": "en"})
    assert got.status_code == 404, got.url
    assert (SHARED, False) in suggested(got.text)
    assert 'class="look-for"' in got.text
    read = client.get("/api/read", params={"doc": asked})  # `kb read`'s and MCP's reader
    assert read.status_code == 404 and "kb-r1" in read.text and SHARED not in read.text, read.text

