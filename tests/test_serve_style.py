"""The web app's stylesheet: every text colour it sets is readable on every light surface it
paints (WCAG AA: 4.5:1 for text), so no combination a page makes (a warning inside the cited
lines, a link in a highlighted term) falls short in daylight on a phone."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest

CSS = files("kbtools.serve").joinpath("static/style.css").read_text(encoding="utf-8")
VARS = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\b", CSS))
WHITE = "#ffffff"


def colour(value: str) -> str:
    """A declaration's colour as #rrggbb (a variable resolved, its fallback ignored)."""
    value = value.strip()
    if value.startswith("var("):
        value = VARS[value[4:].split(",")[0].split(")")[0].strip().lstrip("-")]
    value = value.lstrip("#")
    return "#" + ("".join(c * 2 for c in value) if len(value) == 3 else value).lower()


def luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# text colours on the page's light surfaces (white text is on the accent-coloured buttons)
TEXT = sorted({colour(v) for v in re.findall(r"(?<![\w-])color:\s*([^;}]+)", CSS)} - {WHITE})
SURFACES = sorted({colour(v) for v in re.findall(r"background:\s*([^;}]+)", CSS)
                   if v.strip() != "none" and luminance(colour(v)) > 0.5} | {WHITE})


def test_the_stylesheet_names_the_colours_checked():
    assert {colour("var(--warn)"), colour("var(--muted)"), colour("var(--accent)")} <= set(TEXT)
    assert {colour("var(--cited)"), colour("var(--mark)"), colour("var(--warn-bg)")} <= set(SURFACES)


@pytest.mark.parametrize("text", TEXT)
@pytest.mark.parametrize("surface", SURFACES)
def test_text_is_readable_on_every_surface(text, surface):
    """Warning text on the cited lines' background was 4.44:1 (and 3.9:1 on a marked term)."""
    assert contrast(text, surface) >= 4.5, (text, surface, round(contrast(text, surface), 2))


def test_white_button_text_on_the_accent():
    assert contrast(WHITE, colour("var(--accent)")) >= 4.5


def test_every_comment_of_the_stylesheet_is_closed_before_the_next_opens():
    """The comment above `.visually-hidden` lacked its ``*/``: the rule and the next comment's
    opening were read as comment, and the search page showed what only a screen reader
    should read. A ``/*`` inside a comment is such a comment left open."""
    at = 0
    while (start := CSS.find("/*", at)) != -1:
        end = CSS.find("*/", start + 2)
        assert end != -1, f"a comment at offset {start} is never closed"
        inside = CSS[start + 2:end]
        assert "/*" not in inside, \
            f"the comment at line {CSS.count(chr(10), 0, start) + 1} is not closed before the next"
        at = end + 2
