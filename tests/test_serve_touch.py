"""`kb serve` as a technician uses it on a phone or a tablet, with gloves, in a real headless
Chromium: every link, button and field of every kind of page is a 48×48 px target, the back
button returns to the results a pasted log gave (at the place left), and a wide table's
Chinese columns stay readable in their scrolling box."""

from __future__ import annotations

import subprocess
from urllib.parse import quote

import pytest
from browserfixtures import browser, needs_chromium, page, serve
from servefixtures import make_served_repo, navigate, second_release, zh_doc

from kbtools.config import load_config
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync

pytestmark = [pytest.mark.slow, needs_chromium]
__all__ = ["browser", "page"]  # fixtures this module's tests use

SCAB = "knowledge/crops/wheat-scab.md"
FAULTS = "knowledge/equipment/hx260-ch05-fault-codes.md"
# a document with links in its text, a cross reference, a wide table whose first column is a
# long key and whose other columns are Chinese sentences
WIDE = zh_doc("喷雾机参数表", """# 喷雾机参数表

另见[小麦赤霉病](wheat-scab.md)的[第4节](wheat-scab.md#4-药剂与用量)，以及[稀释](pesticide-dilution-and-phi.md)。

| 参数 | 作用域 | 说明 | 备注 |
|---|---|---|---|
| sprayer_nozzle_pressure_calibration_interval_extremely_long_name | 全局 | 每次作业前按喷头压力重新校准喷雾量，超过间隔未校准的机具不得下田 | 修改后立即生效，无需重启控制器中的任何组件 |""")
# every kind of page: the search results, a document with the cited lines and links, a
# decision table decided, the release page listing what changed, an error page
PAGES = {"search": "/?q=" + quote("赤霉病 风险等级"),
         "doc": f"/doc/{quote(SCAB)}?lines=60-73&q={quote('赤霉病')}#cited",
         "links": "/doc/" + quote("knowledge/crops/sprayer-table.md"),
         "faults": "/doc/" + quote(FAULTS),
         "table": f"/table/{quote(SCAB)}?table=1&go=1&in.0=22&in.1=90&in.2=4",
         "release": "/release", "error": "/doc/knowledge/no-such.md"}
# what a finger can touch: a control inside a label is hit anywhere on its label; a link in a
# sentence (a document's text, a result's passage) is as wide as its words (WCAG's inline
# exception), but 48 px high
SMALL = """return [...document.querySelectorAll(
  'a[href], button, select, summary, input:not([type=hidden]):not(:disabled)')]
  .filter(e => e.getClientRects().length > 0 && !e.matches('a.skip:not(:focus)'))
  .map(e => [(e.closest('label') || e).getBoundingClientRect(), e.outerHTML.slice(0, 80),
             !!e.closest('.body, .passage')])
  .filter(([r, _, inText]) => (!inText && r.width < 47.5) || r.height < 47.5)
  .map(([r, html]) => [Math.round(r.width), Math.round(r.height), html])"""
# a document's paragraph holding links, and its line height: the links must not grow it
LINES = """const p = [...document.querySelectorAll('.body p')].find(p => p.querySelector('a[href]'));
return [p.getBoundingClientRect().height, parseFloat(getComputedStyle(p).lineHeight)]"""


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    """A device synced to the second of two releases (the release page lists a document added
    and one changed)."""
    base = tmp_path_factory.mktemp("touch")
    root = make_served_repo(base / "kr")
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    make_release(root, load_config(root).path("dist"), remote=str(art))
    second_release(root, art, {"knowledge/crops/sprayer-table.md": WIDE})
    dev = base / "device"
    sync(str(art), dev)
    return dev


@pytest.fixture(scope="module")
def server(device):
    yield from serve(device)


@pytest.mark.parametrize("size", [(360, 640), (768, 1024)])
def test_every_link_button_and_field_is_a_48_px_target(page, server, size):
    """The release page's "what changed" links were 20 px high, a document's links and cross
    references 20 px, the cited-lines link 19 px, a result's title 44 px, the filters'
    checkbox 28 px: too small for a gloved finger on a phone or a tablet."""
    width, height = size
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": height, "deviceScaleFactor": 1,
                          "mobile": True})
    try:
        for name, url in PAGES.items():
            page.get(server + url)
            # the fault codes' references name chapters this release lacks: no link (its
            # title's 第5章 was one, to itself, until a heading's own number named no heading)
            assert page.execute_script("return document.querySelectorAll('main a[href]').length") \
                or name == "faults", name
            assert page.execute_script(SMALL) == [], (name, size)
            assert page.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth") <= 1, name
        page.get(server + "/release")
        assert page.find_elements("css selector", "section.changes p.added a")
        if width >= 768:  # the paragraph with three links fits one line: it stays one line high
            page.get(server + PAGES["links"])
            height, line = page.execute_script(LINES)
            assert height < 1.5 * line, (height, line)
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_back_after_a_pasted_log_returns_to_its_results_where_they_were_left(page, server):
    """A pasted log is answered in place (no URL holds it): following a result and pressing
    back showed the browser's "confirm form resubmission" error instead of the results (the
    page was sent `no-store`, so the browser could only post the form again), and the
    results page, once kept, opened at its top (the search box's autofocus scrolled to it)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 360, "height": 640, "deviceScaleFactor": 1, "mobile": True})
    try:
        log = " ".join(f"08:{i // 60:02d}:{i % 60:02d} 周期{1000 + i} 注射完成 保压正常 模温正常 "
                       f"螺杆转速正常 料筒温度稳定" for i in range(70)) + " 报警 E08 液压油温过高"
        page.get(server + "/")
        page.execute_script("document.querySelector('[name=q]').value = arguments[0]", log)
        navigate(page, "form.search button")
        results = [a.get_attribute("data-doc")
                   for a in page.find_elements(By.CSS_SELECTOR, "article.result")]
        assert len(results) > 3
        fourth = "article.result:nth-of-type(4) a.cite"
        page.execute_script("document.querySelector(arguments[0]).scrollIntoView()", fourth)
        left_at = page.execute_script("return window.scrollY")
        assert left_at > 0
        navigate(page, fourth)
        assert "/doc/" in page.current_url
        page.back()  # to the results' GET page (`/?held=`): kept whole (bfcache) or asked again
        WebDriverWait(page, 60).until(lambda d: d.execute_script(
            "return location.pathname === '/' && document.readyState === 'complete'"))
        assert "held=" in page.current_url
        assert [a.get_attribute("data-doc")
                for a in page.find_elements(By.CSS_SELECTOR, "article.result")] == results
        assert page.find_element(By.NAME, "q").get_attribute("value") == log
        assert page.execute_script("return window.scrollY") == left_at
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_wide_tables_chinese_columns_are_not_squeezed_to_a_character(page, server):
    """A wide table scrolls in its box on a phone, but its columns were squeezed to their
    narrowest: a Chinese sentence stood one character a line, its row 400 px high."""
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 360, "height": 640, "deviceScaleFactor": 1, "mobile": True})
    try:
        for url in ("/doc/" + quote("knowledge/crops/sprayer-table.md"), "/doc/" + quote(FAULTS)):
            page.get(server + url)
            narrow = page.execute_script(
                "return [...document.querySelectorAll('.table-wrap td, .table-wrap th')]"
                ".filter(c => c.getBoundingClientRect().width < 5 * parseFloat("
                "getComputedStyle(c).fontSize)).map(c => c.textContent.slice(0, 20))")
            assert narrow == [], url
            assert page.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth") <= 1, url
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
