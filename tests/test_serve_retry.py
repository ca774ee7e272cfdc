"""A search sent over patchy 4G to a slow `kb serve`, in a real headless Chromium (Debian's,
under Selenium): the server here holds each search it is told to for a while, as a link that
drops mid-request or a busy device does.

The page waited its minute saying "searching…", then said the server had not answered: the
only way on was to type Enter again in the box. Now, once the answer is long in coming, it
says so and offers a button that sends the question again (the search on its way given up,
the question still in the box), and the same button once a search did not arrive."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import pytest
from browserfixtures import browser, needs_chromium, page
from servefixtures import make_served_repo, threaded_server

from kbtools.serve.app import create_app

pytestmark = [pytest.mark.slow, needs_chromium]
__all__ = ["browser", "page"]  # fixtures this module's tests use

QUESTION = "喷雾器 校准 步骤"
ONLINE = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}


class SlowSearches:
    """The app, holding each POSTed search for the next of `delays` seconds (none left: at
    once); `posted` counts the searches that arrived."""

    def __init__(self, app: Any):
        self.app = app
        self.delays: list[float] = []
        self.posted = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == "/":
            self.posted += 1
            if self.delays:
                await asyncio.sleep(self.delays.pop(0))
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def slow(tmp_path_factory):
    root = make_served_repo(tmp_path_factory.mktemp("retry") / "kr")
    return SlowSearches(create_app(root / "dist"))


@pytest.fixture(scope="module")
def server(slow):
    for _srv, port in threaded_server(slow):
        yield f"http://127.0.0.1:{port}"


def state(driver) -> str:
    return str(driver.execute_script(
        "return document.getElementById('kb-sending').dataset.state || ''"))


def retry_shown(driver) -> bool:
    return bool(driver.execute_script(
        "const b = document.getElementById('kb-retry');"
        "const r = b.getBoundingClientRect();"
        "return !b.hidden && r.width >= 48 && r.height >= 48"))


def wait_until(driver, script: str, seconds: float = 60) -> None:
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, seconds).until(lambda d: d.execute_script(script))


def ask(driver, server: str, wait: int, patience: int) -> None:
    """The search page, its waits shortened (not 60 s), the question typed and sent."""
    from selenium.webdriver.common.by import By
    driver.get(server + "/")
    driver.execute_script(f"const f = document.querySelector('form.search');"
                          f"f.dataset.wait = '{wait}'; f.dataset.patience = '{patience}'")
    box = driver.find_element(By.ID, "kb-q")
    box.clear()
    box.send_keys(QUESTION)
    driver.execute_script("window.kbOldPage = true")
    driver.execute_script("document.querySelector('form.search button').click()")


def send_again_and_load(driver) -> None:
    driver.execute_script("document.getElementById('kb-retry').click()")
    wait_until(driver, "return window.kbOldPage !== true && document.readyState === 'complete'")


def results(driver) -> list[str]:
    from selenium.webdriver.common.by import By
    return [a.get_attribute("data-doc") for a in
            driver.find_elements(By.CSS_SELECTOR, "article.result")]


def box_value(driver) -> str:
    return str(driver.execute_script("return document.getElementById('kb-q').value"))


def test_a_search_long_in_coming_offers_to_send_it_again(page, server, slow):
    """The server holds the first search for a minute: past the page's patience it says the
    answer is long in coming and offers to send the question again; sent again (answered at
    once), its results are shown well before the wait is out."""
    slow.delays[:] = [60.0]
    ask(page, server, wait=40, patience=1)
    wait_until(page, "return document.getElementById('kb-sending').dataset.state === 'busy'", 5)
    assert not retry_shown(page)  # not at once: a search takes a moment
    wait_until(page, "return document.getElementById('kb-sending').dataset.state === 'waiting'",
               20)
    assert retry_shown(page) and box_value(page) == QUESTION
    said = page.find_element("id", "kb-sending").text
    assert "还没有回答" in said and "重新发送" in page.find_element("id", "kb-retry").text
    posted = slow.posted
    send_again_and_load(page)
    assert slow.posted == posted + 1
    assert "q=" + quote(QUESTION.split()[0]) in page.current_url
    assert box_value(page) == QUESTION and results(page)


def test_a_search_not_answered_in_time_says_so_and_sends_again_with_one_press(page, server,
                                                                              slow):
    slow.delays[:] = [30.0]
    ask(page, server, wait=2, patience=0)
    wait_until(page, "return document.getElementById('kb-sending').dataset.state === 'slow'", 20)
    assert page.execute_script("return window.kbOldPage === true")  # still this page
    assert "没有回答" in page.find_element("id", "kb-sending").text
    assert retry_shown(page) and box_value(page) == QUESTION
    send_again_and_load(page)
    assert box_value(page) == QUESTION and results(page)
    assert page.execute_script("return document.getElementById('kb-sending').hidden")


def test_a_search_sent_offline_is_sent_again_with_one_press_once_online(page, server):
    from selenium.webdriver.common.keys import Keys

    page.execute_cdp_cmd("Network.enable", {})
    page.get(server + "/")
    page.execute_cdp_cmd("Network.emulateNetworkConditions", {**ONLINE, "offline": True})
    try:
        page.find_element("id", "kb-q").send_keys(QUESTION)
        page.execute_script("window.kbOldPage = true")
        page.find_element("id", "kb-q").send_keys(Keys.ENTER)
        wait_until(page, "return document.getElementById('kb-sending').dataset.state === "
                         "'offline'", 20)
        assert retry_shown(page)
    finally:
        page.execute_cdp_cmd("Network.emulateNetworkConditions", ONLINE)
    # from the keyboard: Tab from the search button reaches it, Enter on it sends the question
    page.execute_script("document.querySelector('form.search button').focus()")
    page.switch_to.active_element.send_keys(Keys.TAB)
    assert page.execute_script("return document.activeElement.id") == "kb-retry"
    page.execute_script("window.kbOldPage = true")
    page.switch_to.active_element.send_keys(Keys.ENTER)
    wait_until(page, "return window.kbOldPage !== true && document.readyState === 'complete'")
    assert box_value(page) == QUESTION and results(page)


def test_a_page_reloaded_while_its_search_is_on_its_way_keeps_the_question(page, server, slow):
    """A phone's pull to refresh while a search hangs reloaded the page without it: the
    question typed was gone (only one that had failed was kept). The page reloaded says the
    search was interrupted, the box keeps the question, and the button sends it."""
    slow.delays[:] = [30.0]
    ask(page, server, wait=40, patience=20)
    wait_until(page, "return document.getElementById('kb-sending').dataset.state === 'busy'", 5)
    page.refresh()
    wait_until(page, "return document.readyState === 'complete'")
    assert box_value(page) == QUESTION and state(page) == "interrupted"
    assert "重新加载" in page.find_element("id", "kb-sending").text and retry_shown(page)
    page.execute_script("window.kbOldPage = true")
    send_again_and_load(page)
    assert box_value(page) == QUESTION and results(page)
    page.refresh()  # arrived: nothing kept aside
    assert state(page) == "" and not retry_shown(page)
