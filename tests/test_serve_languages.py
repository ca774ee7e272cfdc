"""Which language a page speaks: the browser's ``Accept-Language``, the page's link and
its cookie (split from test_serve_pages.py; its `client` fixture)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from test_serve_pages import SCAB, Elements, client, repo

from kbtools.serve import i18n

__all__ = ["client", "repo"]  # fixtures this module's tests use


def test_a_page_speaks_the_language_the_browser_prefers(client):
    """An English browser got every page in Chinese until its user found the English link:
    ``Accept-Language`` picks the language when neither ``?lang=`` nor the cookie does."""
    client.cookies.clear()
    en = {"accept-language": "en-US,en;q=0.9"}
    assert i18n.WORDS["search"][1] in client.get("/", headers=en).text
    assert "<html lang=\"en\"" in client.get("/", headers=en).text
    zh = client.get("/", headers={"accept-language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert "<html lang=\"zh" in zh.text
    # the page's link and the cookie it sets still win over the browser
    assert "<html lang=\"zh" in client.get("/", params={"lang": "zh"}, headers=en).text
    client.cookies.clear()
    assert i18n.browser_lang("fr-FR,fr;q=0.9,zh;q=0.5,en;q=0.4") == "zh"
    assert i18n.browser_lang("en;q=0, zh;q=0") is None


@pytest.mark.parametrize("header, lang", [("de-DE,de;q=0.9", "en"), ("fr", "en"),
                                          ("ja-JP,ja;q=0.9", "en"), ("yue-HK", "zh"),
                                          ("de-DE,zh;q=0.3", "zh"), ("", "zh"), ("*", "zh")])
def test_a_browser_naming_neither_language_gets_english(client, header, lang):
    """A German, French or Japanese tablet got the Chinese interface, which its reader is
    the least likely to read: a browser naming only other languages gets English; one naming
    no language (a kiosk, a program) the Chinese default; Cantonese (yue) is Chinese."""
    client.cookies.clear()
    page = client.get("/", headers={"accept-language": header} if header else {}).text
    assert f"<html lang=\"{i18n.HTML_LANG[lang]}\"" in page
    assert i18n.WORDS["search"][i18n.LANGS.index(lang)] in page


@pytest.mark.parametrize("header, lang", [("en_US", "en"), ("en_GB,zh_CN;q=0.5", "en"),
                                          ("zh_CN,en_US;q=0.8", "zh"), ("fr_FR,en_US;q=0.8", "en")])
def test_a_locale_written_with_an_underscore_is_the_browsers_language(header, lang):
    """A tablet's kiosk browser or a WebView that sends its locale as ``en_US`` got the
    Chinese page: the tag was read whole (``en_us``), a language of neither."""
    assert i18n.browser_lang(header) == lang


@pytest.mark.parametrize("url", [f"/doc/{quote(SCAB)}", "/release", "/?q=赤霉病"])
def test_a_page_says_whether_the_reader_chose_its_language(client, url):
    """The offline copies' worker keeps a page under its language and remembers the one the
    reader chose (`offline.js`): every page says its interface language and whether the
    reader chose it (``?lang=`` or the cookie) or the browser's languages did. A document
    page is kept rendered (`pagecache`): the one a cookie chose must not be the one answered
    to a browser without it."""
    def html_tag(cookie: str | None, accept: str) -> dict[str, str]:
        client.cookies.clear()
        if cookie:
            client.cookies.set(i18n.LANG_COOKIE, cookie)
        page = client.get(url, headers={"accept-language": accept}).text
        client.cookies.clear()
        return [a for tag, a in Elements(page).tags if tag == "body"][0]

    assert html_tag("en", "zh-CN") == {"data-ui": "en", "data-ui-chosen": ""}
    assert html_tag(None, "en-US,en") == {"data-ui": "en"}
    assert html_tag(None, "zh-CN") == {"data-ui": "zh"}
    assert html_tag("zh", "en") == {"data-ui": "zh", "data-ui-chosen": ""}
