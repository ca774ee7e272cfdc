"""Pages seen before, reloaded with the server out of reach (a tablet on patchy 4G), in a real
headless Chromium: shown from the device's copy, marked as a copy with its release, and never
a release's copy after a newer release was seen (`kbtools/serve/static/offline.js`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode

import pytest
from browserfixtures import REPO, needs_chromium, start_browser
from servefixtures import NEW_DOC, NOTE, free_port, second_release, synced_device, wait_serving

from kbtools.ship.sync import sync

pytestmark = [pytest.mark.slow, needs_chromium]
ARTIFACTS = Path(os.environ.get("KB_TEST_ARTIFACTS") or REPO / "test-artifacts")
SCAB = "knowledge/crops/wheat-scab.md"
# the addresses the worker's cache holds (a script run in the page)
KEPT = """const done = arguments[arguments.length - 1];
caches.keys().then(names => Promise.all(names.map(n => caches.open(n).then(c => c.keys())
  .then(keys => [n, keys.map(k => new URL(k.url).pathname + new URL(k.url).search)]))))
  .then(done, () => done([]));"""


def copy(path: str, ui: str = "zh") -> str:
    """The address a page's copy is kept under: its own without ``?lang=``, with its
    language (offline.js `pageKey`)."""
    where, _, query = path.partition("?")
    fields = [(k, v) for k, v in parse_qsl(query) if k != "lang"] + [("kb-ui", ui)]
    return where + "?" + urlencode(fields)


class Server:
    """`kb serve` of a device directory on one loopback port, stopped and started again
    there (a service worker belongs to its origin: the port too)."""

    def __init__(self, index: Path):
        self.index, self.port = index, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Serve on the port (`free_port`'s: this worker's own, no other process picks it),
        tried again after a pause while what the stopped server left there holds it."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO),
                                                            os.environ.get("PYTHONPATH", "")])}
        for attempt in range(5):
            self.proc = subprocess.Popen([sys.executable, "-m", "kbtools", "serve", "--index",
                                          str(self.index), "--port", str(self.port)], env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                wait_serving(self.proc, self.url)
                return
            except AssertionError as e:
                if "already in use" not in str(e) or attempt == 4:
                    raise
            time.sleep(1.0)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
            self.proc = None


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    return synced_device(tmp_path_factory.mktemp("offline"))


@pytest.fixture(scope="module")
def server(device) -> Iterator[Server]:
    s = Server(device[2])
    s.start()
    yield s
    s.stop()


@pytest.fixture
def browser():
    driver = start_browser()
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


def kept(driver, *paths: str) -> dict[str, list[str]]:
    """The worker's caches once every path of `paths` is in one of them (30 s at most: a
    path never kept fails the test here, not later as a copy missing offline)."""
    deadline = time.monotonic() + 30
    while True:
        caches = dict(driver.execute_async_script(KEPT))
        held = {p for keys in caches.values() for p in keys}
        if set(paths) <= held:
            return caches
        assert time.monotonic() < deadline, (set(paths) - held, caches)
        time.sleep(0.2)


def note(driver) -> str | None:
    """The offline note's text when it is shown, else None."""
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.ID, "kb-offline")
    return found[0].text if found and found[0].is_displayed() else None


def test_a_page_seen_before_is_shown_offline_marked_with_its_release(browser, server):
    """A tablet reloading a document or a results page it had opened, the server out of
    reach, got the browser's "cannot connect" page: it now gets its copy, saying it is one
    and which release it is from, the formula pictures in it too."""
    from selenium.webdriver.common.by import By

    doc = f"/doc/{quote(SCAB)}"
    results = "/?q=" + quote("赤霉病 防治")
    browser.get(server.url + doc)  # the first page: kept once the worker is in charge
    assert note(browser) is None
    kept(browser, copy(doc))  # (it asks the worker to keep it: left at once, it could not)
    tag = browser.find_element(By.CSS_SELECTOR, "footer.release .tag").text
    browser.get(server.url + results)
    shown = [a.get_attribute("data-doc") for a in
             browser.find_elements(By.CSS_SELECTOR, "article.result")]
    assert shown and note(browser) is None
    caches = kept(browser, copy(doc), copy(results))
    assert len(caches) == 1 and {copy(doc), copy(results)} <= set(next(iter(caches.values())))
    assert any(p.startswith("/formulas/") for p in next(iter(caches.values())))
    server.stop()
    try:
        browser.refresh()
        said = note(browser)
        assert said and tag in said and ("离线" in said and "保存于" in said), said
        assert [a.get_attribute("data-doc") for a in
                browser.find_elements(By.CSS_SELECTOR, "article.result")] == shown
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "offline-copy.png"))
        browser.get(server.url + doc)
        assert tag in (note(browser) or "")
        sizes = browser.execute_script(
            "return [...document.querySelectorAll('img[src^=\"/formulas/\"]')]"
            ".map(i => i.naturalWidth)")
        assert sizes and min(sizes) > 0  # the formulas from the copy too
        browser.get(server.url + "/release")  # never opened: no copy to show
        assert not browser.find_elements(By.ID, "kb-offline")
    finally:
        server.start()
    browser.get(server.url + doc)  # the server back: its page, not the copy
    assert note(browser) is None


def test_a_newer_release_seen_drops_the_earlier_releases_copies(browser, server, device):
    """A copy is never shown beside a newer release's answers: once a page of the release
    a sync switched to is seen, the earlier release's copies are gone, and only the newer
    release's pages are shown offline."""
    from selenium.webdriver.common.by import By

    root, art, dev = device
    doc = f"/doc/{quote(SCAB)}"
    browser.get(server.url + doc)
    kept(browser, copy(doc))
    browser.get(server.url + "/release")
    first = browser.find_element(By.CSS_SELECTOR, "footer.release .tag").text
    kept(browser, copy(doc), copy("/release"))
    second = second_release(root, art)
    assert sync(str(art), dev).tag == second != first
    browser.refresh()  # the release page of the newer release
    assert browser.find_element(By.CSS_SELECTOR, "footer.release .tag").text == second
    caches = kept(browser, copy("/release"))
    assert len(caches) == 1 and copy(doc) not in next(iter(caches.values()))
    server.stop()
    try:
        browser.refresh()
        assert second in (note(browser) or "")
        browser.get(server.url + doc)  # seen only under the earlier release: not shown
        assert not browser.find_elements(By.ID, "kb-offline")
        assert first not in browser.page_source
    finally:
        server.start()


def ui_of(driver) -> str | None:
    """The interface language of the page shown (`data-ui` of <body>; None: the browser's
    own error page)."""
    return driver.execute_script("return document.body && document.body.getAttribute('data-ui')")


def copy_shown(driver) -> tuple[str | None, str | None]:
    """The offline note and interface language of the copy shown (10 s for the note), or
    what the browser shows instead (its error page: no language)."""
    deadline = time.monotonic() + 10
    while note(driver) is None and ui_of(driver) is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    said = note(driver)
    return (said, ui_of(driver)) if said else (None, driver.page_source[:300])


def test_a_copy_is_shown_only_in_the_language_the_page_is_asked_in(browser, server):
    """A page read in English was shown offline as the copy of the same address asked in
    Chinese (the language switch used since, or a browser whose cookie is gone and whose
    languages say Chinese): copies were kept by address alone. A copy is now kept under its
    address and its language, and shown only in the language the server would answer in:
    the address's ``?lang=``, else the reader's choice, else the browser's languages."""
    doc = f"/doc/{quote(SCAB)}"
    browser.get(server.url + "/release?lang=en")  # the reader chooses English (the cookie)
    kept(browser, copy("/release", "en"))
    browser.get(server.url + doc)
    assert ui_of(browser) == "en"
    kept(browser, copy(doc, "en"))
    browser.get(server.url + "/release?lang=zh")  # ... and then Chinese, the switch
    assert ui_of(browser) == "zh"
    kept(browser, copy(doc, "en"), copy("/release"))
    server.stop()
    try:
        browser.get(server.url + doc)  # asked in Chinese: no Chinese copy of it
        assert note(browser) is None and ui_of(browser) is None
        browser.get(server.url + doc + "?lang=en")  # the switch, offline: the English copy
        assert copy_shown(browser)[1] == "en", copy_shown(browser)
    finally:
        server.start()
    # the browser's languages (zh-CN) decide once no cookie does
    browser.get(server.url + "/release?lang=en")
    browser.get(server.url + doc)
    assert ui_of(browser) == "en"
    browser.delete_all_cookies()
    browser.get(server.url + "/release")
    assert ui_of(browser) == "zh"
    server.stop()
    try:
        browser.get(server.url + doc)
        assert note(browser) is None and ui_of(browser) is None
        browser.get(server.url + doc + "?lang=en")
        assert copy_shown(browser)[1] == "en", copy_shown(browser)
        browser.get(server.url + doc)  # English chosen offline is remembered, as the cookie
        assert copy_shown(browser)[1] == "en", copy_shown(browser)
    finally:
        server.start()
    browser.get(server.url + doc)  # the server agrees: the cookie was set offline
    assert ui_of(browser) == "en" and note(browser) is None


def test_the_language_asked_offline_is_remembered_without_a_copy_of_its_page(browser, server):
    """The language switch on a page never opened in that language, offline: the browser
    said it cannot connect, and the choice was dropped with it (remembered only where a copy
    of the page was kept): the next page opened offline, and once the server was back, was in
    the earlier language. The server would have remembered it; the worker does now."""
    doc = f"/doc/{quote(SCAB)}"
    browser.get(server.url + "/release?lang=en")
    kept(browser, copy("/release", "en"))  # the worker in charge from here on
    browser.get(server.url + "/release?lang=zh")  # a copy in each language; Chinese chosen
    browser.get(server.url + doc)
    kept(browser, copy("/release", "en"), copy("/release"), copy(doc))
    server.stop()
    try:
        browser.get(server.url + doc + "?lang=en")  # no English copy of it
        assert note(browser) is None and ui_of(browser) is None
        browser.get(server.url + "/release")
        assert copy_shown(browser)[1] == "en", copy_shown(browser)
    finally:
        server.start()
    browser.get(server.url + doc)
    assert ui_of(browser) == "en" and note(browser) is None


# Safari's workers have no `cookieStore`: this Chromium's worker is made like one (the
# property read as undefined), through the DevTools protocol
NO_COOKIE_STORE = "Object.defineProperty(self, 'cookieStore', {value: undefined})"


def without_cookie_store(driver) -> None:
    """The page's service worker without a cookie store, as Safari's."""
    import json

    workers = [t for t in driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
               if t["type"] == "service_worker"]
    assert workers, "no service worker"
    for worker in workers:
        session = driver.execute_cdp_cmd("Target.attachToTarget",
                                         {"targetId": worker["targetId"], "flatten": False})
        driver.execute_cdp_cmd("Target.sendMessageToTarget", {
            "sessionId": session["sessionId"],
            "message": json.dumps({"id": 1, "method": "Runtime.evaluate",
                                   "params": {"expression": NO_COOKIE_STORE}})})


def test_a_language_chosen_offline_is_the_servers_once_back_without_a_cookie_store(
        browser, server):
    """Safari gives a worker no cookie store: the English copy followed offline was shown,
    but the cookie the server reads was never set, and once the server was back the next
    page came in the browser's language (and the worker then forgot the choice). The copy's
    page sets the cookie its address asks for itself."""
    doc = f"/doc/{quote(SCAB)}"
    browser.get(server.url + doc + "?lang=en")
    kept(browser, copy(doc, "en"))
    browser.get(server.url + "/release?lang=zh")  # Chinese chosen since
    kept(browser, copy(doc, "en"), copy("/release"))
    without_cookie_store(browser)
    server.stop()
    try:
        browser.get(server.url + doc + "?lang=en")
        assert copy_shown(browser)[1] == "en", copy_shown(browser)
    finally:
        server.start()
    browser.get(server.url + "/release")
    assert ui_of(browser) == "en" and note(browser) is None


def test_a_language_chosen_offline_without_a_copy_or_a_cookie_store_is_the_servers_once_back(
        browser, server):
    """Safari (no cookie store in its worker) and no copy of the page in the language the
    switch asked for, offline: the browser said it cannot connect, no page set the cookie,
    and once the server was back every page came in the earlier language. The worker tells
    the server the choice before the next page it asks of it."""
    doc = f"/doc/{quote(SCAB)}"
    browser.get(server.url + doc + "?lang=zh")  # Chinese chosen (the server's cookie)
    kept(browser, copy(doc))
    without_cookie_store(browser)
    server.stop()
    try:
        browser.get(server.url + doc + "?lang=en")  # no English copy of it
        assert note(browser) is None and ui_of(browser) is None
    finally:
        server.start()
    browser.get(server.url + "/release")
    assert ui_of(browser) == "en" and note(browser) is None
    browser.get(server.url + doc)
    assert ui_of(browser) == "en"
    assert {c["name"]: c["value"] for c in browser.get_cookies()}.get("kb_lang") == "en"


# whether the worker still holds a language chosen offline the server was not told (offline.js
# `UNSENT`), asked from a page of the server's
UNSENT = """const done = arguments[arguments.length - 1];
caches.match("/offline.js?unsent", {cacheName: "kb-choice"})
  .then(kept => kept ? kept.text() : null).then(done, () => done(null));"""


def _english_chosen_offline(browser, server) -> None:
    """A Chinese search page kept offline (Safari: no cookieStore), then English chosen in
    another tab while the server is down (a page with no English copy), the search tab
    showing the choice unsent; the server is up again when this returns."""
    browser.get(server.url + "/?lang=zh")
    kept(browser, copy("/"))
    without_cookie_store(browser)
    search_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    server.stop()
    try:
        browser.get(server.url + f"/doc/{quote(SCAB)}?lang=en")  # no English copy of it
        assert ui_of(browser) is None
        browser.switch_to.window(search_tab)
        deadline = time.monotonic() + 10
        while browser.execute_async_script(UNSENT) != "en":
            assert time.monotonic() < deadline, "the choice was not kept"
            time.sleep(0.2)
    finally:
        server.start()


def test_a_search_sent_first_back_online_is_answered_in_the_language_chosen_offline(
        browser, server, device):
    """Safari (no cookie store) and the switch to English followed offline in another tab:
    back online, the question sent from the Chinese search page left open was answered first
    in Chinese (the worker tells the server the choice before the next page it asks, and a
    form's POST passes it by), then searched and logged again in English. The form now
    sends the choice with the question: it is searched once, in English."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    question = "赤霉病 药剂 稀释"
    queries = device[2] / "queries.jsonl"

    def logged() -> int:
        lines = queries.read_text(encoding="utf-8").splitlines() if queries.exists() else []
        return sum(json.loads(x)["question"] == question for x in lines)

    _english_chosen_offline(browser, server)
    before = logged()
    browser.execute_script("window.kbOldPage = true")
    box = browser.find_element(By.ID, "kb-q")
    box.send_keys(question)
    box.send_keys(Keys.ENTER)
    deadline = time.monotonic() + 60
    while browser.execute_script("return window.kbOldPage === true || "
                                 "document.readyState !== 'complete'"):
        assert time.monotonic() < deadline, "the search did not arrive"
        time.sleep(0.2)
    assert ui_of(browser) == "en" and browser.find_elements(By.CSS_SELECTOR, "article.result")
    assert logged() == before + 1
    assert {c["name"]: c["value"] for c in browser.get_cookies()}.get("kb_lang") == "en"


def test_a_search_refused_as_too_long_is_said_in_the_language_chosen_offline(browser, server):
    """As above, the question a form too long for the server (a whole log pasted): the
    form's fallback submit, which shows the server's refusal as without the script, was
    sent without the language chosen offline (the page came in English only by the cookie
    the refused search had set). It is sent where the search was: its address says it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from kbtools.serve.pages import MAX_FORM_BYTES

    _english_chosen_offline(browser, server)
    browser.execute_script("window.kbOldPage = true; document.getElementById('kb-q').value ="
                           " 'E17 油压低 '.repeat(arguments[0])", MAX_FORM_BYTES // 8)
    browser.find_element(By.ID, "kb-q").send_keys(Keys.ENTER)
    deadline = time.monotonic() + 60
    while browser.execute_script("return window.kbOldPage === true || "
                                 "document.readyState !== 'complete'"):
        assert time.monotonic() < deadline, "the refusal did not arrive"
        time.sleep(0.2)
    message = browser.find_element(By.CSS_SELECTOR, "p.message").text
    assert ui_of(browser) == "en" and message == "What was sent is too long.", message
    assert browser.current_url == server.url + "/?lang=en"


# where the cited lines and the offline note are on the screen: (cited top, note bottom,
# scrolled, the most it can scroll)
CITED_UNDER_NOTE = """const cited = document.getElementById('cited').getBoundingClientRect();
const note = document.getElementById('kb-offline').getBoundingClientRect();
const page = document.scrollingElement;
return [cited.top, note.bottom, page.scrollTop, page.scrollHeight - page.clientHeight];"""


@contextmanager
def cited_offline(browser, server) -> Iterator[None]:
    """A citation's link (the scab page's lines 65-73) opened once, kept as a copy, then
    opened again with the server stopped: the copy, its note shown. The server starts again
    when the block ends."""
    from selenium.webdriver.common.by import By

    doc = f"/doc/{quote(SCAB)}?lines=65-73"
    browser.get(server.url + doc + "#cited")
    kept(browser, copy(doc))
    browser.get("about:blank")
    server.stop()
    try:
        browser.get(server.url + doc + "#cited")
        assert note(browser), browser.find_element(By.TAG_NAME, "body").text[:200]
        yield
    finally:
        server.start()


@pytest.mark.parametrize("width, height", [(412, 915), (800, 1280)])
def test_a_citation_opened_from_a_copy_is_not_under_its_note(browser, server, width, height):
    """A citation's link opened on a phone or a tablet offline scrolled its first lines
    under the copy's note, which stays at the top of the screen (a technician read the
    cited passage from its third line). The cited lines begin below the note."""
    browser.set_window_size(width, height)
    with cited_offline(browser, server):
        top, under, scrolled, most = browser.execute_script(CITED_UNDER_NOTE)
        assert 0 < scrolled < most  # scrolled to the lines, not held by the page's end
        assert top >= under, (top, under)


NOTES = """const box = id => document.getElementById(id).getBoundingClientRect();
const cited = box('cited'), copy = box('kb-offline'), stale = box('kb-stale');
return [[copy.top, copy.bottom], [stale.top, stale.bottom], cited.top,
        document.scrollingElement.scrollTop];"""


def test_a_copys_note_and_a_switched_releases_note_are_both_read(browser, server, device):
    """A citation opened from a copy offline, then the server back with the release a sync
    switched to while it was away: the switched release's note was shown over the copy's
    (each kept at the top of the screen by itself), so a technician read one of two. They
    are one under the other at the top of the screen, the page still scrolled to its lines."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    root, art, dev = device
    browser.set_window_size(412, 915)
    with cited_offline(browser, server):
        switched = second_release(root, art, {NOTE: NEW_DOC + "\nA later line.\n"})
        assert sync(str(art), dev).tag == switched
    browser.execute_script("document.dispatchEvent(new Event('visibilitychange'))")
    WebDriverWait(browser, 30).until(lambda b: b.find_element(By.ID, "kb-stale").is_displayed())
    assert switched in browser.find_element(By.ID, "kb-stale").text and note(browser)
    (copy_top, copy_bottom), (stale_top, stale_bottom), _, scrolled = \
        browser.execute_script(NOTES)
    assert scrolled > 0  # at the cited lines, the notes kept at the top of the screen
    assert min(copy_top, stale_top) == 0
    assert stale_bottom <= copy_top or copy_bottom <= stale_top, (copy_top, stale_top)
