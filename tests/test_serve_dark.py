"""The web app of `kb serve` on a device set to a dark theme, in a real headless Chromium
(Debian's, under Selenium): the pages follow it with colours of their own, every text
readable on what it is drawn on, and a formula (an SVG of black glyphs) readable too.

Chromium's own "dark theme for sites" (Android's Chrome offers it) darkened the pages that
had none: the formulas stayed black on a near-black page (a dose of 10 mL unreadable)."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest
from browserfixtures import browser, needs_chromium, page, serve
from servefixtures import contrast, make_served_repo

pytestmark = [pytest.mark.slow, needs_chromium]
__all__ = ["browser", "page"]  # fixtures this module's tests use

DILUTION = "/doc/knowledge/crops/pesticide-dilution-and-phi.md"
SCAB = "knowledge/crops/wheat-scab.md"
PAGES = [DILUTION + "?lines=20-30#cited", "/?q=" + "小麦赤霉病 温度22度 湿度90%",
         "/?q=E08+alarm&lang=en", f"/table/{SCAB}?table=1&in.0=22&in.1=90&in.2=4&go=1",
         "/release", "/doc/knowledge/field_reports/k77-hostile.md"]
# every element of a page drawing text: its colour against the background it is drawn on
# (the first ancestor's that paints one)
PAIRS = """
const paint = e => { for (; e; e = e.parentElement) {
  const b = getComputedStyle(e).backgroundColor;
  if (b !== 'rgba(0, 0, 0, 0)' && b !== 'transparent') return b; } return 'rgb(255, 255, 255)'; };
const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
return [...document.querySelectorAll('body *')].filter(e => {
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && [...e.childNodes].some(
    n => n.nodeType === 3 && n.textContent.trim());
}).map(e => [e.tagName + '.' + e.className, rgb(getComputedStyle(e).color), rgb(paint(e))]);
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(make_served_repo(tmp_path_factory.mktemp("dark") / "kr") / "dist")


@pytest.fixture
def dark(page):
    """The browser with a dark theme chosen (and its dark theme for sites on)."""
    page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": "dark"}]})
    page.execute_cdp_cmd("Emulation.setAutoDarkModeOverride", {"enabled": True})
    yield page
    page.execute_cdp_cmd("Emulation.setAutoDarkModeOverride", {})
    page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def rgb_pixels(png: bytes) -> list[tuple[int, int, int]]:
    """The pixels of a PNG (8-bit RGB or RGBA, not interlaced: what Chromium's screenshots
    are), as (r, g, b)."""
    pos, data = 8, b""
    while pos < len(png):
        size, kind = struct.unpack(">I4s", png[pos:pos + 8])
        chunk = png[pos + 8:pos + 8 + size]
        pos += 12 + size
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and ctype in (2, 6) and interlace == 0
        elif kind == b"IDAT":
            data += chunk
    step = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(data), width * step
    prev, out, at = bytearray(stride), [], 0
    for _ in range(height):
        kind_, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for x in range(stride):
            a = line[x - step] if x >= step else 0
            b, c = prev[x], (prev[x - step] if x >= step else 0)
            if kind_ == 1:
                line[x] = (line[x] + a) & 255
            elif kind_ == 2:
                line[x] = (line[x] + b) & 255
            elif kind_ == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind_ == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += [(line[x], line[x + 1], line[x + 2]) for x in range(0, stride, step)]
        prev = line
    return out


def shown_contrast(driver, selector: str) -> float:
    """The contrast between the darkest and the lightest pixel of what `selector` shows on
    the screen (a formula: its glyphs against what is behind them)."""
    element = driver.find_element("css selector", selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    shot = base64.b64decode(element.screenshot_as_base64)
    pixels = rgb_pixels(shot)
    lum = sorted(pixels, key=lambda p: 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2])
    return contrast(list(lum[0]), list(lum[-1]))


def test_a_formula_is_readable_in_a_dark_theme(dark, server):
    dark.get(server + DILUTION)
    for selector in ("img.formula.display", "img.formula:not(.display)"):
        assert shown_contrast(dark, selector) >= 7, selector


def test_the_pages_follow_a_dark_theme_with_readable_text(dark, server):
    for address in PAGES:
        dark.get(server + address)
        background = dark.execute_script(
            "return getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number)")
        assert contrast(background, [0, 0, 0]) < 2, address  # a dark page, not a white one
        low = [(what, fg, bg, round(contrast(fg, bg), 2))
               for what, fg, bg in dark.execute_script(PAIRS) if contrast(fg, bg) < 4.5]
        assert low == [], address


def test_the_light_theme_keeps_readable_text(page, server):
    """The same check in the light theme (where the pages were right already)."""
    for address in PAGES:
        page.get(server + address)
        low = [(what, fg, bg, round(contrast(fg, bg), 2))
               for what, fg, bg in page.execute_script(PAIRS) if contrast(fg, bg) < 4.5]
        assert low == [], address
