"""`kb serve` on a 390×844 phone in a real headless Chromium, as a technician goes through it:
a search with a filter, its decision table decided, and back; a very long Chinese heading
and heading path; a decision table ten columns wide. What a page is about (its results, its
form) is on the first screen, and nothing scrolls the page sideways."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from browserfixtures import SIDEWAYS, browser, needs_chromium, page, serve, serve_with
from selenium.webdriver.support.ui import WebDriverWait
from servefixtures import make_served_repo, navigate

pytestmark = [pytest.mark.slow, needs_chromium]
__all__ = ["browser", "page"]  # fixtures this module's tests use

PHONE = (390, 844)
LONG = "knowledge/crops/stripe-rust-long.md"
# a hundred-character title, section and subsection (a decision table's name is their path)
# over a decision table of six inputs and four long outputs
LONG_DOC = """---
title: 小麦条锈病秋苗期与返青拔节期田间监测预警及药剂防治分区分级分类综合技术操作规程（县级植保站与乡镇农技站联合执行版）
category: crop-protection
source: 测试
author: 测试员
timestamp: "2026-02-20T09:30:00+08:00"
verified: false
lang: zh
crop: [小麦]
disease: [条锈病]
---

# 小麦条锈病秋苗期与返青拔节期田间监测预警及药剂防治分区分级分类综合技术操作规程（县级植保站与乡镇农技站联合执行版）

## 第三部分：冬麦区秋苗期条锈病发生程度分级判定与应急防治药剂选择及施药窗口期确定方法详细说明

### 3.1 按病叶率、平均严重度、连续降雨天数、日均温度、相对湿度与生育期综合判定条锈病防治等级及用药方案的决策表

<!-- decision: inputs=病叶率(%),平均严重度(%),连续降雨天数,日均温度(℃),相对湿度(%),生育期; outputs=防治等级,推荐药剂及每亩用量,施药窗口期,复查间隔与备注说明 -->
| 病叶率(%) | 平均严重度(%) | 连续降雨天数 | 日均温度(℃) | 相对湿度(%) | 生育期 | 防治等级 | 推荐药剂及每亩用量 | 施药窗口期 | 复查间隔与备注说明 |
|---|---|---|---|---|---|---|---|---|---|
| <1 | * | * | * | * | * | 一级（监测） | 不用药，继续系统调查 | 无 | 每 7 天复查一次，重点看发病中心周边麦田 |
| 1-5 | <10 | ≤3 | * | * | * | 二级（点片防治） | 15% 三唑酮可湿性粉剂 60-80 克兑水 30 千克 | 发现病点后 3 天内 | 每 5 天复查，雨后加查一次，记录新增病点坐标 |
| 1-5 | ≥10 | * | * | * | * | 三级（带药侦查） | 12.5% 烯唑醇可湿性粉剂 30-40 克兑水 30 千克 | 发现后 2 天内 | 每 3 天复查，并向县植保站报告发生面积 |
| >5 | * | * | 8-16 | ≥80 | 秋苗期 | 四级（全面防治） | 30% 己唑醇悬浮剂 10-15 毫升加 25% 吡唑醚菌酯悬浮剂 30 毫升 | 立即，48 小时内完成 | 每 3 天复查，药后 7 天调查防效，防效低于 80% 时补喷 |
| >5 | * | * | * | * | 返青拔节期 | 四级（全面防治） | 30% 己唑醇悬浮剂 10-15 毫升 | 立即 | 每 3 天复查 |

条锈病在秋苗期发生的田块要重点关注。
"""
QUESTION = "小麦条锈病 病叶率 6 温度 12 湿度 85 秋苗期"
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_with(tmp_path_factory.mktemp("phone") / "kr", {LONG: LONG_DOC})


@pytest.fixture
def phone(page):
    page.set_window_size(*PHONE)
    yield page
    page.set_window_size(1024, 768)


def _screen(driver) -> float:
    return float(driver.execute_script("return window.innerHeight"))


def _top(driver, selector: str) -> float:
    return float(driver.execute_script(
        "return document.querySelector(arguments[0]).getBoundingClientRect().top", selector))


def test_what_is_for_a_screen_reader_only_is_not_shown(phone, server):
    """The stylesheet's comment above `.visually-hidden` was never closed: the rule was part
    of the comment, and the search page showed its hidden heading, the question's label and
    the keyboard help above the box."""
    phone.get(server + "/")
    sizes = phone.execute_script(
        "return [...document.querySelectorAll('.visually-hidden')]"
        ".map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])")
    assert len(sizes) >= 3
    assert all(w <= 1 and h <= 1 for w, h in sizes), sizes


def test_a_filtered_search_shows_its_results_on_the_first_screen(phone, server):
    """A search with a filter opened the filters: a dozen menus filled two screens of a phone
    and the first result was 1,500 px down. They fold under the results once there are any,
    their summary naming what is chosen."""
    phone.get(server + "/?q=" + quote(QUESTION) + "&f.crop=" + quote("小麦"))
    assert phone.find_elements("css selector", "article.result")
    assert _top(phone, "article.result") < _screen(phone) - 100
    summary = phone.find_element("css selector", "details.facets summary").text
    assert "crop = 小麦" in summary
    assert phone.execute_script("return document.querySelector('details.facets').open") is False
    width, shown = phone.execute_script(SIDEWAYS)
    assert width <= shown


def test_search_decide_and_back_on_a_phone(phone, server):
    phone.get(server + "/?q=" + quote(QUESTION) + "&f.crop=" + quote("小麦"))
    results = phone.current_url
    navigate(phone, f'article.result[data-doc="{LONG}"] a.button')
    form = phone.current_url
    assert f"/table/{quote(LONG)}" in form
    # the form is on the first screen under the table's long name
    fields = phone.find_elements("css selector", "form.decide input[type=text]")
    assert len(fields) == 6
    assert fields[0].rect["y"] + fields[0].rect["height"] < _screen(phone)
    assert fields[0].get_attribute("value") == "6"
    for field in fields:
        if not field.get_attribute("value"):
            field.send_keys("5")
    navigate(phone, "form.decide button")
    assert "四级（全面防治）" in phone.find_element("css selector", ".outcome").text
    width, shown = phone.execute_script(SIDEWAYS)
    assert width <= shown
    phone.back()
    assert phone.current_url == form
    phone.back()
    assert phone.current_url == results
    assert phone.find_element("id", "kb-q").get_attribute("value") == QUESTION
    assert phone.execute_script("return document.querySelector('select[name=\\'f.crop\\']').value") \
        == "小麦"


@pytest.mark.parametrize("url", [f"/doc/{quote(LONG)}", f"/table/{quote(LONG)}?table=1",
                                 "/?q=" + quote("条锈病 防治等级 秋苗期 施药窗口期")])
def test_long_chinese_headings_and_a_wide_table_do_not_scroll_the_page_sideways(phone, server,
                                                                               url):
    phone.get(server + url)
    width, shown = phone.execute_script(SIDEWAYS)
    assert width <= shown, url
    # the long heading wraps inside the page
    right = phone.execute_script(
        "return Math.max(...[...document.querySelectorAll('h1, h2, .where')]"
        ".filter(e => e.getClientRects().length).map(e => e.getBoundingClientRect().right))")
    assert right <= shown + 0.5, url
    # a wide table scrolls in its own box
    tables = phone.execute_script(
        "return [...document.querySelectorAll('main table')].map(t => {"
        " const box = t.parentElement; return [t.scrollWidth, box.clientWidth,"
        " getComputedStyle(box).overflowX]; })")
    for table_width, box_width, overflow in tables:
        assert table_width <= box_width or overflow in ("auto", "scroll"), (url, tables)


def test_pages_read_before_the_server_went_away_are_still_there(browser, tmp_path_factory):
    """The server stops mid-session (the device switched off, the 4G gone): Back and Forward
    show the pages already read, whole and styled, and a new page is the browser's own
    "cannot be reached" message, never a blank page."""
    root = make_served_repo(tmp_path_factory.mktemp("gone") / "kr")
    running = serve(root / "dist")  # a server of its own, stopped below
    base = next(running)
    phone = browser
    phone.set_window_size(*PHONE)
    try:
        phone.get(base + "/?q=" + quote("小麦赤霉病 温度 22 湿度 90"))
        phone.get(base + "/doc/" + quote("knowledge/crops/wheat-scab.md"))
    finally:
        next(running, None)  # the server stops
    phone.back()
    assert phone.find_elements("css selector", "article.result")
    assert phone.execute_script("return document.styleSheets.length") >= 1
    assert phone.execute_script(
        "return getComputedStyle(document.querySelector('h1')).position") == "absolute"
    phone.forward()
    assert "赤霉病" in phone.find_element("css selector", "main").text
    phone.execute_script("document.querySelector('a.brand').click()")
    WebDriverWait(phone, 30).until(lambda d: "/doc/" not in d.current_url)
    assert phone.execute_script("return document.body.innerText").strip()
    phone.set_window_size(1024, 768)


@pytest.mark.parametrize("size", [PHONE, (820, 1180)])  # a phone, a tablet upright
def test_a_results_citation_is_one_target_to_its_lines_with_the_release_beside(page, server,
                                                                               size):
    """Each result's title and citation (doc › heading path › lines) are one link, as wide as
    the result and at least 48 px high, to the cited lines of its document; the release tag
    and source commit are on the first screen with the results (the footer, which named
    them, is a dozen screens down on a phone), and nothing scrolls sideways, a hundred-
    character heading path and all."""
    page.set_window_size(*size)
    try:
        page.get(server + "/?q=" + quote(QUESTION))
        release = page.find_element("css selector", "section.results .served-release")
        assert release.is_displayed() and release.rect["y"] + release.rect["height"] < _screen(page)
        assert page.execute_script("return document.querySelector('footer.release')") is None
        boxes = page.execute_script(
            "return [...document.querySelectorAll('article.result')].map(a => {"
            " const c = a.querySelectorAll('a.cite'), r = c[0].getBoundingClientRect();"
            " return [c.length, r.width, r.height, a.getBoundingClientRect().width,"
            " a.dataset.lines, c[0].textContent, new URL(c[0].href).searchParams.get('lines')]})")
        assert len(boxes) >= 3
        for n, width, height, article, lines, text, linked in boxes:
            assert n == 1 and height >= 48 and width >= article - 1, (width, height, article)
            assert linked == lines and "›" in text
        width, shown = page.execute_script(SIDEWAYS)
        assert width <= shown
        hit = f'article.result[data-doc="{LONG}"]'
        lines = page.find_element("css selector", hit).get_attribute("data-lines")
        navigate(page, f"{hit} a.cite")
        assert f"/doc/{quote(LONG)}" in page.current_url and f"lines={lines}" in page.current_url
        cited = page.find_element("id", "cited")
        top = page.execute_script("return arguments[0].getBoundingClientRect().top", cited)
        assert 0 <= top < _screen(page)  # the cited lines are what the page opens at
        assert int(lines.split("-")[0]) <= int(cited.get_attribute("data-lines").split("-")[0])
    finally:
        page.set_window_size(1024, 768)
