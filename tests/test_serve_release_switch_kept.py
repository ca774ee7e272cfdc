"""A page the browser kept while `kb sync` switched the device's release, in a real headless
Chromium: Back or Forward to it (the back-forward cache shows it as it was, without asking
the server), or a tab left open and looked at again. It named its own release in its
footer and nothing more, so a technician read a dose or a decision the new release had
changed; now it says above the page that another release is served, with a link that
loads the page afresh, and a page of the served release says nothing."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from browserfixtures import needs_chromium, serve, start_browser
from device_fixtures import EDITED, make_device, second_release
from selenium.webdriver.support.ui import WebDriverWait
from servefixtures import navigate

pytestmark = [pytest.mark.slow, needs_chromium]

QUESTION = "赤霉病 监测时间窗口"
NOTE = "#kb-stale"


def _said(driver) -> str:
    """The note's text once shown (it is said after an answer from the server)."""
    WebDriverWait(driver, 30).until(lambda d: d.execute_script(
        "return !document.querySelector(arguments[0]).hidden", NOTE))
    return str(driver.execute_script("return document.querySelector(arguments[0]).innerText",
                                     NOTE))


def _quiet(driver) -> bool:
    """Whether the note stays hidden once the page asked which release is served."""
    driver.execute_script("document.dispatchEvent(new Event('visibilitychange'))")
    try:
        WebDriverWait(driver, 3).until(lambda d: d.execute_script(
            "return !document.querySelector(arguments[0]).hidden", NOTE))
    except Exception:  # noqa: BLE001 - a timeout: still hidden, as it should be
        return True
    return False


@pytest.fixture
def device_server(tmp_path):
    d = make_device(tmp_path)
    running = serve(d.dev)
    yield d, next(running)
    next(running, None)


def test_a_kept_page_says_another_release_is_served(device_server):
    d, url = device_server
    driver = start_browser()
    try:
        driver.get(url + "/?q=" + quote(QUESTION))
        results = driver.current_url
        assert _quiet(driver)  # the release it was made from is the one served
        navigate(driver, f'article.result[data-doc="{EDITED}"] a.cite')
        assert _quiet(driver)
        second_release(d)  # kb sync: kb-r2 is served now
        # a tab left open during the sync, looked at again
        driver.execute_script("document.dispatchEvent(new Event('visibilitychange'))")
        assert "kb-r2" in _said(driver)
        # Back to the results the back-forward cache kept from kb-r1
        driver.back()
        WebDriverWait(driver, 30).until(lambda d: d.current_url == results)
        assert "kb-r1" in driver.find_element("css selector", ".served-release").text
        said = _said(driver)
        assert "kb-r2" in said and "之前的发布版本" in said
        # its link loads the page afresh: the results of kb-r2, nothing more said
        navigate(driver, NOTE + " a")
        assert "kb-r2" in driver.find_element("css selector", ".served-release").text
        assert _quiet(driver)
    finally:
        driver.quit()
