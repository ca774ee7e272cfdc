"""The search page of `kb serve` on a patchy network, in a real headless Chromium (Debian's,
under Selenium), and what a keyboard or an input method does with its box.

A search sent while the network is down, or one the server does not answer in time, says so
on the page and keeps the question in the box (a reload keeps it too), instead of leaving the
technician on the browser's own error page with the question gone; a search that arrives is
logged once. After a search the focus is on the results (a screen reader says how many; Tab
goes to the first). The Enter that confirms an input method's candidate does not search, and
a question typed with full-width characters finds what its half-width spelling finds."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from browserfixtures import browser, needs_chromium, page, serve
from servefixtures import synced_device

pytestmark = [pytest.mark.slow, needs_chromium]
__all__ = ["browser", "page"]  # fixtures this module's tests use

FAULTS = "knowledge/equipment/hx260-ch05-fault-codes.md"
ONLINE = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    """A device synced to a release of the served repo (its query log is the device's)."""
    return synced_device(tmp_path_factory.mktemp("network"))[2]


@pytest.fixture(scope="module")
def server(device):
    yield from serve(device)


def asked(device, question: str) -> int:
    """How many times the device's query log holds `question`."""
    log = device / "queries.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return sum(json.loads(x)["question"] == question for x in lines)


def box_value(driver) -> str:
    return str(driver.execute_script("return document.getElementById('kb-q').value"))


def docs(driver) -> list[str]:
    from selenium.webdriver.common.by import By
    return [a.get_attribute("data-doc") for a in
            driver.find_elements(By.CSS_SELECTOR, "article.result")]


def note(driver) -> str:
    """What the page says about a search that did not arrive ('' when it says nothing)."""
    return str(driver.execute_script(
        "const n = document.getElementById('kb-sending');"
        "return n && !n.hidden && n.getBoundingClientRect().height > 0 ? n.textContent : ''"))


def type_over(driver, question: str) -> None:
    from selenium.webdriver.common.by import By
    box = driver.find_element(By.ID, "kb-q")
    box.clear()
    box.send_keys(question)


def wait_until(driver, script: str, *args: object, seconds: float = 60) -> None:
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, seconds).until(lambda d: d.execute_script(script, *args))


def submit_and_load(driver) -> None:
    """Enter in the box, and wait for the page it leads to."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    driver.execute_script("window.kbOldPage = true")
    driver.find_element(By.ID, "kb-q").send_keys(Keys.ENTER)
    wait_until(driver, "return window.kbOldPage !== true && document.readyState === 'complete'")


@pytest.mark.parametrize("words", ["小麦赤霉病 用药", "sprayer calibration steps"])
def test_a_search_sent_while_the_network_is_down_says_so_and_keeps_the_question(
        page, server, device, words):
    """Sent offline, the search used to leave the page for the browser's "no internet" page,
    and Back showed the previous question: the one typed was gone. Now the page stays, says
    the server was not reached, and the box keeps the question, a reload too; sent again
    once the network is back, it is answered and logged once."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    question = words
    logged = asked(device, question)  # (a random word added would be a code not in the
    # knowledge: no answer)
    page.get(server + "/?q=" + quote("E08 报警"))
    before, address = docs(page), page.current_url
    page.execute_cdp_cmd("Network.enable", {})
    page.execute_cdp_cmd("Network.emulateNetworkConditions", {**ONLINE, "offline": True})
    try:
        type_over(page, question)
        page.execute_script("window.kbOldPage = true")
        page.find_element(By.ID, "kb-q").send_keys(Keys.ENTER)
        wait_until(page, "const n = document.getElementById('kb-sending');"
                         "return n && !n.hidden && n.dataset.state === 'offline'", seconds=20)
    finally:
        page.execute_cdp_cmd("Network.emulateNetworkConditions", ONLINE)
    assert page.execute_script("return window.kbOldPage === true")  # still this page
    said = note(page)
    assert ("没有连上服务器" in said) and ("问题还在框里" in said)  # a Chinese browser's page
    assert box_value(page) == question and docs(page) == before
    assert page.current_url == address

    page.refresh()  # what was typed and not sent survives a reload of the page
    assert box_value(page) == question and "没有连上服务器" in note(page)

    submit_and_load(page)
    assert quote(question.split()[0]) in page.current_url
    assert box_value(page) == question and note(page) == ""
    assert docs(page) and docs(page) != before
    assert asked(device, question) == logged + 1  # its page was not asked a second time
    page.refresh()
    assert box_value(page) == question and note(page) == ""  # sent: nothing kept aside


def test_a_search_the_server_does_not_answer_in_time_says_so_and_keeps_the_question(
        page, server):
    """A server that takes the search and never answers (a link that drops mid-request):
    after the form's wait the page says the server did not answer, the box keeps the
    question, and a second Enter searches."""
    page.get(server + "/")
    assert int(page.execute_script("return document.querySelector('form.search').dataset.wait")) >= 20
    page.execute_script("document.querySelector('form.search').dataset.wait = '2'")  # not 60 s
    question = "喷雾器 校准 步骤"
    type_over(page, question)
    page.execute_cdp_cmd("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})  # held, unanswered
    try:
        page.execute_script("document.querySelector('form.search button').click()")
        wait_until(page, "return document.getElementById('kb-sending').dataset.state === 'busy'",
                   seconds=5)
        wait_until(page, "return document.getElementById('kb-sending').dataset.state === 'slow'",
                   seconds=20)
    finally:
        page.execute_cdp_cmd("Fetch.disable", {})
    said = note(page)
    assert "没有回答" in said and "问题还在框里" in said
    assert box_value(page) == question
    submit_and_load(page)
    assert box_value(page) == question and docs(page)


def test_the_server_refusing_the_form_shows_its_own_page(page, server):
    """A form the server refuses itself (not redirected to a results page: a paste past what
    a form may hold here) is shown as the server's page, as without the script."""
    from selenium.webdriver.common.by import By

    page.get(server + "/")
    page.execute_script("document.getElementById('kb-q').value = 'E08 '.repeat(130000)")
    page.execute_script("window.kbOldPage = true")
    page.execute_script("document.querySelector('form.search button').click()")
    wait_until(page, "return window.kbOldPage !== true && document.readyState === 'complete'")
    assert page.find_element(By.CSS_SELECTOR, "section.error")  # the server's refusal
    assert "E08" not in page.current_url


@pytest.mark.parametrize("question", ["E08 报警", "sprayer calibration"])
def test_after_a_search_the_focus_is_on_its_results(page, server, question):
    """The focus was left on nothing (the page's body): a screen reader said nothing of the
    results and Tab began again at the skip link. It is on the line saying how many there
    are, and Tab goes to the first result."""
    from selenium.webdriver.common.keys import Keys

    page.get(server + "/")
    type_over(page, question)
    submit_and_load(page)
    focused = page.execute_script("return document.activeElement")
    assert "count" in (focused.get_attribute("class") or "")
    assert focused.text.split()[0].isdigit()
    focused.send_keys(Keys.TAB)
    first = page.execute_script("return document.activeElement.closest('article.result')")
    assert first is not None and first.get_attribute("data-doc") == docs(page)[0]


def test_an_unanswered_search_has_the_focus_on_why(page, server):
    page.get(server + "/")
    type_over(page, "zzqx qqzx")
    submit_and_load(page)
    assert page.execute_script("return document.activeElement.className") == "no-answer"


@pytest.mark.parametrize("composing", ["isComposing: true", "keyCode: 229"])
def test_the_enter_that_confirms_an_input_methods_candidate_does_not_search(page, server,
                                                                             composing):
    """Pinyin typed, Enter confirms 小麦 from the candidates: the box keeps it, no search."""
    page.get(server + "/")
    page.execute_script("window.kbOldPage = true")
    page.execute_script(
        "const b = document.getElementById('kb-q'); b.focus(); b.value = '小麦';"
        f"b.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Enter', {composing},"
        " bubbles: true, cancelable: true}));")
    page.execute_script("return new Promise(r => setTimeout(r, 1500))")
    assert page.execute_script("return window.kbOldPage === true")
    assert box_value(page) == "小麦" and "q=" not in page.current_url
    assert page.execute_script("return document.getElementById('kb-sending').hidden")


@pytest.mark.parametrize(("full", "half"), [("Ｅ０８　报警", "E08 报警"),
                                            ("ＨＸ２６０，液压油温过高？", "HX260 液压油温过高")])
def test_a_full_width_question_finds_what_its_half_width_finds(page, server, full, half):
    page.get(server + "/")
    type_over(page, full)
    submit_and_load(page)
    assert box_value(page) == full
    found = docs(page)
    page.get(server + "/?q=" + quote(half))
    assert found and found[0] == FAULTS and found[:3] == docs(page)[:3]


@pytest.mark.parametrize(("inputs", "said"), [("in.0=22&in.1=90&in.2=4", "极高"),
                                              ("in.0=72kPa&in.1=90&in.2=4", "请换算成")])
def test_after_deciding_the_focus_is_on_the_outcome(page, server, inputs, said):
    """Deciding from the keyboard (Enter in a field) left the focus in the form: a screen
    reader said nothing of the outcome below it, or of the value refused."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page.get(f"{server}/table/knowledge/crops/wheat-scab.md?table=1&{quote(inputs, safe='=&')}")
    page.execute_script("window.kbOldPage = true")
    page.find_element(By.CSS_SELECTOR, "form.decide input[type=text]").send_keys(Keys.ENTER)
    wait_until(page, "return window.kbOldPage !== true && document.readyState === 'complete'")
    assert page.execute_script("return document.activeElement.id") == "result"
    assert said in page.find_element(By.ID, "result").text


@pytest.mark.parametrize("address", ["/?q=" + quote("小麦赤霉病 温度 用药"),
                                     "/table/knowledge/crops/wheat-scab.md?table=1&in.0=22"
                                     "&in.1=90&in.2=4&go=1#result"])
def test_back_to_a_page_whose_findings_take_the_focus_returns_where_it_was_left(
        page, server, address):
    """The focus put on the results' count by `autofocus` scrolled a page loaded again (one
    the back/forward cache does not keep) back to its top: Back from the third result
    showed the first. The page is returned to where it was left."""
    from selenium.webdriver.common.by import By

    added = page.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                 {"source": "window.addEventListener('unload', () => {})"})
    page.set_window_size(390, 844)
    try:
        page.get(server + address)
        assert page.execute_script("return document.activeElement.tabIndex === -1")  # found
        page.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
        left = page.execute_script("return window.scrollY")
        assert left > 800
        link = page.find_elements(By.CSS_SELECTOR, "article.result a.cite, p.where a")[-1]
        page.execute_script("window.kbOldPage = true; arguments[0].click()", link)
        wait_until(page, "return window.kbOldPage !== true && document.readyState === 'complete'")
        page.back()
        wait_until(page, "return document.readyState === 'complete' && "
                         "location.pathname === arguments[0]", address.split("?")[0])
        page.execute_script("return new Promise(r => setTimeout(r, 500))")
        assert abs(page.execute_script("return window.scrollY") - left) < 200
    finally:
        page.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                             {"identifier": added["identifier"]})
        page.set_window_size(1024, 768)


def test_back_to_a_page_a_search_left_says_nothing_and_searches_again(page, server):
    """The page a search left is kept whole by the back/forward cache, its script's state
    too: back to it, "searching…" is not still said, and Enter searches again."""
    page.get(server + "/?q=" + quote("E08 报警"))
    type_over(page, "喷雾器 校准")
    submit_and_load(page)
    page.back()
    wait_until(page, "return document.readyState === 'complete' && "
                     "new URLSearchParams(location.search).get('q') === 'E08 报警'")
    assert note(page) == "" and box_value(page) == "E08 报警"
    type_over(page, "小麦赤霉病 用药")
    submit_and_load(page)
    assert "q=" + quote("小麦赤霉病") in page.current_url


def test_a_pasted_log_sent_by_the_script_is_held_shown_and_logged_once(page, server, device):
    """A paste too long for an address goes to its held key as the form did, its results
    page read once: the question is logged once."""
    from selenium.webdriver.common.by import By

    log = "\n".join(["07:59:59 开机 自检通过"] + [
        f"08:00:{i:02d} 周期{1000 + i} 注射完成 保压正常 模温正常 螺杆转速正常"
        for i in range(60)] + ["08:01:00 报警 E08 液压油温过高"])
    def logged() -> int:  # (the log cuts a long question)
        path = device / "queries.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        return sum(json.loads(x)["question"].startswith(log[:200]) for x in lines)

    before = logged()
    page.get(server + "/")
    page.find_element(By.ID, "kb-q").click()
    page.execute_cdp_cmd("Input.insertText", {"text": log})
    submit_and_load(page)
    assert "held=" in page.current_url and box_value(page) == log
    assert docs(page)[0] == FAULTS
    assert logged() == before + 1
