"""The search box of `kb serve` in a real headless Chromium (Debian's, under Selenium): a
pasted multi-line log keeps its lines and grows the box, Enter searches and Shift+Enter
starts a new line, the page a long question answers is a GET that Back and reload ask
for again without a "resubmit the form?" prompt, and back and forward show each page's own
question. And on a phone a long formula keeps its size in a box of its own that scrolls
(on paper, it fits)."""

from __future__ import annotations

import pytest
from browserfixtures import browser, needs_chromium, page, serve
from servefixtures import make_served_repo, navigate

pytestmark = [pytest.mark.slow, needs_chromium]
__all__ = ["browser", "page"]  # fixtures this module's tests use

FAULTS = "knowledge/equipment/hx260-ch05-fault-codes.md"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(make_served_repo(tmp_path_factory.mktemp("paste") / "kr") / "dist")


def pasted() -> str:
    routine = [f"08:{i // 60:02d}:{i % 60:02d} 周期{1000 + i} 注射完成 保压正常 模温正常 "
               f"螺杆转速正常 料筒温度稳定" for i in range(70)]
    routine.insert(50, "08:00:50 报警 E08 液压油温过高 冷却水不足")
    return "\n".join(routine)


def value(driver) -> str:
    return str(driver.execute_script("return document.getElementById('kb-q').value"))


def test_enter_searches_and_shift_enter_starts_a_new_line(page, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page.get(server + "/")
    box = page.find_element(By.ID, "kb-q")
    box.send_keys("E08 报警", Keys.SHIFT, Keys.ENTER, Keys.NULL, "液压油温过高")
    assert value(page) == "E08 报警\n液压油温过高"
    page.execute_script("window.kbOldPage = true")
    box.send_keys(Keys.ENTER)
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(page, 60).until(lambda d: d.execute_script(
        "return window.kbOldPage !== true && document.readyState === 'complete'"))
    assert "q=E08" in page.current_url and "%0A" in page.current_url  # its lines kept
    assert value(page) == "E08 报警\n液压油温过高"
    first = page.find_element(By.CSS_SELECTOR, "article.result")
    assert first.get_attribute("data-doc") == FAULTS


def test_a_pasted_log_grows_the_box_and_back_and_reload_need_no_resubmit(page, server):
    from selenium.webdriver.common.by import By

    log = pasted()
    page.get(server + "/")
    page.find_element(By.ID, "kb-q").click()
    before = page.find_element(By.ID, "kb-q").size["height"]
    page.execute_cdp_cmd("Input.insertText", {"text": log})  # as a paste inserts it
    assert value(page) == log
    assert page.find_element(By.ID, "kb-q").size["height"] > 2 * before  # grown
    navigate(page, "form.search button")
    assert "held=" in page.current_url and "E08" not in page.current_url
    assert value(page) == log
    results = [a.get_attribute("data-doc") for a in
               page.find_elements(By.CSS_SELECTOR, "article.result")]
    assert results and results[0] == FAULTS
    navigate(page, "article.result a.cite")
    page.back()
    assert "held=" in page.current_url and value(page) == log
    page.refresh()  # a POSTed page would ask to resubmit (an alert Selenium raises on)
    assert value(page) == log
    assert [a.get_attribute("data-doc") for a in
            page.find_elements(By.CSS_SELECTOR, "article.result")] == results



def back_and_forward(page, server) -> None:
    """Two searches asked in the box (the second typed over the first) at phone size, then
    back, forward and back: each results page's box holds the question it answers."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def shown(question: str) -> None:
        WebDriverWait(page, 60).until(lambda d: d.execute_script(
            "return document.readyState === 'complete' && "
            "new URLSearchParams(location.search).get('q') === arguments[0]", question))
        assert value(page) == question

    page.set_window_size(390, 844)
    try:
        page.get(server + "/")
        for question in ("E08 液压油温过高", "小麦赤霉病 温度"):
            box = page.find_element(By.ID, "kb-q")
            box.clear()
            box.send_keys(question)
            navigate(page, "form.search button")
            shown(question)
        page.back()
        shown("E08 液压油温过高")
        page.forward()
        shown("小麦赤霉病 温度")
        page.back()
        shown("E08 液压油温过高")
    finally:
        page.set_window_size(1024, 768)


def test_back_and_forward_show_each_pages_own_question_on_a_phone(page, server):
    """Back to the first of two searches showed the second question in the box above the
    first one's results: the browser put back what the box held when the page was left
    (the next question, typed over it), so the page said one question and answered another.
    Here the pages are kept whole (the back/forward cache): search.js puts the fields back."""
    back_and_forward(page, server)


def test_back_shows_the_pages_own_question_without_script_or_page_cache(page, server):
    """The same without JavaScript, on pages the back/forward cache may not keep (an unload
    handler bars them): the browser loads the page again and fills its fields with what they
    held when it was left, unless the form says `autocomplete="off"`."""
    added = page.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                 {"source": "window.addEventListener('unload', () => {})"})
    page.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        back_and_forward(page, server)
    finally:
        page.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        page.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                             {"identifier": added["identifier"]})


def test_a_long_formula_scrolls_in_its_own_box_at_full_size_on_a_phone(page, server):
    """A display formula wider than a phone was shrunk to the screen's width (max-width:
    100 %): on a 320 px phone the scab SOP's control-efficacy formula was drawn at 86 % of
    its size, and a longer one would be unreadable. It keeps its size and scrolls
    in its own box, which the keyboard reaches and scrolls; the page does not scroll."""
    from urllib.parse import quote

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 320, "height": 640, "deviceScaleFactor": 1, "mobile": True})
    try:
        page.get(server + "/doc/" + quote("knowledge/crops/wheat-scab.md"))
        WebDriverWait(page, 60).until(lambda d: d.execute_script(
            "return [...document.images].every(i => i.complete)"))
        sizes = page.execute_script(
            "return [...document.querySelectorAll('.formula-block img.formula')].map(i => "
            "[i.naturalWidth, i.getBoundingClientRect().width, i.parentElement.clientWidth])")
        wide = [s for s in sizes if s[0] > s[2]]
        assert wide, sizes  # the page has a formula wider than the phone
        assert all(abs(natural - shown) < 1 for natural, shown, _ in sizes), sizes
        assert page.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth") <= 1
        page.execute_script("document.activeElement.blur()")
        for _ in range(40):
            ActionChains(page).send_keys(Keys.TAB).perform()
            if page.execute_script("return document.activeElement.matches('.formula-block') && "
                                   "document.activeElement.scrollWidth > "
                                   "document.activeElement.clientWidth"):
                break
        else:
            raise AssertionError("Tab never reached a wide formula's box")
        ActionChains(page).send_keys(Keys.ARROW_RIGHT).perform()
        WebDriverWait(page, 30).until(lambda d: d.execute_script(
            "return document.activeElement.scrollLeft > 0"))
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        # paper does not scroll: there the formula fits its box
        assert page.execute_script(
            "return [...document.querySelectorAll('.formula-block img.formula')].filter(i => "
            "i.getBoundingClientRect().width > i.parentElement.clientWidth + 1).length") == 0
    finally:
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
