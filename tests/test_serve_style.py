"""The web app's stylesheet: every text colour it sets is readable on every surface it
paints (WCAG AA: 4.5:1 for text), in its light theme and in its dark one, so no combination a
page makes (a warning inside the cited lines, a link in a highlighted term) falls short in
daylight on a phone or at night."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest

CSS = files("kbtools.serve").joinpath("static/style.css").read_text(encoding="utf-8")
DARK_AT = CSS.index("@media screen and (prefers-color-scheme: dark)")
# the dark theme's block: its colours are the same names with other values
DARK_CSS = CSS[DARK_AT:CSS.index("\n}\n", DARK_AT)]
LIGHT = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\b", CSS[:DARK_AT]))
DARK = LIGHT | dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\b", DARK_CSS))
# text drawn on its own fill, checked against that fill alone: a button's, a marked term's
ON_FILL = {"var(--on-accent)": "var(--accent)", "var(--on-mark)": "var(--mark)"}


def colour(value: str, palette: dict[str, str]) -> str:
    """A declaration's colour as #rrggbb (a variable resolved in `palette`, its fallback
    ignored)."""
    value = value.strip()
    if value.startswith("var("):
        value = palette[value[4:].split(",")[0].split(")")[0].strip().lstrip("-")]
    value = value.lstrip("#")
    return "#" + ("".join(c * 2 for c in value) if len(value) == 3 else value).lower()


def luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def declared(prop: str) -> set[str]:
    """The values the stylesheet gives `prop` (a colour: a name or a literal)."""
    return {v.strip() for v in re.findall(rf"(?<![\w-]){prop}:\s*([^;}}]+)", CSS)} - {
        "none", "inherit"}


def pairs(palette: dict[str, str]) -> list[tuple[str, str]]:
    """(text, surface) of every text colour on every surface of `palette`'s theme: the
    surfaces are the page's own, not a button's or a marked term's fill (its text, ON_FILL,
    is checked on that fill). An author's highlight (`mark.hl`) is the marking colour under
    text of any colour in the light theme (a line under it in the dark one)."""
    fills = set(ON_FILL.values())
    text = {colour(v, palette) for v in declared("color") if v not in ON_FILL}
    surfaces = {colour(v, palette) for v in declared("background") if v not in fills}
    surfaces.add(colour("var(--bg)", palette))
    if palette is LIGHT:
        surfaces.add(colour("var(--mark)", palette))
    return sorted((t, s) for t in text for s in surfaces)


def test_the_stylesheet_names_the_colours_checked():
    for palette in (LIGHT, DARK):
        found = pairs(palette)
        assert {colour(f"var(--{n})", palette) for n in ("warn", "muted", "accent", "fg")} \
            <= {t for t, _ in found}
        assert {colour(f"var(--{n})", palette) for n in ("cited", "warn-bg", "surface", "bg")} \
            <= {s for _, s in found}
    assert colour("var(--mark)", LIGHT) in {s for _, s in pairs(LIGHT)}
    assert DARK["bg"] != LIGHT["bg"] and luminance(colour("var(--bg)", DARK)) < 0.05
    # every colour is a name the dark theme can give another value (a literal stayed white)
    assert not re.findall(r"(?:color|background):\s*#", CSS)


@pytest.mark.parametrize(("text", "surface"), pairs(LIGHT))
def test_text_is_readable_on_every_surface(text, surface):
    """Warning text on the cited lines' background was 4.44:1 (and 3.9:1 on a marked term)."""
    assert contrast(text, surface) >= 4.5, (text, surface, round(contrast(text, surface), 2))


@pytest.mark.parametrize(("text", "surface"), pairs(DARK))
def test_text_is_readable_on_every_surface_in_the_dark_theme(text, surface):
    assert contrast(text, surface) >= 4.5, (text, surface, round(contrast(text, surface), 2))


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=["light", "dark"])
def test_text_on_a_fill_is_readable(palette):
    """A button's words on the accent, a marked term on its yellow, in either theme."""
    for text, fill in ON_FILL.items():
        assert contrast(colour(text, palette), colour(fill, palette)) >= 4.5, text


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=["light", "dark"])
def test_fields_stand_out_from_the_page(palette):
    """A field's outline is 3:1 against the page at least (it is how the box is seen)."""
    assert contrast(colour("var(--field)", palette), colour("var(--bg)", palette)) >= 3


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
