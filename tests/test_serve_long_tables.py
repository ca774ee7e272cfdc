"""A very long, wide table on a phone in a real headless Chromium: a fault-code list of 150 rows
and seven columns, opened at a cited row near its end. The row is on the screen, and so are
the column names above it (scrolled 140 rows down, the numbers were no longer said to be
codes, thresholds or actions); on paper the whole table is printed, every row."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from browserfixtures import SIDEWAYS, browser, needs_chromium, page, serve_with

pytestmark = [pytest.mark.slow, needs_chromium]
__all__ = ["browser", "page"]  # fixtures this module's tests use

DOC = "knowledge/equipment/hx260-fault-list.md"
ROWS = 150
HEADER = "| 故障代码 | 部件 | 触发条件 | 阈值 | 报警级别 | 现场处理 | 复查周期 |"
LINES = [f"| E{n:03d} | 液压泵{n % 7} 号 | 压力持续低于设定值 {n} 秒 | {n * 3} kPa | "
         f"{'严重' if n % 5 == 0 else '一般'} | 停机检查滤芯和油位，必要时更换密封件 | {n % 30 + 1} 天 |"
         for n in range(1, ROWS + 1)]
TEXT = f"""---
title: HX-260 故障代码总表
category: equipment-maintenance
source: 测试
author: 测试员
timestamp: "2026-02-20T09:30:00+08:00"
verified: false
lang: zh
equipment: [HX-260 注塑机]
section: "9"
---

# HX-260 故障代码总表

## 全部故障代码

{HEADER}
|---|---|---|---|---|---|---|
""" + "\n".join(LINES) + "\n"
PHONE = (390, 844)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_with(tmp_path_factory.mktemp("long") / "kr", {DOC: TEXT})


def _cited_line(n: int) -> int:
    """The file line of table row `n` (1-based)."""
    return TEXT.splitlines().index(LINES[n - 1]) + 1


SHOWN = """
const r = document.querySelector(arguments[0]).getBoundingClientRect();
return r.bottom > 0 && r.top < window.innerHeight && r.height > 0;
"""


def test_a_cited_row_far_down_a_long_table_shows_its_column_names(page, server):
    page.set_window_size(*PHONE)
    try:
        line = _cited_line(140)
        page.get(f"{server}/doc/{quote(DOC)}?lines={line}-{line}#cited")
        assert page.execute_script(SHOWN, "tr.cited")
        assert "E140" in page.find_element("css selector", "tr.cited").text
        # the column names are on the screen with it, above it
        assert page.execute_script(SHOWN, ".table-wrap thead th")
        head = page.execute_script(
            "return document.querySelector('.table-wrap thead th').getBoundingClientRect().bottom")
        row = page.execute_script(
            "return document.querySelector('tr.cited').getBoundingClientRect().top")
        assert head <= row + 1
        width, shown = page.execute_script(SIDEWAYS)
        assert width <= shown
    finally:
        page.set_window_size(1024, 768)


def test_a_long_table_is_printed_whole(page, server):
    page.get(f"{server}/doc/{quote(DOC)}")
    page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        box, table = page.execute_script(
            "const w = document.querySelector('.table-wrap');"
            "return [w.getBoundingClientRect().height, w.querySelector('table').scrollHeight]")
        assert box >= table - 1  # no row hidden in a box on paper
    finally:
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
