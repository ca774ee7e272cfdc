"""A library error on a Chinese page of `kb serve` is said in Chinese: the errors a field
user meets (no index, a bad filter, no such document or section) have words in
`i18n.ERRORS` by their `KbError.key`; the English message stays below for whoever looks
after the device, an error without words is shown in English, and the JSON API's messages
are unchanged."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from kbtools.agents.read import open_knowledge, read_section
from kbtools.errors import KbError, UsageError
from kbtools.index.reader import open_index
from kbtools.query.filters import filter_mask, parse_where
from kbtools.serve import i18n
from kbtools.serve.app import create_app
from kbtools.serve.source import ServedIndex

SCAB = "knowledge/crops/wheat-scab.md"


def detail_of(page: str) -> tuple[str, str | None]:
    """The error page's detail and its English original (None when not shown)."""
    found = re.search(r'<p class="detail">.*?<span lang="([^"]+)">(.*?)</span>', page, re.S)
    original = re.search(r'<p class="detail original">.*?<span lang="en">(.*?)</span>', page,
                         re.S)
    assert found, page
    return found.group(2), original.group(1) if original else None


@pytest.fixture(scope="module")
def example(example_index):
    return open_index(example_index)


def test_a_missing_index_is_said_in_chinese_with_the_english_below(tmp_path):
    """"no index here: run `kb build` …" under "暂时没有可用的知识库版本" on a Chinese page."""
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    with TestClient(create_app(nothing), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": "小麦赤霉病", "lang": "zh"})
        assert zh.status_code == 503 and '<html lang="zh-CN">' in zh.text
        detail, original = detail_of(zh.text)
        assert detail == i18n.ERRORS["index_missing"]
        assert original and original.startswith(f"{nothing}: no index here")
        en = client.get("/", params={"q": "wheat scab", "lang": "en"})
        detail, original = detail_of(en.text)
        assert detail.startswith(f"{nothing}: no index here") and original is None
        api = client.get("/api/search", params={"q": "小麦"}).json()["error"]
        assert api["message"].startswith(f"{nothing}: no index here")  # the API's English
        assert "知识库" not in str(api)


@pytest.mark.parametrize("where", ["crop=>小麦", "verified=maybe", "kind=poem",
                                   "timestamp>=yesterday"])
def test_a_bad_filter_is_said_in_chinese_naming_it(example, where):
    with pytest.raises(UsageError) as err:
        filter_mask(example, parse_where([where]), None)
    assert err.value.message.startswith("bad --where")
    said = i18n.error_zh(err.value)
    assert said == i18n.ERRORS["bad_where"].format(where=err.value.values["where"])
    assert where.split("=")[0].rstrip("><!") in said
    with pytest.raises(UsageError) as unknown:
        filter_mask(example, parse_where(["colour=red"]), None)
    assert i18n.error_zh(unknown.value) == "没有“colour”这个筛选项。"


def test_no_such_document_or_section_is_said_in_chinese(example_index):
    kn = open_knowledge(idx=open_index(example_index))
    with pytest.raises(KbError) as doc:
        read_section(kn, "knowledge/crops/none.md")
    assert i18n.error_zh(doc.value) == "本发布版本中没有这个文档：knowledge/crops/none.md"
    with pytest.raises(KbError) as section:
        read_section(kn, SCAB, "没有这一节")
    assert i18n.error_zh(section.value) == f"文档 {SCAB} 中没有“没有这一节”这一节。"
    assert "no section '没有这一节'" in section.value.message  # the English kept as it was


def test_an_error_without_chinese_words_is_shown_in_english():
    assert i18n.error_zh(KbError("something else broke")) is None
    assert i18n.error_zh(KbError("x", key="no_such_key")) is None
    assert i18n.error_zh(KbError("x", key="no_document")) is None  # its value is missing
    long = KbError("x", key="no_document", values={"doc": "a\nb" + "c" * 500})
    said = i18n.error_zh(long)
    assert said is not None and "\n" not in said and len(said) < 250


def test_a_page_served_from_nothing_says_it_in_chinese_not_only_in_english(tmp_path):
    """`ServedIndex.get` keeps the key of what it could not open (a release checkout it
    could not verify says so too)."""
    with pytest.raises(KbError) as err:
        ServedIndex(tmp_path).get()
    assert err.value.key == "index_missing"
