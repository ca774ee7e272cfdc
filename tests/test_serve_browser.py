"""`kb serve` in a real headless Chromium (Debian's, driven by Selenium) against a real uvicorn
on a free loopback port, serving a device directory synced from real releases.

Covers: a Chinese search returning the right cited section; a formula SVG and a photo
rendered with a non-zero size; the wheat-scab decision form giving the >20 ℃ row (极高); a
sync to a second release switching what the page shows after reload; the page layout at
tablet and phone sizes (screenshots under test-artifacts/, or $KB_TEST_ARTIFACTS); and that
no page makes a request outside the server (the browser's network log).
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from browserfixtures import REPO, browser, needs_chromium, page, serve, start_browser
from servefixtures import contrast, img_size, navigate, second_release, synced_device

from kbtools.ship.sync import sync

ARTIFACTS = Path(os.environ.get("KB_TEST_ARTIFACTS") or REPO / "test-artifacts")
SCAB = "knowledge/crops/wheat-scab.md"
SIZES = {"tablet-portrait": (768, 1024), "tablet-landscape": (1024, 768), "phone": (390, 844)}

pytestmark = [pytest.mark.slow, needs_chromium]
__all__ = ["browser", "page"]  # fixtures this module's tests use


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    """A device synced to the first release of the served repo; returns (repo, art, device)."""
    return synced_device(tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="module")
def server(device):
    yield from serve(device[2])


def test_chinese_search_returns_the_cited_section(page, server):
    from selenium.webdriver.common.by import By

    page.get(server + "/")
    box = page.find_element(By.NAME, "q")
    box.send_keys("小麦扬花期温度22度、湿度90%、连续下雨4天，赤霉病风险多高")
    navigate(page, "form.search button")
    first = page.find_element(By.CSS_SELECTOR, "article.result")
    assert first.get_attribute("data-doc") == SCAB
    where = first.find_element(By.CSS_SELECTOR, ".where").text
    assert "3.2 风险等级判定表" in where and "行" in where
    assert first.find_elements(By.CSS_SELECTOR, "mark")  # matched terms highlighted
    lines = first.get_attribute("data-lines")
    a, b = (int(x) for x in lines.split("-"))
    if first.get_attribute("class").endswith("kind-table_row"):  # the table, its row marked
        row = first.find_element(By.CSS_SELECTOR, ".passage tr.cited")
        assert row.get_attribute("data-lines") == lines
    navigate(page, "article.result a.cite")
    assert page.current_url.endswith("#cited")
    cited = page.find_elements(By.CSS_SELECTOR, ".body .cited")
    spans = [tuple(int(x) for x in c.get_attribute("data-lines").split("-")) for c in cited]
    assert cited and all(lo <= b and hi >= a for lo, hi in spans)
    heading = page.execute_script(
        "let e = document.getElementById('cited');"
        "let hs = [...document.querySelectorAll('.body h1, .body h2, .body h3')];"
        "return hs.filter(h => h.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING)"
        ".map(h => h.textContent).pop();")
    assert heading == "3.2 风险等级判定表"
    top = page.execute_script("return document.getElementById('cited').getBoundingClientRect().top")
    assert 0 <= top < page.execute_script("return window.innerHeight")  # scrolled to


def test_a_pasted_log_longer_than_a_url_is_searched_whole(page, server):
    """A technician pastes a controller log of thousands of characters: the box once cut it
    at 2,000 characters (maxlength) and a GET of a long Chinese question passed the 8 KB
    query-string limit (414). The form is POSTed and the whole log searched."""
    from selenium.webdriver.common.by import By

    routine = [f"08:{i // 60:02d}:{i % 60:02d} 周期{1000 + i} 注射完成 保压正常 模温正常 "
               f"螺杆转速正常 料筒温度稳定" for i in range(70)]
    routine.insert(50, "08:00:50 报警 E08 液压油温过高 冷却水不足")
    log = " ".join(routine)  # an <input> holds a pasted text's lines as one line
    assert len(log) > 2500 and len(quote(log)) > 8192  # no GET could carry it
    page.get(server + "/")
    box = page.find_element(By.NAME, "q")
    box.send_keys(log)
    assert len(box.get_attribute("value")) == len(log)  # not cut by the browser
    navigate(page, "form.search button")
    assert page.find_element(By.NAME, "q").get_attribute("value") == log
    first = page.find_element(By.CSS_SELECTOR, "article.result")
    assert first.get_attribute("data-doc") == "knowledge/equipment/hx260-ch05-fault-codes.md"
    navigate(page, "article.result a.cite")  # its link stays within the query-string limit
    assert page.find_elements(By.CSS_SELECTOR, ".body .cited")


def test_formula_svg_and_photo_render(page, server):
    page.get(f"{server}/doc/{quote(SCAB)}")
    natural, width, height = img_size(page, "img.photo")
    assert natural > 0 and width > 0 and height > 0
    natural, width, height = img_size(page, "img.formula")
    assert natural > 0 and width > 0 and height > 0
    page.get(f"{server}/doc/{quote('knowledge/crops/pesticide-dilution-and-phi.md')}")
    assert img_size(page, "img.formula.display")[1] > 0


def test_wheat_scab_decision_form(page, server):
    from selenium.webdriver.common.by import By

    page.get(f"{server}/table/{quote(SCAB)}")
    fields = page.find_elements(By.CSS_SELECTOR, "form.decide label")
    values = {"温度": "22", "相对湿度": "90", "连续降雨天数": "4"}
    for label in fields:
        name = label.find_element(By.CSS_SELECTOR, ".name").text
        key = next(k for k in values if name.startswith(k))
        label.find_element(By.TAG_NAME, "input").send_keys(values[key])
    assert "℃" in page.find_element(By.CSS_SELECTOR, "form.decide").text  # units shown
    navigate(page, "form.decide button")
    match = page.find_element(By.CSS_SELECTOR, ".outcome.match .match")
    assert match.get_attribute("data-row") == "7"
    assert "极高" in match.find_element(By.CSS_SELECTOR, ".outputs").text
    reasons = match.find_elements(By.CSS_SELECTOR, "table.why tr")
    assert len(reasons) == 4  # header + one reason per input
    row = page.find_element(By.CSS_SELECTOR, "table.rules tr.cited")
    assert row.find_elements(By.TAG_NAME, "td")[0].text == ">20"


def test_no_rule_matches_needs_human_review(page, server):
    from selenium.webdriver.common.by import By

    page.get(f"{server}/table/{quote(SCAB)}?table=1&go=1&in.0=22&in.1=90&in.2=abc")
    text = page.find_element(By.TAG_NAME, "main").text
    assert "需要人工复核" in text or page.find_elements(By.CSS_SELECTOR, "p.error")


def test_layout_at_tablet_and_phone_sizes(page, server):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    urls = {"search": "/?q=" + quote("赤霉病 风险等级"), "doc": f"/doc/{quote(SCAB)}?lines=60-73#cited",
            "table": f"/table/{quote(SCAB)}?table=1&go=1&in.0=22&in.1=90&in.2=4"}
    for size, (w, h) in SIZES.items():
        page.set_window_size(w, h)
        for name, url in urls.items():
            page.get(server + url)
            overflow = page.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"{name} scrolls sideways at {size}"
            shot = ARTIFACTS / f"serve-{name}-{size}.png"
            page.save_screenshot(str(shot))
            assert shot.stat().st_size > 1000
    page.set_window_size(1024, 768)


def test_english_switch(page, server):
    from selenium.webdriver.common.by import By

    page.get(server + "/")
    assert page.find_element(By.CSS_SELECTOR, "form.search button").text == "搜索"
    navigate(page, "a.lang")
    assert page.find_element(By.CSS_SELECTOR, "form.search button").text == "Search"
    page.get(server + "/release")  # the choice is remembered
    assert "Serving" in page.find_element(By.TAG_NAME, "h1").text
    page.get(server + "/?lang=zh")


def test_sync_to_a_second_release_switches_the_page(page, server, device):
    from selenium.webdriver.common.by import By

    root, art, dev = device
    question = "/?q=" + quote("条锈病 夏孢子堆 旗叶")
    page.get(server + question)
    before = page.find_element(By.CSS_SELECTOR, ".served-release .tag").text
    assert before.startswith("kb-r")
    docs = [a.get_attribute("data-doc") for a in page.find_elements(By.CSS_SELECTOR, "article.result")]
    assert "knowledge/crops/stripe-rust-note.md" not in docs
    second = second_release(root, art)
    assert sync(str(art), dev).tag == second != before
    page.refresh()
    assert page.find_element(By.CSS_SELECTOR, ".served-release .tag").text == second
    first = page.find_element(By.CSS_SELECTOR, "article.result")
    assert first.get_attribute("data-doc") == "knowledge/crops/stripe-rust-note.md"
    page.get(server + "/release")
    assert page.find_element(By.CSS_SELECTOR, ".served-tag").text == second
    kept = page.find_element(By.CSS_SELECTOR, "table.releases").text
    assert before in kept and second in kept
    changes = page.find_element(By.CSS_SELECTOR, "section.changes")  # the diff page
    assert f"{before} → {second}" in changes.text
    added = changes.find_elements(By.CSS_SELECTOR, "p.added a")
    assert [a.text for a in added] == ["小麦条锈病夏季巡查补充说明"]
    with urllib.request.urlopen(f"{server}/api/diff") as resp:
        diff = json.load(resp)
    assert [d["doc"] for d in diff["documents"]["added"]] == ["knowledge/crops/stripe-rust-note.md"]
    with urllib.request.urlopen(f"{server}/api/search?q=" + quote("条锈病")):
        pass
    log = dev / "queries.jsonl"
    logged = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert {"web", "api"} <= {e["interface"] for e in logged}


def test_reloading_a_results_page_shows_it_and_logs_its_question_once(page, server, device):
    """Chromium's reload sends the results page's ETag back: the page is shown again (a 304
    from the server) and its question is not logged a second time."""
    from selenium.webdriver.common.by import By

    log = device[2] / "queries.jsonl"
    question = "喷雾器 校准 步骤 " + os.urandom(4).hex()  # a question no other test asks

    def asked() -> int:
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        return sum(json.loads(x)["question"] == question for x in lines)

    page.get(server + "/?q=" + quote(question))
    shown = [a.get_attribute("data-doc") for a in page.find_elements(By.CSS_SELECTOR,
                                                                      "article.result")]
    assert asked() == 1
    page.refresh()
    again = [a.get_attribute("data-doc") for a in page.find_elements(By.CSS_SELECTOR,
                                                                      "article.result")]
    assert again == shown and page.find_element(By.NAME, "q").get_attribute("value") == question
    assert asked() == 1


def _fits(driver) -> None:
    """Nothing scrolls the page sideways, and every button and field shown is at least 48 px
    high (one hidden, the search page's "send again" until a search fails, is no target)."""
    assert driver.execute_script(
        "return document.documentElement.scrollWidth - window.innerWidth") <= 1
    low = driver.execute_script(
        "return [...document.querySelectorAll('button, a.button, select, input[type=text],"
        " input[type=search]')].filter(e => e.getClientRects().length &&"
        " e.getBoundingClientRect().height < 47.5)"
        ".map(e => e.outerHTML.slice(0, 80))")
    assert low == []


def test_evaluated_result_leads_to_the_filled_table_at_phone_size(page, server):
    """The decision-table button of an evaluated result opened an empty form, was 44 px high,
    and the decision page's reasons table scrolled the phone page sideways in English."""
    from selenium.webdriver.common.by import By

    page.set_window_size(360, 740)
    try:
        q = quote("温度22度，湿度90%，连续降雨4天，赤霉病风险如何")
        page.get(f"{server}/?lang=en&q={q}")
        _fits(page)
        block = page.find_element(By.CSS_SELECTOR, "article.result .evaluation")
        assert "Matching row: row 7" in block.text
        # each cell's reason under the verdict, in the question's language (v49)
        assert "22 满足 > 20" in block.find_element(By.CSS_SELECTOR, ".cell-reasons").text
        navigate(page, "article.result a.button")
        _fits(page)
        assert page.find_element(By.CSS_SELECTOR, ".outcome.match .match").get_attribute(
            "data-row") == "7"
        assert "22 is > 20" in page.find_element(By.CSS_SELECTOR, "table.why").text
        assert page.find_element(By.CSS_SELECTOR, "table.rules tr.cited").get_attribute(
            "data-row") == "7"
    finally:
        page.set_window_size(1024, 768)
        page.get(server + "/?lang=zh")


def test_the_decision_is_in_view_after_deciding_on_a_phone(page, server):
    """At phone size the outcome of 判定 was below the screen: the decided page opened at its
    top, the form filling the view, and nothing seemed to happen."""
    from selenium.webdriver.common.by import By

    page.set_window_size(360, 740)
    try:
        page.get(f"{server}/table/{quote(SCAB)}?table=1&in.0=22&in.1=90&in.2=4")
        assert not page.find_elements(By.CSS_SELECTOR, ".outcome")  # filled, not decided
        navigate(page, "form.decide button")
        assert page.find_elements(By.CSS_SELECTOR, "#result .outcome.match")
        top = page.execute_script(
            "return document.getElementById('result').getBoundingClientRect().top")
        assert -2 <= top < page.execute_script("return window.innerHeight")  # (sub-pixel)
    finally:
        page.set_window_size(1024, 768)


def test_a_refused_unit_is_said_in_chinese(page, server):
    """A value in another unit (72 kPa in a ℃ column; 72°F is converted since session 45) was
    refused in English on a Chinese page, in the search result's evaluation and on the
    decision page."""
    from selenium.webdriver.common.by import By

    q = quote("温度72kPa，湿度90%，连续降雨4天，赤霉病风险如何")
    page.get(f"{server}/?lang=zh&q={q}")
    block = page.find_element(By.CSS_SELECTOR, "article.result .evaluation").text
    # said alone, not as "no rule matches": no rule was tried (session 44)
    assert "没有匹配的规则" not in block and "请换算成" in block and "it is in" not in block
    navigate(page, "article.result a.button")
    error = page.find_element(By.CSS_SELECTOR, "p.error").text
    assert "温度(℃)" in error and "请换算成" in error and "it is in" not in error
    assert page.find_elements(By.CSS_SELECTOR, "table.rules tr.cited") == []


def test_folded_sections_show_they_open_on_a_phone(page, server):
    """筛选 (the filters) and 文档信息 · 审核状态 (review status) are folded <details>; their
    <summary> was laid out as a flex box, which drops the disclosure triangle: on a phone
    they read as plain text and nothing said they could be opened."""
    page.set_window_size(360, 740)
    try:
        for url in ("/?q=" + quote("赤霉病"), f"/doc/{quote(SCAB)}"):
            page.get(server + url)
            gaps = page.execute_script(
                "return [...document.querySelectorAll('main summary')].map(s => {"
                " const r = document.createRange(); r.selectNodeContents(s);"
                " return [r.getClientRects()[0].left - s.getBoundingClientRect().left,"
                "         s.getBoundingClientRect().height]; })")
            assert gaps, url
            for before_text, height in gaps:  # the triangle stands before the words
                assert before_text >= 8 and height >= 47.5, (url, gaps)
    finally:
        page.set_window_size(1024, 768)


def test_pages_reflow_at_200_percent_zoom_on_a_phone(page, server):
    """A 360 px phone zoomed to 200 % lays pages out 180 CSS px wide: the decision form's
    fields (14rem columns) and the open filters (12rem) were wider than that and scrolled
    the page sideways."""
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 180, "height": 370, "deviceScaleFactor": 2, "mobile": False})
    try:
        for url in ("/?q=" + quote("赤霉病") + "&f.crop=" + quote("小麦"), f"/doc/{quote(SCAB)}",
                    f"/table/{quote(SCAB)}?table=1&go=1&in.0=22&in.1=90&in.2=4"):
            page.get(server + url)
            assert page.execute_script("return window.innerWidth") == 180
            wider = page.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            what = page.execute_script(
                "return [...document.querySelectorAll('body *')].filter(e => "
                "e.getBoundingClientRect().right > window.innerWidth + 1)"
                ".map(e => e.outerHTML.slice(0, 60))")
            assert wider <= 1, f"{url} scrolls sideways by {wider} px at 200 % zoom: {what[:3]}"
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


HOSTILE_DOC = "knowledge/field_reports/k77-hostile.md"
PAST_THE_EDGE = ("return [...document.querySelectorAll('main p, main li, main h1, main h2, main dd,"
                 " main a, main code')].filter(e => !e.closest('table, pre') &&"
                 " e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)"
                 ".map(e => e.outerHTML.slice(0, 60))")


def test_long_words_wrap_on_a_phone(page, server):
    """A configuration key, URL or title with no break in it (`http://gateway…/uploads?since=…`,
    one in three TiDB documents has such a key) ran past the screen edge: the document body
    scrolled sideways and the key was cut at the edge; the release page's list of changed
    documents scrolled the whole page."""
    page.set_window_size(360, 740)
    try:
        for url in (f"/doc/{quote(HOSTILE_DOC)}", "/?q=" + quote("诱捕器 K-77 上传地址"), "/release"):
            page.get(server + url)
            assert page.execute_script(PAST_THE_EDGE) == [], url
            assert page.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth") <= 1, url
    finally:
        page.set_window_size(1024, 768)


# (what is for a screen reader only is clipped to a pixel on purpose: it is not on paper)
CLIPPED = ("return [...document.querySelectorAll('body *:not(.visually-hidden)')]"
           ".filter(e => { const s = getComputedStyle(e);"
           " return s.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1; })"
           ".map(e => e.outerHTML.slice(0, 60))")


def test_a_printed_page_loses_no_text(page, server):
    """Printing a document cut every code line and wide table at the paper's edge (a
    scrolling box prints what it shows: three in four TiDB documents lost text on A4)."""
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 700, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
    page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        for url in (f"/doc/{quote(HOSTILE_DOC)}", "/?q=" + quote("诱捕器 K-77 日志"),
                    f"/doc/{quote('knowledge/equipment/hx260-ch05-fault-codes.md')}"):
            page.get(server + url)
            assert page.execute_script(CLIPPED) == [], url
            assert page.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth") <= 1, url
            assert page.find_element("css selector", "header.top nav").is_displayed() is False
    finally:
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_switching_language_keeps_the_cited_lines_in_view(page, server):
    """On a phone, switching to English on a cited document (or a decided table) reloaded
    the page at its top: the cited lines (the decision) were screens further down."""
    page.set_window_size(360, 740)
    try:
        for url, anchor in ((f"/doc/{quote(SCAB)}?lines=60-73#cited", "cited"),
                            (f"/table/{quote(SCAB)}?table=1&go=1&in.0=22&in.1=90&in.2=4#result",
                             "result")):
            page.get(server + url)
            navigate(page, "a.lang")
            assert page.find_element("css selector", "a.brand").text == "Field knowledge"
            top = page.execute_script(
                "return document.getElementById(arguments[0]).getBoundingClientRect().top", anchor)
            assert page.execute_script("return window.scrollY") > 0, url
            assert -2 <= top < page.execute_script("return window.innerHeight"), url
            navigate(page, "a.lang")  # and back to Chinese, still there
            assert page.execute_script("return window.scrollY") > 0, url
    finally:
        page.set_window_size(1024, 768)
        page.get(server + "/?lang=zh")


def test_fields_stand_out_from_the_page(page, server):
    """The search box, the filters and the decision form's fields were outlined in a light
    grey of 1.45:1 against the page: in daylight on a phone the empty fields to fill in could
    not be seen (WCAG asks 3:1 of a control's boundary)."""
    colours = "return [...document.querySelectorAll(arguments[0])].map(e => [" \
              "getComputedStyle(e).borderTopColor, getComputedStyle(document.body).backgroundColor])"
    for url, fields in (("/?f.crop=" + quote("小麦"), "input[type=search], select"),
                        (f"/table/{quote(SCAB)}?table=1", "form.decide input[type=text]")):
        page.get(server + url)
        found = page.execute_script(colours, fields)
        assert found, url
        for border, background in found:
            rgb = [[float(x) for x in c[c.index("(") + 1:-1].split(",")] for c in (border, background)]
            assert contrast(*rgb) >= 3, (url, border, background)


def test_a_printed_procedure_keeps_headings_with_their_steps_and_says_where_links_go(page, server):
    """Technicians print procedures: a heading ("3.1 需要立即预防用药的情形") was printed alone
    at the foot of a page with its steps on the next, and a link printed as its words only
    ("…见农药配比与安全间隔期。"), so the paper did not say which document to look up."""
    import base64
    import re

    from pdftext import pdf_pages

    printed = ""
    for doc in (SCAB, "knowledge/crops/pesticide-dilution-and-phi.md"):
        page.get(server + f"/doc/{quote(doc)}")
        heads = page.execute_script(
            "return [...document.querySelectorAll('.body h1, .body h2, .body h3, .body h4')]"
            ".map(h => h.textContent.replace(/\\s+/g, ''))")
        pdf = base64.b64decode(page.execute_cdp_cmd(
            "Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69})["data"])  # A4
        pages = [re.sub(r"\s+", "", p) for p in pdf_pages(pdf)]
        assert len(pages) > 1 and heads, doc
        for n, text in enumerate(pages[:-1], 1):
            assert not [h for h in heads if text.endswith(h)], (doc, n, text[-60:])
        printed += "".join(pages)
    assert "农药配比与安全间隔期(/doc/knowledge/crops/pesticide-dilution-and-phi.md)" in printed
    assert "第4节(/doc/knowledge/crops/wheat-scab.md#4-药剂与用量)" in printed  # readable, not %E8…


def test_a_printed_procedure_says_who_verified_it_and_when(page, server):
    """The review status (verified by, verified at) is folded on screen, and a folded
    `<details>` printed its summary only: the paper said 已审核 but not by whom or when."""
    import base64
    import re

    from pdftext import pdf_pages

    page.get(server + f"/doc/{quote(SCAB)}")
    pdf = base64.b64decode(page.execute_cdp_cmd("Page.printToPDF", {})["data"])
    printed = re.sub(r"\s+", "", "".join(pdf_pages(pdf)))
    assert "审核人li.ming@agri.example.org" in printed
    assert "审核时间2026-03-02T16:10:00+08:00" in printed
    assert page.execute_script("return document.querySelector('.meta details').open") is False


def test_a_wide_table_scrolls_in_its_own_box_and_by_keyboard(page, server):
    """On a 320 px phone a document's wide table (the HX260 fault codes) scrolled the whole
    document text sideways with it, and no key could scroll it: the box that scrolled held
    links, so Tab went to them, never to the box."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 320, "height": 640, "deviceScaleFactor": 1, "mobile": True})
    try:
        page.get(server + f"/doc/{quote('knowledge/equipment/hx260-ch05-fault-codes.md')}")
        scrolls = page.execute_script(
            "return [...document.querySelectorAll('body *')].filter(e => "
            "['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && "
            "e.scrollWidth > e.clientWidth + 1).map(e => e.tagName + '.' + e.className)")
        assert scrolls == ["DIV.table-wrap"], scrolls
        page.execute_script("document.activeElement.blur()")
        focused = []
        while "table-wrap" not in focused and len(focused) < 12:
            ActionChains(page).send_keys(Keys.TAB).perform()
            focused.append(page.execute_script("return document.activeElement.className"))
        assert "table-wrap" in focused, focused
        ActionChains(page).send_keys(Keys.ARROW_RIGHT).perform()  # the focused box scrolls
        WebDriverWait(page, 30).until(lambda d: d.execute_script(
            "return document.querySelector('.table-wrap').scrollLeft > 0"))
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_first_tab_shows_the_skip_link_and_enter_passes_the_header(page, server):
    """Keyboard users tabbed through the header on every page. The first Tab now lands on a
    link shown on screen (hidden until then), and Enter on it moves the focus to the page's
    content: the next Tab reaches something in it, not the menu."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        page.get(server + f"/doc/{quote(SCAB)}")
        box = "const r = document.querySelector('a.skip').getBoundingClientRect(); " \
              "return [r.top, r.bottom, r.width];"
        assert page.execute_script(box)[1] <= 0  # not shown before it has the focus
        page.execute_script("document.activeElement.blur()")
        ActionChains(page).send_keys(Keys.TAB).perform()
        assert page.execute_script("return document.activeElement.className") == "skip"
        top, bottom, width = page.execute_script(box)
        assert top >= 0 and bottom > top and width > 0
        ActionChains(page).send_keys(Keys.ENTER).perform()
        assert page.execute_script("return document.activeElement.id") == "kb-main"
        ActionChains(page).send_keys(Keys.TAB).perform()
        assert page.execute_script(
            "return document.querySelector('main').contains(document.activeElement)")
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _picture_boxes(driver) -> list[list[float]]:
    return driver.execute_script(
        "return [...document.querySelectorAll('img.photo, img.formula')].map(i => {"
        "const r = i.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)];})")


@pytest.mark.parametrize("doc", [SCAB, "knowledge/crops/pesticide-dilution-and-phi.md"])
def test_pictures_keep_their_place_while_they_load(server, doc):
    """Photos and formula pictures had no width or height: on patchy 4G the text jumped
    down under the reader as each one arrived. Their place is now kept before they load:
    the boxes while the pictures' requests are held back are the boxes once they loaded."""
    from selenium.webdriver.support.ui import WebDriverWait

    url = f"{server}/doc/{quote(doc)}"
    driver = start_browser("none")  # navigating does not wait for the held-back pictures
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        # the pictures' requests are paused (never answered) until Fetch is disabled
        driver.execute_cdp_cmd("Fetch.enable", {"patterns": [
            {"urlPattern": "*/asset/*"}, {"urlPattern": "*.svg"}]})
        driver.get(url)
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "return document.readyState === 'interactive' && "
            "document.querySelector('footer') !== null"))
        waiting = _picture_boxes(driver)
        pending = driver.execute_script(
            "return [...document.querySelectorAll('img.photo, img.formula')]"
            ".filter(i => !i.complete).length")
        driver.execute_cdp_cmd("Fetch.disable", {})
        driver.get(url)
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "return document.readyState === 'complete' && "
            "[...document.images].every(i => i.complete && i.naturalWidth > 0)"))
        loaded = _picture_boxes(driver)
    finally:
        driver.quit()
    assert loaded and all(w > 0 and h > 0 for w, h in loaded)
    assert pending == len(waiting) == len(loaded)  # measured while none had arrived
    assert all(abs(a - b) <= 1 for box, seen in zip(waiting, loaded, strict=True)
               for a, b in zip(box, seen, strict=True)), (waiting, loaded)
